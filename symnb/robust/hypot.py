"""``sqrt(u**2 + v**2)`` as ``hypot(u, v)``: no square underflows or overflows first.

Charbonnier's ``sqrt(x**2 + e**2)`` with e = 1e-33: in float32 both squares are 0 from
|x| = 1e-23, so its f' ``x/sqrt(x**2 + e**2)`` was x/0 = -inf at x = -1e-25, where it
is -1 (and the squares overflow from |x| = 1.8e19). ``hypot`` (C99, CUDA, NumPy)
scales before squaring. :func:`root_of_squares_as_hypot` is an exact rewrite, measured
by the engine as the others are (``hypot`` does not vectorize as sqrt does: it is kept
only where it is more accurate).
"""

from __future__ import annotations

import sympy as sp


class hypot2(sp.Function):
    """sqrt(u**2 + v**2), computed without overflow or underflow of the squares."""

    nargs = 2

    @classmethod
    def eval(cls, u, v):
        if u.is_number and v.is_number:
            return sp.sqrt(u**2 + v**2)
        return None

    def _eval_is_real(self):
        return (self.args[0].is_real and self.args[1].is_real) or None

    def _eval_is_nonnegative(self):
        return self._eval_is_real()

    def fdiff(self, argindex=1):
        return self.args[argindex - 1] / self

    def _call(self, printer, name: str) -> str:
        return f"{name}({printer._print(self.args[0])}, {printer._print(self.args[1])})"

    def _symnb_ccode(self, printer) -> str:
        float32 = getattr(printer, "dtype", "float64") == "float32"
        return self._call(printer, "hypotf" if float32 else "hypot")

    def _numpycode(self, printer) -> str:
        return self._call(printer, printer._module_format(printer._module + ".hypot"))

    def _pythoncode(self, printer) -> str:  # to_numba's scalar code
        return self._call(printer, "math.hypot")

    def _jaxcode(self, printer) -> str:
        return self._call(printer, "jax.numpy.hypot")

    def _mpmathcode(self, printer) -> str:
        return self._call(printer, "mpmath.hypot")


def _square_root_of(t: sp.Expr) -> sp.Expr | None:
    """u for a term u**2 (or a positive number c: sqrt(c))."""
    if t.is_number:
        return sp.sqrt(t) if t.is_positive else None
    if isinstance(t, sp.Pow) and t.exp == 2:
        return t.base
    if isinstance(t, sp.Mul):  # c*u**2*w**2... with a positive number c
        c, rest = t.as_coeff_Mul()
        factors = sp.Mul.make_args(rest)
        if c.is_positive and all(isinstance(f, sp.Pow) and f.exp == 2 for f in factors):
            return sp.sqrt(c) * sp.Mul(*(f.base for f in factors))
    return None


def _as_hypot(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    if not (isinstance(e, sp.Pow) and e.exp in (sp.S.Half, -sp.S.Half)):
        return e
    a = e.base
    if not isinstance(a, sp.Add) or len(a.args) != 2 or var not in a.free_symbols:
        return e
    roots = [_square_root_of(t) for t in a.args]
    # a named constant b (Squareplus's sqrt(x**2 + b)) is sqrt(b)**2 where b >= 0: with
    # b = 0, x**2 underflowed to 0 and f' = x/sqrt(x**2 + b) was -inf for |x| < 1e-162
    # (float64) where it is -1; as training may move b below 0, the root stays there
    guard = None
    for i, t in enumerate(a.args):
        if roots[i] is None and var not in t.free_symbols and not t.is_number:
            guard, roots[i] = t >= 0, sp.sqrt(t)
            break
    if any(r is None for r in roots):
        return e
    h = hypot2(*roots)
    h = h if e.exp == sp.S.Half else 1 / h
    return h if guard is None else sp.Piecewise((h, guard), (e, True))


def root_of_squares_as_hypot(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """``sqrt(u**2 + v**2)`` (a term may be a positive number or ``c*u**2``) and its
    reciprocal as ``hypot(u, v)`` (see the module's docstring)."""
    from symnb.robust.traversal import bottom_up as _bottom_up

    out = _bottom_up(expr, lambda e: _as_hypot(e, var))
    return out if out == expr else _bottom_up(out, lambda e: _guard_outside(e, var))


def _guard_outside(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """A product with a branch on a constant's sign (the guard of a hypot) as the
    branch of products: x*(1/hypot(b, x)) divides, x/hypot(b, x), as the printer
    writes a quotient (1/hypot(0, x) overflowed at subnormal x, x*inf = inf where
    squareplus's f' at b = 0 is 1)."""
    if not isinstance(e, sp.Mul):
        return e
    for f in e.args:
        if (
            isinstance(f, sp.Piecewise)
            and f.has(hypot2)
            and not any(var in c.free_symbols for _, c in f.args)
        ):
            return sp.piecewise_fold(e)
    return e


__all__ = ["hypot2", "root_of_squares_as_hypot"]
