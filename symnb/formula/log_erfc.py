"""log(erfc(u)) and the log of the normal CDF, exact and finite for every real u.

``log(ndtr(x))`` (torch.special.log_ndtr spelled out, a probit log-likelihood) reads as
``log(erfc(-x/sqrt(2))/2)``: erfc underflows to 0 past u = 26.5 in float64 and 10 in
float32 (subnormal from 9.2), so the log was -inf (x = -40 in float64, -14.2 in
float32) and its derivative, exp(-u^2)/erfc(u), 0/0. Near erfc(u) = 2 or 1 the log of a
rounded erfc lost every digit of a value near 0 (log(ndtr(5)) was 4% off in float32,
log(ndtr(10)) was 0 instead of -7.6e-24 in float64).

``log(c*erfc(u))`` (c > 0) is rewritten as four exact forms of u:

* u < -1/2: ``log(2c) + log1p(-erfc(-u)/2)`` (erfc(u) = 2 - erfc(-u); exact where the
  value tends to 0, as log(ndtr(x)) does for large x, c = 1/2);
* -1/2 <= u < 1/2: ``log(c) + log1p(-erf(u))`` (exact near u = 0, where erfc(u) = 1);
* 1/2 <= u <= 4: ``log(c) + log(erfc(u))``;
* u > 4: ``log(c) - u**2 + log(erfcx(u))``, erfcx the primitive of
  :class:`symnb.formula.functions.erfcx` (since ENGINE 110), whose kernels past 4 use
  erfc(u) = exp(-u^2)/(sqrt(pi) u) / (1 + t P/Q), t = 1/u^2: Laplace's continued
  fraction, 12 levels of its even part, as one quotient of two polynomials with
  positive coefficients (:func:`_tail_coefficients`; relative error below 2^-60 from
  u = 4 on; tests/formula/test_log_erfc.py checks the forms against mpmath). Its
  derivative -2u - 2 ierfcx(u)/erfcx(u) has no exp/erfc ratio: finite for every u
  (about -2u where the exact one is).

Also read so: ``log1p(-+erf(u))`` (as log(erfc(+-u))) and number terms added to the
log (``log(1 + erf(x/sqrt(2))) - log(2)`` is log(ndtr(x)): a separate -log(2) would
cancel against the first form's log(2)). A second pass leaves the Piecewise alone.

Past u = 4 the ratio exp(-u^2)/erfc(u) of the third form's derivative would also lose
u^2 ulps in float32 (u*u rounded, then exp), so the threshold is low.
"""

from __future__ import annotations

import functools

import sympy as sp

from symnb.formula.functions import erfc, erfcx, log1p

#: The tail form from here (u > TAIL).
TAIL = 4
#: Levels of the continued fraction: 11 reach 2^-60 in the value at u = 4, 12 in f'.
LEVELS = 12


@functools.cache
def _tail_coefficients() -> tuple[tuple[sp.Rational, ...], tuple[sp.Rational, ...]]:
    """(P, Q) coefficients, lowest first, with H(t) = P(t)/Q(t) (see :func:`_tail`).

    Laplace's continued fraction erfc(u) = exp(-u^2)/sqrt(pi) / (u + (1/2)/(u + 1/(u +
    (3/2)/(u + ...)))), contracted to its even part and divided by u^2: E(u^2)/u^2 =
    1 + t H(t), t = 1/u^2, H = 1/2 - (t/2)/G_1, G_(k-1) = 1 + t (2k - 3/2 - k(2k - 1)
    t/(2 G_k)), G_LEVELS = 1 + (2 LEVELS + 1/2) t. As one quotient P/Q every
    coefficient is positive: no cancellation for t > 0, and no nested quotients for
    the derivative (a nest of squared denominators that expanding blows up).
    """

    def times(a: list, b: list) -> list:  # polynomials, lowest coefficient first
        out = [sp.S.Zero] * (len(a) + len(b) - 1)
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                out[i + j] += x * y
        return out

    def plus(a: list, b: list) -> list:
        n = max(len(a), len(b))
        return [(a + [0] * n)[i] + (b + [0] * n)[i] for i in range(n)]

    # G_k = N_k/M_k: N_(k-1) = (1 + b t) N_k - a t^2 M_k, M_(k-1) = N_k
    n, m = [sp.S.One, 2 * LEVELS + sp.S.Half], [sp.S.One]
    for k in range(LEVELS, 1, -1):
        a = sp.Rational(k * (2 * k - 1), 2)
        step = times([sp.S.One, 2 * k - sp.Rational(3, 2)], n)
        n, m = plus(step, times([0, 0, -a], m)), n
    # H = 1/2 - (t/2) M_1/N_1 = (N_1 - t M_1)/(2 N_1); N_1(0) = 1
    p = plus(n, times([0, -1], m))
    return tuple(c / 2 for c in p)[: len(n)], tuple(n)


