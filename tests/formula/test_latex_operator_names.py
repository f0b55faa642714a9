"""Names of user activations in LaTeX: digits and underscores set as one word.

MathJax 3 (JupyterLab's) sets ``\\operatorname{base2}`` as "base 2" and
``\\operatorname{my\\_act3}`` as "my _ act 3" (seen in the lab's screenshot of a cell
calling other definitions), so such names print inside ``\\mathrm``; symnb's LaTeX
reader reads that form, and an escaped underscore, back as the name.
"""

from __future__ import annotations

import pytest
import sympy as sp

import symnb
from symnb.formula.latex import formula_latex
from symnb.formula.latex_input import translate

x = sp.Symbol("x")


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        ("base2", r"\operatorname{\mathrm{base2}}\left(x\right)"),
        ("my_act3", r"\operatorname{\mathrm{my\_act3}}\left(x\right)"),
        ("gelu", r"\operatorname{gelu}\left(x\right)"),  # letters only: as before
    ],
)
def test_called_names_print_as_one_word_and_read_back(name, printed):
    text = formula_latex(x * sp.Function(name)(x))
    assert printed in text
    assert translate(printed, ()) == f"{name}(x)"


@pytest.mark.parametrize(
    ("text", "read"),
    [
        (r"\operatorname{my\_act2}(x) + 1", "my_act2(x)+1"),
        (r"\mathrm{my\_act2}(x)", "my_act2(x)"),
        (r"\operatorname{\mathrm{swish}}(x)", "swish(x)"),
    ],
)
def test_escaped_underscores_and_nested_words_read_as_the_name(text, read):
    assert translate(text, ()) == read


def test_the_head_of_an_activation_named_with_digits():
    act = symnb.Activation("x*sigmoid(x)", name="act_2")
    assert r"\operatorname{\mathrm{act\_2}}(x) &=" in act._repr_latex_()
