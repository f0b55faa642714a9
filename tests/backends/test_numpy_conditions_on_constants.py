"""Conditions that combine a constant and x on the numpy backend.

``where((a > 0.5) & (x > 1), x, 2*x)`` failed to run on the numpy backend ("setting an
array element with a sequence ... inhomogeneous shape"): SymPy prints ``&`` as
``logical_and.reduce((a > 0.5, x > 1))``, which stacks a scalar with an array. The C++
kernels were right. Judged against NumPy written out, for an activation, a layer of
two neurons with different constants, and a loss.
"""

import numpy as np
import pytest

import symnb

X = np.array([-2.0, 0.5, 1.5, 2.0, 3.0])

CASES = {
    "where((a > 0.5) & (x > 1), x, 2*x)": lambda x, a: np.where(
        (a > 0.5) & (x > 1), x, 2 * x
    ),
    "where((a > 0.5) | (x > 1), x, 2*x)": lambda x, a: np.where(
        (a > 0.5) | (x > 1), x, 2 * x
    ),
    "where(~((a > 0.5) | (x > 1)) & (x < 1.8), x, 2*x)": lambda x, a: np.where(
        ~((a > 0.5) | (x > 1)) & (x < 1.8), x, 2 * x
    ),
    "where(where(a > 0.5, x, 0.1) > 1, x, 2*x)": lambda x, a: np.where(
        np.where(a > 0.5, x, 0.1) > 1, x, 2 * x
    ),
}


@pytest.mark.parametrize("a", [0.2, 0.7])
@pytest.mark.parametrize("text", list(CASES))
def test_activation(text, a):
    for backend in ("numpy", "cpp"):
        k = symnb.Activation(text, a=a).compile(backend=backend, dtype="float64")
        np.testing.assert_array_equal(k(X), CASES[text](X, a), err_msg=backend)


@pytest.mark.parametrize("text", list(CASES))
def test_layer_of_two_constants(text):
    acts = [symnb.Activation(text, a=0.2), symnb.Activation(text, a=0.7)]
    layer = symnb.compile_layer(acts, backend="numpy", dtype="float64")
    z = np.stack([X, X], axis=1)
    want = np.stack([CASES[text](X, 0.2), CASES[text](X, 0.7)], axis=1)
    np.testing.assert_array_equal(layer.forward(z), want)


def test_loss():
    loss = symnb.Loss(
        "where((m > 0) & (y_pred > y_true), (y_pred - y_true)**2, 0)", m=1.0
    )
    k = loss.compile(backend="numpy", dtype="float64")
    p, t = np.array([0.0, 1.0, 3.0]), np.array([1.0, 1.0, 1.0])
    np.testing.assert_allclose(k.value(p, t), np.mean(np.where(p > t, (p - t) ** 2, 0)))
