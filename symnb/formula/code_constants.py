"""The name and constants that pasted Python code declares for its formula.

``def my_swish(x, beta=1.0): return x*torch.sigmoid(beta*x)`` declares the constant
``beta = 1.0`` and the name ``my_swish``; a module class declares its constants in
``__init__`` (``self.beta = beta`` with ``beta=1.0`` a default, ``self.a =
nn.Parameter(torch.tensor(0.25))`` a learnable one, Keras's ``self.add_weight(...,
initializer=Constant(0.25))``). Without this, pasting a module asked the user to type
each constant again, and a value they forgot was an "unknown symbol" error.

Only numbers are read (literals, a default's value, ``torch.tensor(v)``,
``torch.full(shape, v)``, ``v * torch.ones(...)``); nothing is evaluated. A constant is
declared only when the returned expression uses it, so ``inplace=False`` or ``dim=-1``
are not constants.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

from symnb.formula import python_code
from symnb.formula.inline_locals import is_parameter_call
from symnb.formula.spellings import attribute_of, call_name

#: Calls whose value is their (only) numeric argument: tensor and array constructors.
_WRAPPERS = frozenset(
    {"tensor", "as_tensor", "asarray", "array", "constant", "float", "float32",
     "float64", "Tensor", "FloatTensor", "DoubleTensor", "convert_to_tensor",
     "cast_to_floatx", "cast", "variable"}
)  # fmt: skip
#: Calls that fill a shape with one value (their value is the fill value).
_FILLS = {"ones": 1.0, "zeros": 0.0, "ones_like": 1.0, "zeros_like": 0.0}
#: Calls that make their argument trainable (PyTorch, TensorFlow, Flax/Haiku-free).
_TRAINABLE = frozenset({"Parameter", "Variable"})
#: Keras initializers by name, as strings or classes.
_INITIALIZERS = {"ones": 1.0, "zeros": 0.0, "Ones": 1.0, "Zeros": 0.0}


@dataclass(frozen=True)
class Declared:
    """What pasted code declares: its name (None for a method or an unnamed
    lambda) and its constants, each ``(value, learnable)``."""

    name: str | None
    constants: dict[str, tuple[float, bool]] = field(default_factory=dict)
    #: the names the returned formula reads (``self.beta`` as ``beta``)
    used: frozenset[str] = frozenset()


def declared(text: str, n_inputs: int = 1) -> Declared | None:
    """The name and constants of ``text`` when it is one pasted function, lambda or
    class (see :mod:`symnb.formula.python_code`), else None. ``n_inputs``: the
    parameters that are the formula's inputs (1 for an activation, 2 for a loss)."""
    node = python_code.pasted_statement(text)
    if node is None:
        return None
    try:
        if isinstance(node, ast.ClassDef):
            return class_declared(node, n_inputs)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return function_declared(node, n_inputs)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            target = node.targets[0]
            name = target.id if isinstance(target, ast.Name) else None
            return _from_signature(name, node.value.args, node.value.body, n_inputs)
    except RecursionError:
        return None
    return None


def function_declared(
    node: ast.FunctionDef | ast.AsyncFunctionDef, n_inputs: int = 1
) -> Declared | None:
    """A pasted function's name and the numeric defaults its return uses."""
    try:
        returned = python_code.single_return(node)
    except python_code.CodeProblem:
        return None  # the formula's reading reports it
    name = None if node.name in python_code.FORWARD_METHODS else node.name
    found = _from_signature(name, node.args, returned, n_inputs)
    return Declared(
        found.name, {**found.constants, **_local_parameters(node)}, _used(returned)
    )


