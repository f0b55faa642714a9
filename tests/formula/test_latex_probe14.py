"""LaTeX as researchers paste it (probe 14): each text reads as the formula it typesets.

Each case failed before (a refusal of LaTeX that has a reading, or an error that
named no construct): the compiled f is judged in float64 against the published
formula written in NumPy/SciPy, and f' against a central difference of it.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import symnb
from symnb.errors import FormulaError

XS = np.array([-2.3, -1.0, -0.7, -0.1, 0.0, 0.35, 0.5, 1.0, 1.2, 2.0, 3.1])
sigmoid = scipy.special.expit


def _normal(x, mean, variance):
    return np.exp(-((x - mean) ** 2) / (2 * variance)) / np.sqrt(2 * np.pi * variance)


#: (LaTeX, constants, reference in NumPy)
CASES = [
    # a norm's double bar \| (was read as code: "unexpected character")
    (r"\|x\|^3 - x", {}, lambda x: np.abs(x) ** 3 - x),
    # spacing commands (were "\thinspace has no formula reading"), a control space
    # at the end (was "LaTeX command \ has no formula reading")
    (r"x\thinspace\sigma(x)", {}, lambda x: x * sigmoid(x)),
    (r"x \enspace \tanh x\negthinspace", {}, lambda x: x * np.tanh(x)),
    (r"x\hspace{1em}\sigma(x) + x\hspace*{2pt}x", {}, lambda x: x * sigmoid(x) + x * x),
    (r"\ x\medspace\sigma(x)\ ", {}, lambda x: x * sigmoid(x)),
    # braces around an operator only space it (was x*(*)*sigmoid(x): syntax error)
    (r"x{\cdot}\sigma(x)", {}, lambda x: x * sigmoid(x)),
    # a decimal comma as TeX sets it (was "syntax error")
    (r"0{,}5x\left(1+\tanh x\right)", {}, lambda x: 0.5 * x * (1 + np.tanh(x))),
    (r"x\,\sigma(1{,}702x)", {}, lambda x: x * sigmoid(1.702 * x)),
    # a subscript + on a name: the positive part, as (x)_+ (was refused)
    (r"x_{+} - 0.1\,(-x)_+", {}, lambda x: np.maximum(x, 0) - 0.1 * np.maximum(-x, 0)),
    (r"x_+^2", {}, lambda x: np.maximum(x, 0) ** 2),
    # a library function's one parameter as its subscript (was "a subscript '_'
    # follows no name")
    (
        r"\mathrm{ELU}_\alpha(x)",
        {"alpha": 0.5},
        lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)),
    ),
    (
        r"\operatorname{LeakyReLU}_{0.2}\left(x\right)",
        {},
        lambda x: np.where(x > 0, x, 0.2 * x),
    ),
    (r"\mathrm{Swish}_{\beta}(x)", {"beta": 1.5}, lambda x: x * sigmoid(1.5 * x)),
    # \bmod, \mod: the remainder with the divisor's sign, as Python's % (was "\bmod
    # has no formula reading")
    (r"x \bmod 1", {}, lambda x: np.mod(x, 1)),
    (r"-x \bmod 1 + 2", {}, lambda x: np.mod(-x, 1) + 2),
    (r"2 + x^2 \mod 3", {}, lambda x: 2 + np.mod(x * x, 3)),
    (r"(x \bmod 2\pi) - \pi", {}, lambda x: np.mod(x, 2 * np.pi) - np.pi),
    (r"\sin x \bmod 0.5", {}, lambda x: np.mod(np.sin(x), 0.5)),
    # accents, stars, primes on a constant: names to declare (were "\bar has no
    # formula reading", "syntax error")
    (r"\bar{a}x + \tilde{b}", {"a_bar": 2.0, "b_tilde": 0.5}, lambda x: 2 * x + 0.5),
    (r"\overline{\alpha}\,x", {"alphabar": 3.0}, lambda x: 3 * x),
    (r"a^* x + \beta^{\star}", {"a_star": 2.0, "beta_star": 1.0}, lambda x: 2 * x + 1),
    (r"\alpha' x", {"alpha_prime": 2.0}, lambda x: 2 * x),
    # the normal density N(x; mu, sigma^2) (was "\mathcal has no formula reading")
    (r"\mathcal{N}(x; 0, 1)", {}, lambda x: _normal(x, 0, 1)),
    (
        r"x\,\mathcal{N}\left(x \mid \mu, \sigma^2\right)",
        {"mu": 0.5, "sigma": 2.0},
        lambda x: x * _normal(x, 0.5, 4.0),
    ),
]


@pytest.mark.parametrize(("latex", "constants", "reference"), CASES)
def test_latex_reads_as_the_typeset_formula(latex, constants, reference):
    """f is the reference; f' its central difference (off the jumps of mod)."""
    act = symnb.Activation(latex, **constants)
    assert act.derivative_latex.strip()
    k = act.compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(
        k.forward(XS.copy()),
        reference(XS.copy()),
        rtol=1e-12,
        atol=1e-14,
        err_msg=latex,
    )
    h = 1e-6
    smooth = XS[np.abs(XS) > 0.05]  # off the kinks at 0
    slope = (reference(smooth + h) - reference(smooth - h)) / (2 * h)
    jumps = np.abs(slope) > 1e3  # mod's jumps between the points
    got = k.backward(smooth.copy(), np.ones_like(smooth))
    np.testing.assert_allclose(
        got[~jumps], slope[~jumps], rtol=1e-5, atol=1e-6, err_msg=latex
    )


