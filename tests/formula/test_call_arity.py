"""Formula functions called with the wrong number of arguments are refused by name.

Before, ``sqrt(x, 0)`` was read as ``sqrt(x)`` (SymPy's ``evaluate`` flag took the
second argument) and ``relu(x, 1)`` leaked "_relu() takes 1 positional argument".
"""

import inspect

import pytest
import sympy as sp

import symnb
from symnb.errors import FormulaError
from symnb.formula import library
from symnb.formula.functions import ALLOWED_FUNCTIONS
from symnb.formula.parse import call_arity

#: Independent expectations: the mathematical arities (SymPy's for its classes).
EXPECTED = {
    "sqrt": (1, 1),
    "cbrt": (1, 1),
    "exp": (1, 1),
    "log": (1, 2),
    "ln": (1, 2),
    "log2": (1, 1),
    "log10": (1, 1),
    "Heaviside": (1, 2),
    "heaviside": (1, 2),
    "clip": (3, 3),
    "clamp": (3, 3),
    "where": (3, 3),
    "relu": (1, 1),
    "sech": (1, 1),
    "Max": (1, None),
    "min": (1, None),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_arity_table(name):
    assert call_arity(ALLOWED_FUNCTIONS[name]) == EXPECTED[name]


def _one_argument(name: str) -> bool:
    fn = ALLOWED_FUNCTIONS[name]
    nargs = getattr(fn, "nargs", None) if isinstance(fn, type) else None
    if nargs is not None:
        return nargs == sp.FiniteSet(1)
    params = [
        p for p in inspect.signature(fn).parameters.values() if p.name != "evaluate"
    ]
    return len(params) == 1


#: softplus(x, beta) etc. are library activations whose constants may follow x
WITH_CONSTANTS = {n for n, e in library.ACTIVATIONS.items() if e.constants}
ONE_ARGUMENT = sorted(
    n for n in ALLOWED_FUNCTIONS if _one_argument(n) and n not in WITH_CONSTANTS
)


def test_most_functions_take_one_argument():
    # guards the parametrisation below against an empty list
    assert {"exp", "sqrt", "tanh", "sigmoid", "relu", "cbrt", "erf"} <= set(
        ONE_ARGUMENT
    )


@pytest.mark.parametrize("name", ONE_ARGUMENT)
def test_a_second_argument_is_refused_by_name(name):
    with pytest.raises(FormulaError) as err:
        symnb.Activation(f"{name}(x, 0)")
    assert f"{name} takes 1 argument, 2 given" in err.value.message
    assert err.value.column == 1
    assert "positional argument" not in str(err.value)


@pytest.mark.parametrize(
    "text, message",
    [
        ("log(x, 2, 3)", "log takes 1 to 2 arguments, 3 given"),
        ("Heaviside(x, 0.5, 1)", "Heaviside takes 1 to 2 arguments, 3 given"),
        ("sqrt(x, 0)", "sqrt takes 1 argument, 2 given"),
    ],
)
def test_too_many_arguments(text, message):
    with pytest.raises(FormulaError, match=message):
        symnb.Activation(text)


def test_allowed_arities_still_build():
    x = sp.Symbol("x", real=True)
    got = symnb.Activation("log(1 + x**2, 2)").expr
    for v in (0.5, 3.0, -7.0):
        assert float(got.subs(x, v)) == pytest.approx(float(sp.log(1 + v**2, 2)))
    assert symnb.Activation("Heaviside(x, 0.5)").expr == sp.Heaviside(x, 0.5)
    assert symnb.Activation("Max(x, 0, -1)").expr == sp.Max(x, 0)
    assert symnb.Activation("clip(x, -1, 1)").expr == sp.Min(1, sp.Max(-1, x))
