"""Sums of kinked terms of one variable (relu6 typed as relu(x) - relu(x - 6), hard tanh
typed as (|x + 1| - |x - 1|)/2): evaluated as typed, x - 6 rounds to x from |x| = 1e8
in float32 and the terms cancel to 0. They are computed as their linear pieces.

References are independent of the rewrite: f is the typed formula evaluated exactly
(SymPy, rational x); f' is the typed formula's derivative evaluated exactly with the
kernels' kink conventions (Heaviside(0) = 0, sign(0) = 0), which must not change.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

import symnb

BACKENDS = ("numpy", "cpp")
X = sp.Symbol("x", real=True)

# text, the same formula in SymPy (the reference), breakpoints
CASES = [
    ("relu(x) - relu(x - 6)", sp.Max(X, 0) - sp.Max(X - 6, 0), [0, 6]),
    ("(abs(x + 1) - abs(x - 1))/2", (sp.Abs(X + 1) - sp.Abs(X - 1)) / 2, [-1, 1]),
    ("max(x, 0.25*x) - max(x - 3, 0)", sp.Max(X, X / 4) - sp.Max(X - 3, 0), [0, 3]),
    ("abs(abs(x) - 1) - abs(x)", sp.Abs(sp.Abs(X) - 1) - sp.Abs(X), [-1, 0, 1]),
    (
        "min(max(x, -1), 1) - relu(x)",
        sp.Min(sp.Max(X, -1), 1) - sp.Max(X, 0),
        [-1, 0, 1],
    ),
]


def _points(breaks, dtype):
    dt = np.dtype(dtype)
    pts = [-3e38, -1e30, -1e8, -12345.5, 1e8, 1e30, 3e38, 0.3, -2.5, 7.0]
    for b in breaks:
        b = dt.type(b)
        pts += [b, np.nextafter(b, dt.type(-np.inf)), np.nextafter(b, dt.type(np.inf))]
        pts += [b - dt.type(0.5), b + dt.type(0.5)]
    return np.array(pts, dtype=dtype)


def _reference(expr, xs):
    d = sp.diff(expr, X).replace(
        lambda a: isinstance(a, sp.Heaviside), lambda a: sp.Heaviside(a.args[0], 0)
    )
    f_ref, d_ref = [], []
    for v in xs:
        q = sp.Rational(float(v))
        f_ref.append(float(expr.subs(X, q)))
        d_ref.append(float(d.subs(X, q)))
    return np.array(f_ref), np.array(d_ref)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text, expr, breaks", CASES, ids=[c[0] for c in CASES])
def test_values_and_kink_derivatives(text, expr, breaks, dtype):
    act = symnb.Activation(text)
    assert any("linear pieces" in n for n in act.notes), act.notes
    x = _points(breaks, dtype)
    f_ref, d_ref = _reference(expr, x)
    eps = np.finfo(dtype).eps
    for backend in BACKENDS:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no silent fallback to another backend
            kernel = act.compile(backend=backend, dtype=dtype)
        y, dy = (np.asarray(a, np.float64) for a in kernel.forward_with_derivative(x))
        # f: one rounding of k*x + m (the reference itself rounded to dtype: 1 ulp)
        want = f_ref.astype(dtype).astype(np.float64)
        tol = 2 * eps * np.abs(want) + np.finfo(dtype).tiny
        assert np.all(np.abs(y - want) <= tol), (backend, x, y, want)
        # f' exactly, at and beside every kink
        assert np.array_equal(dy, d_ref), (backend, x, dy, d_ref)
        nan = kernel.forward_with_derivative(np.array([np.nan], dtype=dtype))
        assert np.isnan(nan[0]).all() and np.isnan(nan[1]).all()


def test_large_inputs_were_wrong_as_typed():
    """As typed (float32), 1e8 - 6 rounds to 1e8 - 8 and 1e9 - 6 to 1e9: relu6 was 8
    and 0 there, hard tanh 0; the pieces give 6 and -1."""
    x = np.array([1e8, 1e9], dtype=np.float32)
    assert (np.maximum(x, 0) - np.maximum(x - np.float32(6), 0)).tolist() == [8, 0]
    assert ((abs(-x + 1) - abs(-x - 1)) / 2).tolist() == [0, 0]
    relu6 = symnb.Activation("relu(x) - relu(x - 6)").compile("numpy", dtype="float32")
    assert relu6.forward(x).tolist() == [6, 6]
    hard = symnb.Activation("(abs(x + 1) - abs(x - 1))/2")
    assert hard.compile("numpy", dtype="float32").forward(-x).tolist() == [-1, -1]


@pytest.mark.parametrize(
    "text",
    [
        "relu(x) - relu(x - 0.1)",  # 0.1 is not a binary fraction: kept as typed
        "relu(x) - relu(x - a)",  # a breakpoint that is a constant
        "relu(x) + sigmoid(x)",  # one kinked term only
        "relu(y_pred - y_true) - relu(y_pred - y_true - 1)",
    ],
)
def test_kept_as_typed(text):
    if "y_pred" in text:
        f = symnb.Loss(text)
    else:
        f = symnb.Activation(text, a=2.0) if "a)" in text else symnb.Activation(text)
    assert not any("linear pieces" in n for n in f.notes), (text, f.expr)
    assert not f.expr.has(sp.Piecewise)


@pytest.mark.parametrize(
    "name", list(symnb.library_activations()) + list(symnb.library_losses())
)
def test_library_forms_unchanged(name):
    """relu6, hardtanh, hardsigmoid, hardswish...: no library form is rewritten."""
    acts = set(symnb.library_activations())
    f = symnb.activation(name) if name in acts else symnb.loss(name)
    assert not any("linear pieces" in n for n in f.notes), (name, f.expr)


# A sum of kinked terms where one term is a product of two non-numeric factors is not
# piecewise linear: the check used to recurse on x*max(x, 0) (no numeric coefficient to
# take out) until RecursionError, so these valid formulas were refused (probe 5).
PRODUCT_CASES = [
    ("exp(min(x, 0))*max(x, 0) + min(x, 0)",
     sp.exp(sp.Min(X, 0)) * sp.Max(X, 0) + sp.Min(X, 0)),
    ("x*max(x, 0) + abs(x)", X * sp.Max(X, 0) + sp.Abs(X)),
    ("max(pi*x, 0) + abs(x)", sp.Max(sp.pi * X, 0) + sp.Abs(X)),
    ("max(x, 0)*min(x, 0) + abs(x)", sp.Max(X, 0) * sp.Min(X, 0) + sp.Abs(X)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text, expr", PRODUCT_CASES, ids=[c[0] for c in PRODUCT_CASES])
def test_products_of_kinked_terms_are_accepted(text, expr, dtype):
    act = symnb.Activation(text)
    # away from the kink at 0: f exactly (SymPy, rational x), f' by central differences
    # of the exact f (independent of symnb's derivative)
    x = np.array([-7.5, -2.0, -0.75, 0.3, 1.5, 4.0], dtype=dtype)
    h = sp.Rational(1, 10**12)
    f_ref, d_ref = [], []
    for v in x:
        q = sp.Rational(float(v))
        f_ref.append(float(expr.subs(X, q).evalf(30)))
        d_ref.append(
            float(((expr.subs(X, q + h) - expr.subs(X, q - h)) / (2 * h)).evalf(30))
        )
    f_ref, d_ref = np.array(f_ref), np.array(d_ref)
    rtol = 1e-5 if dtype == "float32" else 1e-11
    for backend in BACKENDS:
        kernel = act.compile(backend=backend, dtype=dtype)
        y, dy = (np.asarray(a, np.float64) for a in kernel.forward_with_derivative(x))
        np.testing.assert_allclose(y, f_ref, rtol=rtol, atol=1e-30)
        np.testing.assert_allclose(dy, d_ref, rtol=rtol, atol=1e-30)