def class_declared(node: ast.ClassDef, n_inputs: int = 1) -> Declared | None:
    """A module class's name and the constants its forward reads as ``self.name``:
    assigned in ``__init__`` (or Keras's ``build``) from numbers, from the defaults of
    ``__init__``'s parameters, or as trainable parameters/weights."""
    methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
    try:
        forward = python_code.forward_method(node)
        returned = python_code.single_return(forward)
    except python_code.CodeProblem:
        return None  # the formula's reading reports it
    used = {attribute_of(n) for n in ast.walk(returned)} - {None}
    attributes = _class_fields(node)  # Flax's `beta: float = 1.0`
    for method in ("__init__", "setup", "build"):
        if method in methods:
            attributes.update(_assigned_attributes(methods[method], attributes))
    constants = {k: v for k, v in attributes.items() if k in used}
    # the forward's own numeric defaults (forward(self, x, mu=0.7)) are constants too
    own = _from_signature(None, forward.args, returned, n_inputs).constants
    return Declared(
        node.name,
        {**constants, **own, **_local_parameters(forward)},
        _used(returned),
    )


def _used(returned: ast.expr) -> frozenset[str]:
    """Names and ``self.`` attributes the returned formula reads."""
    nodes = list(ast.walk(returned))
    names = {n.id for n in nodes if isinstance(n, ast.Name)}
    return frozenset(names | ({attribute_of(n) for n in nodes} - {None}))


def _class_fields(node: ast.ClassDef) -> dict[str, tuple[float, bool]]:
    """Numbers assigned in a class body (``beta: float = 1.0``: a Flax or dataclass
    field, read in the call as ``self.beta``)."""
    found: dict[str, tuple[float, bool]] = {}
    for stmt in node.body:
        target = (
            stmt.target
            if isinstance(stmt, ast.AnnAssign)
            else stmt.targets[0]
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            else None
        )
        if isinstance(target, ast.Name) and stmt.value is not None:
            value = _number(stmt.value, {})
            if value is not None:
                found[target.id] = (value, False)
    return found


def _local_parameters(fn: ast.FunctionDef) -> dict[str, tuple[float, bool]]:
    """Parameters created in the call itself, by the name they are assigned to:
    Flax's ``beta = self.param("beta", nn.initializers.constant(1.0), ())``,
    Haiku's ``hk.get_parameter("beta", [], init=hk.initializers.Constant(1.0))``."""
    found: dict[str, tuple[float, bool]] = {}
    for stmt in fn.body:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and is_parameter_call(stmt.value)
        ):
            continue
        call = stmt.value
        init = _keyword(call, ("init", "initializer"))
        if init is None and call_name(call) == "param" and len(call.args) >= 2:
            init = call.args[1]
        if init is None and call_name(call) == "get_parameter" and len(call.args) >= 4:
            init = call.args[3]
        value = _initializer(init, {})
        if value is not None:
            found[stmt.targets[0].id] = (value, True)
    return found


def _from_signature(
    name: str | None, args: ast.arguments, returned: ast.expr, n_inputs: int
) -> Declared:
    """The numeric defaults of ``args`` (after ``self`` and the inputs) that
    ``returned`` reads by name."""
    params, defaults = python_code.parameter_defaults(args)
    inputs = set(params[:n_inputs])
    used = {n.id for n in ast.walk(returned) if isinstance(n, ast.Name)}
    constants = {}
    for param, default in defaults.items():
        value = _number(default, {})
        if param in used and param not in inputs and value is not None:
            constants[param] = (value, False)
    return Declared(name, constants)


def _assigned_attributes(
    method: ast.FunctionDef, known: dict[str, tuple[float, bool]]
) -> dict[str, tuple[float, bool]]:
    """``self.name = <number>`` assignments of ``method`` (in order; a local name,
    a parameter with a numeric default or an attribute in ``known`` may stand for
    the number)."""
    env: dict[str, float] = {f"self.{k}": v for k, (v, _) in known.items()}
    _, defaults = python_code.parameter_defaults(method.args)
    for param, default in defaults.items():
        value = _number(default, {})
        if value is not None:
            env[param] = value
    found: dict[str, tuple[float, bool]] = {}
    for stmt in method.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            buffer = _registered_buffer(stmt.value, env)  # register_buffer("a", ...)
            if buffer is not None:
                found[buffer[0]] = buffer[1]
            continue
        if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = _declared_value(stmt.value, env)
        for target in targets:
            attr = attribute_of(target)
            if attr is not None:
                if value is None:
                    found.pop(attr, None)  # reassigned to something else
                    env.pop(f"self.{attr}", None)
                else:
                    found[attr] = value
                    env[f"self.{attr}"] = value[0]
            elif isinstance(target, ast.Name):
                if value is None or value[1]:
                    env.pop(target.id, None)
                else:
                    env[target.id] = value[0]
    return found


