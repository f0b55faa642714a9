"""``ActivationEditor(constants=...)`` is checked as a slider's value is.

Before, ``{'beta': True}`` and ``{'beta': '1.5'}`` were read by ``float()`` as 1.0
and 1.5 without a word, and ``{'beta': 1e39}`` was accepted and then dropped: the
editor showed an error and lost the constant."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.widgets import ActivationEditor


@pytest.mark.parametrize(
    ("value", "error", "words"),
    [
        (True, TypeError, "constants['beta'] must be a number, got True (bool)"),
        (np.bool_(False), TypeError, "constants['beta'] must be a number"),
        ("1.5", TypeError, "constants['beta'] must be a number, got '1.5' (str)"),
        (float("nan"), ValueError, "constants['beta'] must be finite, got nan"),
        (
            1e39,
            ValueError,
            "constants['beta'] = 1e+39 does not fit the kernels' float32",
        ),
        (1e-50, ValueError, "does not fit the kernels' float32"),
    ],
)
def test_a_constant_the_kernels_cannot_hold_is_refused(value, error, words) -> None:
    with pytest.raises(error) as info:
        ActivationEditor(constants={"beta": value})
    message = str(info.value)
    assert message.startswith("ActivationEditor: ") and words in message
    assert "{'beta': 1.0}" in message or error is ValueError


@pytest.mark.parametrize("value", [np.float32(2.5), symnb.learnable(2.5)])
def test_numbers_and_learnables_are_kept_and_plotted(value) -> None:
    # (a constant the formula lacks, once the case's "unused" learnable, is refused:
    # tests/widgets/test_editor_unknown_constants.py)
    editor = ActivationEditor(constants={"beta": value})
    try:
        assert editor.constants == {"beta": 2.5}
        assert editor.error is None
        curves = editor.curves()
        x = curves["x"].astype(np.float64)
        reference = x / (1.0 + np.exp(-2.5 * x))
        np.testing.assert_allclose(curves["f"], reference, rtol=1e-5, atol=1e-6)
    finally:
        editor.close()


@pytest.mark.parametrize(
    ("key", "error", "words"),
    [
        ("x", ValueError, "constants['x']: x is the formula's input"),
        ("a b", ValueError, "constants key 'a b' is no constant name"),
        ("_hidden", ValueError, "constants key '_hidden' is no constant name"),
        ("lambda", ValueError, "constants key 'lambda' is no constant name"),
        (1, TypeError, "constants keys are constant names (text), got 1 (int)"),
    ],
)
def test_a_key_no_formula_can_use_is_refused(key, error, words) -> None:
    """{'x': 2.0}, {'a b': 1.0} or {1: 2.0} were kept and never used: the slider
    the user meant to set never appeared, without a word."""
    with pytest.raises(error) as info:
        ActivationEditor(constants={key: 2.0})
    assert str(info.value).startswith("ActivationEditor: ")
    assert words in str(info.value)
