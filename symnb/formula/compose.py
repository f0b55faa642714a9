"""Activations used as functions inside formulas: ``gelu(x) + silu(x)``, ``mish(2*x)``.

Which names a formula may call, besides the built-in functions of
``symnb.formula.functions.ALLOWED_FUNCTIONS`` (which keep their meaning):

- every library activation, with its default constants (``leaky_relu(x)`` has slope 0.01);
- every activation the user defined with a name (``symnb.Activation(..., name="bump")`` or
  a ``%%symact`` cell), with the constant values it was defined with. Defining a name again
  replaces it for later formulas;
- a declared constant or variable of the formula wins over an activation of the same name.

A user definition under a library name must be the library's function (for the values
given: ``Activation("x*sigmoid(beta*x)", name="swish", beta=2.0)`` is fine, and later
formulas' ``swish`` stays the library's); a different function under that name is a
``FormulaError`` unless ``replace=True`` says it should replace the library's meaning in
later formulas. Built-in function names (``exp``, ``where``, ...) cannot be replaced.

How a call is built: an activation without steps becomes a SymPy function whose derivative
is the activation's own (stable forms, kink conventions, ``derivative=...`` kept); it is
inlined after differentiation, so code generation sees only allowed functions. An
activation with steps (``sign``, ``heaviside``, ``floor``) is inlined at once, so the
surrogate rule (``symnb.formula.steps``) sees the whole formula.
"""

from __future__ import annotations

import math
import re
import threading
import weakref
from collections.abc import Mapping
from typing import Any

import sympy as sp
from sympy.core.evalf import prec_to_dps

from symnb.checks import is_formula_name
from symnb.errors import FormulaError
from symnb.forksafe import module_lock
from symnb.formula import library
from symnb.formula.functions import ALLOWED_CONSTANTS, ALLOWED_FUNCTIONS
from symnb.formula.internal import X

_STEPS = (sp.sign, sp.Heaviside, sp.floor, sp.ceiling, sp.frac)
#: Points where a user definition is compared with the library function of its name.
_PROBES = (-3.7, -1.3, -0.4, 0.0, 0.3, 0.9, 1.7, 2.9, 5.3)

_lock = module_lock(globals(), "_lock", threading.Lock)  # see symnb.forksafe
_user: dict[str, Any] = {}  # name -> Activation, in definition order
_library_cache: dict[str, Any] = {}
# activation -> its caller; weak, so the (unpicklable) generated classes stay out of the
# Activation objects themselves
_callers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class ComposedFunction(sp.Function):
    """A named activation called inside a formula; :func:`expand_composed` inlines it."""

    nargs = 1
    _definition: sp.Expr = sp.S.Zero  # in terms of X, constants substituted
    _derivative: sp.Expr = sp.S.Zero

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return self._derivative.xreplace({X: self.args[0]})

    def expand_definition(self) -> sp.Expr:
        return self._definition.xreplace({X: self.args[0]})

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_evalf(self, prec):
        return self.expand_definition().evalf(prec_to_dps(prec))


def _values(act: Any) -> dict[sp.Symbol, sp.Expr]:
    form = act.internal
    return {p: sp.Float(v) for p, v in zip(form.params, form.param_values)}


def _caller(act: Any):
    """The callable a formula uses for ``name(u)`` (made once per activation object)."""
    cached = _callers.get(act)
    if cached is None:
        cached = _callers[act] = _make_caller(act)
    return cached


def _make_caller(act: Any):
    form = act.internal
    values = _values(act)
    definition = form.f.xreplace(values)
    if definition.has(*_STEPS):

        def inline_now(u: sp.Expr) -> sp.Expr:
            return definition.xreplace({X: u})

        return inline_now
    cls = type(
        act.name,
        (ComposedFunction,),
        {"_definition": definition, "_derivative": form.df.xreplace(values)},
    )
    return cls


def library_activation(name: str) -> Any:
    """The library activation ``name`` with its defaults (built once, then cached)."""
    act = _library_cache.get(name)
    if act is None:
        from symnb.formula.formula import activation

        act = activation(name)
        _library_cache[name] = act
    return act


class _LibraryCall:
    """Builds a library activation only when a formula calls it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *args: sp.Expr) -> sp.Expr:
        if len(args) != 1:
            raise TypeError(f"{self.name} takes 1 argument ({len(args)} given)")
        return _caller(library_activation(self.name))(args[0])


def library_name(fn: Any) -> str | None:
    """The library activation name of a function-table entry, None for any other."""
    return fn.name if isinstance(fn, _LibraryCall) else None


_LIBRARY_CALLS = {
    name: _LibraryCall(name)
    for name in library.ACTIVATIONS
    if name not in ALLOWED_FUNCTIONS
}


def function_table(
    exclude: set[str] | frozenset[str] = frozenset(),
    users: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Every function a formula may call: built-ins, library and user activations.

    Names in ``exclude`` (the formula's own constants and variables) are left out unless
    they are built-in functions. ``users`` replaces the registry (a formula's own snapshot,
    so that ``with_constants`` reads the text with the definitions it was built with).
    """
    table: dict[str, Any] = dict(ALLOWED_FUNCTIONS)
    for name, call in _LIBRARY_CALLS.items():
        if name not in exclude:
            table[name] = call
    for name, act in (registered() if users is None else users).items():
        if name not in exclude or name in ALLOWED_FUNCTIONS:
            table[name] = _caller(act)
    return table


