"""Measure the error of what a kernel computes, against mpmath, over the whole float range.

* **Points** (:func:`sample_points`): magnitudes spaced evenly in exponent (Herbie's "by bit
  pattern", not uniform in value) of both signs up to the dtype's overflow edge, the edges
  where ``exp`` overflows and underflows, and points at and around every kink, singular
  point and zero of a denominator (roots of the critical subexpressions, found by sign
  changes and bisection), including their float32 roundings and neighbouring floats.
* **Computed values** (:func:`evaluate`): the expression is evaluated with NumPy in the
  kernel's dtype through the numpy backend's own translation (``lambdify`` with the same
  stable ``sigmoid``/``softplus``/``logsigmoid``, ``Heaviside(u, h0)`` and NaN-propagating
  ``Max``/``Min`` helpers). Operation order follows SymPy's tree as the C printer does;
  the C code additionally shares subexpressions (CSE) and spells ``tanh(softplus(u))`` as a
  rational function, which changes rounding by a few ulps but never the range behaviour.
* **Reference** (:func:`reference`): the same expression at 40 significant digits with
  mpmath (unbounded exponent range), kept as a double-double so that float64 errors are
  measured exactly. No number of astronomical size is ever built: ``exp`` and powers
  whose natural logarithm passes 1e320 are inf or 0, and mpmath functions that reduce
  their argument (``sin``, ``gamma``...) are not evaluated at arguments above
  2**:data:`HUGE_MAG` (the point has no reference), so each evaluation is bounded in
  time and memory (2**2**2**x aborted the process in GMP: "overflow in mpz type").
* **Rule** (:func:`within_rule`): S = max(1, |x|, |x f'(x)|) with f' the derivative of the
  measured expression; float64: |got - ref| <= 1e-9 |ref| + 1e-12 S, float32: |got - ref|
  <= 2e-5 |ref| + 1e-6 S; where |ref| exceeds the dtype's range, inf of the right sign is
  correct.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp
from sympy.core.relational import Relational
from sympy.printing.pycode import MpmathPrinter

from symnb.codegen.printer import KEEP_ARGUMENT, _inline_reciprocals, _reduce_group
from symnb.formula import gamma
from symnb.formula.functions import sigmoid

DTYPES = ("float32", "float64")

#: Relative and scale-absolute tolerances of the rule, per dtype.
RULE = {"float32": (2e-5, 1e-6), "float64": (1e-9, 1e-12)}

#: Decimal digits of the mpmath reference.
REFERENCE_DIGITS = 40

#: Values of y_true at which losses are measured.
LOSS_TARGETS = (0.0, 1.0, 0.3, -1.0)

#: At most this many critical points per subexpression are sampled around.
MAX_ROOTS = 12

_MAX_EXP_ARG = mpmath.mpf(
    "1e320"
)  # mpmath cannot hold exp(exp(1e300)): beyond this exp is inf / 0

#: Binary magnitude above which an mpmath function outside :data:`_ANY_SIZE` is not
#: evaluated (no float64 input comes near: float64 ends at 2**1024; only exp and powers
#: of powers make such numbers). sin of 2**16384 reduces its argument with 16384 bits
#: of pi; sin(exp(x)) at x = 1e300 would need 1.4e300.
HUGE_MAG = 1 << 14

#: A power's exponent above 2**this is too large for any mpf base but +-1 to stay in
#: the exp limits: a base other than +-1 differs from 1 by more than 2**-5000 (1500
#: digits), so |e log b| > 2**(8192 - 5000) > 1e320.
_POW_EXPONENT_MAG = 8192


# ------------------------------------------------------------------ the sample points


#: 1 and 3 units of the smallest subnormal of float32 and of float64
_SUBNORMALS = [
    k * float(np.finfo(t).smallest_subnormal)
    for t in (np.float32, np.float64)
    for k in (1, 3)
]


def _grid() -> np.ndarray:
    """Exponent-uniform magnitudes of both signs, up to float64's overflow edge."""
    dense = 10.0 ** np.arange(-8.0, 8.001, 1.0 / 3.0)
    outer = np.concatenate(
        [
            10.0 ** np.arange(-38.0, -8.0, 3.0),
            10.0 ** np.arange(9.0, 38.1, 2.0),
            [np.finfo(np.float32).max, float(np.float32(1.7e38))],
            10.0 ** np.arange(45.0, 308.1, 25.0),
            [np.finfo(np.float64).max],
            # float64's own tiny magnitudes (squares and cubes underflow there)
            10.0 ** np.arange(-300.0, -38.5, 25.0),
            [1e-310],
            # the smallest subnormals (1 and 3 units) of both dtypes: halving x or
            # squaring it rounds there (squareplus's f' at b = 0 was 0.5 for 1)
            _SUBNORMALS,
        ]
    )
    # a deterministic jitter moves points off round decimal values (bit-pattern spread)
    rng = np.random.default_rng(12345)
    jitter = 1.0 + 0.37 * rng.random(dense.size)
    mags = np.concatenate([dense * jitter, 10.0 ** np.arange(-8.0, 8.001), outer])
    # exp's overflow/underflow edges in both dtypes, and values just around them
    edges = np.array([20.0, 40.0, 50.0, 87.0, 88.7, 89.5, 103.0, 104.5, 200.0])
    edges64 = np.array([700.0, 709.7, 710.5, 745.2, 746.0, 1000.0, 1e4])
    mags = np.concatenate([mags, edges, edges64, _power_edges()])
    pts = np.concatenate([[0.0], mags, -mags])
    return np.unique(_round_to_float32(pts))


def _power_edges() -> np.ndarray:
    """Magnitudes just below and above where x**2, x**3 and x**4 overflow, in both
    dtypes: float64's grid steps 25 decades there, so a form that squares x (1.3e154)
    was never measured failing between 1e145 and 1e170, and a regime threshold put in
    that gap (pseudo-Huber with delta = 1e3: 5e169) left f inf from 1.3e154 to it."""
    out = []
    for top in (float(np.finfo(np.float32).max), float(np.finfo(np.float64).max)):
        for k in (2, 3, 4):
            edge = top ** (1.0 / k)
            out += [edge / 1.05, edge * 1.05]
    return np.array(out)


def _round_to_float32(pts: np.ndarray) -> np.ndarray:
    """Points inside float32's range become float32 values (measurable in both dtypes);
    magnitudes below it stay float64 points (float32 rounds them to 0)."""
    fi = np.finfo(np.float32)
    mag = np.abs(pts)
    inside = (mag <= float(fi.max)) & (mag >= float(fi.smallest_subnormal))
    with np.errstate(all="ignore"):
        r = pts.astype(np.float32).astype(np.float64)
    return np.where(inside, r, pts)


_GRID = _grid()


