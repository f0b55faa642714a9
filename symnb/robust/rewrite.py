"""Exact rewrites that remove overflow, inf*0 and cancellation: candidates, never forced.

Every function here maps an expression to an algebraically equal one (for every value of
the constants), so it can be kept or dropped on measurement alone (see ``engine``):

* :func:`steps_to_branches` - a product with a step (``Heaviside``, or a ``Piecewise``
  with a 0 branch, as the derivatives of ``Max``/``Min`` are) becomes a ``Piecewise`` whose
  branches hold the product: ``exp(u)*Heaviside(-u)`` is 0 where the step is 0 instead of
  ``inf*0 = NaN``.
* :func:`single_exponential` - products of exponentials, ``sigmoid``, ``cosh`` and powers
  of ``1 + exp(u)`` become one ``exp`` of a sum of ``logsigmoid``/``softplus`` terms, so
  a huge and a tiny factor meet as the sum of their logarithms.
* :func:`log_forms` - ``log`` of products and powers becomes a sum of logarithms,
  ``log(a*exp(u) + b)`` a log-sum-exp (``softplus``), ``log(1 + exp(u))`` ``softplus``.
* :func:`factor_dominant_exp` - ``(r + exp(v))**p`` with ``p < 0`` becomes
  ``exp(p v) (r exp(-v) + 1)**p`` where ``v > 0`` (a regime in the argument v, so it holds
  for every value of the constants), and exponentials multiplying a sum are distributed
  into it and combined.
* :func:`factor_lowest_power` - ``sign``/``Abs``/``Heaviside`` of a polynomial vanishing
  at 0 with the lowest power of x factored out (keeps its sign where terms underflow).
* :func:`~symnb.robust.widen.widen_trig` - sin/cos/tan of a product computed in a wider
  type where the product overflows.
* :func:`group_constant_factors` - constant products computed before they multiply x.
"""

from __future__ import annotations

import math

import sympy as sp

from symnb.formula.budget import bounded_expand
from symnb.formula.functions import expm1, log1p, logsigmoid, sigmoid, softplus
from symnb.formula.stability import stabilize
from symnb.robust.constant_into_power import constant_into_power
from symnb.robust.digamma_far import digamma_far
from symnb.robust.factored_polynomial import factored_polynomials
from symnb.robust.gamma_differences import gamma_differences
from symnb.robust.half_angle import cosine_as_half_angle
from symnb.robust.hypot import root_of_squares_as_hypot
from symnb.robust.literals import scale_out_of_range_literals
from symnb.robust.log1p_cancellation import log1p_difference, reciprocal_complement
from symnb.robust.log_mean_of_exps import log_mean_of_exps
from symnb.robust.power_and_complement import power_and_complement
from symnb.robust.power_difference import power_difference
from symnb.robust.power_of_one_plus import power_of_one_plus
from symnb.robust.scaled_powers import log_of_power, split_scaled_power
from symnb.robust.scaled_rational import scaled_rational_products
from symnb.robust.scaled_variable import scale_by_constant
from symnb.robust.sigmoid_difference import sigmoid_difference
from symnb.robust.sigmoid_offset import sigmoid_offset
from symnb.robust.small_number_last import small_number_factors_last
from symnb.robust.softplus_difference import softplus_difference
from symnb.robust.square_over_root import square_over_root
from symnb.robust.traversal import bottom_up as _bottom_up
from symnb.robust.widen import widen_trig

# ------------------------------------------------------------------ helpers


def _is_exp(e: sp.Expr) -> bool:
    return isinstance(e, sp.exp)


