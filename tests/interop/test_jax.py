"""Activation.to_jax: jit, grad and vmap against symnb's derivative (float64 kernels),
constant gradients, kink conventions, NaN propagation and errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import symnb

jax = pytest.importorskip("jax")
jnp = jax.numpy

X = np.concatenate([np.linspace(-6, 6, 49), [0.0, -40.0, 40.0, 1e-4]]).astype(
    np.float32
)


def reference(act, x=X):
    k = act.compile(backend="numpy", dtype="float64")
    return k.forward_with_derivative(np.asarray(x, dtype=np.float64)), k


@pytest.mark.parametrize("name", ["swish", "mish", "gelu", "hardswish"])
def test_jit_grad_vmap_match_the_derivative(name):
    act = symnb.activation(name)
    f = act.to_jax()
    (y_ref, dy_ref), _ = reference(act)
    y = jax.jit(f)(X)
    dy = jax.vmap(jax.grad(f))(X)
    np.testing.assert_allclose(y, y_ref, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(dy, dy_ref, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(jax.jit(f.derivative)(X), dy_ref, rtol=2e-6, atol=1e-6)


def test_kinks_and_surrogates_match_the_kernels():
    relu = symnb.activation("relu").to_jax()
    leaky = symnb.activation("leaky_relu", alpha=0.2).to_jax()
    assert float(jax.grad(relu)(0.0)) == 0.0
    assert float(jax.grad(leaky)(0.0)) == pytest.approx(0.2)
    step = symnb.activation("step")
    (_, dy_ref), _ = reference(step)
    np.testing.assert_allclose(
        jax.vmap(jax.grad(step.to_jax()))(X), dy_ref, rtol=1e-6, atol=1e-7
    )
    assert np.abs(dy_ref).max() > 0  # the surrogate, not 0


def test_constants_are_arguments_with_gradients():
    act = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.5)
    f = act.to_jax()
    assert f.constant_names == ("beta",) and f.constants == {"beta": 1.5}
    x = jnp.asarray(X)
    np.testing.assert_allclose(
        jax.jit(f)(x, beta=2.0), X * (1 / (1 + np.exp(-2.0 * X))), rtol=1e-5, atol=1e-6
    )
    g = jax.grad(lambda b: jnp.sum(f(x, beta=b) ** 2))(1.5)
    (y, _), k = reference(act)
    expected = k.constant_gradient(X.astype(np.float64), 2 * y)["beta"]
    assert float(g) == pytest.approx(expected, rel=1e-4)
    per_row = jax.vmap(lambda b: f(x, beta=b))(jnp.array([0.5, 1.0]))
    assert per_row.shape == (2, X.size)


def test_nan_in_nan_out():
    f = symnb.activation("relu").to_jax()
    assert np.isnan(f(jnp.nan)) and np.isnan(jax.grad(f)(jnp.nan))


def test_unknown_constant():
    f = symnb.activation("elu").to_jax()
    with pytest.raises(symnb.FormulaError, match="gamma"):
        f(1.0, gamma=2.0)


def test_missing_jax_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(ImportError, match=r"pip install symnb\[jax\]"):
        symnb.activation("relu").to_jax()


def test_learned_rational_gradient_is_finite_at_large_x():
    """to_jax of a PAU 5/4 with constants moved from the analysed ones: jax.grad at
    |x| up to 1e7 against float64 (P*R/Q**2 overflowed to inf/inf = NaN in float32)."""
    from tests.reference import PAU_CONSTANTS, PAU_TEXT, pau_derivative

    f = symnb.Activation(PAU_TEXT, name="pau_jax", **PAU_CONSTANTS).to_jax()
    moved = {k: float(np.float32(v * 1.01)) for k, v in PAU_CONSTANTS.items()}
    x = np.float32([1.0, -3.0, 1e3, 1e5, -1e6, 1e7])
    got = jax.vmap(jax.grad(lambda t: f(t, **moved)))(jax.numpy.asarray(x))
    np.testing.assert_allclose(np.asarray(got), pau_derivative(x, moved), rtol=2e-5)


@pytest.mark.parametrize("x", [1 + 1j, jnp.array([1 + 1j, 2.0]), np.array([0.5j])])
def test_complex_input_is_refused_not_made_real(x):
    """jnp.asarray took complex x and the lowering dropped its imaginary part:
    silu(1+1j) returned 0.731 (= silu(1))."""
    f = symnb.activation("silu").to_jax()
    with pytest.raises(TypeError, match=r"x has dtype complex.*\.real"):
        f(x)


@pytest.mark.parametrize("value", ["a", 1j, None])
def test_bad_constant_names_the_constant(value):
    f = symnb.Activation("x*sigmoid(beta*x)", name="sw_j", beta=1.0).to_jax()
    with pytest.raises(TypeError, match="constant 'beta'.*real number"):
        f(1.0, beta=value)
    assert float(f(1.0, beta=2)) == pytest.approx(1 / (1 + np.exp(-2.0)), rel=1e-6)


def test_large_x_uses_the_kernels_rewritten_form():
    """to_jax lowered the plain form: in float32 ISRU x/sqrt(1 + a*x**2) was 0 at
    |x| = 1e20 (x**2 overflowed) and a PAU's f and f' NaN (inf/inf), where the
    kernels give 1/sqrt(a) and the asymptote; now the forms the kernels compile."""
    isru = symnb.Activation("x/sqrt(1 + a*x**2)", name="isru_j", a=0.5)
    text = "(a0 + a1*x + a2*x**2 + a3*x**3)/(1 + abs(b1*x + b2*x**2))"
    names = ["a0", "a1", "a2", "a3", "b1", "b2"]
    values = dict(zip(names, [0.02, 0.5, 0.3, 0.03, 0.1, 0.05]))
    pau = symnb.Activation(text, name="pau_j", **values)
    x = np.float32([-1e30, -1e20, 1e20, 1e30, -2.0, 0.5])
    for act in (isru, pau):
        f = act.to_jax()
        kernel = act.compile(backend="cpp", dtype="float32")
        y_k, dy_k = kernel.forward_with_derivative(x)
        y = np.asarray(jax.jit(f)(jnp.asarray(x)))
        dy = np.asarray(jax.vmap(jax.grad(f))(jnp.asarray(x)))
        assert np.isfinite(y).all() and np.isfinite(dy).all(), act.name
        np.testing.assert_allclose(y, y_k, rtol=1e-6, atol=1e-12)
        np.testing.assert_allclose(dy, dy_k, rtol=1e-6, atol=1e-12)
    x64 = x.astype(np.float64)
    y = np.asarray(isru.to_jax()(jnp.asarray(x)))
    np.testing.assert_allclose(y, x64 / np.sqrt(1 + 0.5 * x64**2), rtol=4e-6)


@pytest.mark.parametrize("dtype", [jnp.float16, jnp.bfloat16])
def test_half_precision_computed_in_float32(dtype):
    """bfloat16 x was refused as "not real numbers" (its NumPy kind is "V"), and
    float16 was computed in float16: gelu_tanh' was NaN at |x| = 100 (x**3
    overflowed) and the constants were rounded to float16."""
    x = np.float32([-1e4, -100.0, -3.0, 0.5, 3.0, 100.0, 1e4])
    f = symnb.activation("gelu_tanh").to_jax()
    y = f(jnp.asarray(x, dtype))
    dy = jax.vmap(jax.grad(f))(jnp.asarray(x, dtype))
    assert y.dtype == dtype and dy.dtype == dtype
    y32 = np.asarray(f(jnp.asarray(x)))
    dy32 = np.asarray(jax.vmap(jax.grad(f))(jnp.asarray(x)))
    for got, ref in ((y, y32), (dy, dy32)):
        expect = np.asarray(jnp.asarray(ref).astype(dtype)).astype(np.float64)
        np.testing.assert_array_equal(np.asarray(got).astype(np.float64), expect)
    sw = symnb.Activation("x*sigmoid(beta*x)", name="sw_half", beta=1.3).to_jax()
    got = float(sw(jnp.asarray(2.0, dtype)))
    ref = float(jnp.asarray(2.0 / (1 + np.exp(-2.6)), dtype))
    assert got == ref


def test_constant_that_does_not_fit_float32_is_refused():
    """beta=1e300 with float32 x became inf without a word (the kernels refuse it)."""
    f = symnb.Activation("x*sigmoid(beta*x)", name="sw_big", beta=1.0).to_jax()
    with pytest.raises(symnb.FormulaError, match="constant 'beta'.*float32"):
        f(jnp.float32(0.5), beta=1e300)
    # traced constants are not checked (their values are not known)
    g = jax.jit(jax.grad(lambda b: f(0.5, beta=b)))(2.0)
    assert float(g) == pytest.approx(0.25 / (np.exp(1) + 2 + np.exp(-1)), rel=1e-6)


@pytest.mark.parametrize("text", ["heaviside(x, 1)", "Heaviside(x, 0.5)", "heaviside(x - 1, 1)"])
def test_heaviside_keeps_its_value_at_zero(text):
    """to_jax printed where(u > 0, 1, 0): heaviside(x, 1) was 0 at x = 0."""
    act = symnb.Activation(text)
    f = act.to_jax()
    x = np.array([-1.0, 0.0, 1.0, 2.0], dtype=np.float32)
    want = act.compile(backend="cpp", dtype="float32").forward(x)
    np.testing.assert_array_equal(np.asarray(jax.jit(f)(x)), want)