def _critical_subexpressions(expr: sp.Expr) -> list[sp.Expr]:
    """Expressions whose zeros are kinks, singular points or zeros of denominators."""
    out: list[sp.Expr] = []
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.Heaviside, sp.Abs, sp.sign, sp.floor, sp.ceiling)):
            out.append(node.args[0])
        elif isinstance(node, (sp.Max, sp.Min)):
            a = node.args
            out.extend(a[i] - a[j] for i in range(len(a)) for j in range(i + 1, len(a)))
        elif (
            isinstance(node, sp.Pow)
            and node.exp.is_number
            and node.exp.is_negative
            or (
                isinstance(node, sp.Pow)
                and node.exp.is_number
                and not node.exp.is_integer
            )
        ):
            out.append(node.base)
        elif isinstance(node, sp.log):
            out.append(node.args[0])
        elif isinstance(node, Relational):
            out.append(node.lhs - node.rhs)
    return out


def _roots(g: sp.Expr, var: sp.Symbol, subs: dict, grid: np.ndarray) -> list[float]:
    """Zeros of g(var) on the grid: sign changes refined by bisection, and exact zeros."""
    g = sp.sympify(g).xreplace({k: sp.Float(v) for k, v in subs.items()})
    if (
        not isinstance(g, sp.Expr)
        or var not in g.free_symbols
        or g.free_symbols - {var}
    ):
        return []
    fn = _numpy_function(g, (var,))
    if fn is None:
        return []
    with np.errstate(all="ignore"):
        try:
            v = np.asarray(fn(grid), dtype=np.float64) * np.ones_like(grid)
        except Exception:  # noqa: BLE001 - a subexpression NumPy cannot evaluate
            return []
    z = v == 0  # isolated exact zeros (not a run of values that underflow to 0)
    iso = z.copy()
    iso[1:] &= ~z[:-1]
    iso[:-1] &= ~z[1:]
    roots = list(grid[iso])
    s = np.sign(v)
    ok = np.isfinite(v[:-1]) & np.isfinite(v[1:])
    idx = np.flatnonzero(ok & (s[:-1] * s[1:] < 0))
    if idx.size:
        lo, hi = grid[idx].copy(), grid[idx + 1].copy()
        slo = s[idx]
        with np.errstate(all="ignore"):
            for _ in range(80):
                mid = 0.5 * (lo + hi)
                sm = np.sign(np.asarray(fn(mid), dtype=np.float64) * np.ones_like(mid))
                left = sm == slo
                lo = np.where(left, mid, lo)
                hi = np.where(left, hi, mid)
        roots.extend(0.5 * (lo + hi))
    return roots[:MAX_ROOTS]


def _around(x0: float) -> list[float]:
    """x0, its float32 rounding, neighbouring floats and points at growing distances."""
    pts = [x0]
    if abs(x0) >= float(np.finfo(np.float32).max) / 2:
        return pts
    x32 = float(np.float32(x0))
    pts.append(x32)
    for d in (1, 2, 8):
        up = np.float32(x32)
        dn = np.float32(x32)
        for _ in range(d):
            up = np.nextafter(up, np.float32(np.inf))
            dn = np.nextafter(dn, np.float32(-np.inf))
        pts += [float(up), float(dn)]
    pts += [np.nextafter(x0, np.inf), np.nextafter(x0, -np.inf)]
    scale = max(1.0, abs(x0))
    for k in range(1, 11):  # distances 10**-0.8 ... 10**-8, evenly in exponent
        d = scale * 10.0 ** (-0.8 * k)
        pts += [x0 + d, x0 - d]
        # and their float32 roundings: float32 measures only points it can hold, so
        # around x0 != 0 it saw only x0's neighbouring floats (sin(x - 1)/(x - 1)'
        # cancels to 0 at x = 0.9999 in float32, where it is 3.3e-5, unseen)
        pts += [float(np.float32(x0 + d)), float(np.float32(x0 - d))]
    return pts


def sample_points(
    exprs: Sequence[sp.Expr], var: sp.Symbol, subs: dict | None = None
) -> np.ndarray:
    """Sorted float64 sample points for ``var``: the grid plus points around critical ones."""
    subs = dict(subs or {})
    extra: list[float] = []
    seen: set = set()
    for e in exprs:
        for g in _critical_subexpressions(e):
            if g in seen:
                continue
            seen.add(g)
            for r in _roots(g, var, subs, _GRID):
                if math.isfinite(r) and abs(r) < 1e300:
                    extra.extend(_around(float(r)))
            if len(extra) > 600:
                break
    extra += _shifted_edges(exprs, var, subs)
    extra += _constant_scales(subs)
    pts = np.concatenate([_GRID, np.asarray(extra, dtype=np.float64)])
    pts = pts[np.isfinite(pts)]
    return np.unique(pts)


#: decades around a constant's magnitude sampled when it lies outside the dense grid
_SCALE_DECADES = np.arange(-2.0, 2.01, 0.5)


def _constant_scales(subs: dict) -> list[float]:
    """Points |x| = |c| 10**k, k in [-2, 2], for each constant c outside the dense
    grid's 1e-8..1e8: terms balance there (x**2 + s**2 at |x| = |s|), and with
    s = 1e-20 the grid's points (1e-23, 1e-20, 1e-17) missed the band around 1e-21
    where x**2/(x**2 + s**2) was 5e-4 off in float32 (subnormal squares)."""
    out: list[float] = []
    for v in subs.values():
        try:
            m = abs(float(v))
        except (TypeError, ValueError):
            continue
        if not math.isfinite(m) or m == 0 or 1e-8 <= m <= 1e8:
            continue
        for k in _SCALE_DECADES:
            p = m * 10.0**k
            if 0 < p < 1e300:
                out += [p, -p]
    # and their float32 roundings (float32 measures only points it can hold)
    return out + [float(v) for v in _round_to_float32(np.asarray(out))]


#: exp's overflow/underflow edges (the grid's, in the exponential's argument)
_EXP_EDGES = (87.0, 88.7, 89.5, 103.0, 104.5, 700.0, 709.7, 710.5, 745.2, 746.0)

#: log of the largest float32 and float64
_LOG_MAX = (88.72283935546875, 709.782712893384)


def _scaled_exp_edges(
    exprs: Sequence[sp.Expr], var: sp.Symbol, subs: dict | None = None
) -> set:
    """(u, edge) for each ``c*exp(u)`` with 0 < |c| < 1/2: where u is halfway between
    exp's overflow and the product's (``(exp(x) + x)/2`` is finite up to x = 89.4 in
    float32 while exp(x) overflows from 88.7; no grid point lay between). c may be a
    product of named constants, at their values in ``subs`` (``x + r*exp(-x)`` with
    r = 0.5)."""
    values = {k: sp.Float(v) for k, v in (subs or {}).items()}
    found: set = set()
    for e in exprs:
        for node in sp.preorder_traversal(e):
            if not isinstance(node, sp.Mul):
                continue
            c, rest = node.as_independent(var, as_Add=False)
            c = c.xreplace(values)
            if not c.is_number:
                continue
            # a constant at 0.0 (a mixing weight a*exp(x) + (1 - a)*x at a = 0): Float
            # 0.0 == 0 is False in SymPy, and log(0) failed the whole analysis
            try:
                size = abs(float(c))
            except (TypeError, ValueError):  # zoo (1/a at a = 0) or complex: no edge
                continue
            if size == 0 or not size <= 0.5:
                continue
            for f in sp.Mul.make_args(rest):
                if isinstance(f, sp.exp) and var in f.args[0].free_symbols:
                    gap = -math.log(size)
                    for top in _LOG_MAX:
                        found.add((f.args[0], sp.Float(top + gap / 2, 17)))
    return found


