"""JAX face: ``Activation.to_jax()`` -> ``f(x, **constants)`` for jit, grad and vmap.

f is lowered to ``jax.numpy`` from the same stable form the kernels use (``sigmoid``,
``softplus``, ``logsigmoid`` as ``jax.nn``'s stable functions, ``Heaviside(u, 0)`` as
``where(u > 0, 1, 0)``, NaN-propagating ``maximum``/``minimum``), so XLA can fuse it. Its
derivative is not JAX's autodiff of that lowering but symnb's own f' and df/dc, attached
with ``jax.custom_jvp``: kinks (relu'(0) = 0) and surrogate gradients match the other
backends. NaN inputs give NaN, as on every backend.
"""

from __future__ import annotations

import functools
from typing import Any

import sympy as sp
from sympy.printing.numpy import JaxPrinter

from symnb.backends.numpy_ import floatify
from symnb.codegen.printer import split_squared_denominator
from symnb.errors import FormulaError
from symnb.interop import require


class _Printer(JaxPrinter):
    """jax.numpy printer with symnb's stable helpers and conventions."""

    def _call(self, name: str, expr: sp.Expr) -> str:
        return f"{name}({', '.join(self._print(a) for a in expr.args)})"

    def _print_Mul(self, expr: sp.Expr) -> str:
        # P*R/Q**2 as (P/Q)*(R/Q), as in the kernels (no overflow of Q**2)
        split = split_squared_denominator(expr)
        return super()._print_Mul(expr if split is None else split)

    def _print_sigmoid(self, expr: sp.Expr) -> str:
        return self._call("jax.nn.sigmoid", expr)

    def _print_softplus(self, expr: sp.Expr) -> str:
        return self._call("jax.nn.softplus", expr)

    def _print_logsigmoid(self, expr: sp.Expr) -> str:
        return self._call("jax.nn.log_sigmoid", expr)

    def _print_erf(self, expr: sp.Expr) -> str:
        return self._call("jax.scipy.special.erf", expr)

    def _print_erfc(self, expr: sp.Expr) -> str:
        return self._call("jax.scipy.special.erfc", expr)

    def _print_log1p(self, expr: sp.Expr) -> str:
        return self._call("jax.numpy.log1p", expr)

    def _print_expm1(self, expr: sp.Expr) -> str:
        return self._call("jax.numpy.expm1", expr)

    def _print_Heaviside(self, expr: sp.Heaviside) -> str:
        u = self._print(expr.args[0])
        return f"jax.numpy.where(jax.numpy.greater({u}, 0), 1.0, 0.0)"


def _lambdify(expr: sp.Expr, args: tuple) -> Any:
    jax = require("jax")
    require("jax.scipy.special")
    namespace = {"jax": jax, "functools": functools}
    return sp.lambdify(
        args, floatify(expr), modules=[namespace, "jax"], printer=_Printer
    )


def _real(jnp: Any, value: Any, name: str, fix: str) -> Any:
    """``value`` as a JAX array of real numbers (bool, int or float), else TypeError.

    ``jnp.asarray`` would take a complex ``x`` and the lowering then drop its
    imaginary part without a word, and a string constant fails deep inside JAX.
    """
    try:
        arr = jnp.asarray(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be a real number or an array of them, got {value!r:.60} "
            f"({type(value).__name__}: {exc}); {fix}"
        ) from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} has dtype {arr.dtype}; symnb activations take real numbers "
            f"(got {value!r:.60}); {fix}"
        )
    return arr


def to_jax(activation: Any) -> Any:
    """``f(x, **constants)``: the activation as a jit/grad/vmap-able JAX function.

    Constants are keyword arguments (default: the activation's values), scalars or
    arrays broadcasting against ``x``; gradients flow to them through symnb's
    ``d f / d constant``. ``f.derivative(x, **constants)`` is f' itself;
    ``f.constant_names`` and ``f.constants`` tell the constants and their defaults.
    """
    jax = require("jax")
    jnp = jax.numpy
    form = activation.internal
    args = (form.inputs[0], *form.params)
    f_raw = _lambdify(form.f, args)
    df_raw = _lambdify(form.df, args)
    dc_raw = [_lambdify(d, args) for d in form.dparams]
    names = tuple(form.param_names)
    defaults = dict(zip(names, form.param_values))

    def guard(x: Any, r: Any) -> Any:
        # NaN in -> NaN out; also broadcasts constant results (e.g. f' = 1) to x
        return jnp.where(jnp.isnan(x), x, r)

    @jax.custom_jvp
    def core(x: Any, *c: Any) -> Any:
        return guard(x, f_raw(x, *c))

    @core.defjvp
    def core_jvp(primals: tuple, tangents: tuple) -> tuple:
        x, *c = primals
        tx, *tc = tangents
        y = core(x, *c)
        t = guard(x, df_raw(x, *c)) * tx
        for dck, tck in zip(dc_raw, tc):
            t = t + guard(x, dck(x, *c)) * tck
        return y, t

    def _args(x: Any, constants: dict) -> tuple:
        for k in constants:
            if k not in defaults:
                raise FormulaError.unknown_constant(
                    f"activation {activation.name!r}", k, names
                )
        x = _real(jnp, x, "x", "pass x.real or abs(x)")
        if not jnp.issubdtype(x.dtype, jnp.floating):
            x = x.astype(jnp.result_type(float))
        cs = []
        for n in names:
            fix = f"pass {n}= a real number or array of them (default {defaults[n]})"
            value = constants.get(n, defaults[n])
            cs.append(_real(jnp, value, f"constant {n!r}", fix).astype(x.dtype))
        return x, cs

    def f(x: Any, **constants: Any) -> Any:
        x, cs = _args(x, constants)
        return core(x, *cs)

    def derivative(x: Any, **constants: Any) -> Any:
        x, cs = _args(x, constants)
        return guard(x, df_raw(x, *cs))

    f.__name__ = f.__qualname__ = (
        activation.name if activation.name.isidentifier() else "f"
    )
    f.__doc__ = f"symnb activation {activation.name!r}: {activation.text}"
    f.derivative = derivative
    f.constant_names = names
    f.constants = dict(defaults)
    return f
