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


def frames_per_second(page, seconds: float) -> tuple[float, float, float, float]:
    """Frames drawn by the playground view per second, epochs per second, view
    updates sent per second by the kernel, and the browser's ms per draw."""
    run_in_kernel(page, "pg.speed = None\npg.play()")
    page.wait_for_timeout(1000)

    def read() -> tuple[int, int, float]:
        view = page.locator(".symnb-pgv").first
        return (
            int(view.get_attribute("data-frames-drawn") or 0),
            int(view.get_attribute("data-epoch") or 0),
            time.monotonic(),
        )

    s0 = kernel_json(page, "pg.stats()['frames']")
    f0, e0, t0 = read()
    page.wait_for_timeout(seconds * 1000)
    f1, e1, t1 = read()
    s1 = kernel_json(page, "pg.stats()['frames']")
    run_in_kernel(page, "pg.pause()")
    draw_ms = float(page.locator(".symnb-pgv").first.get_attribute("data-draw-ms"))
    return (
        (f1 - f0) / (t1 - t0),
        (e1 - e0) / (t1 - t0),
        (s1 - s0) / (t1 - t0),
        draw_ms,
    )


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


def editor_fps(page, seconds: float) -> tuple[float, float]:
    """Curves drawn per second while a constant's slider is dragged back and forth,
    and slider input events per second (one per animation frame, as a hand's drag;
    dispatched in the page, so Playwright's round trips do not limit the rate)."""
    editor = page.locator(".symnb-editor").first
    editor.scroll_into_view_if_needed()
    return tuple(
        page.evaluate(
            """(seconds) => new Promise((resolve) => {
                const range = document.querySelector(
                    '.symnb-editor .symnb-constant-range');
                const curves = document.querySelector('.symnb-editor .symnb-curves');
                const lo = +range.min, hi = +range.max;
                let v = +range.value, dir = 1, moves = 0;
                const f0 = +(curves.dataset.framesDrawn || 0);
                const t0 = performance.now();
                function step() {
                    v += dir * (hi - lo) / 90;
                    if (v > hi || v < lo) { dir = -dir; v += 2 * dir * (hi - lo) / 90; }
                    range.value = v;
                    range.dispatchEvent(new Event('input', {bubbles: true}));
                    moves += 1;
                    if (performance.now() - t0 < seconds * 1000) {
                        requestAnimationFrame(step);
                        return;
                    }
                    const dt = (performance.now() - t0) / 1000;
                    const frames = +(curves.dataset.framesDrawn || 0) - f0;
                    resolve([frames / dt, moves / dt]);
                }
                requestAnimationFrame(step);
            })""",
            seconds,
        )
    )


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
                fps, eps, sent, draw_ms = frames_per_second(page, args.seconds)
                results.setdefault("view updates drawn / s", []).append(fps)
                results.setdefault("view updates sent / s", []).append(sent)
                results.setdefault("browser ms per playground draw", []).append(draw_ms)
                results.setdefault("epochs / s while drawn", []).append(eps)
                painted, acked = add_neuron_latency(page)
                results.setdefault("+ neuron: click to painted (ms)", []).append(
                    painted
                )
                results.setdefault("+ neuron: click to kernel ack (ms)", []).append(
                    acked
                )
                sent0, t0 = kernel_json(page, "ed.plot.frame"), time.monotonic()
                fps, moves = editor_fps(page, args.seconds)
                sent = (kernel_json(page, "ed.plot.frame") - sent0) / (
                    time.monotonic() - t0
                )
                results.setdefault("editor frames / s (slider drag)", []).append(fps)
                results.setdefault("editor curve updates sent / s", []).append(sent)
                results.setdefault("editor: slider input events / s", []).append(moves)
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