def _shifted_edges(exprs: Sequence[sp.Expr], var: sp.Symbol, subs: dict) -> list:
    """The points where an exponential's argument u (not var itself) reaches exp's
    overflow and underflow edges: the grid has them for exp(x) only, so exp(x - 1)
    overflowing float32 between x = 89.7 and 104 (where expm1(x - 1)/(x - 1) is
    finite) was never measured, and the kernels gave inf at x = 90."""
    from symnb.formula.functions import expm1

    out: list[float] = []
    args: set = set()
    for e in exprs:
        for node in sp.preorder_traversal(e):
            if isinstance(node, (sp.exp, expm1, sp.sinh, sp.cosh)):
                u = node.args[0]
                if var in u.free_symbols and u not in (var, -var):
                    args.add(u)
    for u, edge in sorted(_scaled_exp_edges(exprs, var, subs), key=sp.default_sort_key)[
        :8
    ]:
        for r in _roots(u - edge, var, subs, _GRID):
            if abs(r) < 1e300:  # also as a float32 value (a point of both dtypes)
                out.extend([r, float(np.float32(r))] if abs(r) < 3e38 else [r])
    for u in sorted(args, key=sp.default_sort_key)[:8]:
        for edge in _EXP_EDGES:
            for side in (edge, -edge):
                out.extend(
                    r for r in _roots(u - side, var, subs, _GRID) if abs(r) < 1e300
                )
    return out


# ------------------------------------------------------------------ computed values


def _numpy_function(expr: sp.Expr, args: tuple):
    """The numpy backend's lambdified function of ``expr`` (None if it cannot print)."""
    from symnb.backends.numpy_ import _lambdify

    try:
        return _lambdify(expr, tuple(args))
    except Exception:  # noqa: BLE001 - anything lambdify refuses is not measurable
        return None


def _printer_cse(expr: sp.Expr, inputs: tuple):
    """The temporaries and the reduced expression of the C printer for ``expr`` alone
    (``printer._reduce_group``: its number folding, Horner schemes, ``sympy.cse``,
    reciprocals inlined, power bases hoisted), so the measurement multiplies in the
    kernel's order: a plain ``sympy.cse`` kept 1/2 apart from ``1/c**2`` where the
    printer shared ``0.5/(c*c)`` between a Gaussian's exponent and its factor, and
    ``w*(x - c)*exp(-(x - c)**2/(2*c**2))/c**2`` measured finite at x = 3e30
    (float32) was NaN in the C kernel (``0.5/(c*c)*w*(2x)`` overflowed before the
    exponential's 0)."""
    pairs, reduced = _reduce_group([expr], list(inputs), "the measured form", False)
    return pairs, reduced[0]


def _floats(expr: sp.Basic) -> sp.Basic:
    """Exact non-integer numbers as Floats, integer exponents kept (one pass, memoised).

    What the numpy backend's ``floatify`` does (so float32 stays float32), without its
    per-node assumption queries, which dominate on large expressions.
    """
    memo: dict = {}

    def conv(e, keep_rationals=False):
        hit = memo.get((e, keep_rationals))
        if hit is not None:
            return hit
        if e.is_Number or isinstance(e, sp.NumberSymbol):
            exact = e.is_Integer or (keep_rationals and e.is_Rational)
            out = e if exact else sp.Float(sp.N(e, 17), 17)
        elif not e.args or isinstance(e, sp.logic.boolalg.BooleanAtom):
            out = e
        else:
            keep = keep_rationals or isinstance(e, KEEP_ARGUMENT)  # exp(x - 1/2)
            args = [conv(a, keep) for a in e.args]
            if isinstance(e, sp.Pow) and e.exp.is_Integer:
                out = sp.Pow(args[0], e.exp, evaluate=False)
            elif isinstance(e, sp.Expr) and all(
                isinstance(a, sp.Float) or a.is_Rational for a in args
            ):
                try:  # a number such as sqrt(2) or log(3)
                    out = sp.Float(sp.N(e.func(*args), 17), 17)
                except (TypeError, ValueError):
                    out = e.func(*args)
            else:
                out = (
                    e.func(*args)
                    if any(n is not o for n, o in zip(args, e.args))
                    else e
                )
        memo[(e, keep_rationals)] = out
        return out

    return conv(expr)


def _tanh_softplus(u):
    """tanh(softplus(u)) as the kernels compute it: a rational function of exp(-|u|)."""
    u = np.asarray(u)
    e = np.exp(-np.abs(u))
    pos = (1 + 2 * e) / (1 + 2 * e + 2 * e * e)
    neg = (e * e + 2 * e) / (e * e + 2 * e + 2)
    return np.where(u >= 0, pos, neg)


def _sech2_softplus(u):
    """1/cosh(softplus(u))**2 = 1 - tanh(softplus(u))**2, without overflow."""
    u = np.asarray(u)
    e = np.exp(-np.abs(u))
    pos = 4 * (1 + e) ** 2 * e * e / ((1 + e) ** 2 + e * e) ** 2
    neg = 4 * (1 + e) ** 2 / ((1 + e) ** 2 + 1) ** 2
    return np.where(u >= 0, pos, neg)


@lru_cache(maxsize=1)
def _printer_namespace() -> dict:
    """The NumPy backend's namespace plus the functions only the C printer introduces
    (``printer.prepare``), computed as the kernels compute them (built once; lambdify
    only reads it)."""
    from symnb.backends import numpy_

    return {
        **numpy_.NAMESPACE,
        "tanh_softplus": _tanh_softplus,
        "sech2_softplus": _sech2_softplus,
        "positive_root": lambda u: np.sqrt(u) + 0.0,  # +0 at -0, as in C
        "sigmoid_mul": numpy_.NAMESPACE["sigmoid"],
    }


def _lambdified_cse(args: tuple, e: sp.Expr, pairs: list, reduced: sp.Expr):
    from symnb.backends import numpy_

    return sp.lambdify(
        args,
        e,
        modules=[_printer_namespace(), "numpy"],
        printer=numpy_._Printer,
        cse=lambda _e: (pairs, reduced),
    )


