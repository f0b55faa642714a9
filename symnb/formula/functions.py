"""Numerically stable SymPy functions and the whitelist of functions a formula may call.

``sigmoid``, ``softplus`` and ``logsigmoid`` are SymPy functions in their own right (with their
own derivatives), so code generation can print stable implementations of them instead of the
naive ``1/(1+exp(-x))`` or ``log(1+exp(x))`` that overflow in float32.
"""

from __future__ import annotations

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p

from symnb.errors import FormulaError
from symnb.formula.gamma import GAMMA_FUNCTIONS


def _sigmoid_head(printer) -> str:
    """``\\sigma``, or ``\\operatorname{sigmoid}`` when a symbol of the formula prints as
    ``\\sigma`` itself (a constant named sigma; see ``symnb.formula.latex``)."""
    if getattr(printer, "sigma_is_a_symbol", False):
        return r"\operatorname{sigmoid}"
    return r"\sigma"


def _call_latex(printer, head: str, arg: sp.Expr, exp: str | None) -> str:
    """``head(arg)``, or ``head^{exp}(arg)`` when SymPy prints a power of the call."""
    power = "" if exp is None else f"^{{{exp}}}"
    return rf"{head}{power}\left({printer._print(arg)}\right)"


class sigmoid(sp.Function):
    """The logistic function 1/(1+exp(-u)), evaluated stably for both signs."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        # sigma(u) * sigma(-u), not sigma(u) * (1 - sigma(u)): no cancellation at large |u|
        u = self.args[0]
        return sigmoid(u) * sigmoid(-u)

    @classmethod
    def eval(cls, arg):
        if arg.is_zero:
            return sp.Rational(1, 2)
        if arg is sp.oo:
            return sp.Integer(1)
        if arg is sp.S.NegativeInfinity:
            return sp.Integer(0)
        return None

    def _eval_rewrite_as_exp(self, arg, **kwargs):
        return 1 / (1 + sp.exp(-arg))

    def _eval_evalf(self, prec):
        return (1 / (1 + sp.exp(-self.args[0])))._eval_evalf(prec)

    def _eval_is_real(self):
        return self.args[0].is_real

    def _latex(self, printer, exp=None):
        return _call_latex(printer, _sigmoid_head(printer), self.args[0], exp)


class softplus(sp.Function):
    """log(1+exp(u)), evaluated stably as max(u,0) + log1p(exp(-|u|))."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sigmoid(self.args[0])

    @classmethod
    def eval(cls, arg):
        if arg.is_zero:
            return sp.log(2)
        return None

    def _eval_rewrite_as_exp(self, arg, **kwargs):
        return sp.log(1 + sp.exp(arg))

    _eval_rewrite_as_log = _eval_rewrite_as_exp

    def _eval_evalf(self, prec):
        return sp.log(1 + sp.exp(self.args[0]))._eval_evalf(prec)

    def _eval_is_real(self):
        return self.args[0].is_real

    def _latex(self, printer, exp=None):
        return _call_latex(printer, r"\operatorname{softplus}", self.args[0], exp)


class logsigmoid(sp.Function):
    """log(sigmoid(u)), evaluated stably as min(u,0) - log1p(exp(-|u|))."""

    nargs = 1

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sigmoid(-self.args[0])

    @classmethod
    def eval(cls, arg):
        if arg.is_zero:
            return -sp.log(2)
        return None

    def _eval_rewrite_as_exp(self, arg, **kwargs):
        return -sp.log(1 + sp.exp(-arg))

    def _eval_evalf(self, prec):
        return (-sp.log(1 + sp.exp(-self.args[0])))._eval_evalf(prec)

    def _eval_is_real(self):
        return self.args[0].is_real

    def _latex(self, printer, exp=None):
        text = _call_latex(
            printer, rf"\log{_sigmoid_head(printer)}", self.args[0], None
        )
        return text if exp is None else rf"\left({text}\right)^{{{exp}}}"


