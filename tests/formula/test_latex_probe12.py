"""LaTeX as researchers paste it (probe 12): each text reads as the formula it typesets.

Each case failed before (a silently different function, or a refusal of LaTeX that
has a reading): the compiled f is judged in float64 against the published formula
written in NumPy/SciPy, at points of both signs.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.special

import symnb
from symnb.errors import FormulaError

XS = np.array([-2.3, -0.7, -0.1, 0.35, 1.2, 3.1])
sigmoid = scipy.special.expit

#: (LaTeX, constants, reference in NumPy)
CASES = [
    # TeX's one-token argument: \frac12 is 1/2 (was 12/x; x^{\frac12} was refused)
    (r"\frac12 x", {}, lambda x: x / 2),
    (r"\frac{x^{\frac12}}{2} + 1", {}, lambda x: np.sqrt(x) / 2 + 1),
    # an unbracketed argument ends at the next function (was sin(x*cos(x)))
    (r"\sin x \cos x", {}, lambda x: np.sin(x) * np.cos(x)),
    (r"\tanh x\,\sigma(x)", {}, lambda x: np.tanh(x) * sigmoid(x)),
    # an odd root is real below 0 (was x**(1/3): NaN for x < 0)
    (r"\sqrt[3]{x}", {}, np.cbrt),
    (r"\sqrt[5]{x - 1}", {}, lambda x: np.sign(x - 1) * np.abs(x - 1) ** 0.2),
    # bars as a function's argument (was "log has no argument")
    (r"\ln|x| + 1", {}, lambda x: np.log(np.abs(x)) + 1),
    (r"\log\left|x\right|", {}, lambda x: np.log(np.abs(x))),
    # a trailing spacing command (its ',' was taken for a sentence's comma)
    (r"x\,\sigma(x)\,", {}, lambda x: x * sigmoid(x)),
    # a case ended by ';', a piecewise as \left\{ matrix \right.
    (
        r"\begin{cases} x & \text{if } x > 0; \\ 0.1x & \text{otherwise.}\end{cases}",
        {},
        lambda x: np.where(x > 0, x, 0.1 * x),
    ),
    (
        r"\left\{\begin{matrix} x & x>0 \\ 0 & x \le 0 \end{matrix}\right.",
        {},
        lambda x: np.maximum(x, 0),
    ),
    # \approx and \mapsto define like '=', a stated domain is no factor
    (
        r"\operatorname{GELU}(x) \approx 0.5x(1+\tanh(\sqrt{2/\pi}(x+0.044715x^3)))",
        {},
        lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
    ),
    (r"x \mapsto x\sigma(x)", {}, lambda x: x * sigmoid(x)),
    (r"\frac{1}{1+e^{-x}} \text{ for } x \in \mathbb{R}", {}, sigmoid),
    (r"\tanh(x) \quad (x \in \mathbb{R})", {}, np.tanh),
    # display environments, labels and equation numbers (an equation's (2) is no 2x)
    (
        r"\begin{equation*} f(x) = x\sigma(x) \label{eq:swish} \end{equation*}",
        {},
        lambda x: x * sigmoid(x),
    ),
    (
        r"\begin{aligned} f(x) &= x\sigma(x) \\ \end{aligned}",
        {},
        lambda x: x * sigmoid(x),
    ),
    (r"x\sigma(x) \tag{3}", {}, lambda x: x * sigmoid(x)),
    (r"x\sigma(x) \qquad (2)", {}, lambda x: x * sigmoid(x)),
    # \sigma before a sized bracket is the sigmoid (was "unknown symbol 'sigma'")
    (r"x\cdot\sigma\big(\beta x\big)", {"beta": 2.0}, lambda x: x * sigmoid(2 * x)),
    (r"x\,\sigma\bigg(x\bigg)", {}, lambda x: x * sigmoid(x)),
    # a subscripted Greek constant as declared (\lambda_1 was read as lambd_1)
    (
        r"\lambda_1 x + \lambda_2 x^2",
        {"lambda_1": 0.1, "lambda_2": 0.2},
        lambda x: 0.1 * x + 0.2 * x**2,
    ),
    # more fraction commands and product signs
    (r"\cfrac{1}{1+e^{-x}}", {}, sigmoid),
    (r"\nicefrac{1}{2}x", {}, lambda x: x / 2),
    (r"x \bullet \sigma(x) \cdotp 2", {}, lambda x: 2 * x * sigmoid(x)),
    # reciprocal functions
    (r"\sech^2(x)", {}, lambda x: 1 / np.cosh(x) ** 2),
    (r"x\coth(1 + x^2)", {}, lambda x: x / np.tanh(1 + x**2)),
    (
        r"\sec x + \csc(x) - \cot x",
        {},
        lambda x: 1 / np.cos(x) + 1 / np.sin(x) - 1 / np.tan(x),
    ),
    # an unbracketed argument ends at '/' as at \div (was tanh(x/2))
    (r"\tanh x / 2 + \ln x/4", {}, lambda x: np.tanh(x) / 2 + np.log(x) / 4),
    # conditions joined by and/or (were refused: \land, or 'x>0*and*x<1')
    (
        r"\begin{cases} x & x > 0 \land x < 1 \\ 0 & \text{otherwise}\end{cases}",
        {},
        lambda x: np.where((x > 0) & (x < 1), x, 0.0),
    ),
    (
        r"\begin{cases} x & x < -1 \text{ or } x > 1 \\ 0 & \text{otherwise}\end{cases}",
        {},
        lambda x: np.where((x < -1) | (x > 1), x, 0.0),
    ),
    (
        r"x\,\mathbb{1}_{x > -1 \wedge x \le 1} + \mathbb{1}\{x < 0 \vee x > 2\}",
        {},
        lambda x: np.where((x > -1) & (x <= 1), x, 0.0) + ((x < 0) | (x > 2)),
    ),
]


@pytest.mark.parametrize(("latex", "constants", "reference"), CASES)
def test_latex_reads_as_the_typeset_formula(latex, constants, reference):
    k = symnb.Activation(latex, **constants).compile(backend="numpy", dtype="float64")
    with np.errstate(all="ignore"):
        expected = reference(XS.copy())
        got = k.forward(XS.copy())
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14, err_msg=latex)


@pytest.mark.parametrize(
    ("latex", "message"),
    [
        # the failing construct, where it is, and what to type
        (r"{1 \over 2} x", r"type \{a \\over b\} as \\frac\{a\}\{b\} \(at '\{1 \\over"),
        (r"\cot^{-1}(x)", r"\\cot\^\{-1\} .*atan\(1/x\)"),
        (
            r"x\sigma(x) + \infty",
            r"\\infty has no formula reading outside .*\(at '.*\+ \\infty'\)",
        ),
        # a prime, \phi(x): what they are and what to type (were "''' has no
        # formula reading", "unknown symbol 'phi' (did you mean 'pi'?)")
        (r"x\sigma'(x)", r"a prime ' \(a derivative\).*symnb derives f'"),
        (r"x\phi(x)", r"normal density.*exp\(-x\*\*2/2\)/sqrt\(2\*pi\)"),
        # only the last case may lack a condition (was: the first row, everywhere)
        (r"\begin{cases} x \\ 0 \end{cases}", "case 1 of 2 has no condition"),
        (
            r"\begin{cases} 0 & \text{otherwise} \\ x & x > 0 \end{cases}",
            "case 1 of 2 has no condition",
        ),
    ],
)
def test_latex_refusal_names_the_construct_and_where(latex, message):
    with pytest.raises(FormulaError, match=message):
        symnb.Activation(latex)


def _katex_safe(latex: str) -> None:
    """No Python syntax leaks into the LaTeX, and its braces balance."""
    assert "**" not in latex and "Piecewise(" not in latex and "_symnb" not in latex
    depth = 0
    for ch in latex.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, latex
    assert depth == 0, latex


def test_latex_of_a_huge_constant_prints_its_power_of_ten():
    """1e30 (read as a 100-bit Float) printed as 31 digits, 1000...0.0."""
    act = symnb.Activation("1e30*x - 2.5e-40 + 1e16*x**2")
    for latex in (act.latex, act.derivative_latex):
        _katex_safe(latex)
        assert not re.search(r"\d{12,}", latex), latex
    assert "10^{30}" in act.latex and "10^{-40}" in act.latex
    assert "10^{16}" in act.latex


def test_latex_of_a_keyword_escaped_constant_is_its_letter():
    """lambda_ printed as \\lambda_{} (an empty subscript)."""
    act = symnb.Activation("lambda_*x + alpha_*x**2", lambda_=1.05, alpha_=1.67)
    for latex in (act.latex, act.derivative_latex):
        _katex_safe(latex)
        assert "_{}" not in latex, latex
    assert r"\lambda x" in act.latex and r"\alpha x^{2}" in act.latex


def test_a_power_keeps_its_number():
    """Only a fraction's argument is one digit (\\frac12): x^12 typed so is x^{12}."""
    k = symnb.Activation(r"x^12 \cdot \alpha", alpha=0.5).compile(
        backend="numpy", dtype="float64"
    )
    np.testing.assert_allclose(k.forward(XS.copy()), 0.5 * XS**12, rtol=1e-12)


@pytest.mark.parametrize(
    ("latex", "reference"),
    [
        # a norm's index (was "a subscript '_' follows no name")
        (r"\frac{1}{2}\|y-\hat y\|_2^2", lambda p, t: (t - p) ** 2 / 2),
        (r"\left\|y - \hat{y}\right\|_{1}", lambda p, t: np.abs(t - p)),
        # a subscript in \text (was y_text times t*r*u*e)
        (r"(y_{\text{true}} - y_{\mathrm{pred}})^2", lambda p, t: (t - p) ** 2),
        # the batch mean with its minus (was "\sum has no formula reading")
        (
            r"-\frac{1}{N}\sum_{i=1}^N \left[y_i\log\hat{y}_i + (1-y_i)\log(1-\hat{y}_i)\right]",
            lambda p, t: -t * np.log(p) - (1 - t) * np.log(1 - p),
        ),
    ],
)
def test_latex_loss_reads_as_typeset(latex, reference):
    yp = np.array([0.05, 0.3, 0.5, 0.7, 0.95])
    yt = np.array([1.0, 0.0, 0.5, 0.25, 1.0])
    k = symnb.Loss(latex).compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(k.value(yp, yt), reference(yp, yt).mean(), rtol=1e-12)