def display_form(expr: sp.Expr) -> sp.Expr:
    """The composed calls as plain named SymPy functions: for LaTeX, and picklable."""
    if not expr.has(ComposedFunction):
        return expr
    return expr.replace(
        lambda e: isinstance(e, ComposedFunction),
        lambda e: sp.Function(type(e).__name__, real=True)(*e.args),
    )


def expand_composed(expr: sp.Expr) -> sp.Expr:
    """Replace every composed activation call by its definition (codegen sees no names)."""
    if not expr.has(ComposedFunction):
        return expr
    return expr.replace(
        lambda e: isinstance(e, ComposedFunction), lambda e: e.expand_definition()
    )


# ---------------------------------------------------------------- registration


def _number(expr: sp.Expr, v: float) -> complex | None:
    try:
        z = complex(sp.N(expr.xreplace({X: sp.Float(v)}), 20))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None
    return z if all(map(math.isfinite, (z.real, z.imag))) else None


def _same_function(a: sp.Expr, b: sp.Expr) -> bool:
    """a and b (in X, constants substituted) agree at the probe points."""
    if a == b:
        return True
    for v in _PROBES:
        za, zb = _number(a, v), _number(b, v)
        if (za is None) != (zb is None):
            return False
        if za is not None and abs(za - zb) > 1e-9 * max(1.0, abs(za), abs(zb)):
            return False
    return True


def _library_counterpart(name: str, act: Any) -> sp.Expr | None:
    """The library's (or built-in's) function of that name, with the user's values."""
    if name in library.ACTIVATIONS:
        entry = library.ACTIVATIONS[name]
        mine = dict(zip(act.internal.param_names, act.internal.param_values))
        shared = {k: mine[k] for k in entry.constants if k in mine}
        lib = library_activation(name)
        if shared:
            lib = lib.with_constants(**shared)
        return lib.internal.f.xreplace(_values(lib))
    fn = ALLOWED_FUNCTIONS.get(name)
    if fn is None:
        return None
    try:
        return fn(X)
    except Exception:  # noqa: BLE001 - needs more arguments (where, Piecewise)
        return None


def register(act: Any, replace: bool = False) -> None:
    """Make a named user activation callable in later formulas (see the module docstring).

    Raises ``FormulaError`` when the name is a library or built-in name for a different
    function and ``replace`` is not set.
    """
    name = act.name
    if not is_formula_name(name):
        return  # a display name only: formulas cannot call it
    if name.startswith("_"):
        return
    if name in ALLOWED_CONSTANTS:
        raise FormulaError(
            f"activation name {name!r} is a named constant of formulas",
            suggestion="choose another name",
        )
    is_library = name in library.ACTIVATIONS
    is_builtin = name in ALLOWED_FUNCTIONS and not is_library
    if is_library or is_builtin:
        mine = act.internal.f.xreplace(_values(act))
        theirs = _library_counterpart(name, act)
        if not replace and theirs is not None and _same_function(mine, theirs):
            return  # the library's function: its name keeps the library's meaning
        if is_builtin:
            raise FormulaError(
                f"activation name {name!r} is a built-in function of formulas and this "
                "formula is a different function",
                suggestion=f"choose another name, e.g. my_{name}",
            )
        if not replace:
            raise FormulaError(
                f"activation name {name!r} shadows the library activation {name!r} "
                "with a different function",
                suggestion=f"choose another name (e.g. my_{name}), or pass "
                f"replace=True to use your {name} in later formulas",
            )
    with _lock:
        _user.pop(name, None)
        _user[name] = act


def used_names(text: str, users: Mapping[str, Any]) -> dict[str, Any]:
    """The user activations that ``text`` calls (by name), for a formula's snapshot."""
    # a name starts where no word character precedes it: one try per word, so linear
    # (without the lookbehind, 'aaaa...' retried every suffix: 86 s for 100,000 a's)
    called = set(re.findall(r"(?<!\w)([A-Za-z_]\w*)\s*\(", text))
    return {n: a for n, a in users.items() if n in called}


def registered() -> dict[str, Any]:
    """The user activations formulas can call, by name (a copy)."""
    with _lock:
        return dict(_user)


def unregister(name: str) -> None:
    """Forget a user activation name (formulas fall back to the library's, if any)."""
    with _lock:
        _user.pop(name, None)


def clear() -> None:
    """Forget every user activation name."""
    with _lock:
        _user.clear()


__all__ = [
    "ComposedFunction",
    "clear",
    "expand_composed",
    "function_table",
    "library_activation",
    "library_name",
    "register",
    "registered",
    "unregister",
]
