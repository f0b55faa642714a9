"""LaTeX as researchers paste it (probe 15): each text reads as the formula it typesets.

Each case failed before: a number in scientific notation read as Euler's e (a silently
different function), a refusal of LaTeX that has a reading, or a refusal whose message
named the wrong fix. The compiled f is judged in float64 against the published formula
written in NumPy, and f' against a central difference of it.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import symnb
from symnb.errors import FormulaError
from tests.formula.latex_judge import assert_reads_as

XS = np.array([-2.3, -1.0, -0.7, -0.1, 0.0, 0.35, 0.5, 1.0, 1.2, 2.0, 3.1])
sigmoid = scipy.special.expit


#: (LaTeX, constants, reference in NumPy)
CASES = [
    # scientific notation as code writes it (was 1*e - 8: sqrt(x^2 + e - 8), NaN
    # near 0; x*1*e*8)
    (r"\sqrt{x^2 + 1e-8}", {}, lambda x: np.sqrt(x * x + 1e-8)),
    (r"\sqrt{x^2+1E-3}", {}, lambda x: np.sqrt(x * x + 1e-3)),
    (r"x \cdot 1e3 + \sigma(x)", {}, lambda x: 1e3 * x + sigmoid(x)),
    (r"\frac{x}{1e-2 + |x|}", {}, lambda x: x / (1e-2 + np.abs(x))),
    (r"2.5e-1\,x + e^{x}", {}, lambda x: 0.25 * x + np.exp(x)),
    # ... and with an upright e and a braced exponent (was 1*e*(-8))
    (r"\sqrt{x^2 + 1\mathrm{e}{-8}}", {}, lambda x: np.sqrt(x * x + 1e-8)),
    (r"2.5\text{e}{2}\,x - \mathrm{e}^{x}", {}, lambda x: 250 * x - np.exp(x)),
    # siunitx's \num (was "\num has no formula reading")
    (r"\sqrt{x^2+\num{1e-8}} - \num{1.5}", {}, lambda x: np.sqrt(x * x + 1e-8) - 1.5),
    # a decimal point set as {.} (was read as code: "leading zeros ... 0507")
    (r"1{.}0507x", {}, lambda x: 1.0507 * x),
    (r"1{.}0507\,\tanh x", {}, lambda x: 1.0507 * np.tanh(x)),
    # braces and brackets typed by name (was "\lbrace has no formula reading")
    (r"\max\lbrace 0, x\rbrace", {}, lambda x: np.maximum(x, 0)),
    (
        r"\min\left\lbrace x, \lbrack 1 + x \rbrack^2 \right\rbrace",
        {},
        lambda x: np.minimum(x, (1 + x) ** 2),
    ),
    # an indicator's sized bracket (was "an indicator \mathbb{1} needs its condition")
    (r"x\mathbf{1}\left[x>0\right]", {}, lambda x: np.where(x > 0, x, 0)),
    (r"x\,\mathbb{1}\bigl(x \le 0\bigr)", {}, lambda x: np.where(x <= 0, x, 0)),
    # a row's extra space \\[2pt] (was "unknown symbol 'p'", from (2*p*t)*0)
    (
        r"\begin{cases} x & x>0 \\[2pt] 0.1x & \text{otherwise}\end{cases}",
        {},
        lambda x: np.where(x > 0, x, 0.1 * x),
    ),
    (
        r"\begin{cases} x & x>0 \\ [0.5em] e^x - 1 & x \le 0\end{cases}",
        {},
        lambda x: np.where(x > 0, x, np.expm1(x)),
    ),
    # punctuation in \text (was "\text{} has no formula reading")
    (
        (
            r"\begin{cases} x & \text{if } x \ge 0 \text{,}\\ 0 & "
            r"\text{otherwise.}\end{cases}"
        ),
        {},
        lambda x: np.maximum(x, 0),
    ),
    # a definition sign with "def" over it (was "\stackrel has no formula reading"),
    # a sentence's \text{, } at the end (was a tuple)
    (
        r"\operatorname{ReLU}(x) \stackrel{\text{def}}{=} \max(0,x) - x",
        {},
        lambda x: np.maximum(x, 0) - x,
    ),
    (r"f(x) \overset{\mathrm{def}}{=} x\sigma(x)", {}, lambda x: x * sigmoid(x)),
    (r"x\sigma(1.702x)\text{, }", {}, lambda x: x * sigmoid(1.702 * x)),
    # \epsilon for a declared eps, as \lambda for lam (was "unknown symbol 'epsilon'")
    (r"\frac{x}{\epsilon + |x|}", {"eps": 0.1}, lambda x: x / (0.1 + np.abs(x))),
    (r"\varepsilon x + x^2", {"eps": 0.5}, lambda x: 0.5 * x + x * x),
]


@pytest.mark.parametrize(("latex", "constants", "reference"), CASES)
def test_latex_reads_as_the_typeset_formula(latex, constants, reference):
    """f is the reference; f' its central difference (off the kinks at 0)."""
    assert_reads_as(latex, constants, reference, XS)


