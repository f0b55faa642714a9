"""An activation or loss given as the Python object a user already has: a function,
a lambda, a module class, or a module instance with its current constants.

``symnb.Activation(my_swish)``, ``symnb.Activation(Swish(beta=1.5))``: the object's
source (``inspect.getsource``, which also finds functions defined in notebook
cells) is read as pasted code (:mod:`symnb.formula.python_code`); nothing of it runs.
A module instance also gives the values its constants have now: numbers and
one-element tensors in its ``__dict__``, parameters (learnable) and buffers, read from
the instance's own dictionaries (no attribute lookup, so no property runs).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

from symnb.errors import FormulaError
from symnb.formula.layer_objects import LAYERS


def is_code_object(value: Any) -> bool:
    """Whether ``value`` is a function, lambda, class or module instance to read, or
    a library's function (``torch.tanh``, ``F.silu``, ``np.tanh``, ``jax.nn.gelu``)."""
    if isinstance(value, (str, bytes)) or value is None:
        return False
    value = _unwrapped(value)
    if _library_function(value) is not None:
        return True
    if inspect.isfunction(value) or inspect.ismethod(value) or inspect.isclass(value):
        return True
    return any(callable(getattr(type(value), m, None)) for m in ("forward", "call"))


def read(value: Any) -> tuple[str, dict[str, tuple[float, bool]], str | None]:
    """(source text, {constant: (value, learnable)} of an instance, a name to show
    when the text has none) of ``value``."""
    value = _unwrapped(value)
    spelled = _library_function(value)
    if spelled is not None:
        return f"{spelled}(x)", {}, None
    layer = _library_layer(value)
    if layer is not None:  # nn.LeakyReLU(0.2): shown as LeakyReLU
        cls = type(value) if _is_instance(value) else value
        return layer, {}, cls.__name__
    target = value if not _is_instance(value) else type(value)
    if inspect.ismethod(target):
        target = target.__func__
    try:
        source = textwrap.dedent(inspect.getsource(target))
    except (OSError, TypeError):
        raise FormulaError(
            f"the source of {_label(value)} is not available (defined in an "
            "interactive shell, or built in)",
            suggestion="pass the formula as text, e.g. 'x*sigmoid(beta*x)'",
        ) from None
    if getattr(target, "__name__", "") == "<lambda>":
        source = _lambda_source(source, target)
    constants = _instance_constants(value) if _is_instance(value) else {}
    return source, constants, None


#: A library function's module -> the prefix formulas spell it with.
_FUNCTION_MODULES = (
    ("torch.nn.functional", "F"),
    ("torch._C._nn", "F"),
    ("torch._C._special", "torch.special"),
    ("torch.special", "torch.special"),
    ("torch", "torch"),
    ("numpy", "np"),
    ("scipy.special", "scipy.special"),
    ("jax._src.nn", "jax.nn"),
    ("jax.nn", "jax.nn"),
    ("jax.numpy", "jnp"),
    ("jax._src.numpy", "jnp"),
)


def _unwrapped(value: Any) -> Any:
    """The user's function inside ``np.vectorize(f)``: read as NumPy's own function
    named like ``f`` ("np.f has no symnb equivalent")."""
    cls = type(value)
    if cls.__module__ == "numpy" and cls.__name__ == "vectorize":
        return getattr(value, "pyfunc", value)
    return value


def _library_function(value: Any) -> str | None:
    """``F.silu`` for PyTorch's silu function object, ``np.tanh`` for NumPy's ufunc
    (a callable that is no class, from a library module), else None."""
    module = getattr(value, "__module__", None)
    name = getattr(value, "__name__", None)
    if not (isinstance(module, str) and isinstance(name, str)) or inspect.isclass(
        value
    ):
        return None
    for prefix, spelled in _FUNCTION_MODULES:
        if module == prefix or module.startswith(prefix + "."):
            return f"{spelled}.{name.removeprefix('special_')}"
    return None


