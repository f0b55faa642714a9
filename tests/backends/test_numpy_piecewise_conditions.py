"""A condition that compares a Piecewise compiles at once on numpy and JAX.

``where(abs(log(cosh(u))) < c, ...)``: symnb's stable log-cosh is a Piecewise, SymPy
writes the comparison of it as an ``ITE``, and SymPy's NumPy printer ran
``simplify_logic`` (with trigsimp on every relational) over such a condition: this
Huber-of-log-cosh loss took 56-106 s to compile on the numpy backend (found by a fuzz of
random loss compositions). Values are checked against the cpp backend and against
float64 evaluation of the formula as written.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
import sympy as sp
from sympy.logic.boolalg import ITE

import symnb

TEXT = (
    "where(abs(softplus(y_pred) + log(cosh((c*(y_pred - y_true))**2)))"
    " < c, 0.5*(softplus(y_pred) + log(cosh((c*(y_pred - y_true))**2)))**2,"
    " c*(abs(softplus(y_pred) + log(cosh((c*(y_pred - y_true))**2))) - 0.5*c))"
)


def _direct(p: np.ndarray, t: np.ndarray, c: float = 0.75) -> np.ndarray:
    u = np.logaddexp(0, p) + np.log(np.cosh((c * (p - t)) ** 2))
    return np.where(np.abs(u) < c, 0.5 * u**2, c * (np.abs(u) - 0.5 * c))


def test_the_condition_holds_an_ite():
    # the premise: otherwise this test checks nothing
    loss = symnb.Loss(TEXT, c=0.75)
    assert loss.internal.f.has(ITE)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_compiles_at_once_and_matches(dtype):
    loss = symnb.Loss(TEXT, c=0.75)
    start = time.thread_time()  # CPU time: the analysis budget (4 s) counts the same
    kernel = loss.compile("numpy", dtype=dtype)
    assert time.thread_time() - start < 20, "the numpy printer simplified conditions"
    rng = np.random.default_rng(0)
    p = rng.normal(0, 1.5, 64).astype(dtype)
    t = rng.normal(0, 1.0, 64).astype(dtype)
    reference = loss.compile("cpp", dtype=dtype)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(
        kernel.gradient(p, t), reference.gradient(p, t), rtol=tol, atol=tol
    )
    np.testing.assert_allclose(
        kernel.value(p, t), np.mean(_direct(p.astype(float), t.astype(float))), rtol=tol
    )


def test_jax_prints_the_condition_too():
    pytest.importorskip("jax", reason="the jax extra is not installed")
    from symnb.interop.jax import _Printer

    a, b = sp.symbols("a b", real=True)
    text = _Printer().doprint(sp.Piecewise((a, ITE(a < 1, b > 0, b < -1)), (b, True)))
    assert "jax.numpy.where" in text and "select" in text
