"""digamma of an argument that overflows before digamma's value does.

``digamma(u)`` grows like ``log(u)``: for u = x**2 + 1 the value at float32 x = 1e20 is
92, yet x**2 overflows to inf and the kernel gave inf (``torch.digamma(x**2 + 1)``), and
the derivative of ``lgamma(x**2 + 1/2)``, ``2x digamma(x**2 + 1/2)``, was inf from
|x| = 1.9e19 where its value is 3.6e21. Past ``u > FAR_ARGUMENT`` digamma is its
asymptotic series ``log(u) - 1/(2u) - 1/(12u^2) + 1/(120u^4)`` (next term
``1/(252u^6)``: below 1e-15 relative there), and ``log(u)`` of a polynomial u takes its
leading power out (:func:`symnb.robust.rewrite.log_of_polynomial`'s form), so nothing
overflows where the value is finite. The branch is exact to rounding for every constant.
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.gamma import digamma
from symnb.robust.traversal import bottom_up

#: u above which digamma(u) is computed from its asymptotic series (relative error of
#: the series truncated after 1/(120 u^4) there: 1/(252 u^6)/log(u) < 1e-15)
FAR_ARGUMENT = 100


def _far_digamma(e: sp.Expr, var: sp.Symbol, log_of_polynomial) -> sp.Expr:
    if not isinstance(e, digamma) or var not in e.free_symbols:
        return e
    u = e.args[0]
    log_u = log_of_polynomial(sp.log(u), var)
    series = log_u - 1 / (2 * u) - 1 / (12 * u**2) + 1 / (120 * u**4)
    return sp.Piecewise((series, u > FAR_ARGUMENT), (e, True))


def digamma_far(expr: sp.Expr, var: sp.Symbol, log_of_polynomial) -> sp.Expr:
    """Every ``digamma(u)`` in ``expr`` (u depending on ``var``) as its asymptotic
    series where ``u > FAR_ARGUMENT``, with ``log(u)`` rewritten by
    ``log_of_polynomial(expr, var)`` (passed in: it lives in the rewrite module)."""
    return bottom_up(expr, lambda e: _far_digamma(e, var, log_of_polynomial))


__all__ = ["FAR_ARGUMENT", "digamma_far"]
