"""One C-family printer for the generated C++ and CUDA kernels.

:class:`KernelPrinter` subclasses SymPy's :class:`~sympy.printing.c.C99CodePrinter` and only
adds ``_print_X`` methods and function tables, never string surgery on printed text:

* float32 (``expf``, ``1.0F``) or float64 (``exp``, ``1.0``); no ``M_PI``-style macros
  (NVRTC rejects them): number symbols and exact irrational numbers become literals;
* strict: anything it cannot print raises :class:`symnb.errors.FormulaError` naming the
  construct;
* symbols are printed through a mapping chosen by the code generator (``a0``, ``k0``,
  ``t0``...), so no user text ever reaches the source;
* ``sigmoid``, ``softplus``, ``logsigmoid``, ``Max``/``Min`` (NaN-propagating), ``sign``
  (0 at 0) and ``Heaviside`` print as helpers defined in :func:`prelude`; ``Piecewise`` as
  nested ternaries (NaN where no branch applies);
* small integer powers are printed as multiplications; ``u**(1/3)`` stays ``pow`` (NaN for
  u < 0, as NumPy) instead of SymPy's ``cbrt``;
* ``exp``, ``expm1``, ``log``, ``log1p`` and ``tanh`` print as ``symnb_exp``... from
  :mod:`symnb.codegen.vecmath`: inline vectorisable polynomials in the C++ kernels, the
  device library under CUDA.

:func:`lower` runs ``sympy.cse`` on a group of expressions, hoists the bases of small integer
powers into temporaries, counts the operations (refusing oversized formulas) and returns the
C statements plus the final expressions.
"""

from __future__ import annotations

import functools
import math
import re
import string
from dataclasses import dataclass

import numpy as np
import sympy as sp
from sympy.codegen.ast import float32, float64, real
from sympy.printing.c import C99CodePrinter
from sympy.printing.precedence import PRECEDENCE

from symnb.codegen import erfcx_c, gamma_c, vecmath
from symnb.errors import FormulaError
from symnb.formula.functions import expm1, sigmoid, softplus
from symnb.formula.gamma import GAMMA_FUNCTIONS

#: Largest number of operations (after CSE) in one generated function.
MAX_OPERATIONS = 20000

#: Integer powers up to this exponent are printed as multiplications.
MAX_EXPANDED_POWER = 8

DTYPES = ("float32", "float64")

#: Functions printed as C math library calls (``exp``/``expf``...), SymPy class name = C name.
LIBM_FUNCS = (
    "exp",
    "log",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfc",
    "log1p",
    "expm1",
)

# Functions (SymPy class names) the printer handles; anything else is refused.
_ALLOWED_FUNCS = (
    frozenset(LIBM_FUNCS)
    | {
        "Abs",
        "sign",
        "Max",
        "Min",
        "Piecewise",
        "Heaviside",
        "floor",
        "ceiling",
        "sigmoid",
        "softplus",
        "logsigmoid",
        "tanh_softplus",
        "sech2_softplus",
        "sigmoid_mul",
        "erfcx",
        "ierfcx",
    }
    | frozenset(GAMMA_FUNCTIONS)
)


class tanh_softplus(sp.Function):
    """tanh(softplus(u)), printed as a rational function of exp(-|u|) (mish's hot part)."""

    nargs = 1


class positive_root(sp.Function):
    """sqrt(u) with +0 at u = -0.0, for a root that divides: C's sqrt(-0.0) is -0.0,
    so 1/sqrt(x) and sqrt's f' 0.5/sqrt(x) were -inf at x = -0.0 where NumPy's
    power (IEEE pow(-0, -1/2)) gives +inf. Printing only."""

    nargs = 1


class sigmoid_mul(sp.Function):
    """sigmoid(u) as a factor of a product with a variable co-factor (``x*sigmoid(x)``).

    In float32 on the CPU it is the plain ``1/(1 + e)`` chain (up to 1.46 ulps, 24% less
    time for silu's forward) where a standalone sigmoid gets the corrected quotient
    (0.65 ulps): the product carries its co-factor's rounding anyway, and stays far
    inside the float32 rule (2e-5 relative).
    """

    nargs = 1


class sech2_softplus(sp.Function):
    """1/cosh(softplus(u))**2 = 1 - tanh(softplus(u))**2, as a rational function of exp."""

    nargs = 1


def _merge_guard(expr: sp.Piecewise) -> sp.Piecewise:
    """``c ? (p ? A : E) : E`` as ``(c & p) ? A : E``: a regime guarded by the
    constants' values (robust.regimes) costs one select per element, not two (PAU 5/4
    forward, 1e6, one thread: 330 -> 300 us). The same value wherever it is defined."""
    if len(expr.args) != 2 or expr.args[1].cond != True:
        return expr
    (inner, guard), (rest, _) = expr.args
    if (
        isinstance(inner, sp.Piecewise)
        and len(inner.args) == 2
        and inner.args[1].cond == True
        and inner.args[1].expr == rest
    ):
        both = sp.And(guard, inner.args[0].cond)
        return sp.Piecewise((inner.args[0].expr, both), (rest, True))
    return expr


def _check_dtype(dtype: str) -> None:
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, not {dtype!r}")


class ProductsAsKernels:
    """Print products in the C kernels' order where it decides overflow: a
    coefficient above 1 last (2*x*sin(x) as x*sin(x)*2) and P*R/Q**2 as (P/Q)*(R/Q).
    For the C printer and every printer of the lowered form in another language
    (NumPy, JAX, numba), so that all agree with what the engine measured."""

    def _print_Mul(self, expr: sp.Expr) -> str:
        text = self._product_as_kernels(expr)
        return super()._print_Mul(expr) if text is None else text

    def _product_as_kernels(self, expr: sp.Expr) -> str | None:
        """``expr`` printed in the kernels' order, or None where SymPy's order is it."""
        moved = coefficient_last(expr)
        if moved is not None:
            rest, c = moved
            sign = "-" if c < 0 else ""
            return f"{sign}{self.parenthesize(rest, PRECEDENCE['Mul'])}*{self._print(abs(c))}"
        split = split_squared_denominator(expr)
        return None if split is None else super()._print_Mul(split)


