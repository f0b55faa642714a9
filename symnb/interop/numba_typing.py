"""A ``NumbaActivation`` inside ``numba.njit`` code: ``r.f(x)``, ``r.df(x)``,
``r.dconstants[k](x)``.

The object ``Activation.to_numba()`` returns is a Python dataclass; used in
``@njit`` code (as a global or passed as an argument), numba failed with "Untyped
global name 'r': Cannot determine Numba type of NumbaActivation", so only
``f = r.f`` taken outside the jitted function worked. Here the object gets a numba
type of its own (one per object: it holds the object, so its dispatchers are known
at typing time) whose attributes ``f``, ``df`` and ``dconstants`` type as the
dispatchers (a tuple of them for ``dconstants``). The value carries no data (the
dispatchers are compile-time constants), so it is a null pointer in compiled code.
CPU target only (``numba.njit``); for ``target="cuda"`` take ``f = r.f`` outside
the kernel.
"""

from __future__ import annotations

import warnings
from typing import Any

_REGISTERED: dict = {}


def register(cls: type) -> None:
    """Teach numba the type of ``cls`` instances (once per process)."""
    if cls in _REGISTERED:
        return
    from numba.core import cgutils, errors, types
    from numba.core.imputils import lower_constant, lower_getattr_generic
    from numba.core.typing.templates import AttributeTemplate, infer_getattr
    from numba.extending import (
        NativeValue,
        models,
        register_model,
        typeof_impl,
        unbox,
    )

    class ActivationType(types.Type):
        """One per object (it keeps the object alive, so its id names it)."""

        def __init__(self, obj: Any) -> None:
            self.obj = obj
            super().__init__(name=f"NumbaActivation({obj.target}, {id(obj):#x})")

    def attribute_type(typ: ActivationType, attr: str) -> Any:
        obj = typ.obj
        if attr in ("f", "df"):
            return types.Dispatcher(getattr(obj, attr))
        if attr == "dconstants":
            # Tuple() of dispatchers tries to unify them as first-class functions
            # and warns "First-class function type feature is experimental"; the
            # tuple is only indexed by constants here (each keeps its own type)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", errors.NumbaExperimentalFeatureWarning)
                return types.Tuple([types.Dispatcher(d) for d in obj.dconstants])
        return None

    @typeof_impl.register(cls)
    def _typeof(val: Any, c: Any) -> ActivationType:
        return ActivationType(val)

    register_model(ActivationType)(models.OpaqueModel)

    @unbox(ActivationType)
    def _unbox(typ: Any, obj: Any, c: Any) -> Any:
        return NativeValue(c.context.get_dummy_value())

    @lower_constant(ActivationType)
    def _constant(context: Any, builder: Any, ty: Any, pyval: Any) -> Any:
        return context.get_dummy_value()

    @infer_getattr
    class _Attributes(AttributeTemplate):
        key = ActivationType

        def generic_resolve(self, typ: Any, attr: str) -> Any:
            return attribute_type(typ, attr)

    @lower_getattr_generic(ActivationType)
    def _getattr(context: Any, builder: Any, typ: Any, value: Any, attr: str) -> Any:
        restype = attribute_type(typ, attr)
        if isinstance(restype, types.BaseTuple):
            items = [context.get_dummy_value() for _ in restype]
            return cgutils.make_anonymous_struct(builder, items)
        return context.get_dummy_value()

    _REGISTERED[cls] = ActivationType
