"""``%symnb names`` and ``%symnb forget``: a %%symact name stays callable by later
formulas for the whole kernel session (even after ``del``), so the notebook lists and
forgets such names on request."""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output


def _symact(shell, line: str, cell: str) -> None:
    shell.run_cell_magic("symact", line, cell)


def _values(shell, name: str, xs) -> np.ndarray:
    """f of the notebook's definition ``name`` at xs (a float64 NumPy kernel)."""
    act = shell.user_ns[name]
    return act.compile(backend="numpy", dtype="float64").forward(np.asarray(xs, float))


def _names(shell) -> str:
    with capture_output() as cap:
        shell.run_line_magic("symnb", "names")
    return cap.stdout


def test_a_deleted_name_is_still_called_until_forgotten(shell):
    _symact(shell, "--no-compile -q", "fgbump(x) = exp(-x**2)")
    del shell.user_ns["fgbump"]
    assert "fgbump" in _names(shell)
    # the name still works in a later cell, as the listing says
    _symact(shell, "--no-compile -q", "fguse(x) = 2*fgbump(x)")
    xs = np.array([0.0, 0.5, 2.0])
    got = _values(shell, "fguse", xs)
    np.testing.assert_allclose(got, 2 * np.exp(-(xs**2)), rtol=1e-12)

    with capture_output() as cap:
        shell.run_line_magic("symnb", "forget fgbump fguse")
    assert "forgot fgbump, fguse" in cap.stdout
    assert "fgbump" not in _names(shell)
    with pytest.raises(UsageError, match="fgbump"):
        _symact(shell, "--no-compile -q", "fguse2(x) = fgbump(x)")


def test_forgetting_a_replaced_library_name_restores_the_library(shell):
    shell.user_ns.pop("softsign", None)
    _symact(shell, "--no-compile -q --replace", "softsign(x) = 3*x")
    _symact(shell, "--no-compile -q", "fgsoft(x) = softsign(x)")
    assert _values(shell, "fgsoft", [1.0])[0] == pytest.approx(3.0)
    shell.run_line_magic("symnb", "forget softsign")
    _symact(shell, "--no-compile -q", "fgsoft(x) = softsign(x)")
    # the library's softsign x/(1 + |x|)
    assert _values(shell, "fgsoft", [1.0])[0] == pytest.approx(0.5)
    shell.run_line_magic("symnb", "forget fgsoft")


def test_forget_refuses_unknown_names_and_forgets_nothing(shell):
    _symact(shell, "--no-compile -q", "fgkeep(x) = x**3")
    with pytest.raises(UsageError) as err:
        shell.run_line_magic("symnb", "forget fgkeep no_such_name")
    text = str(err.value)
    assert "'no_such_name' is not a name formulas call" in text
    assert "fgkeep" in text and "nothing was forgotten" in text
    assert "fgkeep" in _names(shell)
    with pytest.raises(UsageError, match="name the definitions to forget"):
        shell.run_line_magic("symnb", "forget")
    shell.run_line_magic("symnb", "forget fgkeep")
