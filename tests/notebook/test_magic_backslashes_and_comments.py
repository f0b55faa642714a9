"""Backslashes and comments in ``%%symact`` cells read as Python reads them.

A ``def`` whose returned expression was continued with ``\\`` reached the formula
parser as "x + \\ 1" ("unexpected character after line continuation character"); a
comment inside a multi-line returned expression reached it as a product ("missing
'*' between 'a' and 'comment'"); a comment line inside a ``\\``-continued
definition cut the formula off, and its next line was read as a new definition
("a definition must start with a name"). A backslash in a comment is part of the
comment (ignored); a continued line may not end at an empty line (Python's rule),
and a continuation that splits ``name(...)`` says so."""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from symnb import FormulaError
from symnb.notebook.syntax import parse_cell


def _run(shell, body: str) -> None:
    with capture_output():
        shell.run_cell_magic("symact", "--no-plot --no-compile", body)


def _at_two(act) -> float:
    return float(act.compile("numpy", dtype="float64").forward(np.array([2.0]))[0])


@pytest.mark.parametrize(
    "cell",
    [
        "# a \\ comment\nf(x) = x*3\n",
        "# a comment ending in a backslash \\\nf(x) = x*3\n",
        "f(x) = x*3  # a trailing comment \\\n",
        "f(x) = x + \\\n  # a comment inside the continuation \\\n  2*x\n",
        "f(x) = x + \\  # a comment after the backslash\n  2*x\n",
        "f(x) = x + \\   \n  2*x\n",  # spaces after the backslash
    ],
    ids=["comment", "comment-ends", "trailing", "inside", "after", "spaces"],
)
def test_comments_are_ignored_and_continuations_join(shell, cell) -> None:
    _run(shell, cell)
    assert _at_two(shell.user_ns["f"]) == 6.0  # 3x at x = 2


@pytest.mark.parametrize(
    "cell",
    [
        "def f(x):\n    # a \\ comment\n    return x*3\n",
        "def f(x):\n    return x + \\\n        2*x\n",
        "def f(x):\n    return (x +  # a comment \\\n            2*x)\n",
        "def f(x):\n    return (x +  # one\n            # two \\\n            2*x)\n",
    ],
    ids=["comment-line", "continuation", "comment-in-parens", "comment-lines"],
)
def test_python_functions_read_as_python_reads_them(shell, cell) -> None:
    _run(shell, cell)
    assert _at_two(shell.user_ns["f"]) == 6.0


def test_a_continuation_into_an_empty_line_is_refused_at_the_backslash() -> None:
    with pytest.raises(FormulaError) as info:
        parse_cell("f(x) = x + \\\n\n  1\n")
    err = info.value
    assert err.line == 2 and err.column == 12  # the backslash on cell line 2
    assert "line continuation '\\' on line 2 is followed by an empty line" in str(err)


def test_a_cell_ending_in_a_continuation_and_comments_is_refused() -> None:
    with pytest.raises(FormulaError, match=r"the cell ends after a line continuation"):
        parse_cell("f(x) = x + \\\n# only a comment follows\n")


def test_a_continuation_that_splits_the_head_says_so(shell) -> None:
    with pytest.raises(UsageError, match=r"a line continuation '\\' split them"):
        _run(shell, "g(x; a=\\\n1) = a*x\n")
