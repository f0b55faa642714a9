"""0*log(0) = 0 where a loss weights a logarithm by its target (torch.xlogy's rule).

Typed cross-entropies and divergences weight logarithms by the target:
``-(y_true*log(y_pred) + (1 - y_true)*log(1 - y_pred))`` was NaN, value and gradient, at
``y_pred = y_true = 1`` (a float32 sigmoid output reaches 1.0 from x = 17), and
``y_true*log(y_true/y_pred)`` at ``y_true = 0``: 0 times log(0) = -inf. Where the weight
is exactly 0 the term is 0, its limit along the target (as ``torch.xlogy``,
``scipy.special.xlogy`` and PyTorch's ``KLDivLoss`` take it). NaN inputs still give NaN:
the kernels return NaN wherever an input is NaN.
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import log1p

_LOGS = (sp.log, log1p)


def _weight(term: sp.Mul, target: sp.Symbol) -> sp.Expr | None:
    """The product of ``term``'s factors that are polynomials in the target alone, when
    another factor holds a logarithm; None otherwise."""
    weights = [
        f
        for f in term.args
        if f.free_symbols == {target} and f.is_polynomial(target) and not f.has(*_LOGS)
    ]
    if not weights or not any(f.has(*_LOGS) for f in term.args):
        return None
    return sp.Mul(*weights)


def zero_weight_logs(expr: sp.Expr, target: sp.Symbol) -> tuple[sp.Expr, list[str]]:
    """expr with every target-weighted log term w*log(u) as 0 where w = 0."""
    found = False

    def guard(term: sp.Mul) -> sp.Expr:
        nonlocal found
        found = True
        w = _weight(term, target)
        return sp.Piecewise((0, sp.Eq(w, 0)), (term, True))

    out = expr.replace(
        lambda e: isinstance(e, sp.Mul) and _weight(e, target) is not None, guard
    )
    notes = []
    if found:
        notes.append(
            "a logarithm weighted by the target is 0 where the weight is 0 "
            "(0*log(0) = 0, as torch.xlogy)"
        )
    return out, notes