def _horner(coeffs: tuple, t: sp.Expr) -> sp.Expr:
    h = coeffs[-1]
    for c in coeffs[-2::-1]:
        h = c + t * h
    return h


def _tail(u: sp.Expr) -> sp.Expr:
    """log(erfc(u)) for u > TAIL: -u^2 + log(erfcx(u)) (two negative terms; erfcx is
    the primitive whose kernels hold the continued fraction below; written here in
    full before ENGINE 110, its analysis took 4-5 CPU seconds per compile)."""
    return -(u**2) + sp.log(erfcx(u))


def stable_log_erfc(c: sp.Expr, u: sp.Expr) -> sp.Piecewise:
    """log(c*erfc(u)) for a number c > 0, exact for every real u (see the module)."""
    lc = sp.expand_log(sp.log(c), force=True)
    return sp.Piecewise(
        (
            sp.expand_log(sp.log(2 * c), force=True) + log1p(-erfc(-u) / 2),
            u < -sp.S.Half,
        ),
        (lc + log1p(-sp.erf(u)), u < sp.S.Half),
        (lc + sp.log(erfc(u)), u <= TAIL),
        (lc + _tail(u), True),
    )


def _scaled_erfc(a: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """(c, u) when a = c*erfc(u), c a positive number and u not a number."""
    factors = sp.Mul.make_args(a)
    c = sp.Mul(*[f for f in factors if f.is_number])
    core = sp.Mul(*[f for f in factors if not f.is_number])
    if (
        isinstance(core, sp.erfc)
        and c.is_positive
        and not core.args[0].is_number
        and core.args[0].is_real is not False
    ):
        return c, core.args[0]
    return None


def _one_plus_erf(a: sp.Expr) -> sp.Expr | None:
    """u' when a = +-erf(u), so that log1p(a) = log(erfc(u'))."""
    k, core = a.as_coeff_Mul()
    if isinstance(core, sp.erf) and k in (1, -1) and not core.args[0].is_number:
        return -k * core.args[0]
    return None


def _fold_constant(e: sp.Add) -> sp.Expr | None:
    """e with its number terms r moved into its first log(c*erfc(u)) term as
    log(c*exp(r)*erfc(u)): ``log(1 + erf(x/sqrt(2))) - log(2)`` is log(ndtr(x)), whose
    value near 0 (x large) a separate -log(2) would cancel."""
    r = sp.Add(*[a for a in e.args if a.is_number])
    if r == 0:
        return None
    for a in e.args:
        if isinstance(a, sp.log) and _scaled_erfc(a.args[0]) is not None:
            c, u = _scaled_erfc(a.args[0])
            k = c * sp.exp(r)
            if k.is_positive and k.is_number:
                rest = [b for b in e.args if b is not a and not b.is_number]
                return sp.Add(*rest, sp.log(k * erfc(u)))
    return None


def _is_ours(e: sp.Basic) -> bool:
    """Whether e is a stable_log_erfc Piecewise (so a second pass leaves it alone)."""
    if not (isinstance(e, sp.Piecewise) and len(e.args) == 4):
        return False
    for t in sp.Add.make_args(e.args[2].expr):
        if isinstance(t, sp.log) and isinstance(t.args[0], sp.erfc):
            rebuilt = stable_log_erfc(sp.S.One, t.args[0].args[0])
            return [p.cond for p in rebuilt.args] == [p.cond for p in e.args]
    return False


def log_erfc_forms(expr: sp.Expr, note) -> sp.Expr:
    """expr with every log(c*erfc(u)) (and log1p(+-erf(u))) as :func:`stable_log_erfc`."""

    def walk(e: sp.Basic) -> sp.Basic:
        if not e.args or _is_ours(e):
            return e
        if isinstance(e, sp.Add):
            e = _fold_constant(e) or e
        args = [walk(a) for a in e.args]
        e = e.func(*args) if tuple(args) != e.args else e
        found = None
        if isinstance(e, sp.log):
            found = _scaled_erfc(e.args[0])
        elif isinstance(e, log1p):
            u = _one_plus_erf(e.args[0])
            found = None if u is None else (sp.S.One, u)
        if found is None:
            return e
        note(
            "rewrote log(erfc(u)) (the log of the normal CDF) as log1p(-erf(u)) near "
            "u = 0, log(2) + log1p(-erfc(-u)/2) for u < -1/2 and, past u = 4, "
            "-u^2 - log(sqrt(pi)*u) - log1p(a continued fraction) (erfc underflows: "
            "log(ndtr(x)) was -inf from x = -38 in float64, -14 in float32)"
        )
        return stable_log_erfc(*found)

    return walk(expr)