@lru_cache(maxsize=512)
def _cse_function(expr: sp.Expr, args: tuple, n_inputs: int):
    """``expr`` lambdified in the C kernels' operation order (None: same as NumPy's).

    The printer's own lowering (:func:`_printer_cse`); where that cannot be evaluated
    with NumPy, a plain ``sympy.cse`` of the same expression (an approximation)."""
    e = _floats(expr)
    try:
        pairs, reduced = _printer_cse(expr, args[:n_inputs])
        pairs = [(t, _floats(rhs)) for t, rhs in pairs]
        reduced = _floats(reduced)
        if not pairs and reduced == e:
            return None
        return _lambdified_cse(args, e, pairs, reduced)
    except Exception:  # noqa: BLE001, S110 - the approximation below
        pass
    try:
        temps = sp.numbered_symbols("_symnb_t", real=True)
        pairs, reduced = sp.cse([e], symbols=temps, order="none")
        pairs, reduced = _inline_reciprocals(list(pairs), list(reduced))
        if not pairs:
            return None
        return _lambdified_cse(args, e, pairs, reduced[0])
    except Exception:  # noqa: BLE001 - not measurable in this order: NumPy's only
        return None


def evaluate(
    expr: sp.Expr,
    inputs: tuple[sp.Symbol, ...],
    params: tuple[sp.Symbol, ...],
    values: Sequence[float],
    columns: Sequence[np.ndarray],
    dtype: str,
    order: str = "numpy",
) -> np.ndarray | None:
    """``expr`` evaluated as the numpy kernel does, in ``dtype``, at the given input columns.

    ``order="cse"``: in the C kernels' order instead (subexpressions shared as the C
    printer shares them, so ``x/b`` of ``expm1(x/b)`` also feeds ``a*x/b``); None when
    that order is NumPy's.
    """
    args = tuple(inputs) + tuple(params)
    if order == "cse":
        fn = _cse_function(expr, args, len(inputs))
        if fn is None:
            return None
    else:
        fn = _numpy_function(expr, args)
    n = len(columns[0])
    if fn is None:
        return np.full(n, np.nan)
    t = np.dtype(dtype).type
    with np.errstate(all="ignore"):
        cols = [np.asarray(c, dtype=dtype) for c in columns]
        try:
            r = fn(*cols, *[t(v) for v in values])
        except Exception:  # noqa: BLE001 - a failing evaluation counts as NaN
            return np.full(n, np.nan)
    r = np.asarray(r)
    if r.dtype.kind not in "fiub":
        return np.full(n, np.nan)
    out = np.broadcast_to(r.astype(dtype, copy=False), (n,))
    return out.astype(np.float64)


# ------------------------------------------------------------------ the reference


def _mp_exp(u):
    if u > _MAX_EXP_ARG:
        return mpmath.inf
    if u < -_MAX_EXP_ARG:
        return mpmath.mpf(0)
    if abs(u) < 1e4:
        return mpmath.exp(u)
    # exp(u) = 2**k exp(r): mpmath's own exp of a huge argument is slow (integer powers)
    extra = int(math.log10(min(float(abs(u)), 1e308))) + 10
    with mpmath.extradps(extra):
        k = int(mpmath.floor(u / mpmath.ln2))
        r = u - k * mpmath.ln2
        out = mpmath.ldexp(mpmath.exp(r), k)
    return +out


def _guarded(fn, low, high, limit: float = 1e8):
    """fn, with its limits beyond |u| > limit (mpmath would build gigantic numbers)."""

    def g(u):
        if u > limit:
            return high
        if u < -limit:
            return low
        return fn(u)

    return g


def _mp_erfcx(u):
    """exp(u^2)*erfc(u) (mpmath has no erfcx): its asymptotic series past u = 1e6
    (relative error below 1e-36), 2 exp(u^2) below u = -1e4 (erfc(u) = 2 there to
    far more than a double's digits), +-inf at -+inf."""
    if mpmath.isnan(u):
        return u
    if mpmath.isinf(u):
        return mpmath.mpf(0) if u > 0 else mpmath.inf
    if u > 1e6:
        t = 1 / (u * u)
        return (1 - t / 2 + 3 * t * t / 4) / (mpmath.sqrt(mpmath.pi) * u)
    if u < -1e4:
        return 2 * mpmath.exp(u * u)
    return mpmath.erfc(u) * mpmath.exp(u * u)


def _mp_ierfcx(u):
    """1/sqrt(pi) - u*erfcx(u), with 20 more digits (it cancels by 2u^2), its
    asymptotic series past u = 1e3 (relative error below 1e-22)."""
    if mpmath.isnan(u):
        return u
    if mpmath.isinf(u):
        return mpmath.mpf(0) if u > 0 else mpmath.inf
    if u > 1e3:
        t = 1 / (2 * u * u)
        series = t * (1 - 3 * t + 15 * t * t - 105 * t**3)
        return series / mpmath.sqrt(mpmath.pi)
    with mpmath.extradps(20):
        return 1 / mpmath.sqrt(mpmath.pi) - u * _mp_erfcx(u)


def _large(fn, big):
    """fn for moderate |u|; ``big(u)`` (built on the fast exp) beyond |u| > 1e4."""

    def g(u):
        return fn(u) if abs(u) < 1e4 else big(u)

    return g


class Unbounded(ArithmeticError):
    """A reference value that would need a number of astronomical size (no value)."""


def _mp_pow(b, e):
    """``b**e`` as mpmath computes it, but inf or 0 where ``|e log|b|| > 1e320``.

    mpmath's power is exact in the exponent: 2**(2**(2**x)) at x = 1e300 built an
    integer of 2**1e300 bits (GMP aborted the process), and x**x**x**x ran out of
    memory. Beyond exp's own limit (:data:`_MAX_EXP_ARG`) the power is inf (signed by
    the parity of an integer ``e`` for ``b < 0``) or 0, as ``exp`` is; a negative base
    with a non-integer exponent has no real value (as mpmath's complex result).
    """
    if isinstance(b, (int, float)):
        b = mpmath.mpf(b)
    if isinstance(e, (int, float)):
        e = mpmath.mpf(e)
    if not (isinstance(b, mpmath.mpf) and isinstance(e, mpmath.mpf)):
        _check_sizes("power", (b, e), True)  # complex operands
        return b**e
    if not b or not e or not (mpmath.isfinite(b) and mpmath.isfinite(e)):
        return b**e
    # exactly: any exponent (e may be 2**(2**1000), an astronomical int)
    if abs(b) == 1:
        if b > 0:
            return mpmath.mpf(1)
        if not _is_integer(e):
            raise Unbounded(
                "a negative number to a non-integer power has no real value"
            )
        return mpmath.mpf(-1 if _is_odd(e) else 1)
    mb, me = mpmath.mag(b), mpmath.mag(e)  # |b| < 2**mb, |e| < 2**me
    if me <= 64 and (abs(mb) + 1) << max(me, 0) <= HUGE_MAG:
        return b**e  # |log2 |b|| <= |mb| + 1: the result has at most HUGE_MAG bits
    if me > _POW_EXPONENT_MAG:
        grows = (abs(b) > 1) == (e > 0)
    else:
        with mpmath.workprec(64):
            size = e * mpmath.log(abs(b))
        if abs(size) <= _MAX_EXP_ARG:
            return b**e
        grows = size > 0
    if b < 0 and not _is_integer(e):
        raise Unbounded("a negative number to a non-integer power has no real value")
    if not grows:
        return mpmath.mpf(0)
    return -mpmath.inf if b < 0 and _is_odd(e) else mpmath.inf


