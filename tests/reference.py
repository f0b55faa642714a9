"""Independent high-precision references: SymPy expressions evaluated with mpmath (400 digits).

symnb's stable helpers (sigmoid, softplus, ...) are replaced by their textbook definitions, so
the reference shares no numerical code with any backend.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import sympy as sp

from symnb.formula.functions import sigmoid


def elementary(e: sp.Expr) -> sp.Expr:
    """Heaviside and sigmoid written out; softplus & co. map to mpmath's log1p forms."""
    e = e.replace(
        lambda a: isinstance(a, sp.Heaviside),
        lambda a: sp.Piecewise((1, a.args[0] > 0), (0, True)),
    )
    return e.replace(sigmoid, lambda u: 1 / (1 + sp.exp(-u)))
    return e


# log1p/expm1 from mpmath keep full precision where 1 + tiny would round at any fixed dps.
_NAMESPACE = {
    "softplus": lambda u: mp.log1p(mp.exp(u)),
    "logsigmoid": lambda u: -mp.log1p(mp.exp(-u)),
    "log1p": mp.log1p,
    "expm1": mp.expm1,
}


def evaluate(form, expr: sp.Expr, *inputs: np.ndarray, params=None) -> np.ndarray:
    """float64 array of expr(inputs..., params...) evaluated at 400 digits.

    400 digits: 1 + tanh(-301) (gelu_tanh' at x = -20) cancels 262 digits.
    """
    params = form.param_values if params is None else params
    fn = sp.lambdify(
        tuple(form.inputs) + tuple(form.params),
        elementary(expr),
        modules=[_NAMESPACE, "mpmath"],
    )
    out = np.empty(np.broadcast(*inputs).shape)
    with mp.workdps(400):
        cs = [mp.mpf(float(c)) for c in params]
        for idx in np.ndindex(out.shape):
            args = [mp.mpf(float(np.broadcast_to(a, out.shape)[idx])) for a in inputs]
            try:
                v = fn(*args, *cs)
                out[idx] = float(v) if mp.im(v) == 0 else np.nan
            except (ZeroDivisionError, ValueError):
                out[idx] = np.nan
    return out


#: A PAU 5/4 safe rational (Molina et al.), with the analysed constants of the benchmarks.
PAU_TEXT = (
    "(a0 + a1*x + a2*x**2 + a3*x**3 + a4*x**4 + a5*x**5)"
    " / (1 + Abs(b1*x) + Abs(b2*x**2) + Abs(b3*x**3) + Abs(b4*x**4))"
)
PAU_CONSTANTS = dict(a0=0.0298, a1=0.6184, a2=2.3233, a3=3.052, a4=1.4854, a5=0.251,
                     b1=1.142, b2=4.3934, b3=0.8715, b4=0.3472)


def pau_parts(x: np.ndarray, c: dict) -> tuple[np.ndarray, ...]:
    """P, P', Q, Q' of the PAU 5/4 in float64 (constants ``c``), from the polynomials."""
    xd = np.asarray(x, dtype=np.float64)
    p = sum(c[f"a{i}"] * xd**i for i in range(6))
    dp = sum(i * c[f"a{i}"] * xd ** (i - 1) for i in range(1, 6))
    q = 1 + sum(abs(c[f"b{i}"] * xd**i) for i in range(1, 5))
    dq = sum(
        i * abs(c[f"b{i}"]) * np.abs(xd) ** (i - 1) * np.sign(xd) for i in range(1, 5)
    )
    return p, dp, q, dq


def pau_derivative(x: np.ndarray, c: dict) -> np.ndarray:
    """f'(x) of the PAU 5/4 in float64, (P/Q)*(Q'/Q) so that nothing overflows."""
    p, dp, q, dq = pau_parts(x, c)
    return dp / q - (p / q) * (dq / q)
