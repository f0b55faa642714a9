"""to_numba and to_jax at the edges of the float range, against independent values.

numba: division by zero raised ZeroDivisionError (njit's default error model) where
the kernels give inf/NaN; products printed left to right overflowed where the
kernels' order does not (serf' NaN at the float maximum). JAX: XLA on the CPU reads
subnormal x as 0, so comparisons with 0 took the kink branch; a reciprocal below the
normal range was flushed to 0 (squareplus' = 0.5 for 1 at x = 1e38 in float32).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symnb

MAX64 = float(np.finfo(np.float64).max)
MAX32 = float(np.finfo(np.float32).max)


@pytest.fixture(scope="module")
def numba_():
    return pytest.importorskip("numba")


@pytest.fixture(scope="module")
def jax_():
    return pytest.importorskip("jax")


def test_numba_division_by_zero_is_ieee(numba_):
    # inverse softplus log(expm1(x)): f(0) = log(0) = -inf, f'(0) = 1/(1 - e^0) -> inf
    fns = symnb.Activation("log(exp(x) - 1)").to_numba()
    assert fns.f(0.0) == -math.inf
    assert math.isinf(fns.df(0.0)) or math.isnan(fns.df(0.0))
    # 1/x at 0 inside a compiled loop: inf as IEEE says, not an exception
    recip = symnb.Activation("1/x").to_numba()
    assert recip.f(0.0) == math.inf
    assert recip.f(-0.0) == -math.inf


@pytest.mark.parametrize(
    "text, x, df",
    [
        # serf x*erf(softplus(x)): f' -> 1 (x -> inf), 0 (x -> -inf); the factor
        # 2/sqrt(pi)*x overflowed before exp(-softplus(x)**2) = 0 brought it down
        ("x*erf(log(1 + exp(x)))", MAX64, 1.0),
        ("x*erf(log(1 + exp(x)))", -MAX64, 0.0),
        # mish(2x) = 2x*tanh(softplus(2x)): f' -> 2 at +inf, 0 at -inf
        ("mish(2*x)", MAX64, 2.0),
        ("mish(2*x)", -MAX64, 0.0),
    ],
)
def test_numba_products_in_the_kernels_order(numba_, text, x, df):
    fns = symnb.Activation(text).to_numba()
    assert fns.df(x) == pytest.approx(df, abs=1e-15)


def test_numba_pau_derivative_far_out(numba_):
    """A rational P5/Q4 (Padé unit form): f' tends to c5/|c9| * sign; numba was NaN
    from |x| = 1e39 (Q**2 overflowed). Reference: float64 NumPy of the quotient
    rule with P and Q scaled by x**5 and x**4."""
    c = [0.05, 0.5, 1.2, 1.25, 0.5, 0.08, 2e-5, 2.5, 8e-7, 0.155]
    text = (
        "(c0 + c1*x + c2*x**2 + c3*x**3 + c4*x**4 + c5*x**5)"
        "/(1 + abs(c6*x + c7*x**2 + c8*x**3 + c9*x**4))"
    )
    fns = symnb.Activation(text, **{f"c{k}": v for k, v in enumerate(c)}).to_numba()
    for x in (1e39, -1e56, 1e100):
        # at such |x|: P ~ c5 x^5, Q ~ c9 x^4 (|.|), f' = (5 P' Q - P Q')/Q^2 ->
        # (5 c5 c9 - 4 c5 c9)/c9^2 = c5/c9 (sign of Q' matches x's)
        assert fns.df(x) == pytest.approx(c[5] / c[9], rel=1e-6), x


SUBNORMAL = {"float32": 1e-45, "float64": 5e-324}


def _jax_df(jax, text, xs, dtype):
    f = symnb.Activation(text).to_jax()
    with jax.enable_x64(dtype == "float64"):
        x = jax.numpy.asarray(np.array(xs, dtype))
        return np.asarray(f(x)), np.asarray(f.derivative(x))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "text, df_pos, df_neg",
    [
        ("max(x, 0)", 1.0, 0.0),  # relu
        ("tanh(x) if x > 0 else 0.25*tanh(x)", 1.0, 0.25),  # penalized tanh
        ("abs(x)", 1.0, -1.0),  # f' = sign(x)
        ("x*Heaviside(x)", 1.0, 0.0),
    ],
)
def test_jax_subnormal_x_takes_its_sides_branch(jax_, dtype, text, df_pos, df_neg):
    tiny = SUBNORMAL[dtype]
    _, df = _jax_df(jax_, text, [tiny, -tiny, 100 * tiny], dtype)
    # the one-sided limits of f' (the formula's own definition at x != 0)
    np.testing.assert_array_equal(df, [df_pos, df_neg, df_pos])


def test_jax_step_at_subnormal_x(jax_):
    for dtype, tiny in SUBNORMAL.items():
        y, _ = _jax_df(jax_, "Heaviside(x)", [tiny, -tiny, 0.0], dtype)
        np.testing.assert_array_equal(y, [1.0, 0.0, 0.0])


@pytest.mark.parametrize(
    "text, x, f, df",
    [
        # squareplus (x + sqrt(x^2 + 4))/2: f -> x, f' -> 1
        ("(x + sqrt(x**2 + 4))/2", 1e38, 1e38, 1.0),
        ("(x + sqrt(x**2 + 4))/2", MAX32, MAX32, 1.0),
        # PFLU x*(1 + x/sqrt(1 + x^2))/2: f -> x, f' -> 1
        ("x*0.5*(1 + x/sqrt(1 + x**2))", MAX32, MAX32, 1.0),
    ],
)
def test_jax_no_flushed_reciprocal_far_out(jax_, text, x, f, df):
    y, dy = _jax_df(jax_, text, [x], "float32")
    assert y[0] == pytest.approx(f, rel=1e-6)
    assert dy[0] == pytest.approx(df, rel=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_jax_removable_singularity_at_subnormal_x(jax_, dtype):
    """sinc's lowered f is 1 where x == 0, else sin(x)/x; XLA computes sin(x)/x at a
    subnormal x as 0/0, so x == 0 must stay XLA's own comparison there (1, the
    limit, within the rule of sin(x)/x = 1 - x**2/6)."""
    tiny = SUBNORMAL[dtype]
    y, _ = _jax_df(jax_, "sin(x)/x", [tiny, -tiny, 0.0], dtype)
    np.testing.assert_array_equal(y, [1.0, 1.0, 1.0])
