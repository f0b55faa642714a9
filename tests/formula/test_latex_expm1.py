"""LaTeX of formulas that the kernels compute with expm1 (``exp(x) - 1`` typed by users).

``exp(x) - 1`` displayed as ``\\left(e^{x} - 1\\right)``: brackets around the whole
formula (also as a numerator, a Piecewise branch, a function argument), unlike SymPy's own
LaTeX of the same expression. Brackets are now put only where a sum needs them; the signs
are judged by reading the LaTeX back with SymPy's LaTeX parser and comparing its values
with SymPy's expression of the text and its derivative.
"""

from __future__ import annotations

import pytest
import sympy as sp
from sympy.parsing.latex import parse_latex

import symnb

X = sp.Symbol("x", real=True)


def _reference(text: str) -> sp.Expr:
    """SymPy's expression of the text, expm1 written out (no symnb code)."""
    ns = {"x": X, "exp": sp.exp, "tanh": sp.tanh, "expm1": lambda u: sp.exp(u) - 1}
    return sp.parse_expr(
        text,
        local_dict=ns,
        global_dict={
            "__builtins__": {},
            "Integer": sp.Integer,
            "Float": sp.Float,
            "Rational": sp.Rational,
            "Symbol": sp.Symbol,
        },
    )


@pytest.mark.parametrize(
    "text", ["exp(x) - 1", "expm1(x)", "tanh(exp(x) - 1)", "exp(2*x) - 1"]
)
def test_latex_is_sympys_latex_of_the_text(text):
    assert symnb.Activation(text).latex == sp.latex(_reference(text))


# SymPy's lark LaTeX parser reads these unambiguously (it returns a parse forest for
# juxtaposed factors such as "2 e^{x} \\left(...\\right)")
ROUND_TRIP = [
    "exp(x) - 1",
    "x + expm1(x)",
    "-expm1(x)",
    "x - expm1(x)",
    "x/(1 + x**2) - expm1(x)",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_latex_reads_back_as_the_same_function(text):
    act = symnb.Activation(text)
    ref = _reference(text)
    for shown, want in ((act.latex, ref), (act.derivative_latex, sp.diff(ref, X))):
        back = parse_latex(shown, backend="lark")
        names = {"x": X, "e": sp.E}  # the parser reads e^{x} with a symbol e
        back = back.subs({s: names[s.name] for s in back.free_symbols})
        for x in (-1.3, 0.4, 2.2):
            got = complex(back.subs(X, x).evalf(30))
            expected = complex(want.subs(X, x).evalf(30))
            assert abs(got - expected) <= 1e-20 * max(1, abs(expected)), (
                text,
                shown,
                x,
            )
