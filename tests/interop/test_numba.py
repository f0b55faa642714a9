"""Activation.to_numba: scalar f and f' inside numba.njit code (against NumPy float64
kernels) and compiled as numba.cuda device functions where numba-cuda can compile
without a GPU."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import symnb

numba = pytest.importorskip("numba")

X = np.concatenate([np.linspace(-8, 8, 97), [0.0, -60.0, 60.0, np.nan]])
NAMES = ["mish", "leaky_relu", "gelu", "step"]


def _loop(f, df):
    @numba.njit
    def run(x, y, dy):
        for i in range(x.size):
            y[i] = f(x[i])
            dy[i] = df(x[i])

    return run


@pytest.mark.parametrize("name", NAMES)
def test_njit_bound_functions_match_the_kernels(name):
    act = symnb.activation(name)
    fns = act.to_numba().bind()
    y, dy = np.empty_like(X), np.empty_like(X)
    _loop(fns.f, fns.df)(X, y, dy)
    y_ref, dy_ref = act.compile(
        backend="numpy", dtype="float64"
    ).forward_with_derivative(X)
    np.testing.assert_allclose(y, y_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dy, dy_ref, rtol=1e-12, atol=1e-14)


def test_constants_as_arguments_and_their_derivatives():
    act = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.5)
    fns = act.to_numba()
    assert fns.constant_names == ("beta",) and fns.constants == {"beta": 1.5}
    f, df, dbeta = fns.f, fns.df, fns.dconstants[0]

    @numba.njit
    def run(x, beta, out):
        for i in range(x.size):
            out[0, i] = f(x[i], beta)
            out[1, i] = df(x[i], beta)
            out[2, i] = dbeta(x[i], beta)

    out = np.empty((3, X.size))
    run(X, 2.0, out)
    assert f(0.5) == pytest.approx(0.5 / (1 + np.exp(-0.75)), rel=1e-12)  # default
    assert f(0.5, 2.0) == pytest.approx(0.5 / (1 + np.exp(-1.0)), rel=1e-12)
    kernel = act.with_constants(beta=2.0).compile(backend="numpy", dtype="float64")
    y_ref, dy_ref = kernel.forward_with_derivative(X)
    np.testing.assert_allclose(out[0], y_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out[1], dy_ref, rtol=1e-12, atol=1e-14)
    finite = X[:-1]
    expect = finite**2 / (1 + np.exp(-2 * finite)) / (1 + np.exp(2 * finite))
    np.testing.assert_allclose(out[2, :-1], expect, rtol=1e-12, atol=1e-14)
    with pytest.raises(symnb.FormulaError, match="gamma"):
        fns.bind(gamma=1.0)


def _cuda_compiler():
    """numba-cuda's compile_ptx, or the reason it cannot compile here."""
    try:
        from numba import cuda

        def probe(x):
            return x + 1.0

        cuda.compile_ptx(probe, "(float64,)", device=True, cc=(8, 0))
        return cuda, ""
    except Exception as exc:  # noqa: BLE001 - any failure means: cannot compile here
        return (
            None,
            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
        )


CUDA, CUDA_WHY = _cuda_compiler()


@pytest.mark.skipif(
    CUDA is None,
    reason=f"numba-cuda cannot compile without a GPU here (needs numba-cuda and "
    f"NVVM from the CUDA toolkit): {CUDA_WHY}",
)
@pytest.mark.slow
@pytest.mark.parametrize("name", ["mish", "step"])
def test_cuda_device_functions_compile(name):
    act = symnb.activation(name)
    fns = act.to_numba(target="cuda")
    sig = "(float32" + ", float32" * len(fns.constant_names) + ",)"
    for fn in (fns.f, fns.df, *fns.dconstants):
        ptx, _ = CUDA.compile_ptx(fn.py_func, sig, device=True, cc=(8, 0))
        assert ".func" in ptx