def _is_integer(v) -> bool:
    _, man, exp, _ = v._mpf_
    return exp >= 0 or not man


def _is_odd(v) -> bool:
    """An integer mpf is odd when its (normalised, odd) mantissa is not shifted."""
    _, man, exp, _ = v._mpf_
    return exp == 0 and bool(man & 1)


def _mp_mod(a, b):
    """``a % b`` (Python's sign rule, as SymPy's Mod), refused for huge quotients."""
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    finite = a and b and mpmath.isfinite(a) and mpmath.isfinite(b)
    if finite and mpmath.mag(a) - mpmath.mag(b) > HUGE_MAG:
        raise Unbounded("the remainder of a division by a far smaller number")
    return a % b


#: mpmath functions that are cheap at any magnitude (no argument reduction).
_ANY_SIZE = frozenset(
    {
        "mpf", "mpc", "mpmathify", "sqrt", "cbrt", "root", "log", "ln", "log10",
        "log1p", "atan", "atan2", "acot", "asinh", "acosh", "fabs", "fsum", "fdot",
        "sign", "floor", "ceil", "nint", "frac", "isnan", "isinf", "isfinite", "isint",
        "mag", "ldexp", "frexp", "hypot", "re", "im", "conj", "inf", "ninf", "nan",
        "workdps", "workprec", "extradps", "extraprec",
    }
)  # fmt: skip


def _huge(v) -> bool:
    return bool(v) and mpmath.isfinite(v) and mpmath.mag(v) > HUGE_MAG


def _check_sizes(name: str, args, any_size: bool) -> None:
    """Raise :class:`Unbounded` for a real argument above 2**HUGE_MAG (unless the
    function takes ``any_size``) or a complex one with a part above 2**HUGE_MAG or
    below 2**-HUGE_MAG (mpmath's complex log redid a sum exactly at a precision of
    about the exponent: log(log(x**x**x)) aborted in GMP)."""
    for a in args:
        if isinstance(a, mpmath.mpf):
            if not any_size and _huge(a):
                raise Unbounded(f"{name} of a number above 2**{HUGE_MAG}")
        elif isinstance(a, mpmath.mpc):
            for part in (a.real, a.imag):
                if part and mpmath.isfinite(part) and abs(mpmath.mag(part)) > HUGE_MAG:
                    raise Unbounded(f"{name} of a complex number of extreme size")


def _size_guard(name: str, fn, any_size: bool):
    def guarded(*args):
        _check_sizes(name, args, any_size)
        return fn(*args)

    guarded.__name__ = name
    return guarded


class _SizeGuardedMpmath:
    """``mpmath`` as the reference's code sees it: its functions raise
    :class:`Unbounded` for arguments of extreme size (see :func:`_check_sizes`)."""

    def __getattr__(self, name: str):
        obj = getattr(mpmath, name)
        if callable(obj) and not isinstance(
            obj, (type, mpmath.ctx_mp_python.mpnumeric)
        ):
            obj = _size_guard(name, obj, name in _ANY_SIZE)
        setattr(self, name, obj)  # looked up once
        return obj


def _mp_heaviside(u, h0=0):
    """symnb's step: 1 for u > 0, ``h0`` at 0 (Heaviside(u, h0)), 0 otherwise."""
    if u > 0:
        return mpmath.mpf(1)
    return mpmath.mpf(h0) if u == 0 else mpmath.mpf(0)


def _mp_nan_or(args, pick):
    if any(mpmath.isnan(a) for a in args):
        return mpmath.nan
    return pick(args)


#: Working digits of the gamma family's references (see :func:`_mp_pole`).
GAMMA_DIGITS = 100


def _mp_pole(u, fn, at_pole, at_minus_inf):
    """fn(u), with ``at_pole`` at 0 and the negative integers (digamma and tgamma:
    +-inf at +-0) and ``at_minus_inf`` at -inf."""
    if mpmath.isnan(u):
        return u
    if mpmath.isinf(u):
        return at_minus_inf if u < 0 else fn(u)
    if u <= 0 and u == mpmath.floor(u):
        if u == 0 and fn in (gamma.mp_tgamma, gamma.mp_digamma):
            return mpmath.inf if fn is gamma.mp_tgamma else -mpmath.inf
        return at_pole
    # at most GAMMA_DIGITS working digits: nothing cancels inside these but the
    # reflection's two terms near a root of digamma, by at most the 17 digits of a
    # double's distance to it (mpmath's digamma at the 340-1500 digits the
    # references of tiny or huge points ask for took seconds per analysis)
    with mpmath.workdps(min(mpmath.mp.dps, GAMMA_DIGITS)):
        return fn(u)


_MP_NAMESPACE = {
    "mpmath": _SizeGuardedMpmath(),
    "exp": _mp_exp,
    "symnb_pow": _mp_pow,
    "symnb_mod": _mp_mod,
    "heaviside": _mp_heaviside,
    "sigmoid": lambda u: 1 / (1 + _mp_exp(-u)),
    "softplus": lambda u: (
        mpmath.log1p(_mp_exp(u)) if u < 50 else u + mpmath.log1p(_mp_exp(-u))
    ),
    "logsigmoid": lambda u: (
        -mpmath.log1p(_mp_exp(-u)) if u > -50 else u - mpmath.log1p(_mp_exp(u))
    ),
    "symnb_max": lambda *a: _mp_nan_or(a, max),
    "symnb_min": lambda *a: _mp_nan_or(a, min),
    "sign": lambda u: mpmath.mpf(mpmath.sign(u)),
    "log1p": _size_guard("log1p", mpmath.log1p, True),
    "expm1": _large(mpmath.expm1, lambda u: _mp_exp(u) - 1),
    "erf": _guarded(mpmath.erf, mpmath.mpf(-1), mpmath.mpf(1)),
    "erfc": _guarded(mpmath.erfc, mpmath.mpf(2), mpmath.mpf(0)),
    "erfcx": _mp_erfcx,
    "ierfcx": _mp_ierfcx,
    "tanh": _large(
        mpmath.tanh, lambda u: mpmath.sign(u) * (1 - 2 / (1 + _mp_exp(2 * abs(u))))
    ),
    "cosh": _large(mpmath.cosh, lambda u: (_mp_exp(u) + _mp_exp(-u)) / 2),
    # the gamma family with symnb's values at the poles (symnb.formula.gamma)
    "lgamma": lambda u: _mp_pole(u, gamma.mp_lgamma, mpmath.inf, mpmath.inf),
    "tgamma": lambda u: _mp_pole(u, gamma.mp_tgamma, mpmath.nan, mpmath.nan),
    "digamma": lambda u: _mp_pole(u, gamma.mp_digamma, mpmath.nan, mpmath.nan),
    "trigamma": lambda u: _mp_pole(u, gamma.mp_trigamma, mpmath.inf, mpmath.nan),
    "sinh": _large(mpmath.sinh, lambda u: (_mp_exp(u) - _mp_exp(-u)) / 2),
}