#: Packages whose classes are not read from their source.
_LIBRARIES = (
    "torch.", "tensorflow.", "keras.", "jax.", "flax.", "numpy.", "scipy.", "sympy."
)  # fmt: skip


def _library_layer(value: Any) -> str | None:
    """``F.leaky_relu(x, negative_slope=0.2)`` for PyTorch's ``nn.LeakyReLU(0.2)``
    (an instance of an activation layer of :data:`layer_objects.LAYERS`, its options
    as the instance holds them), else None."""
    cls = type(value) if _is_instance(value) else value
    if not inspect.isclass(cls) or not cls.__module__.startswith(_LIBRARIES):
        return None
    if cls.__name__ not in LAYERS:
        raise FormulaError(
            f"{cls.__module__}.{cls.__name__} is a library's own class; symnb reads "
            "the source of functions and modules you wrote, and PyTorch's activation "
            f"layers ({', '.join(sorted(LAYERS)[:6])}, ...)",
            suggestion="pass its formula as text (nn.PReLU: "
            "'where(x > 0, x, a*x)' with a=symnb.learnable(0.25))",
        )
    function, names = LAYERS[cls.__name__]
    if not function:
        return "x"
    own = vars(value) if _is_instance(value) else {}
    options = [
        f"{name}={own[name]!r}"
        for name in names
        if name in own and isinstance(own[name], (int, float, str))
    ]
    return f"{function}({', '.join(['x', *options])})"


def _is_instance(value: Any) -> bool:
    return not (
        inspect.isfunction(value) or inspect.ismethod(value) or inspect.isclass(value)
    )


def _label(value: Any) -> str:
    name = getattr(value, "__qualname__", None) or type(value).__qualname__
    return repr(name)


def _lambda_source(source: str, fn: Any) -> str:
    """The one lambda of ``source`` (the lines that define it) with ``fn``'s
    parameters, as ``lambda x: ...`` text."""
    params = list(fn.__code__.co_varnames[: fn.__code__.co_argcount])
    for text in (source, source.strip().rstrip(",)")):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        found = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Lambda)
            and [a.arg for a in (*n.args.posonlyargs, *n.args.args)] == params
        ]
        if len(found) == 1:
            return ast.get_source_segment(text, found[0]) or ""
    raise FormulaError(
        "the lambda's source line holds no single lambda symnb can tell apart",
        suggestion="define it with def, or pass the formula as text",
    )


def _number(value: Any) -> float | None:
    """A plain number, or a tensor/array of one element, as a float."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not type(value).__module__.startswith(("torch", "numpy", "jax", "jaxlib")):
        return None  # only a library's tensors: no method of a user's object runs
    numel = getattr(value, "numel", None) or getattr(value, "size", None)
    try:
        count = numel() if callable(numel) else numel
        if count == 1:
            item = value.detach() if hasattr(value, "detach") else value
            return float(item.reshape(()).item() if hasattr(item, "reshape") else item)
    except (TypeError, ValueError, RuntimeError, AttributeError):
        return None
    return None


def _instance_constants(obj: Any) -> dict[str, tuple[float, bool]]:
    """The numbers an instance holds now: plain attributes, parameters (learnable),
    buffers; from its own dictionaries only."""
    found: dict[str, tuple[float, bool]] = {}
    own = vars(obj) if hasattr(obj, "__dict__") else {}
    for name, value in own.items():
        if name.startswith("_"):
            continue
        number = _number(value)
        if number is not None:
            learnable = bool(getattr(value, "requires_grad", False))
            found[name] = (number, learnable)
    for table, learnable in (("_parameters", True), ("_buffers", False)):
        for name, value in (own.get(table) or {}).items():
            number = None if value is None else _number(value)
            if number is not None:
                trainable = learnable and bool(getattr(value, "requires_grad", True))
                found[name] = (number, trainable)
    return found
