"""``%%symact`` constants written as a number too small for a float (``1e-400``)
were read as 0.0 and bound without a word: ``f(x; beta=1e-400) = beta*x`` became
f = 0 (``1e400`` was already refused). Now the cell is refused, naming the constant."""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output


def _run(shell, body: str) -> None:
    with capture_output():
        shell.run_cell_magic("symact", "--no-plot --no-compile", body)


@pytest.mark.parametrize(
    "value", ["1e-400", "-1e-400", "2.5E-999", "learnable(1e-400)", "0.001e-322"]
)
def test_underflowing_constant_is_refused(shell, value) -> None:
    shell.user_ns.pop("fu", None)
    with pytest.raises(UsageError) as info:
        _run(shell, f"fu(x; beta={value}) = beta*x")
    message = str(info.value)
    assert "constant 'beta'" in message and "too small" in message
    assert "line 2" in message
    assert "fu" not in shell.user_ns


@pytest.mark.parametrize("value", ["0", "0.0", "-0.0", "0e5", "0.000e-400", "0_0.0"])
def test_written_zeros_are_zero(shell, value) -> None:
    _run(shell, f"fz(x; beta={value}) = beta*x + x")
    kernel = shell.user_ns["fz"].compile(backend="numpy", dtype="float64")
    assert kernel.constants == {"beta": 0.0}
    np.testing.assert_array_equal(kernel.forward(np.array([2.0, -3.0])), [2.0, -3.0])


def test_smallest_subnormal_is_kept(shell) -> None:
    _run(shell, "fs(x; beta=5e-324) = beta*x + x")
    assert shell.user_ns["fs"].constants["beta"] == 5e-324


@pytest.mark.parametrize("value", ["nan", "-inf", "inf", "NaN", "learnable(Infinity)"])
def test_nan_and_inf_constants_are_called_not_finite(shell, value) -> None:
    """They were "cannot read the value of constant 'beta': 'nan'"."""
    shell.user_ns.pop("fn", None)
    with pytest.raises(UsageError) as info:
        _run(shell, f"fn(x; beta={value}) = beta*x")
    assert "constant 'beta' must be a finite number" in str(info.value)
    assert "fn" not in shell.user_ns
