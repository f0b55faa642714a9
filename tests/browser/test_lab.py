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

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "test-output" / "browser"
QUICKSTART = REPO / "notebooks" / "01_quickstart.ipynb"

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

SYMACT_CELL = (
    "%%symact --backend cpp --range -4:4\n"
    "# a smooth activation with one constant\n"
    "swish(x; beta=1.0) = x*sigmoid(beta*x)\n"
    "bump(x) = exp(-x**2) + 0.5*tanh(x)"
)

#: How long a whole notebook may take to run (compiles, plots, widgets).
RUN_TIMEOUT_MS = 240_000


# --------------------------------------------------------------------------- helpers


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(
        "chromium not found on PATH: run scripts/ci_browser_setup.sh "
        "(apt-get install -y chromium)"
    )
    raise AssertionError  # unreachable


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


class Lab:
    """A running ``jupyter lab`` server."""

    def __init__(self, base: Path) -> None:
        self.root = base / "root"
        self.root.mkdir()
        self.log_path = base / "jupyter-lab.log"
        self.port = _free_port()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        dirs = {name: base / name for name in ("config", "data", "runtime", "ipython")}
        for path in dirs.values():
            path.mkdir()
        # No "get Jupyter news?" toast in the screenshots.
        labconfig = dirs["config"] / "labconfig"
        labconfig.mkdir()
        (labconfig / "page_config.json").write_text(
            json.dumps(
                {
                    "disabledExtensions": {
                        "@jupyterlab/apputils-extension:announcements": True
                    }
                }
            )
        )
        self.env = dict(
            os.environ,
            JUPYTER_CONFIG_DIR=str(dirs["config"]),
            JUPYTER_DATA_DIR=str(dirs["data"]),
            JUPYTER_RUNTIME_DIR=str(dirs["runtime"]),
            IPYTHONDIR=str(dirs["ipython"]),
            JUPYTERLAB_SETTINGS_DIR=str(base / "lab-settings"),
            JUPYTERLAB_WORKSPACES_DIR=str(base / "lab-workspaces"),
            JUPYTER_PLATFORM_DIRS="1",
            PYDEVD_DISABLE_FILE_VALIDATION="1",
        )
        self.env.pop("JUPYTER_PATH", None)
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        cmd = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--allow-root",
            "--ip=127.0.0.1",
            f"--port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            "--LabApp.expose_app_in_browser=True",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ]
        log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self._log = log
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.root,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited early:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(
                    f"{self.url}/api/status?token={self.token}", timeout=2
                ) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"jupyter lab did not answer in 90 s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.proc is None:
            return
        try:
            request = urllib.request.Request(
                f"{self.url}/api/shutdown?token={self.token}", method="POST"
            )
            urllib.request.urlopen(request, timeout=10).close()
            self.proc.wait(timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=10)
        self._log.close()

    def log_tail(self, lines: int = 60) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}?token={self.token}&reset"


def _write_notebook(path: Path, sources: list[str]) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nbformat.write(nb, path)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def chromium_path() -> str:
    return _chromium()


@pytest.fixture(scope="module")
def lab(tmp_path_factory, chromium_path):
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")
    server = Lab(tmp_path_factory.mktemp("jupyter-lab"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser(chromium_path):
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright (Python) is not installed"
    )
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, lab, request):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"[{m.type}] {m.text}"))
    page.on("pageerror", lambda e: messages.append(f"[pageerror] {e}"))
    page.symnb_console = messages
    yield page
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        with contextlib.suppress(Exception):
            _shot(page, f"zz-failure-{request.node.name}")
        print("---- browser console ----\n" + "\n".join(messages[-80:]))
        print("---- jupyter lab log ----\n" + lab.log_tail())
    context.close()


# --------------------------------------------------------------------------- page helpers


def _open_notebook(page, lab: Lab, name: str) -> None:
    page.goto(lab.notebook_url(name))
    page.wait_for_function("() => window.jupyterapp !== undefined")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell")
    _wait_kernel_idle(page)


