"""PyTorch activation layers and loss objects in pasted code, read as their functions.

``nn.LeakyReLU(0.2)(x)`` is ``F.leaky_relu(x, 0.2)``, and a module that keeps its
activation as a submodule::

    class HSigmoid(nn.Module):
        def __init__(self, inplace=True):
            super().__init__()
            self.relu = nn.ReLU6(inplace=inplace)

        def forward(self, x):
            return self.relu(x + 3) / 6

reads ``self.relu(x + 3)`` as ``F.relu6(x + 3)``. The layer's constructor arguments
are the function's arguments after the input, in order (``inplace`` changes no value
and is dropped). Loss objects likewise: ``nn.HuberLoss(delta=0.5)(pred, target)``, or
``self.criterion = nn.MSELoss()`` then ``self.criterion(pred, target)``, is the loss
function (``foreign_losses.CLASSES``) with the object's keyword options. Layers
without a function here (``nn.PReLU``, a user's own class) are left to be refused by
name.
"""

from __future__ import annotations

import ast
import copy

from symnb.formula import foreign_losses
from symnb.formula.spellings import attribute_of, dotted
from symnb.formula.tensor_idioms import replace_calls

#: A layer class -> (its function, the names of its constructor's value arguments;
#: a name in ``_KEYWORD_ONLY`` is passed by keyword).
LAYERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ReLU": ("F.relu", ()),
    "ReLU6": ("F.relu6", ()),
    "LeakyReLU": ("F.leaky_relu", ("negative_slope",)),
    "ELU": ("F.elu", ("alpha",)),
    "CELU": ("F.celu", ("alpha",)),
    "SELU": ("F.selu", ()),
    "GELU": ("F.gelu", ("approximate",)),
    "SiLU": ("F.silu", ()),
    "Mish": ("F.mish", ()),
    "Softplus": ("F.softplus", ("beta", "threshold")),
    "Softsign": ("F.softsign", ()),
    "Tanhshrink": ("F.tanhshrink", ()),
    "Softshrink": ("F.softshrink", ("lambd",)),
    "Hardshrink": ("F.hardshrink", ("lambd",)),
    "Hardtanh": ("F.hardtanh", ("min_val", "max_val")),
    "Hardsigmoid": ("F.hardsigmoid", ()),
    "Hardswish": ("F.hardswish", ()),
    "LogSigmoid": ("F.logsigmoid", ()),
    "Threshold": ("F.threshold", ("threshold", "value")),
    "Sigmoid": ("torch.sigmoid", ()),
    "Tanh": ("torch.tanh", ()),
    "Identity": ("", ()),
}
_KEYWORD_ONLY = frozenset({"approximate"})
#: Keras's ``reduction`` values that average over the batch, as symnb does.
_KERAS_MEAN = frozenset({"sum_over_batch_size", "auto", "mean", "none"})
#: Module paths a layer class is spelled under.
_PREFIXES = frozenset({"nn", "torch.nn", "torch.nn.modules.activation"})

#: Set on a forward method copied with its submodule calls read (its returned
#: expression no longer matches the pasted text's columns).
REWRITTEN = "_symnb_rewritten"


def _layer(constructor: ast.AST) -> tuple[str, tuple[str, ...]] | None:
    """The table entry of ``nn.ReLU(...)`` (a constructor call), else None."""
    if not isinstance(constructor, ast.Call):
        return None
    path = dotted(constructor.func)
    if path is None:
        return None
    prefix, _, cls = path.rpartition(".")
    return LAYERS.get(cls) if prefix in _PREFIXES else None


def _loss(constructor: ast.AST) -> str | None:
    """The function of a loss object's class (``nn.MSELoss()``: ``F.mse_loss``;
    ``keras.losses.Huber()``), else None."""
    if not isinstance(constructor, ast.Call):
        return None
    path = dotted(constructor.func)
    return None if path is None else foreign_losses.CLASSES.get(path.rpartition(".")[2])


