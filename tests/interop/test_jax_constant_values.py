"""to_jax constants that the kernels refuse: NaN, infinities, values that float32
rounds to zero and booleans gave NaN, inf*0 = NaN or a silently different function
(beta=1e-50 was 0, beta=True 1.0) where every kernel, to_torch and to_numba's bind
raise a ``FormulaError`` naming the constant. Arrays of constants are checked entry by
entry; traced constants (under jit/grad) are not known and not checked."""

from __future__ import annotations

import numpy as np
import pytest

import symnb

jax = pytest.importorskip("jax")
jnp = jax.numpy

ACT = symnb.Activation("x*sigmoid(beta*x)", name="sw_values", beta=1.5)
X = jnp.asarray([-2.0, 0.0, 0.5, 3.0], dtype=jnp.float32)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_a_constant_that_is_not_finite_is_refused(value):
    f = ACT.to_jax()
    with pytest.raises(symnb.FormulaError, match="constant 'beta' must be finite"):
        f(X, beta=value)
    with pytest.raises(symnb.FormulaError, match="constant 'beta' must be finite"):
        f(X[:, None], beta=jnp.asarray([1.0, value]))
    with pytest.raises(symnb.FormulaError, match="constant 'beta' must be finite"):
        f.derivative(X, beta=value)
    # as the kernels refuse it
    kernel = ACT.compile(backend="numpy", dtype="float32")
    with pytest.raises(symnb.FormulaError, match="must be finite"):
        kernel.set_constants(beta=value)


def test_a_constant_that_float32_rounds_to_zero_is_refused():
    f = ACT.to_jax()
    with pytest.raises(symnb.FormulaError, match="constant 'beta'.*float32"):
        f(X, beta=1e-50)
    kernel = ACT.compile(backend="numpy", dtype="float32")
    with pytest.raises(symnb.FormulaError, match="does not fit"):
        kernel.set_constants(beta=1e-50)


@pytest.mark.parametrize("value", [True, np.bool_(False), np.array([True, False])])
def test_a_boolean_constant_is_refused(value):
    f = ACT.to_jax()
    with pytest.raises(symnb.FormulaError, match="constant 'beta' must be a number"):
        f(X[:, None], beta=value)
    kernel = ACT.compile(backend="numpy", dtype="float32")
    with pytest.raises(symnb.FormulaError, match="must be a number"):
        kernel.set_constants(beta=True)


def test_finite_constants_still_give_the_reference():
    f = ACT.to_jax()
    beta = np.array([0.0, 1e-30, 2.0], dtype=np.float32)
    got = np.asarray(f(X[:, None], beta=beta), dtype=np.float64)
    x64 = np.asarray(X, dtype=np.float64)[:, None]
    want = x64 / (1 + np.exp(-beta.astype(np.float64) * x64))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    # traced constants pass through unchecked (their values are unknown)
    grad = jax.jit(jax.grad(lambda b: f(jnp.float32(0.5), beta=b)))(2.0)
    assert float(grad) == pytest.approx(0.25 / (np.exp(1) + 2 + np.exp(-1)), rel=1e-6)


def test_decimal_and_fraction_constants_are_numbers_here_too():
    """beta=Decimal('1.5') was refused ("dtype object is not a valid JAX array
    type") where Activation, set_constants and to_numba's bind take it as 1.5; a
    nonzero one that a float makes 0 is refused as they refuse it."""
    from decimal import Decimal
    from fractions import Fraction

    from symnb.errors import FormulaError

    f = ACT.to_jax()
    want = np.asarray(f(X, beta=1.5))
    for value in (Decimal("1.5"), Fraction(3, 2)):
        np.testing.assert_array_equal(np.asarray(f(X, beta=value)), want)
    with pytest.raises(FormulaError, match=r"constant 'beta' = .* too small"):
        f(X, beta=Decimal("1e-400"))
