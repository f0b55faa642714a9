"""Taylor branches in u = c*x (or x/c) for gradients that cancel where u is small.

The gradient a learnable constant gets is often a difference quotient in the
constant: d/da of the soft exponential ``(exp(a*x) - 1)/a`` is
``(u*exp(u) - expm1(u))/a**2`` with u = a*x, which cancels to u**2/(2 a**2) = x**2/2
for small u. At a = 1e-8 in float32 the two terms agree to 1e-5 relative up to
|x| = 1e3, and the sum over five points was 160 where it is 61.66; ``a*(exp(x/a) -
1)`` at a = 1e8 likewise (``expm1(v) - v*exp(v)``, v = x/a). The analysis samples x
at the constants' compiled values only, and training moves the constants: a branch
on |x| would be right for one value of a.

Where a gradient is ``c**k * g(u)`` with g free of c (times other constants, plus
terms free of x), the cancellation is a property of g alone, so it is measured and
mended once, in u: the region where g's direct form breaks the rule in the dtype,
and a Taylor polynomial of g good well past it (see :data:`MARGIN`).
The branch ``|u| < r`` holds for every value of the constant (c = 0 included, where
the polynomial gives the limit, x**2/2 for the soft exponential, and the direct form
0/0). Pieces of a Piecewise (CELU's x <= 0 side) are mended one by one.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp

from symnb.robust import measure

#: Taylor orders tried (terms up to u**(order - 1)), shortest first.
ORDERS = (8, 12, 16, 24)

#: Farthest |u| a branch may reach: beyond it the cancellation is no small-u effect.
MAX_RADIUS = 8.0

#: The polynomial's truncation must stay this fraction of the rule's relative error.
TRUNCATION_SHARE = 0.25

#: The branch reaches this many times past the farthest |u| where the direct form
#: breaks the rule (its error falls only as 1/|u| past there), and at least to
#: :data:`REACH`, where the polynomial is good that far...
MARGIN = 10.0
REACH = 1.0

#: ... and never less than this many times that |u| (a series that converges only
#: for |u| < 1: d/dd of the pseudo-Huber loss d**2*(sqrt(1 + (x/d)**2) - 1), whose
#: 2*sqrt(1 + u**2) - 2 - u**2/sqrt(1 + u**2) cancels to u**4/4 up to |u| = 0.3 in
#: float32)
MIN_MARGIN = 2.0

#: u itself (never leaves this module: replaced by c*x or x/c in every result), one
#: symbol so that the measurement of g is memoised across forms and calls
_U = sp.Symbol("symnb_scaled_u", real=True)


#: log10 of the smallest |u| measured: a difference that cancels to u**m loses
#: about eps/|u| relative, within the rule well above these (and g's direct form is
#: replaced below the farthest failing point anyway)
LOWEST = {"float32": -12.0, "float64": -20.0}


def _u_grid(dtype: str) -> np.ndarray:
    mags = 10.0 ** np.arange(LOWEST[dtype], np.log10(MAX_RADIUS) + 1e-9, 0.25)
    return np.concatenate([mags, -mags])


def _relative_ok(
    expr: sp.Expr,
    u: sp.Symbol,
    pts: np.ndarray,
    dtype: str,
    tol: float,
    exact: sp.Expr | None = None,
):
    """Whether ``expr`` of u evaluated in ``dtype`` (NumPy's and the C printer's order)
    is within ``tol`` relative of mpmath's value of ``exact`` (default: ``expr``) at
    each point (values below the dtype's normal range count as met: u**2 underflows
    there, x**2 in the branch does not)."""
    cols = (pts,)
    hi, lo = measure.reference(expr if exact is None else exact, (u,), (), (), cols)
    ok = np.ones(pts.size, dtype=bool)
    for order in ("numpy", "cse"):
        got = measure.evaluate(expr, (u,), (), (), cols, dtype, order)
        if got is None:
            continue
        with np.errstate(all="ignore"):
            err = np.abs((got - hi) - lo)
            ok &= np.isfinite(got) & (err <= tol * np.abs(hi))
    return ok | np.isnan(hi) | (np.abs(hi) < float(np.finfo(dtype).tiny))


def _split(d: sp.Expr, var: sp.Symbol, c: sp.Symbol, u: sp.Symbol):
    """(s, k, g): d = c**k * g(u) with u = c**s * x and g free of c, else None."""
    for s in (1, -1):
        e = d.xreplace({var: u * c ** (-s)})
        if e.free_symbols - {u, c}:  # other constants stay in g or beside c**k
            return None
        e = sp.factor_terms(e)
        g, dep = e.as_independent(c, as_Add=False)
        if dep == 1:
            k = 0
        else:
            base, k = dep.as_base_exp()
            if base != c or not k.is_Integer:
                continue
            k = int(k)
        if u in g.free_symbols and not (g.free_symbols - {u}):
            return s, k, g
    return None


def _vanishing_sum(g: sp.Expr, u: sp.Symbol) -> bool:
    """Whether a sum in g with a term in u is exactly 0 at u = 0 (the cancellation
    measured: ``u*exp(u) - expm1(u)``, and ``exp(u) - 1`` of d/da of LINEX
    ``b*(exp(a*x) - a*x - 1)``, which ``regimes._cancels_at_zero`` does not count)."""
    for node in sp.preorder_traversal(g):
        if isinstance(node, sp.Add) and u in node.free_symbols:
            at0 = node.xreplace({u: sp.Integer(0)})
            if at0.is_number and at0.is_zero:
                return True
    return False


def _removable_at_zero(g: sp.Expr, u: sp.Symbol) -> bool:
    """Whether g is 0/0 or inf - inf at u = 0 as written (``tanh(u)/u`` and its
    derivative ``1/(u*cosh(u)**2) - tanh(u)/u**2``): near 0 its direct form divides
    tiny differences by tiny numbers; whether the limit is finite is for the Taylor
    polynomial to tell (:func:`_taylor` gives none with negative powers)."""
    try:
        at0 = g.xreplace({u: sp.Integer(0)})
    except Exception:  # noqa: BLE001 - cannot tell: not removable
        return False
    return at0.has(sp.nan, sp.zoo, sp.oo, -sp.oo)


def _taylor(g: sp.Expr, u: sp.Symbol, order: int):
    """(m, h): g's Taylor polynomial of ``order`` at 0 as u**m * h(u), h(0) != 0."""
    try:
        p = sp.series(g, u, 0, order).removeO()
    except Exception:  # noqa: BLE001 - no series: no branch
        return None
    if not p.is_polynomial(u) or p.has(sp.oo, sp.zoo, sp.nan):
        return None
    poly = sp.Poly(sp.expand(p), u)
    if poly.is_zero:
        return None
    m = min(mon[0] for mon in poly.monoms())
    h = sp.expand(p / u**m)
    return m, sp.horner(h, u) if h.is_polynomial(u) else h


