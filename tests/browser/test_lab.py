"""symnb in a real JupyterLab, driven through a real chromium.

The module starts ``jupyter lab`` on a free localhost port with a temporary root,
token and Jupyter config/data/runtime dirs, drives Debian's chromium through
Playwright for Python, and stops everything afterwards. It checks the lab
extension (``%%symact`` highlighting, the palette command, the toolbar button, the
status-bar item) and then runs ``notebooks/01_quickstart.ipynb`` end to end
(MathJax formulas, plot images, widgets, ActivationEditor typing, Playground
Play/Pause).

Screenshots of each step go to ``test-output/browser/``.

Needs: ``chromium`` on PATH (``scripts/ci_browser_setup.sh`` installs it),
``playwright`` (Python package; no Playwright browser download) and ``jupyterlab``
with symnb installed (``pip install .`` builds and installs the extension).
Run: ``python -m pytest -m browser tests/browser``.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from .labtools import (
    REPO,
    Lab,
    _cell_sources,
    _cell_tokens,
    _command,
    _errors_in_outputs,
    _open_notebook,
    _run_all_and_wait,
    _scroll_to_cell,
    _shot,
    _wait_kernel_idle,
    _write_notebook,
)

pytestmark = pytest.mark.browser

QUICKSTART = REPO / "notebooks" / "01_quickstart.ipynb"

SYMACT_CELL = (
    "%%symact --backend cpp --range -4:4\n"
    "# a smooth activation with one constant\n"
    "swish(x; beta=1.0) = x*sigmoid(beta*x)\n"
    "bump(x) = exp(-x**2) + 0.5*tanh(x)"
)


# --------------------------------------------------------------------------- tests


def test_extension_is_installed_and_enabled():
    """``jupyter labextension list`` shows symnb enabled (it prints to stderr)."""
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")
    result = subprocess.run(
        [sys.executable, "-m", "jupyter", "labextension", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    text = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)
    line = next((ln for ln in text.splitlines() if re.match(r"\s*symnb v", ln)), None)
    assert line, f"symnb is not installed as a lab extension (pip install .):\n{text}"
    assert "enabled" in line and "OK" in line, line


def test_extension_in_the_browser(page, lab):
    """Highlighting, status bar, palette command and toolbar button."""
    _write_notebook(
        lab.root / "extension.ipynb",
        ["%load_ext symnb", SYMACT_CELL, "%symnb backend numpy"],
    )
    _open_notebook(page, lab, "extension.ipynb")
    plugins = page.evaluate(
        """() => ['symnb:plugin', 'symnb:highlight', 'symnb:status']
            .map(id => window.jupyterapp.isPluginActivated(id))"""
    )
    assert plugins == [True, True, True], page.symnb_console

    # 1. highlighting of the %%symact cell, before anything runs
    page.wait_for_selector(".jp-Cell .symnb-tok-magic")
    tokens = _cell_tokens(page, 1)
    expected = [
        ["%%symact", "symnb-tok-magic"],
        ["--backend", "symnb-tok-option"],
        ["cpp", "symnb-tok-option-value"],
        ["--range", "symnb-tok-option"],
        ["-4", "symnb-tok-number"],
        ["# a smooth activation with one constant", "symnb-tok-comment"],
        ["swish", "symnb-tok-definition"],
        ["beta", "symnb-tok-constant"],
        ["1.0", "symnb-tok-number"],
        ["sigmoid", "symnb-tok-function"],
        ["x", "symnb-tok-variable"],
        ["**", "symnb-tok-operator"],
        ["exp", "symnb-tok-function"],
        ["tanh", "symnb-tok-function"],
    ]
    for pair in expected:
        assert pair in tokens, f"{pair} not highlighted; got {tokens}"
    assert _cell_tokens(page, 0) == [], "a plain Python cell was decorated"
    colours = page.evaluate(
        """() => {
            const cell = window.jupyterapp.shell.currentWidget.content.widgets[1];
            const colour = cls => getComputedStyle(
                cell.node.querySelector('.cm-content .' + cls)).color;
            return ['symnb-tok-function', 'symnb-tok-variable', 'symnb-tok-comment',
                    'symnb-tok-magic'].map(colour);
        }"""
    )
    assert len(set(colours)) == len(colours), (
        f"token colours are not distinct: {colours}"
    )
    _shot(page, "01-symact-highlighting")

    # 2. the status bar item is hidden until symnb is loaded in the kernel
    item = page.locator(".symnb-StatusItem")
    assert item.count() == 1
    assert not item.is_visible()
    _shot(page, "02-status-hidden-before-load")

    # 3. typing keeps the highlighting live (an unknown name is flagged)
    editor = page.locator(".jp-Cell").nth(1).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\nbad(x) = sigmod(x)")
    page.wait_for_function(
        """() => Array.from(document.querySelectorAll('.symnb-tok-unknown'))
            .some(e => e.textContent === 'sigmod')"""
    )
    assert ["bad", "symnb-tok-definition"] in _cell_tokens(page, 1)
    _shot(page, "03-highlighting-while-typing")
    page.keyboard.press("Escape")
    page.evaluate(
        """(source) => window.jupyterapp.shell.currentWidget.content.widgets[1]
            .model.sharedModel.setSource(source)""",
        SYMACT_CELL,
    )

    # 4. run everything: the status bar shows the kernel's backend
    _run_all_and_wait(page)
    assert not _errors_in_outputs(page), _errors_in_outputs(page)
    expect = pytest.importorskip("playwright.sync_api").expect
    expect(item).to_be_visible(timeout=20_000)
    expect(item).to_have_text("symnb: numpy \u00b7 cpu", timeout=20_000)
    assert item.get_attribute("data-symnb-backend") == "numpy"
    _shot(page, "04-status-numpy")

    # ... and follows a change of backend
    page.locator(".jp-Cell").nth(2).locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.type("%symnb backend cpp")
    page.keyboard.press("Shift+Enter")
    expect(item).to_have_text("symnb: cpp \u00b7 cpu", timeout=30_000)
    _shot(page, "05-status-cpp")

    # 5. the palette command inserts an activation cell
    # (from a non-empty cell: an empty active code cell would be filled instead)
    page.keyboard.press("Escape")
    page.evaluate(
        "() => { window.jupyterapp.shell.currentWidget.content.activeCellIndex = 0; }"
    )
    before = len(_cell_sources(page))
    _command(page, "apputils:activate-command-palette")
    palette = page.locator(".lm-CommandPalette-input")
    palette.wait_for()
    palette.fill("symnb: insert")
    entry = page.locator(
        ".lm-CommandPalette-item", has_text="symnb: Insert activation cell"
    )
    entry.first.wait_for()
    _shot(page, "06-palette")
    entry.first.click()
    page.wait_for_function(
        f"() => window.jupyterapp.shell.currentWidget.content.widgets.length > {before}"
    )
    sources = _cell_sources(page)
    assert len(sources) == before + 1
    inserted = [
        i for i, s in enumerate(sources) if s.startswith("%%symact --range -4:4\n# One")
    ]
    assert len(inserted) == 1, sources
    page.wait_for_function(
        """(i) => window.jupyterapp.shell.currentWidget.content.widgets[i]
            .node.querySelector('.symnb-tok-definition') !== null""",
        arg=inserted[0],
    )
    assert ["swish", "symnb-tok-definition"] in _cell_tokens(page, inserted[0])
    _shot(page, "07-palette-inserted-cell")

    # 6. the toolbar button does the same
    button = page.locator(
        '.jp-NotebookPanel-toolbar [data-command="symnb:insert-activation-cell"]'
    )
    expect(button).to_be_visible()
    button.click()
    page.wait_for_function(
        f"() => window.jupyterapp.shell.currentWidget.content.widgets.length > {before + 1}"
    )
    assert (
        sum(s.startswith("%%symact --range -4:4\n# One") for s in _cell_sources(page))
        == 2
    )
    _shot(page, "08-toolbar-inserted-cell")

    # 7. the inserted example runs (f and f' rendered by MathJax)
    page.keyboard.press("Escape")
    ran = page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"
    )
    _command(page, "notebook:run-cell")
    page.wait_for_function(
        """(i) => {
            const cell = window.jupyterapp.shell.currentWidget.content.widgets[i];
            return cell.model.executionCount !== null
                && cell.node.querySelector('.jp-OutputArea-output mjx-container') !== null;
        }""",
        arg=ran,
        timeout=60_000,
    )
    _wait_kernel_idle(page)
    page.wait_for_timeout(1000)
    assert not _errors_in_outputs(page), _errors_in_outputs(page)
    _shot(page, "09-example-cell-run")

    # 8. a restarted kernel has not loaded symnb: the status item hides again
    page.evaluate(
        "() => { window.jupyterapp.shell.currentWidget.sessionContext.session"
        ".kernel.restart(); }"
    )
    expect(item).to_be_hidden(timeout=60_000)
    _wait_kernel_idle(page)
    page.locator(".jp-Cell").nth(0).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")  # %load_ext symnb again
    expect(item).to_have_text("symnb: auto", timeout=60_000)
    _shot(page, "10-status-after-restart-and-load")


EDITOR_CELL = (
    "from symnb.widgets import ActivationEditor\n"
    "editor = ActivationEditor('x*sigmoid(beta*x)', name='my_swish')\n"
    "editor"
)
PLAYGROUND_CELL = (
    "from symnb.widgets import Playground\nplayground = Playground()\nplayground"
)


def _quickstart_copy(lab: Lab) -> str:
    """The quickstart in the server root, with an editor and a playground if it has none."""
    import nbformat

    nb = nbformat.read(QUICKSTART, as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    if "ActivationEditor" not in code:
        nb.cells.append(nbformat.v4.new_code_cell(EDITOR_CELL))
    if "Playground" not in code:
        nb.cells.append(nbformat.v4.new_code_cell(PLAYGROUND_CELL))
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, lab.root / QUICKSTART.name)
    return QUICKSTART.name


PASTED_CELLS = [
    "%load_ext symnb",
    (
        "%%symact --range -4:4\n"
        "# pasted from a model's code\n"
        "def swish2(x, beta=1.0):\n"
        "    return x * torch.sigmoid(beta * x)"
    ),
    (
        "%%symact --range -4:4\n"
        "# pasted from a paper\n"
        "elu2(x; alpha=1.0) = \\begin{cases} x & x > 0 \\\\ \\alpha (e^x - 1) & "
        "\\text{otherwise} \\end{cases}"
    ),
    (
        "%%symact --range -4:4\n"
        "# a module class, with an intermediate value\n"
        "class GatedTanh(nn.Module):\n"
        "    def __init__(self, a=1.5):\n"
        "        super().__init__()\n"
        "        self.a = nn.Parameter(torch.tensor(a))\n"
        "\n"
        "    def forward(self, x):\n"
        "        gate = torch.sigmoid(self.a * x)\n"
        "        return torch.tanh(x) * gate"
    ),
    (
        "%%symact --range -4:4 --no-plot\n"
        "# a definition may call one below it, or one of an earlier cell\n"
        "gated2(x) = base2(x)*swish2(x)\n"
        "base2(x; k=2.0) = sigmoid(k*x)"
    ),
]


def test_pasted_code_and_latex_cells(page, lab):
    """%%symact cells of a Python function, of LaTeX and of a module class with an
    intermediate value: highlighted without false alarms, run without errors, their
    formulas shown."""
    _write_notebook(lab.root / "pasted.ipynb", PASTED_CELLS)
    _open_notebook(page, lab, "pasted.ipynb")
    page.wait_for_selector(".jp-Cell .symnb-tok-magic")
    for index in (1, 2, 3, 4):
        tokens = _cell_tokens(page, index)
        flagged = [
            t for t in tokens if t[1] in ("symnb-tok-unknown", "symnb-tok-invalid")
        ]
        assert not flagged, f"cell {index}: {flagged}"
    assert ["swish2", "symnb-tok-definition"] in _cell_tokens(page, 1)
    assert ["\\alpha", "symnb-tok-constant"] in _cell_tokens(page, 2)
    _run_all_and_wait(page)
    assert _errors_in_outputs(page) == []
    text = page.locator(".jp-Cell").nth(2).locator(".jp-OutputArea").inner_text()
    assert "elu2" in text
    assert ["GatedTanh", "symnb-tok-definition"] in _cell_tokens(page, 3)
    text = page.locator(".jp-Cell").nth(3).locator(".jp-OutputArea").inner_text()
    assert "GatedTanh" in text
    assert ["base2", "symnb-tok-function"] in _cell_tokens(page, 4)
    assert ["swish2", "symnb-tok-function"] in _cell_tokens(page, 4)
    text = page.locator(".jp-Cell").nth(4).locator(".jp-OutputArea").inner_text()
    assert "gated2" in text
    _scroll_to_cell(page, index=2)
    _shot(page, "20-pasted-code-and-latex")
    _scroll_to_cell(page, index=3)
    _shot(page, "20-pasted-module-class")
    _scroll_to_cell(page, index=4)
    _shot(page, "20-calls-between-definitions")


def test_quickstart_notebook(page, lab):
    """Run the quickstart in the browser: MathJax, images, widgets, editor, playground."""
    expect = pytest.importorskip("playwright.sync_api").expect
    name = _quickstart_copy(lab)
    _open_notebook(page, lab, name)
    _shot(page, "20-quickstart-opened")
    _run_all_and_wait(page)
    errors = _errors_in_outputs(page)
    assert not errors, errors[0]
    _scroll_to_cell(page, index=0)
    _shot(page, "21-quickstart-ran-top")

    # formulas are typeset by MathJax (f and f' of every %%symact definition)
    mathjax = page.locator(".jp-OutputArea-output mjx-container")
    assert mathjax.count() >= 2, "no MathJax output in the quickstart"
    assert _scroll_to_cell(page, ".jp-OutputArea-output mjx-container") >= 0
    _shot(page, "22-quickstart-mathjax")

    # plots are images that decoded
    images = page.evaluate(
        """() => Array.from(document.querySelectorAll('.jp-OutputArea-output img'))
            .map(img => [img.naturalWidth, img.naturalHeight])"""
    )
    assert images and all(w > 0 and h > 0 for w, h in images), images
    assert _scroll_to_cell(page, ".jp-OutputArea-output img") >= 0
    _shot(page, "23-quickstart-plot")

    # widgets render (not "Loading widget..." or a text repr)
    editor = page.locator(".symnb-editor").first
    playground = page.locator(".symnb-playground").first
    expect(editor).to_be_visible(timeout=30_000)
    expect(playground).to_be_visible(timeout=30_000)

    # typing a formula into the ActivationEditor updates its LaTeX
    editor.scroll_into_view_if_needed()
    latex = editor.locator(".symnb-latex")
    expect(latex.locator("mjx-container").first).to_be_visible(timeout=30_000)
    before = latex.inner_text()
    _shot(page, "24-editor-before")
    field = editor.locator(".symnb-formula textarea")
    field.click()
    field.fill("")
    field.press_sequentially("x*tanh(softplus(x))", delay=40)  # typed, key by key
    page.wait_for_function(
        """([node, before]) => node.innerText !== before
            && node.querySelector('mjx-container') !== null""",
        arg=[latex.element_handle(), before],
        timeout=30_000,
    )
    page.wait_for_timeout(1000)
    assert "tanh" in latex.inner_text()
    expect(editor.locator(".symnb-curves canvas").first).to_be_visible()
    _shot(page, "25-editor-after-typing")

    # pasted code keeps its lines (a one-line input joined them) and the box grows;
    # the code's value is the slider's
    before = latex.inner_text()
    field.fill(
        "def gated(x, beta=1.7):\n    gate = torch.sigmoid(beta * x)\n"
        "    return x * gate"
    )
    page.wait_for_function(
        """([node, before]) => node.innerText !== before
            && node.querySelector('mjx-container') !== null""",
        arg=[latex.element_handle(), before],
        timeout=30_000,
    )
    assert field.evaluate("t => t.rows") == 3
    assert field.evaluate("t => t.value").count("\n") == 2
    value = editor.locator(".symnb-constant-value input").first
    expect(value).to_have_value("1.7", timeout=30_000)
    _shot(page, "26-editor-pasted-function")

    # Play trains: the epoch counter and the loss curve change; Pause stops it
    playground.scroll_into_view_if_needed()
    epoch = playground.locator(".symnb-epoch")
    view = playground.locator(".symnb-pgv")
    start_epoch = epoch.inner_text()
    start_frame = view.get_attribute("data-frame")
    _shot(page, "26-playground-before-play")
    playground.locator(".symnb-play").click()
    page.wait_for_function(
        "([node, text]) => node.innerText !== text",
        arg=[epoch.element_handle(), start_epoch],
        timeout=60_000,
    )
    page.wait_for_function(  # the browser drew new frames (loss curve, maps)
        "([node, frame]) => node.getAttribute('data-frame') !== frame",
        arg=[view.element_handle(), start_frame],
        timeout=60_000,
    )
    page.wait_for_timeout(1500)
    _shot(page, "27-playground-playing")
    playground.locator(".symnb-pause").click()
    # the epoch in flight finishes and the last update arrives: wait until it settles
    paused_at = epoch.inner_text()
    for _ in range(20):
        page.wait_for_timeout(1000)
        now = epoch.inner_text()
        if now == paused_at:
            break
        paused_at = now
    page.wait_for_timeout(2000)
    assert epoch.inner_text() == paused_at, "the epoch counter moved after Pause"
    numbers = [int(n) for n in re.findall(r"\d+", paused_at)]
    assert numbers and numbers[0] > 0, paused_at
    _shot(page, "28-playground-paused")

    # the %%symact cells of the quickstart are highlighted too
    assert page.locator(".jp-Cell .cm-content .symnb-tok-definition").count() >= 1
