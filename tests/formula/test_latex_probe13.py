"""LaTeX as researchers paste it (probe 13): each text reads as the formula it typesets.

Each case failed before (a silently different function, or a refusal of LaTeX that
has a reading): the compiled f is judged in float64 against the published formula
written in NumPy/SciPy, at points of both signs and at the kinks.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import symnb
from symnb.errors import FormulaError

XS = np.array([-2.3, -1.0, -0.7, -0.1, 0.0, 0.35, 0.5, 1.0, 1.2, 2.0, 3.1])
UNIT = np.array([0.02, 0.1, 0.35, 0.5, 0.8, 0.97])
sigmoid = scipy.special.expit


def _on(x, lo_ok, hi_ok, lo, hi):
    above = x >= lo if lo_ok else x > lo
    below = x <= hi if hi_ok else x < hi
    return above & below


#: (LaTeX, constants, points, reference in NumPy)
CASES = [
    # an unbraced superscript is one token, as TeX sets it (was e^{x y}, e^{a x})
    (r"e^x y\,", {"y": 0.5}, XS, lambda x: np.exp(x) * 0.5),
    (r"\beta e^ax", {"beta": 2.0, "a": 0.5}, XS, lambda x: 2 * np.exp(0.5) * x),
    (r"\frac ab x", {"a": 3.0, "b": 2.0}, XS, lambda x: 1.5 * x),
    # a spacing command marks LaTeX (was read as code: "syntax error")
    (r"|x|\,|x-1|", {}, XS, lambda x: np.abs(x) * np.abs(x - 1)),
    # \operatorname* (limits below), ISO's area functions (were refused, or arsinh*x)
    (r"\operatorname*{max}(0, x)", {}, XS, lambda x: np.maximum(x, 0)),
    (r"\operatorname{arsinh}(x)", {}, XS, np.arcsinh),
    (
        r"\operatorname{artanh}(x/4) + \operatorname{arcosh}(2 + x^2)",
        {},
        XS,
        lambda x: np.arctanh(x / 4) + np.arccosh(2 + x**2),
    ),
    # a whole number's factorial, a binomial coefficient of numbers (were refused)
    (
        r"x + \frac{x^3}{3!} + \frac{x^5}{5!}",
        {},
        XS,
        lambda x: x + x**3 / 6 + x**5 / 120,
    ),
    (r"\binom{4}{2} x^2", {}, XS, lambda x: 6 * x**2),
    # the positive part as a superscript (was x**(+): "syntax error")
    (r"x^+", {}, XS, lambda x: np.maximum(x, 0)),
    (
        r"(1 - x)^{+} + 2x^+",
        {},
        XS,
        lambda x: np.maximum(1 - x, 0) + 2 * np.maximum(x, 0),
    ),
    (r"\tanh(x)^+", {}, XS, lambda x: np.maximum(np.tanh(x), 0)),
    # braces around a function's bracket only group (was max((0, x)): "a maximum
    # over the batch")
    (
        r"\max{(0, x)} + \exp{(-x^2)}",
        {},
        XS,
        lambda x: np.maximum(x, 0) + np.exp(-x * x),
    ),
    # old-style \rm, \mathop, the library's names as papers capitalise them (were
    # "eLU has no argument", "\mathop has no formula reading", "unknown LeakyReLU")
    (
        r"{\rm ReLU}(x) + \mathop{\rm softplus}(x)",
        {},
        XS,
        lambda x: np.maximum(x, 0) + np.logaddexp(0, x),
    ),
    (r"\mathrm{LeakyReLU}(x)", {}, XS, lambda x: np.where(x > 0, x, 0.01 * x)),
    # \sigma^2(x), as \sin^2(x): the sigmoid squared (was "unknown symbol 'sigma'")
    (
        r"\sigma^2(x) + \sigma^{2}\left(-x\right)",
        {},
        XS,
        lambda x: sigmoid(x) ** 2 + sigmoid(-x) ** 2,
    ),
    # a if c else b, in Python's order (was "syntax error" in a*if*c*else*b), and
    # \text{where} as a condition's word (was the function where(x))
    (
        r"e^{x}-1 \text{ if } x<0 \text{ else } x",
        {},
        XS,
        lambda x: np.where(x < 0, np.expm1(x), x),
    ),
    (
        r"0 \text{ if } x < -1 \text{ else } x^3 \text{ if } x \le 1 \text{ else } 1",
        {},
        XS,
        lambda x: np.where(x < -1, 0, np.where(x <= 1, x**3, 1)),
    ),
    (
        r"\begin{cases} x & \text{where } x > 0 \\ 0 & \text{else}\end{cases}",
        {},
        XS,
        lambda x: np.maximum(x, 0),
    ),
    # \phi beside \Phi is the normal density (was refused as ambiguous)
    (
        r"\Phi(x) + x\phi(x)",
        {},
        XS,
        lambda x: scipy.special.ndtr(x) + x * np.exp(-x * x / 2) / np.sqrt(2 * np.pi),
    ),
    (
        r"\Phi(\beta x) - \beta\,\varphi\left(\beta x\right)",
        {"beta": 1.5},
        XS,
        lambda x: (
            scipy.special.ndtr(1.5 * x)
            - 1.5 * np.exp(-((1.5 * x) ** 2) / 2) / np.sqrt(2 * np.pi)
        ),
    ),
    # \sigma^{-1}: the logit (was "unknown symbol 'sigma'")
    (r"\sigma^{-1}(x)", {}, UNIT, scipy.special.logit),
    (
        r"\sigma^{-1}\left(\frac{1+x}{2}\right)",
        {},
        UNIT,
        lambda x: scipy.special.logit((1 + x) / 2),
    ),
    # a condition x \in an interval (was "\in has no formula reading")
    (
        r"\begin{cases} x & x \in [0, 1] \\ 0 & \text{otherwise} \end{cases}",
        {},
        XS,
        lambda x: np.where(_on(x, True, True, 0, 1), x, 0),
    ),
    (
        r"\begin{cases} x & \text{if } x \in (0, 1) \\ -1 & \text{else} \end{cases}",
        {},
        XS,
        lambda x: np.where(_on(x, False, False, 0, 1), x, -1),
    ),
    (
        r"\begin{cases} x & if\ x \in [-1, 1) \\ 2 & \text{otherwise} \end{cases}",
        {},
        XS,
        lambda x: np.where(_on(x, True, False, -1, 1), x, 2),
    ),
    (
        r"\begin{cases} x^2 & x \in [0, \infty) \\ 0 & \text{otherwise} \end{cases}",
        {},
        XS,
        lambda x: np.where(x >= 0, x**2, 0),
    ),
    (
        r"x\,\mathbb{1}[x \notin (-\infty, -1]]",
        {},
        XS,
        lambda x: np.where(x > -1, x, 0),
    ),
    (
        r"\mathbb{1}\{|x| \in ]0.5, 2[\}",
        {},
        XS,
        lambda x: _on(np.abs(x), False, False, 0.5, 2).astype(float),
    ),
]


@pytest.mark.parametrize(("latex", "constants", "points", "reference"), CASES)
def test_latex_reads_as_the_typeset_formula(latex, constants, points, reference):
    """The values are the reference's; the derivative's display renders."""
    act = symnb.Activation(latex, **constants)
    assert act.derivative_latex.strip()
    got = act.compile(backend="numpy", dtype="float64").forward(points.copy())
    np.testing.assert_allclose(
        got, reference(points.copy()), rtol=1e-12, atol=1e-14, err_msg=latex
    )


@pytest.mark.parametrize(
    ("latex", "message"),
    [
        # TeX's "Double superscript" (was e**((-x)**2): exp(x**2), silently)
        (
            r"e^{-x}^2",
            r"double superscript .*\{a\^b\}\^c or a\^\{b\^c\} \(at 'e\^\{-x\}\^2'\)",
        ),
        (r"\sin(x^2^3)", r"double superscript"),
        # f^{-1} of a function without an inverse here (was 1/erf(x), 1/ndtr(x):
        # silently the reciprocal)
        (r"\operatorname{erf}^{-1}(x)", r"erf\^\{-1\} \(the inverse function\).*1/erf"),
        (r"\Phi^{-1}(x)\,", r"\^\{-1\} \(the inverse function\)"),
        # a superscript's lone sign (was e**(-)*x: "syntax error")
        (r"e^-x\,", r"one token, here the sign '-' alone.*e\^\{-x\} \(not e\^-x\)"),
        (r"\sin^-1 x", r"one token, here the sign '-' alone"),
        (r"x^+x\,", r"one token, here the sign '\+' alone"),
        # a value for part of the line only (were "'for' is a Python keyword", and
        # tanh(x)*where(x) > 0)
        (r"x^2 \ \text{for}\ x>0", r"'for' outside \\begin\{cases\} .*otherwise"),
        (r"\tanh(x) \text{ where } x > 0", r"'where' outside \\begin\{cases\}"),
        (r"\sum_i (x - 1)^2", r"\\sum .*symnb takes the batch mean itself"),
        # a derivative, a factorial or binomial without a number: what to type
        (
            r"\frac{d}{dx}\,x\sigma(x)",
            r"derivative .*symnb derives f' .*\(at '\\frac\{d\}",
        ),
        (r"\frac{\partial}{\partial x}\tanh(x)", r"derivative .*symnb derives"),
        (r"\frac{x^{21}}{21!}", r"21! .*whole number up to 20: type its value"),
        (r"\binom{n}{2} x", r"\\binom\{n\}\{2\} .*whole numbers"),
        (
            r"\begin{cases} x & x \in \mathbb{R} \\ 0 \end{cases}",
            r"\\in .*x \\in \[a, b\]",
        ),
    ],
)
def test_latex_refusal_names_the_construct_and_where(latex, message):
    with pytest.raises(FormulaError, match=message):
        symnb.Activation(latex)


def test_x_to_the_plus_two_is_still_a_power():
    """Only a ^+ that ends its superscript is the positive part."""
    k = symnb.Activation("x^+2").compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(k.forward(XS.copy()), XS**2, rtol=1e-15)


def test_a_declared_sigma_to_the_minus_one_is_its_reciprocal():
    k = symnb.Activation(r"\sigma^{-1} x", sigma=4.0).compile(
        backend="numpy", dtype="float64"
    )
    np.testing.assert_allclose(k.forward(XS.copy()), XS / 4, rtol=1e-15)


@pytest.mark.parametrize(
    ("latex", "reference"),
    [
        # the expectation of the whole loss is the batch mean (was "\mathbb has no
        # formula reading")
        (r"\mathbb{E}[(y-\hat y)^2]", lambda p, t: (t - p) ** 2),
        (
            r"-\mathbb{E}_{x}\left[y\log\hat{y} + (1-y)\log(1-\hat{y})\right]",
            lambda p, t: -t * np.log(p) - (1 - t) * np.log(1 - p),
        ),
    ],
)
def test_latex_loss_is_the_batch_mean_of_its_summand(latex, reference):
    """The value is the reference's mean; the gradient its central difference."""
    pred = np.array([0.05, 0.3, 0.5, 0.7, 0.95])
    true = np.array([1.0, 0.0, 0.5, 0.25, 1.0])
    kernel = symnb.Loss(latex).compile(backend="numpy", dtype="float64")
    expected = reference(pred, true).mean()
    np.testing.assert_allclose(kernel.value(pred, true), expected, rtol=1e-12)
    h = 1e-6
    slope = (reference(pred + h, true) - reference(pred - h, true)) / (2 * h)
    np.testing.assert_allclose(
        kernel.gradient(pred, true), slope / pred.size, rtol=1e-6, atol=1e-9
    )


def test_an_expectation_of_a_part_is_refused():
    with pytest.raises(FormulaError, match=r"\\mathbb\{E\} .*whole loss"):
        symnb.Loss(r"\mathbb{E}[y] - \hat{y}")
