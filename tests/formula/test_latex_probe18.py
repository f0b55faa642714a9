"""LaTeX as researchers paste it (probe 18): each text reads as the formula it typesets.

Each case failed before: refusals of LaTeX with one reading (Iverson's bracket
``[x > 0]`` typed without a command, which read as code's indexing; ``x \\vee 0``, the
lattice max; ``\\begin{rcases}``; macros with arguments; HTML's ``&gt;`` from a web
page's source; ``a \\text{ if } c, b \\text{ otherwise}``; German and French case
words), and silent misreadings: a definition sign inside Iverson's bracket,
``x[x = 0] + x``, cut as the formula's ``=``; a function defined after the formula
(``x\\sigma(x), \\text{with } \\sigma(x) = ...``) and an approximation typed with '='
(``x\\Phi(x) = 0.5x(1 + \\tanh ...)``), each read as the last side alone. The compiled f is judged in float64 against the published formula
written in NumPy, and f' against a central difference.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
import scipy.special

import symnb
from symnb.errors import FormulaError
from tests.formula.latex_judge import assert_reads_as

XS = np.array([-2.3, -1.0, -0.7, -0.1, 0.0, 0.35, 0.5, 1.2, 2.0, 3.1])
sigmoid = scipy.special.expit


def relu(x):
    return np.maximum(x, 0.0)


def leaky(x):
    return np.where(x > 0, x, 0.1 * x)


#: (LaTeX, constants, reference in NumPy)
CASES = [
    # Iverson's bracket, 1 where its condition holds (Knuth's notation): typed
    # without a command it read as code, "indexing is not allowed"
    (r"x[x > 0]", {}, relu),
    (r"x[x>0] + 0.1x[x<=0]", {}, leaky),
    (r"[x > 0] + x", {}, lambda x: (x > 0) + x),  # alone: "comparisons not allowed"
    (r"x [x = 0] + x", {}, lambda x: x),  # its '=' was cut as the definition sign
    (r"f(x) = x\,[x \ge 0 \land x < 1.5]", {}, lambda x: x * ((x >= 0) & (x < 1.5))),
    (r"x \llbracket x > 0 \rrbracket", {}, relu),  # stmaryrd's bracket
    # the lattice operations between values: max and min (were refused)
    (r"x \vee 0", {}, relu),
    (r"(x \vee 0) \wedge 1.5", {}, lambda x: np.clip(x, 0, 1.5)),
    (r"\log(1 + (x \vee 0))", {}, lambda x: np.log1p(relu(x))),
    (r"2x \vee -x", {}, lambda x: np.maximum(2 * x, -x)),
    (  # a case's value beside comparisons (was "operator '|' is not allowed")
        r"\begin{cases} x \vee 0.25 & x > -1.5 \\ 0 & \text{otherwise} \end{cases}",
        {},
        lambda x: np.where(x > -1.5, np.maximum(x, 0.25), 0),
    ),
    # mathtools' rcases: each row a value and its condition, as cases (was refused)
    (r"f(x) = \begin{rcases} x & x > 0 \\ 0.1x & x \le 0 \end{rcases}", {}, leaky),
    (r"\begin{drcases} x & x > 0 \\ 0 & \text{otherwise} \end{drcases}", {}, relu),
    # macros with arguments, written out as TeX puts the arguments in (were refused)
    (r"\newcommand{\sq}[1]{#1^2} \sq{x} + \sq x", {}, lambda x: 2 * x * x),
    (r"\newcommand{\f}[2]{\frac{#1}{#2}} \f{x}{2} + \f x4", {}, lambda x: 0.75 * x),
    (r"\newcommand{\sq}[1]{\left(#1\right)^2} \sq{x+1}", {}, lambda x: (x + 1) ** 2),
    (r"\newcommand{\abs}[1]{\lvert#1\rvert} \abs{x - 1}", {}, lambda x: np.abs(x - 1)),
    (r"\def\g#1#2{#1\sigma(#2)} \g{x}{1.5x}", {}, lambda x: x * sigmoid(1.5 * x)),
    (
        r"\newcommand{\s}[2][1]{\sigma(#1 #2)} x\s{x} + \s[2]{x}",
        {},
        lambda x: x * sigmoid(x) + sigmoid(2 * x),
    ),  # an optional first argument and its default
    (r"\newcommand{\n}[1]{#1\tanh(#1)} \n{-x}", {}, lambda x: -x * np.tanh(-x)),
    (r"\newcommand{\e}[0]{e^{x}} \e - 1", {}, np.expm1),  # [0]: none, as LaTeX
    # HTML escapes of LaTeX copied from a web page's source (were refused)
    (
        r"\begin{cases} x &amp; x &gt; 0 \\ 0 &amp; \text{otherwise} \end{cases}",
        {},
        relu,
    ),
    (r"x\,[x &gt;= 0]", {}, relu),
    # a chain of equal forms: one function (each side compared, the last read)
    (r"f(x) = \max(0, x) = \frac{x + |x|}{2}", {}, relu),
    (r"f(x) = \ln(1+e^x) = x + \ln(1 + e^{-x})", {}, lambda x: np.logaddexp(0, x)),
    (  # a thin space \, before \sigma(x) is no comma of a definition after it
        "$$\\begin{align}\nf(x) &= x\\,\\sigma(x) \\\\\n&= \\frac{x}{1+e^{-x}}\\end{align}$$",
        {},
        lambda x: x * sigmoid(x),
    ),
    # a highlighted or labelled part: the part (were refused)
    (
        r"\begin{equation} \boxed{x\tanh(x)} \end{equation}",
        {},
        lambda x: x * np.tanh(x),
    ),
    (r"\underbrace{x}_{\text{input}}\,\sigma(x)", {}, lambda x: x * sigmoid(x)),
    (r"\overbrace{x\sigma(x)}^{\text{Swish}} + 1", {}, lambda x: x * sigmoid(x) + 1),
    (
        r"\textcolor{red}{x}\sigma(x) + {\color{blue} x}",
        {},
        lambda x: x * sigmoid(x) + x,
    ),
    (r"x\sigma(x) \quad \text{(Swish)}", {}, lambda x: x * sigmoid(x)),  # its name
    (r"x^{2}_{} + x", {}, lambda x: x * x + x),  # an empty subscript sets nothing
    # a map's value after "x \mapsto" (was "states a constant's value: declare x")
    (
        r"f: \mathbb{R} \to \mathbb{R},\ x \mapsto x\tanh(x)",
        {},
        lambda x: x * np.tanh(x),
    ),
    # "a if c, b otherwise" and "otherwise" for else, as sentences say it (were
    # "'if' outside \begin{cases} has no reading")
    (r"x \quad \text{if } x > 0, \quad 0.1x \quad \text{otherwise}", {}, leaky),
    (r"x \text{ if } x > 0 \text{ otherwise } 0.1x", {}, leaky),
    (
        r"x \text{ if } x \in [0, 1.5), 0 \text{ otherwise}",
        {},
        lambda x: x * ((x >= 0) & (x < 1.5)),
    ),
    (
        r"x \text{ if } x > 1,\ 0.5x \text{ if } x > 0,\ 0.1x \text{ otherwise}",
        {},
        lambda x: np.where(x > 1, x, np.where(x > 0, 0.5 * x, 0.1 * x)),
    ),
    # case words in German and French (were unknown symbols, or non-ASCII refused)
    (
        r"\begin{cases} x & \text{falls } x > 0 \\ 0 & \text{sonst} \end{cases}",
        {},
        relu,
    ),
    (
        r"\begin{cases} x & \text{si } x > 0 \\ 0.1x & \text{sinon} \end{cases}",
        {},
        leaky,
    ),
    (
        r"\begin{cases} x & \text{für } x > 0 \\ 0.1x & \text{für } x \le 0 \end{cases}",
        {},
        leaky,
    ),
]


@pytest.mark.parametrize(("latex", "constants", "reference"), CASES)
def test_latex_reads_as_the_typeset_formula(latex, constants, reference):
    """f is the reference; f' its central difference (off the kinks at 0)."""
    assert_reads_as(latex, constants, reference, XS)


