"""Library constants out of their domain when changed after creation.

``symnb.loss("huber", delta=-1)`` was refused (as PyTorch refuses it), but
``symnb.loss("huber").with_constants(delta=-1)`` and a compiled kernel's
``set_constants(delta=-1)`` were taken: a loss that falls as the error grows
(-1.5 at error 1, -3.5 at error 3), which training then follows without a word.
The same for hardtanh with min_val > max_val, celu's alpha 0, softplus's beta 0.
Now both refuse what the library's constructor refuses, naming the constant."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import FormulaError

torch = pytest.importorskip("torch", reason="needs the torch extra (symnb[torch])")


def _torch_refuses(call) -> bool:
    try:
        call()
    except (RuntimeError, ValueError):
        return True
    return False


def test_huber_delta_is_refused_where_pytorch_refuses_it() -> None:
    a, b = torch.zeros(2), torch.ones(2)
    for delta in (-1.0, 0.0):
        assert _torch_refuses(lambda d=delta: torch.nn.HuberLoss(delta=d)(a, b))
        with pytest.raises(FormulaError, match=r"huber's delta must be > 0"):
            symnb.loss("huber").with_constants(delta=delta)
        kernel = symnb.loss("huber").compile(backend="numpy", dtype="float64")
        with pytest.raises(FormulaError, match=r"delta=" + str(delta)):
            kernel.set_constants(delta=delta)
        assert kernel.constants == {"delta": 1.0}  # unchanged


def test_a_valid_change_still_computes_pytorchs_value() -> None:
    kernel = symnb.loss("huber").compile(backend="numpy", dtype="float64")
    kernel.set_constants(delta=2.5)
    p = np.array([0.0, 1.0, -4.0, 7.0])
    t = np.array([0.5, -3.0, 0.0, 7.0])
    want = torch.nn.HuberLoss(delta=2.5)(torch.tensor(p), torch.tensor(t)).item()
    assert kernel.value(p, t) == pytest.approx(want, rel=1e-12)
    changed = symnb.loss("huber").with_constants(delta=2.5)
    value = changed.compile(backend="numpy", dtype="float64").value(p, t)
    assert value == pytest.approx(want, rel=1e-12)


def test_hardtanh_bounds_in_the_wrong_order() -> None:
    assert _torch_refuses(
        lambda: torch.nn.functional.hardtanh(torch.zeros(1), min_val=2.0, max_val=1.0)
    )
    kernel = symnb.activation("hardtanh").compile(backend="numpy")
    with pytest.raises(FormulaError, match="min_val"):
        kernel.set_constants(min_val=2.0)
    with pytest.raises(FormulaError, match="min_val"):
        symnb.activation("hardtanh").with_constants(min_val=2.0)


@pytest.mark.parametrize(
    ("name", "constant"), [("celu", "alpha"), ("softplus", "beta")]
)
def test_zero_where_the_formula_divides_by_it(name, constant) -> None:
    with pytest.raises(FormulaError, match=rf"{constant} must not be 0"):
        symnb.activation(name).with_constants(**{constant: 0.0})
    with pytest.raises(FormulaError, match=rf"{constant} must not be 0"):
        symnb.activation(name).compile(backend="numpy").set_constants(**{constant: 0.0})


def test_a_users_formula_of_a_library_name_is_not_held_to_its_domain() -> None:
    mine = symnb.Loss("delta*abs(y_pred - y_true)", name="huber", delta=1.0)
    assert mine.with_constants(delta=-1.0).constants == {"delta": -1.0}
