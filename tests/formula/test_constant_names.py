"""A constant may not take the name of a number of the formula language (pi, E): the
symbol replaced the number in the kernels while the LaTeX still showed it
(Activation('pi*x', pi=2.0) computed 2x and displayed \\pi x)."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError


@pytest.mark.parametrize("name", ["pi", "E"])
def test_constant_named_like_a_number_is_refused(name):
    with pytest.raises(FormulaError, match=f"constant '{name}' has the name of the number"):
        symnb.Activation(f"{name}*x", **{name: 2.0})


def test_pi_keeps_its_value_beside_a_constant():
    a = symnb.Activation("pi*x + c", c=2.0)
    k = a.compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(k.forward(np.array([1.5])), np.pi * 1.5 + 2.0, rtol=1e-15)
    assert r"\pi" in a.latex
