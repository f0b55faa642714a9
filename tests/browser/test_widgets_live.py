"""The browser-drawn Playground and editor in a real JupyterLab (issue 13).

One notebook is opened once for the module; the tests then run in order on it:
weight lines, hover, a weight edit, speed, view toggles while playing, quick
"+ neuron" clicks, an activation change while training, the editor's curves and the
projector layout at 1280x720. Screenshots go to ``test-output/browser/``.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from .labtools import (
    _open_notebook,
    _run_all_and_wait,
    _shot,
    _write_notebook,
    run_in_kernel,
)

pytestmark = pytest.mark.browser

CELLS = [
    (
        "from symnb.widgets import ActivationEditor, Playground\n"
        "pg = Playground(config={'backend': 'numpy', 'hidden': [4, 2], 'seed': 1})\n"
        "pg"
    ),
    (
        "ed = ActivationEditor('x*sigmoid(beta*x)', name='swish_b', "
        "compare=('relu', 'tanh'))\ned"
    ),
]


@pytest.fixture(scope="module")
def nb(browser, lab):
    """The live notebook: both widgets rendered (module-wide page)."""
    _write_notebook(lab.root / "live.ipynb", CELLS)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    messages: list[str] = []
    page.on("pageerror", lambda e: messages.append(f"[pageerror] {e}"))
    page.on(
        "console",
        lambda m: (
            messages.append(f"[{m.type}] {m.text}") if m.type == "error" else None
        ),
    )
    page.symnb_console = messages
    _open_notebook(page, lab, "live.ipynb")
    _run_all_and_wait(page)
    page.wait_for_selector(".symnb-pgv .symnb-boundary", timeout=60_000)
    page.wait_for_selector(".symnb-curves canvas", timeout=60_000)
    yield page
    context.close()


def kernel_json(page, expr: str):
    out = run_in_kernel(page, f"import json as _j; print(_j.dumps({expr}))")
    assert not out.startswith("ERROR"), out
    return json.loads(out.strip().splitlines()[-1])


def data_epoch(page) -> int:
    return int(page.locator(".symnb-pgv").first.get_attribute("data-epoch") or 0)


def show_playground(page) -> None:
    page.locator(".symnb-playground").first.scroll_into_view_if_needed()
    page.wait_for_timeout(300)


def test_weight_lines_drawn(nb):
    show_playground(nb)
    lines = nb.locator(".symnb-pgv svg.symnb-links path.symnb-weight")
    nb.wait_for_function(
        "() => document.querySelectorAll('.symnb-pgv path.symnb-weight').length >= 18"
    )
    assert lines.count() == 2 * 4 + 4 * 2 + 2 * 1
    styles = nb.evaluate(
        """() => Array.from(document.querySelectorAll('.symnb-pgv path.symnb-weight'))
            .map(p => [p.getAttribute('stroke'), +p.getAttribute('stroke-width')])"""
    )
    colours = {c for c, _ in styles}
    assert colours == {"rgb(8,119,189)", "rgb(245,147,34)"}, colours  # both signs
    widths = [w for _, w in styles]
    assert max(widths) > 1.5 * min(widths)  # thickness follows |weight|
    # the sign of each line is the sign of the weight in the kernel's model
    weights = kernel_json(nb, "[w.tolist() for w in pg.snapshot().weights]")
    hits = nb.evaluate(
        """() => Array.from(document.querySelectorAll('.symnb-pgv .symnb-weight-hit'))
            .map(p => [+p.dataset.layer, +p.dataset.source, +p.dataset.target,
                       +p.dataset.value])"""
    )
    for layer, i, j, value in hits:
        assert abs(weights[layer][i][j] - value) < 1e-5
    _shot(nb, "30-playground-weight-lines")


def test_hover_enlarges_a_neuron_map(nb):
    show_playground(nb)
    neuron = nb.locator(".symnb-pgv canvas.symnb-neuron").first
    small = neuron.bounding_box()
    neuron.hover()
    big = nb.locator(".symnb-pgv .symnb-hover-map").first
    nb.wait_for_function(
        "() => getComputedStyle(document.querySelector('.symnb-hover-map'))"
        ".display !== 'none'"
    )
    box = big.bounding_box()
    assert box["width"] >= 4 * small["width"], (box, small)
    _shot(nb, "31-playground-hover")
    nb.mouse.move(5, 5)
    nb.wait_for_function(
        "() => getComputedStyle(document.querySelector('.symnb-hover-map'))"
        ".display === 'none'"
    )


def test_editing_a_weight_changes_the_output(nb):
    show_playground(nb)
    before = nb.evaluate(
        "() => document.querySelector('.symnb-pgv .symnb-boundary').toDataURL()"
    )
    hit = nb.locator('.symnb-weight-hit[data-layer="2"][data-source="0"]').first
    x, y = hit.evaluate(
        """p => { const pt = p.getPointAtLength(p.getTotalLength() / 2);
                  const m = p.getScreenCTM();
                  return [pt.x * m.a + m.e, pt.y * m.d + m.f]; }"""
    )
    nb.mouse.click(x, y)  # the middle of the line (a straight one has no height)
    field = nb.locator(".symnb-weight-editor input")
    field.wait_for()
    _shot(nb, "32-playground-weight-editor")
    field.fill("-6")
    field.press("Enter")
    nb.wait_for_function(
        """(before) => document.querySelector('.symnb-pgv .symnb-boundary')
            .toDataURL() !== before""",
        arg=before,
        timeout=20_000,
    )
    assert kernel_json(nb, "float(pg.snapshot().weights[2][0, 0])") == -6.0
    _shot(nb, "33-playground-weight-edited")


def test_speed_five_epochs_per_second(nb):
    show_playground(nb)
    run_in_kernel(nb, "pg.speed = 5\npg.play()")
    nb.wait_for_timeout(1000)
    e0, t0 = data_epoch(nb), time.monotonic()
    nb.wait_for_timeout(4000)
    e1, t1 = data_epoch(nb), time.monotonic()
    rate = (e1 - e0) / (t1 - t0)
    assert 3.5 <= rate <= 6.5, rate  # about 5 epochs/s, seen in the browser
    _shot(nb, "34-playground-speed-5")


def test_view_toggles_while_playing_give_no_error(nb):
    show_playground(nb)
    run_in_kernel(nb, "pg.speed = None\npg.play()")
    show = nb.locator(".symnb-show-test input").first
    disc = nb.locator(".symnb-discretize input").first
    for i in range(100):
        show.click()
        disc.click()
        if i % 10 == 0:
            nb.wait_for_timeout(20)
    nb.wait_for_timeout(1500)
    state = kernel_json(
        nb, "{'errors': [repr(e) for e in pg.errors], 'running': pg.is_running}"
    )
    assert state == {"errors": [], "running": True}
    text = nb.locator(".symnb-playground .symnb-output").first.inner_text()
    assert "Error" not in text, text
    assert not [m for m in nb.symnb_console if "pageerror" in m], nb.symnb_console
    _shot(nb, "35-playground-after-200-toggles")


def test_three_quick_clicks_add_three_neurons(nb):
    show_playground(nb)
    layer = '.symnb-pgv .symnb-layer[data-layer="0"]'
    before = nb.locator(f"{layer} canvas.symnb-neuron").count()
    # click and time until the new tile is in the DOM, three times in a row
    latencies = nb.evaluate(
        """(sel) => {
            const out = [];
            for (let k = 0; k < 3; k++) {
                const t0 = performance.now();
                document.querySelector(sel + ' .symnb-add-neuron').click();
                const n = document.querySelectorAll(sel + ' canvas.symnb-neuron').length;
                out.push([n, performance.now() - t0]);
            }
            return out;
        }""",
        layer,
    )
    assert [n for n, _ in latencies] == [before + 1, before + 2, before + 3]
    nb.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel + ' canvas.symnb-neuron')"
        ".length === n",
        arg=[layer, before + 3],
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        sizes = kernel_json(nb, "pg.model.sizes")
        if sizes[1] == before + 3:
            break
        time.sleep(0.3)
    assert sizes[1] == before + 3, sizes
    nb.wait_for_timeout(800)  # the kernel's acknowledgement keeps the three
    assert nb.locator(f"{layer} canvas.symnb-neuron").count() == before + 3
    _shot(nb, "36-playground-three-neurons")


def test_changing_a_neuron_activation_keeps_training(nb):
    show_playground(nb)
    run_in_kernel(nb, "pg.speed = None\npg.play()")
    nb.wait_for_timeout(500)
    nb.locator('.symnb-pgv canvas.symnb-neuron[data-layer="1"]').first.click()
    menu = nb.locator(".symnb-neuron-menu select")
    menu.wait_for()
    _shot(nb, "37-playground-neuron-menu")
    e0 = data_epoch(nb)
    menu.select_option("relu")
    nb.wait_for_timeout(1000)
    assert data_epoch(nb) > e0  # still training, without a pause
    state = kernel_json(
        nb,
        "{'acts': pg.config['activations'], 'running': pg.is_running, "
        "'errors': [repr(e) for e in pg.errors]}",
    )
    assert state["running"] and state["errors"] == []
    assert state["acts"][1] == ["relu", "tanh"], state
    assert nb.locator(".symnb-pgv .symnb-neuron-act", has_text="relu").count() == 1
    backend = nb.locator(".symnb-pgv .symnb-pgv-backend").first.inner_text()
    assert "backend numpy" in backend
    _shot(nb, "38-playground-neuron-relu")
    run_in_kernel(nb, "pg.pause()")


def test_editor_curves_hover_and_errors(nb):
    editor = nb.locator(".symnb-editor").first
    editor.scroll_into_view_if_needed()
    canvas = editor.locator(".symnb-curves canvas")
    box = canvas.bounding_box()
    nb.mouse.move(box["x"] + box["width"] * 0.75, box["y"] + box["height"] / 2)
    readout = editor.locator(".symnb-curves-readout")
    nb.wait_for_function(
        "(n) => n.textContent.includes('relu')", arg=readout.element_handle()
    )
    text = readout.inner_text()
    x = float(re.search(r"x = (-?[\d.]+)", text).group(1))
    relu = float(re.search(r"relu = (-?[\d.e+-]+)", text).group(1))
    assert abs(relu - max(x, 0.0)) < 1e-3, text
    _shot(nb, "39-editor-hover")
    # the browser's slider: a drag's input events reach the kernel and the curves
    run_in_kernel(
        nb,
        "_seen = []\ned.sliders['beta'].observe("
        "lambda c: _seen.append(c['new']), names='value')",
    )
    frames = int(editor.locator(".symnb-curves").get_attribute("data-frames-drawn"))
    editor.locator(".symnb-constant-range").evaluate(
        """r => { for (const v of [1.5, 2, 2.5, 3]) { r.value = v;
                  r.dispatchEvent(new Event('input', {bubbles: true})); } }"""
    )
    nb.wait_for_timeout(1500)
    seen = kernel_json(nb, "_seen")
    # in order (a value that arrives late is dropped), the last one kept
    assert seen == sorted(seen) and seen[-1] == 3.0, seen
    assert kernel_json(nb, "ed.constants['beta']") == 3.0
    drawn = int(editor.locator(".symnb-curves").get_attribute("data-frames-drawn"))
    assert drawn > frames
    # a typed value beyond the slider's range
    value = editor.locator(".symnb-constant-value input")
    value.fill("10")
    value.press("Enter")
    nb.wait_for_timeout(1500)
    assert kernel_json(nb, "[ed.constants['beta'], ed.sliders['beta'].max]") == [10, 20]
    # a broken formula keeps the last good curves and shows the error under them
    before = canvas.evaluate("c => c.toDataURL()")
    field = editor.locator(".symnb-formula textarea")
    field.fill("x*(1+")
    error = editor.locator(".symnb-curves-error")
    error.wait_for(state="visible", timeout=20_000)
    assert "never closed" in error.inner_text()
    assert canvas.evaluate("c => c.toDataURL()") == before
    _shot(nb, "40-editor-broken-formula")
    field.fill("x*sigmoid(beta*x)")
    error.wait_for(state="hidden", timeout=20_000)
    # projector mode: LaTeX at display size, a large plot
    normal = editor.locator(".symnb-latex mjx-container").first.bounding_box()
    editor.locator(".symnb-presentation").first.click()
    display = editor.locator(".symnb-latex-display mjx-container").first
    display.wait_for(timeout=30_000)
    nb.wait_for_function(
        "(c) => c.width >= 800", arg=canvas.element_handle(), timeout=20_000
    )
    assert display.bounding_box()["height"] >= 1.4 * normal["height"], normal
    editor.scroll_into_view_if_needed()
    _shot(nb, "42-editor-projector")
    editor.locator(".symnb-presentation").first.click()


def test_projector_mode_fits_1280x720(nb):
    run_in_kernel(
        nb,
        "pg.pause()\npg.config = dict(pg.config, hidden=[8] * 6, "
        "activations=['tanh'] * 6)\npg.set_view(presentation=True)",
    )
    nb.set_viewport_size({"width": 1280, "height": 720})
    nb.evaluate(
        "() => { const s = window.jupyterapp.shell; s.collapseLeft(); "
        "s.collapseRight(); }"
    )
    nb.wait_for_function(
        "() => document.querySelectorAll('.symnb-pgv canvas.symnb-neuron').length"
        " === 48"
    )
    view = nb.locator(".symnb-pgv").first
    nb.mouse.move(2, 700)  # no hover map in the picture
    view.evaluate("v => v.scrollIntoView({block: 'start'})")
    nb.wait_for_timeout(1200)
    box = view.bounding_box()
    out = nb.locator(".symnb-pgv .symnb-boundary").first.bounding_box()
    _shot(nb, "41-projector-1280x720")
    assert box["width"] <= 1280 and box["height"] <= 720, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1280, box
    # the output map is beside the network, fully on screen, large
    assert out["x"] + out["width"] <= 1280 and out["y"] + out["height"] <= 720, out
    assert out["width"] >= 280  # larger than the normal layout's 240
    font = view.evaluate("v => parseFloat(getComputedStyle(v).fontSize)")
    assert font >= 16