class erfc(sp.erfc):
    """erfc that keeps its argument: SymPy rewrites erfc(-u) as 2 - erfc(u), which
    brings back the cancellation the rewrite 1 + erf(u) -> erfc(-u) removes."""

    @classmethod
    def eval(cls, arg):
        if arg.is_Number:
            return sp.erfc(arg)
        return None


class _ScaledErfc(sp.Function):
    """What :class:`erfcx` and :class:`ierfcx` share: one real argument, positive
    values, ``AT_ZERO`` at 0, 0 at +inf and +inf at -inf, SymPy's tractable erfcx
    (``_erfs``, which knows its series at infinity) for limits, ``NAME`` in LaTeX."""

    nargs = 1
    AT_ZERO: sp.Expr = sp.S.One
    NAME = ""

    @classmethod
    def eval(cls, arg):
        if arg.is_zero:
            return cls.AT_ZERO
        if arg is sp.oo:
            return sp.Integer(0)
        if arg is sp.S.NegativeInfinity:
            return sp.oo
        return None

    def _from_erfcx(self, arg, scaled):
        """The function of ``arg`` with ``scaled`` standing for erfcx(arg)."""
        raise NotImplementedError

    def _eval_rewrite_as_erfc(self, arg, **kwargs):
        return self._from_erfcx(arg, sp.exp(arg**2) * sp.erfc(arg))

    _eval_rewrite_as_exp = _eval_rewrite_as_erfc

    def _eval_rewrite_as_tractable(self, arg, limitvar=None, **kwargs):
        from sympy.functions.special.error_functions import _erfs

        return self._from_erfcx(arg, _erfs(arg))

    def _eval_evalf(self, prec):
        return self._eval_rewrite_as_erfc(self.args[0])._eval_evalf(prec)

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_is_positive(self):
        return True if self.args[0].is_extended_real else None

    def _latex(self, printer, exp=None):
        return _call_latex(printer, rf"\operatorname{{{self.NAME}}}", self.args[0], exp)


class erfcx(_ScaledErfc):
    """The scaled complementary error function exp(u^2)*erfc(u), as one primitive.

    Finite for every u > 0 (it tends to 1/(sqrt(pi) u)) where the product is inf*0 =
    NaN from u = 9.2 in float32 (26.5 in float64). Its own derivative (-2 ierfcx) and
    kernels (scipy.special.erfcx, symnb_erfcx in C++, CUDA's erfcx/erfcxf) keep the
    analysis of Mills-ratio formulas from expanding a continued fraction (7-8 CPU
    seconds per compile before ENGINE 110)."""

    NAME = "erfcx"

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        # 2u erfcx(u) - 2/sqrt(pi), which cancels for large u (-1/(sqrt(pi) u^2))
        return -2 * ierfcx(self.args[0])

    def _from_erfcx(self, arg, scaled):
        return scaled


class ierfcx(_ScaledErfc):
    """1/sqrt(pi) - u*erfcx(u) = exp(u^2)*ierfc(u) (ierfc(u) = exp(-u^2)/sqrt(pi) -
    u erfc(u), the first repeated integral of erfc), so erfcx' = -2 ierfcx: one call,
    where the difference loses everything for large u (it tends to 1/(2 sqrt(pi) u^2)).
    Appears only in derivatives of :class:`erfcx` (it cannot be typed)."""

    NAME = "ierfcx"
    AT_ZERO = 1 / sp.sqrt(sp.pi)

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        u = self.args[0]
        return 2 * u * ierfcx(u) - erfcx(u)

    def _from_erfcx(self, arg, scaled):
        return 1 / sp.sqrt(sp.pi) - arg * scaled


def _heaviside(u, h0=None):
    """Heaviside step with PyTorch's convention at 0 (value 0) unless told otherwise;
    ``h0`` (numpy.heaviside's value at 0) must be a number."""
    if h0 is not None and sp.sympify(h0).free_symbols:
        raise FormulaError(
            f"heaviside's second argument is its value at 0 and must be a number, "
            f"not {sp.sstr(h0)!r}",
            suggestion="e.g. heaviside(x, 0.5); for a value at 0 that changes, "
            "write where(x > 0, 1, where(x < 0, 0, h)) with a constant h",
        )
    return sp.Heaviside(u, 0 if h0 is None else h0)