def _loss_call(function: str, constructor: ast.Call, call: ast.Call) -> ast.AST | None:
    """``nn.HuberLoss(delta=0.5)(pred, target)`` as ``F.huber_loss(pred, target,
    delta=0.5)``: the object's keyword options go to the function (its display
    ``name`` and Keras's default ``reduction`` change no value); positional options
    (PyTorch's legacy ``size_average``) are left to be refused with a hint."""
    if constructor.args:
        return None
    keywords = [
        k
        for k in constructor.keywords
        if k.arg is not None
        and k.arg != "name"
        and not (
            k.arg == "reduction"
            and isinstance(k.value, ast.Constant)
            and k.value.value in _KERAS_MEAN
        )
    ]
    return ast.Call(
        _dotted_name(function), list(call.args), [*keywords, *call.keywords]
    )


def _dotted_name(path: str) -> ast.expr:
    """``keras.losses.huber`` as an attribute chain of names."""
    first, *rest = path.split(".")
    node: ast.expr = ast.Name(first, ast.Load())
    for part in rest:
        node = ast.Attribute(node, part, ast.Load())
    return node


def _function_call(constructor: ast.Call, call: ast.Call) -> ast.AST | None:
    """``constructor(...)(call args)`` as its function's call, else None."""
    function = _loss(constructor)
    if function is not None:
        return _loss_call(function, constructor, call)
    entry = _layer(constructor)
    if entry is None or len(call.args) != 1 or call.keywords:
        return None
    function, names = entry
    if not function:  # nn.Identity
        return call.args[0]
    given = constructor.args[: len(names)]  # an extra positional one is inplace
    args = [call.args[0]]
    keywords = []
    for name, value in zip(names, given):
        if name in _KEYWORD_ONLY:
            keywords.append(ast.keyword(name, value))
        else:
            args.append(value)
    keywords += [
        k for k in constructor.keywords if k.arg in names and k.arg is not None
    ]
    return ast.Call(_dotted_name(function), args, keywords)


def rewrite(tree: ast.AST) -> ast.AST:
    """``tree`` with each ``nn.Layer(...)(x)`` as the layer's function call."""
    return replace_calls(
        tree,
        lambda node: (
            _function_call(node.func, node) if isinstance(node.func, ast.Call) else None
        ),
    )


def _submodules(cls: ast.ClassDef) -> dict[str, ast.Call]:
    """``self.name = nn.Layer(...)`` assignments of the class's ``__init__``."""
    found: dict[str, ast.Call] = {}
    for method in cls.body:
        if not (isinstance(method, ast.FunctionDef) and method.name == "__init__"):
            continue
        for stmt in method.body:
            if not isinstance(stmt, ast.Assign):
                continue
            for target in stmt.targets:
                attr = attribute_of(target)
                if attr is None:
                    continue
                if _layer(stmt.value) is not None or _loss(stmt.value):
                    found[attr] = stmt.value
                else:
                    found.pop(attr, None)
    return found


class _SubmoduleCalls(ast.NodeTransformer):
    def __init__(self, layers: dict[str, ast.Call]) -> None:
        self.layers = layers
        self.changed = False

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        attr = attribute_of(node.func)
        if attr in self.layers:
            new = _function_call(self.layers[attr], node)
            if new is not None:
                self.changed = True
                return ast.copy_location(new, node)
        return node


def with_submodule_calls(
    cls: ast.ClassDef, forward: ast.FunctionDef
) -> ast.FunctionDef:
    """``forward`` with its calls of layer submodules (``self.relu(x)``) read as
    functions: a copy marked :data:`REWRITTEN`, or ``forward`` itself when it
    calls none."""
    layers = _submodules(cls)
    if not layers:
        return forward
    visitor = _SubmoduleCalls(layers)
    new = visitor.visit(copy.deepcopy(forward))
    if not visitor.changed:
        return forward
    setattr(new, REWRITTEN, True)
    return new