class _RefPrinter(MpmathPrinter):
    """mpmath printer with symnb's function semantics (see docs/CONTRACTS.md)."""

    def _print_Heaviside(self, e):
        h0 = e.args[1] if len(e.args) > 1 else sp.S.Zero
        return f"heaviside({self._print(e.args[0])}, {self._print(h0)})"

    def _print_Mod(self, e):
        return f"symnb_mod({self._print(e.args[0])}, {self._print(e.args[1])})"

    def _print_Max(self, e):
        return "symnb_max(" + ", ".join(self._print(a) for a in e.args) + ")"

    def _print_Min(self, e):
        return "symnb_min(" + ", ".join(self._print(a) for a in e.args) + ")"

    def _print_sign(self, e):
        return f"sign({self._print(e.args[0])})"

    def _print_exp(self, e):
        return f"exp({self._print(e.args[0])})"

    def _print_Pow(self, e, rational=False):
        if e.base is sp.E:
            return f"exp({self._print(e.exp)})"
        if e.exp in (sp.S.Half, -sp.S.Half, sp.S.NegativeOne):  # sqrt, 1/sqrt, 1/u
            return super()._print_Pow(e, rational=rational)
        return f"symnb_pow({self._print(e.base)}, {self._print(e.exp)})"

    def _fn(name):
        def p(self, e):
            return f"{name}({', '.join(self._print(a) for a in e.args)})"

        return p

    _print_sigmoid = _fn("sigmoid")
    _print_softplus = _fn("softplus")
    _print_logsigmoid = _fn("logsigmoid")
    _print_log1p = _fn("log1p")
    _print_expm1 = _fn("expm1")
    _print_erf = _fn("erf")
    _print_erfc = _fn("erfc")
    _print_erfcx = _fn("erfcx")
    _print_ierfcx = _fn("ierfcx")
    _print_tanh = _fn("tanh")
    _print_cosh = _fn("cosh")
    _print_sinh = _fn("sinh")
    _print_lgamma = _fn("lgamma")
    _print_tgamma = _fn("tgamma")
    _print_digamma = _fn("digamma")
    _print_trigamma = _fn("trigamma")


