"""A data formula too long or too deep for Python's parser is a FormulaError.

The Playground's data formula (its text box, ``config={"dataset": "formula",
"data_formula": ...}`` and ``DataSource.from_formula``) parsed the text with
``ast.parse`` to tell a condition from a formula before the safe parser's limits ran:
100,000 unary minus or ``not`` raised a bare MemoryError, 100,000 terms or a 1 MB text
RecursionError (the text box's handler caught only ValueError/TypeError, so the error
left the widget). The GUIDE asks for a quick FormulaError naming the limit.
"""

from __future__ import annotations

import time

import pytest

from symnb.errors import FormulaError
from symnb.widgets.data_source import DataSource

HOSTILE = {
    "unary_minus": "-" * 100_000 + "x1",
    "not_chain": "not " * 100_000 + "x1 > 0",
    "sum": "+".join(["x1"] * 100_000),
    "one_megabyte": "x1+" * 350_000 + "x2",
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_data_formulas_are_formula_errors(case):
    start = time.perf_counter()
    with pytest.raises(FormulaError, match="too long"):
        DataSource.from_formula(HOSTILE[case])
    assert time.perf_counter() - start < 10


def test_the_text_box_shows_the_error(case="unary_minus"):
    from symnb.widgets import Playground

    playground = Playground()
    try:
        playground.data_formula.value = HOSTILE[case]
        assert "too long" in playground.status.value
    finally:
        playground.close()


@pytest.mark.parametrize(
    "text, problem",
    [
        ("x2 > sin(2*x1)", "classification"),
        ("x1 > 0 and x2 > 0", "classification"),
        ("x1*x2", "regression"),
    ],
    ids=["condition", "and", "formula"],
)
def test_ordinary_formulas_still_read(text, problem):
    assert DataSource.from_formula(text).problem == problem
