"""Fourteenth boundary probe of the interop faces: to_numba's constants by keyword,
and to_jax's regimes where XLA flushes subnormals to 0.

to_numba: the functions' constant parameters were c0, c1, ..., so ``f(x, beta=2.0)``
failed with numba's bare "some keyword arguments unexpected" (from Python and inside
njit code); they are named as the constants now, and a misspelt keyword is named.
to_jax: log(sigmoid(x))/log(sigmoid(-x))'s f' in float32 was NaN on -103.97 < x <
-87.3: the engine's regime for an underflowed logsigmoid(-x) starts where IEEE
float32 underflows, but XLA on the CPU reads the subnormal logsigmoid(-x) as 0
earlier, and the general branch gave 0/0. References: mpmath, and the closed forms.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symnb


@pytest.fixture(scope="module")
def numba_():
    return pytest.importorskip("numba")


def _swish(**constants):
    return symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.3, **constants)


def _swish_ref(x, beta):
    return x / (1.0 + math.exp(-beta * x))


def _swish_dbeta_ref(x, beta):
    s = 1.0 / (1.0 + math.exp(-beta * x))
    return x * x * s * (1.0 - s)


def test_numba_constants_by_keyword_from_python(numba_):
    fns = _swish().to_numba()
    assert fns.f(1.5, beta=2.0) == pytest.approx(_swish_ref(1.5, 2.0), rel=1e-13)
    assert fns.f(x=1.5, beta=2.0) == pytest.approx(_swish_ref(1.5, 2.0), rel=1e-13)
    got = fns.dconstants[0](0.7, beta=-0.4)
    assert got == pytest.approx(_swish_dbeta_ref(0.7, -0.4), rel=1e-12)
    # f' by central differences of the closed form
    h = 1e-6
    fd = (_swish_ref(0.3 + h, 0.9) - _swish_ref(0.3 - h, 0.9)) / (2 * h)
    assert fns.df(0.3, beta=0.9) == pytest.approx(fd, rel=1e-8)


def test_numba_constants_by_keyword_inside_njit(numba_):
    f = _swish().to_numba().f

    @numba_.njit
    def run(x):
        return f(x, beta=2.0)

    assert run(-0.8) == pytest.approx(_swish_ref(-0.8, 2.0), rel=1e-13)


def test_numba_misspelt_keyword_names_the_arguments(numba_):
    fns = _swish().to_numba()
    with pytest.raises(TypeError, match=r"unknown keyword argument 'bta'.*x, beta"):
        fns.f(1.5, bta=2.0)


@pytest.mark.parametrize("name", ["self", "float", "math", "range"])
def test_numba_constants_named_as_builtins_or_self(numba_, name):
    # float/math/range would shadow what the generated code uses (their parameter is
    # c0); self clashed with the keyword hook's own first parameter
    fns = symnb.Activation(f"x*sigmoid({name}*x)", **{name: 2.0}).to_numba()
    assert fns.f(1.5) == pytest.approx(_swish_ref(1.5, 2.0), rel=1e-13)
    got = fns.f(1.5, **{name: -3.0})
    assert got == pytest.approx(_swish_ref(1.5, -3.0), rel=1e-13)


def _logsigmoid_ratio_derivative(v: float):
    """d/dx log(sigmoid(x))/log(sigmoid(-x)) with mpmath (200 bits)."""
    mp = pytest.importorskip("mpmath")
    with mp.workprec(200):
        x = mp.mpf(v)

        def ls(u):
            return -mp.log1p(mp.exp(-u))

        def sg(u):
            return 1 / (1 + mp.exp(-u))

        return float(sg(-x) / ls(-x) + ls(x) * sg(x) / ls(-x) ** 2)


def test_jax_float32_derivative_where_xla_flushes_subnormals():
    pytest.importorskip("jax")
    act = symnb.Activation("log(sigmoid(x))/log(sigmoid(-x))")
    fn = act.to_jax()
    x = np.concatenate(
        [
            -np.logspace(-45, 38.5, 600),
            np.logspace(-45, 38.5, 600),
            np.linspace(-110.0, 110.0, 1101),
        ]
    ).astype(np.float32)
    with np.errstate(over="ignore"):
        want = np.array([_logsigmoid_ratio_derivative(float(v)) for v in x])
        want32 = want.astype(np.float32)
    got = np.asarray(fn.derivative(x))
    assert not np.isnan(got).any(), x[np.isnan(got)]
    inf = np.isinf(want32)
    np.testing.assert_array_equal(got[inf], want32[inf])
    # above 1e-35 in magnitude; below it, XLA's flushed subnormal terms cost up to
    # 1.3% near x = 80 (a limit of XLA on the CPU, not of the form)
    big = ~inf & (np.abs(want32) > 1e-35)
    np.testing.assert_allclose(got[big], want32[big], rtol=2e-5)
    # jax.grad goes through the same f'
    jax = pytest.importorskip("jax")
    band = np.float32([-103.0, -95.0, -88.0])
    grads = np.asarray(jax.vmap(jax.grad(fn))(band))
    np.testing.assert_array_equal(grads, np.float32(-np.inf))
    # outside the domain f' stays NaN (float64 NumPy: x**x*(log(x) + 1) at x < 0),
    # not the value of x**x's x < -3.4e38 regime
    neg = np.array([-3.0, -2.5, -40.0])
    with np.errstate(invalid="ignore"):
        want_neg = neg**neg * (np.log(neg) + 1)
    got_neg = np.asarray(symnb.Activation("x**x").to_jax().derivative(neg))
    np.testing.assert_array_equal(np.isnan(got_neg), np.isnan(want_neg))


def test_mlp_torch_module_names_a_wrong_device():
    # before: PyTorch's "Tensor on device cpu is not on the expected device meta!"
    # from inside the first nn.Linear, naming neither x nor the fix
    torch = pytest.importorskip("torch")
    model = symnb.nn.MLP([3, 4, 2], activation="tanh", seed=1)
    net = model.to_torch()
    with pytest.raises(ValueError, match=r"weights on cpu but x is on meta.*x\.to"):
        net(torch.ones(5, 3, device="meta"))
    # the same batch on the weights' device matches the model (float32 reference:
    # the model's own forward, a NumPy computation independent of PyTorch)
    X = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    got = net(torch.from_numpy(X)).detach().numpy()
    np.testing.assert_allclose(got, np.asarray(model(X)), rtol=1e-5, atol=1e-6)


def test_numba_constants_are_a_copy(numba_):
    # before: fns.constants was the dict bind() read, so a write there reached
    # bind()'s compiled functions unchecked (NaN, or 5.0 while fns.f kept 1.3)
    fns = _swish().to_numba()
    fns.constants["beta"] = float("nan")
    assert fns.constants == {"beta": 1.3}
    bound = fns.bind()
    assert bound.f(0.8) == pytest.approx(_swish_ref(0.8, 1.3), rel=1e-13)
    assert fns.bind(beta=2.0).f(0.8) == pytest.approx(_swish_ref(0.8, 2.0), rel=1e-13)


def test_jax_constants_are_a_copy():
    # before: f.constants was a dict of the function's own, which took a new value
    # and showed it while f kept computing with the activation's
    pytest.importorskip("jax")
    fn = _swish().to_jax()
    fn.constants["beta"] = 5.0
    assert fn.constants == {"beta": 1.3}
    assert fn.derivative.constants == {"beta": 1.3}
    assert float(fn(0.8)) == pytest.approx(_swish_ref(0.8, 1.3), rel=1e-6)