class KernelPrinter(ProductsAsKernels, C99CodePrinter):
    """C99 printer for symnb kernels (float32 or float64, strict, mapped symbols).

    Parameters
    ----------
    dtype:
        ``"float32"`` or ``"float64"``.
    symbols:
        Mapping of every SymPy symbol that may appear to the C identifier to print.
    """

    printmethod = "_symnb_ccode"

    def __init__(self, dtype: str = "float32", symbols: dict | None = None) -> None:
        _check_dtype(dtype)
        self.dtype = dtype
        self.symbol_names = dict(symbols or {})
        #: CSE temporaries that hold a comparison (``t0 = a0 > 0``), for Piecewise
        self.conditions: dict[sp.Symbol, sp.Basic] = {}
        # expressions known to be <= 0 (or NaN) in the branch being printed
        self._nonpositive: frozenset = frozenset()
        super().__init__(
            {
                "type_aliases": {real: float32 if dtype == "float32" else float64},
                "math_macros": {},
                "strict": True,
                "allow_unknown_functions": False,
                "human": True,
            }
        )

    # -- literals -------------------------------------------------------------------
    def literal(self, value: float) -> str:
        """A floating literal of the kernel type (``2.0F`` or ``2.0``)."""
        return self._print_Float(sp.Float(value))

    def _print_Float(self, expr: sp.Float) -> str:
        """The literal, or what it rounds to in the kernel type when it is beyond the
        type's range: NVRTC rejects ``2.5e-121F`` ("floating constant is out of
        range") where g++ silently gives 0, so both get 0 (or inf) spelled out."""
        value = float(expr)  # beyond float64: inf or 0 already
        with np.errstate(over="ignore", under="ignore"):
            stored = float(np.float32(value)) if self.dtype == "float32" else value
        if math.isinf(stored):
            return "(-SYMNB_INF)" if expr.is_negative else "SYMNB_INF"
        if stored == 0.0 and not expr.is_zero:
            zero = super()._print_Float(sp.Float(0))
            return f"(-{zero})" if expr.is_negative else zero
        return super()._print_Float(expr)

    def _print_Integer(self, expr: sp.Integer) -> str:
        return self._print_Float(sp.Float(int(expr)))

    _print_One = _print_Integer
    _print_Zero = _print_Integer
    _print_NegativeOne = _print_Integer

    def _print_Rational(self, expr: sp.Rational) -> str:
        p, q = int(expr.p), int(expr.q)
        return f"({self.literal(p)}/{self.literal(q)})"

    def _print_Half(self, expr: sp.Rational) -> str:
        return self.literal(0.5)

    def _print_NumberSymbol(self, expr: sp.Expr) -> str:
        return self._print_Float(sp.Float(expr.evalf(30), 30))

    _print_Pi = _print_NumberSymbol
    _print_Exp1 = _print_NumberSymbol
    _print_EulerGamma = _print_NumberSymbol
    _print_GoldenRatio = _print_NumberSymbol
    _print_Catalan = _print_NumberSymbol

    def _print_Infinity(self, expr: sp.Expr) -> str:
        return "SYMNB_INF"

    def _print_NegativeInfinity(self, expr: sp.Expr) -> str:
        return "(-SYMNB_INF)"

    def _print_NaN(self, expr: sp.Expr) -> str:
        return "SYMNB_NAN"

    def _print_BooleanTrue(self, expr: sp.Expr) -> str:
        return "true"

    def _print_BooleanFalse(self, expr: sp.Expr) -> str:
        return "false"

    # -- symbols --------------------------------------------------------------------
    def _print_Symbol(self, expr: sp.Symbol) -> str:
        try:
            return self.symbol_names[expr]
        except KeyError:
            raise FormulaError(
                f"could not compile: the symbol {expr.name!r} is neither an input nor "
                "a declared constant"
            ) from None

    _print_Dummy = _print_Symbol

    # -- powers ---------------------------------------------------------------------
    def _print_Pow(self, expr: sp.Pow) -> str:
        base, e = expr.base, expr.exp
        suffix = self._get_func_suffix(real)
        if base == sp.E:
            return self._print_vecmath(sp.exp(e, evaluate=False))
        b = self.parenthesize(base, PRECEDENCE["Atom"], strict=True)
        if e.is_Integer:
            n = int(e)
            if n == 0:
                return self.literal(1)
            if abs(n) <= MAX_EXPANDED_POWER:
                prod = "*".join([b] * abs(n))
                return f"({prod})" if n > 0 else f"({self.literal(1)}/({prod}))"
            return f"pow{suffix}({self._print(base)}, {self.literal(n)})"
        if e.is_Rational and e.q == 2:
            n = int(e.p)
            s = f"sqrt{suffix}({self._print(base)})"
            if n < 0:  # a root divided by: +0, as in pow (see positive_root)
                s = self._print_positive_root(positive_root(base))
            if n == 1:
                return s
            if n <= -3 and -n <= 2 * MAX_EXPANDED_POWER + 1:
                return self._reciprocal_root_power(b, s, (-n - 1) // 2)
            if abs(n) <= 2 * MAX_EXPANDED_POWER + 1:
                m = (abs(n) - 1) // 2
                prod = "*".join([s] + [b] * m)
                return f"({prod})" if n > 0 else f"({self.literal(1)}/({prod}))"
        if e.is_Integer is not True and not (base.is_nonnegative is True):
            # IEEE pow gives +inf or +0 at -inf for a non-integer power: NaN, as at
            # every other negative base (and in the NumPy kernels' real_power):
            # (x - 1)**1.5's f' was inf at x = -inf here and NaN in NumPy
            return f"symnb_real_pow({self._print(base)}, {self._print(e)})"
        # any other exponent, including 1/3: pow() (NaN for negative bases, as NumPy)
        return f"pow{suffix}({self._print(base)}, {self._print(e)})"

    # -- helpers from the prelude -------------------------------------------------------
    def _print_vecmath(self, expr: sp.Expr) -> str:
        func = type(expr).__name__
        name = vecmath.FUNCTIONS[func]
        if func in ("exp", "expm1") and expr.args[0] in self._nonpositive:
            name += "_neg"  # cheaper: no overflow handling
        return f"{name}({self._print(expr.args[0])})"

    _print_exp = _print_vecmath
    _print_expm1 = _print_vecmath
    _print_log = _print_vecmath
    _print_log1p = _print_vecmath
    _print_tanh = _print_vecmath

    def _print_sigmoid(self, expr: sp.Expr) -> str:
        return f"symnb_sigmoid({self._print(expr.args[0])})"

    def _print_erfcx(self, expr: sp.Expr) -> str:
        return f"symnb_erfcx({self._print(expr.args[0])})"  # symnb.codegen.erfcx_c

    def _print_ierfcx(self, expr: sp.Expr) -> str:
        return f"symnb_ierfcx({self._print(expr.args[0])})"

    def _print_sigmoid_mul(self, expr: sp.Expr) -> str:
        return f"symnb_sigmoid_mul({self._print(expr.args[0])})"

    def _print_Mul(self, expr: sp.Expr) -> str:
        coeff, rest = expr.as_coeff_Mul()
        if (
            isinstance(coeff, sp.Rational)
            and abs(coeff.p) == 1
            and coeff.q & (coeff.q - 1)  # not a power of two: 1/q is inexact
        ):
            # x/6 as a division, not x*(1/6): the rounded reciprocal made x/6 + 1/2 at
            # x = -3 either 0 or 2.8e-17 depending on whether g++ contracted it into an
            # fma, which it did in the vector loop and not in its scalar tail, so the
            # side of a kink depended on the element's position in the array
            q = self.literal(coeff.q)
            if isinstance(rest, sp.Mul) and not any(
                isinstance(a, sp.Pow) and a.exp.is_negative for a in rest.args
            ):
                # one factor divided, then the product: (x*min(6, ...))/6 (hard swish)
                # was inf from x = 5.7e37 in float32, x*6 overflowing first. The last
                # factor (SymPy orders functions after symbols: the bounded min here;
                # (x/6)*6 rounded above the float64 maximum)
                # not a 0/1 indicator (hard swish's f' x*[x > -3]*[x < 3]/6 divided
                # its last step: x*(1/6) rounded, -1.5/6 + 1.5/6 no longer 0)
                args = list(rest.args)
                pick = max(
                    (i for i, a in enumerate(args) if not _is_indicator(a)),
                    default=len(args) - 1,
                )
                last = args.pop(pick)
                text = (
                    f"{self.parenthesize(sp.Mul(*args), PRECEDENCE['Mul'])}*"
                    f"(({self._print(last)})/{q})"
                )
            else:
                text = f"({self._print(rest)})/{q}"
            return f"(-{text})" if coeff.p < 0 else text
        if any(_is_reciprocal_root_power(a) for a in expr.args):
            return self._product_in_order(expr)
        if any(_is_reciprocal_root(a) for a in expr.args):
            # C's Mul printer moves b**(-1/2) below the line as sqrt(b)
            args = [
                1 / positive_root(a.base) if _is_reciprocal_root(a) else a
                for a in expr.args
            ]
            expr = sp.Mul(*args, evaluate=False)
        text = self._product_as_kernels(expr)
        if text is not None:
            return text
        if self.dtype == "float32" and sum(not a.is_number for a in expr.args) >= 2:
            args = [
                sigmoid_mul(a.args[0]) if isinstance(a, sigmoid) else a
                for a in expr.args
            ]
            if args != list(expr.args):
                expr = sp.Mul(*args, evaluate=False)
        return C99CodePrinter._print_Mul(
            self, expr
        )  # past ProductsAsKernels: done above

    def _reciprocal_root_power(self, b: str, root: str, m: int) -> str:
        """b**(-m - 1/2) as 1/b/.../b/sqrt(b), divided step by step: its magnitude
        shrinks as pow(b, -1.5) does, where 1/(sqrt(b)*b) overflowed its denominator
        first (x*(2c^2 + x^2)/(x^2 + c^2)**1.5 with c = 1e12 was inf/inf = NaN for
        |x| in 1e13..1.8e19 in float32; NumPy's power was finite there)."""
        # fabs(b): the root is NaN for b < 0 anyway; at b = -0.0 the steps were
        # 1/-0.0 = -inf where pow(-0, -m - 1/2) is +inf
        fabs_b = f"fabs{self._get_func_suffix(real)}({b})"
        steps = "/".join([self.literal(1)] + [fabs_b] * m + [root])
        return f"({steps})"

    def _product_in_order(self, expr: sp.Expr) -> str:
        """A product holding a negative half-integer power, factor by factor in SymPy's
        order (NumPy's), the power printed by :meth:`_reciprocal_root_power`: the C
        printer's numerator/denominator split multiplied the numerator's factors
        first (x*(2c^2 + x^2) = 1e39 overflowed in float32 where x*(x^2 + c^2)**-1.5
        is 1e-26)."""
        coeff, rest = expr.as_coeff_Mul()
        factors = [
            self.parenthesize(a, PRECEDENCE["Mul"], strict=True)
            for a in rest.as_ordered_factors()
        ]
        if coeff == -1:
            return "-" + "*".join(factors)
        if coeff != 1:
            factors.insert(0, self.parenthesize(coeff, PRECEDENCE["Mul"]))
        return "*".join(factors)

    def _print_positive_root(self, expr: sp.Expr) -> str:
        suffix = self._get_func_suffix(real)
        return f"fabs{suffix}(sqrt{suffix}({self._print(expr.args[0])}))"

    def _print_softplus(self, expr: sp.Expr) -> str:
        return f"symnb_softplus({self._print(expr.args[0])})"

    def _print_logsigmoid(self, expr: sp.Expr) -> str:
        return f"symnb_logsigmoid({self._print(expr.args[0])})"

    def _print_tanh_softplus(self, expr: sp.Expr) -> str:
        return f"symnb_tanh_softplus({self._print(expr.args[0])})"

    def _print_sech2_softplus(self, expr: sp.Expr) -> str:
        return f"symnb_sech2_softplus({self._print(expr.args[0])})"

    def _print_sign(self, expr: sp.Expr) -> str:
        return f"symnb_sign({self._print(expr.args[0])})"

    # the gamma family (symnb.codegen.gamma_c)
    def _print_lgamma(self, expr: sp.Expr) -> str:
        return f"symnb_lgamma({self._print(expr.args[0])})"

    def _print_tgamma(self, expr: sp.Expr) -> str:
        return f"tgamma{self._get_func_suffix(real)}({self._print(expr.args[0])})"

    def _print_digamma(self, expr: sp.Expr) -> str:
        return f"symnb_digamma({self._print(expr.args[0])})"

    def _print_trigamma(self, expr: sp.Expr) -> str:
        return f"symnb_trigamma({self._print(expr.args[0])})"

    def _nested(self, name: str, args: tuple) -> str:
        printed = [self._print(a) for a in args]
        out = printed[-1]
        for a in reversed(printed[:-1]):
            out = f"{name}({a}, {out})"
        return out

    def _print_Max(self, expr: sp.Expr) -> str:
        return self._nested("symnb_max", expr.args)

    def _print_Min(self, expr: sp.Expr) -> str:
        return self._nested("symnb_min", expr.args)

    def _print_Heaviside(self, expr: sp.Expr) -> str:
        u = self._print(expr.args[0])
        h0 = expr.args[1] if len(expr.args) > 1 else sp.Rational(1, 2)
        one, zero = self.literal(1), self.literal(0)
        if h0 == 0:
            return f"(({u}) > {zero} ? {one} : {zero})"
        if h0 == 1:
            return f"(({u}) >= {zero} ? {one} : {zero})"
        return f"symnb_heaviside({u}, {self._print(h0)})"

    def _print_Piecewise(self, expr: sp.Piecewise) -> str:
        expr = _merge_guard(expr)
        pairs = list(expr.args)
        last = "SYMNB_NAN"
        if pairs[-1].cond == True:
            last = pairs.pop().expr
        saved = outer = self._nonpositive
        printed = []
        try:  # each branch knows which conditions before it failed
            for e, c in pairs:
                self._nonpositive = outer | self._nonpositive_if(c, True)
                printed.append((self._print(c), self._print(e)))
                outer = outer | self._nonpositive_if(c, False)
                self._nonpositive = outer
            out = last if isinstance(last, str) else self._print(last)
        finally:
            self._nonpositive = saved
        for c, e in reversed(printed):
            out = f"(({c}) ? ({e}) : ({out}))"
        return out

    def _print_And(self, expr: sp.Expr) -> str:
        # no short circuit: the operands are pure comparisons, and '&&' made g++
        # build the mask per element (PAU's constants-are-default guard, 1.2x)
        return " & ".join(f"({self._print(a)})" for a in expr.args)

    def _print_Or(self, expr: sp.Expr) -> str:
        return " | ".join(f"({self._print(a)})" for a in expr.args)

    def _nonpositive_if(self, cond, holds: bool) -> frozenset:
        """Expressions that are <= 0 (or NaN) when ``cond`` is ``holds``: from
        ``u > 0`` false, ``u <= 0`` true and the like (NaN makes every comparison
        false, and the ``*_neg`` functions pass NaN through)."""
        cond = self.conditions.get(cond, cond)
        if not isinstance(cond, sp.core.relational.Relational):
            return frozenset()
        lhs, rhs = cond.lhs, cond.rhs
        # ordered comparisons only: a false Eq(u, 0) says nothing about u's sign (it
        # printed exp(u) as symnb_exp_neg next to a removable singularity's guard)
        upper = isinstance(cond, (sp.StrictLessThan, sp.LessThan))
        lower = isinstance(cond, (sp.StrictGreaterThan, sp.GreaterThan))
        if rhs == 0 and upper and holds:  # u < 0, u <= 0 true
            return frozenset({lhs})
        if rhs == 0 and lower and not holds:  # u > 0, u >= 0 false
            return frozenset({lhs})
        if lhs == 0 and lower and holds:  # 0 > u, 0 >= u true
            return frozenset({rhs})
        return frozenset()

    def _print_Mod(self, expr: sp.Expr) -> str:
        # Python's / NumPy's sign convention (the result has the sign of the divisor),
        # not C's fmod
        a = self.parenthesize(expr.args[0], PRECEDENCE["Atom"], strict=True)
        b = self.parenthesize(expr.args[1], PRECEDENCE["Atom"], strict=True)
        return f"({a} - {b}*floor{self._get_func_suffix(real)}({a}/{b}))"

    def _print_ITE(self, expr: sp.Expr) -> str:
        c, a, b = expr.args
        return f"(({self._print(c)}) ? ({self._print(a)}) : ({self._print(b)}))"

    # -- strictness -----------------------------------------------------------------
    def _print_Function(self, expr: sp.Expr) -> str:
        name = type(expr).__name__
        if name not in _ALLOWED_FUNCS:
            raise FormulaError(
                f"could not compile: the function {name!r} has no C/CUDA implementation "
                "in symnb; rewrite the formula without it"
            )
        return super()._print_Function(expr)

    def _print_not_supported(self, expr: sp.Basic) -> str:
        raise FormulaError(
            f"could not compile: {type(expr).__name__} ({sp.sstr(expr)[:80]}) cannot be "
            "printed as C/CUDA code"
        )

    emptyPrinter = _print_not_supported

    def _print_Derivative(self, expr: sp.Basic) -> str:
        raise FormulaError(
            "could not compile: the formula contains an unevaluated derivative "
            f"{sp.sstr(expr)[:80]}"
        )

    def _print_ImaginaryUnit(self, expr: sp.Basic) -> str:
        raise FormulaError("could not compile: the formula has complex values (I)")

    def _print_ComplexInfinity(self, expr: sp.Basic) -> str:
        raise FormulaError("could not compile: the formula divides by zero (zoo)")

    def print_expr(self, expr: sp.Basic) -> str:
        """Print one expression, turning every printing failure into FormulaError."""
        try:
            return self.doprint(expr)
        except FormulaError:
            raise
        except RecursionError:
            raise FormulaError(
                "could not compile: the formula is nested too deeply"
            ) from None
        except Exception as exc:  # noqa: BLE001 - SymPy raises assorted errors
            raise FormulaError(f"could not compile: {exc}") from None


# ------------------------------------------------------------------------------------
# Expression preparation
# ------------------------------------------------------------------------------------

_FORBIDDEN = (
    sp.re,
    sp.im,
    sp.Derivative,
    sp.Subs,
    sp.DiracDelta,
    sp.Integral,
    sp.Sum,
)


def prepare(expr: sp.Expr) -> sp.Expr:
    """Check an expression for constructs that cannot be compiled and fold constants.

    Exact irrational numbers (``sqrt(2)``, ``pi``, ``log(2)``) become floating literals and
    ``tanh(softplus(u))`` becomes :class:`tanh_softplus` (a cheaper rational form).
    """
    expr = sp.sympify(expr)
    for bad in _FORBIDDEN:
        if expr.has(bad):
            raise FormulaError(
                f"could not compile: the formula contains {bad.__name__}, which has no "
                "C/CUDA form (check that all symbols are real)"
            )
    if expr.has(sp.I) or expr.has(sp.zoo) or expr.has(sp.nan):
        raise FormulaError(
            "could not compile: the formula has complex or undefined values "
            "(I, zoo or nan)"
        )
    expr = _fold_numbers(expr)
    expr = expr.replace(_is_sech2_softplus_power, _sech2_softplus_power)
    expr = expr.replace(
        lambda e: isinstance(e, sp.tanh) and isinstance(e.args[0], softplus),
        lambda e: tanh_softplus(e.args[0].args[0]),
    )
    # 1 - tanh(softplus(u))**2 cancels in float32 for large u: use the exact form
    expr = expr.replace(_is_one_minus_tanh_softplus_squared, _one_minus_tsp2)
    return expr


def _degree(e: sp.Expr) -> int:
    """The highest integer power of a symbol (or of its absolute value) in ``e``."""
    best = 1 if e.free_symbols else 0
    for p in e.atoms(sp.Pow):
        base = p.base.args[0] if isinstance(p.base, sp.Abs) else p.base
        if isinstance(base, sp.Symbol) and p.exp.is_Integer:
            best = max(best, int(p.exp))
    return best


def coefficient_last(e: sp.Expr) -> tuple[sp.Expr, sp.Number] | None:
    """``2*x*sin(x)*cos(x)`` as (``x*sin(x)*cos(x)``, 2) to print the coefficient last.

    Printed first, a coefficient above 1 multiplies the variable before the bounded
    factors do: 2*x overflows at the float maximum where 2*x*sin(x)*cos(x) does not
    (x*cos(x)**2's f' was inf at 3.4e38 in float32 for a true 3.0e38). Last, every
    partial product is at most the result's magnitude times the factors' bounds.
    """
    coeff, rest = e.as_coeff_Mul()
    # integers and floats (a fraction p/q prints as a division: its own rules above)
    if not isinstance(coeff, (sp.Integer, sp.Float)) or abs(coeff) <= 1:
        return None
    # only where a bounded factor can bring the product down: moved last elsewhere, the
    # coefficient turned 2*x/(sqrt(4x^2 + 1) + 1)'s NaN at 1e308 (inf/inf) into a quiet
    # 0, and the engine, seeing no failure, no longer rewrote the overflowing root
    if not any(_bounded(a) for a in sp.Mul.make_args(rest)):
        return None
    return rest, coeff


def _bounded(e: sp.Expr) -> bool:
    """A factor of magnitude at most 1 for every real argument (cos(x)**2, tanh(x))."""
    if isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp > 0:
        e = e.base
    return isinstance(e, (sp.sin, sp.cos, sp.tanh, sp.erf, sp.sech, sigmoid))


def split_squared_denominator(e: sp.Mul) -> sp.Mul | None:
    """``P*R/Q**2`` (the quotient rule's second term; Q a sum or a function call) as
    ``(P/Q)*(R/Q)``, and ``P*r**2`` with a shared reciprocal ``r = 1/Q``
    (:func:`_share_reciprocals`) as ``(P*r)*r``:
    Q**2 and P*R overflow, and r**2 underflows, long before the result does. A rational
    activation with learned coefficients (PAU 5/4, constants moved 1% from the analysed
    ones) had f' NaN from |x| = 1e5 in float32 (inf/inf) and, in the joint backward,
    3.61 instead of 0.72 from |x| = 1e6 (r**2 = 0). The factor of highest degree is
    scaled first. None when ``e`` has no such factor."""
    square = None
    for a in e.args:
        if not isinstance(a, sp.Pow):
            continue
        name = str(a.base) if isinstance(a.base, sp.Symbol) else ""
        # a sum, a function call (NumPy has no CSE temporaries: sech' is
        # -sinh(u)*cosh(u)**-2 there) or a CSE temporary (never a bare input: x/x**2
        # keeps its rounding)
        # (not cosh(softplus(u)): the C printer fuses it into sech2_softplus and the
        # robustness engine measures NumPy's form, so both must agree: mish(2x)' lost
        # its overflow guard at x >= 8.5e37 and was NaN in C at 3.4e38)
        splittable = isinstance(a.base, (sp.Add, sp.Function)) and not (
            _is_sech2_softplus_power(a)
        )
        if a.exp == -2 and (splittable or name.startswith("_symnb_t")):
            square = a
            break
        if a.exp == 2 and name.startswith("_symnb_recip"):
            square = a
            break
    if square is None:
        return None
    rest = [a for a in e.args if a is not square]
    coeff = sp.Mul(*[a for a in rest if a.is_number])
    factors = [a for a in rest if not a.is_number]
    if not factors:
        return None
    one = square.base ** (-1 if square.exp == -2 else 1)
    big = max(factors, key=_degree)
    others = [a for a in factors if a is not big]
    first = sp.UnevaluatedExpr(big * one)
    second = sp.UnevaluatedExpr(sp.Mul(*others) * one) if others else one
    return sp.Mul(coeff, first, second, evaluate=False)


def _is_one_minus_tanh_softplus_squared(e: sp.Basic) -> bool:
    if not isinstance(e, sp.Add) or len(e.args) != 2 or sp.S.One not in e.args:
        return False
    other = e.args[0] if e.args[1] == 1 else e.args[1]
    coeff, rest = other.as_coeff_Mul()
    return (
        coeff == -1
        and isinstance(rest, sp.Pow)
        and rest.exp == 2
        and isinstance(rest.base, tanh_softplus)
    )


def _one_minus_tsp2(e: sp.Add) -> sp.Expr:
    other = e.args[0] if e.args[1] == 1 else e.args[1]
    return sech2_softplus(other.as_coeff_Mul()[1].base.args[0])


def _is_sech2_softplus_power(e: sp.Basic) -> bool:
    """cosh(softplus(u))**(-2k): mish's derivative as SymPy writes it."""
    return (
        isinstance(e, sp.Pow)
        and isinstance(e.base, sp.cosh)
        and isinstance(e.base.args[0], softplus)
        and e.exp.is_Integer
        and int(e.exp) < 0
        and int(e.exp) % 2 == 0
    )


def _sech2_softplus_power(e: sp.Pow) -> sp.Expr:
    u = e.base.args[0].args[0]
    k = -int(e.exp) // 2
    return sech2_softplus(u) ** k


#: functions whose arguments keep their Rationals when numbers become Floats (as
#: _fold_numbers keeps them): SymPy splits exp(x - 0.5), not exp(x - 1/2), into
#: 0.6065*exp(x) (expm1 into 0.6065*exp(x) - 1) wherever it builds a product with it,
#: which overflows where exp(x - 0.5) does not and cancels where expm1 does not
KEEP_ARGUMENT = (sp.exp, expm1)


def _fold_numbers(expr: sp.Basic) -> sp.Basic:
    if isinstance(expr, sp.Expr) and expr.is_number:
        if expr.is_Rational or expr in (sp.oo, -sp.oo):
            return expr
        value = sp.N(expr, 30)
        if not value.is_real or not value.is_finite:
            raise FormulaError(
                f"could not compile: the constant {sp.sstr(expr)[:60]} is not a finite "
                "real number"
            )
        return sp.Float(value, 30)
    if not expr.args:
        return expr
    new = [_fold_numbers(a) for a in expr.args]
    if all(n is a for n, a in zip(new, expr.args)):
        return expr
    return expr.func(*new)


#: Horner steps per temporary: a longer scheme is a chain of statements, each
#: ``h = (...(h_prev*x + c)*x + ...)*x + c`` of this many steps. One nested
#: ``x*(c + x*(c + ...))`` of 110 steps passed Python's recursion limit in the printer
#: (about ten frames a step), so a polynomial of degree 110 did not compile.
HORNER_CHUNK = 16


def _horner(
    expr: sp.Expr, variables: list, chain: list | None = None, temps=None
) -> sp.Expr:
    """Sums that are polynomials of degree >= 3 in an input, as Horner schemes.

    ``k0 + k1*x + ... + k5*x**5`` (a PAU numerator) costs 5 fused multiply-adds
    instead of powers, products and a sum that g++ may not reassociate (no
    ``-ffast-math``); Horner's rule is also the usual accurate way to evaluate it.

    A scheme longer than :data:`HORNER_CHUNK` steps is cut into pieces: each piece's
    value is a symbol from ``temps`` whose definition is appended to ``chain`` (in
    order: a piece uses the one before). Without ``chain`` the scheme is one nested
    expression whatever its length.
    """
    if not variables:
        return expr

    def is_sum(e: sp.Basic) -> bool:
        return isinstance(e, sp.Add) and len(e.args) >= 3

    memo: dict = {}  # a sum met twice is rewritten (and its pieces defined) once

    def rewrite(e: sp.Add) -> sp.Expr:
        if e in memo:
            return memo[e]
        memo[e] = e
        for v in variables:
            if v not in e.free_symbols:
                continue
            done = _horner_in(e, v, chain, temps)
            if done is None:
                done = _horner_in_abs(e, v, chain, temps)
            if done is not None:
                memo[e] = done
                break
        return memo[e]

    return expr.replace(is_sum, rewrite)


def _horner_in(
    e: sp.Expr, v: sp.Symbol, chain: list | None = None, temps=None
) -> sp.Expr | None:
    """``e`` as Horner's rule in ``v`` when it is a polynomial of degree >= 3 in ``v``
    with ``v``-free coefficients, else None (pieces of a long scheme go to ``chain``,
    see :func:`_horner`)."""
    shift = _shift_of(e, v)
    if shift is not None:
        return _horner_shifted(e, v, shift, chain, temps)
    if not e.is_polynomial(v):
        # a structural test first: Poly expands what it is given, and a continued
        # fraction in 1/x**2 (log(1 + erf(x))'s far form) took 55 s to be refused
        return None
    try:
        poly = sp.Poly(e, v)
    except sp.PolynomialError:
        return None
    if poly.degree() < 3 or any(c.has(v) for c in poly.coeffs()):
        return None
    if chain is None or poly.degree() <= HORNER_CHUNK:
        return sp.horner(e, wrt=v)
    return _horner_chain(poly.all_coeffs(), v, chain, temps)


def _shift_of(e: sp.Expr, v: sp.Symbol) -> sp.Expr | None:
    """x0 (a number) when ``e`` holds powers of ``v - x0`` (and no other sums in ``v``):
    a polynomial written around x0, such as the robustness engine's Taylor branches."""
    shifts = set()
    for node in sp.preorder_traversal(e):
        if isinstance(node, sp.Pow) and isinstance(node.base, sp.Add):
            base = node.base
            if v not in base.free_symbols:
                continue
            rest = base - v
            if v in rest.free_symbols or not rest.is_number or rest == 0:
                return None
            shifts.add(-rest)
    return shifts.pop() if len(shifts) == 1 else None


def _horner_shifted(
    e: sp.Expr, v: sp.Symbol, x0: sp.Expr, chain: list | None, temps
) -> sp.Expr | None:
    """Horner's rule in ``v - x0``: expanded in powers of ``v`` a polynomial around
    x0 cancels there (a Taylor branch at x0 = 2 of ``tanh(x - 2)/(x - 2) + x``'s f'
    has coefficients up to 95 in powers of x for a value near 1: float32 gave 1 at
    x = 2.0002 instead of 0.99987)."""
    w = sp.Dummy("w", real=True)
    try:
        poly = sp.Poly(sp.expand(e.xreplace({v: w + x0})), w)
    except sp.PolynomialError:
        return None
    if poly.degree() < 3 or any(c.has(v) for c in poly.coeffs()):
        return None
    if chain is None:
        return sp.horner(poly.as_expr(), wrt=w).xreplace({w: v - x0})
    # the distance as a temporary: a number times (v - x0) would be multiplied out
    sym = next(temps)
    chain.append((sym, v - x0))
    if poly.degree() <= HORNER_CHUNK:
        return sp.horner(poly.as_expr(), wrt=w).xreplace({w: sym})
    return _horner_chain(poly.all_coeffs(), sym, chain, temps)


def _horner_chain(coeffs: list, v: sp.Symbol, chain: list, temps) -> sp.Expr:
    """Horner's rule over ``coeffs`` (highest power first) as :func:`sympy.horner`
    builds it (``form*v + c``, coefficients in Horner form in the other symbols), with
    the value after every :data:`HORNER_CHUNK` steps named by a temporary in ``chain``:
    the same operations in the same order, never nested deeper than one piece."""
    form: sp.Expr = sp.S.Zero
    steps = 0
    for c in coeffs:
        if steps == HORNER_CHUNK:
            sym = next(temps)
            chain.append((sym, form))
            form, steps = sym, 0
        c = sp.horner(c) if c.free_symbols else c
        form = form * v + c
        steps += 1
    return form


def _order_definitions(assignments: list, extra: list) -> list:
    """``assignments`` (CSE's, in order) and ``extra`` (pieces of Horner schemes) as one
    list in which every temporary is defined before its first use (each keeps its
    relative order)."""
    if not extra:
        return assignments
    pending = list(assignments) + list(extra)
    defined = {sym for sym, _ in pending}
    done: set = set()
    out: list = []
    while pending:
        rest = []
        for sym, rhs in pending:
            if (rhs.free_symbols & defined) <= done:
                out.append((sym, rhs))
                done.add(sym)
            else:
                rest.append((sym, rhs))
        if len(rest) == len(pending):  # cannot happen: definitions form no cycle
            raise FormulaError("could not compile: temporaries depend on each other")
        pending = rest
    return out


def _horner_in_abs(
    e: sp.Expr, v: sp.Symbol, chain: list | None = None, temps=None
) -> sp.Expr | None:
    """A sum that is a polynomial in ``|v|`` (``1 + |b1 x| + |b2| x**2 + |b3 x**3| +
    |b4| x**4``, PAU's safe denominator) as a Horner scheme in ``|v|``: four fused
    multiply-adds instead of ten products, powers and sums. ``|c v| = |c| |v|`` and
    ``v**(2m) = |v|**(2m)`` are exact in floating point; every term is >= 0, so no
    cancellation either way. None when ``e`` is not such a polynomial."""
    w = sp.Dummy("w", nonnegative=True)

    def split(t: sp.Abs) -> sp.Expr:
        return sp.Mul(*[sp.Abs(f) for f in t.args[0].args])

    u = e.replace(
        lambda t: isinstance(t, sp.Abs) and isinstance(t.args[0], sp.Mul), split
    )
    u = u.replace(
        lambda t: (
            isinstance(t, sp.Abs)
            and isinstance(t.args[0], sp.Pow)
            and t.args[0].base == v
            and t.args[0].exp.is_Integer
        ),
        lambda t: w ** t.args[0].exp,
    )
    u = u.xreplace({sp.Abs(v): w})
    u = u.replace(
        lambda t: (
            isinstance(t, sp.Pow) and t.base == v and t.exp.is_Integer and t.exp.is_even
        ),
        lambda t: w**t.exp,
    )
    if v in u.free_symbols:
        return None
    start = None if chain is None else len(chain)
    done = _horner_in(u, w, chain, temps)
    if done is None:
        return None
    if chain is not None:
        chain[start:] = [(s, d.xreplace({w: sp.Abs(v)})) for s, d in chain[start:]]
    return done.xreplace({w: sp.Abs(v)})


def count_operations(exprs: list[sp.Basic]) -> int:
    """Number of operations in a list of expressions (SymPy's ``count_ops``)."""
    return int(sum(sp.count_ops(e, visual=False) for e in exprs))


@dataclass(frozen=True)
class Lowered:
    """Statements (C declarations of temporaries) and final printed expressions."""

    statements: tuple[str, ...]
    results: tuple[str, ...]
    operations: int


def _hoist_power_bases(
    assignments: list[tuple[sp.Symbol, sp.Expr]],
    results: list[sp.Expr],
    temps,
) -> tuple[list[tuple[sp.Symbol, sp.Expr]], list[sp.Expr]]:
    """Give every non-atomic base of a small integer power its own temporary."""
    out: list[tuple[sp.Symbol, sp.Expr]] = []
    cache: dict[sp.Expr, sp.Symbol] = {}

    def fix(e: sp.Expr) -> sp.Expr:
        def is_target(p: sp.Basic) -> bool:
            return (
                isinstance(p, sp.Pow)
                and not p.base.is_Atom
                and (
                    (p.exp.is_Integer and 2 <= abs(int(p.exp)) <= MAX_EXPANDED_POWER)
                    or (p.exp.is_Rational and p.exp.q == 2 and abs(p.exp.p) > 1)
                )
            )

        def repl(p: sp.Pow) -> sp.Expr:
            base = p.base
            sym = cache.get(base)
            if sym is None:
                sym = next(temps)
                cache[base] = sym
                out.append((sym, base))
            return sp.Pow(sym, p.exp, evaluate=False)

        return e.replace(is_target, repl)

    for sym, rhs in assignments:
        rhs = fix(rhs)
        out.append((sym, rhs))
    new_results = [fix(r) for r in results]
    return out, new_results


def _inline_reciprocals(assignments: list, results: list) -> tuple[list, list]:
    """Put shared reciprocals ``t = 1/b`` back into their uses as divisions.

    CSE turns ``sin(x)/x`` and ``cos(x)/x`` into ``t = 1/x`` times each numerator;
    ``1/x`` overflows for tiny (subnormal) ``x`` although every quotient is finite,
    so ``inf*0``-like results appear that the typed formula never had. A division
    per use costs little next to a wrong value.
    """
    kept: list = []
    subs: dict = {}
    for sym, rhs in assignments:
        rhs = rhs.xreplace(subs) if subs else rhs
        if isinstance(rhs, sp.Pow) and rhs.exp.is_Integer and rhs.exp < 0:
            subs[sym] = rhs
            continue
        kept.append((sym, rhs))
    if not subs:
        return assignments, results
    return kept, [r.xreplace(subs) for r in results]


def _is_reciprocal_root(e: sp.Basic) -> bool:
    """e is b**(-1/2)."""
    return isinstance(e, sp.Pow) and e.exp == sp.Rational(-1, 2)


def _is_reciprocal_root_power(e: sp.Basic) -> bool:
    """e is b**(-n/2), n odd and at least 3 (printed by _reciprocal_root_power)."""
    if not isinstance(e, sp.Pow) or not e.exp.is_Rational:
        return False
    n = e.exp.p
    return e.exp.q == 2 and -2 * MAX_EXPANDED_POWER - 1 <= n <= -3


def _negative_power_of(e: sp.Basic, base: sp.Basic) -> bool:
    return isinstance(e, sp.Pow) and e.base == base and e.exp.is_Integer and e.exp < 0


def _share_reciprocals(assignments: list, results: list) -> tuple[list, list]:
    """Divide once by a denominator that several results divide by, when it is
    provably at least 1: ``r = 1/b`` and ``a/b`` -> ``a*r``, ``b**-2`` -> ``r*r``.

    A constants' gradient divides by the same denominator many times (PAU 5/4: seven
    quotients by ``1 + |b1 x| + ...`` and one by its square, per element, in the
    backward), and a division costs several multiplications. The reciprocal of
    ``b >= 1`` lies in (0, 1]: it cannot overflow (the hazard that makes
    :func:`_inline_reciprocals` undo CSE's reciprocals), and ``a*r`` is within an ulp
    or so of ``a/b`` (far inside the float32 rule). Only for lowerings that ask
    (the constants' gradient and the joint backward), so f and f' keep their
    correctly rounded quotients."""
    exprs = [rhs for _, rhs in assignments] + list(results)
    uses: dict = {}
    for e in exprs:
        for p in e.atoms(sp.Pow):
            if p.exp.is_Integer and p.exp < 0:
                uses[p.base] = uses.get(p.base, 0) + 1
    shared = [b for b, n in uses.items() if n >= 2]
    if not shared:
        return assignments, results
    defs = dict(assignments)
    order = {sym: i for i, (sym, _) in enumerate(assignments)}
    chosen = []
    for base in shared:
        full = base
        for _ in range(len(assignments) + 1):  # substitute the temporaries away
            temps = full.free_symbols & defs.keys()
            if not temps:
                break
            full = full.xreplace({t: defs[t] for t in temps})
        if (full - 1).is_nonnegative is True:
            chosen.append(base)
    if not chosen:
        return assignments, results
    out, new_results = list(assignments), list(results)
    for k, base in enumerate(chosen):
        r = sp.Symbol(f"_symnb_recip{k}", real=True)

        def swap(e: sp.Basic, base=base, r=r) -> sp.Basic:
            return e.replace(
                lambda x: _negative_power_of(x, base), lambda x: r ** (-x.exp)
            )

        # r goes right after the last temporary its denominator uses
        after = max((order[t] for t in base.free_symbols if t in order), default=-1)
        out = [(sym, swap(rhs)) for sym, rhs in out]
        out.insert(after + 1, (r, sp.Pow(base, -1, evaluate=False)))
        order = {sym: i for i, (sym, _) in enumerate(out)}
        new_results = [swap(e) for e in new_results]
    return out, new_results


def _reduce_group(
    exprs: list, inputs: list, what: str, share_reciprocals: bool
) -> tuple[list, list]:
    """Horner schemes, CSE, reciprocals and power bases of one group of expressions:
    the assignments of temporaries and the reduced expressions."""
    # long Horner schemes are chains of temporaries (HORNER_CHUNK steps each), CSE'd
    # together with the expressions and then ordered by use
    chain: list = []
    pieces = sp.numbered_symbols("_symnb_h", real=True)
    prepared = [_horner(prepare(e), inputs, chain, pieces) for e in exprs]
    temps_names = sp.numbered_symbols("_symnb_t", real=True)
    try:
        assignments, reduced = sp.cse(
            [rhs for _, rhs in chain] + prepared, symbols=temps_names, order="none"
        )
    except RecursionError:
        raise FormulaError(
            f"could not compile {what}: it is nested too deeply"
        ) from None
    except Exception as exc:  # noqa: BLE001 - any SymPy failure is the formula's
        raise FormulaError(f"could not compile {what}: {exc}") from None
    n_chain = len(chain)
    assignments = _order_definitions(
        list(assignments),
        [(sym, rhs) for (sym, _), rhs in zip(chain, reduced[:n_chain])],
    )
    reduced = list(reduced[n_chain:])
    assignments, reduced = _inline_reciprocals(list(assignments), list(reduced))
    if share_reciprocals:
        assignments, reduced = _share_reciprocals(assignments, reduced)
    return _hoist_power_bases(assignments, reduced, temps_names)


def _print_group(
    assignments: list, reduced: list, symbols: tuple, dtype: str, first: int
) -> tuple[list[tuple[str, str]], list[str]]:
    """``(C name, declaration)`` of each temporary (named ``t<first>``, ``t<first+1>``
    ...) and the printed results."""
    mapping = dict(symbols)
    for i, (sym, _) in enumerate(assignments):
        mapping[sym] = f"t{first + i}"
    printer = KernelPrinter(dtype, mapping)
    statements = []
    for sym, rhs in assignments:
        ctype = "symnb_real"
        # (a Symbol is a Boolean to SymPy too: a temporary that copies a real one is
        # real, one that copies a condition is a condition)
        if isinstance(rhs, sp.logic.boolalg.Boolean) and (
            not isinstance(rhs, sp.Expr) or rhs in printer.conditions
        ):
            # a bool, not a float 0/1: g++ does not vectorise loops that select on
            # a float-typed comparison result (measured: swish's f' ran scalar)
            ctype = "bool"
            printer.conditions[sym] = rhs
        statements.append(
            (mapping[sym], f"const {ctype} {mapping[sym]} = {printer.print_expr(rhs)};")
        )
    return statements, [printer.print_expr(r) for r in reduced]


def _is_indicator(e: sp.Expr) -> bool:
    """A factor that is 0 or 1 by cases (a step of a kink's derivative)."""
    if isinstance(e, sp.Heaviside):
        return True
    return isinstance(e, sp.Piecewise) and all(v.is_number for v, _ in e.args)


_TEMPORARY = re.compile(r"\bt(\d+)\b")


def _merge_printed(groups: list) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The printed groups as one body: a temporary whose declaration (after renaming
    the ones merged so far) equals an earlier one's is dropped and its uses renamed.
    Only names change, so every result computes what its group computes alone."""
    seen: dict[str, str] = {}
    rename: dict[str, str] = {}

    def renamed(text: str) -> str:
        if not rename:
            return text
        return _TEMPORARY.sub(lambda m: rename.get(m.group(0), m.group(0)), text)

    statements: list[str] = []
    results: list[str] = []
    for group_statements, group_results in groups:
        for name, text in group_statements:
            text = renamed(text)
            body = text.replace(f" {name} = ", " = ", 1)
            if body in seen:
                rename[name] = seen[body]
                continue
            seen[body] = name
            statements.append(text)
        results.extend(renamed(r) for r in group_results)
    return tuple(statements), _upgrade_product_sigmoids(statements, results)


_CORRECTED_SIGMOID = re.compile(r"^const \w+ (t\d+) = symnb_sigmoid\((.*)\);$")
_DECLARATION = re.compile(r"^const \w+ (t\d+) = (.*);$")
# a call whose argument has balanced parentheses up to two levels deep
_SIGMOID_MUL_CALL = re.compile(
    r"symnb_sigmoid_mul\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)"
)


def _upgrade_product_sigmoids(statements: list, results: list) -> tuple[str, ...]:
    """A result's plain-quotient sigmoid (``symnb_sigmoid_mul(u)``) of an argument
    another group already has the corrected sigmoid of (``t = symnb_sigmoid(u)``, same
    text) takes ``t``: the same function of the same argument, 0.65 ulps instead of
    1.46, bounded by 1 (it cannot overflow where the result alone does not). silu's
    and swish's f = x*sigmoid_mul(x) next to f''s sigmoid(x): one division, not two
    (their fused pair 0.64 -> 0.54 ms at 1e6 float32, as before f and f' were lowered
    apart). Results only: they are computed after every statement."""
    values = {}  # temporary -> its declaration's right-hand side
    for text in statements:
        m = _DECLARATION.match(text)
        if m:
            values[m.group(1)] = m.group(2)
    corrected = {}
    for text in statements:
        m = _CORRECTED_SIGMOID.match(text)
        if m:
            # an argument that is one temporary (swish: t1 = sigmoid(t0), t0 = k0*a0)
            # matches the result's own spelling of it (sigmoid_mul(k0*a0))
            corrected.setdefault(_same_value_key(m.group(2), values), m.group(1))
    if not corrected:
        return tuple(results)
    out = []
    for text in results:
        for call in set(_SIGMOID_MUL_CALL.findall(text)):
            name = corrected.get(
                _same_value_key(call[len("symnb_sigmoid_mul(") : -1], values)
            )
            if name is not None:
                text = text.replace(call, name)
        out.append(text)
    return tuple(out)


def _same_value_key(arg: str, values: dict) -> object:
    """A key equal for two printed arguments that compute the same value: the text
    with a lone temporary replaced by its value, and a sum of exactly two terms as the
    set of its terms (float addition commutes; three terms do not associate; g++'s
    FMA contraction may round the two spellings an ulp apart, which a sigmoid, bounded
    and smooth, carries as an ulp)."""
    arg = values.get(arg, arg)
    depth, cuts = 0, []
    for i, ch in enumerate(arg):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and arg.startswith(" + ", i):
            cuts.append(i)
    if len(cuts) == 1 and not any(
        arg.startswith(op, i)
        for op in (" - ", " < ", " > ", " ? ", " & ", " | ")
        for i in range(len(arg))
    ):
        a, b = arg[: cuts[0]], arg[cuts[0] + 3 :]
        return frozenset((values.get(a, a), values.get(b, b)))
    return arg


@functools.lru_cache(maxsize=512)
def lower(
    exprs: tuple[sp.Expr, ...],
    symbols: tuple[tuple[sp.Symbol, str], ...],
    dtype: str = "float32",
    max_operations: int = MAX_OPERATIONS,
    what: str = "formula",
    share_reciprocals: bool | tuple[bool, ...] = False,
    groups: tuple[int, ...] | None = None,
) -> Lowered:
    """CSE, power expansion and printing of a group of expressions.

    Parameters
    ----------
    exprs:
        Expressions computed together (they share temporaries).
    symbols:
        ``(symbol, C identifier)`` pairs for the inputs and constants.
    dtype:
        ``"float32"`` or ``"float64"``.
    max_operations:
        Refuse (``FormulaError``) when the operation count after CSE passes this.
    what:
        Name used in error messages.
    share_reciprocals:
        Divide once by denominators that are at least 1 and used several times
        (:func:`_share_reciprocals`; for the constants' gradient and the backward);
        one flag per group with ``groups``.
    groups:
        Sizes of consecutive groups of ``exprs``, each lowered and printed exactly as
        if alone (CSE within the group only); the groups then share only temporaries
        whose printed declarations are identical. A result computes what its group's
        own function computes, operation for operation: CSE across f and f'
        regrouped f = ``x*exp(x)/expm1(x)`` as ``x*(exp(x)/expm1(x))`` (the quotient
        f' uses), which overflows at x = 1e-41 where f alone is 1. None: one group.
    """
    _check_dtype(dtype)
    inputs = [sym for sym, name in symbols if name.startswith("a")]
    sizes = (len(exprs),) if groups is None else tuple(groups)
    if sum(sizes) != len(exprs) or any(n < 1 for n in sizes):
        raise ValueError(f"groups {sizes} do not split {len(exprs)} expressions")
    shares = (
        tuple(share_reciprocals)
        if isinstance(share_reciprocals, tuple)
        else (bool(share_reciprocals),) * len(sizes)
    )
    if len(shares) != len(sizes):
        raise ValueError("one share_reciprocals flag per group")
    printed = []
    n_ops = 0
    start = first = 0
    for n, share in zip(sizes, shares):
        assignments, reduced = _reduce_group(
            list(exprs[start : start + n]), inputs, what, share
        )
        start += n
        # the limit holds per group: each is what its own function compiles
        group_ops = count_operations([rhs for _, rhs in assignments] + list(reduced))
        n_ops += group_ops
        if group_ops > max_operations:
            raise FormulaError(
                f"could not compile {what}: too large to compile ({group_ops} "
                f"operations, "
                f"limit {max_operations}); simplify the formula or its derivative"
            )
        printed.append(_print_group(assignments, reduced, symbols, dtype, first))
        first += len(assignments)
    statements, results = _merge_printed(printed)
    return Lowered(statements, results, n_ops)


def print_expression(expr: sp.Expr, symbols: dict, dtype: str = "float32") -> str:
    """Print one expression without CSE (for tests and listings)."""
    return KernelPrinter(dtype, symbols).print_expr(prepare(expr))


# ------------------------------------------------------------------------------------
# Prelude: helpers shared by both dialects (SYMNB_FN is defined by the dialect)
# ------------------------------------------------------------------------------------

_LOG1P_UNIT_FLOAT32 = """SYMNB_FN symnb_real symnb_log1p_unit(symnb_real e) {
    /* log1p(e) for 0 <= e <= 1 (softplus' tail): 2*atanh(s), s = e/(2+e) <= 1/3 */
    const float s = e / (2.0F + e);
    const float s2 = s * s;
    float p = 6.66666667e-2F;
    p = fmaf(p, s2, 7.69230769e-2F);
    p = fmaf(p, s2, 9.09090909e-2F);
    p = fmaf(p, s2, 1.11111111e-1F);
    p = fmaf(p, s2, 1.42857143e-1F);
    p = fmaf(p, s2, 2.0e-1F);
    p = fmaf(p, s2, 3.33333333e-1F);
    p = fmaf(p, s2, 1.0F);
    return 2.0F * s * p;
}"""


def _wide_trig(name: str, dtype: str) -> str:
    """sin/cos/tan of a*b where the product overflows the kernel's type.

    The smaller factor is split as m*2**e (frexp, exact), m*b = h + l exactly (fma),
    sin and cos of h + l (libm's or CUDA's full argument reduction), then e angle
    doublings (error about 2**e ulps: a few for a constant factor such as 3). float32
    C++ computes the product in double instead (exact for two float factors); float32
    CUDA kernels use no double (the PTX check in ``tests/backends``), so they take the
    float path, which ``SYMNB_WIDE_TRIG_FLOAT`` selects in C++ too (for the tests).
    """
    # s and c are scaled back onto the unit circle after each doubling: s^2 + c^2 is
    # squared each time, its rounding error (1 + u)**(2**e) overflowed from about 64
    # doublings in float64 (30 in float32): Snake's sin(a*x) with a = 1e30 was NaN at
    # x = 1e300
    result = {"sin": "s", "cos": "c", "tan": "s / c"}[name]
    f = "f" if dtype == "float32" else ""
    two = "2.0F" if dtype == "float32" else "2.0"
    one = "1.0F" if dtype == "float32" else "1.0"
    body = f"""    if (fabs{f}(a) > fabs{f}(b)) {{
        const symnb_real t = a;
        a = b;
        b = t;
    }}
    int e = 0;
    const symnb_real m = frexp{f}(a, &e);
    const symnb_real h = m * b;
    const symnb_real l = fma{f}(m, b, -h);
    const symnb_real sh = sin{f}(h), ch = cos{f}(h), sl = sin{f}(l), cl = cos{f}(l);
    symnb_real s = sh * cl + ch * sl;
    symnb_real c = ch * cl - sh * sl;
    for (int i = 0; i < e; ++i) {{
        const symnb_real t = {two} * s * c;
        c = (c - s) * (c + s);
        s = t;
        /* back onto the unit circle: each doubling squares s^2 + c^2, whose
           rounding error grew to overflow after enough doublings (NaN) */
        const symnb_real r = {one} / sqrt{f}(s * s + c * c);
        s *= r;
        c *= r;
    }}
    return {result};"""
    if dtype == "float32":
        body = (
            "#if defined(__CUDACC__) || defined(SYMNB_WIDE_TRIG_FLOAT)\n"
            + body
            + f"\n#else\n    return (float){name}((double)a * (double)b);\n#endif"
        )
    head = f"SYMNB_FN symnb_real symnb_wide_{name}(symnb_real a, symnb_real b) {{"
    return head + "\n" + body + "\n}"


_HELPERS = {
    **{
        f"symnb_wide_{n}": {d: _wide_trig(n, d) for d in DTYPES}
        for n in ("sin", "cos", "tan")
    },
    # exp, expm1, log, log1p, tanh and their internals (bit casts, double cores)
    **{
        name: {d: vecmath.definitions(d).get(name, "") for d in DTYPES}
        for name in vecmath.NAMES
    },
    **{
        name: {d: gamma_c.definitions(d)[name] for d in DTYPES}
        for name in gamma_c.NAMES
    },
    **{
        name: {d: erfcx_c.definitions(d)[name] for d in DTYPES}
        for name in erfcx_c.NAMES
    },
    "symnb_log1p_unit": {
        "float32": _LOG1P_UNIT_FLOAT32,
        "float64": """SYMNB_FN symnb_real symnb_log1p_unit(symnb_real e) {
    return log1p(e);
}""",
    },
    "symnb_max": """SYMNB_FN symnb_real symnb_max(symnb_real a, symnb_real b) {
    return (a != a || b != b) ? (a + b) : (a > b ? a : b);
}""",
    "symnb_min": """SYMNB_FN symnb_real symnb_min(symnb_real a, symnb_real b) {
    return (a != a || b != b) ? (a + b) : (a < b ? a : b);
}""",
    "symnb_sign": """SYMNB_FN symnb_real symnb_sign(symnb_real u) {
    return u > ${ZERO} ? ${ONE} : (u < ${ZERO} ? -${ONE} : u);
}""",
    "symnb_real_pow": """SYMNB_FN symnb_real symnb_real_pow(symnb_real b, symnb_real q) {
    return (b < ${ZERO} && ${FLOOR}(q) != q) ? SYMNB_NAN : ${POW}(b, q);
}""",
    "symnb_heaviside": """SYMNB_FN symnb_real symnb_heaviside(symnb_real u, symnb_real h0) {
    return u > ${ZERO} ? ${ONE} : (u < ${ZERO} ? ${ZERO} : h0);
}""",
    # float32 on the CPU: vecmath's float helpers with exp(-|u|) as a hi + lo pair
    # (sigmoid 0.65 ulps, softplus 0.99; the plain float32 chain is up to 1.7, PyTorch 1.45)
    "symnb_sigmoid": {
        "float32": """SYMNB_FN symnb_real symnb_sigmoid(symnb_real u) {
#ifdef __CUDACC__
    const float e = symnb_exp_neg(-fabsf(u));
    const float r = 1.0F / (1.0F + e);
    return u >= 0.0F ? r : e * r;
#else
    return symnb_vm_sigmoid_f(u);
#endif
}""",
        "float64": """SYMNB_FN symnb_real symnb_sigmoid(symnb_real u) {
    const symnb_real e = symnb_exp_neg(-fabs(u));
    const symnb_real r = 1.0 / (1.0 + e);
    return u >= 0.0 ? r : e * r;
}""",
    },
    "symnb_sigmoid_mul": {
        "float32": """SYMNB_FN symnb_real symnb_sigmoid_mul(symnb_real u) {
#ifdef __CUDACC__
    const float e = symnb_exp_neg(-fabsf(u));
    return (u >= 0.0F ? 1.0F : e) / (1.0F + e);
#else
    return symnb_vm_sigmoid_mul_f(u);
#endif
}""",
        "float64": """SYMNB_FN symnb_real symnb_sigmoid_mul(symnb_real u) {
    const symnb_real e = symnb_exp_neg(-fabs(u));
    return (u >= 0.0 ? 1.0 : e) / (1.0 + e);
}""",
    },
    "symnb_softplus": {
        "float32": """SYMNB_FN symnb_real symnb_softplus(symnb_real u) {
#ifdef __CUDACC__
    return (u > 0.0F ? u : 0.0F) + symnb_log1p_unit(symnb_exp_neg(-fabsf(u)));
#else
    return symnb_vm_log1p_exp_f(u, u > 0.0F ? u : 0.0F, 1.0F);
#endif
}""",
        "float64": """SYMNB_FN symnb_real symnb_softplus(symnb_real u) {
    return (u > 0.0 ? u : 0.0) + symnb_log1p_unit(symnb_exp_neg(-fabs(u)));
}""",
    },
    "symnb_logsigmoid": {
        # -|...|: negative also where it underflows (-0.0, so x/logsigmoid(u) keeps
        # the sign of its infinity: log(sigmoid(x))/log(sigmoid(-x)) was -inf at
        # x = -800 in float64 where it is +inf)
        "float32": """SYMNB_FN symnb_real symnb_logsigmoid(symnb_real u) {
#ifdef __CUDACC__
    return -fabsf((u < 0.0F ? u : 0.0F) - symnb_log1p_unit(symnb_exp_neg(-fabsf(u))));
#else
    return -fabsf(symnb_vm_log1p_exp_f(u, u < 0.0F ? u : 0.0F, -1.0F));
#endif
}""",
        "float64": """SYMNB_FN symnb_real symnb_logsigmoid(symnb_real u) {
    return -fabs((u < 0.0 ? u : 0.0) - symnb_log1p_unit(symnb_exp_neg(-fabs(u))));
}""",
    },
    "symnb_tanh_softplus": """SYMNB_FN symnb_real symnb_tanh_softplus(symnb_real u) {
    /* tanh(log(1+e^u)) = n/(n+2), n = e^u (e^u + 2); written with q = exp(-|u|) so
       nothing overflows: for u >= 0 it is (1+2q)/(1+2q+2q^2) */
    const symnb_real q = symnb_exp_neg(-${FABS}(u));
    const symnb_real n = q * (q + ${TWO});
    const symnb_real pos = (${ONE} + ${TWO} * q) / (${ONE} + ${TWO} * q + ${TWO} * q * q);
    return u >= ${ZERO} ? pos : n / (n + ${TWO});
}""",
    "symnb_sech2_softplus": """SYMNB_FN symnb_real symnb_sech2_softplus(symnb_real u) {
    /* 1/cosh(log(1+e^u))^2 = 4(n+1)/(n+2)^2 (mish'), q = exp(-|u|), no cancellation:
       for u >= 0 it is 4 q^2 (1+q)^2 / (1+2q+2q^2)^2 */
    const symnb_real q = symnb_exp_neg(-${FABS}(u));
    const symnb_real n = q * (q + ${TWO});
    const symnb_real dp = ${ONE} + ${TWO} * q + ${TWO} * q * q;
    const symnb_real pos = (${TWO} * q * (${ONE} + q)) / dp;
    const symnb_real dn = n + ${TWO};
    return u >= ${ZERO} ? pos * pos : ${FOUR} * (n + ${ONE}) / (dn * dn);
}""",
}

#: Names of the helper functions :func:`prelude` can define.
HELPERS = tuple(_HELPERS)


@functools.cache
def _helper_text(name: str, dtype: str) -> str:
    p = KernelPrinter(dtype)
    sfx = "f" if dtype == "float32" else ""
    subs = {
        "ZERO": p.literal(0),
        "ONE": p.literal(1),
        "TWO": p.literal(2),
        "FOUR": p.literal(4),
        "EXP": "exp" + sfx,
        "FABS": "fabs" + sfx,
        "LOG1P": "log1p" + sfx,
        "POW": "pow" + sfx,
        "FLOOR": "floor" + sfx,
    }
    text = _HELPERS[name]
    if isinstance(text, dict):
        text = text[dtype]
    return string.Template(text).substitute(subs)


@functools.cache
def prelude(dtype: str = "float32", used: frozenset | None = None) -> str:
    """The helper functions (specialised for ``dtype``) the kernel text uses.

    ``used`` names the helpers to define (default: all). Only used ones are emitted, so
    NVRTC reports no "declared but never referenced" warnings.
    """
    _check_dtype(dtype)
    names = [n for n in HELPERS if used is None or n in used]
    if not names:
        return ""
    body = "\n".join(t for t in (_helper_text(n, dtype) for n in names) if t)
    return "/* ---- symnb helpers (identical for C++ and CUDA) ---- */\n" + body + "\n"


_HELPER_NEEDS = {
    **vecmath.NEEDS,
    **erfcx_c.NEEDS,
    "symnb_sigmoid": ("symnb_exp_neg", "symnb_vm_sigmoid_f"),
    "symnb_sigmoid_mul": ("symnb_exp_neg", "symnb_vm_sigmoid_f"),
    "symnb_tanh_softplus": ("symnb_exp_neg",),
    "symnb_sech2_softplus": ("symnb_exp_neg",),
    "symnb_softplus": ("symnb_exp_neg", "symnb_log1p_unit", "symnb_vm_sigmoid_f"),
    "symnb_logsigmoid": ("symnb_exp_neg", "symnb_log1p_unit", "symnb_vm_sigmoid_f"),
}


def helpers_used(text: str) -> frozenset:
    """The helper names that occur in ``text`` (generated code, not user text), plus the
    helpers those call."""
    used = {n for n in HELPERS if n + "(" in text}
    todo = list(used)
    while todo:  # transitively: sigmoid -> exp -> bit casts
        for m in _HELPER_NEEDS.get(todo.pop(), ()):
            if m not in used:
                used.add(m)
                todo.append(m)
    return frozenset(used)


__all__ = [
    "HELPERS",
    "LIBM_FUNCS",
    "MAX_OPERATIONS",
    "KernelPrinter",
    "Lowered",
    "coefficient_last",
    "count_operations",
    "helpers_used",
    "lower",
    "prelude",
    "prepare",
    "print_expression",
    "sech2_softplus",
    "tanh_softplus",
]