@lru_cache(maxsize=64)
def _radius(g: sp.Expr, u: sp.Symbol, dtype: str):
    """(r, m, h): the branch radius and the polynomial, or None.

    The radius is :data:`MARGIN` times the farthest failing |u|, at least
    :data:`REACH`, or as far as a polynomial of the orders tried is good (at least
    :data:`MIN_MARGIN` times that |u|):
    outside the branch the kernel computes the form the analysis chose at the
    constants' compiled values, which may cancel more at others (d/da of the soft
    exponential compiled at a = 1 and moved to 1e-8 in float64 lost 2e-6 at |u| =
    1e-5, outside a radius of 1e-6)."""
    rtol = measure.RULE[dtype][0]
    pts = _u_grid(dtype)
    direct = _relative_ok(g, u, pts, dtype, rtol)
    if direct.all():
        return None
    worst = float(np.max(np.abs(pts[~direct])))
    need = MIN_MARGIN * worst
    if need >= MAX_RADIUS:
        return None
    want = min(max(MARGIN * worst, REACH), MAX_RADIUS)
    dense = np.geomspace(10.0 ** LOWEST[dtype], want, 80)
    best = None
    for order in ORDERS:
        got = _taylor(g, u, order)
        if got is None:
            break
        m, h = got
        both = np.concatenate([dense, -dense])
        ok = _relative_ok(u**m * h, u, both, dtype, TRUNCATION_SHARE * rtol, g)
        ok = ok[: dense.size] & ok[dense.size :]
        reach = want if ok.all() else float(dense[np.argmin(ok) - 1]) if ok[0] else 0.0
        if reach >= need and (best is None or reach > best[0]):
            best = (reach, m, h)
        if reach >= want:
            break
    return best


