"""Shared pieces of the browser tests: a ``jupyter lab`` server in a temporary root,
chromium through Playwright, and page helpers (open a notebook, run it, run code in its
kernel, take screenshots into ``test-output/browser/``)."""

from __future__ import annotations

import json
import os
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

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "test-output" / "browser"

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


def run_in_kernel(page, code: str, timeout: float = 60_000) -> str:
    """Run ``code`` in the open notebook's kernel; returns what it printed (or the
    error). Started without awaiting inside ``evaluate``, then polled."""
    page.evaluate(
        """(code) => {
            const w = window.jupyterapp.shell.currentWidget;
            const kernel = w.sessionContext.session.kernel;
            window.__symnbOut = null;
            const future = kernel.requestExecute({code, store_history: false});
            let out = "";
            future.onIOPub = (msg) => {
                const t = msg.header.msg_type;
                if (t === "stream") { out += msg.content.text; }
                if (t === "error") {
                    out += "ERROR " + msg.content.ename + ": " + msg.content.evalue;
                }
            };
            future.done.then(() => { window.__symnbOut = out; },
                             (e) => { window.__symnbOut = "ERROR " + e; });
        }""",
        code,
    )
    page.wait_for_function("() => window.__symnbOut !== null", timeout=timeout)
    return page.evaluate("() => window.__symnbOut")