def _where(cond, a, b):
    """``where(cond, a, b)``: a where cond holds, else b (NumPy's spelling of Piecewise)."""
    return sp.Piecewise((a, cond), (b, True))


def _relu(u):
    return sp.Max(0, u)


def _log10(u):
    return sp.log(u) / sp.log(10)


def _log2(u):
    return sp.log(u) / sp.log(2)


def _sech(u):
    return 1 / sp.cosh(u)


def _cbrt(u):
    """``cbrt(u)``: the real cube root, negative for u < 0 (NumPy's and C's ``cbrt``;
    ``u**(1/3)`` stays the principal power, NaN for u < 0)."""
    third = sp.Rational(1, 3)
    if u.is_nonnegative:
        return u**third
    if u.has(sp.Piecewise):
        # cbrt(exp(cbrt(x))): the root of each piece (comparing the piecewise value
        # with 0 gave conditions of SymPy's ITE form)
        folded = sp.piecewise_fold(u)
        if isinstance(folded, sp.Piecewise):
            return sp.Piecewise(*[(_cbrt(e), c) for e, c in folded.args])
    return sp.Piecewise((u**third, u >= 0), (-((-u) ** third), True))


def _clip(u, lo, hi):
    """``clip(u, lo, hi)`` (NumPy's ``clip``, PyTorch's ``clamp``): min(max(u, lo), hi)."""
    return sp.Min(sp.Max(u, lo), hi)


#: Functions a formula may call: name -> callable building the SymPy expression.
ALLOWED_FUNCTIONS: dict[str, object] = {
    "exp": sp.exp,
    "log": sp.log,
    "ln": sp.log,
    "sqrt": sp.sqrt,
    "cbrt": _cbrt,
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "asin": sp.asin,
    "acos": sp.acos,
    "atan": sp.atan,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "tanh": sp.tanh,
    "asinh": sp.asinh,
    "acosh": sp.acosh,
    "atanh": sp.atanh,
    "erf": sp.erf,
    "erfc": erfc,
    "erfcx": erfcx,  # exp(u**2)*erfc(u), scipy.special.erfcx / torch.special.erfcx
    "abs": sp.Abs,
    "Abs": sp.Abs,
    "sign": sp.sign,
    "max": sp.Max,
    "Max": sp.Max,
    "min": sp.Min,
    "Min": sp.Min,
    "floor": sp.floor,
    "ceiling": sp.ceiling,
    "ceil": sp.ceiling,
    "Heaviside": _heaviside,
    "heaviside": _heaviside,
    "Piecewise": sp.Piecewise,
    "where": _where,
    "sigmoid": sigmoid,
    "softplus": softplus,
    "logsigmoid": logsigmoid,
    "log1p": log1p,
    "expm1": expm1,
    "relu": _relu,
    "log10": _log10,
    "log2": _log2,
    "sech": _sech,
    "clip": _clip,
    "clamp": _clip,
    # NumPy's spellings
    "arcsin": sp.asin,
    "arccos": sp.acos,
    "arctan": sp.atan,
    "arcsinh": sp.asinh,
    "arccosh": sp.acosh,
    "arctanh": sp.atanh,
    "sgn": sp.sign,
    # the gamma family (symnb.formula.gamma); trigamma is digamma's derivative only
    # (its own derivative, polygamma(2, u), has no kernel implementation)
    **{k: v for k, v in GAMMA_FUNCTIONS.items() if k != "trigamma"},
}

#: Named constants a formula may use (unless the user declares a constant of that name).
ALLOWED_CONSTANTS: dict[str, sp.Expr] = {"pi": sp.pi, "E": sp.E}

__all__ = [
    "ALLOWED_CONSTANTS",
    "ALLOWED_FUNCTIONS",
    "erfcx",
    "expm1",
    "ierfcx",
    "log1p",
    "logsigmoid",
    "sigmoid",
    "softplus",
]
