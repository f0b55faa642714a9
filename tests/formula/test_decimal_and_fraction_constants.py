"""A constant given as decimal.Decimal("1.5") was refused as "must be a finite real
number, got Decimal('1.5')" (Decimal is no numbers.Real), and kernel.set_constants
refused fractions.Fraction(1, 3) as "must be a number" although Activation took it.
Every constant entry point (Activation, learnable, Kernel/LayerKernel.set_constants,
ActivationEditor) now takes both, as the float they equal; a Decimal that is NaN,
sNaN or infinite is refused as any non-finite value."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError


@pytest.mark.parametrize("value", [Decimal("1.5"), Fraction(3, 2)])
def test_activation_and_kernel_take_decimal_and_fraction(value) -> None:
    act = symnb.Activation("x*sigmoid(beta*x)", beta=value)
    assert act.constants == {"beta": 1.5}
    k = act.compile(backend="numpy")
    x = np.array([-1.0, 0.5, 2.0])
    want = x / (1 + np.exp(-1.5 * x))
    np.testing.assert_allclose(k.forward(x.astype(np.float32)), want, rtol=1e-6)
    k.set_constants(beta=1.0)
    k.set_constants(beta=value)
    assert k.constants == {"beta": 1.5}
    layer = symnb.compile_layer([act, "relu"], backend="numpy")
    layer.set_constants(0, beta=value)
    assert symnb.learnable(value).value == 1.5


@pytest.mark.parametrize(
    "value", [Decimal("NaN"), Decimal("sNaN"), Decimal("-Infinity"), Decimal("1e400")]
)
def test_non_finite_decimals_are_refused_by_name(value) -> None:
    k = symnb.Activation("x*beta", beta=1.0).compile(backend="numpy")
    for call in (
        lambda: symnb.Activation("x*beta", beta=value),
        lambda: k.set_constants(beta=value),
        lambda: symnb.learnable(value),
    ):
        with pytest.raises(FormulaError, match="finite"):
            call()


def test_editor_takes_a_decimal_constant() -> None:
    pytest.importorskip("ipywidgets")
    from symnb.widgets import ActivationEditor

    editor = ActivationEditor(
        "x*sigmoid(beta*x)", constants={"beta": Decimal(2)}, backend="numpy"
    )
    assert editor.activation.constants == {"beta": 2.0}


TINY = [Decimal("1e-400"), Fraction(1, 10**400)]


@pytest.mark.parametrize("value", TINY, ids=["decimal", "fraction"])
def test_a_nonzero_constant_that_a_float_makes_zero_is_refused(value) -> None:
    """Decimal('1e-400') and Fraction(1, 10**400) became the constant 0.0 without a
    word, where the literal 1e-400 in a formula, --const a=1e-400 and the magic's
    a=1e-400 are refused."""
    words = r"= .* is too small for a float \(it would be 0\)"
    with pytest.raises(FormulaError, match=rf"^constant 'beta' {words}"):
        symnb.Activation("x*sigmoid(beta*x)", beta=value)
    act = symnb.Activation("x*sigmoid(beta*x)", beta=1.0)
    with pytest.raises(FormulaError, match=rf"^constant 'beta' {words}"):
        act.with_constants(beta=value)
    with pytest.raises(FormulaError, match=rf"^learnable's initial value {words}"):
        symnb.learnable(value)
    kernel = act.compile(backend="numpy", dtype="float64")
    with pytest.raises(FormulaError, match=rf"^constant 'beta' {words}"):
        kernel.set_constants(beta=value)
    assert kernel.constants == {"beta": 1.0}
    from symnb.widgets import ActivationEditor

    with pytest.raises(ValueError, match="does not fit the kernels' float32"):
        ActivationEditor(constants={"beta": value})


def test_zero_given_exactly_is_still_zero() -> None:
    for zero in (Decimal(0), Fraction(0), Decimal("-0")):
        assert symnb.Activation("x*b", b=zero).constants == {"b": 0.0}
