"""Tensor idioms in pasted code that are no mathematics: dtype casts and constant tensors.

``x * (x > 0).float()``, ``(x > 0).to(x.dtype) * x``, ``torch.max(x,
torch.zeros_like(x))``, ``torch.heaviside(x, torch.tensor(0.5))``: a formula's values
are real numbers in the kernel's float type, so a cast to a float type is the value
itself and a constant tensor is its number. Read as such before the formula is built;
casts to integer types (which truncate) are left to be refused.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from symnb.formula import spellings

#: Tensor methods that cast to a float type without an argument.
_FLOAT_CASTS = frozenset({"float", "double", "half", "bfloat16"})
#: Tensor/array methods that cast to the type given as their one argument.
_CASTS_TO = frozenset({"to", "type", "astype", "type_as"})
#: Names of float types (``torch.float32``, ``np.float64``, ``'float32'``, ``float``).
_FLOAT_NAMES = frozenset(
    {"float", "double", "half", "float16", "float32", "float64", "bfloat16", "dtype"}
)
#: ``module.name(c)`` (or ``(E, c)`` for full_like): a constant tensor of value c.
_CONSTANT_OF = {
    "zeros_like": 0,
    "ones_like": 1,
    "full_like": None,  # the second argument
    "tensor": None,  # the first
    "as_tensor": None,
    "asarray": None,
    "array": None,
    "constant": None,
    "float32": None,
    "float64": None,
}


def _float_type(node: ast.AST) -> bool:
    """``x.dtype``, ``torch.float32``, ``np.float64``, ``float``, ``'float32'``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in _FLOAT_NAMES
    if isinstance(node, ast.Name):
        return node.id == "float"
    if isinstance(node, ast.Attribute):
        return node.attr in _FLOAT_NAMES
    return False


def _tensor(value: ast.AST) -> ast.AST:
    """``+value``: the number, marked as a tensor operand (``torch.max(x,
    torch.zeros_like(x))`` is elementwise; a bare number there is PyTorch's dim)."""
    return ast.UnaryOp(ast.UAdd(), value)


def _replacement(node: ast.Call) -> ast.AST | None:
    """What a cast or constant-tensor call stands for, else None."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return None
    parts = spellings.split(func)
    if parts is not None and parts[1] in _CONSTANT_OF:
        which = _CONSTANT_OF[parts[1]]
        if which is not None:
            return _tensor(ast.Constant(which)) if len(node.args) == 1 else None
        index = 1 if parts[1] == "full_like" else 0
        options = {k.arg for k in node.keywords} <= {"dtype", "device", "requires_grad"}
        if len(node.args) != index + 1 or not options:
            return None
        return _tensor(node.args[index])
    if parts is not None or node.keywords:
        return None
    if func.attr in _FLOAT_CASTS and not node.args:
        return _as_number(func.value)
    if func.attr in _CASTS_TO and len(node.args) == 1 and _float_type(node.args[0]):
        return _as_number(func.value)
    return None


def _as_number(value: ast.AST) -> ast.AST:
    """The cast value; a cast comparison (``(x > 0).float()``) is the number 1 where
    it holds and 0 elsewhere, a value wherever it stands (a ``where`` branch, a
    function's argument), not only as an operand of + - * / as a bare comparison."""
    logical = isinstance(value, (ast.Compare, ast.BoolOp)) or (
        isinstance(value, ast.BinOp) and isinstance(value.op, (ast.BitAnd, ast.BitOr))
    )
    if not logical:
        return value
    return ast.Call(
        ast.Name("where", ast.Load()), [value, ast.Constant(1), ast.Constant(0)], []
    )


def located(new: ast.AST, node: ast.AST) -> ast.AST:
    """``new`` with ``node``'s source position on each of its nodes that has none."""
    for sub in ast.walk(new):
        if not hasattr(sub, "lineno"):
            ast.copy_location(sub, node)
            sub.end_lineno = node.end_lineno
            sub.end_col_offset = node.end_col_offset
    return new


def replace_calls(
    tree: ast.AST, replacement: Callable[[ast.Call], ast.AST | None]
) -> ast.AST:
    """``tree`` with each call that ``replacement`` rewrites replaced, repeatedly
    (``x.float().float()``), then its parts; iteratively, top down (a flat chain of
    2000 terms is no recursion)."""

    def replaced(node: ast.AST) -> ast.AST:
        while isinstance(node, ast.Call):
            new = replacement(node)
            if new is None:
                break
            node = located(new, node)
        return node

    todo = [tree]
    while todo:
        node = todo.pop()
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                new = replaced(value)
                if new is not value:
                    setattr(node, field, new)
                todo.append(new)
            elif isinstance(value, list):
                items = [replaced(v) if isinstance(v, ast.AST) else v for v in value]
                setattr(node, field, items)
                todo.extend(v for v in items if isinstance(v, ast.AST))
    return tree


def rewrite(tree: ast.AST) -> ast.AST:
    """``tree`` with float casts dropped and constant tensors as their numbers."""
    return replace_calls(tree, _replacement)
