"""A derivative given with ``derivative=...`` that is not the formula's own is said.

``Activation("x**3", derivative="3*x**2 + 1")`` trained with wrong gradients without a
word. It is still used as given (surrogates are a legitimate choice), but a note names
a point where it differs, with a warning when the formula has no step or kink. The
note's "exact" value is checked here against central differences of the compiled f.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import symnb

_AT = re.compile(r"at (\w+) = (\S+): given (\S+), exact (\S+)\)")


def _build(cls, text, derivative, constants):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        obj = cls(text, derivative=derivative, **constants)
    warned = [str(w.message) for w in caught if "given derivative" in str(w.message)]
    notes = [n for n in obj.notes if "given derivative differs" in n]
    return obj, warned, notes


def _central(kernel, x, y_true=None):
    h = 1e-6 * max(1.0, abs(x))
    if y_true is None:
        up, down = kernel(np.array([x + h])), kernel(np.array([x - h]))
    else:
        t = np.array([y_true])
        # the mean over one element is the elementwise loss
        return (kernel(np.array([x + h]), t) - kernel(np.array([x - h]), t)) / (2 * h)
    return float((up - down)[0] / (2 * h))


@pytest.mark.parametrize(
    "cls, text, derivative, constants",
    [
        (symnb.Activation, "x**3", "3*x**2 + 1", {}),
        (symnb.Activation, "beta*x**3", "3*x**2", {"beta": 2.0}),
        (symnb.Activation, "x*sigmoid(x)", "sigmoid(x)", {}),
        (symnb.Activation, "log(1 + x**2)", "2*x/(1 + x)**2", {}),
        (symnb.Loss, "(y_pred - y_true)**2", "y_pred - y_true", {}),
    ],
)
def test_a_slip_in_a_smooth_formula_s_derivative_warns(
    cls, text, derivative, constants
):
    obj, warned, notes = _build(cls, text, derivative, constants)
    assert warned and notes, obj.notes
    _name, at, given, exact = _AT.search(notes[0]).groups()
    kernel = obj.compile("numpy", dtype="float64")
    y_true = 0.7 if cls is symnb.Loss else None
    fd = _central(kernel, float(at), y_true)
    assert float(exact) == pytest.approx(fd, rel=1e-5, abs=1e-6)
    assert abs(float(given) - fd) > 1e-3 * max(1.0, abs(fd))
    # still used as given
    if cls is symnb.Activation:
        d = kernel.forward_with_derivative(np.array([float(at)]))[1][0]
        assert d == pytest.approx(float(given), rel=1e-5)


@pytest.mark.parametrize(
    "cls, text, derivative, constants",
    [
        (symnb.Activation, "x**3", "3*x**2", {}),
        (symnb.Activation, "beta*x**3", "3*beta*x**2", {"beta": 2.0}),
        (
            symnb.Activation,
            "mish(x)",
            "tanh(softplus(x)) + x*sigmoid(x)*(1 - tanh(softplus(x))**2)",
            {},
        ),
        (symnb.Activation, "log(x)", "1/x", {}),
        (
            symnb.Loss,
            "-y_true*log(y_pred) - (1 - y_true)*log(1 - y_pred)",
            "-y_true/y_pred + (1 - y_true)/(1 - y_pred)",
            {},
        ),
    ],
)
def test_the_right_derivative_in_another_spelling_says_nothing(
    cls, text, derivative, constants
):
    _, warned, notes = _build(cls, text, derivative, constants)
    assert not warned and not notes


@pytest.mark.parametrize(
    "text, derivative",
    [("heaviside(x)", "exp(-x**2)"), ("clip(x, 0, 1)", "1"), ("sign(x)", "1")],
)
def test_a_surrogate_for_a_step_or_kink_is_a_note_without_a_warning(text, derivative):
    obj, warned, notes = _build(symnb.Activation, text, derivative, {})
    assert notes and not warned
    d = obj.compile("numpy", dtype="float64").forward_with_derivative(
        np.array([-2.3, 0.4])
    )[1]
    want = {"exp(-x**2)": np.exp(-(np.array([-2.3, 0.4]) ** 2)), "1": np.ones(2)}
    np.testing.assert_allclose(d, want[derivative])
