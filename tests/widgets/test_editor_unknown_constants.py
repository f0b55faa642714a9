"""``ActivationEditor`` and constant names its formula does not have (a hostile-input
probe, 2026-12-06). Before the fix, ``ActivationEditor(constants={'gamma': 2})`` for
``x*sigmoid(beta*x)`` dropped gamma without a word (no slider, no value), and
``set_constants(gamma=1)`` raised a bare ``KeyError`` whose text was a quoted repr,
while a kernel's ``set_constants`` raises a ``FormulaError`` for the same mistake."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.errors import FormulaError
from symnb.widgets import ActivationEditor


def test_a_constant_the_formula_lacks_is_refused_naming_it_and_the_argument() -> None:
    with pytest.raises(FormulaError) as info:
        ActivationEditor("x*sigmoid(beta*x)", constants={"beta": 2.0, "gamma": 2.0})
    message = str(info.value)
    assert "constants" in message and "'gamma'" in message
    assert "its constants are: beta" in message
    assert isinstance(info.value, KeyError)  # as set_constants documents


def test_known_constants_still_set_the_curve() -> None:
    editor = ActivationEditor("x*sigmoid(beta*x)", constants={"beta": 2.0})
    try:
        x = editor.curves()["x"].astype(np.float64)
        reference = x / (1.0 + np.exp(-2.0 * x))
        np.testing.assert_allclose(
            editor.curves()["f"], reference, rtol=1e-5, atol=1e-6
        )
    finally:
        editor.close()


def test_a_formula_with_an_error_keeps_the_values_for_later() -> None:
    # nothing to compare against while the text does not parse: the value waits
    editor = ActivationEditor("x*(", constants={"gamma": 3.0})
    try:
        assert editor.error is not None
        editor.formula.value = "gamma*x"
        editor.refresh()
        x = editor.curves()["x"].astype(np.float64)
        np.testing.assert_allclose(editor.curves()["f"], 3.0 * x, rtol=1e-6, atol=1e-6)
    finally:
        editor.close()


def test_set_constants_unknown_name_is_a_formula_error_and_a_key_error() -> None:
    editor = ActivationEditor("x*sigmoid(beta*x)")
    try:
        with pytest.raises(FormulaError) as info:
            editor.set_constants(gamma=1.0)
        assert isinstance(info.value, KeyError)
        message = str(info.value)
        assert not message.startswith('"')  # not KeyError's quoted repr
        assert "no constant 'gamma'" in message and "beta" in message
        # the same kind and words as a kernel's set_constants for the same name
        kernel = editor.activation.compile(backend="numpy")
        with pytest.raises(FormulaError, match="no constant 'gamma'"):
            kernel.set_constants(gamma=1.0)
    finally:
        editor.close()


def test_given_constants_win_over_the_defaults_pasted_code_declares() -> None:
    # the code's a=1.2 replaced the given 2.0 without a word (slider and plot at 1.2)
    code = "def f(x, a=1.2):\n    return a*x"
    editor = ActivationEditor(code, constants={"a": 2.0})
    try:
        assert editor.constants == {"a": 2.0}
        x = editor.curves()["x"].astype(np.float64)
        np.testing.assert_allclose(editor.curves()["f"], 2.0 * x, rtol=1e-6, atol=1e-6)
    finally:
        editor.close()
    # without constants= the code's own default stays
    plain = ActivationEditor(code)
    try:
        assert plain.constants == {"a": pytest.approx(1.2)}
    finally:
        plain.close()
