r"""LaTeX of formulas as students read them.

A subclass of SymPy's ``LatexPrinter`` (its printing habit: ``_print_X`` methods, never
edits of printed strings):

- ``Heaviside(u, 0)`` (symnb's step, 0 at 0) prints as ``H(u)``; another value at 0 is
  shown as a subscript, ``H_{1/2}(u)``;
- ``log1p(u)`` prints as ``log(1 + u)`` and ``expm1(u)`` as ``e^u - 1`` (bracketed as a sum): the stable
  functions are how the kernels compute, not what the formula means;
- activations called by name in a formula print as ``\operatorname{name}(u)``
  (``\operatorname{\mathrm{name2}}(u)`` with digits or underscores, for MathJax);
- every power of these and of ``sigmoid``, ``softplus``, ``logsigmoid`` prints (SymPy
  passes ``exp=`` when it prints a power of a function call);
- ``sigmoid`` prints as ``\sigma(u)``, or as ``\operatorname{sigmoid}(u)`` when a symbol
  of the formula (a constant named sigma) prints as ``\sigma`` itself;
- a constant typed with many digits' precision but few digits (``1e30`` is a 100-bit
  Float) prints with its significant digits, ``10^{30}``, not 31 digits of ``1000...0.0``;
- a whole number of more than 16 digits prints as a power of ten (``10^{300}``, typed
  as such) or with float64's 15 significant digits, not with its 301 digits;
- a name's trailing ``_`` (``lambda_``: Python's keyword escaped) prints as the letter,
  ``\lambda``, not with an empty subscript ``\lambda_{}``.
"""

from __future__ import annotations

import sympy as sp
from mpmath.libmp import prec_to_dps
from mpmath.libmp import to_str as mpf_to_str
from sympy.codegen.cfunctions import expm1
from sympy.core.function import AppliedUndef
from sympy.core.intfunc import integer_log
from sympy.printing.latex import LatexPrinter

#: The most digits a whole number prints with (10**20 prints as 10^{20}).
_MAX_DIGITS = 16


def operator_name(name: str) -> str:
    """``\\operatorname{gelu}``; a name with digits or underscores inside
    ``\\mathrm`` (``\\operatorname{\\mathrm{my\\_act2}}``), which MathJax 3 (JupyterLab's)
    otherwise sets as ``my _ act 2``, the digits and the underscore spaced apart."""
    escaped = name.replace("_", r"\_")
    if any(ch.isdigit() or ch == "_" for ch in name):
        return rf"\operatorname{{\mathrm{{{escaped}}}}}"
    return rf"\operatorname{{{escaped}}}"


class FormulaLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer with symnb's readable steps and stable functions."""

    def _print_Heaviside(self, expr, exp=None):
        arg = self._print(expr.args[0])
        h0 = expr.args[1] if len(expr.args) > 1 else sp.S.Half
        sub = "" if h0 == 0 else f"_{{{self._print(h0)}}}"
        text = rf"H{sub}\left({arg}\right)"
        return text if exp is None else rf"{text}^{{{exp}}}"

    def _print_Float(self, expr):
        # the digits it has, at least float64's 15: a longer mantissa prints as typed
        digits = mpf_to_str(
            expr._mpf_, prec_to_dps(expr._prec), min_fixed=1, max_fixed=0
        )
        mantissa = digits.split("e")[0].lstrip("-+").replace(".", "").strip("0")
        dps = max(15, len(mantissa))
        if dps < prec_to_dps(expr._prec):
            expr = sp.Float(expr, dps)
        return super()._print_Float(expr)

    def _print_Integer(self, expr):
        # 10**300 typed as 10^{300}: its power, not 301 digits; another long whole
        # number with float64's 15 significant digits (the kernels' value)
        n = abs(int(expr))
        if n < 10**_MAX_DIGITS:
            return str(expr)
        power, exact = integer_log(n, 10)  # no str(n): Python limits its digits
        if exact:
            return f"{'-' if expr < 0 else ''}10^{{{power}}}"
        return self._print(sp.Float(expr, 15))

    def _print_Rational(self, expr):
        if max(abs(expr.p), expr.q) < 10**_MAX_DIGITS:
            return super()._print_Rational(expr)
        top, bottom = (self._print(sp.Integer(n)) for n in (abs(expr.p), expr.q))
        return rf"{'-' if expr < 0 else ''}\frac{{{top}}}{{{bottom}}}"

    def _deal_with_super_sub(self, string: str, style: str = "plain") -> str:
        # lambda_, alpha_: the keyword escape, not an empty subscript
        if string.endswith("_") and string.rstrip("_"):
            string = string.rstrip("_")
        return super()._deal_with_super_sub(string, style=style)

    def _print_Function(self, expr, exp=None):
        if not isinstance(expr, AppliedUndef):
            return super()._print_Function(expr, exp)
        # a named activation called in a formula: its name as written (gelu, leaky_relu)
        power = "" if exp is None else f"^{{{exp}}}"
        args = ", ".join(self._print(a) for a in expr.args)
        return rf"{operator_name(type(expr).__name__)}{power}\left({args}\right)"

    def _print_log1p(self, expr, exp=None):
        inner = self._print(sp.Add(sp.S.One, expr.args[0], evaluate=False))
        power = "" if exp is None else f"^{{{exp}}}"
        return rf"\log{power}\left({inner}\right)"

    def _print_expm1(self, expr, exp=None):
        # a sum: brackets only where a sum needs them (a factor, a base), as SymPy
        # prints exp(u) - 1 (at the top, in a sum, a fraction: none)
        e = self._print(sp.exp(expr.args[0], evaluate=False))
        return f"{e} - 1" if exp is None else rf"\left({e} - 1\right)^{{{exp}}}"

    def _needs_mul_brackets(self, expr, first=False, last=False) -> bool:
        if isinstance(expr, expm1):
            return True
        return super()._needs_mul_brackets(expr, first=first, last=last)

    def _needs_add_brackets(self, expr) -> bool:
        # a term after "+" or "-" (SymPy prints x - expm1(x) as x - term)
        return isinstance(expr, expm1) or super()._needs_add_brackets(expr)

    def _print_Mul(self, expr):
        coeff, rest = expr.as_coeff_Mul()
        if isinstance(coeff, sp.Float) and abs(float(coeff)) == 1.0 and rest != 1:
            # 0.5*x*(1 + tanh(u)) -> 1.0*x*sigmoid(2u): "1.0 x" reads as a typo
            return self._print(rest if coeff > 0 else -rest)
        if coeff == -1 and isinstance(rest, expm1):  # SymPy prints "- " + the factor
            return rf"- \left({self._print(rest)}\right)"
        return super()._print_Mul(expr)


def formula_latex(expr: sp.Basic) -> str:
    """LaTeX of a formula or derivative (see the module docstring)."""
    printer = FormulaLatexPrinter()
    printer.sigma_is_a_symbol = any(
        printer.doprint(s) == r"\sigma" for s in expr.free_symbols
    )
    return printer.doprint(expr)


__all__ = ["FormulaLatexPrinter", "formula_latex"]
