"""LaTeX as researchers paste it (probe 16): each text reads as the formula it typesets.

Each case failed before: a silently different function (``\\log 2\\, x`` read as
log(2x); an aligned display of two formulas read as its last line), or a refusal of
LaTeX that has a reading (finite sums and products with whole-number bounds, an aligned
display's continued line, plain TeX's spacing and numbering). The compiled f is judged
in float64 against the published formula written in NumPy, and f' against a central
difference of it.
"""

from __future__ import annotations

import re
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
    # a finite sum or product with whole-number bounds: its terms (was "\sum has no
    # formula reading")
    (r"\sum_{k=1}^{3} x^k", {}, lambda x: x + x**2 + x**3),
    (r"\sum_{k=0}^{3}\frac{x^k}{k!}", {}, lambda x: 1 + x + x**2 / 2 + x**3 / 6),
    (
        r"\sum_{i=1}^{2} a_i x^i",
        {"a_1": 0.5, "a_2": -2.0},
        lambda x: 0.5 * x - 2 * x**2,
    ),
    (
        r"\sum\limits_{k=1}^{3} \frac{\sin(kx)}{k}",
        {},
        lambda x: np.sin(x) + np.sin(2 * x) / 2 + np.sin(3 * x) / 3,
    ),
    (r"\prod_{k=1}^{3}(1+x/k)", {}, lambda x: (1 + x) * (1 + x / 2) * (1 + x / 3)),
    (r"\sum_{k=1}^{2} x^k + 1", {}, lambda x: x + x**2 + 1),  # the 1 is added once
    # the summand goes on over '/' and '\cdot' (TeX's order), bounds in either order
    (r"\sum_{k=1}^{3} x^k/k - 1", {}, lambda x: x + x**2 / 2 + x**3 / 3 - 1),
    (r"\sum^{2}_{k=1} k \cdot x^k", {}, lambda x: x + 2 * x**2),
    (
        r"\sum_{s=1}^{2}\operatorname{softplus}(sx)",  # the s of softplus is no index
        {},
        lambda x: softplus(x) + softplus(2 * x),
    ),
    (
        r"\displaystyle\sum_{j=1}^{2}\sum_{k=1}^{2} x^{j+k}",
        {},
        lambda x: x**2 + 2 * x**3 + x**4,
    ),
    # a space ends a function's unbracketed argument (was log(2x), tanh(x beta x), cos(theta x))
    (r"\log 2\, x", {}, lambda x: np.log(2) * x),
    (r"\ln 3\;x^2 + x", {}, lambda x: np.log(3) * x * x + x),
    (r"\tanh x\,\beta x", {"beta": 2.0}, lambda x: np.tanh(x) * 2 * x),
    (r"\cos\theta\, x", {"theta": 0.5}, lambda x: np.cos(0.5) * x),
    # an aligned display's continued line (was "LaTeX command \\ has no reading")
    (
        r"\begin{aligned} f(x) &= x \\ &\quad + x^2 \end{aligned}",
        {},
        lambda x: x + x * x,
    ),
    (r"f(x) &= \tanh x \\ & \\ &+ 1", {}, lambda x: np.tanh(x) + 1),  # '&' only
    (
        r"\begin{align*} f(x) &= 1.0507 \\ &\times x\,\sigma(x) \end{align*}",
        {},
        lambda x: 1.0507 * x * sigmoid(x),
    ),
    # plain TeX's numbering and kerns, punctuation after $...$ (were refused)
    (r"f(x) = x\sigma(x) \eqno(3)", {}, lambda x: x * sigmoid(x)),
    (r"$\tanh(x)$.", {}, np.tanh),
    (r"\[ \tanh(x) \],", {}, np.tanh),
    (r"x\mkern2mu\tanh(x) + x\kern-1pt", {}, lambda x: x * np.tanh(x) + x),
    # an empty group, limits typed on max (were a tuple, max((0, x)))
    (r"x^{2}{} - x", {}, lambda x: x * x - x),
    (r"\max\limits(0,x)", {}, lambda x: np.maximum(x, 0)),
    (r"\operatorname*{max}_{}(0,x) + x", {}, lambda x: np.maximum(x, 0) + x),
    # plain TeX's binomial, a case's condition after "&:" (were refused)
    (r"{4 \choose 2} x", {}, lambda x: 6 * x),
    (r"\binom 42 x", {}, lambda x: 6 * x),  # TeX's one-token arguments
    (r"\prod_{k=1}^{0}(1 + x) + x", {}, lambda x: 1 + x),  # an empty product is 1
    (
        r"\begin{cases} x &: x > 0 \\ 0.1x &: x \leq 0 \end{cases}",
        {},
        lambda x: np.where(x > 0, x, 0.1 * x),
    ),
    # a comma between a case's comparisons is "and" (was x > 0*x < 1: x > 0), a
    # comma inside its brackets stays (was max(0*x), refused as a batch maximum)
    (
        r"\begin{cases} x & x > 0, x < 1.1 \\ 0 & \text{otherwise} \end{cases}",
        {},
        lambda x: np.where((x > 0) & (x < 1.1), x, 0.0),
    ),
    (
        r"\begin{cases} x^2 & \max(0, x) > 0.6, \\ 0 & \text{otherwise}\end{cases}",
        {},
        lambda x: np.where(x > 0.6, x * x, 0.0),
    ),
    # a tie ~ (a space), mathtools' cases* with its conditions in text (were refused)
    (r"x~\sigma(x)", {}, lambda x: x * sigmoid(x)),
    (
        r"\begin{cases*} x & if $x > 0$ \\ 0.2x & otherwise \end{cases*}",
        {},
        lambda x: np.where(x > 0, x, 0.2 * x),
    ),
]


