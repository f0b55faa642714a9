"""LaTeX as researchers paste it (probe 17): each text reads as the formula it typesets.

Each case failed before: a silently different constant (``1\\,000`` read as 1*000 = 0,
``1.\\!702`` as 702, ``3 2`` as 6, ``1{,}000`` as 1.000), or a refusal of LaTeX that
has a reading (macros a paper defines, ``\\bm{x}``, ``\\Biggl(``, ``50\\%``, a Markdown
code fence, ``%`` comments, a trailing ``\\\\``). The compiled f is judged in float64
against the published formula written in NumPy, and f' against a central difference.
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
import scipy.special

import symnb
from symnb.errors import FormulaError
from tests.formula.latex_judge import assert_reads_as

XS = np.array([-2.3, -1.0, -0.7, -0.1, 0.0, 0.35, 0.5, 1.0, 1.2, 2.0, 3.1])
sigmoid = scipy.special.expit


def softplus(x):
    return np.logaddexp(0.0, x)


#: (LaTeX, constants, reference in NumPy)
CASES = [
    # digits grouped by a thin space, or a kern inside a number: one number, as TeX
    # sets it (were products: 1*000 = 0, 1.*5, 702*x)
    (r"1\,000 x", {}, lambda x: 1000 * x),
    (r"\tanh(x) + 1~000", {}, lambda x: np.tanh(x) + 1000),
    (r"\frac{x}{1\,000\,000} + x", {}, lambda x: x / 1e6 + x),
    (r"x\sigma(1.\!702 x)", {}, lambda x: x * sigmoid(1.702 * x)),
    (r"1\!.\!5 x", {}, lambda x: 1.5 * x),
    (r"0.044\,715 x^3 + x", {}, lambda x: 0.044715 * x**3 + x),
    (r"\frac{x}{1\,000.5}", {}, lambda x: x / 1000.5),
    (r"1\,000{,}5\,x", {}, lambda x: 1000.5 * x),  # SI grouping, a decimal comma
    (r"\tanh(x) + 1 000", {}, lambda x: np.tanh(x) + 1000),  # TeX drops the space
    (r"\frac{x}{1{,}000{,}000}", {}, lambda x: x / 1e6),  # was "tuples are not allowed"
    # per cent (was a syntax error)
    (r"50\% x", {}, lambda x: 0.5 * x),
    (r"x \cdot 5\,\%", {}, lambda x: 0.05 * x),
    # macros a paper defines before its formula, written out (were refused)
    (r"\newcommand{\relu}{\max(0,x)} 2\relu", {}, lambda x: 2 * np.maximum(x, 0)),
    (r"\def\a{2} \a x", {}, lambda x: 2 * x),
    (r"\renewcommand\e{\exp} \e x", {}, np.exp),
    (
        r"\DeclareMathOperator{\sp}{softplus} x\tanh(\sp(x))",
        {},
        lambda x: x * np.tanh(softplus(x)),
    ),
    (
        "\\newcommand{\\R}{\\mathbb{R}}\n\\newcommand{\\sig}{\\sigma}\nx\\sig(x)",
        {},
        lambda x: x * sigmoid(x),
    ),
    # a vector's fonts and TeX's largest sizes (were refused)
    (r"\bm{x} \sigma(\bm{x})", {}, lambda x: x * sigmoid(x)),
    (r"\vec{x}^2 + 1", {}, lambda x: x * x + 1),
    (r"\boldsymbol{\beta} x", {"beta": 2.0}, lambda x: 2 * x),
    (r"\Biggl[ x \Biggr]^2 + \bigm| x \bigm|", {}, lambda x: x * x + np.abs(x)),
    (r"\scriptstyle x\,\sign(x)", {}, np.abs),
    # what wraps a pasted formula: a code fence, comments, a row's end (were refused)
    ("```latex\nx\\tanh(x)\n```", {}, lambda x: x * np.tanh(x)),
    ("% Swish\nx\\sigma(x) % the SiLU", {}, lambda x: x * sigmoid(x)),
    (r"x^2 \\", {}, lambda x: x * x),  # was read as code: a syntax error
    (r"{e^x}^2 - x", {}, lambda x: np.exp(2 * x) - x),  # was "sets are not allowed"
    # "for all x" after the formula states its domain (were refused)
    (r"f(x) = x^2 \text{ for all } x \in \mathbb{R}", {}, lambda x: x * x),
    (r"x\tanh(x),\ \forall x.", {}, lambda x: x * np.tanh(x)),
    # an equation number after a wide space (was a factor: 2 times the formula)
    (r"x\sigma(x)\;\;(2)", {}, lambda x: x * sigmoid(x)),
    (r"x\sigma(x)~~(2)", {}, lambda x: x * sigmoid(x)),
    (r"x\sigma(x)\hspace{1cm}(2)", {}, lambda x: x * sigmoid(x)),
    (r"x\sigma(x) \quad (2.1).", {}, lambda x: x * sigmoid(x)),
    (r"\tanh(x) \qquad [3]", {}, np.tanh),
    (r"\sigma(x)\,(1 - \sigma(x))", {}, lambda x: sigmoid(x) * sigmoid(-x)),  # a factor
    # a slash's divisor with its power, then an operator: no product after it
    (
        r"\sqrt{2/\pi}\,x + x/2^{3} \cdot x",
        {},
        lambda x: np.sqrt(2 / np.pi) * x + x * x / 8,
    ),
    # an interval in a condition with if/else (was "'else' ... has no reading")
    (
        r"x^2 \text{ if } x \in [0, 1.1) \text{ else } -x",
        {},
        lambda x: np.where((x >= 0) & (x < 1.1), x * x, -x),
    ),
]


@pytest.mark.parametrize(("latex", "constants", "reference"), CASES)
def test_latex_reads_as_the_typeset_formula(latex, constants, reference):
    """f is the reference; f' its central difference (off the kinks at 0)."""
    assert_reads_as(latex, constants, reference, XS)