def _registered_buffer(
    call: ast.Call, env: dict[str, float]
) -> tuple[str, tuple[float, bool]] | None:
    """``self.register_buffer("a", torch.tensor(0.5))``: ("a", (0.5, False))."""
    if not (
        call_name(call) == "register_buffer"
        and len(call.args) >= 2
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    ):
        return None
    value = _number(call.args[1], env)
    return None if value is None else (call.args[0].value, (value, False))


def _declared_value(node: ast.expr, env: dict[str, float]) -> tuple[float, bool] | None:
    """(value, learnable) of an assigned expression, or None."""
    called = call_name(node)
    value = None
    if called in _TRAINABLE and node.args:
        value = _number(node.args[0], env)
    elif called == "add_weight":  # Keras
        value = _initializer(_keyword(node, ("initializer",)), env)
    if called in _TRAINABLE or called == "add_weight":
        off = _keyword(node, ("requires_grad", "trainable"))
        frozen = isinstance(off, ast.Constant) and off.value is False
        return None if value is None else (value, not frozen)
    value = _number(node, env)
    return None if value is None else (value, False)


def _initializer(node: ast.expr | None, env: dict[str, float]) -> float | None:
    """A Keras initializer's constant: ``Constant(0.25)``, ``constant_initializer
    (0.25)``, ``"ones"``, ``"zeros"``."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _INITIALIZERS.get(node.value)
    if isinstance(node, (ast.Attribute, ast.Name)):  # nn.initializers.ones
        return _INITIALIZERS.get(
            node.attr if isinstance(node, ast.Attribute) else node.id
        )
    if isinstance(node, ast.Call):
        called = call_name(node)
        if called in ("Constant", "constant_initializer", "constant"):
            arg = node.args[0] if node.args else _keyword(node, ("value",))
            return None if arg is None else _number(arg, env)
        if called in _INITIALIZERS and not node.args:
            return _INITIALIZERS[called]
    return None


def _number(node: ast.expr, env: dict[str, float], depth: int = 0) -> float | None:
    """The finite number ``node`` stands for, or None (nothing is evaluated)."""
    if depth > 20:
        return None
    value: float | None = None
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            try:
                value = float(v)
            except OverflowError:
                return None
    elif isinstance(node, ast.Name):
        value = env.get(node.id)
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        value = env.get(f"{node.value.id}.{node.attr}")  # self.beta assigned before
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _number(node.operand, env, depth + 1)
        if inner is not None:
            value = -inner if isinstance(node.op, ast.USub) else inner
    elif isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == 1:
        value = _number(node.elts[0], env, depth + 1)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        left = _number(node.left, env, depth + 1)
        right = _number(node.right, env, depth + 1)
        if left is not None and right is not None:
            if isinstance(node.op, ast.Mult):
                value = left * right
            elif right != 0:
                value = left / right
    elif isinstance(node, ast.Call):
        called = call_name(node)
        if called in _FILLS:
            value = _FILLS[called]
        elif called in ("full", "full_like") and len(node.args) >= 2:
            value = _number(node.args[1], env, depth + 1)
        elif called in ("full", "full_like"):
            fill = _keyword(node, ("fill_value",))
            value = None if fill is None else _number(fill, env, depth + 1)
        elif called == "fill_" and len(node.args) == 1:  # torch.empty(n).fill_(v)
            value = _number(node.args[0], env, depth + 1)
        elif called in _WRAPPERS:
            arg = node.args[0] if node.args else _keyword(node, ("data", "value"))
            value = None if arg is None else _number(arg, env, depth + 1)
    if value is None or not math.isfinite(value):
        return None
    return value


def _keyword(call: ast.Call, names: tuple[str, ...]) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg in names), None)