@pytest.mark.parametrize(("latex", "constants", "reference"), CASES)
def test_latex_reads_as_the_typeset_formula(latex, constants, reference):
    """f is the reference; f' its central difference (off the kinks at 0)."""
    assert_reads_as(latex, constants, reference, XS)


@pytest.mark.parametrize(
    ("latex", "message"),
    [
        # two formulas on two lines (was read as the last one, g)
        (
            r"\begin{aligned} f(x) &= \frac{x}{2} \\ g(x) &= x \end{aligned}",
            r"'f\(x\) = \\frac\{x\}\{2\}' and 'g\(x\) = x' are two formulas",
        ),
        (r"x\sigma(x) \\ \tanh(x)", "are two formulas"),
        # one case with a condition (was read as its value everywhere)
        (r"\begin{cases} x & x > 0 \end{cases}", "one case with a condition"),
        (r"x^{} + 1", r"an argument \{\} is empty"),  # was "tuples are not allowed"
        (
            r"\begin{cases} x & x > 0, \text{ all } \\ 0 & \text{otherwise} \end{cases}",
            "parts after a comma that compare nothing",
        ),
        # a sum without whole-number bounds, or too long to write out
        (r"\sum_{k=1}^{N} x^k", r"without whole-number bounds"),
        (r"\sum_{k=1}^{100} x^k", "more than 50 terms"),
        (r"\sum_{k=1}^10 x^k", r"brace the bound of \\sum: \^\{10\}"),
        # a doubled backslash, as a Python string without r'' gives it
        (r"x\\sigma(x)", r"'\\\\sigma' has a doubled backslash"),
    ],
)
def test_latex_without_a_reading_is_refused_naming_the_part(latex, message):
    with pytest.raises(FormulaError, match=message):
        symnb.Activation(latex, **({"N": 3.0} if "N" in latex else {}))


@pytest.mark.parametrize(
    ("latex", "message"),
    [
        # 30 nested sums of 2 terms: 2**30 terms (was a parse exponential in depth)
        (
            "".join(rf"\sum_{{{c}=1}}^{{2}}" for c in "abcdfghjlmnopqrstuvwABCDEFGHIJ")
            + "x",
            "more than 200 terms",
        ),
        # a long summand written out 50 times: refused as it is written
        (
            r"\sum_{k=1}^{50}\left(" + "+".join([r"\tanh(kx)"] * 1500) + r"\right)",
            "written out is too long",
        ),
    ],
)
def test_sums_too_large_to_write_out_are_refused_quickly(latex, message):
    start = time.perf_counter()
    with pytest.raises(FormulaError, match=message):
        symnb.Activation(latex)
    assert time.perf_counter() - start < 3.0


def test_sum_and_aligned_formula_render():
    """f and f' of an accepted sum render as LaTeX of bounded length."""
    act = symnb.Activation(r"\sum_{k=1}^{3}\frac{x^k}{k}")
    assert 0 < len(act.latex) < 200
    assert 0 < len(act.derivative_latex) < 200


@pytest.mark.parametrize(
    ("latex", "value"),
    [
        (r"x\cdot 10^{300}", 1e300),
        (r"\frac{x}{10^{250}}", 1e-250),
        (r"2^{100}x", 2.0**100),
        (r"x/3^{40}", 3.0**-40),
    ],
)
def test_a_long_whole_number_prints_as_a_power_of_ten(latex, value):
    """f and f' of a huge or tiny exact constant render as mantissa and power of ten
    (was all its digits: 10^300 printed with 301), and read back as the constant."""
    for text in (
        symnb.Activation(latex).latex,
        symnb.Activation(latex).derivative_latex,
    ):
        assert len(text) < 80, text
        m = re.search(r"(?:([\d.]+) \\cdot )?10\^\{(\d+)\}", text)
        assert m is not None, text
        shown = float(m.group(1) or 1) * 10.0 ** int(m.group(2))
        shown = 1 / shown if value < 1 else shown
        assert shown == pytest.approx(value, rel=1e-13), text
