"""``%%symact`` ended in a traceback from inside the plot after binding the
definitions: ``--no-compile`` with a constant beyond the plot's float32
(``fq(x; a=1e300) = a*tanh(x)``: FormulaError from the NumPy kernel it compiled to
plot), ``--range 1e308:1.7e308 --dtype float64`` (matplotlib: 'arange: cannot
compute length'), values near the float64 limit (LinAlgError 'Singular matrix').
Now the cell succeeds and its status line says why there is no plot; the last two
(and a --range whose width overflows) are drawn, in units of a power of ten."""

from __future__ import annotations

import pytest
from IPython.utils.capture import capture_output


def _plain_outputs(captured) -> str:
    return "\n".join(o.data.get("text/plain", "") for o in captured.outputs)


@pytest.mark.parametrize(
    ("line", "body", "reason"),
    [
        ("--no-compile", "fp(x; a=1e300) = a*tanh(x)", "does not fit"),
    ],
)
def test_a_plot_that_cannot_be_drawn_is_a_note(shell, line, body, reason) -> None:
    shell.user_ns.pop("fp", None)
    with capture_output() as captured:
        shell.run_cell_magic("symact", line, body)
    assert shell.user_ns["fp"].name == "fp"
    text = _plain_outputs(captured)
    assert "warning: no plot of fp over" in text and reason in text
    assert "--no-plot" in text


def test_a_drawable_plot_is_still_an_image(shell) -> None:
    with capture_output() as captured:
        shell.run_cell_magic("symact", "--no-compile", "fp(x) = 2*x")
    assert any("image/png" in o.data for o in captured.outputs)
    assert "no plot" not in _plain_outputs(captured)


@pytest.mark.parametrize(
    ("line", "body"),
    [
        ("--range 1e308:1.7e308 --dtype float64 --no-compile", "fp(x) = 2*x"),
        ("--dtype float64 --no-compile", "fp(x; a=1.7e308) = a*tanh(x)"),
        ("--range -1.7e308:1.7e308 --dtype float64 --no-compile", "fp(x) = x"),
    ],
)
def test_values_near_the_float64_maximum_are_drawn(shell, line, body) -> None:
    """These were a note 'no plot ...: Singular matrix' (or 'arange: cannot compute
    length'); -1.7e308:1.7e308 was refused because HIGH - LOW overflows."""
    shell.user_ns.pop("fp", None)
    with capture_output() as captured:
        shell.run_cell_magic("symact", line, body)
    assert shell.user_ns["fp"].name == "fp"
    assert any("image/png" in o.data for o in captured.outputs)
    assert "no plot" not in _plain_outputs(captured)
