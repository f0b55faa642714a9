"""Rewrites of naive spellings into float32-stable forms, with a note for the user.

Only exact identities are applied (no ``simplify``, no ``optims_c99``: both were seen turning
stable forms into overflowing ones). Each rewrite returns a sentence the user sees.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from symnb.formula.branch_signs import Signs, branch_signs, sign_where_defined
from symnb.formula.budget import bounded_expand
from symnb.formula.complement_power import complement_power_minus_one
from symnb.formula.erfcx import erfcx_forms
from symnb.formula.functions import erfc, expm1, log1p, logsigmoid, sigmoid, softplus
from symnb.formula.half_tanh import expm1_sigmoid_as_tanh
from symnb.formula.log_erfc import log_erfc_forms
from symnb.formula.scaled_softplus import scaled_softplus_forms


def _exp_arg(e: sp.Expr) -> sp.Expr | None:
    """u if e is exp(u) (u*log(b) for b**u, b a positive number: 2**x overflows as
    exp(x) does, and log1p(2**x) was inf from x = 1024 in float64), else None."""
    if isinstance(e, sp.exp):
        return e.args[0]
    if (
        isinstance(e, sp.Pow)
        and e.base.is_number
        and e.base.is_positive
        and e.base != 1
        and e.exp.has(sp.Symbol)
    ):
        return e.exp * sp.log(e.base)
    return None


def _one_plus_exp(e: sp.Expr) -> sp.Expr | None:
    """u if e is 1 + exp(u), else None."""
    if isinstance(e, sp.Add) and len(e.args) == 2 and sp.S.One in e.args:
        other = e.args[0] if e.args[1] is sp.S.One else e.args[1]
        return _exp_arg(other)
    return None


def _cancels(a: sp.Expr, b: sp.Expr) -> bool:
    """a + b == 0, expanding only when the expansion stays small (no multinomial hang)."""
    total = a + b
    if total == 0:
        return True
    expanded = bounded_expand(total)
    return expanded is not None and expanded == 0


def _fmt(e: sp.Expr) -> str:
    return sp.sstr(e)


def _inverse_hyperbolic(a: sp.Expr) -> tuple[type, sp.Expr] | None:
    """(asinh, u) when a = u + sqrt(u**2 + 1); (acosh, u) for u + sqrt(u**2 - 1)."""
    if not isinstance(a, sp.Add) or len(a.args) != 2:
        return None
    for root, u in (a.args, a.args[::-1]):
        if isinstance(root, sp.Pow) and root.exp == sp.S.Half:
            rest = bounded_expand(root.base - u**2)
            if rest == 1:
                return sp.asinh, u
            if rest == -1:
                return sp.acosh, u
    return None


def _constant_plus_term(e: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """(c, m, core) when e = c + m*core, c a nonzero number, m core's numeric
    coefficient; None for other expressions."""
    if not isinstance(e, sp.Add) or len(e.args) != 2:
        return None
    c, term = e.args if e.args[0].is_number else e.args[::-1]
    if not c.is_number or c == 0:
        return None
    m, core = term.as_coeff_Mul()
    return c, m, core


_UNIT_CORES = (sp.exp, sp.tanh, sp.erf, sp.erfc, sigmoid)


def _symbol_plus_term(e: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """(c, m, core) when e = c + m*core with c and m products of numbers and symbols
    (no function call; named constants, an input) and core one exp/tanh/erf/erfc/
    sigmoid call: ``a*exp(a*x) - a`` as (-a, a, exp(a*x)). None otherwise."""
    if not isinstance(e, sp.Add) or len(e.args) != 2:
        return None
    for c, term in (e.args, e.args[::-1]):
        if c.has(sp.Function) or c == 0 or not isinstance(term, sp.Mul):
            continue
        cores = [f for f in term.args if isinstance(f, _UNIT_CORES)]
        if len(cores) != 1:
            continue
        m = sp.Mul(*[f for f in term.args if f is not cores[0]])
        if not m.has(sp.Function):
            return c, m, cores[0]
    return None


def _scaled_unit_sum(e: sp.Expr) -> tuple[sp.Expr, int, sp.Expr] | None:
    """(m, s, f(u)) when e = c + m*f(u) = m*(s + f(u)) with s = c/m = +-1, f exp, tanh or
    erf, m a number (1 - exp(-exp(x)), (1 + tanh(x/2))/2 as typed) or a product of
    symbols (``a*exp(a*x) - a``, LINEX's derivative with a named a)."""
    parts = _constant_plus_term(e) or _symbol_plus_term(e)
    if parts is None:
        return None
    c, m, core = parts
    if (
        isinstance(core, sp.erfc) and (c + 2 * m).is_zero
    ):  # m*(erfc(u) - 2) = -m*erfc(-u)
        return m, -2, core
    if not isinstance(core, (sp.exp, sp.tanh, sp.erf, sigmoid)):
        return None
    if (c - m).is_zero:  # numerically: 1 and 1.0 are equal numbers, not equal objects
        return m, 1, core
    if (c + m).is_zero:
        return m, -1, core
    return None


def _shifted_exp_minus_constant(e: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """(c, u + a) when e = m*exp(u) - c = c*expm1(u + a), a = log(m/c), m a Float of
    c's sign: SymPy splits exp(x - 0.5) into 0.6065*exp(x) as it parses, so the typed
    exp(x - 0.5) - 1 is no longer exp(u) - 1. Only where a is a 12-digit decimal within
    rounding (the typed -0.5), so that u + a is zero exactly where the typed argument
    is; None otherwise."""
    parts = _constant_plus_term(e)
    if parts is None:
        return None
    c, m, core = parts
    if not (isinstance(core, sp.exp) and isinstance(m, sp.Float) and c.is_Number):
        return None
    c, m = -float(c), float(m)
    if not c * m > 0:
        return None
    shift = math.log(m / c)
    snapped = f"{shift:.12g}"
    if abs(float(snapped) - shift) > 1e-14 * max(1.0, abs(shift)):
        return None
    # a Rational: exp(u + 0.5) would split again (expm1 evaluates through exp)
    return sp.Float(c), core.args[0] + sp.Rational(snapped)


def _scaled_exp(e: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """(m, u) when e = m*exp(u), m a product of other factors that is >= 0 for every
    real input (x**2*exp(x), 2*exp(x), x**2*(1 + x**2)*exp(-x)); None otherwise."""
    if not isinstance(e, sp.Mul):
        return None
    exps = [f for f in e.args if isinstance(f, sp.exp)]
    if len(exps) != 1:
        return None
    m = e / exps[0]
    if not (m.is_nonnegative and m.has(sp.Symbol) or m.is_positive):
        return None
    return m, exps[0].args[0]


def _log_of_product(m: sp.Expr) -> sp.Expr:
    """log(m) as a sum of the logs of m's factors when each is >= 0 (a product such
    as x**2*(1 + x**2) overflows long before its log does)."""
    factors = sp.Mul.make_args(m)
    if len(factors) > 1 and all(f.is_nonnegative for f in factors):
        return sp.Add(*[sp.log(f) for f in factors])
    return sp.log(m)


def _log_of_quotient(a: sp.Expr) -> list[tuple[sp.Expr, sp.Expr]] | None:
    """[(base, exponent), ...] of a quotient ``a`` (a product with a factor to a
    negative power, or such a power alone) whose every base is positive for every
    real input, so that log(a) = sum of exponent*log(base); None otherwise."""
    factors = [f.as_base_exp() for f in sp.Mul.make_args(a)]
    if not any(n.is_number and n.is_negative for _, n in factors):
        return None
    if not all(n.is_number and n.is_real for _, n in factors):
        return None
    if not any(b.has(sp.Symbol) for b, _ in factors):
        return None
    if all(b.is_positive for b, _ in factors):
        return factors
    return _signed_like_argument(factors)


#: Functions with the sign of their argument (odd and increasing through 0).
_SIGN_OF_ARGUMENT = (sp.sinh, sp.tanh, sp.asinh, sp.atan, sp.erf)


def _signed_like_argument(factors: list) -> list | None:
    """``factors`` with bases |b| where the quotient is positive because its other
    bases share one argument's sign an even number of times: sinh(u)/u, tanh(u)/u,
    atan(u)/u... (log(sinh(x)/x) was inf from |x| = 89 in float32 where it is about
    |x| - log(2|x|)). None when some base's sign is unknown or the count is odd."""
    count: dict[sp.Expr, sp.Expr] = {}
    for b, n in factors:
        if b.is_positive:
            continue
        u = b.args[0] if isinstance(b, _SIGN_OF_ARGUMENT) else b
        if not (u.has(sp.Symbol) and n.is_integer):
            return None
        count[u] = count.get(u, 0) + n
    if not count or any(not n.is_even for n in count.values()):
        return None
    return [(b if b.is_positive else sp.Abs(b), n) for b, n in factors]


def _sigmoid_power_unit(e: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """(m, u, q) when e = c + m*sigmoid(u)**q with c = -m, q != 1 (the generalized
    cross entropy (1 - sigmoid(x)**q)/q as typed: sigmoid(x)**q rounds towards 1 and
    1 - it cancels, 5% off at x = 10 in float32 for q = 0.01)."""
    parts = _constant_plus_term(e)
    if parts is None:
        return None
    c, m, core = parts
    if not (isinstance(core, sp.Pow) and isinstance(core.base, sigmoid)):
        return None
    if not (c + m).is_zero:
        return None
    return m, core.base.args[0], core.exp


def _power_minus_one(
    e: sp.Expr, known: Signs | None = None
) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """(m, q, w) when e = c + m*(1 + w)**q with c = -m, w >= 0 for every real x (with
    the signs ``known`` in the enclosing Piecewise branch) and every value of the
    constants, and q not an integer (Barron's general robust loss
    as typed, |a - 2|/a*(((x/c)**2/|a - 2| + 1)**(a/2) - 1): (1 + w)**q rounds
    towards 1 for a small exponent or a small w, and 1 - it cancels (with a = 0.01,
    0.5% off at x = 0.1 in float32; Barron's own code uses expm1 and log1p)."""
    parts = _constant_plus_term(e)
    if parts is None:
        return None
    c, m, core = parts
    if not (c + m).is_zero or not isinstance(core, sp.Pow):
        return None
    base, q = core.args
    if q.is_integer or (q.is_number and q.is_integer is not False):
        return None
    if q.is_Rational and q.q == 2:
        return None  # a square root: the engine's root cancellation is cheaper
    if not isinstance(base, sp.Add) or sp.S.One not in base.args:
        return None
    w = base - 1
    # a number q is no integer: (1 + w)**q is NaN for 1 + w < 0 as log1p(w) is, and
    # both are -1 or inf at w = -1; a constant q may be an integer as it trains
    if not (q.is_number or sign_where_defined(w, known or {}) == 1):
        return None
    return m, q, w


def _exp_log1p_power(e: sp.Expr) -> sp.Expr | None:
    """``exp(q*log1p(w))*(1 + w)**n`` (n an integer) as ``exp((q + n)*log1p(w))``, the
    derivative of expm1(q*log1p(w)) (:func:`_power_minus_one`) as (1 + w)**(q - 1):
    exp(q*log1p(w)) overflows where (1 + w)**(q - 1) does not (and 1 + w itself:
    Barron's loss with alpha = 4 had f' = inf*0 = NaN at x = -1e30 in float32)."""
    if not isinstance(e, sp.Mul):
        return None
    for a in e.args:
        if not isinstance(a, sp.exp):
            continue
        logs = [f for f in sp.Mul.make_args(a.args[0]) if isinstance(f, log1p)]
        if len(logs) != 1:
            continue
        w = logs[0].args[0]
        for b in e.args:
            if isinstance(b, sp.Pow) and b.exp.is_Integer and b.base == w + 1:
                rest = [f for f in e.args if f is not a and f is not b]
                q = a.args[0] / logs[0]
                return sp.Mul(*rest, sp.exp((q + b.exp) * logs[0]))
    return None


def _tidy(k: sp.Expr) -> sp.Expr:
    """An integral Float coefficient a rewrite made (0.5*2 = 1.0) as an Integer, so the
    LaTeX reads sigma(x), not 1.0 sigma(1.0 x); exact."""
    if isinstance(k, sp.Float) and float(k).is_integer():
        return sp.Integer(int(k))
    return k


def _exact_exponent(e: sp.Expr) -> sp.Expr | None:
    """The Rational equal to a Float exponent when it is one exactly with a small
    power-of-two denominator (0.5, -1.5, 2.0): (1 + x**2)**-0.5 is then a square root,
    which the root rewrites and the derivative combinations know."""
    if not isinstance(e, sp.Float):
        return None
    q = sp.Rational(e)
    if q.q in (1, 2, 4, 8) and abs(q.p) <= 64:
        return q
    return None


def _atan_offset(e: sp.Expr) -> tuple[sp.Expr, int, sp.Expr] | None:
    """(k, s, u) when e = k*(atan(u) + s*pi/2), s = +-1, k a number (the arctan
    sigmoid atan(x)/pi + 1/2 and ArcSwish as typed)."""
    if not isinstance(e, sp.Add) or len(e.args) != 2:
        return None
    c, term = e.args if e.args[0].is_number else e.args[::-1]
    if not c.is_number or c == 0:
        return None
    cores = [f for f in sp.Mul.make_args(term) if isinstance(f, sp.atan)]
    if len(cores) != 1:
        return None
    k = term / cores[0]
    if not k.is_number or k == 0:
        return None
    for s in (1, -1):
        if (c - s * k * sp.pi / 2).is_zero:
            return k, s, cores[0].args[0]
    return None


def _split_core(term: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """(k, core) when term = k * core with one Max/Min/softplus factor as core."""
    kinds = (sp.Max, sp.Min, softplus)
    if isinstance(term, kinds):
        return sp.S.One, term
    if isinstance(term, sp.Mul):
        cores = [f for f in term.args if isinstance(f, kinds)]
        if len(cores) == 1:
            core = cores[0]
            return sp.Mul(*[f for f in term.args if f is not core]), core
    return None


def _with_zero(e: sp.Expr, kind: type) -> sp.Expr | None:
    """w when e is kind(w, 0) (Max or Min of two arguments, one of them 0)."""
    if isinstance(e, kind) and len(e.args) == 2 and sp.S.Zero in e.args:
        return e.args[0] if e.args[1] == 0 else e.args[1]
    return None


def _kink_pair(k1: sp.Expr, a: sp.Expr, k2: sp.Expr, b: sp.Expr):
    """k1*a + k2*b as one smooth (or one-kink) term and its note, for the pairs that
    spell a smooth function with kinked parts; None otherwise.

    max(w,0) + log(1 + exp(-|w|)) is softplus(w) and min(w,0) - log(1 + exp(-|w|))
    logsigmoid(w) (the "stable" spellings, e.g. of BCE with logits); max(w,0) + min(w,0)
    and max(w,0) - max(-w,0) are w. Differentiated part by part, each kink takes the
    convention relu'(0) = |.|'(0) = 0, so f'(0) of the sum was wrong (stable BCE's
    gradient at a zero logit had the wrong sign); as one term it is exact.
    """
    for (ka, a_), (kb, b_) in (((k1, a), (k2, b)), ((k2, b), (k1, a))):
        top, bottom = _with_zero(a_, sp.Max), _with_zero(a_, sp.Min)
        tail = b_.args[0] if isinstance(b_, softplus) else None  # -|w| when stable
        if top is not None and kb == ka and tail == -sp.Abs(top):
            return ka * softplus(top), "max(u, 0) + log(1 + exp(-|u|)) as softplus(u)"
        if bottom is not None and kb == -ka and tail == -sp.Abs(bottom):
            return ka * logsigmoid(bottom), (
                "min(u, 0) - log(1 + exp(-|u|)) as logsigmoid(u)"
            )
        if top is not None and kb == ka and _with_zero(b_, sp.Min) == top:
            return ka * top, "max(u, 0) + min(u, 0) as u"
        if top is not None and kb == -ka and _with_zero(b_, sp.Max) == -top:
            return ka * top, "max(u, 0) - max(-u, 0) as u"
        g = _with_zero(b_, sp.Min)
        sign = None if top is None or g is None else _same_sign(g, top)
        if sign is not None and sign is not sp.false:
            term = sp.Piecewise((ka * top, top > 0), (kb * g, True))
            if sign is not sp.true:  # known when the kernel has the constants
                term = sp.Piecewise((term, sign), (ka * a_ + kb * b_, True))
            return term, (
                "max(u, 0) + min(g(u), 0) as one piecewise term (u above 0, g(u) "
                "below; the derivative at u = 0 is g'(0), as PyTorch's elu'(0) = "
                "alpha)"
            )
    return None


#: Odd functions increasing through 0: f(k*u) has the sign of k*u.
_SIGN_KEEPING = (expm1, sp.tanh, sp.sinh, sp.atan, sp.asinh, sp.erf)


def _same_sign(g: sp.Expr, u: sp.Expr) -> sp.Basic | None:
    """g(u) is > 0 for u > 0, < 0 for u < 0 and 0 at u = 0, for every value of the
    constants: g = c*u or c*f(k*u) with f in :data:`_SIGN_KEEPING` and c*k > 0 (the
    typed ELU max(0, x) + min(0, a*(exp(x) - 1)) for a > 0, CELU's
    a*(exp(x/a) - 1) for any a). Then max(u, 0) + min(g, 0) is u for u > 0 and g
    below; differentiated part by part its derivative at u = 0 was 0, neither side's
    (ELU's and CELU's is 1 on both sides; PyTorch's elu'(0) = alpha, selu'(0) =
    scale*alpha).

    Returns true, false, a condition on the constants (c*k > 0, as ELU's alpha > 0,
    tested in the kernel), or None when g is not of that shape."""
    c, core = g.as_independent(u, as_Add=False)
    if core == u:
        k = sp.S.One
    elif isinstance(core, _SIGN_KEEPING):
        k, inner = core.args[0].as_independent(u, as_Add=False)
        if inner != u:
            return None
    else:
        return None
    ck = c * k
    if ck.has(sp.Symbol) and not ck.free_symbols.isdisjoint(u.free_symbols):
        return None
    return sp.sympify(ck > 0)


def _smooth_kink_pairs(e: sp.Add, note) -> sp.Expr:
    """An Add with the pairs of :func:`_kink_pair` replaced by their one term."""
    terms = list(e.args)
    changed = True
    while changed:
        changed = False
        split = [_split_core(t) for t in terms]
        for i in range(len(terms)):
            for j in range(i + 1, len(terms)):
                if split[i] is None or split[j] is None:
                    continue
                found = _kink_pair(*split[i], *split[j])
                if found is not None:
                    term, text = found
                    if "u = 0" not in text:
                        text += " (no kink: the exact derivative at u = 0)"
                    note("rewrote " + text)
                    terms = [t for k, t in enumerate(terms) if k not in (i, j)] + [term]
                    changed = True
                    break
            if changed:
                break
    return sp.Add(*terms)


#: Largest integral Float turned into an Integer before the rewrites (printed as a
#: literal either way; bigger ones stay Floats so no huge integer reaches the source).
_INTEGRAL_FLOAT_LIMIT = 2**24


def _integral_floats(expr: sp.Expr) -> sp.Expr:
    """Integral Floats (1.0, -2.0) as Integers, exactly: the rewrites below match
    ``1 + exp(u)`` and ``u - 1`` by the Integer, so ``log(1.0 + exp(x))`` inside a
    larger formula stayed as typed (mish typed with 1.0 was 0 instead of -2e-8 at
    x = -20 in float32). The Integer is the float's: ``int`` of the Float truncates,
    and 1e200*1e-200 parses as 0.99999999999999998..., so x*1e200*1e-200 was 0."""
    floats = {
        f: sp.Integer(int(float(f)))
        for f in expr.atoms(sp.Float)
        if float(f).is_integer() and abs(float(f)) <= _INTEGRAL_FLOAT_LIMIT
    }
    return expr.xreplace(floats) if floats else expr


def _hyperbolic_ratio(e: sp.Mul) -> sp.Expr | None:
    """e with sinh(u)**p * cosh(u)**-p replaced by tanh(u)**p (the Langevin function
    typed cosh(x)/sinh(x) - 1/x was NaN from |x| = 100 in float32, inf/inf, and its
    derivative from |x| = 50); None when e holds no such pair."""
    powers: dict[sp.Expr, sp.Expr] = {}
    for f in e.args:
        base, p = f.as_base_exp()
        if isinstance(base, (sp.sinh, sp.cosh)):
            powers[base] = powers.get(base, sp.S.Zero) + p
    for base, p in powers.items():
        if isinstance(base, sp.sinh):
            u = base.args[0]
            q = powers.get(sp.cosh(u))
            if q is not None and (p + q) == 0 and p.is_number:
                rest = [
                    f for f in e.args if f.as_base_exp()[0] not in (base, sp.cosh(u))
                ]
                return sp.Mul(*rest, sp.tanh(u) ** p)
    return None


def _exp_term(t: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """(c, u) when t = c*exp(u) with c free of exp; None otherwise."""
    if isinstance(t, sp.exp):
        return sp.S.One, t.args[0]
    if isinstance(t, sp.Mul):
        exps = [f for f in t.args if isinstance(f, sp.exp)]
        if len(exps) == 1:
            c = sp.Mul(*[f for f in t.args if f is not exps[0]])
            if not c.has(sp.exp):
                return c, exps[0].args[0]
    return None


def _exp_pair(e: sp.Add) -> sp.Expr | None:
    """e with c*exp(u) + c*exp(-u) replaced by 2c*cosh(u) and c*exp(u) - c*exp(-u) by
    2c*sinh(u); None when e holds no such pair. (exp(x) - exp(-x))/2 overflowed one
    step before sinh: inf at x = 89 in float32 (sinh(89) = 2.2e38) and 709.8 in
    float64."""
    terms = list(e.args)
    split = [_exp_term(t) for t in terms]
    for i, a in enumerate(split):
        if a is None:
            continue
        for j in range(i + 1, len(terms)):
            b = split[j]
            if b is None or not _cancels(a[1], b[1]):
                continue
            if a[0] == b[0]:
                pair = 2 * a[0] * sp.cosh(a[1])
            elif _cancels(a[0], b[0]):
                pair = 2 * a[0] * sp.sinh(a[1])
            else:
                continue
            rest = [t for k, t in enumerate(terms) if k not in (i, j)]
            return sp.Add(*rest, pair)
    return None


#: Largest k for which cos(k*acos(u)) becomes the Chebyshev polynomial T_k(u).
_CHEBYSHEV_MAX = 8


def _chebyshev(a: sp.Expr) -> sp.Expr | None:
    """T_k(u) expanded when a is k*acos(u), or (-1)**(k/2) T_k(u) when a is k*asin(u)
    with k even (asin(u) = pi/2 - acos(u)); k a nonzero integer up to
    _CHEBYSHEV_MAX in size. None otherwise."""
    k, inner = a.as_coeff_Mul()
    if not (k.is_Integer and 1 <= abs(k) <= _CHEBYSHEV_MAX):
        return None
    k = abs(int(k))  # cos is even
    if isinstance(inner, sp.acos):
        sign = 1
    elif isinstance(inner, sp.asin) and k % 2 == 0:
        sign = (-1) ** (k // 2)
    else:
        return None
    t = sp.Dummy("t", real=True)
    return sign * sp.expand(sp.chebyshevt(k, t)).xreplace({t: inner.args[0]})


#: Inverse pairs g(h(u)) equal to u for every real u (h's range lies in g's domain,
#: h is one-to-one); acosh(cosh(u)) is |u|. Not the other way round: tanh(atanh(u))
#: is u for |u| < 1 only (NaN beyond), exp(log(u)) for u > 0, expm1(log1p(u)) for
#: u > -1, so those stay. SymPy folds log(exp(u)) and sinh(asinh(u)) to u, sqrt(u**2)
#: to |u| by itself (exact), and also tanh(atanh(u)), cosh(acosh(u)), exp(log(u)) to u
#: when they are built (outside their domains too: not this module's doing).
_INVERSE_PAIRS = (
    (sp.atanh, sp.tanh),
    (sp.asinh, sp.sinh),
    (sp.acosh, sp.cosh),
    (log1p, expm1),
)


def _cube_root_of_cube(e: sp.Expr) -> sp.Expr | None:
    """u**m for cbrt(u**(3m)) with m odd (cbrt as ``functions._cbrt`` builds it:
    Piecewise((w**(1/3), w >= 0), (-(-w)**(1/3), True)))."""
    if not isinstance(e, sp.Piecewise) or len(e.args) != 2:
        return None
    (a, cond), (b, last) = e.args
    third = sp.Rational(1, 3)
    if not (isinstance(a, sp.Pow) and a.exp == third) or last != sp.true:
        return None
    w = a.base
    if not isinstance(cond, sp.Rel) or cond.canonical != (w >= 0).canonical:
        return None
    if b != -((-w) ** third):
        return None
    c, p = w.as_coeff_Mul()
    if c != 0 and isinstance(p, sp.Pow) and p.exp.is_Integer and p.exp % 6 == 3:
        return sp.sign(c) * sp.Abs(c) ** third * p.base ** (p.exp // 3)
    return None


def _inverse_of_inner(e: sp.Expr) -> tuple[sp.Expr, str] | None:
    """(u, note) (|u| for acosh) when e is an inverse applied to its function."""
    for outer, inner in _INVERSE_PAIRS:
        if isinstance(e, outer) and isinstance(e.args[0], inner):
            u = e.args[0].args[0]
            if outer is sp.acosh:
                return sp.Abs(u), "rewrote acosh(cosh(u)) as |u| (exact for real u)"
            what = f"{outer.__name__}({inner.__name__}(u))"
            return u, f"rewrote {what} as u (exact for every real u)"
    cube = _cube_root_of_cube(e)
    if cube is not None:
        return cube, "rewrote cbrt(u^3) as u (exact for every real u)"
    return None


def _one_minus_clamp(m: sp.Expr) -> sp.Expr | None:
    """1 - m for m a max/min (a clip) of terms, the 1 - taken into its terms:
    ``1 - min(1 - eps, max(eps, p))`` is ``max(eps, 1 - max(eps, p))``, else None.
    An inner clip keeps its own bounds: flipped too (``min(1 - eps, 1 - p)``), its
    kink moved to p = 1 - (1 - eps) in binary, one ulp from the outer one's eps, and
    torch.logit(x, eps=1e-6)'s f' lost its 1/(1 - x) term just above eps.
    """
    if not isinstance(m, (sp.Min, sp.Max)):
        return None
    flip = sp.Max if isinstance(m, sp.Min) else sp.Min
    return flip(*(_one_minus(a) for a in m.args))


def _one_minus(a: sp.Expr) -> sp.Expr:
    """1 - a; for a float a, the shortest decimal within a's rounding error of it:
    ``1 - (1 - eps)`` with eps = 1e-6 was 1.0000000000287557e-6 (0.999999's binary
    error), so torch.logit(x, eps=1e-6)'s two clamps disagreed and its f' missed the
    1/(1 - x) term one ulp above eps (1e-6 relative off in float64)."""
    if not isinstance(a, sp.Float):
        return 1 - a
    v = 1 - float(a)
    tol = float(np.spacing(float(a)))
    for digits in range(1, 18):
        c = float(f"{v:.{digits}g}")
        if abs(c - v) <= tol:
            return sp.Float(c)
    return 1 - a


def _log_one_minus_clamp(rest: sp.Expr, note) -> sp.Expr | None:
    """log(1 + rest) for rest = -clip(...) as the log of the clip of 1 - its terms:
    ``log(1 - clip(p, eps, 1 - eps))`` rounded 1 - eps to 1 in float32 for eps <
    3e-8 (BCE with eps = 1e-8 was inf at p = 1, its value -log(eps) = 18.4); 1 - p
    is exact there and eps is kept (Keras clips so that log(1 - p) >= log(eps))."""
    flipped = _one_minus_clamp(-rest)
    if flipped is None:
        return None
    note(
        "rewrote log(1 - clip(u, a, b)) as log(clip(1 - u, 1 - b, 1 - a)): 1 - b "
        "rounds to 1 for a tiny b, 1 - u does not lose the clip"
    )
    return sp.log(flipped)


def _log_one_minus(a: sp.Expr, note) -> sp.Expr | None:
    """log1p(a) for a = -tanh(u)**2, -exp(u) or -sigmoid(u), as a log that does not
    round: tanh(u)**2, exp(u) and sigmoid(u) round to 1 near the log's pole. A flow's tanh log-determinant ``log(1 -
    tanh(x)**2)`` was -inf from |x| = 9 in float32 (19 in float64) where it is about
    2 log 2 - 2|x|; log1mexp typed ``log1p(-exp(-x))`` -inf at x = 1e-8 in float32
    instead of log(1e-8)."""
    m = -a
    if isinstance(m, sp.Pow) and m.exp == 2 and isinstance(m.base, sp.tanh):
        note("rewrote log(1 - tanh(u)**2) as -2*log(cosh(u)) (tanh(u)**2 rounds to 1)")
        return -2 * sp.log(sp.cosh(m.base.args[0]))
    if isinstance(m, sp.exp):
        note("rewrote log(1 - exp(u)) as log(-expm1(u)) (exp(u) rounds to 1)")
        return sp.log(-expm1(m.args[0]))
    k, core = a.as_coeff_Mul()
    if abs(k) == 1 and isinstance(core, sp.tanh):
        # log1p(tanh(x)) typed as such was -inf from x = -9 in float32 (-19 in
        # float64) where it is about 2x + log 2: 1 +- tanh(u) = 2*sigmoid(+-2u)
        note("rewrote log(1 +- tanh(u)) as log(2) + logsigmoid(+-2u) (no rounding)")
        return sp.log(2) + logsigmoid(2 * k * core.args[0])
    if isinstance(m, sigmoid):
        # the log-odds log(p) - log1p(-p) at p = sigmoid(x) was inf from x = 20 in
        # float32 (40 in float64) where it is x: sigmoid(x) rounds to 1
        note("rewrote log(1 - sigmoid(u)) as logsigmoid(-u) (sigmoid(u) rounds to 1)")
        return logsigmoid(-m.args[0])
    return None


def stabilize(expr: sp.Expr) -> tuple[sp.Expr, list[str]]:
    """Rewrite naive spellings of softplus, sigmoid, logsigmoid, log1p, expm1, log-cosh.

    Returns the rewritten expression and one note per kind of rewrite made.
    """
    notes: list[str] = []
    expr = _integral_floats(expr)

    def note(text: str) -> None:
        if text not in notes:
            notes.append(text)

    known: list[Signs] = [{}]  # the variable's signs in the enclosing branch

    def rewrite(e: sp.Expr) -> sp.Expr:
        if not e.args:
            return e
        if isinstance(e, sp.Piecewise):
            e = _rewrite_branches(e)
        else:
            args = [rewrite(a) for a in e.args]
            e = e.func(*args) if tuple(args) != e.args else e
        if isinstance(e, sp.Pow) and _exact_exponent(e.exp) is not None:
            e = e.base ** _exact_exponent(e.exp)
        # exp(u) / (1 + exp(u)): its denominator was already rewritten to sigmoid(-u)
        if isinstance(e, sp.Mul):
            factors = list(e.args)
            for i, a in enumerate(factors):
                u = _exp_arg(a)
                if u is None:
                    continue
                for j, b in enumerate(factors):
                    if j != i and isinstance(b, sigmoid) and _cancels(b.args[0], u):
                        rest = [f for k, f in enumerate(factors) if k not in (i, j)]
                        note(f"rewrote exp({_fmt(u)})/(1 + exp({_fmt(u)})) as sigmoid")
                        return sp.Mul(*rest, sigmoid(u))
        # (exp(v) - 1)/(exp(v) + 1) = expm1(v)*sigmoid(-v) -> tanh(v/2)
        half = expm1_sigmoid_as_tanh(e, _cancels)
        if half is not None:
            note(
                "rewrote (exp(v) - 1)/(exp(v) + 1) as tanh(v/2) (expm1(v) overflows "
                "where the quotient is +-1)"
            )
            return rewrite(half)
        if isinstance(e, sp.Mul):
            ratio = _hyperbolic_ratio(e)
            if ratio is not None:
                note(
                    "rewrote sinh(u)/cosh(u) as tanh(u) (cosh(u)/sinh(u) as "
                    "1/tanh(u)): sinh and cosh overflow (inf/inf) long before their "
                    "ratio is +-1"
                )
                return ratio
        # 1 / (1 + exp(-u))  ->  sigmoid(u)
        if isinstance(e, sp.Pow) and e.exp == -1:
            u = _one_plus_exp(e.base)
            if u is not None:
                note(f"rewrote 1/(1 + exp({_fmt(u)})) as sigmoid({_fmt(-u)})")
                return sigmoid(-u)
        # atanh(tanh(u)) -> u and the other inverse pairs exact for every real u:
        # tanh rounds to +-1 (atanh(tanh(x)) was inf from x = 9.01 in float32), sinh,
        # cosh, expm1 and u^3 overflow long before u does
        inverse = _inverse_of_inner(e)
        if inverse is not None:
            note(inverse[1])
            return inverse[0]
        # asin(tanh(u)) -> atan(sinh(u)) (the Gudermannian): tanh rounds to +-1 long
        # before asin(tanh(u)) reaches +-pi/2 (9e-5 off at u = 10 in float32)
        if isinstance(e, sp.asin) and isinstance(e.args[0], sp.tanh):
            u = e.args[0].args[0]
            note("rewrote asin(tanh(u)) as atan(sinh(u)) (tanh rounds to 1 near pi/2)")
            return sp.atan(sp.sinh(u))
        # cos(k*acos(u)) -> T_k(u), the Chebyshev polynomial (and cos(k*asin(u)) for
        # even k, (-1)**(k/2) T_k(u)): acos' is infinite at u = +-1, where the
        # composition's derivative is finite (SphereFace's cos(2 acos(p)) had f' NaN or
        # inf at p = +-1 instead of +-4)
        if isinstance(e, sp.cos):
            chebyshev = _chebyshev(e.args[0])
            if chebyshev is not None:
                note(
                    "rewrote cos(k*acos(u)) as its Chebyshev polynomial T_k(u) (acos' "
                    "is infinite at u = +-1, the composition's derivative is not); "
                    "NaN for |u| > 1 as acos there"
                )
                # only on acos's domain: outside, the typed form is NaN in NumPy, C
                # and PyTorch, and T_k(u) gave 23.5 for cos(4 acos(-1.5))
                u = e.args[0].as_coeff_Mul()[1].args[0]
                return sp.Piecewise((chebyshev, sp.Abs(u) <= 1), (e, True))
        # acosh(1 + t) -> 2 asinh(sqrt(t/2)) (cosh(2a) = 1 + 2 sinh(a)^2; NaN for t < 0
        # as before): 1 + t rounds to 1 for small t (acosh(1 + x^2) was 0 instead of
        # 1.4e-6 at x = 1e-6 in float32) and overflows with x^2 (inf from x = 1e20)
        if isinstance(e, sp.acosh):
            a = e.args[0]
            if isinstance(a, sp.Add) and sp.S.One in a.args and a.has(sp.Symbol):
                t = a - 1
                note("rewrote acosh(1 + t) as 2*asinh(sqrt(t/2)) (1 + t not rounded)")
                return 2 * sp.asinh(sp.sqrt(t / 2))
        if isinstance(e, sp.log):
            a = e.args[0]
            inverse = _inverse_hyperbolic(a)
            if inverse is not None:
                fn, u = inverse
                note(
                    f"rewrote log(u + sqrt(u^2 {'+' if fn is sp.asinh else '-'} 1)) as "
                    f"{fn.__name__}(u) (no cancellation for u < 0, no overflow of u^2)"
                )
                return fn(u)
            u = _one_plus_exp(a)
            if u is not None:
                note(f"rewrote log(1 + exp({_fmt(u)})) as softplus({_fmt(u)})")
                return softplus(u)
            if isinstance(a, sigmoid):
                note(f"rewrote log(sigmoid({_fmt(a.args[0])})) as logsigmoid")
                return logsigmoid(a.args[0])
            if (
                isinstance(a, sp.Pow)
                and a.exp.is_Integer
                and a.exp.is_even
                and a.base.is_real
            ):
                # log(u**2) -> 2 log|u|: u**2 overflows (x**2*log(x**2) had f' -inf
                # from |x| = 1e154 in float64) and underflows to 0 (f NaN, 0*log(0))
                note(f"rewrote log({_fmt(a)}) as {a.exp}*log(|{_fmt(a.base)}|)")
                return a.exp * sp.log(sp.Abs(a.base))
            split = _log_of_quotient(a)
            if split is not None:
                # log(c/(2 + x**2)) -> log(c) - log(2 + x**2): the quotient
                # underflows to 0 (f -inf from |x| = 1.8e19 in float32) long
                # before the difference of the logs leaves the float range
                note(f"rewrote log({_fmt(a)}) as a sum of logarithms")
                return sp.Add(*[n * rewrite(sp.log(b)) for b, n in split])
            k, core = a.as_coeff_Mul()
            if isinstance(core, sp.cosh) and k.is_positive and k != 1:
                # log(2*cosh(u)), as log(exp(u) + exp(-u)) becomes
                return sp.log(k) + rewrite(sp.log(core))
            if isinstance(a, sp.Abs) and isinstance(a.args[0], sp.sinh):
                u = a.args[0].args[0]
                note(
                    f"rewrote log(|sinh({_fmt(u)})|) as |u| - log(2) + "
                    "log1p(-exp(-2|u|)) "
                    "for |u| >= 1 (sinh overflows in float32 past |u| = 89)"
                )
                au = sp.Abs(u)
                return sp.Piecewise(
                    (sp.log(a), au < 1),
                    (au - sp.log(2) + log1p(-sp.exp(-2 * au)), True),
                )
            if isinstance(a, sp.cosh):
                u = a.args[0]
                note(
                    f"rewrote log(cosh({_fmt(u)})) as log1p(2 sinh(u/2)^2) for |u| < 1 (no "
                    "cancellation near 0) and |u| + softplus(-2|u|) - log(2) beyond (cosh "
                    "overflows in float32 past |u| = 89; cosh is even, so -2|u| cannot overflow)"
                )
                au = sp.Abs(u)
                return sp.Piecewise(
                    (log1p(2 * sp.sinh(u / 2) ** 2), au < 1),
                    (au + softplus(-2 * au) - sp.log(2), True),
                )
            if isinstance(a, sp.Add) and sp.S.One in a.args and len(a.args) == 2:
                rest = a - 1
                clamped = _log_one_minus_clamp(rest, note)
                if clamped is not None:
                    return clamped
                if rest.has(sp.Symbol):
                    if _scaled_exp(rest) is not None:
                        return rewrite(log1p(rest))  # softplus, below
                    one_minus = _log_one_minus(rest, note)
                    if one_minus is not None:
                        return rewrite(one_minus)
                    note(f"rewrote log(1 + {_fmt(rest)}) as log1p({_fmt(rest)})")
                    return log1p(rest)
        # log1p(exp(u)) -> softplus(u): exp(u) overflows long before the value does
        if isinstance(e, log1p):
            clamped = _log_one_minus_clamp(e.args[0], note)
            if clamped is not None:
                return clamped
            one_minus = _log_one_minus(e.args[0], note)
            if one_minus is not None:
                return rewrite(one_minus)
            u = _exp_arg(e.args[0])
            if u is not None:
                note(f"rewrote log1p(exp({_fmt(u)})) as softplus({_fmt(u)})")
                return softplus(u)
            scaled = _scaled_exp(e.args[0])
            if scaled is not None:  # log1p(m*exp(u)) = softplus(u + log(m)), m >= 0
                m, u = scaled
                note(
                    f"rewrote log(1 + {_fmt(e.args[0])}) as softplus({_fmt(u)} + "
                    f"log({_fmt(m)})) (exp({_fmt(u)}) overflows long before the value "
                    "does)"
                )
                return softplus(u + rewrite(_log_of_product(m)))
        # c + k*exp(u), c + k*tanh(u), c + k*erf(u) with c = -+k: k*expm1(u),
        # 2k sigmoid(+-2u), k erfc(-+u) (1 - exp(-exp(x)), (1 + tanh(x/2))/2 spelled out)
        scaled = _scaled_unit_sum(e)
        if scaled is not None:  # e = m*(s + f(u)), s = +-1 (-2 for erfc)
            m, s_, core = scaled
            u = core.args[0]
            if isinstance(core, sp.erfc):
                note("rewrote 2 - erfc(u) as erfc(-u) (no cancellation)")
                return _tidy(-m) * erfc(-u)
            if isinstance(core, sigmoid) and s_ < 0:
                note(
                    f"rewrote 1 - sigmoid({_fmt(u)}) as sigmoid({_fmt(-u)}) (no cancellation)"
                )
                return _tidy(-m) * sigmoid(-u)
            if isinstance(core, sp.exp) and s_ < 0:
                note(
                    f"rewrote exp({_fmt(u)}) - 1 as expm1({_fmt(u)}) (no cancellation)"
                )
                return m * expm1(u)
            if isinstance(core, sp.tanh):  # s + tanh(u) = s*2*sigmoid(2su)
                note(f"rewrote 1 {'+' if s_ > 0 else '-'} tanh(u) as 2*sigmoid(+-2u)")
                k, v = u.as_coeff_Mul()
                return _tidy(2 * m * s_) * sigmoid(_tidy(2 * s_ * k) * v)
            if isinstance(core, sp.erf):  # s + erf(u) = s*erfc(-su)
                note(
                    f"rewrote 1 {'+' if s_ > 0 else '-'} erf(u) as erfc (no cancellation)"
                )
                return m * s_ * erfc(-s_ * u)
        shifted = _shifted_exp_minus_constant(e)
        if shifted is not None:  # m*exp(u) - c = c*expm1(u + log(m/c))
            c, v = shifted
            note(f"rewrote {_fmt(e)} as {_fmt(c)}*expm1({_fmt(v)}) (no cancellation)")
            return _tidy(c) * expm1(v)
        powered = _sigmoid_power_unit(e)
        if powered is not None:  # m*(sigmoid(u)**q - 1) = m*expm1(q*logsigmoid(u))
            m, u, q = powered
            note(
                "rewrote 1 - sigmoid(u)**q as -expm1(q*logsigmoid(u)) (no cancellation "
                "where sigmoid(u)**q is near 1)"
            )
            return m * expm1(q * logsigmoid(u))
        complement = complement_power_minus_one(e)
        if complement is not None:  # m*((-expm1(v))**q - 1) = m*expm1(q*log1mexp(v))
            note(
                "rewrote 1 - (1 - exp(v))**q as -expm1(q*log(1 - exp(v))) (no "
                "cancellation where the power is near 1)"
            )
            return complement
        raised = _power_minus_one(e, known[-1])
        if raised is not None:  # m*((1 + w)**q - 1) = m*expm1(q*log1p(w))
            m, q, w = raised
            note(
                "rewrote (1 + w)**q - 1 as expm1(q*log1p(w)) (no cancellation where "
                "(1 + w)**q is near 1)"
            )
            return m * expm1(q * log1p(w))
        offset = _atan_offset(e)
        if offset is not None:  # atan(u) + s pi/2 = -atan(1/u) where s*u < 0
            k, s_, u = offset
            note(
                f"rewrote atan(u) {'+' if s_ > 0 else '-'} pi/2 as -atan(1/u) for "
                f"{'u < -1' if s_ > 0 else 'u > 1'} (no cancellation)"
            )
            return k * sp.Piecewise(
                (-sp.atan(1 / u), s_ * u < -1), (sp.atan(u) + s_ * sp.pi / 2, True)
            )
        if isinstance(e, sp.Add) and e.has(sp.exp):
            paired = _exp_pair(e)
            if paired is not None:
                note(
                    "rewrote exp(u) +- exp(-u) as 2 cosh(u) or 2 sinh(u) (each exp "
                    "overflows where half their sum does not)"
                )
                return rewrite(paired)
        if isinstance(e, sp.Add) and e.has(sp.Max, sp.Min):
            e = _smooth_kink_pairs(e, note)
            if not isinstance(e, sp.Add):
                return e
        # exp(u) - 1  ->  expm1(u), and 1 - exp(u) -> -expm1(u) inside a longer sum
        # (x**2 + 1 - exp(x**2), the sign of min(exp(x**2), 1 + x**2)'s step, was 0
        # in float32 for |x| < 0.013, where the two sides round to one float)
        for one, k in ((sp.S.NegativeOne, 1), (sp.S.One, -1)):
            if not (isinstance(e, sp.Add) and one in e.args):
                continue
            others = [a for a in e.args if a is not one]
            for i, a in enumerate(others):
                u = _exp_arg(k * a)
                if u is not None:
                    note(f"rewrote exp({_fmt(u)}) - 1 as expm1({_fmt(u)})")
                    rest = others[:i] + others[i + 1 :]
                    return sp.Add(*rest, k * expm1(u))
        return e

    def _rewrite_branches(pw: sp.Piecewise) -> sp.Expr:
        """Each branch rewritten knowing the signs its condition (and the earlier
        conditions' failing) gives the variable."""
        pairs = []
        for (branch, cond), signs in zip(pw.args, branch_signs(pw, known[-1])):
            known.append(signs)
            try:
                branch = rewrite(branch)
            finally:
                known.pop()
            pairs.append((branch, rewrite(cond)))
        pairs += [(b, c) for b, c in pw.args[len(pairs) :]]
        if all(b is a.expr and c is a.cond for (b, c), a in zip(pairs, pw.args)):
            return pw
        return sp.Piecewise(*pairs)

    expr = log_erfc_forms(rewrite(expr), note)  # symnb.formula.log_erfc
    expr = erfcx_forms(expr, note)  # symnb.formula.erfcx
    expr = scaled_softplus_forms(expr, note)  # symnb.formula.scaled_softplus
    return _piecewise_linear_sums(expr, note), notes


def _sigmoid_over_sum(e: sp.Expr) -> sp.Expr | None:
    """sigmoid(v)*(a + k/u) as sigmoid(v)*a + sigmoid(v)*k/u: what SymPy gives for
    softplus(v)' with v = b + log(m) (log(1 + x**2*exp(x))' is (1 + 2/x)*sigmoid(x +
    2 log|x|)). Near x = 0, 2/x overflows where sigmoid underflows to 0 (inf*0 = NaN
    at subnormal x); sigmoid(v)*2/x is 0 there, as the derivative nearly is."""
    if not isinstance(e, sp.Mul):
        return None
    sigmoids = [f for f in e.args if isinstance(f, sigmoid)]
    sums = [f for f in e.args if isinstance(f, sp.Add)]
    if len(sigmoids) != 1 or len(sums) != 1:
        return None
    total = sums[0]
    if not any(
        isinstance(f, sp.Pow) and f.exp.is_negative and f.base.has(sp.Symbol)
        for t in total.args
        for f in sp.Mul.make_args(t)
    ):
        return None
    rest = e / total
    return sp.Add(*[rest * t for t in total.args], evaluate=False)


def _sign_times_self(e: sp.Expr) -> sp.Expr | None:
    """u*sign(u)*rest as |u|*rest (exact for real u, 0 included): what SymPy's d|u|/du
    leaves in a product, so that terms over |u| can cancel symbolically."""
    if not isinstance(e, sp.Mul):
        return None
    for f in e.args:
        if isinstance(f, sp.sign) and f.args[0] in e.args:
            u = f.args[0]
            rest = [g for g in e.args if g is not f and g != u]
            if len(rest) == len(e.args) - 2:
                return sp.Mul(sp.Abs(u), *rest)
    for f in e.args:
        if isinstance(f, sp.sign):
            rest = _without_factors(e, f, f.args[0])
            if rest is not None:
                return sp.Abs(f.args[0]) * rest
    return None


def _without_factors(e: sp.Mul, sign_u: sp.Expr, u: sp.Expr) -> sp.Expr | None:
    """e/(sign(u)*u) when u is a product k*m (k a number) whose every factor of m is
    a factor of e to at least its power (c0**2*x*sign(c0*x) -> c0; the scaled
    Elliott's c*x/(1 + |c*x|)' was c/(1 + u) - c*u/(1 + u)**2 with u = |c*x|, the
    terms 1e-8 apart and 20 of 187 points off in float32 with c = 1e8, where over
    one denominator it is c/(1 + u)**2); None otherwise."""
    k, m = u.as_coeff_Mul()
    if k == 0 or not isinstance(m, (sp.Mul, sp.Symbol, sp.Pow)):
        return None
    have = sp.Mul(*[g for g in e.args if g is not sign_u]).as_powers_dict()
    for base, p in m.as_powers_dict().items():
        if not (p.is_Integer and p > 0):
            return None
        q = have.get(base, sp.S.Zero)
        if not (q.is_Integer and q >= p):
            return None
    return sp.Mul(*[g for g in e.args if g is not sign_u]) / u


def _sign_of_product(e: sp.Expr) -> sp.Expr | None:
    """sign(a*b) as sign(a)*sign(b) (exact for reals): the product underflows to 0
    where neither factor is 0, and its sign with it (d|beta*x|/dx, beta*sign(beta*x),
    was 0 instead of 0.5 at x = 1.4e-45 in float32 with beta = 0.5)."""
    if isinstance(e, sp.sign) and isinstance(e.args[0], sp.Mul):
        return sp.Mul(*(sp.sign(f) for f in e.args[0].args))
    return None


def _stable_step(e: sp.Expr) -> sp.Expr | None:
    """A step whose argument has an exponential, with that argument stabilized: the
    steps of a max/min derivative hold the difference of the sides as SymPy writes it,
    ``x**2 + 1 - exp(x**2)`` for min(exp(x**2), 1 + x**2), which cancels to 0 in
    float32 for |x| < 0.013 (a tie, f' 2x exp(x^2) instead of 2x, 1e-4 relative off);
    ``x**2 - expm1(x**2)`` keeps its sign."""
    if not isinstance(e, sp.Heaviside) or not e.args[0].has(sp.exp):
        return None
    u = stabilize(e.args[0])[0]
    return None if u == e.args[0] else sp.Heaviside(u, *e.args[1:])


def _combined_powers(e: sp.Expr) -> sp.Expr | None:
    """A product with two powers of one base B (not a number, not e) as one power:
    B**a * B**b = B**(a + b), exact for B != 0 and the limit at B = 0.

    SymPy differentiates B**p (p a constant) as p*B**p/B: relu(x)**p had f' = 0/0 = NaN
    for every x < 0, the focal loss's (1 - sigmoid)**g term from x = 20 in float32."""
    if not isinstance(e, sp.Mul):
        return None
    groups: dict[sp.Expr, list[sp.Expr]] = {}
    for f in e.args:
        base, power = f.as_base_exp()
        groups.setdefault(base, []).append(power)
    if all(
        len(powers) == 1 or base.is_number or base is sp.E
        for base, powers in groups.items()
    ):
        return None
    factors = []
    for base, powers in groups.items():
        if base.is_number or base is sp.E:
            factors += [base**p for p in powers]
        else:
            factors.append(base ** sp.Add(*powers))
    return sp.Mul(*factors)


def _flat_side_zero(e: sp.Expr) -> sp.Expr | None:
    """Heaviside(u)*rest as 0 for u <= 0 when rest has a power of a Max/Min that may be
    infinite there: the function is flat for u < 0, so its derivative is 0, where the
    product was 0*inf = NaN (sqrt(relu(x))' is Heaviside(x)/(2*sqrt(Max(0, x))))."""
    if not isinstance(e, sp.Mul):
        return None
    steps = [f for f in e.args if isinstance(f, sp.Heaviside)]
    singular = any(
        isinstance(f, sp.Pow)
        and f.base.has(sp.Max, sp.Min)
        and not (f.exp.is_integer and f.exp.is_nonnegative)
        for f in e.args
    )
    if not steps or not singular:
        return None
    # and at u = 0: a derivative's steps all become H(u, 0) (the left derivative at a
    # kink, formula._fix_kinks), so the product is 0 there too
    return sp.Piecewise((0, sp.Or(*[h.args[0] <= 0 for h in steps])), (e, True))


def _shifted_abs(base: sp.Expr) -> bool:
    """base = c + k*|u| with c and k free of u's symbols (a + |x|)."""
    terms = sp.Add.make_args(base)
    marked = [t for t in terms if t.has(sp.Abs)]
    if len(marked) != 1:
        return False
    k, core = marked[0].as_independent(sp.Abs, as_Add=False)
    if not isinstance(core, sp.Abs):
        return False
    inner = core.free_symbols
    return all(
        not (t.free_symbols & inner) for t in terms if t is not marked[0]
    ) and not (k.free_symbols & inner)


def _same_base_powers(e: sp.Expr) -> sp.Expr | None:
    """A sum of terms k_i * B**p_i with one base B (p_i not integers) as
    B**min(p) * expand(sum k_i B**(p_i - min p)), when the expanded sum is simpler.

    The derivative of ISRU x*(1 + a x^2)^(-1/2) is (1 + a x^2)^(-1/2) - a x^2 (1 +
    a x^2)^(-3/2): two terms that cancel, so f' lost every digit from |x| ~ 1e4 in
    float32 and had the wrong sign at 1e5; as one term it is (1 + a x^2)^(-3/2)."""
    if not isinstance(e, sp.Add) or len(e.args) > 8:
        return None
    base, parts = None, []
    for t in e.args:
        powers = [
            f
            for f in (t.args if isinstance(t, sp.Mul) else (t,))
            if isinstance(f, sp.Pow)
            and isinstance(f.exp, sp.Rational)
            and isinstance(f.base, sp.Add)
            # negative integer powers of c + k|u| (softsign's 1/(1+|x|) - |x|/(1+|x|)^2)
            # and of sums without |u| (P'/Q - P Q'/Q^2 of 1 + x^2, Geman-McClure's f');
            # a safe rational's 1 + |b1 x| + |b2 x^2| ... (PAU) stays as the kernels tune it
            and (
                not f.exp.is_integer
                or (
                    f.exp.is_negative
                    and (_shifted_abs(f.base) or not f.base.has(sp.Abs))
                )
            )
        ]
        if len(powers) != 1 or (base is not None and powers[0].base != base):
            return None
        base = powers[0].base
        parts.append((t / powers[0], powers[0].exp))
    low = min(p for _, p in parts)
    pieces = [bounded_expand(k * base ** (p - low)) for k, p in parts]
    if any(piece is None for piece in pieces):
        return None
    simple = bounded_expand(sp.Add(*pieces))
    # kept only where terms cancelled symbolically (they would have numerically)
    if simple is None or len(sp.Add.make_args(simple)) >= sum(
        len(sp.Add.make_args(piece)) for piece in pieces
    ):
        return None
    return base**low * simple


def _sign_over_abs(e: sp.Expr) -> sp.Expr | None:
    """sign(u)/|u|*rest as rest/u (d log|u|/du as SymPy writes it): the rest can then
    cancel with u (x**2*sign(x)/|x| overflowed with x**2 where it is 2x)."""
    if not isinstance(e, sp.Mul):
        return None
    for f in e.args:
        if isinstance(f, sp.sign):
            u = f.args[0]
            over = sp.Pow(sp.Abs(u), -1)
            if over in e.args:
                rest = [a for a in e.args if a is not f and a != over]
                return sp.Mul(*rest) / u
    return None


def stabilize_derivative(expr: sp.Expr) -> sp.Expr:
    """Rewrite cancelling spellings that differentiation produces.

    ``1 - tanh(u)**2`` (what SymPy gives for tanh') loses everything to cancellation once
    tanh(u) rounds to 1 (|u| > 9 in float32); ``1/cosh(u)**2`` is exact there.
    """

    def is_sech2(e: sp.Expr) -> sp.Expr | None:
        if isinstance(e, sp.Add) and len(e.args) == 2 and sp.S.One in e.args:
            other = e.args[0] if e.args[1] is sp.S.One else e.args[1]
            if (
                isinstance(other, sp.Mul)
                and len(other.args) == 2
                and sp.S.NegativeOne in other.args
            ):
                sq = (
                    other.args[0]
                    if other.args[1] is sp.S.NegativeOne
                    else other.args[1]
                )
                if (
                    isinstance(sq, sp.Pow)
                    and sq.exp == 2
                    and isinstance(sq.base, sp.tanh)
                ):
                    return sq.base.args[0]
        return None

    def scaled_sech2(e: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
        """(c, u) when e = c - c*tanh(u)**2 (c a number, e.g. LeCun's 1.7159*2/3)."""
        if not (isinstance(e, sp.Add) and len(e.args) == 2):
            return None
        c, term = e.args if e.args[0].is_number else e.args[::-1]
        if not c.is_number or c == 0:
            return None
        m, sq = term.as_coeff_Mul()
        if (
            m == -c
            and isinstance(sq, sp.Pow)
            and sq.exp == 2
            and isinstance(sq.base, sp.tanh)
        ):
            return c, sq.base.args[0]
        return None

    expr = expr.replace(
        lambda e: is_sech2(e) is not None, lambda e: sp.cosh(is_sech2(e)) ** -2
    )
    expr = expr.replace(
        lambda e: _sign_over_abs(e) is not None, lambda e: _sign_over_abs(e)
    )
    expr = expr.replace(
        lambda e: _sign_times_self(e) is not None, lambda e: _sign_times_self(e)
    )
    expr = expr.replace(
        lambda e: _combined_powers(e) is not None, lambda e: _combined_powers(e)
    )
    expr = expr.replace(
        lambda e: _flat_side_zero(e) is not None, lambda e: _flat_side_zero(e)
    )
    expr = expr.replace(
        lambda e: _same_base_powers(e) is not None, lambda e: _same_base_powers(e)
    )
    expr = expr.replace(
        lambda e: _sigmoid_over_sum(e) is not None, lambda e: _sigmoid_over_sum(e)
    )
    expr = expr.replace(
        lambda e: _sign_of_product(e) is not None, lambda e: _sign_of_product(e)
    )
    expr = expr.replace(
        lambda e: _stable_step(e) is not None, lambda e: _stable_step(e)
    )
    expr = expr.replace(
        lambda e: _exp_log1p_power(e) is not None, lambda e: _exp_log1p_power(e)
    )
    # d/dc of sigmoid(u)**c is log(sigmoid(u))*sigmoid(u)**c: log(1 - 9e-14) = 0 in
    # float32 at u = 30 (the focal loss's gamma: 0 for -2.8e-12 at x = -30)
    expr = expr.replace(
        lambda e: isinstance(e, sp.log) and isinstance(e.args[0], sigmoid),
        lambda e: logsigmoid(e.args[0].args[0]),
    )
    return expr.replace(
        lambda e: scaled_sech2(e) is not None,
        lambda e: scaled_sech2(e)[0] * sp.cosh(scaled_sech2(e)[1]) ** -2,
    )


# ---------------------------------------------------------------- piecewise-linear sums

_KINKS = (sp.Max, sp.Min, sp.Abs)
_MAX_SEGMENTS = 64


def _exact_number(e: sp.Expr) -> sp.Rational | None:
    """e as an exact Rational: integers, rationals, and Floats that are binary
    fractions exactly (6.0, 0.5, -1.5); None for 0.1, pi or anything symbolic."""
    if e.is_Rational:
        return e
    if isinstance(e, sp.Float):
        q = sp.Rational(e)
        if q.q <= 2**24 and abs(q.p) <= 2**53:
            return q
    return None


def _pl_merge(parts: list[list[tuple]]) -> list[sp.Rational]:
    """The sorted union of the inner breakpoints of several segment lists."""
    cuts = {s[0] for p in parts for s in p[1:]}
    return sorted(cuts)


def _pl_at(segments: list[tuple], x: sp.Rational) -> tuple:
    """(k, m) of the segment containing the point x (its inner part)."""
    found = segments[0]
    for s in segments:
        if s[0] is not None and s[0] > x:
            break
        found = s
    return found[1], found[2]


def _pl_sample(cuts: list, i: int) -> sp.Rational:
    """A point strictly inside interval i of the partition by ``cuts``."""
    if not cuts:
        return sp.S.Zero
    if i == 0:
        return cuts[0] - 1
    if i == len(cuts):
        return cuts[-1] + 1
    return (cuts[i - 1] + cuts[i]) / 2


def _pl_segments(e: sp.Expr, x: sp.Symbol) -> list[tuple] | None:
    """e as segments [(start, k, m), ...] (start None for the first; k*x + m from
    start to the next start), exact; None unless e is built from x, exact numbers,
    +, numeric *, Max, Min and Abs."""
    if e == x:
        return [(None, sp.S.One, sp.S.Zero)]
    if e.is_number:
        q = _exact_number(e)
        return None if q is None else [(None, sp.S.Zero, q)]
    if isinstance(e, sp.Mul):
        c, rest = e.as_coeff_Mul()
        q = _exact_number(c)
        # rest == e: no numeric coefficient to take out (x*max(x, 0), pi*x), so a
        # product of non-numeric factors: not linear (recursing on it never ends)
        if q is None or rest.is_number or rest == e:
            return None
        inner = _pl_segments(rest, x)
        if inner is None:
            return None
        return [(s, q * k, q * m) for s, k, m in inner]
    if isinstance(e, (sp.Add, sp.Max, sp.Min, sp.Abs)):
        parts = []
        for a in e.args:
            part = _pl_segments(a, x)
            if part is None:
                return None
            parts.append(part)
        cuts = _pl_merge(parts)
        if isinstance(e, (sp.Max, sp.Min, sp.Abs)):  # split where the choice changes
            extra = set()
            if isinstance(e, sp.Abs):
                pairs = [(0, None)]
            else:
                n = len(parts)
                pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
            for i in range(len(cuts) + 1):
                lo = cuts[i - 1] if i > 0 else None
                hi = cuts[i] if i < len(cuts) else None
                t = _pl_sample(cuts, i)
                for a, b in pairs:
                    ka, ma = _pl_at(parts[a], t)
                    kb, mb = (0, 0) if b is None else _pl_at(parts[b], t)
                    if ka != kb:
                        r = (mb - ma) / (ka - kb)
                        if (lo is None or r > lo) and (hi is None or r < hi):
                            extra.add(r)
            cuts = sorted(set(cuts) | extra)
        if len(cuts) >= _MAX_SEGMENTS:
            return None
        out = []
        for i in range(len(cuts) + 1):
            t = _pl_sample(cuts, i)
            km = [_pl_at(p, t) for p in parts]
            if isinstance(e, sp.Add):
                k, m = sum(k for k, _ in km), sum(m for _, m in km)
            elif isinstance(e, sp.Abs):
                k, m = km[0] if km[0][0] * t + km[0][1] >= 0 else (-km[0][0], -km[0][1])
            else:
                pick = max if isinstance(e, sp.Max) else min
                k, m = pick(km, key=lambda p: p[0] * t + p[1])
            out.append((cuts[i - 1] if i > 0 else None, k, m))
        return out
    return None


def _kink_terms(e: sp.Expr) -> int:
    """How many terms of the largest sum in e hold a kink (Max, Min, Abs)."""
    best = 0
    for sub in sp.preorder_traversal(e):
        if isinstance(sub, sp.Add):
            best = max(best, sum(1 for a in sub.args if a.has(*_KINKS)))
    return best


def _binary_exact(q: sp.Rational) -> bool:
    """q is a float32 number exactly (x == q is then an exact test on every dtype)."""
    return q.q & (q.q - 1) == 0 and q.q <= 2**126 and abs(q.p) < 2**24


def _as_piecewise_linear(e: sp.Expr) -> sp.Expr | None:
    """A sum of kinked terms of one variable (relu(x) - relu(x - 6), (|x + 1| -
    |x - 1|)/2) as a Piecewise of its linear pieces k*x + m, each computed directly.

    Evaluated as typed, x - 6 rounds to x from |x| = 1e8 (float32) and the terms
    cancel to 0 instead of 6; a piece computes 6 exactly. The derivative at each
    breakpoint stays the one the typed form had (relu'(0) = 0, |u|'(0) = 0): the
    breakpoint joins the piece whose slope it is, or gets a piece of its own
    (x == b, float32-exact b only; otherwise the formula is kept as typed).
    """
    symbols = e.free_symbols
    if len(symbols) != 1 or _kink_terms(e) < 2:
        return None
    (x,) = symbols
    segments = _pl_segments(e, x)
    if segments is None or all(k == 0 for _, k, _ in segments):
        return None
    # the typed form's derivative at every candidate breakpoint, with the kernels'
    # conventions (H(0) = 0 as in formula._fix_kinks, sign(0) = 0)
    de = sp.diff(e, x).replace(
        lambda a: isinstance(a, sp.Heaviside), lambda a: sp.Heaviside(a.args[0], 0)
    )
    pieces: list[tuple[sp.Expr, sp.Expr]] = []
    k_prev, m_prev = segments[0][1], segments[0][2]
    for start, k, m in segments[1:]:
        c = de.subs(x, start)
        c = _exact_number(c) if c.is_number else None
        if c is None:
            return None
        here = k_prev * x + m_prev
        if c == k_prev and (k, m) != (k_prev, m_prev):
            pieces.append((here, x <= start))
        elif c == k:
            pieces.append((here, x < start))
        else:
            if not _binary_exact(start):
                return None
            pieces.append((here, x < start))
            pieces.append((c * (x - start) + (k * start + m), sp.Eq(x, start)))
        k_prev, m_prev = k, m
    pieces.append((k_prev * x + m_prev, True))
    # merge neighbours with the same line (a candidate that is no kink)
    merged: list[tuple[sp.Expr, sp.Expr]] = []
    for p in pieces:
        if merged and merged[-1][0] == p[0]:
            merged[-1] = (p[0], p[1])
        else:
            merged.append(p)
    if len(merged) < 2:
        return None
    return sp.Piecewise(*merged)


def _piecewise_linear_sums(expr: sp.Expr, note) -> sp.Expr:
    """Each largest subexpression that :func:`_as_piecewise_linear` takes, rewritten."""

    def walk(e: sp.Basic) -> sp.Basic:
        if isinstance(e, sp.Expr) and e.has(*_KINKS):
            found = _as_piecewise_linear(e)
            if found is not None:
                note(
                    "rewrote a sum of max/min/abs terms as its linear pieces (no "
                    "cancellation of large terms: relu(x) - relu(x - 6) is 6, not 0, "
                    "at x = 1e8; the derivative at each kink is unchanged)"
                )
                return found
        if not e.args or isinstance(e, (sp.logic.boolalg.Boolean,)):
            return e
        args = [walk(a) for a in e.args]
        return e.func(*args) if tuple(args) != e.args else e

    return walk(expr)
