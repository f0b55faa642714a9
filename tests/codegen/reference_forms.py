"""InternalForms built directly (independent of the formula layer) with NumPy references.

Each case gives the form and float64 NumPy functions for f, f' and df/dc_k written by hand
(not derived from the SymPy expression), so kernels are checked against an independent
reference.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy as sp
from scipy import special

from symnb.codegen.printer import prepare  # noqa: F401 - re-exported for tests
from symnb.formula.functions import expm1, sigmoid, softplus
from symnb.formula.internal import InternalForm, P, T, X, param_symbol

C0 = param_symbol(0)
C1 = param_symbol(1)

#: The Huber loss with threshold C0 (shared by the backend tests).
HUBER = sp.Piecewise(
    (sp.Rational(1, 2) * (P - T) ** 2, sp.Abs(P - T) < C0),
    (C0 * (sp.Abs(P - T) - C0 / 2), True),
)


def make_form(
    name: str,
    f: sp.Expr,
    params: tuple = (),
    values: tuple = (),
    df: sp.Expr | None = None,
    kind: str = "activation",
    param_names: tuple | None = None,
) -> InternalForm:
    inputs = (X,) if kind == "activation" else (P, T)
    var = inputs[0]
    if df is None:
        df = sp.diff(f, var)
    df = df.replace(
        lambda e: isinstance(e, sp.Heaviside) and len(e.args) == 1,
        lambda e: sp.Heaviside(e.args[0], 0),
    )
    df = df.replace(sp.DiracDelta, lambda *args: sp.Integer(0))
    dparams = tuple(sp.diff(f, c) for c in params)
    return InternalForm(
        kind=kind,
        name=name,
        inputs=inputs,
        params=tuple(params),
        param_names=param_names or tuple(f"const{k}" for k in range(len(params))),
        param_values=tuple(values),
        f=f,
        df=df,
        dparams=dparams,
    )


@dataclass
class Case:
    form: InternalForm
    f: Callable  # (x, c) -> y, float64
    df: Callable
    dc: tuple = ()  # (x, c) -> df/dc_k


def _sig(x):
    return special.expit(x)


def _softplus(x):
    return np.logaddexp(0.0, x)


_S2PI = np.sqrt(2.0 / np.pi)


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(_S2PI * (x + 0.044715 * x**3)))


def _gelu_tanh_d(x):
    u = _S2PI * (x + 0.044715 * x**3)
    th = np.tanh(u)
    return 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th**2) * _S2PI * (
        1.0 + 3 * 0.044715 * x**2
    )


def _mish(x):
    return x * np.tanh(_softplus(x))


def _mish_d(x):
    tsp = np.tanh(_softplus(x))
    return tsp + x * (1.0 - tsp**2) * _sig(x)


def activation_cases() -> dict[str, Case]:
    half = sp.Rational(1, 2)
    gelu_tanh = (
        half * X * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (X + sp.Float("0.044715") * X**3)))
    )
    return {
        "relu": Case(
            make_form("relu", sp.Max(0, X), df=sp.Heaviside(X, 0)),
            lambda x, c: np.maximum(x, 0.0),
            lambda x, c: (x > 0).astype(float),
        ),
        "leaky_relu": Case(
            make_form(
                "leaky_relu", sp.Piecewise((X, X > 0), (C0 * X, True)), (C0,), (0.01,)
            ),
            lambda x, c: np.where(x > 0, x, c[0] * x),
            lambda x, c: np.where(x > 0, 1.0, c[0]),
            (lambda x, c: np.where(x > 0, 0.0, x),),
        ),
        "swish": Case(
            make_form("swish", X * sigmoid(C0 * X), (C0,), (1.5,)),
            lambda x, c: x * _sig(c[0] * x),
            lambda x, c: (
                _sig(c[0] * x) + c[0] * x * _sig(c[0] * x) * (1 - _sig(c[0] * x))
            ),
            (lambda x, c: x * x * _sig(c[0] * x) * (1 - _sig(c[0] * x)),),
        ),
        "softplus": Case(
            make_form("softplus", softplus(X)),
            lambda x, c: _softplus(x),
            lambda x, c: _sig(x),
        ),
        "mish": Case(
            make_form("mish", X * sp.tanh(softplus(X))),
            lambda x, c: _mish(x),
            lambda x, c: _mish_d(x),
        ),
        "mish_sympy": Case(  # the derivative as SymPy writes it (1/cosh**2)
            make_form(
                "mish_sympy",
                X * sp.tanh(softplus(X)),
                df=sp.tanh(softplus(X)) + X * sigmoid(X) / sp.cosh(softplus(X)) ** 2,
            ),
            lambda x, c: _mish(x),
            lambda x, c: _mish_d(x),
        ),
        "gelu": Case(
            make_form("gelu", X / 2 * (1 + sp.erf(X / sp.sqrt(2)))),
            lambda x, c: 0.5 * x * (1 + special.erf(x / np.sqrt(2))),
            lambda x, c: (
                0.5 * (1 + special.erf(x / np.sqrt(2)))
                + x * np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)
            ),
        ),
        "gelu_tanh": Case(
            make_form("gelu_tanh", gelu_tanh),
            lambda x, c: _gelu_tanh(x),
            lambda x, c: _gelu_tanh_d(x),
        ),
        "elu": Case(
            make_form(
                "elu", sp.Piecewise((X, X > 0), (C0 * expm1(X), True)), (C0,), (1.0,)
            ),
            lambda x, c: np.where(x > 0, x, c[0] * np.expm1(np.minimum(x, 0.0))),
            lambda x, c: np.where(x > 0, 1.0, c[0] * np.exp(np.minimum(x, 0.0))),
            (lambda x, c: np.where(x > 0, 0.0, np.expm1(np.minimum(x, 0.0))),),
        ),
        "scaled_tanh": Case(  # two constants
            make_form("scaled_tanh", C0 * sp.tanh(C1 * X), (C0, C1), (1.7159, 0.6667)),
            lambda x, c: c[0] * np.tanh(c[1] * x),
            lambda x, c: c[0] * c[1] * (1 - np.tanh(c[1] * x) ** 2),
            (
                lambda x, c: np.tanh(c[1] * x),
                lambda x, c: c[0] * x * (1 - np.tanh(c[1] * x) ** 2),
            ),
        ),
    }


def loss_cases() -> dict[str, Case]:
    return {
        "mse": Case(
            make_form("mse", (P - T) ** 2, kind="loss"),
            lambda p, t, c: (p - t) ** 2,
            lambda p, t, c: 2 * (p - t),
        ),
        "bce_with_logits": Case(
            make_form("bce_with_logits", softplus(P) - P * T, kind="loss"),
            lambda p, t, c: np.logaddexp(0.0, p) - p * t,
            lambda p, t, c: _sig(p) - t,
        ),
        "huber": Case(
            make_form(
                "huber",
                HUBER,
                (C0,),
                (1.0,),
                kind="loss",
            ),
            lambda p, t, c: np.where(
                np.abs(p - t) < c[0],
                0.5 * (p - t) ** 2,
                c[0] * (np.abs(p - t) - c[0] / 2),
            ),
            lambda p, t, c: np.where(
                np.abs(p - t) < c[0], p - t, c[0] * np.sign(p - t)
            ),
        ),
    }


def sample_points(dtype=np.float32, n: int = 4001, wide: bool = True) -> np.ndarray:
    """Grid over [-20, 20], plus special points (0, tiny, large, +-1e4)."""
    base = np.linspace(-20.0, 20.0, n)
    extra = [
        0.0,
        1e-7,
        -1e-7,
        1e-3,
        -1e-3,
        0.5,
        -0.5,
        1.0,
        -1.0,
        9.0,
        -9.0,
        9.5,
        30.0,
        -30.0,
        44.0,
        50.0,
        -50.0,
        88.0,
        -88.0,
        89.0,
        -89.0,
        100.0,
        -100.0,
    ]
    if wide:
        extra += [1e3, -1e3, 1e4, -1e4]
    return np.concatenate([base, extra]).astype(dtype)


def tolerance(dtype) -> tuple[float, float]:
    """(rtol, atol) for comparing a kernel of ``dtype`` with a float64 reference.

    The absolute part is scaled by max(1, |x|): expressions such as 1 + tanh(u) or
    1 - tanh(u)**2 lose relative accuracy in float32 tails (PyTorch's do too).
    """
    if np.dtype(dtype) == np.float32:
        return 1e-5, 5e-7
    return 1e-12, 1e-14


def close(actual, expected, rtol: float, atol: float, x=None) -> np.ndarray:
    """|a - e| <= rtol*|e| + atol*max(1, |x|) elementwise (NaN == NaN)."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    scale = (
        1.0 if x is None else np.maximum(1.0, np.abs(np.asarray(x, dtype=np.float64)))
    )
    both_nan = np.isnan(actual) & np.isnan(expected)
    with np.errstate(invalid="ignore"):
        ok = np.abs(actual - expected) <= atol * scale + rtol * np.abs(expected)
        ok |= actual == expected
    return ok | both_nan


def assert_close(actual, expected, rtol, atol, what: str, x=None) -> None:
    ok = close(actual, expected, rtol, atol, x)
    if not ok.all():
        bad = np.flatnonzero(~ok)[:5]
        detail = ", ".join(
            f"x={None if x is None else float(np.ravel(x)[i])!r}: "
            f"got {float(np.ravel(actual)[i])!r}, want {float(np.ravel(expected)[i])!r}"
            for i in bad
        )
        raise AssertionError(f"{what}: {(~ok).sum()} mismatches; {detail}")