def _one_plus_exp(e: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """(c, u) when e is c + exp(u) with c a positive number."""
    if not isinstance(e, sp.Add) or len(e.args) != 2:
        return None
    a, b = e.args
    if _is_exp(a) and b.is_number:
        a, b = b, a
    if a.is_number and a.is_positive and _is_exp(b):
        return a, b.args[0]
    return None


#: the most exponentials a sum may have for its log to be folded as a log-sum-exp
_MOST_EXP_TERMS = 8


def _exp_terms(e: sp.Expr) -> list[tuple[sp.Expr, sp.Expr]] | None:
    """[(c_i, u_i)] when e = sum c_i exp(u_i) (c_i positive numbers; exp(0) for numbers)."""
    if not isinstance(e, sp.Add):
        return None
    out = []
    for t in e.args:
        coeff, rest = t.as_coeff_Mul()
        if not (coeff.is_number and coeff.is_positive):
            return None
        if rest == 1:
            out.append((coeff, sp.Integer(0)))
        elif _is_exp(rest):
            out.append((coeff, rest.args[0]))
        elif isinstance(rest, sp.cosh):
            # the front end folds exp(u) + exp(-u) into 2 cosh(u): unfolded, a sum of
            # three exponentials (a smooth max of affine pieces) is a log-sum-exp
            out += [(coeff / 2, rest.args[0]), (coeff / 2, -rest.args[0])]
        else:
            return None
    return out


def log_of(f: sp.Expr) -> sp.Expr | None:
    """log(f) in a form that does not overflow, for the factors this module knows."""
    if _is_exp(f):
        return f.args[0]
    if isinstance(f, sigmoid):
        return logsigmoid(f.args[0])
    if isinstance(f, sp.cosh):
        v = sp.Abs(f.args[0])
        return v + softplus(-2 * v) - sp.log(2)
    if isinstance(f, sp.Pow):
        inner = log_of(f.base)
        if inner is not None:
            return f.exp * inner
        if isinstance(f.base, sp.Symbol) and not f.exp.is_number:
            # x**p with a named exponent: real only for x > 0 unless p is an integer,
            # which a named constant may not stay (the engine measures the candidate);
            # x**(-a - 1)*exp(-x**-a), the Frechet CDF's f', was inf*0 = NaN at tiny x
            return f.exp * sp.log(f.base)
        return None
    cu = _one_plus_exp(f)
    if cu is not None:
        c, u = cu
        return sp.log(c) + softplus(u - sp.log(c))
    terms = _exp_terms(f)
    if terms is None or len(terms) < 2 or len(terms) > _MOST_EXP_TERMS:
        return None
    # log-sum-exp folded a term at a time: log(e^L + c e^u) = L + softplus(u + log c
    # - L), each step bounded by the larger of its two terms
    (c1, u1), *more = terms
    out = u1 + sp.log(c1)
    for c, u in more:
        out = out + softplus(u + sp.log(c) - out)
    return out


# ------------------------------------------------------------------ the rewrites


def _step_as_piecewise(e: sp.Expr) -> sp.Expr:
    if isinstance(e, sp.Heaviside) and len(e.args) == 2 and e.args[1] == 0:
        return sp.Piecewise((1, e.args[0] > 0), (0, True))
    return e


def _distribute_into_piecewise(e: sp.Expr) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    pws = [a for a in e.args if isinstance(a, sp.Piecewise)]
    if not pws:
        return e
    pw = pws[0]
    rest = sp.Mul(*[a for a in e.args if a is not pw])
    return sp.Piecewise(*[(rest * b.expr, b.cond) for b in pw.args])


def _one_step_argument(e: sp.Expr) -> sp.Expr | None:
    """The u of an expression whose steps are all ``Heaviside(+-u, 0)``, else None."""
    u = None
    for h in e.atoms(sp.Heaviside):
        if len(h.args) != 2 or h.args[1] != 0:
            return None
        a = h.args[0]
        if u is None:
            u = a
        elif a != u and a != -u and bounded_expand(a + u) != 0:
            return None
    return u


def _split_sum_of_steps(e: sp.Expr) -> sp.Expr:
    """A product with a sum of steps of one argument u, such as the tie indicator
    ``1 - H(u) - H(-u)`` of a max/min derivative, as three branches (u > 0, u < 0,
    else): in each the sum is a number, so ``0*inf`` never happens
    (``min(expm1(sinh(x/10)), tanh(x))'`` was NaN from x = 80 in float32)."""
    if not isinstance(e, sp.Mul):
        return e
    sums = [a for a in e.args if isinstance(a, sp.Add) and a.has(sp.Heaviside)]
    if not sums:
        return e
    u = _one_step_argument(sp.Add(*sums))
    if u is None:
        return e

    def at(sign: int) -> sp.Expr:
        # only the steps of +-u: the other factors' steps (another argument) stay;
        # they were taken as steps of -u (min(max(x, 2*x), exp(-x**2/4))' was 0
        # instead of 2 for 0 < x < 0.9, in the engine's reference too)
        reps = {}
        for h in e.atoms(sp.Heaviside):
            a = h.args[0]
            if a == u:
                s = 1
            elif a == -u or bounded_expand(a + u) == 0:
                s = -1
            else:
                continue
            reps[h] = sp.Integer(1) if s * sign > 0 else sp.Integer(0)
        return e.xreplace(reps)

    return sp.Piecewise((at(1), u > 0), (at(-1), u < 0), (at(0), True))


def steps_to_branches(expr: sp.Expr) -> sp.Expr:
    """Products with steps become branches holding the product (no inf*0)."""
    expr = _bottom_up(expr, _split_sum_of_steps)
    expr = _bottom_up(expr, _step_as_piecewise)
    return _bottom_up(expr, _distribute_into_piecewise)


def _combine_exps(e: sp.Expr) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    logs, rest = [], []
    exps = powers = 0
    for f in e.args:
        lf = None if f.is_number else log_of(f)
        if lf is None:
            rest.append(f)
            continue
        logs.append(lf)
        if _is_exp(f) or (isinstance(f, sp.Pow) and _is_exp(f.base)):
            exps += 1
        elif isinstance(f, sp.Pow) and not (f.exp.is_Integer and abs(f.exp) == 1):
            powers += 1
    if powers == 0 and (len(logs) < 2 or exps == 0):
        return e
    return sp.Mul(*rest) * sp.exp(sp.Add(*logs))


def single_exponential(expr: sp.Expr) -> sp.Expr:
    """Products of exp-like factors become one exp of the sum of their logarithms."""
    return _bottom_up(expr, _combine_exps)


def _scale_into_exp(e: sp.Expr, var: sp.Symbol | None = None) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    c, rest = e.as_coeff_Mul()
    if c.is_number and c != 0 and abs(c) < 1:
        factors = list(sp.Mul.make_args(rest))
        for i, f in enumerate(factors):
            if isinstance(f, sp.exp):
                # the double nearest log|c| as an exact rational: SymPy folds
                # exp(u + log(c)) and exp(u + Float) back into c*exp(u)
                shift = sp.Rational(math.log(abs(float(c))))
                factors[i] = sp.exp(f.args[0] + shift)
                return sp.sign(c) * sp.Mul(*factors)
        return e
    return _scale_named_into_exp(e, var)


def _scale_named_into_exp(e: sp.Mul, var: sp.Symbol | None) -> sp.Expr:
    """``k*exp(u)`` with k a product of named constants (free of ``var``, whose value
    the kernel reads at run time) as ``sign(k) exp(u + log|k|)``, the argument kept
    unevaluated (SymPy folds ``exp(u + log|k|)`` back into ``|k| exp(u)``)."""
    if var is None:
        return e
    k, rest = e.as_independent(var, as_Add=False)
    if k.is_number or not k.free_symbols:
        return e
    factors = list(sp.Mul.make_args(rest))
    for i, f in enumerate(factors):
        if isinstance(f, sp.exp) and var in f.args[0].free_symbols:
            shifted = sp.UnevaluatedExpr(f.args[0] + sp.log(sp.Abs(k)))
            factors[i] = sp.exp(shifted)
            return sp.sign(k) * sp.Mul(*factors)
    return e


def scale_into_exponentials(expr: sp.Expr, var: sp.Symbol | None = None) -> sp.Expr:
    """``c*exp(u)`` with 0 < |c| < 1 becomes ``sign(c) exp(u + log|c|)``: finite where
    exp(u) alone overflows but the product does not (``(exp(x) + x)/2`` was inf from
    x = 88.8 in float32, its value 2.2e38 at x = 89). With ``var``, also a factor of
    named constants (``x + r*exp(-x)`` with r = 0.5 was inf at x = -89 in float32,
    where it is 2.2e38): the engine keeps the form only where it measures better."""
    return _bottom_up(expr, lambda e: _scale_into_exp(e, var))


def _log_rule(e: sp.Expr) -> sp.Expr:
    if not isinstance(e, sp.log):
        return e
    a = e.args[0]
    direct = log_of(a)
    if direct is not None:
        return direct
    if isinstance(a, sp.Mul):
        parts, signs = [], []
        for f in a.args:
            lf = log_of(f)
            if lf is None and not f.is_positive:
                if f.is_number:
                    return e
                # a factor of unknown sign: log|f| where the product is positive
                # (y*log(y/p) at p = 1e-45: y/p overflows, log|y| - log|p| does not)
                base, n = f.as_base_exp()
                lf = n * sp.log(sp.Abs(base) if n.is_integer else base)
                signs.append(sp.sign(base) if n.is_integer and n.is_odd else sp.S.One)
            parts.append(lf if lf is not None else sp.log(f))
        if not signs:
            return sp.Add(*parts)
        return sp.Piecewise((sp.Add(*parts), sp.Mul(*signs) > 0), (e, True))
    if isinstance(a, sp.Pow) and a.base.is_positive:
        lb = log_of(a.base)
        return a.exp * (lb if lb is not None else sp.log(a.base))
    return e


def log_forms(expr: sp.Expr) -> sp.Expr:
    """log of products, powers and exp-sums as sums of stable logarithms."""
    out = _bottom_up(expr, _log_rule)
    return stabilize(out)[0]


def _dominant_exp(base: sp.Expr, var: sp.Symbol) -> sp.Expr | None:
    """v when ``base`` is a sum with a term c*exp(v) (v depending on ``var``)."""
    if not isinstance(base, sp.Add):
        return None
    for t in base.args:
        _, rest = t.as_coeff_Mul()
        for f in sp.Mul.make_args(rest):
            if _is_exp(f) and var in f.args[0].free_symbols:
                return f.args[0]
    return None


def _distribute_exp(e: sp.Expr) -> sp.Expr:
    """exp-like factors times a sum with exponentials: distributed, then combined.

    ``sigmoid(x)*(1 - exp(-x))`` -> ``sigmoid(x) - exp(-x + logsigmoid(x))``.
    """
    if not isinstance(e, sp.Mul):
        return e
    sums = [f for f in e.args if isinstance(f, sp.Add) and f.has(sp.exp)]
    if not sums:
        return e
    s = sums[0]
    likes = [
        f for f in e.args if f is not s and not f.is_number and log_of(f) is not None
    ]
    if not likes:
        return e
    keep = [f for f in e.args if f is not s and not any(f is g for g in likes)]
    factor = sp.Mul(*likes)
    terms = [single_exponential(sp.Mul(t, factor)) for t in s.args]
    return sp.Mul(*keep) * sp.Add(*terms)


def distribute_exponentials(expr: sp.Expr) -> sp.Expr:
    """Exponential factors of a product enter the sum they multiply (then combine)."""
    return _bottom_up(expr, _distribute_exp)


def collect_exponentials(expr: sp.Expr) -> sp.Expr:
    """Sums of exponential terms with a common exp(u) factor it out: no inf - inf.

    ``exp(x)/x - expm1(x)/x**2`` -> ``exp(x)*(1/x - 1/x**2) + 1/x**2``.
    """

    def rule(e: sp.Expr) -> sp.Expr:
        if not isinstance(e, sp.Add) or not e.has(sp.exp, expm1):
            return e
        # terms with branches stay as they are (their conditions keep expm1)
        kept = [t for t in e.args if t.has(sp.Piecewise)]
        if kept:
            rest = sp.Add(*[t for t in e.args if not t.has(sp.Piecewise)])
            return sp.Add(*kept) + (rule(rest) if rest.has(sp.exp, expm1) else rest)
        opened = sp.expand_mul(e.replace(expm1, lambda u: sp.exp(u) - 1))
        exps = sorted(opened.atoms(sp.exp), key=sp.default_sort_key)
        if not exps:
            return e
        return sp.collect(opened, exps)

    # not in branch conditions: u > 0 with u = v + expm1(x) became v - exp(x) > -1,
    # which cancels for small |x| and took the wrong branch of a max/min derivative
    # (min(1.125*x-like, expm1(x))' was 1 instead of 1.125 at x = -4.6e-8 in float32)
    return _bottom_up(expr, rule, conditions=False)


def factor_dominant_exp(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """(r + exp(v))**p, p < 0 or p > 0 not an integer (a root) -> exp(p v)
    (r exp(-v) + 1)**p where v > 0: exp(v) overflows long before the root does
    (``sqrt(1 + exp(beta*x)**2) - 1``, SymPy's sqrt(1 + exp(2 beta x)), was inf from
    x = 35.5 in float32 with beta = 1.25, where it is exp(beta x) - 1, 5e21 at 40)."""

    def rule(e: sp.Expr) -> sp.Expr:
        if not (isinstance(e, sp.Pow) and e.exp.is_number and e.exp.is_real):
            return e
        if not (e.exp.is_negative or e.exp.is_positive and not e.exp.is_integer):
            return e
        if e.exp.is_positive and float(e.exp).is_integer():  # 2.0: a polynomial power
            return e
        v = _dominant_exp(e.base, var)
        if v is None:
            return e
        inner = sp.Add(*[single_exponential(t * sp.exp(-v)) for t in e.base.args])
        return sp.Piecewise((sp.exp(e.exp * v) * inner**e.exp, v > 0), (e, True))

    out = _bottom_up(expr, rule)
    out = _bottom_up(out, _distribute_into_piecewise)
    out = _bottom_up(out, _distribute_exp)
    return single_exponential(out)


def _lowest_power(p: sp.Expr, var: sp.Symbol) -> tuple[int, sp.Expr] | None:
    """(k, q) with p = var**k * q and q(0) != 0, when p is a polynomial in var, p(0) = 0."""
    if var not in p.free_symbols or p == var:
        return None
    try:
        poly = sp.Poly(p, var)
    except sp.PolynomialError:
        return None
    terms = poly.terms()
    k = min(m[0] for m, _ in terms)
    if k == 0:
        return None
    q = sp.Add(*[c * var ** (m[0] - k) for m, c in terms])
    if q == 1:
        return None
    return k, q


def factor_lowest_power(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """sign/Abs/Heaviside of a polynomial p with p(0) = 0: the lowest power of x factored.

    ``sign(b1*x + b2*x**2)`` is 0 at subnormal x (b1*x underflows) although its sign is
    that of x: it becomes ``sign(x)*sign(b1 + b2*x)``; ``Abs(p)`` becomes
    ``Abs(x)**k*Abs(q)`` and ``Heaviside(p)`` ``Heaviside(sign(x)**k*q)``.
    """

    def rule(e: sp.Expr) -> sp.Expr:
        if not isinstance(e, (sp.sign, sp.Abs, sp.Heaviside)):
            return e
        split = _lowest_power(e.args[0], var)
        if split is None:
            return e
        k, q = split
        if isinstance(e, sp.sign):
            return sp.sign(var) ** k * sp.sign(q)
        if isinstance(e, sp.Abs):
            return sp.Abs(var) ** k * sp.Abs(q)
        return sp.Heaviside(sp.sign(var) ** k * q, *e.args[1:])

    return _bottom_up(expr, rule)


def _group_constants(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    consts = [f for f in e.args if var not in f.free_symbols]
    rest = [f for f in e.args if var in f.free_symbols]
    if len(consts) < 2 or not rest or all(f.is_number for f in consts):
        return e
    return sp.Mul(sp.UnevaluatedExpr(sp.Mul(*consts)), *rest)


def _constants_last(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    consts = [f for f in e.args if var not in f.free_symbols]
    rest = [f for f in e.args if var in f.free_symbols]
    if not rest or all(f.is_number for f in consts) or sp.Mul(*rest) == var:
        return e
    return sp.UnevaluatedExpr(sp.Mul(*rest)) * sp.Mul(*consts)


def constant_factors_last(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Constants (with their numbers) multiply the product of the factors with x last:
    ``a*x/(b + |x|)`` as ``(x/(b + |x|))*a``, bounded before a large ``a`` scales it.
    With a = 2 it met the rule; moved to 2e10 by training, ``a*x`` overflowed float32
    from |x| = 1.7e28 (f = inf where it is 2e10)."""
    return _bottom_up(expr, lambda e: _constants_last(e, var))


def _number_last(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    coeff, rest = e.as_coeff_Mul()
    if not isinstance(coeff, (sp.Integer, sp.Float)) or abs(coeff) <= 1:
        return e
    # only a quotient by a function of x can bring the product back down; by a
    # polynomial only: a root below (2*x/(sqrt(4*x**2 + 1) + 1)) needs square_in_root,
    # which this rewrite, accepted first for the float maximum alone, kept out
    # (inf/inf = 0 for |x| in 1e154..1e308 in float64, the rule met at the samples)
    if not any(
        isinstance(f, sp.Pow)
        and f.exp.is_negative
        and var in f.base.free_symbols
        and f.base.is_polynomial(var)
        for f in sp.Mul.make_args(rest)
    ):
        return e
    return sp.UnevaluatedExpr(rest) * coeff


def number_factors_last(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """A number above 1 multiplies a quotient by a function of x after the quotient:
    ``2*(y - x)/x`` as ``((y - x)/x)*2``. Printed first, 2 doubled ``y - x`` and
    overflowed at the float maximum where the quotient is -1: the gamma deviance
    ``2*(-log(y/x) + (y - x)/x)`` was -inf at 3.4e38 in float32 (1.8e308 in float64)
    where it is 174 (1416)."""
    return _bottom_up(expr, lambda e: _number_last(e, var))


def _numbers_with_variable(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add):
        return e
    numbers = [a for a in e.args if a.is_number]
    with_var = [a for a in e.args if var in a.free_symbols]
    consts = [a for a in e.args if not a.is_number and var not in a.free_symbols]
    if not numbers or not with_var or not consts:
        return e
    return sp.UnevaluatedExpr(sp.Add(*with_var, *numbers)) + sp.Add(*consts)


def sum_numbers_with_variable(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """The terms with x and the numbers of a sum are added before its named constants:
    ``1 - x + eps`` as ``(1 - x) + eps``. In SymPy's order ``(eps - x) + 1``, a small
    eps was lost to the rounding of eps - x: the clipped log-loss
    ``-(y*log(x + eps) + (1 - y)*log(1 - x + eps))`` with eps = 1e-12 was inf at
    x = 1 in float32 (log(0)) where it is 8.29, and its f' was inf in float64."""
    return _bottom_up(expr, lambda e: _numbers_with_variable(e, var))


def _collect_linear(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add):
        return e
    slopes, rest = [], []
    for a in e.args:
        c, v = a.as_independent(var, as_Add=False)
        (slopes.append(c) if v == var else rest.append(a))
    if len(slopes) < 2:
        return e
    return var * sp.Add(*slopes) + sp.Add(*rest)


def collect_linear_terms(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """The multiples of x in a sum are added as one, ``x + y - x*y + s`` as
    ``x*(1 - y) + y + s``: summed one by one they cancel at large |x|, where the
    rounding of ``x + y`` is all that is left. The soft Jaccard loss
    ``1 - (x*y + s)/(x + y - x*y + s)`` at target y = 1 has f' = -1/(1 + s) at every
    x, and was -inf from x = -1e19 in float32 (the denominator rounded to 0)."""
    return _bottom_up(expr, lambda e: _collect_linear(e, var))


def group_constant_factors(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Products of constants are computed before they multiply the input.

    ``a*x/b`` at the float maximum: the kernel's operation order may compute ``x/b`` first
    (shared with ``expm1(x/b)``), which overflows for b < 1 although ``(a/b)*x`` does not.
    The constant product is kept as one unit (``UnevaluatedExpr``), so CSE cannot split it.
    """
    return _bottom_up(expr, lambda e: _group_constants(e, var))


def _root_term(t: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """(k, v, p) when t = k * v**p with p = +-1/2 and v depending on a symbol."""
    factors = t.args if isinstance(t, sp.Mul) else (t,)
    roots = [
        f
        for f in factors
        if isinstance(f, sp.Pow)
        and f.exp in (sp.S.Half, -sp.S.Half)
        and f.base.free_symbols
    ]
    if len(roots) != 1:
        return None
    r = roots[0]
    return sp.Mul(*[f for f in factors if f is not r]), r.base, r.exp


def _lower_degree(d: sp.Expr, than: sp.Expr, var: sp.Symbol) -> bool:
    """d is a polynomial in var of lower degree than ``than`` (and not zero)."""
    if d == 0 or not (d.is_polynomial(var) and than.is_polynomial(var)):
        return False
    return sp.degree(d, var) < sp.degree(than, var)


def _cancelled(d: sp.Expr, a: sp.Expr, b: sp.Expr, var: sp.Symbol) -> bool:
    """d = a - b lost a degree in var (they cancel at large |x|) or a term free of var
    (they cancel near x = 0: sqrt(1 + t) - 1 for small t, the pseudo-Huber loss)."""
    ea, eb = bounded_expand(a), bounded_expand(b)
    if ea is None or d == 0:
        return False
    if _lower_degree(d, ea, var):
        return True
    if eb is None:
        return False
    free = lambda e: [t for t in sp.Add.make_args(e) if var not in t.free_symbols]
    return bool(free(ea) or free(eb)) and not free(d)


def _root_cancellation(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add):
        return e
    found = [(i, _root_term(t)) for i, t in enumerate(e.args)]
    found = [(i, r) for i, r in found if r is not None]
    if len(found) != 1:
        return e
    i, (k, v, p) = found[0]
    u = sp.Add(*[t for j, t in enumerate(e.args) if j != i])
    if var not in (u.free_symbols | k.free_symbols | v.free_symbols):
        return e
    root = sp.sqrt(v)
    if p == sp.S.Half:  # u + k sqrt(v) = (k^2 v - u^2) / (k sqrt(v) - u)
        square = k**2 * v
        d = bounded_expand(square - u**2)
        if d is None or not _cancelled(d, square, u**2, var):
            return e
        # a number k divides d, not each term of the sum: squareplus's
        # (x + sqrt(x**2 + b))/2 as (b/2)/(sqrt(x**2 + b) - x), where x/2 of a
        # subnormal x rounded to 0 (0/0 = NaN at b = 0)
        alt = d / (k * root - u) if not k.is_Number else (d / k) / (root - u / k)
    else:  # u + k / sqrt(v) = (u^2 v - k^2) / ((u sqrt(v) - k) sqrt(v))
        square = u**2 * v
        d = bounded_expand(square - k**2)
        if d is None or not _cancelled(d, square, k**2, var):
            return e
        # d/sqrt(v) first: the product of the two small factors underflowed (0/0 for
        # squareplus's f' at b = 0 and subnormal x)
        # (and a number u divides both: u*sqrt(v) - k halved subnormals to 0)
        if u.is_Number:
            alt = sp.UnevaluatedExpr(d / u / root) / (root - k / u)
        else:
            alt = sp.UnevaluatedExpr(d / root) / (u * root - k)
    return sp.Piecewise((alt, k * u < 0), (e, True))


def root_cancellation(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``u + k*sqrt(v)`` where u and k*sqrt(v) cancel, as ``(k^2 v - u^2)/(k sqrt(v) - u)``.

    Only where ``k^2 v - u^2`` is a polynomial in x of lower degree than ``k^2 v``
    (x + sqrt(x^2 + 1): 1; squareplus's x + sqrt(x^2 + b): b), and only on the side where
    the terms have opposite signs (a regime in k*u, so it holds for every value of the
    constants). ``u + k/sqrt(v)`` likewise (asinh's derivative, 1 + x/sqrt(x^2 + 1)).
    At x = -1e5, log(x + sqrt(x^2 + 1)) had lost 5 digits in float64 and was -inf from
    x = -5.5e4.
    """
    return _bottom_up(expr, lambda e: _root_cancellation(e, var))


def _one_square(s: sp.Expr, var: sp.Symbol) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """(c, w, r) when s = c*w**2 + r with w depending on var and r (not 0) free of it;
    any even power is a square (x**18 = (x**9)**2: sqrt(1 + x**18) - 1 was inf from
    x = -140 in float32, where x**18 overflows and the value is |x|**9 - 1)."""
    terms = s.args if isinstance(s, sp.Add) else (s,)
    squares = []
    for t in terms:
        c, rest = t.as_independent(var, as_Add=False)
        if (
            isinstance(rest, sp.Pow)
            and rest.exp.is_Integer
            and rest.exp >= 2
            and rest.exp % 2 == 0
            and var in rest.base.free_symbols
        ):
            squares.append((t, c, rest.base ** (rest.exp // 2)))
    if len(squares) != 1:
        return None
    t, c, w = squares[0]
    r = s - t
    if var in r.free_symbols:
        return None
    return c, w, r


def _square_in_root(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    far = None
    if (
        isinstance(e, sp.Pow)
        and isinstance(e.base, sp.Add)
        and var not in e.exp.free_symbols
        and e.exp.is_integer is not True
    ):  # a root, or a constant power (the generalised Charbonnier (r^2 + eps^2)^alpha)
        found = _one_square(e.base, var)
        if found is not None:
            c, w, r = found
            far = sp.Abs(w) ** (2 * e.exp) * (c + r / w**2) ** e.exp
    elif isinstance(e, (sp.log, log1p)):
        arg = e.args[0] + (1 if isinstance(e, log1p) else 0)
        found = _one_square(arg, var)
        if found is not None and found[2] != 0:
            c, w, r = found
            far = 2 * sp.log(sp.Abs(w)) + sp.log(c + r / w**2)
    elif isinstance(e, sp.asinh):
        found = _one_square(e.args[0], var)
        if found is not None:
            c, w, r = found
            if _far_asinh_safe(c, r):
                q = c + r / w**2  # u = w^2 q; asinh(u) = sign(u) (log|u| + log(1 +
                # sqrt(1 + 1/u^2))), 1/u = (1/w^2)/q: nothing overflows
                inv = (1 / w**2) / q
                far = sp.sign(q) * (
                    2 * sp.log(sp.Abs(w))
                    + sp.log(sp.Abs(q))
                    + sp.log(1 + sp.sqrt(1 + inv**2))
                )
                return sp.Piecewise((far, sp.Abs(w) > _FAR_ASINH), (e, True))
    if far is None:
        return e
    return sp.Piecewise((far, sp.Abs(w) > 1), (e, True))


#: |w| above which asinh(c*w^2 + r) is taken in its logarithmic form.
_FAR_ASINH = 1e4


def _far_asinh_safe(c: sp.Expr, r: sp.Expr) -> bool:
    """c + r/w^2 stays away from 0 for |w| > _FAR_ASINH (numbers only, |r/c| small)."""
    if not (c.is_number and r.is_number) or c == 0:
        return False
    return abs(float(r / c)) < 1e-2 * _FAR_ASINH**2


def square_in_root(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``(c*w^2 + r)^p`` (p free of x and not an integer, r free of x) as
    ``|w|^(2p) (c + r/w^2)^p`` and ``log(c*w^2 + r)`` as ``2 log|w| + log(c + r/w^2)`` where |w| > 1: w^2 overflows
    (float32 from |w| = 1.8e19) long before the value does (log(1 + x^2) was inf there,
    the pseudo-Huber loss inf and its gradient NaN)."""
    return _bottom_up(expr, lambda e: _square_in_root(e, var))


def _scale_of(t: sp.Expr, var: sp.Symbol) -> tuple[sp.Expr, sp.Expr]:
    """(c, w) with t = c*w, c the factors of t free of var (also those inside an
    ``Abs`` of a product: ``Abs(beta*x)`` is ``|beta| |x|``, as SymPy writes
    ``Abs(1.25*x)`` itself) and w the rest."""
    c, w = t.as_independent(var, as_Add=False)
    scale, rest = [c], []
    for f in sp.Mul.make_args(w):
        if isinstance(f, sp.Abs) and isinstance(f.args[0], sp.Mul):
            k, inner = f.args[0].as_independent(var, as_Add=False)
            if k != 1:
                scale.append(sp.Abs(k))
                rest.append(sp.Abs(inner))
                continue
        rest.append(f)
    return sp.Mul(*scale), sp.Mul(*rest)


def _one_scaled_term(s: sp.Expr, var: sp.Symbol) -> tuple | None:
    """(c, w, r, size) when s = c*w + r with one term c*w (c free of var, w depending
    on it) whose scale may exceed 1, r the other terms (with no such scale) and size
    the magnitude compared with the far threshold.

    c is a number with |c| > 1 (size |w|), or an expression in the constants
    (``beta*x``, ``x/s``), for which size is |w| min(|c|, 1): the far form is then
    taken where |c w| is large for |c| < 1 too (never for c = 0, where it is log 0),
    so the rewrite holds for every value of the constants. One comparison of an array
    (an ``And`` with a condition on the constants alone is a scalar NumPy cannot
    reduce with the array)."""
    scaled = []
    for t in sp.Add.make_args(s):
        if var not in t.free_symbols:
            continue
        c, w = _scale_of(t, var)
        if c.is_number:
            if abs(c) > 1:
                scaled.append((t, c, w, sp.Abs(w)))
        elif not c.has(sp.I) and c.is_zero is not True:
            scaled.append((t, c, w, sp.Abs(w) * sp.Min(sp.Abs(c), 1)))
    if len(scaled) != 1:
        return None
    t, c, w, size = scaled[0]
    return c, w, s - t, size


def _scaled_linear_in_log(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if isinstance(e, (sp.log, log1p)):
        arg = e.args[0] + (1 if isinstance(e, log1p) else 0)
        found = _one_scaled_term(arg, var)
        if found is None:
            return e
        c, w, r, size = found
        # u = c (w + r/c): log u = log|c| + log(sign(c) (w + r/c))
        sign = 1 if c.is_nonnegative else sp.sign(c)  # |beta|: no sign to take
        far = sp.log(sp.Abs(c)) + sp.log(sign * (w + r / c))
    elif isinstance(e, sp.asinh):
        found = _one_scaled_term(e.args[0], var)
        if found is None:
            return e
        c, w, r, size = found
        q = w + r / c  # u = c q; asinh(u) = sign(u) (log|u| + log(1 + sqrt(1 +
        # 1/u^2))), 1/u = (1/c)/q: nothing overflows
        inv = (1 / c) / q
        far = sp.sign(c * q) * (
            sp.log(sp.Abs(c)) + sp.log(sp.Abs(q)) + sp.log(1 + sp.sqrt(1 + inv**2))
        )
    else:
        return e
    return sp.Piecewise((far, size > _FAR_ASINH), (e, True))


def scaled_linear_in_log(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``log``/``log1p``/``asinh`` of ``c*w + r`` (|c| > 1) with c taken out of the
    argument where |w| > 1e4: c*w overflows within a factor c of the float maximum
    where the value (about log|c w|) does not (``log(1 + abs(1.25*x))`` and
    ``asinh(2*x - sigmoid(x))`` were inf at +-3.4e38 in float32). c may be a named
    constant (``log(1 + abs(beta*x))``, ``log(1 + abs(x/s))``): the branch is then
    taken where |c w| > 1e4 for |c| < 1 (one more multiplication in the kernel)."""
    return _bottom_up(expr, lambda e: _scaled_linear_in_log(e, var))


def _log_of_polynomial(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, (sp.log, log1p)) or var not in e.free_symbols:
        return e
    arg = e.args[0] + (1 if isinstance(e, log1p) else 0)
    try:
        poly = sp.Poly(arg, var)
    except (sp.PolynomialError, sp.PolificationFailed):
        return e
    n = poly.degree()
    coeffs = poly.all_coeffs()  # a_n, ..., a_0
    if n < 2 or any(var in c.free_symbols for c in coeffs):
        return e
    t = 1 / var
    q = sp.Integer(0)
    for c in reversed(coeffs):  # Horner in t = 1/x: a_0 t^n + ... + a_n
        q = q * t + c if q != 0 else c
    # P(x) = x^n Q(1/x), |x|^n = sign(x)^n x^n
    far = n * sp.log(sp.Abs(var)) + sp.log(sp.sign(var) ** n * q)
    return sp.Piecewise((far, sp.Abs(var) > _FAR_POLYNOMIAL), (e, True))


#: |x| above which the log of a polynomial is taken with its leading power factored out
_FAR_POLYNOMIAL = 4


def log_of_polynomial(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``log``/``log1p`` of a polynomial P of degree n >= 2 in x as
    ``n log|x| + log(sign(x)^n Q(1/x))``, Q(t) = t^n P(1/t) in Horner form, where
    |x| > 4: x^n overflows long before the value (``softplus(-x + log(x**4 + x**2))``
    was inf from x = -1e22 in float32, its value about -x)."""
    return _bottom_up(expr, lambda e: _log_of_polynomial(e, var))


def _horner(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add) or not e.has(var):
        return e
    try:
        poly = sp.Poly(e, var)  # sin(x) + x**2, x**a: not a polynomial in x
    except (sp.PolynomialError, sp.PolificationFailed):
        return e
    if poly.degree() < 2 or len(poly.terms()) < 2:
        return e
    out = sp.horner(e, wrt=var)
    return e if out == e else out


def horner_polynomials(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Polynomials in x in Horner form: ``x + 0.1*x**3`` as ``x*(0.1*x**2 + 1)``. The
    highest power overflows (float32 x**3 from |x| = 7e12) long before the polynomial
    does when its coefficient is small (inf instead of 1e38 at x = 1e13), and two
    overflowing terms of opposite signs give inf - inf = NaN (``x**2 + x**3/3`` at
    x = -1e20) where the polynomial is -inf."""
    return _bottom_up(expr, lambda e: _horner(e, var))


def _power_of(t: sp.Expr, var: sp.Symbol) -> tuple[int, sp.Expr]:
    """(k, rest) with t = var**k * rest, k the integer power of var among t's factors."""
    k, rest = 0, []
    for f in sp.Mul.make_args(t):
        base, n = f.as_base_exp()
        if base == var and n.is_Integer:
            k += int(n)
        else:
            rest.append(f)
    return k, sp.Mul(*rest)


def _common_power(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add) or len(e.args) < 2:
        return e
    split = [_power_of(t, var) for t in e.args]
    powers = {k for k, _ in split}
    if len(powers) != 1 or 0 in powers:
        # no common power, or powers left inside: x**2*(tanh(x) + x**2*exp(-x**2))
        # still overflows inside, and hides the vanishing term from the regimes
        return e
    if all(var not in c.free_symbols for _, c in split):
        return e  # a polynomial: Horner's
    return var ** powers.pop() * sp.Add(*[c for _, c in split])


def factor_common_power(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """The power of x that every term of a sum has (the same in each), taken out:
    ``x + 2.5*x*sin(x)`` as ``x*(1 + 2.5*sin(x))``. 2.5*x*sin(x) overflows at the float maximum where the sum
    does not (f was -inf at x = 3.4e38 in float32 on NumPy, where it is -1.04e38;
    g++ fused it into an fma). Sums that are polynomials are Horner's. A common
    reciprocal too: the log-normal likelihood's f' ``1/x + (log(x) - m)/(s**2*x)``
    was inf - inf = NaN at subnormal x (each term overflows, with opposite signs)
    where ``(1 + (log(x) - m)/s**2)/x`` is -inf (float64 x < 1e-310)."""
    return _bottom_up(expr, lambda e: _common_power(e, var))


def _split_power(e: sp.Mul, var: sp.Symbol, powers: tuple) -> tuple[int, list]:
    """(k, the other factors) for the first factor var**k of e with k in ``powers``
    (x itself is x**1); k = 0 when there is none."""
    k, rest = 0, []
    for f in e.args:
        n = 1 if f == var else f.exp if isinstance(f, sp.Pow) and f.base == var else 0
        if k == 0 and n in powers:
            k = int(n)
        else:
            rest.append(f)
    return k, rest


def _divide_stepwise(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    k, rest = _split_power(e, var, (-2, -3, -4))
    k = -k
    if not k or not any(var in f.free_symbols for f in rest):
        return e
    q = sp.Mul(*rest)
    for _ in range(k - 1):
        q = sp.UnevaluatedExpr(q / var)
    return q / var


def divide_stepwise(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``u/x**k`` (k = 2..4) as ``((u/x)/x)...``: x**k overflows (float32 x**2 from
    |x| = 1.8e19, x**3 from 7e12) or underflows long before u/x**k does, where u grows
    with x: f of (exp(x) - 1 - x)/x**2 was 0 instead of 1e-20 at x = -1e20 in float32,
    its f' -1e-26 instead of +1e-26 at x = -1e13 (x**3 overflowed in the second term)."""
    return _bottom_up(expr, lambda e: _divide_stepwise(e, var))


def _divide_by_constant_stepwise(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul) or var not in e.free_symbols:
        return e
    for i, f in enumerate(e.args):
        if (
            isinstance(f, sp.Pow)
            and isinstance(f.base, sp.Symbol)
            and f.base != var
            and f.exp.is_Integer
            and -4 <= f.exp <= -2
        ):
            q = sp.Mul(*(e.args[:i] + e.args[i + 1 :]))
            for _ in range(-int(f.exp) - 1):
                q = sp.UnevaluatedExpr(q / f.base)
            return q / f.base
    return e


def divide_by_constant_stepwise(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``u/c**k`` (k = 2..4, c a constant) as ``((u/c)/c)...``: c**k underflows or
    overflows where u/c**k does not. d/dbeta of ``log(1 + exp(beta*x))/beta``, whose
    ``softplus(-|beta x|)/beta**2`` was 0/0 = NaN in float32 at beta = 1e-30 (beta**2
    is 0 there) where |x| >= 1e35 and the gradient is 0."""
    return _bottom_up(expr, lambda e: _divide_by_constant_stepwise(e, var))


def _power_over_variable(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul) or sp.Pow(var, -1) not in e.args:
        return e
    for i, f in enumerate(e.args):
        if not (isinstance(f, sp.Pow) and f.base != var and var in f.base.free_symbols):
            continue
        if (f.exp.is_number and not f.exp > 1) or f.exp.is_negative:
            continue
        if not (f.base.is_polynomial(var) and sp.degree(f.base, var) == 1):
            continue
        rest = [a for j, a in enumerate(e.args) if j != i and a != sp.Pow(var, -1)]
        # 1/(x/u), not u/x: the printers merge an unevaluated u/x into the product's
        # numerator and denominator (u**(p - 1)*u/x overflowed as before)
        ratio = sp.Pow(sp.UnevaluatedExpr(var / f.base), -1)
        return sp.Mul(*rest, sp.Pow(f.base, f.exp - 1), ratio)
    return e


def power_over_variable(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``(a x + b)**p/x`` as ``(a x + b)**(p - 1)/(x/(a x + b))`` (p > 1 or a named
    exponent): the power overflows long before the quotient does. f' of the focal loss
    of a probability ``-(1 - x)**g*log(x)`` has ``(1 - x)**g/x``, -inf instead of
    -1e25 at x = 1e23 in float32 (from 1.9e19; float64 from 1.4e154) with g = 2."""
    return _bottom_up(expr, lambda e: _power_over_variable(e, var))


def _tanh_square_as_sech(e: sp.Expr) -> sp.Expr:
    if not isinstance(e, sp.Add):
        return e
    numbers = [t for t in e.args if t.is_number]
    squares = []
    for t in e.args:
        k, rest = t.as_coeff_Mul()
        if (
            isinstance(rest, sp.Pow)
            and rest.exp == 2
            and isinstance(rest.base, sp.tanh)
        ):
            squares.append((t, k, rest.base.args[0]))
    if len(numbers) != 1 or not squares:
        return e
    t, k, u = squares[0]
    others = [a for a in e.args if a is not t and a is not numbers[0]]
    return sp.Add(*others, numbers[0] + k, -k * sp.cosh(u) ** -2)


def tanh_square_as_sech(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``c + k*tanh(u)**2`` as ``(c + k) - k/cosh(u)**2``: where tanh(u)**2 rounds to
    1 the sum keeps only the rounding of c. SAC's tanh correction ``log(1 -
    tanh(x)**2 + 1e-6)`` (its 1 + 1e-6 one number, 1.000001) was log(9.5e-7) instead
    of log(1e-6) for |x| > 9 in float32, and its f' 6% off at x = -10."""
    return _bottom_up(expr, _tanh_square_as_sech)


def _decays(f: sp.Expr) -> bool:
    """Whether f is an exponential-like factor that tends to 0 (exp, sigmoid, erfc, a
    positive power of one, a negative power of cosh or exp): its 0 far out is the true
    value. Not a reciprocal such as 2/(sqrt(4*x**2 + 1) + 1), which is 0 there only
    because its root overflowed (x times it was 0 instead of 1 at x = 1e20)."""
    if isinstance(f, (sp.exp, sigmoid, sp.erfc)):
        return True
    if isinstance(f, sp.Pow) and f.exp.is_number:
        if f.exp.is_positive and isinstance(f.base, (sp.exp, sigmoid, sp.erfc)):
            return True
        return bool(f.exp.is_negative and isinstance(f.base, (sp.cosh, sp.exp)))
    return False


def _multiply_stepwise(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    k, rest = _split_power(e, var, (1, 2, 3, 4))
    if not k or not any(_decays(f) and var in f.free_symbols for f in rest):
        return e
    if k == 1 and all(var in f.free_symbols or abs(f) == 1 for f in rest):
        return e  # x*u: nothing is multiplied before u
    q = sp.Mul(*rest)
    if isinstance(q, sp.Mul):
        q = sp.UnevaluatedExpr(q)  # u with its constants first: (2*x)*exp(-x**2)
        # overflowed at the float maximum before the 0 came
    for _ in range(k - 1):
        q = sp.UnevaluatedExpr(q * var)
    return q * var


def multiply_stepwise(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``c*x**k*u`` (k = 1..4, u with a factor that decays: see ``_decays``) as
    ``((c*u)*x)*x...``: x**k (or c*x) overflows (float32 x**2 from |x| = 1.8e19, 2*x
    at the float maximum) where u vanishes, and inf*0 was NaN; u and its constants
    times one x at a time is 0 there, and where |x| > 1 no partial product exceeds
    the value. d(swish)/dbeta = x^2 sigmoid(beta x) sigmoid(-beta x) was NaN from
    |x| = 1.8e19 in float32 (the constant's gradient of a learnable beta), Mish-with-
    beta's too, and d/dalpha of x*erf(alpha*x), 2 x^2 exp(-alpha^2 x^2)/sqrt(pi), at
    the float maximum."""
    return _bottom_up(expr, lambda e: _multiply_stepwise(e, var))


def _exp_divided_stepwise(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul) or not any(
        isinstance(f, sp.exp) and var in f.free_symbols for f in e.args
    ):
        return e
    return _divide_stepwise(e, var)


def divide_exponential_stepwise(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``exp(u)/x**k`` (k = 2..4) as ``((exp(u)/x)/x)...``: where exp(u) underflows as
    x -> 0 (exp(1/x) from the left), x**k underflows too, and 0/0 = NaN (exp(1/x)' =
    -exp(1/x)/x**2 was NaN from x = -1e-25 in float32 and -1e-168 in float64, where
    it is 0); 0/x/x is 0."""
    return _bottom_up(expr, lambda e: _exp_divided_stepwise(e, var))


def _laurent_terms(e: sp.Expr, var: sp.Symbol) -> dict[int, sp.Expr] | None:
    """{k: c_k} when e = sum c_k x**k, every k <= 0 an integer, c_k free of x."""
    out: dict[int, sp.Expr] = {}
    for t in sp.Add.make_args(e):
        c, k = t.as_coeff_exponent(var)
        if var in c.free_symbols or not k.is_Integer or k > 0:
            return None
        out[int(k)] = out.get(int(k), sp.S.Zero) + c
    return out


def _in_inverse_powers(coeffs: dict[int, sp.Expr], var: sp.Symbol) -> sp.Expr:
    """sum of c_k x**k for k <= 0, as c_0 + (c_-1 + (c_-2 + ...)/x)/x, kept nested."""
    low = min(coeffs)
    inner = sp.S.Zero
    for k in range(low, 0):
        inner = sp.UnevaluatedExpr((inner + coeffs.get(k, sp.S.Zero)) / var)
    return inner + coeffs.get(0, sp.S.Zero)


def _horner_reciprocal(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Add) or var not in e.free_symbols:
        return e
    terms = _laurent_terms(e, var)
    if terms is None or sum(1 for k in terms if k < 0) < 2 or min(terms) < -8:
        return e
    # c_0 + (c_-1 + (c_-2 + ...)/x)/x, the nesting kept (SymPy would flatten it into
    # x**-k*(...), x**-k overflowing again)
    return _in_inverse_powers(terms, var)


def _rational_term(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul) or var not in e.free_symbols:
        return e
    num, den = sp.fraction(e)
    if var not in den.free_symbols:
        return e
    try:
        p, q = sp.Poly(num, var), sp.Poly(den, var)
    except (sp.PolynomialError, sp.PolificationFailed):
        return e
    m = q.degree()
    if (
        m < 2
        or p.degree() > m
        or not all(c.is_number for c in (*p.coeffs(), *q.coeffs()))
    ):
        return e
    top = {k[0] - m: c for k, c in p.terms()}
    bottom = {k[0] - m: c for k, c in q.terms()}
    far = _in_inverse_powers(top, var) / _in_inverse_powers(bottom, var)
    return sp.Piecewise((far, sp.Abs(var) > _FAR_POLYNOMIAL), (e, True))


def rational_terms(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """A quotient of polynomials P/Q (numbers as coefficients, deg P <= deg Q = m >= 2)
    inside a larger expression as (P/x^m)/(Q/x^m) in Horner form in 1/x where |x| > 4:
    both overflow long before the quotient does, inf/inf = NaN (the f' of
    ``x*log(x**4 + 1)``, ``log1p(x**4) + 4*x**4/(x**4 + 1)``, was NaN from |x| = 4.3e9
    in float32; the asymptote regimes see only whole rational functions). Logs of
    polynomials get :func:`log_of_polynomial`'s form in the same pass: in such an f'
    both overflow at once, and neither rewrite alone removes a failing point. Not
    where an exponential is present: its exp-of-log regime covers the quotients there,
    and the branches would hide them from it (``exp(x)/(x**3 + x)``' was inf past
    exp's overflow)."""
    if expr.has(sp.exp):
        return expr
    return _bottom_up(expr, lambda e: _log_of_polynomial(_rational_term(e, var), var))


def horner_reciprocal(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """Sums of negative powers of x in Horner form in 1/x: ``x**-3 + x**-2`` as
    ``((1/x + 1)/x)/x``. Near 0 each power overflows on its own, and two of opposite
    signs give inf - inf = NaN (x**-3 + x**-2 from x = -1e-22 in float32, where it
    is -1e66, i.e. -inf); in Horner form the leading power's sign carries through."""
    return _bottom_up(expr, lambda e: _horner_reciprocal(e, var))


#: The exact rewrites tried, in order: (name, plain-words note, function of (expr, var)).
#: Factoring comes first: after ``steps_to_branches`` a polynomial in ``clip(x, 0, 1)``
#: is a sum of branches, no longer a polynomial (the seventh-order smoothstep's f').
#: The log1p cancellations next: other rewrites regroup the terms they match.
EXACT_REWRITES = (
    (
        "factored_polynomials",
        (
            "a polynomial with rational roots is evaluated as the product of its "
            "factors (30t^2 (t - 1)^2 for 30t^4 - 60t^3 + 30t^2), so its terms do not "
            "cancel near a root"
        ),
        factored_polynomials,
    ),
    (
        "log1p_difference",
        (
            "u - log1p(u) is computed from a series in u/(2 + u) where |u| < 1/4, "
            "which does not cancel where u is small"
        ),
        log1p_difference,
    ),
    (
        "reciprocal_complement",
        (
            "t - t*a/(a + u) is computed as t*u/(a + u), which does not cancel where "
            "u is small"
        ),
        reciprocal_complement,
    ),
    (
        "steps_to_branches",
        (
            "products with a step (from max/min/Heaviside) are split into branches, so "
            "an overflowing factor times 0 gives 0 instead of NaN"
        ),
        lambda e, v: steps_to_branches(e),
    ),
    (
        "log_mean_of_exps",
        (
            "the log of a weighted mean of exponentials is computed as log1p of a "
            "weighted sum of expm1 where the exponents are small, so it does not "
            "cancel to its rounding error near 0"
        ),
        log_mean_of_exps,
    ),
    (
        "log_forms",
        (
            "logarithms of products and of sums of exponentials are evaluated as sums of "
            "softplus/logsigmoid terms (log-sum-exp), which do not overflow"
        ),
        lambda e, v: log_forms(e),
    ),
    (
        "single_exponential",
        (
            "products and ratios of exponentials (and sigmoid, cosh, powers of 1 + exp) "
            "are combined into a single exponential of a sum"
        ),
        lambda e, v: single_exponential(e),
    ),
    (
        "scale_into_exponentials",
        (
            "a constant factor below 1 multiplying an exponential is taken into its "
            "argument (exp(u - log 2) for exp(u)/2), so the exponential does not "
            "overflow where the product is finite"
        ),
        lambda e, v: scale_into_exponentials(e, v),
    ),
    (
        "distribute_exponentials",
        (
            "exponential factors multiplying a sum of exponentials are distributed into "
            "it and combined, so a huge and a tiny factor never meet"
        ),
        lambda e, v: distribute_exponentials(e),
    ),
    (
        "collect_exponentials",
        (
            "terms sharing an exponential factor are collected under it, so two "
            "overflowing terms never subtract (inf - inf)"
        ),
        lambda e, v: collect_exponentials(e),
    ),
    (
        "factor_dominant_exp",
        (
            "a sum with an exponential raised to a negative power is divided by that "
            "exponential where it is large (a regime in its argument)"
        ),
        lambda e, v: factor_dominant_exp(steps_to_branches(e), v),
    ),
    (
        "factor_lowest_power",
        (
            "the sign (or absolute value) of a polynomial that vanishes at 0 is taken "
            "with its lowest power of x factored out, so it keeps its sign where the "
            "terms underflow"
        ),
        factor_lowest_power,
    ),
    (
        "factor_common_power",
        (
            "a power of x common to every term of a sum is taken out of it, so no term "
            "overflows where the sum does not"
        ),
        factor_common_power,
    ),
    (
        "horner_reciprocal",
        (
            "sums of negative powers of x are evaluated in Horner form in 1/x, so two "
            "overflowing powers never subtract (inf - inf) near 0"
        ),
        horner_reciprocal,
    ),
    (
        "divide_exponential_stepwise",
        (
            "an exponential over a power of x is divided by x one factor at a time, so "
            "both do not underflow together (0/0) near 0"
        ),
        divide_exponential_stepwise,
    ),
    (
        "power_of_one_plus",
        (
            "(1 + w)^q is evaluated as exp(q log1p(w)) where 1 + w > 0, so the "
            "rounding of 1 + w is not raised to the power q"
        ),
        power_of_one_plus,
    ),
    (
        "widen_trig",
        (
            "sin/cos/tan of a product are evaluated in a wider type where the product "
            "overflows (float32 -> double, float64 -> long double)"
        ),
        lambda e, v: widen_trig(e, v),
    ),
    (
        "scale_out_of_range_literals",
        (
            "a number beyond float32's range multiplies as a power of two (ldexp) "
            "after the other factors, so it is never inf or 0 times them"
        ),
        scale_out_of_range_literals,
    ),
    (
        "scale_out_of_range_literals_into_exp",
        (
            "a number beyond float32's range multiplies as a power of two (ldexp), part "
            "of it in the argument of an exponential factor, so neither overflows nor "
            "underflows before the product does"
        ),
        lambda e, v: scale_out_of_range_literals(e, v, into_exp=1000),
    ),
    (
        "group_constant_factors",
        (
            "products of constants are computed before they multiply x, so no "
            "intermediate overflows at large |x|"
        ),
        group_constant_factors,
    ),
    (
        "log_of_polynomial",
        (
            "the log of a polynomial takes its leading power out as n log|x| where |x| "
            "is large, so x^n does not overflow where the value is finite"
        ),
        log_of_polynomial,
    ),
    (
        "gamma_differences",
        (
            "lgamma(z + d) - lgamma(z) (and digamma's) is d log z plus its asymptotic "
            "series where z is large, so the pair neither cancels nor gives inf - inf"
        ),
        lambda e, v: gamma_differences(e, v, log_of_polynomial),
    ),
    (
        "digamma_far",
        (
            "digamma(u) is its asymptotic series log(u) - 1/(2u) - ... where u > 100, "
            "the log of a polynomial u with its leading power taken out, so u "
            "overflowing does not make the value inf"
        ),
        lambda e, v: digamma_far(e, v, log_of_polynomial),
    ),
    (
        "log_of_power",
        (
            "the log of a constant plus a power x^p (p not an integer) takes p log(x) "
            "out where x is large, so x^p does not overflow where the value is finite"
        ),
        log_of_power,
    ),
    (
        "rational_terms",
        (
            "a quotient of polynomials inside a larger expression is divided by the "
            "denominator's highest power of x where |x| is large, so neither overflows"
        ),
        rational_terms,
    ),
    (
        "scaled_rational_products",
        (
            "a product of polynomials with named coefficients, their absolute values "
            "and 1 + |P| is computed in powers of 1/x where |x| is large, so no "
            "polynomial overflows where the product does not"
        ),
        scaled_rational_products,
    ),
    (
        "power_and_complement",
        (
            "a power z times a power of 1 + z is computed as a product of sums with 1 "
            "(z/(1 + z)^2 as 1/((1 + z)(1 + 1/z))), so an underflowing z never "
            "multiplies its overflowing reciprocal (0*inf)"
        ),
        power_and_complement,
    ),
    (
        "root_cancellation",
        (
            "a sum of a square root and terms that cancel it (x + sqrt(x^2 + 1) for x < 0) "
            "is evaluated as the quotient that does not cancel"
        ),
        root_cancellation,
    ),
    (
        "cosine_as_half_angle",
        (
            "1 - cos(u) is evaluated as 2 sin(u/2)^2, which does not cancel where u is "
            "small"
        ),
        cosine_as_half_angle,
    ),
    (
        "square_in_root",
        (
            "a root (or log, or asinh) of c*x^2 + r is evaluated as |x| sqrt(c + r/x^2) "
            "(or 2 log|x| + log(c + r/x^2)) for large |x|, so x^2 does not overflow"
        ),
        square_in_root,
    ),
    # after square_in_root: it takes log|c| out but leaves c*x^2 + r to overflow
    # where x^2 does (asinh(2*x**2 - 3) inf from 1.9e19 in float32 once the
    # overflow edges were sampled and it helped first)
    (
        "scaled_linear_in_log",
        (
            "a log or asinh of c*w + r with |c| > 1 takes log|c| out of the argument "
            "where |w| is large, so c*w does not overflow where the value is finite"
        ),
        scaled_linear_in_log,
    ),
    (
        "horner_polynomials",
        (
            "polynomials in x are evaluated in Horner form (x + c*x^3 as "
            "x*(1 + c*x^2)), so the highest power does not overflow before the "
            "polynomial does"
        ),
        horner_polynomials,
    ),
    (
        "multiply_stepwise",
        (
            "a power x^k times a factor that vanishes is multiplied by x one factor "
            "at a time, so x^k does not overflow (inf*0) where the product is 0"
        ),
        multiply_stepwise,
    ),
    (
        "constant_factors_last",
        (
            "constants multiply the product of the factors with x last, so a large "
            "constant does not overflow a product that the other factors keep bounded"
        ),
        constant_factors_last,
    ),
    (
        "split_scaled_power",
        (
            "a power of a scaled x, (x/l)^p, is computed as x^p (1/l)^p, so x/l "
            "does not overflow where the power is finite"
        ),
        split_scaled_power,
    ),
    (
        "collect_linear_terms",
        (
            "the multiples of x in a sum are added as one (x*(1 - y) for x - x*y), "
            "so they do not cancel each other only after rounding"
        ),
        collect_linear_terms,
    ),
    (
        "sum_numbers_with_variable",
        (
            "the terms with x and the numbers of a sum are added before its named "
            "constants, so a small constant is not lost in the rounding of x"
        ),
        sum_numbers_with_variable,
    ),
    (
        "number_factors_last",
        (
            "a number above 1 multiplies a quotient by a function of x last, so it "
            "does not overflow the numerator that the division brings back down"
        ),
        number_factors_last,
    ),
    (
        "small_number_factors_last",
        (
            "a number below 1 multiplies a quotient by a function of x last, so it "
            "does not round a subnormal numerator to 0 before the division"
        ),
        small_number_factors_last,
    ),
    (
        "square_over_root",
        (
            "x^2 over a sum with the root of a square is computed as x (x/(...)) with "
            "the root as hypot, so x^2 does not overflow where the quotient does not "
            "(for every value of the constants)"
        ),
        square_over_root,
    ),
    (
        "root_of_squares_as_hypot",
        (
            "a square root of a sum of two squares is computed as hypot, so neither "
            "square underflows nor overflows before the root does"
        ),
        root_of_squares_as_hypot,
    ),
    (
        "divide_by_constant_stepwise",
        (
            "a quotient by a power of a constant is divided by the constant one factor "
            "at a time, so the power does not underflow (0/0) or overflow first"
        ),
        divide_by_constant_stepwise,
    ),
    (
        "tanh_square_as_sech",
        (
            "a number plus a multiple of tanh(u)^2 is computed with sech(u)^2, so the "
            "sum does not keep only the rounding error where tanh(u)^2 rounds to 1"
        ),
        tanh_square_as_sech,
    ),
    (
        "power_over_variable",
        (
            "a power of a linear function of x divided by x is computed as a lower "
            "power times the bounded quotient, so the power does not overflow first"
        ),
        power_over_variable,
    ),
    (
        "scale_by_constant",
        (
            "a rational function of x and a constant c that depends on x/c only is "
            "computed in x/c, so no square of a tiny x or c underflows to a subnormal"
        ),
        scale_by_constant,
    ),
    (
        "constant_into_power",
        (
            "a constant times a square, cube or fourth power is multiplied in one "
            "factor at a time, so the power does not overflow where a zero or small "
            "constant brings the term down (0*inf was NaN)"
        ),
        constant_into_power,
    ),
    (
        "sigmoid_difference",
        (
            "a difference of two sigmoids is computed as a product of sigmoids and "
            "expm1 of the difference of their arguments, so it does not cancel to 0 "
            "where both round to 1 (and its log as a sum of log-sigmoids)"
        ),
        sigmoid_difference,
    ),
    (
        "power_difference",
        (
            "a power of a shifted argument less the shift's power, (u + A)^n - A^n, is "
            "computed as u times a polynomial in u, so the two near A^n do not cancel"
        ),
        power_difference,
    ),
    (
        "softplus_difference",
        (
            "a difference of two softplus terms whose arguments differ by a constant "
            "is computed as log1p of expm1 of the gap times a sigmoid, so it does not "
            "cancel where both terms are about the same"
        ),
        softplus_difference,
    ),
    (
        "sigmoid_offset",
        (
            "a constant plus a multiple of a sigmoid is computed as its midpoint plus a "
            "multiple of tanh, so a range symmetric about 0 does not cancel near its "
            "middle"
        ),
        sigmoid_offset,
    ),
)

#: Exact rewrites tried only on a form that already meets the accuracy rule (see
#: ``engine.WITHIN_RULE_REWRITES``): their unevaluated quotients would hide the form's
#: structure from the regimes (exp-of-log forms, asymptotes) tried before.
WITHIN_RULE_ONLY = (
    (
        "divide_stepwise",
        (
            "a quotient u/x^k is divided by x one factor at a time, so x^k does not "
            "overflow (or underflow) before the quotient does"
        ),
        divide_stepwise,
    ),
)

__all__ = [
    "EXACT_REWRITES",
    "WITHIN_RULE_ONLY",
    "collect_exponentials",
    "collect_linear_terms",
    "constant_factors_last",
    "constant_into_power",
    "cosine_as_half_angle",
    "distribute_exponentials",
    "divide_by_constant_stepwise",
    "divide_exponential_stepwise",
    "divide_stepwise",
    "factor_common_power",
    "factor_dominant_exp",
    "factor_lowest_power",
    "factored_polynomials",
    "group_constant_factors",
    "horner_polynomials",
    "horner_reciprocal",
    "log1p_difference",
    "log_forms",
    "log_mean_of_exps",
    "log_of",
    "log_of_polynomial",
    "log_of_power",
    "multiply_stepwise",
    "number_factors_last",
    "power_and_complement",
    "power_difference",
    "power_of_one_plus",
    "power_over_variable",
    "rational_terms",
    "reciprocal_complement",
    "root_cancellation",
    "root_of_squares_as_hypot",
    "scale_by_constant",
    "scale_into_exponentials",
    "scale_out_of_range_literals",
    "scaled_linear_in_log",
    "scaled_rational_products",
    "sigmoid_difference",
    "sigmoid_offset",
    "single_exponential",
    "small_number_factors_last",
    "softplus_difference",
    "split_scaled_power",
    "square_in_root",
    "square_over_root",
    "steps_to_branches",
    "sum_numbers_with_variable",
    "tanh_square_as_sech",
]
