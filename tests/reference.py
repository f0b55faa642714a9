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