@pytest.mark.parametrize(
    ("latex", "message"),
    [
        # an argument that TeX puts in without brackets next to a power or a factor:
        # TeX sets x+1^2 (what the paper shows, rarely what its author meant)
        (
            r"\newcommand{\sq}[1]{#1^2} \sq{x+1}",
            r"is set as 'x\+1\^2'.*\\sq\{\(x\+1\)\}",
        ),
        (r"\newcommand{\t}[1]{2#1} \t{x-1}", r"is set as '2x-1'"),
        (r"\newcommand{\sq}[1]{#1^2} \sq{-x}", r"is set as '-x\^2'"),
        (
            r"\newcommand{\sq}[1]{#1^2} \sq",
            r"ends before an argument of the macro \\sq",
        ),
        (r"\newcommand{\d}[1]{\d{#1}\d{#1}} \d{x}", "longer than 20000 characters"),
        (r"\newcommand{\a}[1]{#2} \a{x}", r"uses #2 but takes 1 argument"),
        # join and meet whose order with + or each other is unstated
        (r"x \vee 0 + 1", r"a side of \\vee holds a sum"),
        (r"x \vee 0 \wedge 1", r"\\vee and \\wedge meet without brackets"),
        (r"x \vee", r"\\vee lacks a side"),
        # prose "or" between two formulas is no max (only \vee, \lor are)
        (r"x\sigma(x) \text{ or } x\tanh(x)", r"'and'/'or' join conditions here"),
        # \middle| sets a conditional or a set's bar (was "\middle has no formula
        # reading" with the generic advice to type the part as code)
        (r"\left( x \middle| y \right)", r"a conditional p\(a \\middle\| b\) or a set"),
        # a function the formula uses, defined after it: the last '=' started the
        # formula, read silently as the sigmoid alone (x\sigma(x) was lost)
        (
            r"x\sigma(x), \quad \text{with } \sigma(x) = \frac{1}{1+e^{-x}}",
            r"after the formula defines a function the formula uses",
        ),
        (
            r"\mathrm{GELU}(x) = x\Phi(x) \text{ where } \Phi(x) = \frac12[1+x]",
            r"'\\Phi\(x\) = .*' after the formula defines a function",
        ),
        # a constant's value in brackets after the formula (was "a ')' closes
        # nothing"; no indicator [beta = 1.702] of round brackets)
        (
            r"x\sigma(\beta x) \quad (\beta = 1.702)",
            r"'\\beta = 1.702\)' after the formula states a constant's value",
        ),
        # an approximation written with '=' in a chain of equal forms: the last side
        # was read silently (the tanh GELU for x Phi(x))
        (
            r"x\Phi(x) = 0.5x(1+\tanh[\sqrt{2/\pi}(x+0.044715x^3)])",
            r"the sides 'x\\Phi\(x\)' and .* of '=' differ",
        ),
        # a sentence's "if" without the comma before the other value
        (r"x \text{ if } x > 0 \text{ otherwise}", "type a comma after c"),
        (r"x \text{ if } x > 0, x < 1, 0 \text{ otherwise}", r"join .* by \\land"),
    ],
)
def test_latex_without_one_reading_is_refused_naming_the_part(latex, message):
    with pytest.raises(FormulaError, match=message):
        symnb.Activation(latex)


def test_function_named_like_a_case_word_is_no_case_word():
    """\\operatorname{Si} is no French "si" (only \\text words are translated)."""
    with pytest.raises(FormulaError, match="unknown function 'Si'"):
        symnb.Activation(r"\operatorname{Si}(x)")


def test_macro_arguments_that_double_are_refused_quickly():
    """A macro that doubles its argument, nested 15 deep: 2**15 copies."""
    latex = r"\newcommand{\a}[1]{#1#1} " + r"\a{" * 15 + "x" + "}" * 15
    start = time.perf_counter()
    with pytest.raises(FormulaError, match="longer than 20000 characters"):
        symnb.Activation(latex)
    assert time.perf_counter() - start < 3.0


def test_accepted_formulas_render():
    """f and f' of formulas read from an Iverson bracket, a lattice max and a macro
    with arguments render as LaTeX of bounded length."""
    for latex in (
        r"x[x > 0] + 0.1x[x \le 0]",
        r"(x \vee 0) \wedge 6",
        r"\newcommand{\sq}[1]{#1^2} \sq{\tanh(x)}",
    ):
        act = symnb.Activation(latex)
        assert 0 < len(act.latex) < 300, latex
        assert 0 < len(act.derivative_latex) < 400, latex
