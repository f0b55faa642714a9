"""Parts of a form that depend only on its constants, computed once per call in float64.

A float32 kernel computed ``1 - t`` from the constant as float32 holds it: t = 0.99999999
rounds to 1.0 there, so ``(exp((1 - t)*x) - 1)/(1 - t)`` was 0/0 = NaN at every x
(the value is about x). :func:`hoist` replaces each largest input-free subexpression
of f and f' (``1 - t``, ``sqrt(beta)``, ``exp(k)``) by an extra constant symbol; the
kernel (``backends.kernel``) computes these parts from the constants' float64 values
(the values the user gave, or changed in place) whenever the constants change and
passes them after the constants, rounded to the kernel's dtype once. The per-element
code reads them like constants: also one computation per call, not one per element.

Hoisted: parts with a number plus a constant term or a function of constants
(:func:`_sensitive`); products, powers and ``|c|`` stay in the kernel (within a few
ulps either way). Not hoisted: reciprocals ``c**-n`` (their bases are: ``x/c``
stays a division, as ``x*(1/c)`` overflows where 1/c does and x/c does not), and
parts the float64 evaluator cannot compute (they stay in the kernel). Parts inside
conditions are hoisted too, so a condition and its branch see the same ``1 - t``.

Where the parts do not reach: the constants' gradients keep the cancellation of
their own forms (d/dt of the formula above is 0, not -x**2/2, in float32), the fused
training step (``codegen.train_step``), ``to_source`` headers (constants are
parameters of the header's real type) and ``to_jax`` (traced constants) compute
them in the dtype; ``interop.native`` leaves such kernels to the Kernel API.
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
    more than a few ulps: a number plus a constant term (``1 - t``: all of it at
    t = 0.99999999) or a function such as ``log(t)`` (0 at t = 1.0, -1e-8 at t).
    Products, powers and ``|c|`` of constants are within a few ulps either way, and
    hoisting them would only add constants (a PAU 5/4 had 70 such parts)."""
    for node in sp.preorder_traversal(e):
        if node.is_Add and any(a.is_Number for a in node.args):
            return True
        if isinstance(node, sp.Function) and not isinstance(node, _TAME):
            return True
    return False


def _hoistable(e: sp.Basic, params: frozenset) -> bool:
    if not isinstance(e, sp.Expr) or e.is_Atom or not _constant_only(e, params):
        return False
    if e.is_Pow and e.exp.is_Number and e.exp < 0:
        return False
    return _sensitive(e) and _evaluates(e, params)


def _evaluates(e: sp.Expr, params: frozenset) -> bool:
    """Whether the float64 evaluator computes ``e`` (a real number at 1.5)."""
    from symnb.backends.numpy_ import _lambdify

    args = tuple(param_symbol(k) for k in range(len(params)))
    try:
        with np.errstate(all="ignore"):
            v = _lambdify(e, args)(*[1.5] * len(args))
        float(v)
    except Exception:  # noqa: BLE001 - any failure: the part stays in the kernel
        return False
    return np.ndim(v) == 0 and not isinstance(v, complex)


def _collect(e: sp.Basic, params: frozenset, found: dict) -> None:
    if _hoistable(e, params):
        found.setdefault(e, len(found))
        return
    for a in e.args:
        if isinstance(a, sp.Basic):
            _collect(a, params, found)


def hoist(form: InternalForm) -> tuple[InternalForm, ConstantParts]:
    """``form`` with the input-free parts of f and f' (and the same parts in the
    constants' gradients) replaced by extra constants; the form's params, values and
    names gain them, its constants' gradients gain zeros for them."""
    params = frozenset(form.params)
    n = len(form.params)
    found: dict[sp.Expr, int] = {}
    if params and tuple(form.params) == tuple(param_symbol(k) for k in range(n)):
        for e in (form.f, form.df):
            _collect(e, params, found)
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
