"""Boundary probe 17 (formula layer): SymPy symbols declared on part of the real line.

SymPy simplifies with a symbol's assumptions while the expression is built: ``Abs(x)``
of a positive ``x`` is ``x`` and ``sqrt(beta**2)`` of a positive ``beta`` is ``beta``.
Before, ``Activation`` renamed such symbols to real ones and compiled the already
simplified expression: ``Activation(sympy.Abs(Symbol('x', positive=True)))`` gave
``f(-2) = -2`` (the identity) where |x| is 2. Now the symbol is refused, naming it and
the declaration that works; plain and ``real=True`` symbols work as before.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symnb
from symnb.errors import FormulaError


@pytest.mark.parametrize(
    "assumption", ["positive", "nonnegative", "negative", "integer", "nonzero"]
)
def test_a_variable_declared_on_part_of_the_line_is_refused(assumption):
    x = sp.Symbol("x", **{assumption: True})
    with pytest.raises(FormulaError, match=rf"'x'.*{assumption}=True") as info:
        symnb.Activation(sp.Abs(x) + sp.sqrt(x**2) * sp.tanh(x))
    assert "sympy.Symbol('x', real=True)" in str(info.value)


def test_a_constant_declared_positive_is_refused():
    x = sp.Symbol("x")
    beta = sp.Symbol("beta", positive=True)
    with pytest.raises(FormulaError, match=r"'beta'.*positive=True"):
        symnb.Activation(sp.sqrt(beta**2) * x, beta=-1.0)


@pytest.mark.parametrize(
    "symbol",
    [sp.Symbol("x"), sp.Symbol("x", real=True), sp.Symbol("x", finite=True)],
    ids=["plain", "real", "finite"],
)
def test_real_symbols_still_compute_abs(symbol):
    kernel = symnb.Activation(sp.Abs(symbol) * sp.tanh(symbol)).compile(
        backend="numpy", dtype="float64"
    )
    xs = np.array([-2.0, -0.5, 0.5, 2.0])
    assert np.allclose(kernel.forward(xs), np.abs(xs) * np.tanh(xs), rtol=1e-15)