def test_a_loss_with_a_guard_in_scientific_notation():
    """-y log(y_hat + 1e-7) was -y log(y_hat + e - 7): NaN for every prediction."""
    pred = np.array([0.05, 0.3, 0.5, 0.7, 0.95])
    true = np.array([1.0, 0.0, 0.5, 0.25, 1.0])
    kernel = symnb.Loss(
        r"-y\log(\hat y + 1e-7) - (1-y)\log(1 - \hat{y} + 1e-7)"
    ).compile(backend="numpy", dtype="float64")
    expected = (
        -true * np.log(pred + 1e-7) - (1 - true) * np.log(1 - pred + 1e-7)
    ).mean()
    np.testing.assert_allclose(kernel.value(pred, true), expected, rtol=1e-12)


def test_euler_e_next_to_a_number_is_still_e():
    """Only e followed by digits is an exponent: 2e^{x}, 2e - x keep Euler's e, and
    an unbraced superscript is one token (x^2e-3 is x^{2} e - 3, as TeX sets it)."""
    k = symnb.Activation(r"2e^{x} + 3e - x + x^2e-3").compile(
        backend="numpy", dtype="float64"
    )
    expected = 2 * np.exp(XS) + 3 * np.e - XS + XS**2 * np.e - 3
    np.testing.assert_allclose(k.forward(XS.copy()), expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("latex", "message"),
    [
        # a named function symnb lacks (was "unknown symbol ... declare it as a
        # constant" for sinc*(x))
        (r"\operatorname{sinc}(x)", r"sinc is ambiguous: sin\(x\)/x .* sin\(pi\*x\)"),
        (r"\mathrm{sinc}\left(x\right)", r"sinc is ambiguous"),
        (r"x\operatorname{sigm}(x)", r"unknown function 'sigm' \(did you mean 'sigm"),
        # the negative part (was "syntax error" in x**(-); typed without braces it
        # was read as code, x^-+x as x**(-x): a silently different function)
        (r"x^{+} - x^{-}", r"negative part x\^- is max\(-x, 0\) .* or min\(x, 0\)"),
        (r"(1 - x)^- + x", r"negative part"),
        (r"x^- + x", r"negative part"),
        # the nearest integer (was "\rceil has no formula reading")
        (r"\lfloor x \rceil", r"nearest integer\) has no reading.*\\lfloor x \+"),
        (r"\num{1x10^-8}", r"\\num\{1x10\^-8\} has a reading only for a decimal"),
        # a constant's value stated after the formula (was read as the function
        # 1.702, the right side of the last '=')
        (
            r"x\sigma(\beta x), \quad \beta = 1.702",
            r"'\\beta = 1.702' after the formula states a constant's value: .*\(beta=",
        ),
        (r"x + a \text{ where } a = 2", r"'a = 2' after the formula states"),
        (r"x\sigma(\beta x)\text{, with }\beta=2", r"'\\beta=2' after the formula"),
        # a formula and its approximation (was the approximation alone)
        (
            r"x\cdot\Phi(x)\approx 0.5x(1+\tanh(\sqrt{2/\pi}(x+0.044715x^3)))",
            r"'x\\cdot\\Phi\(x\)' and the approximation after \\approx are two",
        ),
        (r"f(x) = x\Phi(x) \approx x\sigma(1.702x)", r"approximation after \\approx"),
    ],
)
def test_latex_refusal_names_the_construct_and_the_fix(latex, message):
    with pytest.raises(FormulaError, match=message):
        symnb.Activation(latex)


def test_a_loss_named_by_a_function_symnb_lacks():
    with pytest.raises(FormulaError, match=r"unknown function 'BCE'"):
        symnb.Loss(r"\operatorname{BCE}(\hat y, y)")
