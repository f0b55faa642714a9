"""Thirteenth boundary probe of the interop faces: infinite inputs and the gamma
family's poles, against PyTorch, SciPy and NumPy.

to_numba: every function returned ``body + 0.0 * x``, which is NaN at x = +-inf
(0 * inf), so tanh(inf), sigmoid(inf), relu'(inf), even f(x) = x were NaN there;
numba's math.floor/ceil return int64, so floor(1e300) was -9.2e18. to_jax:
jax.lax.digamma is NaN at +-0 and polygamma(1, .) NaN at +inf, where SciPy, PyTorch
and the kernels give digamma(+-0) = -+inf and trigamma(+inf) = 0 (lgamma' and gamma'
at 0 go through digamma).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symnb

INF = math.inf


@pytest.fixture(scope="module")
def numba_():
    return pytest.importorskip("numba")


@pytest.fixture(scope="module")
def torch_():
    return pytest.importorskip("torch")


@pytest.fixture
def jax64():
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        yield jax


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "softplus", "relu", "silu"])
def test_numba_at_infinity_gives_the_limits(numba_, torch_, name):
    torch = torch_
    xs = [-INF, INF]
    # PyTorch's values at -inf, +inf where its form has them (its silu(-inf) is
    # -inf * 0 = NaN; the limit is 0); f' has the limits 0 for the saturating
    # functions and 0, 1 for the others
    t = torch.tensor(xs, dtype=torch.float64)
    functional = torch.nn.functional
    ref = getattr(functional, name, None) or getattr(torch, name)
    f_ref = [0.0, INF] if name == "silu" else ref(t).tolist()
    df_ref = [0.0, 0.0] if name in ("tanh", "sigmoid") else [0.0, 1.0]
    fns = symnb.activation(name).to_numba()
    assert [fns.f(v) for v in xs] == f_ref
    assert [fns.df(v) for v in xs] == df_ref


def test_numba_identity_keeps_infinity(numba_):
    fns = symnb.Activation("x").to_numba()
    assert fns.f(INF) == INF and fns.f(-INF) == -INF
    assert fns.df(INF) == 1.0
    assert math.isnan(fns.f(math.nan))


@pytest.mark.parametrize("text, ref", [("floor(x)", np.floor), ("ceil(x)", np.ceil)])
def test_numba_floor_and_ceil_of_large_values(numba_, text, ref):
    with pytest.warns(UserWarning, match="derivative 0"):
        fns = symnb.Activation(text).to_numba()
    xs = [1e300, -1e300, 2.0**63 + 2.0**12, -(2.0**70), INF, -INF, 2.5, -2.5, -0.0]
    got = [fns.f(x) for x in xs]
    want = ref(np.array(xs)).tolist()
    assert got == want
    assert math.copysign(1.0, got[-1]) == -1.0  # floor(-0.0) is -0.0
    assert math.isnan(fns.f(math.nan))


def test_jax_digamma_at_zero_matches_scipy_and_pytorch(jax64, torch_):
    special = pytest.importorskip("scipy.special")
    jnp = jax64.numpy
    xs = np.array([-0.0, 0.0, 0.5, -0.5, 3.0])
    ref = special.digamma(xs)
    assert ref[0] == INF and ref[1] == -INF
    np.testing.assert_allclose(torch_.digamma(torch_.tensor(xs)).numpy(), ref)
    got = np.asarray(symnb.Activation("digamma(x)").to_jax()(jnp.asarray(xs)))
    np.testing.assert_allclose(got, ref, rtol=1e-13)


def test_jax_trigamma_at_infinity_is_zero(jax64):
    special = pytest.importorskip("scipy.special")
    jnp = jax64.numpy
    fj = symnb.Activation("digamma(x)").to_jax()
    xs = jnp.asarray([INF, 50.0, 2.0])
    got = np.asarray(fj.derivative(xs))
    # trigamma(x) ~ 1/x for large x; SciPy's polygamma(1, inf) is 0
    np.testing.assert_allclose(got, special.polygamma(1, np.asarray(xs)), rtol=1e-13)
    assert got[0] == 0.0
    assert math.isnan(float(fj.derivative(jnp.asarray(-INF))))  # CONTRACTS: NaN


@pytest.mark.parametrize("text", ["lgamma(x)", "gamma(x)"])
def test_jax_gamma_family_slope_at_zero(jax64, text):
    # lgamma' = digamma: -inf at +0, +inf at -0; gamma' = gamma * digamma: -inf on
    # both sides (gamma(+-0) = +-inf); the finite differences agree in sign
    jnp = jax64.numpy
    fj = symnb.Activation(text).to_jax()
    h = 1e-8
    for zero, side in ((0.0, 1.0), (-0.0, -1.0)):
        got = float(fj.derivative(jnp.asarray(zero)))
        assert math.isinf(got)
        f_near = float(fj(jnp.asarray(side * h)))
        f_nearer = float(fj(jnp.asarray(side * h / 2)))
        slope = (f_nearer - f_near) / (side * h / 2 - side * h)
        assert math.copysign(1.0, got) == math.copysign(1.0, slope)
        grad = float(jax64.grad(fj)(jnp.asarray(zero)))
        assert grad == got


@pytest.mark.parametrize(
    "text, x, want",
    [
        ("x*x", 2**40, 2.0**80),  # int64 wrapped: 0.0
        ("-x", np.uint8(3), -3.0),  # uint8 wrapped: 253.0
        ("-x", np.uint64(3), -3.0),
        ("-x", 2**63, -(2.0**63)),  # typed uint64 by numba: +9.2e18
        ("x**3 + 1", 3_000_000, 2.7e19),
        ("relu(x)", True, 1.0),
    ],
)
def test_numba_integer_arguments_compute_as_floats(numba_, text, x, want):
    # the reference: the same formula on float(x) in Python's float64
    fns = symnb.Activation(text).to_numba()
    assert fns.f(x) == want
    assert fns.f(x) == fns.f(float(x))


def test_numba_integer_arguments_inside_njit_and_for_constants(numba_):
    numba = numba_
    square = symnb.Activation("x*x").to_numba().f
    swish = symnb.Activation("x*sigmoid(beta*x)", beta=1.0).to_numba()

    @numba.njit
    def total(n):
        s = 0.0
        for i in range(n):
            s += square(i * 2**40)
        return s

    assert total(3) == sum(float(i * 2**40) ** 2 for i in range(3))
    # a constant given as an integer: beta*x with beta = 2**62 and x = 4 wrapped
    assert swish.f(4.0, 2**62) == 4.0
    assert swish.df(-3, 2) == swish.df(-3.0, 2.0)


def test_numba_float16_argument_is_named(numba_):
    fns = symnb.Activation("x*x").to_numba()
    with pytest.raises(TypeError, match=r"float16 .*float\(x\)"):
        fns.f(np.float16(2.0))
    assert fns.f(np.float32(3.0)) == 9.0


@pytest.mark.parametrize(
    "x",
    [np.array([2**40, 3]), np.int64(2**40), [2**40, 3], 2**40, np.array([2**63], "u8")],
)
def test_jax_integer_inputs_are_not_cut_to_32_bits(x):
    # JAX's default 32-bit mode cut int64 to int32 (2**40 -> 0) or refused 2**40
    jax = pytest.importorskip("jax")
    fj = symnb.Activation("x*x").to_jax()
    want = np.float32(np.asarray(x, dtype=np.float64) ** 2)  # 2**40 squared: 1.2e24
    slope = np.float32(2 * np.asarray(x, dtype=np.float64))
    with jax.enable_x64(False):
        assert np.asarray(fj(x)).tolist() == np.asarray(want).tolist()
        assert np.asarray(fj.derivative(x)).tolist() == np.asarray(slope).tolist()


def test_jax_integer_beyond_the_float_range_is_named():
    pytest.importorskip("jax")
    fj = symnb.Activation("x*x").to_jax()
    with pytest.raises(ValueError, match="x is an integer of 1101 bits"):
        fj(2**1100)