def _stepwise(e: sp.Expr, c: sp.Symbol, k: int) -> sp.Expr:
    """e * c**k one factor of c at a time (c**k alone under/overflows first)."""
    for _ in range(abs(k) - 1):
        e = sp.UnevaluatedExpr(e * c if k > 0 else e / c)
    return e * c if k > 0 else e / c if k < 0 else e


def _mend(
    d: sp.Expr, var: sp.Symbol, params: tuple, dtype: str, removable: bool = False
):
    """(branch, condition, note): d's Taylor branch in u, or None; with
    ``removable``, also where g is 0/0 at u = 0 (:func:`_removable_at_zero`)."""
    u = _U
    for c in params:
        if c not in d.free_symbols or var not in d.free_symbols:
            continue
        coef, core = _other_constants_factored(d, var, c)
        split = _split(core, var, c, u)
        if split is None:
            continue
        s, k, g = split
        if not (_vanishing_sum(g, u) or (removable and _removable_at_zero(g, u))):
            continue
        found = _radius(g, u, dtype)
        if found is None:
            continue
        r, m, h = found
        arg = var * c if s == 1 else var / c
        h_x = h.xreplace({u: sp.UnevaluatedExpr(arg)})
        if k + s * m == 0:  # c**k * u**m = x**m (the soft exponential: x**2/2)
            branch = var**m * h_x
        else:  # u**m * h(u) times c**k stepwise (a*(exp(x/a) - 1): (x/a)**2/2)
            branch = _stepwise(sp.UnevaluatedExpr(arg) ** m * h_x, c, k)
        note = (
            f"where |{sp.sstr(arg)}| < {r:.3g}, a Taylor polynomial in "
            f"{sp.sstr(arg)} replaces a difference that cancels"
        )
        return coef * branch, sp.Abs(arg) < sp.Float(r, 17), note
    return None


#: Largest operation count of a gradient whose other constants are factored out
#: (``factor_terms`` is slow on large ones)
MAX_FACTORED_OPS = 80


def _other_constants_factored(d: sp.Expr, var: sp.Symbol, c: sp.Symbol):
    """(coefficient, rest): d = coefficient * rest, the coefficient the factors free of
    x and c (d/da of ``b*(exp(a*x) - 1)/a`` is b times a function of a*x over a**2);
    (1, d) where there are none or d is large."""
    if not (d.free_symbols - {var, c}) or sp.count_ops(d) > MAX_FACTORED_OPS:
        return sp.Integer(1), d
    factored = sp.factor_terms(d)
    coef, rest = factored.as_independent(var, c, as_Add=False)
    return coef, rest


def branch_in_scaled_argument(
    d: sp.Expr,
    var: sp.Symbol,
    params: tuple,
    dtype: str,
    removable: bool = False,
):
    """(branch, condition, note): ``d``'s Taylor branch in u = c*x or x/c where ``d``
    (no Piecewise) is ``c**k * g(u)`` (plus terms free of x) and g cancels near u = 0
    in ``dtype``, else None. With ``removable`` (f and f' of ``tanh(k*x)/(k*x)``),
    a g that is 0/0 at u = 0 counts as cancelling too."""
    free, part = (d, sp.Integer(0))
    if isinstance(d, sp.Add):  # (exp(a*x) - 1)/a + a: d/da has a 1 beside g(u)/a**2
        free, part = d.as_independent(var, as_Add=True)
    got = _mend(part if isinstance(d, sp.Add) else d, var, params, dtype, removable)
    if got is None:
        return None
    branch, cond, note = got
    if isinstance(d, sp.Add):
        branch = free + branch
    return branch, cond, note


def taylor_in_scaled_argument(
    d: sp.Expr,
    var: sp.Symbol,
    params: tuple,
    dtype: str,
) -> tuple[sp.Expr, list[str]]:
    """``d`` with a Taylor branch in u = c*x or x/c where it is ``c**k * g(u)`` (plus
    terms free of x) and g cancels near u = 0 in ``dtype``, each Piecewise piece on
    its own; the notes say which. Unchanged, with no notes, where nothing cancels."""
    if isinstance(d, sp.Piecewise):
        pieces, notes = [], []
        for e, cond in d.args:
            new, n = taylor_in_scaled_argument(e, var, params, dtype)
            pieces.append((new, cond))
            notes += n
        return (sp.Piecewise(*pieces), notes) if notes else (d, [])
    got = branch_in_scaled_argument(d, var, params, dtype)
    if got is None:
        return d, []
    branch, cond, note = got
    return sp.Piecewise((branch, cond), (d, True)), [note]
