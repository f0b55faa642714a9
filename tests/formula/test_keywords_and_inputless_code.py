"""Python keywords typed as names, and pasted functions without an input or with
too few (a hostile-input probe, 2026-12-06).

``symnb.Activation("x*c", **{"lambda": 1.0})`` said "constant name 'lambda' is not a
valid name; use letters, digits and '_', starting with a letter" (it is letters);
``Activation("lambda*x")`` said "syntax error: invalid syntax; the formula ends too
early"; ``def f(): return 1``, ``def f(*x)``, a ``forward(self)`` and ``async def``
were read as formula text: "syntax error: invalid syntax" at column 1; a pasted loss
``def l(p): return p**2`` was "unknown symbol 'p' (did you mean 'pi'?)".
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import FormulaError

XS = np.linspace(-3.0, 3.0, 13)

#: pasted functions with no input, and what the refusal must say
INPUTLESS = [
    ("def f():\n    return 1", "function f has no input"),
    ("def f(*x):\n    return x", "*args and **kwargs are not inputs"),
    ("def f(k=1.0):\n    return k", "function f has no input"),
    ("class F:\n    def forward(self):\n        return 1", "def forward(self, x)"),
]


@pytest.mark.parametrize("name", ["lambda", "in", "None", "class"])
def test_a_keyword_constant_name_is_named_with_a_rename(name):
    with pytest.raises(FormulaError) as info:
        symnb.Activation("x*c", c=1.0, **{name: 2.0})
    assert f"{name!r} is a Python keyword" in info.value.message
    assert f"{name}_" in info.value.suggestion
    # the rename it proposes works
    act = symnb.Activation(f"x*{name}_", **{f"{name}_": 2.0})
    got = act.compile("numpy", dtype="float64").forward(XS)
    np.testing.assert_allclose(got, 2.0 * XS, rtol=1e-15)


@pytest.mark.parametrize(
    ("text", "word", "column"),
    [("lambda*x", "lambda", 1), ("x*in", "in", 3), ("x**(1 + is)", "is", 9)],
)
def test_a_keyword_in_the_formula_is_named_where_it_stands(text, word, column):
    with pytest.raises(FormulaError) as info:
        symnb.Activation(text)
    err = info.value
    assert f"{word!r} is a Python keyword" in err.message
    assert err.column == column
    assert "ends too early" not in (err.suggestion or "")


@pytest.mark.parametrize(("text", "words"), INPUTLESS)
def test_a_pasted_function_without_an_input_says_so(text, words):
    with pytest.raises(FormulaError) as info:
        symnb.Activation(text)
    assert words in info.value.message
    assert "invalid syntax" not in info.value.message


def test_an_async_function_is_read_as_a_function():
    act = symnb.Activation("async def f(x, k=2.0):\n    return k*x*x")
    got = act.compile("numpy", dtype="float64").forward(XS)
    np.testing.assert_allclose(got, 2.0 * XS * XS, rtol=1e-15)


@pytest.mark.parametrize("text", ["def l(p):\n    return p**2", "lambda p: p**2"])
def test_a_pasted_loss_with_one_input_says_a_loss_takes_two(text):
    """It was "unknown symbol 'p' (did you mean 'pi'?)"."""
    with pytest.raises(FormulaError) as info:
        symnb.Loss(text)
    assert "takes one input (p); a loss takes two" in info.value.message
    assert "pi" not in info.value.message


def test_a_pasted_loss_with_two_inputs_still_reads():
    loss = symnb.Loss("def l(p, t):\n    return (p - t)**2")
    pred, target = np.array([0.25, 2.0, -1.0]), np.array([1.0, 0.5, -1.0])
    got = loss.compile("numpy", dtype="float64").value(pred, target)
    np.testing.assert_allclose(got, np.mean((pred - target) ** 2), rtol=1e-15)