def test_bold_prediction_is_the_prediction():
    """\\hat{\\mathbf{y}} is y_hat (was refused)."""
    pred = np.array([0.05, 0.3, 0.5, 0.7, 0.95])
    true = np.array([1.0, 0.0, 0.5, 0.25, 1.0])
    kernel = symnb.Loss(r"(\mathbf{y} - \hat{\mathbf{y}})^2").compile(
        backend="numpy", dtype="float64"
    )
    np.testing.assert_allclose(kernel.value(pred, true), ((true - pred) ** 2).mean())


@pytest.mark.parametrize(
    ("latex", "message"),
    [
        # digits after a space that are no group of three: TeX sets one number (were
        # products, 3*2*x and sin(6))
        (r"3 2\,x", r"the numbers 3 and 2 .* one number, 32"),
        (r"\sin 2 3", r"the numbers 2 and 3"),
        (r"12\,34 x", r"type \\cdot between them for a product"),
        # one {,} group ending in 0: a decimal comma or thousands (was 1.000)
        (r"1{,}000 x", r"1\.000 with a decimal comma or 1000 with a thousands"),
        # a macro with arguments, one that calls itself (were "\newcommand has no
        # formula reading")
        (r"\def\sq#1.{#1^2} \sq x.", r"the macro \\sq takes delimited arguments"),
        (r"\def\a{\a\a} \a x", "longer than 20000 characters"),
        (r"\newcommand{\b}{\b} x\b", "expand without end"),
        # a comment that reads as the rest of a formula: a remainder typed as code
        (r"x\sigma(x) % 2", r"'2' reads as the formula's rest: type \\bmod"),
        # one small space before a number in brackets: a number or a factor (was x*2)
        (r"x\sigma(x)\,(2)", r"is an equation number or a factor"),
        # a factor juxtaposed after a slash's divisor: 1/(2 sigma^2) to papers, was
        # (x^2/2) sigma^2 (Python's order), silently
        (r"\exp(-x^2/2\sigma^2)", r"'/2\*sigma\*\*\(2\)' divides by 2 and multiplies"),
        (r"1/2\,x", r"divides by all of 2\*x \(most papers\)"),
        (r"x/-2\,\sigma(x)", r"type \\frac\{...\}\{-2\*sigmoid\(x\)\}"),
        # a lattice max/min between values (was "operator '|' is not allowed")
        (r"\log(x \vee 10^{-12} + 1)", r"holds a sum .* type \\max"),
        # the range stated after the formula (was "operator '&' is not allowed")
        (r"\sigma(x) = \frac{1}{1+e^{-x}} \in (0, 1)", r"states the formula's range"),
    ],
)
def test_latex_without_one_reading_is_refused_naming_the_part(latex, message):
    with pytest.raises(FormulaError, match=message):
        symnb.Activation(latex)


def test_macros_that_double_are_refused_quickly():
    """30 macros each using the next twice: 2**30 copies, refused by length."""
    names = [f"m{chr(97 + k // 26)}{chr(97 + k % 26)}" for k in range(31)]
    latex = "".join(rf"\def\{a}{{\{b}\{b}}}" for a, b in itertools.pairwise(names))
    start = time.perf_counter()
    with pytest.raises(FormulaError, match="longer than 20000 characters"):
        symnb.Activation(latex + rf"\def\{names[-1]}{{x}}\{names[0]}")
    assert time.perf_counter() - start < 3.0


def test_accepted_formulas_render():
    """f and f' of a formula read from macros and grouped digits render as LaTeX of
    bounded length."""
    act = symnb.Activation(r"\newcommand{\k}{1\,000} \tanh(x/\k)")
    assert 0 < len(act.latex) < 200
    assert 0 < len(act.derivative_latex) < 300
