"""Trigonometric functions of a product evaluated in a wider type where it overflows.

``sin(w0*x)`` at |x| near the float maximum: ``w0*x`` overflows to inf and ``sin`` gives
NaN, although the true value is a number in [-1, 1]. :class:`wide_sin` (and ``wide_cos``,
``wide_tan``) take the factors of the argument separately (so CSE cannot compute their
product in the narrow type first) and mean exactly ``sin(a*b*...)``. The kernels compute
the product in the kernel's type; only where it is infinite (the factors being finite)
they compute it again without overflow: float32 in double in C++ and NumPy (exact for
two factors); float64, which has no portable wider type (CUDA has no long double), and
float32 CUDA, whose kernels use no double, in C as sin/cos of m*b with the smaller
factor split as m*2**e (an exact double-word product, the full argument reduction)
followed by e angle doublings (error about 2**e ulps), and in NumPy float64 exactly
with mpmath at those few points. The common path costs one ``isinf`` test.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from symnb.formula.internal import P, T, X


def wide_call(name: str, *factors):
    """NumPy: ``name`` (sin/cos/tan) of the product, recomputed wide where it overflows."""
    fn = getattr(np, name)
    arrays = [np.asarray(f) for f in factors]
    # the inputs' type: a constant factor (pi, a Python float, a 0-d float64 array)
    # made the result float64 in float32 kernels, so NumPy's f' of sin(pi*(x - 1))/
    # (pi*(x - 1)) did not cancel near 1 where the C kernels' did (1e-3 off)
    shaped = [a for a in arrays if a.ndim > 0]
    dtype = np.result_type(*(shaped or arrays))
    if dtype.kind != "f":
        dtype = np.dtype(np.float64)
    prod = arrays[0].astype(dtype, copy=False)
    for a in arrays[1:]:
        prod = prod * a.astype(dtype, copy=False)
    out = fn(prod)
    over = np.isinf(prod)
    if not np.any(over):
        return out
    finite = np.ones(np.shape(prod), dtype=bool)
    for a in arrays:
        finite = finite & np.isfinite(a)
    fix = over & finite
    if not np.any(fix):
        return out
    if dtype == np.float32:  # a product of two float32 values is exact in double
        wprod = arrays[0].astype(np.float64)
        for a in arrays[1:]:
            wprod = wprod * a.astype(np.float64)
        wide_out = fn(np.broadcast_to(wprod, np.shape(prod))).astype(dtype)
        return np.where(fix, wide_out, out)
    # float64: the few overflowing points exactly with mpmath (no wider NumPy type is
    # portable: long double is double on some platforms, and inexact beyond 64 bits)
    out = np.array(out, dtype=dtype, copy=True)
    full = [np.broadcast_to(a, np.shape(prod)) for a in arrays]
    mp_fn = getattr(mpmath, name)
    with mpmath.workprec(64 * (len(arrays) + 1)):
        for idx in zip(*np.nonzero(fix)) if np.ndim(prod) else [()]:
            p = mpmath.mpf(1)
            for a in full:
                p *= mpmath.mpf(float(a[idx]))
            out[idx] = float(mp_fn(p))
    return out


#: The kernel inputs (x; a loss's y_pred and y_true): factors without them are constants.
_INPUTS = frozenset({X, P, T})


class _WideTrig(sp.Function):
    """``narrow(product of the arguments)``, evaluated wide where the product overflows."""

    _name = ""

    @classmethod
    def _narrow(cls, u: sp.Expr) -> sp.Expr:
        return getattr(sp, cls._name)(u)

    @classmethod
    def eval(cls, *args):
        if len(args) == 1 or all(a.is_number for a in args):
            return cls._narrow(sp.Mul(*args))
        return None

    def _eval_is_real(self):
        return all(a.is_real for a in self.args) or None

    def product(self) -> sp.Expr:
        """The argument of the trigonometric function."""
        return sp.Mul(*self.args)

    def fdiff(self, argindex=1):
        others = sp.Mul(*[a for i, a in enumerate(self.args) if i != argindex - 1])
        return others * self._outer_derivative()

    def _outer_derivative(self) -> sp.Expr:
        raise NotImplementedError

    def factors(self) -> tuple[list[int], list[int]]:
        """The argument positions of the two factors the wide evaluation multiplies:
        the constant ones (numbers and constants' symbols) and the rest (the product
        of x and a constant is what overflows; x*sigmoid(x) not). Every printer
        (C, JAX, numba) splits by this."""
        consts = [i for i, a in enumerate(self.args) if not a.free_symbols & _INPUTS]
        if not consts or len(consts) == len(self.args):
            consts = list(range(len(self.args) - 1))
        return consts, [i for i in range(len(self.args)) if i not in consts]

    def _symnb_ccode(self, printer) -> str:
        printed = [printer._print(a) for a in self.args]
        prod = "*".join(f"({p})" for p in printed)
        narrow = printer._print(self._narrow(self.product()))
        # the prelude's symnb_wide_* (symnb.codegen.printer): float32 C++ in double,
        # float64 and float32 CUDA by exact splitting and angle doubling
        a, b = ("*".join(f"({printed[i]})" for i in side) for side in self.factors())
        wide = f"symnb_wide_{self._name}({a}, {b})"
        return f"(isinf({prod}) ? {wide} : ({narrow}))"

    def _numpycode(self, printer) -> str:
        # the generated code's namespace is NumPy's: import this module by its name
        mod = "__import__('symnb.robust.widen', fromlist=('wide_call',))"
        args = ", ".join(printer._print(a) for a in self.args)
        return f"{mod}.wide_call({self._name!r}, {args})"

    def _mpmathcode(self, printer) -> str:
        return printer._print(self._narrow(self.product()))


class wide_sin(_WideTrig):
    """sin of the product of the arguments (wide where the product overflows)."""

    _name = "sin"

    def _outer_derivative(self):
        return wide_cos(*self.args)


class wide_cos(_WideTrig):
    """cos of the product of the arguments (wide where the product overflows)."""

    _name = "cos"

    def _outer_derivative(self):
        return -wide_sin(*self.args)


class wide_tan(_WideTrig):
    """tan of the product of the arguments (wide where the product overflows)."""

    _name = "tan"

    def _outer_derivative(self):
        return 1 + wide_tan(*self.args) ** 2


WIDE = {"sin": wide_sin, "cos": wide_cos, "tan": wide_tan}


def widen_trig(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """sin/cos/tan of a product with the input -> their wide forms (exact rewrite)."""

    def is_target(e) -> bool:
        return (
            type(e).__name__ in WIDE
            and isinstance(e.args[0], sp.Mul)
            and var in e.args[0].free_symbols
        )

    return expr.replace(is_target, lambda e: WIDE[type(e).__name__](*e.args[0].args))


__all__ = ["WIDE", "wide_call", "wide_cos", "wide_sin", "wide_tan", "widen_trig"]
