"""softplus(c*u)/c (softplus with a learnable sharpness), finite for every c != 0.

Typed as ``softplus(beta*x)/beta`` (or ``log(1 + exp(beta*x))/beta``), the kernel
computes beta*x first: with beta moved far by training (1e30 in float32), beta*x
overflows and the value was inf/beta = inf where it is x (from x = 1e9). Since
softplus(w) = max(w, 0) + softplus(-|w|) and max(c*u, 0)/c = (u + sign(c)*|u|)/2, the
form is rewritten as ``(u + sign(c)*|u|)/2 + softplus(-|c*u|)/c``: exact for every
c != 0, and the overflowing product only enters softplus(-inf) = 0 (f'(0) stays 1/2:
(1 + sign(c) sign(u))/2 there). Only where c is a symbol
(a constant that may move); a number c is left alone, and so is a branch whose
condition holds c*u (PyTorch's Softplus, where(beta*x > threshold, x, ...), takes x
where beta*x is large; rewritten, its NumPy kernel ran 2-3x slower).
"""

from __future__ import annotations

import sympy as sp

from symnb.formula.functions import softplus


def _scaled(e: sp.Mul) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """(softplus factor, c, u) when e holds softplus(c*u) and 1/c, c a symbol."""
    for f in e.args:
        if not isinstance(f, softplus):
            continue
        for c in f.args[0].free_symbols:
            u = sp.cancel(f.args[0] / c)
            if c in u.free_symbols or 1 / c not in e.args:
                continue
            return f, c, u
    return None


def scaled_softplus_forms(expr: sp.Expr, note) -> sp.Expr:
    """expr with every softplus(c*u)/c as (u + sign(c)|u|)/2 + softplus(-|c u|)/c."""

    def walk(e: sp.Basic, guarded: frozenset) -> sp.Basic:
        if not e.args:
            return e
        if isinstance(e, sp.Piecewise):  # conditions on c*u guard their branches
            guarded = guarded | {
                m for c in e.atoms(sp.Basic) if c.is_Relational for m in c.atoms(sp.Mul)
            }
        args = [walk(a, guarded) for a in e.args]
        e = e.func(*args) if tuple(args) != e.args else e
        if not isinstance(e, sp.Mul):
            return e
        found = _scaled(e)
        if found is None or found[0].args[0] in guarded:
            return e
        sp_factor, c, u = found
        note(
            f"rewrote softplus({c}*u)/{c} as (u + sign({c})*|u|)/2 + "
            f"softplus(-|{c}*u|)/{c} ({c}*u overflows where the value does not)"
        )
        rest = list(e.args)
        rest.remove(sp_factor)
        rest.remove(1 / c)
        w = sp_factor.args[0]
        # sign(c) as a Piecewise: sp.sign's derivative in c is a DiracDelta, which
        # the constants' gradients would turn into a surrogate (d/dc is 0 off c = 0).
        # It is 0 at c = 0 like sign(c): with -1 there, f' at c = 0 was 1 for x < 0
        # and 0 for x > 0 where softplus(0*x)' is 1/2 everywhere.
        sign_c = sp.Piecewise((1, c > 0), (-1, c < 0), (0, True))
        stable = (u + sign_c * sp.Abs(u)) / 2 + softplus(-sp.Abs(w)) / c
        return sp.Mul(*rest) * stable

    return walk(expr, frozenset())
