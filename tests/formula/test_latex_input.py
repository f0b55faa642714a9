"""LaTeX pasted from a paper reads as its formula (symnb.formula.latex_input).

It was refused ("LaTeX (\\frac) is not formula syntax"). Each text is as the papers (or
their Wikipedia tables) typeset it; the compiled f and f' are judged against PyTorch's
built-in where one exists, else against the published definition in NumPy (central
differences for f'), in float64.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import symnb
from symnb.errors import FormulaError
from tests.formula.test_spellings import _numpy_ref as _numpy
from tests.formula.test_spellings import _torch_ref as _torch

torch = pytest.importorskip("torch")
F = torch.nn.functional

XS = np.array([-7.5, -3.3, -1.0, -0.4, 0.3, 0.9, 1.7, 4.0, 12.0])


#: (LaTeX, constants, reference)
CASES = [
    (r"x \cdot \sigma(\beta x)", {"beta": 1.0}, _torch(F.silu)),
    (r"x \tanh(\ln(1 + e^{x}))", {}, _torch(F.mish)),
    (r"\frac{1}{1 + e^{-x}}", {}, _torch(torch.sigmoid)),
    (r"\ln(1 + e^x)", {}, _torch(F.softplus)),
    (r"$x\sigma(1.702x)$", {}, _torch(lambda t: t * torch.sigmoid(1.702 * t))),
    (r"x \Phi(x)", {}, _torch(F.gelu)),
    (
        (
            r"\frac{1}{2} x \left(1 + \tanh\left[\sqrt{2/\pi}\left(x + 0.044715 x^3"
            r"\right)\right]\right)"
        ),
        {},
        _torch(lambda t: F.gelu(t, approximate="tanh")),
    ),
    (
        r"\begin{cases} x & x > 0 \\ \alpha (e^x - 1) & x \leq 0 \end{cases}",
        {"alpha": 1.0},
        _torch(F.elu),
    ),
    (
        (
            r"\lambda \begin{cases} x & \text{if } x > 0 \\ \alpha e^x - \alpha & "
            r"\text{otherwise} \end{cases}"
        ),
        {
            "lambd": 1.0507009873554804934193349852946,
            "alpha": 1.6732632423543772848170429916717,
        },
        _torch(F.selu),
    ),
    (
        r"\begin{cases} x, & x \geq 0 \\ 0.01x, & \text{otherwise} \end{cases}",
        {},
        _torch(F.leaky_relu),
    ),
    (r"\operatorname{ReLU}(x)", {}, _torch(torch.relu)),
    (r"\max(0, x)", {}, _torch(torch.relu)),
    (r"\frac{x}{1 + |x|}", {}, _torch(F.softsign)),
    (r"x - \tanh x", {}, _torch(F.tanhshrink)),
    (
        r"f(x) = \frac{x}{\sqrt{1 + \alpha x^2}}",
        {"alpha": 1.0},
        _numpy(lambda x: x / np.sqrt(1 + x**2)),
    ),
    (
        r"\frac{\sqrt{x^2 + 1} - 1}{2} + x",
        {},
        _numpy(lambda x: (np.sqrt(x**2 + 1) - 1) / 2 + x),
    ),
    (
        r"x + \frac{1}{a}\sin^2(ax)",
        {"a": 0.5},
        _numpy(lambda x: x + np.sin(0.5 * x) ** 2 / 0.5),
    ),
    (
        r"x \cdot \operatorname{erf}(\ln(1 + e^x))",
        {},
        _numpy(lambda x: x * scipy.special.erf(np.logaddexp(0, x))),
    ),
    (r"x e^{-x^2/2}", {}, _numpy(lambda x: x * np.exp(-(x**2) / 2))),
    (r"\sqrt[3]{1 + x^2}", {}, _numpy(lambda x: np.cbrt(1 + x**2))),
    (
        r"\beta_1 x + \beta_2 x^2",
        {"beta_1": 1.0, "beta_2": 0.5},
        _numpy(lambda x: x + 0.5 * x**2),
    ),
    (
        r"\frac{x}{\frac{x}{a} + e^{-x/b}}",
        {"a": 5.0, "b": 3.0},
        _numpy(lambda x: x / (x / 5 + np.exp(-x / 3))),
    ),
    (r"1 - e^{-e^{x/4}}", {}, _numpy(lambda x: -np.expm1(-np.exp(x / 4)))),
    (
        r"\left\lvert x \right\rvert \cdot \tanh(x)",
        {},
        _numpy(lambda x: np.abs(x) * np.tanh(x)),
    ),
    (r"x^{2}\,\sigma(x)", {}, _numpy(lambda x: x**2 * scipy.special.expit(x))),
    # as Wikipedia's table of activation functions typesets them
    (
        (
            r"\begin{cases}\alpha\left(e^{x}-1\right)&{\text{if }}x\leq 0\\x&"
            r"{\text{if }}x>0\end{cases}"
        ),
        {"alpha": 1.0},
        _torch(F.elu),
    ),
    (
        r"{\frac{1}{2}}x\left(1+{\text{erf}}\left({\frac{x}{\sqrt{2}}}\right)\right)",
        {},
        _torch(F.gelu),
    ),
    (r"\sigma(x)={\frac{1}{1+e^{-x}}}", {}, _torch(torch.sigmoid)),
    (
        r"\tanh(x)={\frac{e^{x}-e^{-x}}{e^{x}+e^{-x}}}",
        {},
        _numpy(np.tanh),
    ),
    (r"(x)^{+}\doteq \max\{0,x\}", {}, _torch(torch.relu)),
    (r"\tan^{-1}(x)", {}, _torch(torch.atan)),
    (r"\sinh^{-1}(x)", {}, _torch(torch.asinh)),
    # the classic piecewise: an array between \left\{ and \right.
    (
        (
            r"\left\{ \begin{array}{ll} x & \text{if } x > 0 \\ \alpha (e^{x} - 1)"
            r" & \text{otherwise} \end{array} \right."
        ),
        {"alpha": 0.7},
        _torch(lambda t: F.elu(t, alpha=0.7)),
    ),
    # indicators and the positive part
    (r"x \cdot \mathbb{1}_{x>0}", {}, _torch(torch.relu)),
    (
        r"x\,\mathbf{1}[x > 0] + 0.1x\,\mathbb{1}\{x \le 0\}",
        {},
        _torch(lambda t: F.leaky_relu(t, 0.1)),
    ),
    (r"[x]_+", {}, _torch(torch.relu)),
    (r"(x)_{+} - 0.2(-x)_+", {}, _torch(lambda t: F.leaky_relu(t, 0.2))),
    # a Hadamard product sign, spacing commands before a bracket
    (r"x \odot \sigma\!\left(x\right)", {}, _torch(F.silu)),
    (r"x\ \tanh(x)", {}, _numpy(lambda x: x * np.tanh(x))),
    # logarithms to a base, floor and ceiling brackets, \( \) and \[ \] delimiters
    (r"\log_2(1 + 2^x)", {}, _numpy(lambda x: np.log2(1 + 2**x))),
    (r"\log_{10}\left(1 + x^2\right)", {}, _numpy(lambda x: np.log10(1 + x**2))),
    (
        r"\log_{b}(1 + e^{x})",
        {"b": 3.0},
        _numpy(lambda x: np.logaddexp(0, x) / np.log(3)),
    ),
    # (shifted: no jump at a point of XS, where the differences would not hold)
    (r"x - \lfloor x + 0.25 \rfloor", {}, _numpy(lambda x: x - np.floor(x + 0.25))),
    (
        r"\frac{\lceil 2x + 0.5 \rceil}{2}",
        {},
        _numpy(lambda x: np.ceil(2 * x + 0.5) / 2),
    ),
    (r"\( x^2 \sigma(x) \)", {}, _numpy(lambda x: x**2 * scipy.special.expit(x))),
    (r"\[ \frac{x}{1 + |x|} \]", {}, _numpy(lambda x: x / (1 + np.abs(x)))),
]


@pytest.mark.parametrize(("latex", "constants", "reference"), CASES)
def test_latex_reads_as_the_published_function(latex, constants, reference):
    ref_f, ref_df = reference(XS.copy())
    k = symnb.Activation(latex, **constants).compile(backend="numpy", dtype="float64")
    f, df = k.forward_with_derivative(XS.copy())
    np.testing.assert_allclose(f, ref_f, rtol=1e-12, atol=1e-14, err_msg=latex)
    np.testing.assert_allclose(df, ref_df, rtol=2e-6, atol=2e-7, err_msg=latex)


@pytest.mark.parametrize(
    ("latex", "message"),
    [
        (r"\int_0^x e^{-t^2}\, dt", r"LaTeX command \\int has no formula reading"),
        (r"\sum_i x_i", r"\\sum has no formula reading"),
        (r"\frac{1}{", "a '{' is not closed"),
        (r"\sqrt[3", "a '\\[' is not closed"),
        (r"\begin{cases} x & x > 0", r"not closed by \\end\{cases\}"),
        (r"\operatorname{exec}(x)", "'exec' is not allowed"),
        ("\\sqrt" * 3000 + "x", "nested too deeply"),
        (r"x \cdot \sigma(\beta x)", "unknown symbol 'beta'"),  # constants declared
    ],
)
def test_latex_without_a_reading_is_refused_naming_the_part(latex, message):
    with pytest.raises(FormulaError, match=message):
        symnb.Activation(latex)


@pytest.mark.parametrize(
    ("latex", "reference"),
    [
        (
            r"-y\log(\hat{y}) - (1 - y)\log(1 - \hat{y})",
            lambda p, t: F.binary_cross_entropy(p, t),
        ),
        (r"\frac{1}{2}(y_{pred} - y_{true})^2", lambda p, t: F.mse_loss(p, t) / 2),
        (r"\max(0, 1 - y \hat{y})", lambda p, t: torch.relu(1 - p * t).mean()),
        # the batch mean written out, indexed samples, a sentence's punctuation
        (
            r"\frac{1}{N}\sum_{i=1}^{N} (y_i - \hat{y}_i)^2",
            lambda p, t: F.mse_loss(p, t),
        ),
        (
            (
                r"L_\delta(y, \hat{y}) = \begin{cases} \frac{1}{2}(y - \hat{y})^2 & "
                r"\text{for } |y - \hat{y}| \le \delta, \\ \delta \cdot (|y - \hat{y}|"
                r" - \frac{1}{2}\delta) & \text{otherwise.} \end{cases}"
            ),
            lambda p, t: F.huber_loss(p, t, delta=0.3),
        ),
    ],
)
def test_latex_loss_matches_pytorch(latex, reference):
    # \hat{y} is the prediction (y_hat), y the target, as losses are typeset
    yp = np.array([0.05, 0.3, 0.5, 0.7, 0.95])
    yt = np.array([1.0, 0.0, 0.5, 0.25, 1.0])
    p = torch.tensor(yp, requires_grad=True)
    ref = reference(p, torch.tensor(yt))
    (grad,) = torch.autograd.grad(ref, p)
    constants = {"delta": 0.3} if "delta" in latex else {}
    k = symnb.Loss(latex, **constants).compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(k.value(yp, yt), ref.item(), rtol=1e-12)
    np.testing.assert_allclose(k.gradient(yp, yt), grad.numpy(), rtol=1e-11)


@pytest.mark.parametrize(
    ("latex", "reference"),
    [
        (r"\Gamma(x)", "gamma"),
        (r"\ln\Gamma\left(x\right)", "gammaln"),
        (r"\log \Gamma(x)", "gammaln"),
        (r"\psi(x)", "psi"),
    ],
)
def test_latex_gamma_family_reads_as_scipys(latex, reference):
    """\\Gamma(x), \\ln\\Gamma(x), \\psi(x) (were: \\Gamma and \\psi constants)."""
    xs = np.array([-2.5, 0.5, 1.5, 4.0, 9.25])
    k = symnb.Activation(latex).compile(backend="numpy", dtype="float64")
    ref = getattr(scipy.special, reference)(xs)
    np.testing.assert_allclose(k.forward(xs.copy()), ref, rtol=1e-13)


def test_latex_psi_declared_stays_the_constant():
    k = symnb.Activation(r"\psi(x)", psi=2.0).compile(backend="numpy", dtype="float64")
    assert k.forward(np.array([3.0]))[0] == 6.0
