"""The hint under a LaTeX error: the generic "type that part as code" only where
symnb has no reading of a command and no fix of its own to name.

Problems that name their fix (a number TeX sets as one, a factor after a slash's
divisor, a stated range, a macro with arguments, a cases display without an
otherwise) ended with that generic advice too, which contradicted them (review of
stop 43)."""

from __future__ import annotations

import pytest

import symnb

GENERIC = "type that part as code"

OWN_FIX = [
    (r"3 2\,x", "group digits in threes"),
    (r"\exp(-x^2/2\sigma^2)", r"type \frac{...}"),
    (r"\frac{1}{1+e^{-x}} \in (0, 1)", "type the formula alone"),
    (r"x \vee 0 + 1", r"type \max(a, b)"),
    (r"\newcommand{\f}[1]{#1^2} \f{x+1}", "with the macro written out"),
    (r"\begin{cases} x & x > 1 \\ -x & x < -1 \end{cases}", "add a case for those x"),
]


@pytest.mark.parametrize(("text", "fix"), OWN_FIX, ids=[t for t, _ in OWN_FIX])
def test_a_problem_with_its_own_fix_has_no_generic_hint(text, fix):
    with pytest.raises(symnb.FormulaError) as err:
        symnb.Activation(text, sigma=1.0) if "sigma" in text else symnb.Activation(text)
    message = str(err.value)
    assert fix in message
    assert GENERIC not in message


@pytest.mark.parametrize(
    ("text", "command"),
    [
        (r"\frobnicate{x}", r"\frobnicate"),
        (r"\begin{pmatrix} x \end{pmatrix}", r"\begin"),
    ],
)
def test_an_unread_command_suggests_code(text, command):
    with pytest.raises(symnb.FormulaError) as err:
        symnb.Activation(text)
    message = str(err.value)
    assert "has no formula reading" in message
    assert f"hint: {GENERIC}" in message and f"(first command: {command})" in message
