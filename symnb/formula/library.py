"""Named activations and losses, with PyTorch's documented definitions and defaults.

Each entry is formula text plus default constants, so a library activation is an ordinary
``Activation`` (saved and reloaded as text). Conventions at kinks follow PyTorch's backward:
relu'(0) = 0, leaky_relu'(0) = alpha, elu'(0) = alpha, hardswish'(-3) = 0, hardswish'(3) = 1
(PyTorch 2.13's backward takes the outer one-sided slopes there).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Entry:
    """One named formula: its text, default constants and options.

    ``domain`` holds (test, message) pairs on the constants' values, as the library the
    formula comes from checks them (PyTorch refuses ``HuberLoss(delta=-1)``, which
    would be a negative loss): see :func:`domain_problem`.
    """

    text: str
    constants: dict[str, float] = field(default_factory=dict)
    derivative: str | None = None
    surrogate: str | None = None
    doc: str = ""
    domain: tuple = ()


def domain_problem(entry: Entry, values: dict) -> str | None:
    """The message of the first domain test that ``values`` (numbers for some of the
    entry's constants, defaults for the rest) fail, else None. Tests whose constants
    are not all numbers here (a symbol, a learnable marker) are skipped."""
    merged = {**entry.constants, **values}
    for test, message in entry.domain:
        try:
            ok = test(merged)
        except TypeError:
            continue
        if not ok:
            shown = ", ".join(f"{k}={v!r}" for k, v in values.items())
            return f"{message} (got {shown})"
    return None


def _tanhshrink_text() -> str:
    """x - tanh(x), with its Taylor series where the difference cancels (|x| < 0.5).

    The series coefficients come from tanh's: 2^(2n) (2^(2n) - 1) B_2n / (2n)!. Twenty
    terms (to x**41), in Horner form in x**2, each coefficient written with 25 digits
    (one rounding to the kernel's type): the next term is below float64's rounding at
    |x| = 0.5 (each term is about (2x/pi)^2 = 0.1 of the one before).
    """
    from sympy import N, Rational, bernoulli, factorial

    coeffs = [
        -Rational(
            2 ** (2 * n) * (2 ** (2 * n) - 1) * bernoulli(2 * n), factorial(2 * n)
        )
        for n in range(2, 22)
    ]
    digits = [f"{N(c, 25)}" for c in coeffs]
    horner = f"({digits[-1]})"
    for c in reversed(digits[:-1]):
        horner = f"({c}) + x**2*({horner})"
    return f"where(abs(x) < 0.5, x**3*({horner}), x - tanh(x))"


_SELU_SCALE = "1.0507009873554804934193349852946"
# scale * alpha (alpha = 1.6732632423543772848170429916717) as one constant, so the
# negative branch rounds once after expm1 (as PyTorch's negcoef), not twice
_SELU_SCALE_ALPHA = "1.7580993408473768599402175208123"

ACTIVATIONS: dict[str, Entry] = {
    "identity": Entry("x", doc="x"),
    "relu": Entry("max(0, x)", doc="max(0, x); relu'(0) = 0"),
    "relu6": Entry("min(max(0, x), 6)", doc="min(max(0, x), 6)"),
    "leaky_relu": Entry(
        "where(x > 0, x, alpha*x)", {"alpha": 0.01}, doc="PyTorch negative_slope=0.01"
    ),
    "elu": Entry("where(x > 0, x, alpha*expm1(x))", {"alpha": 1.0}),
    "selu": Entry(f"where(x > 0, {_SELU_SCALE}*x, {_SELU_SCALE_ALPHA}*expm1(x))"),
    "celu": Entry(
        "where(x > 0, x, alpha*expm1(x/alpha))",
        {"alpha": 1.0},
        domain=((lambda c: c["alpha"] != 0, "celu's alpha must not be 0"),),
    ),
    "gelu": Entry("0.5*x*(1 + erf(x/sqrt(2)))", doc="exact (erf) GELU"),
    "gelu_tanh": Entry(
        "0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x**3)))",
        doc="GELU, tanh approximation (approximate='tanh')",
    ),
    "silu": Entry("x*sigmoid(x)"),
    "swish": Entry("x*sigmoid(beta*x)", {"beta": 1.0}),
    "mish": Entry("x*tanh(softplus(x))"),
    "softplus": Entry(
        "where(beta*x > threshold, x, softplus(beta*x)/beta)",
        {"beta": 1.0, "threshold": 20.0},
        doc="PyTorch Softplus(beta=1, threshold=20): linear above threshold",
        domain=((lambda c: c["beta"] != 0, "softplus's beta must not be 0"),),
    ),
    "sigmoid": Entry("sigmoid(x)"),
    "tanh": Entry("tanh(x)"),
    "softsign": Entry("x/(1 + abs(x))", derivative="1/(1 + abs(x))**2"),
    "hardtanh": Entry(
        "min(max(x, min_val), max_val)",
        {"min_val": -1.0, "max_val": 1.0},
        domain=(
            (
                lambda c: c["min_val"] <= c["max_val"],
                "hardtanh's min_val must not be greater than max_val (as in PyTorch)",
            ),
        ),
    ),
    # relu6(x + 3)/6 in two regimes: below -1.5, x + 3 is exact (Sterbenz) and rounds
    # once when scaled (x/6 + 1/2 cancels near -3); above, x/6 + 1/2 rounds about once
    # (0.67 ulp at most in float32; PyTorch's (x + 3)/6 1.0). The max never binds on
    # (-3, -1.5); it keeps SymPy from distributing 1/6 over x + 3.
    "hardsigmoid": Entry(
        "where(x <= -3, 0, where(x >= 3, 1,"
        " where(x < -1.5, max(x + 3, 0)/6, x/6 + 0.5)))"
    ),
    "hardswish": Entry(
        "where(x < -3, 0, where(x <= 3, x*(x + 3)/6, x))",
        # (x + 1.5)/3 is x/3 + 1/2 computed without cancellation: 0 at x = -1.5 even
        # where the compiler fuses x*(1/3) + 1/2 into one FMA. The max never binds on
        # [-3, 3]; it only keeps SymPy from distributing 1/3 over x + 1.5.
        derivative="where(x <= -3, 0, where(x < 3, max(x + 1.5, -1.5)/3, 1))",
    ),
    "logsigmoid": Entry("logsigmoid(x)"),
    "tanhshrink": Entry(
        _tanhshrink_text(),
        # d/dx (x - tanh(x)) = 1 - sech(x)**2 = tanh(x)**2: no cancellation anywhere
        derivative="tanh(x)**2",
        doc="x - tanh(x), series near 0",
    ),
    "softshrink": Entry(
        "where(x > lambd, x - lambd, where(x < -lambd, x + lambd, 0))",
        {"lambd": 0.5},
        domain=(
            (lambda c: c["lambd"] >= 0, "softshrink's lambd must be >= 0 (PyTorch)"),
        ),
    ),
    "sin": Entry("sin(x)"),
    "gaussian": Entry("exp(-x**2)"),
    "penalized_tanh": Entry("where(x > 0, tanh(x), a*tanh(x))", {"a": 0.25}),
    "step": Entry(
        "heaviside(x)", surrogate="atan", doc="Heaviside step, ATan surrogate gradient"
    ),
}

LOSSES: dict[str, Entry] = {
    "mse": Entry("(y_pred - y_true)**2"),
    "mae": Entry("abs(y_pred - y_true)"),
    "huber": Entry(
        "where(abs(y_pred - y_true) < delta, 0.5*(y_pred - y_true)**2,"
        " delta*(abs(y_pred - y_true) - 0.5*delta))",
        {"delta": 1.0},
        domain=(
            (
                lambda c: c["delta"] > 0,
                (
                    "huber's delta must be > 0 (PyTorch's HuberLoss refuses it; "
                    "delta <= 0 gives a negative loss)"
                ),
            ),
        ),
    ),
    "bce": Entry(
        "-(y_true*max(log(y_pred), -100) + (1 - y_true)*max(log(1 - y_pred), -100))",
        derivative="(y_pred - y_true)/max((1 - y_pred)*y_pred, 1e-12)",
        doc="PyTorch BCELoss: logs clamped at -100; gradient as PyTorch's backward",
    ),
    "bce_with_logits": Entry("softplus(y_pred) - y_pred*y_true"),
    "log_cosh": Entry("log(cosh(y_pred - y_true))", derivative="tanh(y_pred - y_true)"),
    "hinge": Entry("max(0, 1 - y_pred*y_true)", doc="labels in {-1, +1}"),
}


def activation_names() -> list[str]:
    """Names of the library activations."""
    return list(ACTIVATIONS)


def loss_names() -> list[str]:
    """Names of the library losses."""
    return list(LOSSES)
