"""Every notebook in notebooks/ executes headless under nbclient and shows what it
promises.

Each notebook runs once per test session in a fresh kernel of this interpreter (the
kernel spec ``python3`` launches ``sys.executable``); the checks then read the saved
outputs: ``text/latex`` for f and f', ``image/png`` plots, widget views and saved
widget state.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

_executed: dict[str, tuple[object, float, BaseException | None]] = {}


def _all_notebooks() -> list[str]:
    return sorted(
        p.name
        for p in NOTEBOOKS.glob("*.ipynb")
        if not p.name.endswith(".executed.ipynb")
    )


def execute(name: str):
    """Run a notebook once (cached); fail with the cell's error if one raised."""
    if name not in _executed:
        path = NOTEBOOKS / name
        assert path.exists(), f"{path} is missing"
        nb = nbformat.read(path, as_version=4)
        client = nbclient.NotebookClient(
            nb,
            timeout=300,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOKS)}},
        )
        start = time.perf_counter()
        error = None
        try:
            client.execute()
        except Exception as exc:  # noqa: BLE001 - reported by the test below
            error = exc
        _executed[name] = (nb, time.perf_counter() - start, error)
    nb, seconds, error = _executed[name]
    if error is not None:
        pytest.fail(f"{name} failed under nbclient:\n{error}"[:4000])
    return nb, seconds


def outputs(nb):
    for cell in nb.cells:
        if cell.cell_type == "code":
            yield from cell.get("outputs", [])


def data_of(nb, mime):
    return [o["data"][mime] for o in outputs(nb) if mime in o.get("data", {})]


def text_of(nb):
    parts = []
    for o in outputs(nb):
        if o.get("output_type") == "stream":
            parts.append(o.get("text", ""))
        parts.extend(str(v) for v in o.get("data", {}).values() if isinstance(v, str))
    return "\n".join(parts)


@pytest.mark.slow
@pytest.mark.parametrize("name", _all_notebooks() or ["01_quickstart.ipynb"])
def test_notebook_executes_without_error(name):
    nb, seconds = execute(name)
    assert not any(o.get("output_type") == "error" for o in outputs(nb))
    assert seconds < 240, f"{name} took {seconds:.0f} s (keep notebooks short)"


@pytest.mark.slow
def test_quickstart_shows_latex_plots_and_training():
    nb, _ = execute("01_quickstart.ipynb")
    latex = data_of(nb, "text/latex")
    assert any("f(x) =" in t and "swish" in t for t in latex)
    assert any("f'(x) =" in t and "swish" in t for t in latex)
    assert any("bump" in t for t in latex)
    assert len(data_of(nb, "image/png")) >= 3  # f/f' plots and the loss curve
    text = text_of(nb)
    assert "numpy" in text and "compiled in" in text
    assert "did you mean" in text or "sigmoid" in text  # the short error message
    assert "History(" in text


@pytest.mark.slow
def test_classroom_has_widget_views():
    nb, _ = execute("02_classroom.ipynb")
    views = data_of(nb, WIDGET_VIEW)
    assert views, "no widget view in the executed classroom notebook"
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    ids = {v["model_id"] for v in views}
    assert ids & set(state), "the widget views have no saved state"


@pytest.mark.slow
def test_research_has_table_and_loss_curves():
    nb, _ = execute("03_activation_research.ipynb")
    html = "\n".join(data_of(nb, "text/html"))
    assert "<table" in html and "accuracy" in html
    for name in ("relu", "gelu", "swish_beta", "gcu"):
        assert name in html
    assert data_of(nb, "image/png")


def test_quickstart_script_exists_and_is_executable():
    script = NOTEBOOKS.parent / "scripts" / "quickstart.sh"
    assert script.exists()
    assert script.stat().st_mode & 0o111
    assert "01_quickstart.executed.ipynb" in script.read_text()
