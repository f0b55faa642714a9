"""A condition on a piecewise value: ``where(cbrt(x) > 1, x, 0)``, ``cbrt(cbrt(x))``.

SymPy's Piecewise turns a comparison of a piecewise value into ``ITE(...)``; formulas
holding one were refused ("a condition must be a comparison ..., got ITE"), so
``cbrt(cbrt(x))``, ``hardshrink(cbrt(x))`` or ``x*(cbrt(x) > 0)`` could not be typed.
Judged against NumPy's own functions.
"""

import numpy as np
import pytest

import symnb


def _hardshrink(u, lambd=0.5):
    return np.where(np.abs(u) > lambd, u, 0.0)


CASES = {
    "cbrt(cbrt(x))": lambda x: np.cbrt(np.cbrt(x)),
    "x/(1 + cbrt(cbrt(x))**2)": lambda x: x / (1 + np.cbrt(np.cbrt(x)) ** 2),
    "where(cbrt(x) > 1, x, 0)": lambda x: np.where(np.cbrt(x) > 1, x, 0.0),
    "where(where(x > 0, x, 0.1*x) > 1, x, 0)": lambda x: np.where(
        np.where(x > 0, x, 0.1 * x) > 1, x, 0.0
    ),
    "hardshrink(cbrt(x))": lambda x: _hardshrink(np.cbrt(x)),
    # the cube root of a piecewise value (was "'Or' object has no attribute
    # 'canonical'" once the ITE conditions were read)
    "cbrt(exp(cbrt(x)))": lambda x: np.cbrt(np.exp(np.cbrt(x))),
    "cbrt(where(x > 0, x, -2*x) - 1)": lambda x: np.cbrt(
        np.where(x > 0, x, -2 * x) - 1
    ),
    "x*(cbrt(x) > 0.5)": lambda x: x * (np.cbrt(x) > 0.5),
    "cbrt(x) if cbrt(x) > 0.5 else 0.25*x": lambda x: np.where(
        np.cbrt(x) > 0.5, np.cbrt(x), 0.25 * x
    ),
}

X = np.array([-27.0, -8.0, -1.7, -0.3, -0.001, 0.001, 0.3, 0.9, 1.7, 8.0, 27.0])


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize("text", list(CASES))
def test_value_and_slope(text, backend):
    k = symnb.Activation(text).compile(backend=backend, dtype="float64")
    want = CASES[text](X)
    np.testing.assert_allclose(k(X), want, rtol=1e-14, atol=1e-300, err_msg=text)
    # the slope against central differences of the reference, away from its jumps
    h = 1e-6 * np.maximum(1.0, np.abs(X))
    fd = (CASES[text](X + h) - CASES[text](X - h)) / (2 * h)
    smooth = np.abs(CASES[text](X + h) - CASES[text](X - h)) < 1e-3
    got = k.backward(X, np.ones_like(X))
    np.testing.assert_allclose(got[smooth], fd[smooth], rtol=1e-5, err_msg=text)
