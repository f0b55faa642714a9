"""Signs of the variable that a Piecewise branch implies, and signs of expressions
under them.

A rewrite that needs ``1 + w >= 0`` (``(1 + w)**q - 1`` as ``expm1(q*log1p(w))``) could
not use the branch it sits in: the Yeo-Johnson transform as typed,
``where(x >= 0, ((x + 1)**lam - 1)/lam, -((1 - x)**(2 - lam) - 1)/(2 - lam))``, was 0
for x < 2e-6 in float32 at lam = 1e-9 (the value is about x), though each branch only
runs where its base is at least 1. A branch runs where its own condition holds and
every earlier one fails, so ``x >= 0`` (or ``x > c``, c >= 0) makes x nonnegative
there and ``x < 0`` (or the ``True`` after ``x >= 0``) makes it nonpositive.
"""

from __future__ import annotations

import sympy as sp

#: symbol -> +1 (nonnegative) or -1 (nonpositive)
Signs = dict


def _fact(cond) -> tuple[sp.Symbol, int] | None:
    """(s, +1) for s >= c or s > c with c >= 0, (s, -1) for s <= c or s < c with
    c <= 0 (either side written first), else None."""
    if not isinstance(cond, sp.core.relational.Relational) or isinstance(
        cond, (sp.Eq, sp.Ne)
    ):
        return None
    lhs, rhs = cond.lhs, cond.rhs
    if isinstance(rhs, sp.Symbol) and lhs.is_number:
        cond = cond.reversed
        lhs, rhs = cond.lhs, cond.rhs
    if not (isinstance(lhs, sp.Symbol) and rhs.is_number and rhs.is_real):
        return None
    above = isinstance(cond, (sp.GreaterThan, sp.StrictGreaterThan))
    if above and rhs >= 0:
        return lhs, 1
    if not above and rhs <= 0:
        return lhs, -1
    return None


def _facts(cond) -> Signs:
    """The signs that ``cond`` implies (conjunctions of relationals only)."""
    parts = cond.args if isinstance(cond, sp.And) else (cond,)
    out: Signs = {}
    for part in parts:
        fact = _fact(part)
        if fact is None:
            continue
        s, sign = fact
        if out.setdefault(s, sign) != sign:
            out[s] = 0  # both: s = 0, nothing worth knowing
    return {s: v for s, v in out.items() if v}


def branch_signs(pw: sp.Piecewise, known: Signs) -> list[Signs]:
    """For each branch of ``pw``, the signs known there: ``known`` (from enclosing
    branches), the branch's condition, and the negation of every earlier one."""
    out: list[Signs] = []
    earlier: Signs = {}
    for _, cond in pw.args:
        here = dict(known)
        for facts in (earlier, _facts(cond)):
            for s, v in facts.items():
                if here.setdefault(s, v) != v:
                    here[s] = 0
        out.append({s: v for s, v in here.items() if v})
        negated = sp.Not(cond)
        if negated is sp.false:
            break
        for s, v in _facts(negated).items():
            if earlier.setdefault(s, v) != v:
                earlier[s] = 0
    return out


def sign_where_defined(e: sp.Expr, known: Signs) -> int:
    """+1 if e >= 0, -1 if e <= 0, for every real x (signs in ``known`` given) and
    constants where e is defined (x**2/c**2 is nonnegative though c may be 0), else 0."""
    if e.is_nonnegative:
        return 1
    if e.is_nonpositive:
        return -1
    if isinstance(e, sp.Symbol):
        return known.get(e, 0)
    if isinstance(e, sp.Add):
        signs = {sign_where_defined(a, known) for a in e.args}
        return signs.pop() if len(signs) == 1 else 0
    if isinstance(e, sp.Mul):
        sign = 1
        for a in e.args:
            sign *= sign_where_defined(a, known)
        return sign
    if isinstance(e, sp.Pow):
        base, k = e.args
        if k.is_integer and k.is_even:
            return 1
        s = sign_where_defined(base, known)
        if s == 1:
            return 1
        if s == -1 and k.is_integer and k.is_odd:
            return -1
    return 0
