"""A 0-d array is a number, as in NumPy: ``beta=np.array(2.0)``.

h118's core probe: 0-d arrays (NumPy's result of reductions, ``np.float32(x)[()]``'s
cousin, a 0-d JAX array, a CPU tensor) were refused as constants, in ``set_constants``
and in ``learnable``, with "must be a number". They are read as their number; bool and
complex 0-d arrays, arrays of one element and tensors that need grad are still
refused. References: the float64 formula in NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError

X = np.array([-3.0, -0.5, 0.0, 0.5, 3.0])


def swish(x, beta):
    return x / (1 + np.exp(-beta * x))


@pytest.mark.parametrize(
    "beta",
    [np.array(2.0), np.array(2, dtype=np.int32), np.array(2.0, dtype=np.float32)],
    ids=["float64", "int32", "float32"],
)
def test_a_0d_array_is_a_constant(beta):
    act = symnb.Activation("x*sigmoid(beta*x)", beta=beta)
    k = act.compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(k(X), swish(X, 2.0), rtol=1e-14)
    k.set_constants(beta=np.array(0.5))
    np.testing.assert_allclose(k(X), swish(X, 0.5), rtol=1e-14)


def test_0d_arrays_of_other_frameworks():
    torch = pytest.importorskip("torch")
    k = symnb.Activation("x*sigmoid(beta*x)", beta=1.0).compile(
        backend="numpy", dtype="float64"
    )
    k.set_constants(beta=torch.tensor(3.0))
    np.testing.assert_allclose(k(X), swish(X, 3.0), rtol=1e-14)
    with pytest.raises(
        FormulaError, match=r"must be a number(.|\n)*beta=value.item\(\)"
    ):
        k.set_constants(beta=torch.tensor(3.0, requires_grad=True))


@pytest.mark.parametrize(
    "bad",
    [np.array(True), np.array(1 + 2j), np.array([2.0])],
    ids=["bool", "complex", "1-d"],
)
def test_other_arrays_are_still_refused(bad):
    with pytest.raises(FormulaError, match="'beta' must be a (finite real )?number"):
        symnb.Activation("x*sigmoid(beta*x)", beta=bad)