@pytest.mark.parametrize(
    ("latex", "message"),
    [
        # \infty outside an interval, \lim (the hint was "type that part as code")
        (
            r"\tanh(x)\cdot\infty",
            r"\\infty has no formula reading outside an interval's",
        ),
        (
            r"\max(x, -\infty)",
            r"\\infty has no formula reading outside .*\(at '\\max\(x, -",
        ),
        (r"\lim_{n\to\infty} x", r"\\lim .*type the formula the limit gives"),
        # primes: a derivative (was "unterminated string literal"; with a left side,
        # f'(x) = ... was read as f itself)
        (r"f'(x)", r"f'\(\.\.\.\) has a prime ' \(a derivative\): type the function"),
        (r"\sigma'(x) + x", r"sigma'\(\.\.\.\) has a prime"),
        (r"f'(x) = \sigma(x)(1-\sigma(x))", r"left side 'f'\(x\) =' defines a deriv"),
        # \mathcal{N} without mean and variance, other script letters
        (r"\mathcal{N}(x)", r"\\mathcal\{N\}\(x; \\mu, \\sigma\^2\)"),
        (r"\mathcal{X} x", r"\\mathcal\{X\} .*type the formula it stands for"),
        # a star after no name (was "syntax error")
        (r"(x)^*", r"star \^\* reads as a constant's name only after a name"),
        # ambiguous or no value
        (r"\lg(1+x^2)", r"\\lg is log base 10 .* or base 2 .*\\log_\{10\} or \\log_2"),
        (r"x \circ \sigma(x)", r"\\circ is a composition .*\\cdot for the product"),
        (r"x \pmod{2}", r"\\pmod states a congruence.*x \\bmod m"),
        (r"\mathrm{ReLU}_6(x)", r"relu takes no parameter"),
        (r"\mathrm{Softplus}_\beta(x)", r"softplus takes the parameters beta, thre"),
        (r"e^{-x}\big|_{x=0}", r"evaluation bar"),
    ],
)
def test_latex_refusal_names_the_construct_and_where(latex, message):
    with pytest.raises(FormulaError, match=message):
        symnb.Activation(latex)


def test_a_loss_modulo_and_the_norm_of_its_error():
    """A loss typed with \\| \\| and \\bmod: the batch mean of its reference."""
    pred = np.array([0.05, 0.3, 0.5, 0.7, 0.95])
    true = np.array([1.0, 0.0, 0.5, 0.25, 1.0])
    kernel = symnb.Loss(r"\|y - \hat{y}\|^2 + (\hat{y} \bmod 0.5)").compile(
        backend="numpy", dtype="float64"
    )
    expected = ((true - pred) ** 2 + np.mod(pred, 0.5)).mean()
    np.testing.assert_allclose(kernel.value(pred, true), expected, rtol=1e-12)


def test_code_with_a_quoted_word_is_still_code():
    """A prime is read as LaTeX; a keyword's string in code is no prime."""
    k = symnb.Activation("F.gelu(x, approximate='tanh')").compile(
        backend="numpy", dtype="float64"
    )
    c = np.sqrt(2 / np.pi)
    expected = 0.5 * XS * (1 + np.tanh(c * (XS + 0.044715 * XS**3)))
    np.testing.assert_allclose(k.forward(XS.copy()), expected, rtol=1e-12)


def test_pasted_code_whose_docstring_has_a_prime_is_still_code():
    src = (
        "def swish(x):\n"
        '    """Swish; its f\'(x) = s(x)(1 + x(1 - s(x))), a^* = 1."""\n'
        "    return x * torch.sigmoid(x)\n"
    )
    k = symnb.Activation(src).compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(k.forward(XS.copy()), XS * sigmoid(XS), rtol=1e-12)
