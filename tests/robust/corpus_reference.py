"""Independent references for the corpus: SymPy + mpmath, sharing no code with symnb.

The user's text is parsed by SymPy's own ``parse_expr`` with a namespace written here from the
textbook definitions (``sigmoid(u) = 1/(1 + exp(-u))``, ``softplus(u) = log(1 + exp(u))``,
library names from PyTorch's documentation); decimals become exact rationals. f', f'' are
SymPy derivatives of that original expression. A step's DiracDelta becomes 0 where the entry
is continuous, and spikingjelly's ATan surrogate (alpha = 2: 1/(1 + (pi u)^2)) where f jumps.

Values come from mpmath at increasing precision (30, 60, 120, ... digits) until two precisions
agree to 20 digits, so cancellation in the reference itself cannot fool the judge. At a
removable singularity (0/0) the value is the average of both sides at distance 1e-20.

The accuracy rule is the one of issue 8, with S = max(1, |x|, |x g'(x)|) for g in (f, f'):
float64 |got - ref| <= 1e-9 |ref| + 1e-12 S, float32 2e-5 |ref| + 1e-6 S; where |ref| is
beyond the dtype's range, inf of the right sign is correct.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import mpmath as mp
import numpy as np
import sympy as sp
from sympy.parsing.sympy_parser import (
    parse_expr,
    rationalize,
    standard_transformations,
)

from tests.robust.corpus import ALL, Published

X = sp.Symbol("x", real=True)

#: The accuracy rule: dtype -> (relative tolerance, tolerance relative to S).
RULE = {"float32": (2e-5, 1e-6), "float64": (1e-9, 1e-12)}


def _sigmoid(u):
    return 1 / (1 + sp.exp(-u))


def _softplus(u):
    return sp.log(1 + sp.exp(u))


def _where(cond, a, b):
    return sp.Piecewise((a, cond), (b, True))


#: Text name -> SymPy builder. Library names follow PyTorch's documented definitions.
NAMESPACE = {
    "exp": sp.exp,
    "log": sp.log,
    "ln": sp.log,
    "sqrt": sp.sqrt,
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "atan": sp.atan,
    "asin": sp.asin,
    "acos": sp.acos,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "tanh": sp.tanh,
    "asinh": sp.asinh,
    "acosh": sp.acosh,
    "atanh": sp.atanh,
    "erf": sp.erf,
    "erfc": sp.erfc,
    "cbrt": lambda u: sp.real_root(u, 3),
    "clip": lambda u, lo, hi: sp.Min(sp.Max(u, lo), hi),
    "Piecewise": sp.Piecewise,
    "abs": sp.Abs,
    "sign": sp.sign,
    "max": sp.Max,
    "min": sp.Min,
    "heaviside": lambda u: sp.Heaviside(u, 0),
    "where": _where,
    "sigmoid": _sigmoid,
    "softplus": _softplus,
    "logsigmoid": lambda u: -sp.log(1 + sp.exp(-u)),
    "expm1": lambda u: sp.exp(u) - 1,
    "log1p": lambda u: sp.log(1 + u),
    "relu": lambda u: sp.Max(0, u),
    "pi": sp.pi,
    # the gamma family (real arguments > 0 here: log Gamma is real there)
    "lgamma": sp.loggamma,
    "gammaln": sp.loggamma,
    "digamma": sp.digamma,
    "tgamma": sp.gamma,
    "erfcx": lambda u: sp.exp(u**2) * sp.erfc(u),
    # library activations (torch.nn docs)
    "gelu": lambda u: u / 2 * (1 + sp.erf(u / sp.sqrt(2))),
    "silu": lambda u: u * _sigmoid(u),
    "mish": lambda u: u * sp.tanh(_softplus(u)),
    "elu": lambda u: _where(u > 0, u, sp.exp(u) - 1),
    "softsign": lambda u: u / (1 + sp.Abs(u)),
    "hardswish": lambda u: sp.Piecewise(
        (0, u <= -3), (u, u >= 3), (u * (u + 3) / 6, True)
    ),
}


def _mp_heaviside(u, h0=0):
    if u == 0:
        _GUARD["tie"] = True
    return mp.mpf(1) if u > 0 else (mp.mpf(h0) if u == 0 else mp.mpf(0))


def _mp_sign(u):
    if u == 0:
        _GUARD["tie"] = True
    return mp.sign(u)


#: Arguments beyond 2**_ASTRONOMICAL (exp(exp(1e300)) and the like) cannot be reduced in
#: finite time: exp gives inf or 0, tanh its sign, and the evaluation is flagged.
_ASTRONOMICAL = 4096
_GUARD = {"fired": False, "tie": False}


def _guarded(fn, at_plus, at_minus):
    def g(u):
        if mp.isfinite(u) and u != 0 and mp.mag(u) > _ASTRONOMICAL:
            _GUARD["fired"] = True
            return at_plus if u > 0 else at_minus
        return fn(u)

    return g


def _exp(u):
    """mp.exp(u), with a whole-number u of more than 64 bits reduced by ln 2 first.

    mpmath computes exp of a whole number at over 600 bits as e**u by squaring, about
    mag(u) squarings at the working precision (exp(1e300) at 330 digits: 2 ms, half of
    the corpora's reference time); u = n ln 2 + r gives 2**n exp(r) with r in [0, ln 2),
    r taken at mag(u) extra bits so that it keeps the working precision (0.1-0.4 ms).
    """
    if mp.isfinite(u) and mp.mag(u) > 64 and mp.mp.prec > 600 and u == mp.floor(u):
        with mp.workprec(mp.mp.prec + int(mp.mag(u)) + 30):
            n = mp.floor(u / mp.ln2)
            r = mp.exp(u - n * mp.ln2)
        return mp.ldexp(r, int(n))
    return mp.exp(u)


_MP_NAMESPACE = {
    "Heaviside": _mp_heaviside,
    "sign": _mp_sign,
    "sinpi": mp.sinpi,
    "cospi": mp.cospi,
    "log1p_exact": mp.log1p,
    "exp": _guarded(_exp, mp.inf, mp.mpf(0)),
    "tanh": _guarded(mp.tanh, mp.mpf(1), mp.mpf(-1)),
    "erf": _guarded(mp.erf, mp.mpf(1), mp.mpf(-1)),
    "sin": _guarded(mp.sin, mp.nan, mp.nan),
    "cos": _guarded(mp.cos, mp.nan, mp.nan),
}


def surrogate_atan(u: sp.Expr) -> sp.Expr:
    """spikingjelly's ATan surrogate with alpha = 2: d/du [atan(pi u)/pi + 1/2]."""
    return 1 / (1 + (sp.pi * u) ** 2)


@dataclass(frozen=True)
class Expressions:
    """f, f', f'' of one entry as SymPy expressions and mpmath callables (x, *constants)."""

    f: sp.Expr
    df: sp.Expr
    ddf: sp.Expr
    classical_df: sp.Expr
    symbols: tuple[sp.Symbol, ...]

    @functools.cached_property
    def callables(self):
        args = (X, *self.symbols)
        mods = [_MP_NAMESPACE, "mpmath"]
        return tuple(
            sp.lambdify(args, e, modules=mods)
            for e in (self.f, self.df, self.ddf, self.classical_df)
        )


_GLOBALS = {"__builtins__": {}} | {
    k: getattr(sp, k) for k in ("Integer", "Float", "Rational", "Symbol")
}


def _drop_delta(e: sp.Expr, replacement) -> sp.Expr:
    return e.replace(
        lambda a: isinstance(a, sp.DiracDelta),
        lambda a: replacement(a.args[0]) if len(a.args) == 1 else sp.Integer(0),
    )


def expressions(entry: Published) -> Expressions:
    """Parse the entry's text with SymPy alone and differentiate the original expression."""
    if BY_NAME.get(entry.name) is entry:
        return _cached_expressions(entry.name)
    return _expressions(entry)


@functools.cache
def _cached_expressions(name: str) -> Expressions:
    return _expressions(BY_NAME[name])


def _expressions(entry: Published) -> Expressions:
    symbols = {n: sp.Symbol(n, real=True) for n in entry.constants}
    local = dict(NAMESPACE)
    local.update(symbols)
    local["x"] = X
    f = parse_expr(
        entry.text,
        local_dict=local,
        global_dict=_GLOBALS,
        transformations=(*standard_transformations, rationalize),
    )
    raw = sp.diff(f, X)
    classical = _drop_delta(raw, lambda u: sp.Integer(0))
    df = _drop_delta(raw, surrogate_atan) if entry.jumps else classical
    ddf = _drop_delta(sp.diff(df, X), lambda u: sp.Integer(0))
    f, df, ddf, classical = (
        _exact_log1p(_exact_pi(e)) for e in (f, df, ddf, classical)
    )
    return Expressions(f, df, ddf, classical, tuple(symbols.values()))


_SINPI, _COSPI = sp.Function("sinpi"), sp.Function("cospi")
_LOG1P = sp.Function("log1p_exact")


def _exact_log1p(e: sp.Expr) -> sp.Expr:
    """log(1 + u) -> mpmath's log1p(u): at any fixed precision 1 + u rounds to 1 for
    tiny u (log(1 + exp(x)) at x = -1000 needs 435 digits), and the ladder then
    confirms a false 0 (exp(-x)*log(1 + exp(x)) was 0 there instead of 1)."""

    def one_plus(a):
        return (
            isinstance(a, sp.log)
            and isinstance(a.args[0], sp.Add)
            and sp.S.One in a.args[0].args
        )

    return e.replace(one_plus, lambda a: _LOG1P(a.args[0] - 1))


def _exact_pi(e: sp.Expr) -> sp.Expr:
    """sin(pi u) -> sinpi(u): exact at large integers u, where sin(pi u) = 0 exactly."""

    def pi_multiple(a):
        return isinstance(a, (sp.sin, sp.cos)) and a.args[0].as_coefficient(sp.pi)

    return e.replace(
        pi_multiple,
        lambda a: (_SINPI if isinstance(a, sp.sin) else _COSPI)(
            a.args[0].as_coefficient(sp.pi)
        ),
    )


# ---------------------------------------------------------------- high-precision values

#: Precision ladder. Cancellation grows with the decimal exponent e of x: 1 - cos(x) and
#: exp(x) - 1 lose 2|e| digits for tiny x, sqrt(x**2 + 1) - |x| loses 2e for large x. The
#: ladder starts at 30 + 2|e| digits for |x| < 1 (30 + e above) and doubles (4 levels
#: for |x| < 1e20; 3 above, where exp(x) at thousands of digits costs seconds per point).
_BASE_DPS = 30
_STEPS = 4
_STEPS_HUGE = 3
_ZERO_LEVELS = 3  # an exact 0 is confirmed at 4 times the starting precision
#: Scales S need only their magnitude: 3 digits at 30, 60 or 120 digits.
_SCALE_LEVELS = 3


def _value(fn, x: mp.mpf, consts):
    """fn at x, as mpf; NaN where undefined (complex or an error)."""
    try:
        v = fn(x, *consts)
    except (ZeroDivisionError, ValueError, OverflowError):
        return mp.nan
    if isinstance(v, mp.mpc):
        return mp.nan if v.imag != 0 else v.real
    return mp.mpf(v)


def _agree(a, b, digits: int) -> bool:
    if mp.isnan(a) or mp.isnan(b):
        return mp.isnan(a) and mp.isnan(b)
    if a == b:
        return True
    return abs(a - b) <= mp.mpf(10) ** -digits * max(abs(a), abs(b))


def _stable_value(fn, x: float, consts, removable: bool, scale: bool = False):
    """(value, settled): the value at increasing precision until two precisions agree.

    Not settled: the last value, flagged (excluded from checks, counted in reports).
    """
    prev = None
    e10 = int(abs(np.log10(abs(x)))) if x != 0 else 0
    steps = _STEPS_HUGE if abs(x) > 1e20 else _STEPS
    start = _BASE_DPS + (e10 if abs(x) >= 1 else 2 * e10)
    levels, digits = [start << k for k in range(steps)], 18
    if scale:
        levels, digits = [_BASE_DPS << k for k in range(_SCALE_LEVELS)], 3
    for level, dps in enumerate(levels):
        with mp.workdps(dps):
            xm = mp.mpf(x)
            cs = [mp.mpf(c) for c in consts]
            v = _value(fn, xm, cs)
            if mp.isnan(v) and removable:
                h = mp.mpf(10) ** -20 * max(1, abs(xm))
                v = (_value(fn, xm + h, cs) + _value(fn, xm - h, cs)) / 2
            v = +v
        fired, tie = _GUARD["fired"], _GUARD["tie"]
        _GUARD["fired"] = _GUARD["tie"] = False
        if fired and not mp.isfinite(v):
            return v, False
        # a step at exactly 0 may be a rounding of its argument: decide at more digits
        if tie and level < len(levels) - 1 and not scale:
            prev = None
            continue
        zero_unconfirmed = v == 0 and level < _ZERO_LEVELS - 1 and not scale
        if prev is not None and _agree(prev, v, digits) and not zero_unconfirmed:
            return v, True
        prev = v
    return prev, False


@dataclass(frozen=True)
class Reference:
    """Reference values at sample points (float64 arrays; magnitude beyond float64 is inf)."""

    x: np.ndarray
    f: np.ndarray
    df: np.ndarray
    scale_f: np.ndarray  # S for f: max(1, |x|, |x f'|) with the classical f'
    scale_df: np.ndarray  # S for f': max(1, |x|, |x f''|)
    settled_f: np.ndarray  # bool: the reference for f settled (else not checked)
    settled_df: np.ndarray

    def take(self, idx: np.ndarray) -> Reference:
        return Reference(*(getattr(self, k)[idx] for k in self.__dataclass_fields__))


def _to_float(v) -> float:
    if mp.isnan(v):
        return float("nan")
    with mp.workdps(30):
        return float(v)


def _scale(x: float, slope) -> float:
    if mp.isnan(slope):
        return float("inf")
    with mp.workdps(30):
        ax = abs(mp.mpf(x))
        return _to_float(max(mp.mpf(1), ax, ax * abs(slope)))


def reference(entry: Published, xs: np.ndarray) -> Reference:
    """f, f' and the scales S at float64 points xs (values exactly representable)."""
    ex = expressions(entry)
    f_fn, df_fn, ddf_fn, cdf_fn = ex.callables
    consts = [float(entry.constants[s.name]) for s in ex.symbols]
    xs = np.asarray(xs, dtype=np.float64)
    near = _near_removable(entry, xs)
    cols: dict[str, list] = {k: [] for k in Reference.__dataclass_fields__}
    for x, rem in zip(xs.tolist(), near.tolist()):
        f, ok_f = _stable_value(f_fn, x, consts, rem)
        df, ok_df = _stable_value(df_fn, x, consts, rem)
        cdf = (
            _stable_value(cdf_fn, x, consts, rem, scale=True)[0] if entry.jumps else df
        )
        ddf = _stable_value(ddf_fn, x, consts, rem, scale=True)[0]
        for k, v in zip(
            cols,
            (
                x,
                _to_float(f),
                _to_float(df),
                _scale(x, cdf),
                _scale(x, ddf),
                ok_f,
                ok_df,
            ),
        ):
            cols[k].append(v)
    return Reference(*(np.array(v) for v in cols.values()))


def _near_removable(entry: Published, xs: np.ndarray) -> np.ndarray:
    if not entry.removable:
        return np.zeros(len(xs), dtype=bool)
    xs = np.asarray(xs, dtype=np.float64)
    near = np.zeros(len(xs), dtype=bool)
    for p in entry.removable:
        near |= np.abs(xs - p) <= 1e-2 * max(1.0, abs(p))
    return near


# ---------------------------------------------------------------- sample points


def _ulp_neighbours(p: float, dtype: str, count: int = 3) -> list[float]:
    t = np.dtype(dtype).type
    v = t(p)
    out = [v]
    up, down = v, v
    for _ in range(count):
        up = np.nextafter(up, t(np.inf))
        down = np.nextafter(down, t(-np.inf))
        out += [up, down]
    return [float(a) for a in out]


#: Magnitudes where exp, cosh, ... overflow or underflow in float32 and float64.
_EDGES = (
    15.0,
    20.0,
    30.0,
    40.0,
    50.0,
    80.0,
    87.0,
    88.0,
    88.7,
    89.0,
    90.0,
    100.0,
    103.0,
    104.0,
    200.0,
    500.0,
    700.0,
    709.0,
    709.8,
    710.0,
    745.0,
    750.0,
    1000.0,
)


@functools.cache
def _base_points(dtype: str) -> tuple[float, ...]:
    """Log-spaced magnitudes of both signs up to the overflow edge, plus a linear core.

    float32 points are float32 values; float64 adds the magnitudes beyond float32's range.
    """
    fi32 = np.finfo(np.float32)
    mags = list(10.0 ** np.linspace(-8, 3, 34))
    mags += list(10.0 ** np.arange(-45, 39, 4.0))
    mags += [float(fi32.max), float(fi32.tiny), float(fi32.smallest_subnormal)]
    mags += list(_EDGES)
    with np.errstate(over="ignore"):
        pos = np.array(mags, dtype=np.float32)
    pos = pos[np.isfinite(pos) & (pos > 0)]
    lin = np.linspace(-6, 6, 33, dtype=np.float32)
    pts = np.concatenate([[0.0], pos, -pos, lin]).astype(np.float64)
    if dtype == "float64":
        fi = np.finfo(np.float64)
        big = 10.0 ** np.arange(-320, 309, 8.0)
        big = np.concatenate(
            [
                big,
                [
                    fi.max,
                    fi.tiny,
                    fi.smallest_subnormal,
                    1e39,
                    1e50,
                    1e100,
                    1e200,
                    1e300,
                ],
            ]
        )
        big = big[np.isfinite(big) & (big > 0)]
        pts = np.concatenate([pts, big, -big])
    return tuple(float(a) for a in np.unique(pts))


def sample_points(entry: Published, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """(points of the dtype, mask of points where f' is checked).

    Near every kink and removable point: the point itself, 3 ulps either side, and offsets of
    1e-6 .. 1e-2 (relative to max(1, |p|)). f' is not checked exactly at a kink (conventions
    there are a library choice, tested elsewhere).
    """
    pts = list(_base_points(dtype))
    kinks = [float(np.dtype(dtype).type(p)) for p in entry.kinks]
    for p in (*entry.kinks, *entry.removable):
        pts += _ulp_neighbours(p, dtype)
        s = max(1.0, abs(p))
        for d in (1e-6, 1e-4, 1e-2):
            pts += [p + d * s, p - d * s]
    xs = np.unique(np.array(pts, dtype=dtype))
    xs = xs[np.isfinite(xs)]
    check_df = ~np.isin(xs.astype(np.float64), np.array(kinks, dtype=np.float64))
    return xs, check_df


@functools.cache
def corpus_reference(name: str) -> dict[str, tuple[np.ndarray, np.ndarray, Reference]]:
    """dtype -> (points, f'-check mask, Reference), computed once per session per entry."""
    return references_by_dtype(BY_NAME[name])


def references_by_dtype(
    entry: Published, judged: Published | None = None
) -> dict[str, tuple[np.ndarray, np.ndarray, Reference]]:
    """dtype -> (points, f'-check mask, Reference) at ``entry``'s sample points, the
    references from ``judged`` (the same function written otherwise) when given."""
    per = {dt: sample_points(entry, dt) for dt in ("float32", "float64")}
    union = np.unique(np.concatenate([per[dt][0].astype(np.float64) for dt in per]))
    ref = reference(judged or entry, union)
    out = {}
    for dt, (xs, mask) in per.items():
        idx = np.searchsorted(union, xs.astype(np.float64))
        out[dt] = (xs, mask, ref.take(idx))
    return out


BY_NAME = {e.name: e for e in ALL}


# ---------------------------------------------------------------- the rule


def violations(got: np.ndarray, ref: np.ndarray, scale: np.ndarray, dtype: str):
    """Boolean mask of points where got breaks issue 8's rule against ref."""
    rtol, stol = RULE[dtype]
    got = np.asarray(got, dtype=np.float64)
    big = float(np.finfo(dtype).max)
    undefined = np.isnan(ref)
    beyond = ~undefined & (np.abs(ref) > big)
    inside = ~undefined & ~beyond
    ok = np.zeros(got.shape, dtype=bool)
    ok[undefined] = np.isnan(got[undefined])
    right_inf = np.isinf(got) & (np.sign(got) == np.sign(ref))
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(got - ref)
        allowed = rtol * np.abs(ref) + stol * scale
        close = np.isfinite(got) & (err <= allowed)
    ok[beyond] = right_inf[beyond] | close[beyond]
    ok[inside] = close[inside]
    return ~ok


def ulps(got: np.ndarray, ref: np.ndarray, dtype: str) -> np.ndarray:
    """Error in units in the last place of the dtype at the reference value.

    Where the reference is beyond the dtype's range, the right-signed inf counts 0 ulps.
    Non-finite results where the reference is finite count as inf.
    """
    got = np.asarray(got, dtype=np.float64)
    fi = np.finfo(dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        below_max = np.nextafter(fi.max, fi.dtype.type(0))
        r = np.clip(np.abs(ref), float(fi.smallest_subnormal), float(below_max))
        unit = np.spacing(r.astype(dtype)).astype(np.float64)
        u = np.abs(got - ref) / unit
        u = np.where(np.isnan(u), np.inf, u)
    big = float(fi.max)
    beyond = np.isfinite(ref) & (np.abs(ref) > big) | np.isinf(ref)
    u = np.where(
        beyond, np.where(np.isinf(got) & (np.sign(got) == np.sign(ref)), 0.0, np.inf), u
    )
    u = np.where(np.isnan(ref), np.where(np.isnan(got), 0.0, np.inf), u)
    u = np.where(~np.isnan(ref) & np.isnan(got), np.inf, u)
    return u