def test_unknown_target_and_missing_numba(monkeypatch):
    act = symnb.activation("relu")
    with pytest.raises(ValueError, match="target"):
        act.to_numba(target="opencl")
    monkeypatch.setitem(sys.modules, "numba", None)
    with pytest.raises(ImportError, match=r"pip install symnb\[numba\]"):
        act.to_numba()


@pytest.mark.parametrize(
    "value, words",
    [
        ("a", "must be a number"),
        (float("nan"), "must be finite"),
        (float("-inf"), "must be finite"),
    ],
)
def test_bind_refuses_a_bad_constant_like_the_kernels(value, words):
    """bind(beta='a') failed in float() without the name; bind(beta=nan) was accepted
    and f returned NaN, where set_constants and to_torch raise FormulaError."""
    act = symnb.Activation("x*sigmoid(beta*x)", name="sw_nb", beta=1.0)
    with pytest.raises(symnb.FormulaError, match=f"constant 'beta' {words}"):
        act.to_numba().bind(beta=value)
    with pytest.raises(symnb.FormulaError, match=f"constant 'beta' {words}"):
        act.compile(backend="numpy").set_constants(beta=value)


@pytest.mark.parametrize(
    "text", ["x/sqrt(1 + a*x**2)", "x*sigmoid(a*x) + 0.01*x**3/(1 + x**2)"]
)
def test_large_x_uses_the_kernels_rewritten_form(text):
    """to_numba printed the plain form: ISRU x/sqrt(1 + a*x**2) was 0 and f' NaN at
    |x| = 1e200 (x**2 overflowed) where the float64 kernels give 1/sqrt(a)."""
    act = symnb.Activation(text, name="large_nb", a=0.5)
    fns = act.to_numba().bind()
    f, df = fns.f, fns.df

    @numba.njit
    def loop(xs):
        y = np.empty_like(xs)
        d = np.empty_like(xs)
        for i in range(xs.size):
            y[i] = f(xs[i])
            d[i] = df(xs[i])
        return y, d

    x = np.array([-1e300, -1e200, 1e200, 1e300, -3.0, 0.5, np.nan])
    y, d = loop(x)
    y_k, d_k = act.compile(backend="cpp", dtype="float64").forward_with_derivative(x)
    assert np.isfinite(y[:-1]).all() and np.isfinite(d[:-1]).all()
    np.testing.assert_allclose(y, y_k, rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(d, d_k, rtol=1e-14, atol=1e-300)


def test_constant_names_are_the_activations_own_after_a_twin_was_lowered():
    """to_numba reads the lowered form, and analyses are shared by forms of the same
    structure and values: after x*sigmoid(my_beta*x) was compiled, swish's constant
    came back named 'my_beta'."""
    twin = symnb.Activation("x*sigmoid(my_beta*x)", name="twin", my_beta=1.25)
    twin.compile(backend="numpy", dtype="float64")
    twin.to_numba()
    act = symnb.Activation("x*sigmoid(beta*x)", name="swish_b", beta=1.25)
    fns = act.to_numba()
    assert fns.constant_names == ("beta",) and fns.constants == {"beta": 1.25}
    fns.bind(beta=2.0)
    with pytest.raises(symnb.FormulaError, match="my_beta"):
        fns.bind(my_beta=2.0)


@pytest.mark.parametrize("text", ["heaviside(x, 1)", "Heaviside(x, 0.5)", "heaviside(x - 1, 1)"])
def test_heaviside_keeps_its_value_at_zero(text):
    """The helper dropped h0: heaviside(x, 1) was 0 at x = 0 (the kernels give 1)."""
    act = symnb.Activation(text)
    fns = act.to_numba().bind()
    x = np.array([-1.0, 0.0, 1.0, 2.0])
    y, dy = np.empty_like(x), np.empty_like(x)
    _loop(fns.f, fns.df)(x, y, dy)
    want = act.compile(backend="cpp", dtype="float64").forward(x)
    np.testing.assert_array_equal(y, want)