def _wait_kernel_idle(page, timeout: float = 90_000) -> None:
    page.wait_for_function(
        """() => {
            const w = window.jupyterapp.shell.currentWidget;
            const kernel = w && w.sessionContext && w.sessionContext.session
                && w.sessionContext.session.kernel;
            return !!kernel && kernel.status === 'idle' && w.context.isReady;
        }""",
        timeout=timeout,
    )


def _command(page, command: str, args: dict | None = None) -> None:
    """Start a JupyterLab command (not awaited: awaiting in evaluate can hang)."""
    page.evaluate(
        "([command, args]) => { window.jupyterapp.commands.execute(command, args); }",
        [command, args or {}],
    )


def _run_all_and_wait(page, timeout: float = RUN_TIMEOUT_MS) -> None:
    _command(page, "notebook:run-all-cells")
    page.wait_for_timeout(500)
    # Done when the kernel is idle, no prompt shows [*] and every code cell ran,
    # or an error stopped the run (JupyterLab then skips the remaining cells).
    page.wait_for_function(
        """() => {
            const w = window.jupyterapp.shell.currentWidget;
            const kernel = w.sessionContext.session.kernel;
            if (!kernel || kernel.status !== 'idle') { return false; }
            const cells = w.content.widgets.filter(c => c.model.type === 'code');
            const running = cells.some(c => {
                const prompt = c.node.querySelector('.jp-InputPrompt');
                return prompt !== null && prompt.textContent.includes('*');
            });
            if (running) { return false; }
            const failed = document.querySelector(
                '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]');
            return failed !== null || cells.every(c => c.model.executionCount !== null);
        }""",
        timeout=timeout,
        polling=500,
    )
    # Outputs (MathJax typesetting, widget views) settle shortly after.
    page.wait_for_timeout(1500)


def _scroll_to_cell(page, selector: str | None = None, index: int = 0) -> int:
    """Make a cell active and scroll it to the top, then let the page paint.

    With ``selector``, the first cell containing a match of it; else cell ``index``.
    """
    found = page.evaluate(
        """([selector, index]) => {
            const nb = window.jupyterapp.shell.currentWidget.content;
            let i = index;
            if (selector) {
                i = nb.widgets.findIndex(c => c.node.querySelector(selector) !== null);
                if (i < 0) { return -1; }
            }
            nb.activeCellIndex = i;
            nb.scrollToItem(i, 'start');
            return i;
        }""",
        [selector, index],
    )
    page.wait_for_timeout(1200)
    return found


def _errors_in_outputs(page) -> list[str]:
    return page.evaluate(
        """() => Array.from(document.querySelectorAll(
                '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]'))
            .map(e => e.textContent.slice(0, 2000))"""
    )


def _cell_tokens(page, index: int) -> list[list[str]]:
    """(text, symnb token class) of the decorated spans in one cell's editor."""
    return page.evaluate(
        """(index) => {
            const cell = window.jupyterapp.shell.currentWidget.content.widgets[index];
            const spans = cell.node.querySelectorAll('.cm-content [class*="symnb-tok-"]');
            return Array.from(spans).map(s => [s.textContent,
                Array.from(s.classList).find(c => c.startsWith('symnb-tok-'))]);
        }""",
        index,
    )


def _cell_sources(page) -> list[str]:
    return page.evaluate(
        """() => window.jupyterapp.shell.currentWidget.content.widgets
            .map(c => c.model.sharedModel.getSource())"""
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
    field = editor.locator(".symnb-formula input")
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
    expect(editor.locator(".symnb-plot img, img.symnb-plot").first).to_be_visible()
    _shot(page, "25-editor-after-typing")

    # Play trains: the epoch counter and the loss curve change; Pause stops it
    playground.scroll_into_view_if_needed()
    epoch = playground.locator(".symnb-epoch")
    loss_plot = playground.locator(".symnb-loss-plot")
    start_epoch = epoch.inner_text()
    start_plot = loss_plot.get_attribute("src")
    _shot(page, "26-playground-before-play")
    playground.locator(".symnb-play").click()
    page.wait_for_function(
        "([node, text]) => node.innerText !== text",
        arg=[epoch.element_handle(), start_epoch],
        timeout=60_000,
    )
    page.wait_for_function(
        "([node, src]) => node.getAttribute('src') !== src",
        arg=[loss_plot.element_handle(), start_plot],
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
