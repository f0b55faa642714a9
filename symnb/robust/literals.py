"""Number literals beyond float32's range, applied as a power of two.

A literal such as ``1e300`` rounds to inf in a float32 kernel (and ``2e600``, the
derivative's ``2*1e300*1e300``, in a float64 one), so ``1e300*exp(-1e300*x**2)`` was
``inf*exp(-inf*0) = NaN`` at x = 0 and ``inf*0 = NaN`` everywhere else, where the value
is 1e300 (inf in float32) and 0. :func:`scale_out_of_range_literals` writes ``c*u`` as
``ldexp2(m*u, k)`` with ``c = m*2**k`` (``|m|`` in [0.5, 1)): the product of finite
factors scaled once, which rounds to inf or 0 as the true value does and never meets
an inf times 0. A power of x in the product takes its share of ``k`` after each factor
of x (``c*x**2`` as ``ldexp2(ldexp2(m*x, k/2)*x, k - k/2)``), so x*x does not underflow
to 0 before the scaling where the true product overflows.
"""

from __future__ import annotations

import math

import sympy as sp

#: float32's largest finite value and smallest normal one: coefficients outside this
#: range are what a float32 kernel cannot hold (the rewrite is measured per dtype, and
#: kept only where it helps)
_BIG = sp.Float("3.4028234663852886e38")
_SMALL = sp.Float("1.1754943508222875e-38")


class ldexp2(sp.Function):
    """``u * 2**k`` for an integer ``k``: C's ``ldexp``, exact unless it rounds to inf,
    a subnormal or 0."""

    nargs = 2

    @classmethod
    def eval(cls, u, k):
        if not (k.is_Integer):
            raise TypeError("ldexp2's exponent must be an integer")
        if k == 0:
            return u
        if u.is_number:
            return u * sp.Integer(2) ** k
        return None

    def _eval_is_real(self):
        return self.args[0].is_real

    def fdiff(self, argindex=1):
        if argindex == 1:
            return sp.Integer(2) ** self.args[1]
        return sp.S.Zero

    def _symnb_ccode(self, printer) -> str:
        suffix = "f" if getattr(printer, "dtype", "float64") == "float32" else ""
        u = printer._print(self.args[0])
        return f"ldexp{suffix}({u}, {int(self.args[1])})"

    def _numpycode(self, printer) -> str:
        fn = printer._module_format(printer._module + ".ldexp")
        return f"{fn}({printer._print(self.args[0])}, {int(self.args[1])})"

    def _pythoncode(self, printer) -> str:  # to_numba's scalar code
        return f"math.ldexp({printer._print(self.args[0])}, {int(self.args[1])})"

    def _jaxcode(self, printer) -> str:
        return f"jax.numpy.ldexp({printer._print(self.args[0])}, {int(self.args[1])})"

    def _mpmathcode(self, printer) -> str:
        return f"mpmath.ldexp({printer._print(self.args[0])}, {int(self.args[1])})"


def _split(c: sp.Number) -> tuple[sp.Float, int]:
    """(m, k) with c = m * 2**k and 0.5 <= |m| < 1 (c beyond float64 too)."""
    f = sp.Float(c, 30)
    k = int(sp.floor(sp.log(abs(f), 2))) + 1
    m = f / sp.Integer(2) ** k
    while abs(m) >= 1:
        m, k = m / 2, k + 1
    while abs(m) < 0.5:
        m, k = m * 2, k - 1
    return sp.Float(float(m)), k


def _power_of_input(f: sp.Expr, var: sp.Symbol) -> int:
    """n for f = var**n (n = 1..4), else 0."""
    if f == var:
        return 1
    if isinstance(f, sp.Pow) and f.base == var and f.exp.is_Integer:
        n = int(f.exp)
        return n if 1 <= n <= 4 else 0
    return 0


def _scale_literal(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not isinstance(e, sp.Mul):
        return e
    c, rest = e.as_coeff_Mul()
    if not c.is_Number or c == 0 or _SMALL <= abs(c) <= _BIG or rest == 1:
        return e
    m, k = _split(c)
    copies, others = 0, []
    for f in sp.Mul.make_args(rest):
        n = _power_of_input(f, var)
        copies += n
        if not n:
            others.append(f)
    t = m * sp.Mul(*others)
    if not copies:
        return ldexp2(t, k)
    share, left = divmod(k, copies)
    for i in range(copies):
        t = ldexp2(t * var, share + (1 if i < left else 0))
    return t


def _shift_into_exp(e: sp.Expr, cap: int) -> sp.Expr:
    """``ldexp2(u*exp(v), k)`` with k > 0 as ``ldexp2(u*exp(v + s log 2), k - s)``,
    s = min(k, cap) (the double nearest s*log(2), as an exact rational: SymPy folds
    exp(v + Float) back into a factor)."""
    if not isinstance(e, ldexp2) or e.args[1] <= 0:
        return e
    k = int(e.args[1])
    m, rest = e.args[0].as_coeff_Mul()
    factors = list(sp.Mul.make_args(rest))
    for i, f in enumerate(factors):
        if isinstance(f, sp.exp):
            # m goes in too: m*x rounded a subnormal x (float64 f' at x = 5e-324
            # was 1.8e277 instead of 9.9e276)
            shift = min(k, cap)
            log_scale = shift * math.log(2.0) + math.log(abs(float(m)))
            factors[i] = sp.exp(f.args[0] + sp.Rational(log_scale))
            return ldexp2(sp.sign(m) * sp.Mul(*factors), k - shift)
    return e


def scale_out_of_range_literals(
    expr: sp.Expr, var: sp.Symbol, into_exp: int = 0
) -> sp.Expr:
    """``c*u`` with ``|c|`` beyond float32's range as ``ldexp2(m*u, k)`` (see the
    module's docstring): ``x + 1e300*exp(-1e300*x**2)`` was NaN at every x in float32,
    its f' (``2e600*x*...``) at every x in float64 too.

    ``into_exp`` > 0: up to that many of the powers of two of a large ``c`` go into
    the argument of an exponential factor, ``exp(u + s log 2)``, so ``x*exp(u)`` does
    not underflow to 0 before the scaling where ``c*x*exp(u)`` is a normal number
    (float64's f' above at x = 3e-149: -1e62, not 1). 1000 suits float64 only (exp of
    693 is inf in float32, and times x = 0 NaN): the engine measures both variants."""
    from symnb.robust.traversal import bottom_up as _bottom_up

    out = _bottom_up(expr, lambda e: _scale_literal(e, var))
    if into_exp:
        out = _bottom_up(out, lambda e: _shift_into_exp(e, into_exp))
    return out


__all__ = ["ldexp2", "scale_out_of_range_literals"]
