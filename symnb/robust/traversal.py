"""The rewrites' one traversal: a function applied bottom-up over a SymPy tree."""

from __future__ import annotations

import sympy as sp


def bottom_up(expr: sp.Expr, fn, conditions: bool = True) -> sp.Expr:
    """``fn`` applied to every node of ``expr``, children first (a node is rebuilt
    only where a child changed); ``conditions=False`` leaves branch conditions as they
    are (a branch condition keeps its own arithmetic)."""
    if not isinstance(expr, sp.Basic) or not expr.args:
        return expr
    if not conditions and isinstance(
        expr, (sp.core.relational.Relational, sp.Or, sp.And)
    ):
        return expr
    args = [bottom_up(a, fn, conditions) for a in expr.args]
    if any(n is not o for n, o in zip(args, expr.args)):
        expr = expr.func(*args)
    return fn(expr)
