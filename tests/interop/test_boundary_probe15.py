"""Fifteenth boundary probe of the interop faces: second and higher derivatives
through ``to_jax``.

``jax.hessian(f)``, ``jax.grad(jax.grad(f))`` and ``jax.grad(f.derivative)``
differentiated the jax.numpy lowering of f' operation by operation, a form stable
for its value only: tanh'' was NaN at |x| = 800 (float64) and 100 (float32), elu''
and selu'' NaN at x = 800 (reverse over reverse through the untaken exp branch),
(sqrt(x*x + 1) - 1)'' NaN at 0, softsign''(0) -2 (the other faces: 0), and
swish'' 2.7% off at x = 30 (jax.nn.sigmoid's derivative s*(1 - s) cancels). Each
first derivative now differentiates as a formula of its own
(``symnb.interop.jax_second``). References: mpmath at 60 digits.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb

jax = pytest.importorskip("jax")
jnp = jax.numpy
mp = pytest.importorskip("mpmath")


def _mp_derivative(fn, x: float, n: int, *args: float) -> float:
    with mp.workdps(60):
        return float(mp.diff(lambda t: fn(t, *args), mp.mpf(x), n))


def _tanh(t):
    return mp.tanh(t)


def _swish(t, beta):
    return t / (1 + mp.exp(-mp.mpf(beta) * t))


def _sqrt_plus(t):
    return mp.sqrt(t * t + 1) - 1


@pytest.fixture
def x64():
    with jax.enable_x64(True):
        yield


def _hessians(f, xs):
    """jax.hessian, grad of grad and grad of f.derivative, entry by entry (jit:
    one compilation each)."""
    xs = jnp.asarray(xs)
    ways = (jax.hessian(f), jax.grad(jax.grad(f)), jax.grad(f.derivative))
    return [np.asarray(jax.jit(jax.vmap(w))(xs)) for w in ways]


def test_tanh_second_derivative_far_out(x64):
    f = symnb.Activation("tanh(x)").to_jax()
    xs = np.array([-800.0, -30.0, -1.5, 0.0, 0.4, 30.0, 800.0])
    want = np.array([_mp_derivative(_tanh, v, 2) for v in xs])
    for got in _hessians(f, xs):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    with jax.enable_x64(False):
        x32 = np.float32([-100.0, -3.0, 0.5, 100.0])
        got = np.asarray(jax.vmap(jax.hessian(f))(jnp.asarray(x32)))
        want32 = np.float32([_mp_derivative(_tanh, float(v), 2) for v in x32])
        np.testing.assert_allclose(got, want32, rtol=1e-5, atol=1e-37)


@pytest.mark.parametrize("name", ["elu", "selu"])
def test_exponential_branch_not_taken_stays_finite(x64, name):
    # for x > 0 elu and selu are linear: f'' = 0; for x < 0, scale*alpha*exp(x)
    f = symnb.activation(name).to_jax()
    scale, alpha = (
        (1.0, 1.0) if name == "elu" else (1.0507009873554805, 1.6732632423543772)
    )
    xs = np.array([-800.0, -2.0, 3.0, 800.0])
    want = np.where(xs > 0, 0.0, scale * alpha * np.exp(np.minimum(xs, 0.0)))
    for got in _hessians(f, xs):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


def test_swish_second_derivative_keeps_its_relative_accuracy(x64):
    f = symnb.Activation("x*sigmoid(beta*x)", beta=1.3).to_jax()
    xs = np.array([-40.0, -30.0, -1.0, 0.3, 30.0, 40.0])
    want = np.array([_mp_derivative(_swish, v, 2, 1.3) for v in xs])
    for got in _hessians(f, xs):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    # swish'' is even: the same at -30 and 30
    h = np.asarray(jax.vmap(jax.hessian(f))(jnp.asarray([-30.0, 30.0])))
    assert h[0] == pytest.approx(h[1], rel=1e-13)


def test_mixed_and_third_derivatives_of_swish(x64):
    f = symnb.Activation("x*sigmoid(beta*x)", beta=1.3).to_jax()
    with mp.workdps(60):
        mixed = float(mp.diff(_swish, (mp.mpf(0.7), mp.mpf(1.3)), (1, 1)))
        second_beta = float(mp.diff(lambda b: _swish(mp.mpf(0.7), b), mp.mpf(1.3), 2))
    got = jax.grad(lambda b: jax.grad(lambda x: f(x, beta=b))(0.7))(1.3)
    assert float(got) == pytest.approx(mixed, rel=1e-12)
    got = jax.hessian(lambda b: f(0.7, beta=b))(1.3)
    assert float(got) == pytest.approx(second_beta, rel=1e-12)
    third = float(jax.grad(jax.grad(jax.grad(f)))(40.0))
    assert third == pytest.approx(_mp_derivative(_swish, 40.0, 3, 1.3), rel=1e-10)


def test_removable_singularity_and_kink_second_derivatives(x64):
    f = symnb.Activation("sqrt(x*x + 1) - 1").to_jax()
    xs = np.array([-800.0, -1e-3, 0.0, 2.0])
    want = np.array([_mp_derivative(_sqrt_plus, v, 2) for v in xs])
    for got in _hessians(f, xs):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    # softsign'' at its kink: 0 as the PyTorch face and PyTorch's softsign give
    torch = pytest.importorskip("torch")
    xs = [-1.0, 0.0, 1.0]
    t = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(
        torch.nn.functional.softsign(t).sum(), t, create_graph=True
    )
    (gg,) = torch.autograd.grad(g.sum(), t)
    got = jax.vmap(jax.hessian(symnb.activation("softsign").to_jax()))(jnp.asarray(xs))
    np.testing.assert_allclose(np.asarray(got), gg.numpy(), rtol=1e-15)


def test_first_derivatives_are_unchanged(x64):
    # the value of f' is the lowering's, as before: f.derivative and jax.grad agree
    f = symnb.Activation("x*sigmoid(beta*x)", beta=1.3).to_jax()
    xs = jnp.asarray([-800.0, -3.0, 0.0, 2.0, 800.0])
    np.testing.assert_array_equal(
        np.asarray(jax.vmap(jax.grad(f))(xs)), np.asarray(f.derivative(xs))
    )


# ---------------------------------------------------------------- to_numba calls


@pytest.fixture(scope="module")
def swish_numba():
    pytest.importorskip("numba")
    act = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.3)
    return act.to_numba()


@pytest.mark.parametrize(
    "call, message",
    [
        # numba's words: "too many arguments: expected 2, got 3"
        (lambda fns: fns.f(0.7, 2.0, 3.0), r"f of activation 'swish' takes at most 2"),
        (
            lambda fns: fns.dconstants[0](0.7, 2.0, 3.0),
            r"dconstants\[0\] of .*at most 2",
        ),
        # "not enough arguments: expected at least 1, got 0"
        (lambda fns: fns.f(), r"f of activation 'swish': x is missing; .*x, beta"),
        (lambda fns: fns.df(beta=2.0), r"df of activation 'swish': x is missing"),
        # "some keyword arguments unexpected"
        (lambda fns: fns.f(0.7, x=0.5), r"'x' was given by position and by name"),
        (lambda fns: fns.f(0.7, 2.0, beta=2.0), r"'beta' was given by position"),
        # "too many arguments: expected 1, got 2"
        (lambda fns: fns.bind(beta=2.0).f(0.7, 3.0), r"at most 1 .*bind\(\) fixed"),
    ],
)
def test_numba_wrong_argument_counts_name_the_function(swish_numba, call, message):
    with pytest.raises(TypeError, match=message):
        call(swish_numba)


def test_numba_right_calls_still_compute(swish_numba):
    def ref(x, beta=1.3):
        return x / (1.0 + np.exp(-beta * x))

    fns = swish_numba
    assert fns.f(0.7) == pytest.approx(ref(0.7), rel=1e-14)
    assert fns.f(0.7, 2.0) == pytest.approx(ref(0.7, 2.0), rel=1e-14)
    assert fns.f(x=0.7, beta=2.0) == pytest.approx(ref(0.7, 2.0), rel=1e-14)
    assert fns.bind(beta=2.0).f(x=0.7) == pytest.approx(ref(0.7, 2.0), rel=1e-14)


def test_numba_constants_passed_from_python_are_checked_as_bind_checks():
    # before: softplus f(0.5, beta=0) was inf, hardtanh with min_val > max_val
    # -2.0, a NaN constant NaN, without a word (bind() and the kernels refuse them)
    pytest.importorskip("numba")
    from symnb.errors import FormulaError

    softplus = symnb.activation("softplus").to_numba()
    with pytest.raises(FormulaError, match="beta must not be 0"):
        softplus.f(0.5, beta=0.0)
    with pytest.raises(FormulaError, match="beta must not be 0"):
        softplus.df(0.5, 0.0)
    with pytest.raises(FormulaError, match="beta must not be 0"):
        softplus.dconstants[0](0.5, 0.0)
    with pytest.raises(FormulaError, match="constant 'beta' must be finite"):
        softplus.f(0.5, beta=float("nan"))
    hardtanh = symnb.activation("hardtanh").to_numba()
    with pytest.raises(FormulaError, match="min_val must not be greater"):
        hardtanh.f(0.5, min_val=2.0, max_val=-2.0)
    # PyTorch's Softplus(beta=2): log1p(exp(beta x)) / beta
    assert softplus.f(0.5, beta=2.0) == pytest.approx(np.log1p(np.e) / 2, rel=1e-14)
    assert hardtanh.f(3.0, -2.0, 2.0) == 2.0


def test_numba_integer_beyond_64_bits_after_a_compiled_call(swish_numba):
    # the first call's check named it; once a signature was compiled numba
    # answered "int too big to convert"
    fns = symnb.Activation("x*x").to_numba()
    assert fns.f(3) == 9.0
    with pytest.raises(TypeError, match="x is an integer beyond 64 bits"):
        fns.f(2**70)
    assert swish_numba.f(0.5, 2) == pytest.approx(0.5 / (1 + np.exp(-1.0)), rel=1e-14)
    with pytest.raises(TypeError, match="beta is an integer beyond 64 bits"):
        swish_numba.f(0.5, 2**70)