def _decimal_numbers(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each double-precision number as the decimal it prints as.

    SymPy folds the numbers of a typed form in binary: ``expm1(1e8*x)/(1e8*x)`` holds
    1.0e-8 as the double nearest 1/1e8 (2e-17 relative above it), and its f'
    ``exp(1e8 x)/x - 1e-8 expm1(1e8 x)/x**2`` cancels 13 digits at x = 1e-20, so the
    reference was 4e-5 relative off there and refused the exact Taylor branch. The
    numbers a user types are decimals, and the rule's references read them as such.
    """
    rule = {}
    for f in expr.atoms(sp.Float):
        if f._prec > 53:
            continue  # a number given in more digits on purpose (a branch's bound)
        v = float(f)
        if math.isfinite(v) and v != 0:
            rule[f] = sp.Rational(repr(v))
    return expr.xreplace(rule) if rule else expr


@lru_cache(maxsize=256)
def _mp_function(expr: sp.Expr, args: tuple):
    expr = _decimal_numbers(expr)
    if expr.has(sp.Heaviside):
        # a product with a step that is exactly 0 is 0, whatever the other factors:
        # as branches (evaluated lazily), not 0*inf = NaN in mpmath (the tie term
        # (1 - H(u) - H(-u)) max(a', b') of min(exp(x**2), 1 + x**2)' had no reference
        # from x = 1e160 in float64, where exp(x**2)' is inf and f' = 2x)
        from symnb.robust.rewrite import steps_to_branches

        expr = steps_to_branches(expr)
    if expr.has(sigmoid):
        # the same identity the kernels may use: sigmoid(t2 - x) - sigmoid(t1 - x)
        # cancels 43,000 digits at x = -1e5 (t2 - t1 = 1e-4), beyond MAX_DIGITS, and
        # the reference read the cumulative-link likelihood's log of it as inf
        from symnb.robust.sigmoid_difference import sigmoid_difference

        expr = sigmoid_difference(expr, args[0])
    return sp.lambdify(
        args, expr, modules=[_MP_NAMESPACE, "mpmath"], printer=_RefPrinter
    )


def _to_double_double(v) -> tuple[float, float]:
    """(hi, lo) float64 pair of an mpf; (nan, 0) for undefined values."""
    if v is None or mpmath.isnan(v):
        return math.nan, 0.0
    if mpmath.isinf(v):
        return (math.inf if v > 0 else -math.inf), 0.0
    try:
        hi = float(v)
    except OverflowError:
        hi = math.inf if v > 0 else -math.inf
    if not math.isfinite(hi):
        return hi, 0.0
    return hi, float(v - hi)


def reference(
    expr: sp.Expr,
    inputs: tuple[sp.Symbol, ...],
    params: tuple[sp.Symbol, ...],
    values: Sequence[float],
    columns: Sequence[np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """High-precision values of ``expr`` at the points: (hi, lo) float64 arrays."""
    n = len(columns[0])
    hi = np.full(n, np.nan)
    lo = np.zeros(n)
    try:
        fn = _mp_function(expr, tuple(inputs) + tuple(params))
    except Exception:  # noqa: BLE001 - not translatable: no reference
        return hi, lo
    consts = [float(v) for v in values]
    for i in range(n):
        point = [float(c[i]) for c in columns]
        v = _settled(fn, point, consts, REFERENCE_DIGITS)
        if v is not None:
            hi[i], lo[i] = _to_double_double(v)
    return hi, lo


def log2_magnitudes(
    expr: sp.Expr,
    var: sp.Symbol,
    params: tuple[sp.Symbol, ...],
    values: Sequence[float],
    xs: np.ndarray,
) -> np.ndarray | None:
    """log2 |expr| at the points (-inf where it is 0), from high-precision values
    beyond the float64 range too (x**2 at x = -1.8e308); None where a value is
    undefined or not settled."""
    try:
        fn = _mp_function(expr, (var, *params))
    except Exception:  # noqa: BLE001 - not translatable: no magnitudes
        return None
    consts = [float(v) for v in values]
    out = np.empty(len(xs))
    for i, x in enumerate(xs):
        v = _settled(fn, [float(x)], consts, REFERENCE_DIGITS)
        if v is None or mpmath.isnan(v):
            return None
        out[i] = float(mpmath.log(abs(v), 2)) if v != 0 else -np.inf
    return out


#: Most working digits a reference value may take (x + sqrt(x**2 + 1) at x = -1e300
#: cancels 600 digits; the f' of (cos(x) - 1 + x**2/2)/x**4 about 2,500 at x = 1e-320,
#: where 1,500 gave 4e-101 for -2.8e-323 and the exact Taylor branch was measured as
#: wrong and dropped: f' 8 digits off for |x| < 0.048 in float64).
MAX_DIGITS = 3000


def _value_at(fn, point: Sequence[float], consts: Sequence[float], dps: int):
    """fn at the point with ``dps`` working digits (an mpf), None where undefined."""
    with mpmath.workdps(dps):
        try:
            v = fn(*[mpmath.mpf(p) for p in point], *[mpmath.mpf(c) for c in consts])
            return mpmath.mpf(v)
        except Exception:  # noqa: BLE001 - a failure: the point is undefined
            return None


def _agree(v, w, digits: int) -> bool:
    if v is None or w is None:
        return v is w
    if not (mpmath.isfinite(v) and mpmath.isfinite(w)):
        return v == w
    return abs(v - w) <= mpmath.mpf(10) ** (-digits) * abs(w)


def _settled(fn, point: Sequence[float], consts: Sequence[float], digits: int):
    """fn at the point, to ``digits`` significant digits whatever cancels in it.

    Evaluated with :func:`_digits_for` working digits, then with twice as many until
    two evaluations agree to ``digits - 10`` digits: a fixed precision returned 0 for
    x + sqrt(x**2 + 1) at x = -1e20 (log of it -inf), so the analysis read the
    expression there as exact and its derivative's tail as any line at all. Points of
    moderate size (1e-6 < |p| < 1e6) have ``digits - 12`` digits to spare and are
    evaluated once.
    """
    dps = _digits_for(point, digits)
    v = _value_at(fn, point, consts, dps)
    mags = [abs(p) for p in point if math.isfinite(p) and p != 0]
    if all(1e-6 < m < 1e6 for m in mags):
        return v
    while dps < MAX_DIGITS:
        dps = min(2 * dps, MAX_DIGITS)
        w = _value_at(fn, point, consts, dps)
        if _agree(v, w, digits - 10):
            return w
        v = w
    return v


def _digits_for(point: Sequence[float], digits: int) -> int:
    """Working digits at a point: ``digits`` plus the decimal magnitude of its inputs.

    ``exp(a*(x - 1))/exp(a*x)`` at x = 1e45 needs x - 1 and exp's argument reduction
    exact to 45 more digits than the result; tiny inputs get three digits per decade.
    """
    mags = [abs(p) for p in point if math.isfinite(p) and p != 0]
    big = max(mags, default=0.0)
    small = min(mags, default=1.0)
    extra = int(math.log10(big)) + 5 if big > 1.0 else 0
    # a removable singularity at 0 cancels like x**2 or x**3: (1 - cos(x))/x**2 at 1e-20
    # needs 40 more digits than the result
    extra += 3 * int(-math.log10(small)) + 5 if small < 1.0 else 0
    return min(digits + extra, MAX_DIGITS)


def reference_values(
    expr: sp.Expr,
    inputs: tuple[sp.Symbol, ...],
    params: tuple[sp.Symbol, ...],
    values: Sequence[float],
    columns: Sequence[np.ndarray],
    digits: int = 60,
) -> list | None:
    """mpmath values of ``expr`` at the points (None when one cannot be computed)."""
    try:
        fn = _mp_function(expr, tuple(inputs) + tuple(params))
    except Exception:  # noqa: BLE001 - not translatable
        return None
    out = []
    consts = [float(v) for v in values]
    for i in range(len(columns[0])):
        v = _settled(fn, [float(c[i]) for c in columns], consts, digits)
        if v is None:  # undefined there
            return None
        out.append(v)
    return out


# ------------------------------------------------------------------ the rule


def within_rule(
    got: np.ndarray,
    ref_hi: np.ndarray,
    ref_lo: np.ndarray,
    scale: np.ndarray,
    dtype: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ok, defined, ulps): the rule per point, where the reference exists, error in ulps."""
    rel, ab = RULE[dtype]
    big = float(np.finfo(dtype).max)
    defined = ~np.isnan(ref_hi)
    with np.errstate(all="ignore"):
        err = np.abs((got - ref_hi) - ref_lo)
        tol = rel * np.abs(ref_hi) + ab * scale
        # a finite reference inside the range needs a finite result, even where the
        # scale S overflows (then tol is inf and inf - ref <= tol would pass)
        ok = (err <= tol) & np.isfinite(got)
        over = np.abs(ref_hi) > big
        # beyond the range: the right-signed inf, or a finite value within the scale's
        # allowance, as the rule reads (``tests/robust/corpus_reference.violations``):
        # the f' of cos(2x - (1e6 x)**2) is 2e12 x sin(...) with the sine's argument
        # past 1e66 at x = 1e27 in float32, its sign unknowable there, and the 0 that
        # meets the rule was refused (f' NaN from x = 1e15)
        right_inf = np.isinf(got) & (np.sign(got) == np.sign(ref_hi))
        ok = np.where(over, right_inf | ok, ok)
        ok = np.where(
            np.isinf(ref_hi), np.isinf(got) & (np.sign(got) == np.sign(ref_hi)) | ok, ok
        )
        ok &= ~np.isnan(got)
        tiny = float(
            np.finfo(dtype).tiny
        )  # ulps of normal numbers below the normal range
        r = np.clip(np.abs(ref_hi), tiny, big).astype(dtype)
        spacing = np.spacing(r).astype(np.float64)
        ulps = np.where(np.isfinite(got), err / spacing, np.inf)
        ulps = np.where(over & ok, 0.0, ulps)
    return ok & defined, defined, ulps


def scale_of(columns: Sequence[np.ndarray], dref: np.ndarray) -> np.ndarray:
    """S = max(1, |x|, |x * d|) with d the derivative's reference (0 where undefined).

    A derivative beyond the float64 range (inf) makes S inf, as the rule's own scale
    is (``tests/robust/corpus_reference._scale``): f' of cos(2x - (1e6 x)**2) at
    x = 1e154 in float64 has f'' = 4e24 x**2 cos(...) = 1e332, and S = |x| refused
    every finite value of 2e12 x sin(...) there (f' NaN from x = 1.3e154)."""
    x = np.abs(np.asarray(columns[0], dtype=np.float64))
    with np.errstate(all="ignore"):
        d = np.where(np.isnan(dref), 0.0, np.abs(x * dref))
    d = np.where(np.isnan(d), 0.0, d)
    return np.maximum(np.maximum(1.0, x), d)


# ------------------------------------------------------------------ the problem


@dataclass
class Problem:
    """What to measure: one expression, its reference values and scale, at fixed points."""

    inputs: tuple[sp.Symbol, ...]
    params: tuple[sp.Symbol, ...]
    values: tuple[float, ...]
    columns: tuple[np.ndarray, ...]
    ref_hi: np.ndarray
    ref_lo: np.ndarray
    scale: np.ndarray
    cache: dict = field(default_factory=dict)
    #: also measure the C kernels' operation order (off for quick probes at new points:
    #: what they find is measured again, in both orders, at the sample points)
    c_order: bool = True

    @property
    def x(self) -> np.ndarray:
        """The first input's sample values."""
        return self.columns[0]

    def measure(self, expr: sp.Expr, dtype: str) -> Measurement:
        """Measure ``expr`` in ``dtype`` against the reference (memoised per expression)."""
        key = (expr, dtype)
        m = self.cache.get(key)
        if m is None:
            got = evaluate(
                expr, self.inputs, self.params, self.values, self.columns, dtype
            )
            ok, defined, ulps = within_rule(
                got, self.ref_hi, self.ref_lo, self.scale, dtype
            )
            # the C kernels share subexpressions: measured too, the worse one counts
            got_c = None
            if self.c_order:
                got_c = evaluate(
                    expr,
                    self.inputs,
                    self.params,
                    self.values,
                    self.columns,
                    dtype,
                    "cse",
                )
            if got_c is not None:
                ok_c, _, ulps_c = within_rule(
                    got_c, self.ref_hi, self.ref_lo, self.scale, dtype
                )
                worse = (ok & ~ok_c) | (ok == ok_c) & (ulps_c > ulps)
                got = np.where(worse, got_c, got)
                ulps = np.where(worse, ulps_c, ulps)
                ok = ok & ok_c
            # inputs that the dtype cannot hold are not points of this dtype
            inside = np.ones(self.x.size, dtype=bool)
            for c in self.columns:
                with np.errstate(all="ignore"):
                    inside &= c.astype(dtype).astype(np.float64) == c
            ok, defined = ok & inside, defined & inside
            m = Measurement(dtype, self.columns, got, ok, defined, ulps)
            self.cache[key] = m
        return m

    def subset(self, mask: np.ndarray) -> Problem:
        """The same problem restricted to some points."""
        return Problem(
            self.inputs,
            self.params,
            self.values,
            tuple(c[mask] for c in self.columns),
            self.ref_hi[mask],
            self.ref_lo[mask],
            self.scale[mask],
        )


def input_columns(
    kind: str, exprs: Sequence[sp.Expr], inputs: tuple, subs: dict
) -> tuple[np.ndarray, ...]:
    """Sample columns: x for an activation; (p, t) pairs over LOSS_TARGETS for a loss."""
    var = inputs[0]
    if kind != "loss" or len(inputs) < 2:
        return (sample_points(exprs, var, subs),)
    ps, ts = [], []
    for tv in LOSS_TARGETS:
        pts = sample_points(exprs, var, {**subs, inputs[1]: sp.Float(tv)})
        ps.append(pts)
        ts.append(np.full(pts.size, tv))
    return (np.concatenate(ps), np.concatenate(ts))


#: The most points whose derivative is taken in high precision for the scale.
_MOST_SCALE_REFERENCES = 64


def _nan_in_high_precision(got, derivative, inputs, params, values, columns):
    """``got`` with its NaN values (at most ``_MOST_SCALE_REFERENCES``) replaced by
    mpmath's (NaN where that is undefined too)."""
    if got is None:
        return got
    got = np.array(np.broadcast_to(got, np.shape(columns[0])), dtype=np.float64)
    nan = np.flatnonzero(np.isnan(got))
    if nan.size == 0 or nan.size > _MOST_SCALE_REFERENCES:
        return got
    cols = tuple(np.asarray(c, dtype=np.float64)[nan] for c in columns)
    got[nan] = reference(derivative, inputs, params, values, cols)[0]
    return got


def make_problem(
    expr: sp.Expr,
    derivative: sp.Expr,
    inputs: tuple[sp.Symbol, ...],
    params: tuple[sp.Symbol, ...],
    values: Sequence[float],
    columns: tuple[np.ndarray, ...],
    derivative_values: np.ndarray | None = None,
) -> Problem:
    """A Problem with reference values of ``expr`` and the scale from ``derivative``.

    The scale needs only the derivative's magnitude: unless its (reference) values are
    given, it is evaluated in float64 with NumPy, and in high precision where that
    is NaN (f'' of cos(2x - (1e6 x)**2) is cos(inf) = NaN from x = 1e148: counted
    as 0, the scale refused every finite f' where the rule allows any).
    """
    hi, lo = reference(expr, inputs, params, values, columns)
    if derivative_values is None:
        derivative_values = evaluate(
            derivative, inputs, params, values, columns, "float64"
        )
        derivative_values = _nan_in_high_precision(
            derivative_values, derivative, inputs, params, values, columns
        )
    dhi = derivative_values
    return Problem(
        tuple(inputs),
        tuple(params),
        tuple(float(v) for v in values),
        tuple(columns),
        hi,
        lo,
        scale_of(columns, dhi),
    )


# ------------------------------------------------------------------ results


@dataclass
class Measurement:
    """Error of one expression in one dtype at every sample point."""

    dtype: str
    columns: tuple[np.ndarray, ...]
    got: np.ndarray
    ok: np.ndarray
    defined: np.ndarray
    ulps: np.ndarray

    @property
    def bad(self) -> np.ndarray:
        """Points where the reference exists and the rule fails."""
        return self.defined & ~self.ok

    @property
    def n_bad(self) -> int:
        """How many points fail the rule."""
        return int(np.count_nonzero(self.bad))

    @property
    def passes(self) -> bool:
        """Whether every point with a reference satisfies the rule."""
        return self.n_bad == 0

    def max_ulps(self) -> float:
        """Largest error in ulps (inf when a result is not finite)."""
        u = self.ulps[self.defined]
        return float(np.max(u)) if u.size else 0.0

    def median_ulps(self) -> float:
        """Median error in ulps."""
        u = self.ulps[self.defined]
        return float(np.median(u)) if u.size else 0.0

    def regions(self, limit: int = 6) -> list[str]:
        """Where the rule fails, as ranges of the first input ("non-finite" marked)."""
        return failing_regions(self.columns[0], self.bad, self.got, limit)


def failing_regions(
    x: np.ndarray, bad: np.ndarray, got: np.ndarray, limit: int = 6
) -> list[str]:
    """Contiguous ranges (in sorted x) where ``bad`` holds, as short text."""
    if not bad.any():
        return []
    order = np.argsort(x, kind="stable")
    xs, bs, gs = x[order], bad[order], got[order]
    out: list[str] = []
    i = 0
    n = xs.size
    while i < n:
        if not bs[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and bs[j + 1]:
            j += 1
        nonfinite = not np.all(np.isfinite(gs[i : j + 1]))
        what = "non-finite" if nonfinite else "above the rule"
        if xs[i] == xs[j]:
            out.append(f"x = {xs[i]:.7g} ({what})")
        else:
            out.append(f"x in [{xs[i]:.7g}, {xs[j]:.7g}] ({what})")
        i = j + 1
    if len(out) > limit:
        out = out[:limit] + [f"... and {len(out) - limit} more"]
    return out


__all__ = [
    "DTYPES",
    "RULE",
    "Measurement",
    "Problem",
    "evaluate",
    "failing_regions",
    "input_columns",
    "make_problem",
    "reference",
    "sample_points",
    "within_rule",
]
