"""Formulas copied with Unicode math symbols, and absolute values typed as bars
(symnb.formula.unicode_math).

A look-alike character stays refused by name with the ASCII to type (the guide's
rule), and the refusal now also gives the whole formula retyped in ASCII: that
retyping is judged here by compiling it and comparing with the published definition
(float64). ``|x|`` typed as bars was a bare "invalid syntax"; it is read as abs.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, ndtr

import symnb
from symnb.errors import FormulaError

XS = np.linspace(-6.0, 6.0, 49)

#: (copied text, constants, the published definition)
COPIED = [
    ("x·σ(βx)", {"beta": 1.5}, lambda x: x * expit(1.5 * x)),
    ("x × σ(β·x)", {"beta": 0.7}, lambda x: x * expit(0.7 * x)),
    ("x·tanh(ln(1 + eˣ))", {}, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (
        "max(0, x) − 0.1·max(0, −x)",
        {},
        lambda x: np.maximum(x, 0) - 0.1 * np.maximum(-x, 0),
    ),
    ("√(1 + x²) − 1", {}, lambda x: np.sqrt(1 + x**2) - 1),
    ("x⋅Φ(x)", {}, lambda x: x * ndtr(x)),
    ("α·(e^x − 1)", {"alpha": 1.2}, lambda x: 1.2 * np.expm1(x)),
    ("λ·x·e^(−x²)", {"lambd": 2.0}, lambda x: 2.0 * x * np.exp(-(x**2))),
    ("x³ ÷ (1 + x²)", {}, lambda x: x**3 / (1 + x**2)),
    # names of several characters stay names (beta2 was retyped b*e*t*a*2: LaTeX
    # reads letters side by side as a product)
    ("beta2·x − x", {"beta2": 1.5}, lambda x: 1.5 * x - x),
    ("c_1·tanh(x) − x", {"c_1": 0.5}, lambda x: 0.5 * np.tanh(x) - x),
    ("softplus(x) − log(2)", {}, lambda x: np.logaddexp(0, x) - np.log(2)),
]


@pytest.mark.parametrize(("text", "constants", "reference"), COPIED)
def test_a_copied_formula_is_refused_with_its_ascii_retyping(
    text, constants, reference
):
    with pytest.raises(FormulaError) as info:
        symnb.Activation(text, **constants)
    err = info.value
    assert "U+" in err.message and "instead" in err.message  # the character, named
    marker = "the whole formula in ASCII: "
    assert marker in err.suggestion
    retyped = err.suggestion.split(marker, 1)[1]
    act = symnb.Activation(retyped, **constants)
    got = act.compile("numpy", dtype="float64").forward(XS)
    np.testing.assert_allclose(got, reference(XS), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("x/(1 + |x|)", lambda x: x / (1 + np.abs(x))),
        ("|x| - |x - 1|", lambda x: np.abs(x) - np.abs(x - 1)),
        ("x * |x|", lambda x: x * np.abs(x)),
    ],
)
def test_bars_are_an_absolute_value(text, reference):
    got = symnb.Activation(text).compile("numpy", dtype="float64").forward(XS)
    np.testing.assert_allclose(got, reference(XS), rtol=1e-13, atol=1e-15)


def test_a_condition_or_is_not_a_pair_of_bars():
    act = symnb.Activation("np.where((x > 1) | (x < -1), x, 0)")
    got = act.compile("numpy", dtype="float64").forward(XS)
    np.testing.assert_array_equal(got, np.where(np.abs(XS) > 1, XS, 0))


def test_a_comment_may_hold_math_symbols_but_no_invisible_characters():
    act = symnb.Activation("x*sigmoid(x)  # x·σ(x), Elfwing et al.")
    np.testing.assert_allclose(
        act.compile("numpy", dtype="float64").forward(XS), XS * expit(XS), rtol=1e-13
    )
    with pytest.raises(FormulaError, match="U\\+202E"):
        symnb.Activation("x  # \u202e hidden")


def test_a_character_with_no_reading_gets_no_retyping():
    with pytest.raises(FormulaError) as info:
        symnb.Activation("x\U0001f642")
    assert "whole formula" not in (info.value.suggestion or "")


def test_a_data_formula_keeps_its_input_names():
    """x1, x2 of a Playground data formula were retyped as x*1, x*2."""
    from symnb.widgets.data_source import DataSource

    with pytest.raises(FormulaError) as info:
        DataSource.from_formula("x2 > \u2212x1")
    retyped = info.value.suggestion.split("the whole formula in ASCII: ", 1)[1]
    assert DataSource.from_formula(retyped).problem == "classification"
    act = symnb.Activation("x + " + retyped.replace(">", "-"), x1=0.5, x2=1.0)
    # x + x2 - (-x1): both names read as the constants they are
    got = act.compile("numpy", dtype="float64").forward(XS)
    np.testing.assert_allclose(got, XS + 1.5, rtol=1e-15)
