"""Browser-drawn widgets in a real JupyterLab and chromium (run by hand).

Measures, with the Playground training on the numpy backend:

- view updates drawn per second by the browser while training (target >= 20);
- click-to-visible latency of "+ neuron" (click to the next painted frame, target
  < 150 ms) and click-to-kernel (until the kernel acknowledged the change);
- editor frames per second while a constant's slider is dragged (target >= 30);
- the kernel's time share spent preparing views (snapshots and sending) against
  training; as a peer in the same run, the time one matplotlib PNG of the same state
  takes (what the widgets drew before).

Repeats are interleaved; medians are reported. Usage::

    python benchmarks/bench_browser.py [--repeats 3] [--seconds 4]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser.labtools import (  # after the path set-up
    CHROMIUM_ARGS,
    Lab,
    _open_notebook,
    _run_all_and_wait,
    _write_notebook,
    run_in_kernel,
)

CELLS = [
    (
        "from symnb.widgets import ActivationEditor, Playground\n"
        "pg = Playground(config={'backend': 'numpy', 'hidden': [4, 2]})\npg"
    ),
    "ed = ActivationEditor('x*sigmoid(beta*x)', compare=('relu', 'tanh'))\ned",
]


def kernel_json(page, expr: str):
    out = run_in_kernel(page, f"import json as _j; print(_j.dumps({expr}))")
    return json.loads(out.strip().splitlines()[-1])


def frames_per_second(page, seconds: float) -> tuple[float, float]:
    """Frames drawn by the playground view per second, and epochs per second."""
    run_in_kernel(page, "pg.speed = None\npg.play()")
    page.wait_for_timeout(1000)

    def read() -> tuple[int, int, float]:
        view = page.locator(".symnb-pgv").first
        return (
            int(view.get_attribute("data-frames-drawn") or 0),
            int(view.get_attribute("data-epoch") or 0),
            time.monotonic(),
        )

    f0, e0, t0 = read()
    page.wait_for_timeout(seconds * 1000)
    f1, e1, t1 = read()
    run_in_kernel(page, "pg.pause()")
    return (f1 - f0) / (t1 - t0), (e1 - e0) / (t1 - t0)


def add_neuron_latency(page) -> tuple[float, float]:
    """ms from a click on "+ neuron" to the next painted frame, and to the kernel's
    acknowledgement; then the neuron is removed again."""
    result = page.evaluate(
        """() => new Promise((resolve) => {
            const sel = '.symnb-pgv .symnb-layer[data-layer="0"]';
            const view = document.querySelector('.symnb-pgv');
            const ack0 = +(view.dataset.ack || 0);
            const t0 = performance.now();
            document.querySelector(sel + ' .symnb-add-neuron').click();
            requestAnimationFrame(() => requestAnimationFrame(() => {
                const painted = performance.now() - t0;
                const poll = () => {
                    if (+(view.dataset.ack || 0) > ack0) {
                        resolve([painted, performance.now() - t0]);
                    } else { setTimeout(poll, 5); }
                };
                poll();
            }));
        })"""
    )
    page.locator('.symnb-pgv .symnb-layer[data-layer="0"] .symnb-remove-neuron').click()
    page.wait_for_timeout(500)
    return result[0], result[1]


def editor_fps(page, seconds: float) -> float:
    """Curves drawn per second while the slider handle is dragged back and forth."""
    editor = page.locator(".symnb-editor").first
    editor.scroll_into_view_if_needed()
    handle = editor.locator(".symnb-constant .noUi-handle")  # ipywidgets 8 slider
    track = editor.locator(".symnb-constant .noUi-target")
    box = track.first.bounding_box()
    hb = handle.first.bounding_box()
    curves = editor.locator(".symnb-curves").first
    page.mouse.move(hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2)
    page.mouse.down()
    f0 = int(curves.get_attribute("data-frames-drawn") or 0)
    t0 = time.monotonic()
    x = box["x"] + box["width"] / 2
    direction = 1
    while time.monotonic() - t0 < seconds:
        x += direction * box["width"] / 60
        if not box["x"] + 5 < x < box["x"] + box["width"] - 5:
            direction = -direction
        page.mouse.move(x, hb["y"] + hb["height"] / 2)
        page.wait_for_timeout(8)
    f1 = int(curves.get_attribute("data-frames-drawn") or 0)
    elapsed = time.monotonic() - t0
    page.mouse.up()
    return (f1 - f0) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        sys.exit("bench_browser: chromium not found (scripts/ci_browser_setup.sh)")
    from playwright.sync_api import sync_playwright

    base = Path(tempfile.mkdtemp(prefix="symnb-bench-browser-"))
    lab = Lab(base)
    lab.start()
    results: dict[str, list[float]] = {}
    try:
        _write_notebook(lab.root / "bench.ipynb", CELLS)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=chromium, args=CHROMIUM_ARGS, headless=True
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            _open_notebook(page, lab, "bench.ipynb")
            _run_all_and_wait(page)
            page.wait_for_selector(".symnb-pgv .symnb-boundary")
            page.locator(".symnb-playground").first.scroll_into_view_if_needed()
            for _ in range(args.repeats):  # interleaved repeats
                fps, eps = frames_per_second(page, args.seconds)
                results.setdefault("view updates drawn / s", []).append(fps)
                results.setdefault("epochs / s while drawn", []).append(eps)
                painted, acked = add_neuron_latency(page)
                results.setdefault("+ neuron: click to painted (ms)", []).append(
                    painted
                )
                results.setdefault("+ neuron: click to kernel ack (ms)", []).append(
                    acked
                )
                results.setdefault("editor frames / s (slider drag)", []).append(
                    editor_fps(page, args.seconds)
                )
                page.locator(".symnb-playground").first.scroll_into_view_if_needed()
            stats = kernel_json(page, "pg.stats()")
            share = stats["draw_seconds"] / (
                stats["draw_seconds"] + stats["train_seconds"]
            )
            png = kernel_json(
                page,
                "(lambda t: (pg.snapshot_png(), 1000 * (__import__('time')"
                ".perf_counter() - t))[1])(__import__('time').perf_counter())",
            )
            frame = 1000 * stats["draw_seconds"] / max(1, stats["frames"])
            browser.close()
    finally:
        lab.stop()
    print("| measure | median | runs |")
    print("|---|---:|---|")
    for name, values in results.items():
        runs = ", ".join(f"{v:.1f}" for v in values)
        print(f"| {name} | {statistics.median(values):.1f} | {runs} |")
    print(f"| kernel time share preparing views | {100 * share:.1f} % | whole run |")
    print(f"| kernel ms per view update (snapshot + send) | {frame:.2f} | mean |")
    print(f"| peer: one matplotlib PNG of the same state (ms) | {png:.1f} | one |")


if __name__ == "__main__":
    main()
