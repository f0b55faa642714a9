"""Parts of a form that depend only on its constants and cancel in float32, computed in float64.

A float32 kernel computed ``1 - t`` from the constant as float32 holds it: t = 0.99999999
rounds to 1.0 there, so ``(exp((1 - t)*x) - 1)/(1 - t)`` was 0/0 = NaN at every x
(the value is about x). :func:`hoist` replaces each largest input-free subexpression
of f, f' and the constants' gradients that loses its value in float32 at the form's
constants (``1 - t``, ``log(t)``, ``c1 - c2``: :func:`_cancels`) by an extra constant
symbol. ``backends.select`` hoists BEFORE the engine's analysis (``robust.engine``),
so the form analysed, measured and checked is the one compiled (hoisting after the
analysis changed the kernels' common subexpressions: the generalised Charbonnier
loss's f' overflowed at the float32 maximum). The kernel (``backends.kernel``)
computes the parts from the constants' float64 values (the values the user gave, or
changed in place) whenever the constants change and passes them after the
constants, rounded to the kernel's dtype once.

Hoisted: parts with a number plus a constant term, a sum of constants or a function
of constants (:func:`_sensitive`) whose float32 value at the compiled constants is
more than 64 ulps (relative 2**-17) from the float64 one, or not a number where that
is; every other form is compiled as before. Not hoisted: reciprocals ``c**-n`` (their
bases are), parts whose float64 value overflows float32, and parts the float64
evaluator cannot compute.

The decision is made at the constants compiled (as the engine's analysis is); the
kernel objects watch the parts left in the kernel and run a program built for
constants where one of them cancels (``backends.constant_assumptions``; a layer:
per neuron, ``backends.layer_assumptions``). Limits: the
fused training step (``codegen.train_step``), ``to_source`` headers and ``to_jax``
compute the parts in the dtype; ``interop.native`` leaves such kernels to the Kernel
API.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import sympy as sp

from symnb.formula.internal import InternalForm, param_symbol

#: dtypes whose kernels get hoisted parts: float64 kernels already hold the
#: constants as given and compute them in float64
DTYPES = ("float32",)


@dataclass(frozen=True)
class ConstantParts:
    """The hoisted parts of a form: ``exprs[j]`` (in the form's own constants
    ``c0..c{n-1}``) is passed as constant ``n + j``."""

    n_constants: int
    exprs: tuple[sp.Expr, ...]

    def __bool__(self) -> bool:
        return bool(self.exprs)

    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        return tuple(param_symbol(self.n_constants + j) for j in range(len(self.exprs)))

    def values(self, constants: np.ndarray) -> np.ndarray:
        """The parts in float64 at ``constants`` (float64, the form's n constants);
        inf or NaN where the part is (1/(1 - t) at t = 1), without warnings."""
        fn = _evaluator(self)
        with np.errstate(all="ignore"):
            out = [float(v) for v in fn(*[float(c) for c in constants])]
        return np.array(out, dtype=np.float64)

    def values_of_columns(self, constants: list) -> list[np.ndarray]:
        """:meth:`values` for many sets of constants at once: ``constants[k]`` is an
        array of constant k's values (a layer's neurons of one form)."""
        fn = _evaluator(self)
        size = np.shape(constants[0])
        with np.errstate(all="ignore"):
            return [
                np.broadcast_to(np.asarray(v, dtype=np.float64), size)
                for v in fn(*constants)
            ]


def _evaluator(parts: ConstantParts) -> Any:
    cached = _EVALUATORS.get(parts)
    if cached is None:
        from symnb.backends.numpy_ import _lambdify

        args = tuple(param_symbol(k) for k in range(parts.n_constants))
        fns = [_lambdify(e, args) for e in parts.exprs]
        cached = lambda *c: [f(*c) for f in fns]
        _EVALUATORS[parts] = cached
    return cached


_EVALUATORS: dict[ConstantParts, Any] = {}


def _constant_only(e: sp.Basic, params: frozenset) -> bool:
    free = e.free_symbols
    return bool(free) and free <= params


#: functions whose value the constant's rounding cannot move by more than the
#: rounding itself (or not at all): a part made of these, products and powers is
#: left to the kernel
_TAME = (sp.Abs, sp.sign, sp.Heaviside, sp.Min, sp.Max, sp.Piecewise)


def _sensitive(e: sp.Basic) -> bool:
    """Whether ``e`` has a step where the constants' rounding to float32 can cost
    more than a few ulps: a sum (``1 - t``: all of it at t = 0.99999999; ``c1 - c2``)
    or a function such as ``log(t)`` (0 at t = 1.0, -1e-8 at t). Products, powers and
    ``|c|`` of constants are within a few ulps either way."""
    for node in sp.preorder_traversal(e):
        if node.is_Add:
            return True
        if isinstance(node, sp.Function) and not isinstance(node, _TAME):
            return True
    return False


#: a part is hoisted when float32 loses more than this of it (relative; 64 ulps)
LOST = 2.0**-17
_F32_MAX = float(np.finfo(np.float32).max)
_F32_TINY = float(np.finfo(np.float32).tiny)


def _hoistable(e: sp.Basic, params: frozenset, values: tuple) -> bool:
    if not isinstance(e, sp.Expr) or e.is_Atom or not _constant_only(e, params):
        return False
    if e.is_Pow and e.exp.is_Number and e.exp < 0:
        return False
    return _sensitive(e) and _cancels(e, values)


def _value(e: sp.Expr, values: tuple, dtype: Any) -> float | None:
    """``e`` at ``values`` computed in ``dtype`` (the constants rounded to it first)
    by the evaluator the numpy backend uses; None where it computes no real number."""
    from symnb.backends.numpy_ import _lambdify

    args = tuple(param_symbol(k) for k in range(len(values)))
    try:
        with np.errstate(all="ignore"):
            v = _lambdify(e, args)(*[dtype(c) for c in values])
        if np.ndim(v) != 0 or isinstance(v, complex) or np.iscomplexobj(v):
            return None
        return float(v)
    except Exception:  # noqa: BLE001 - any failure: the part stays in the kernel
        return None


def _cancels(e: sp.Expr, values: tuple) -> bool:
    """Whether ``e`` computed in float32 at the constants ``values`` is more than
    :data:`LOST` (relative) from its float64 value, or not a number where that is
    one float32 holds: 1 - t at t = 0.99999999 is 0 there, 1e-8 in float64."""
    exact = _value(e, values, np.float64)
    got = None if exact is None else _value(e, values, np.float32)
    return exact is not None and got is not None and lost(exact, got)


def lost(exact: Any, got: Any) -> Any:
    """Whether ``got`` (a part computed in float32) lost the part's float64 value
    ``exact``: more than :data:`LOST` (relative) from it, or not a number where
    ``exact`` is one float32 holds. Elementwise for arrays (a layer's neurons), a
    bool for numbers."""
    exact = np.asarray(exact, dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    with np.errstate(all="ignore"):
        holds = np.isfinite(exact) & (np.abs(exact) <= _F32_MAX)
        off = np.abs(got - exact) > LOST * np.maximum(np.abs(exact), _F32_TINY)
        out = holds & (~np.isfinite(got) | off)
    return bool(out) if out.ndim == 0 else out


def _collect(e: sp.Basic, params: frozenset, values: tuple, found: dict) -> None:
    if _hoistable(e, params, values):
        found.setdefault(e, len(found))
        return
    for a in e.args:
        if isinstance(a, sp.Basic):
            _collect(a, params, values, found)


def hoist(form: InternalForm) -> tuple[InternalForm, ConstantParts]:
    """``form`` (not yet analysed) with the input-free parts of f, f' and the
    constants' gradients that cancel in float32 at its constants replaced by extra
    constants; the form's params, values and names gain them, its constants'
    gradients gain zeros for them. Unchanged (the same object) where none cancel."""
    params = frozenset(form.params)
    n = len(form.params)
    values = tuple(float(v) for v in form.param_values)
    found: dict[sp.Expr, int] = {}
    if params and tuple(form.params) == tuple(param_symbol(k) for k in range(n)):
        for e in (form.f, form.df, *form.dparams):
            _collect(e, params, values, found)
    parts = ConstantParts(n, tuple(found))
    return apply(form, parts), parts


def apply(form: InternalForm, parts: ConstantParts) -> InternalForm:
    """``form`` (of the same constants as the one ``parts`` came from: the lowering
    with the constants' gradients) with ``parts`` replaced by their constants."""
    if not parts:
        return form
    mapping = dict(zip(parts.exprs, parts.symbols))
    sub = lambda e: e.xreplace(mapping)
    values = parts.values(np.array(form.param_values[: parts.n_constants], float))
    return replace(
        form,
        params=tuple(form.params) + parts.symbols,
        param_names=tuple(form.param_names)
        + tuple(f"(part {j})" for j in range(len(parts.exprs))),
        param_values=tuple(form.param_values) + tuple(float(v) for v in values),
        f=sub(form.f),
        df=sub(form.df),
        dparams=tuple(sub(d) for d in form.dparams)
        + (sp.Integer(0),) * len(parts.exprs),
    )
