"""Tensor methods in pasted code, read as the functions they are.

Model code writes ``x.sigmoid()``, ``x.mul(torch.tanh(F.softplus(x)))``,
``F.relu6(x + 3.).div_(6.)``, ``x.clamp(min=0)``, ``x.pow(2)``, ``x.where(x > 0,
0.1 * x)``, ``x.masked_fill(x < 0, 0.)``. Each elementwise method is PyTorch's
function with the tensor as its first argument (``torch.sigmoid(x)``), and its
in-place twin (``mul_``, ``div_``, ``clamp_``) has the same value; they are rewritten
so before the formula is built, and the function's spelling is then read as if typed
(:mod:`symnb.formula.spellings`). Reductions (``x.mean()``, ``x.max()``), integer
casts and methods without an elementwise meaning are left alone, to be read or
refused by name as before.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container

from symnb.formula import spellings
from symnb.formula.tensor_idioms import replace_calls

#: Methods whose value is the tensor itself.
_SAME_VALUE = frozenset({"clone", "contiguous"})


def _torch(name: str) -> ast.Attribute:
    return ast.Attribute(ast.Name("torch", ast.Load()), name, ast.Load())


def _method(name: str, functions: Container[str]) -> str | None:
    """The function a tensor method ``name`` (or its in-place ``name_``) is."""
    for candidate in (name, name[:-1] if name.endswith("_") else None):
        if not candidate or candidate.startswith("_"):
            continue
        if candidate in _SAME_VALUE or candidate in ("where", "masked_fill"):
            return candidate
        if spellings.method_function(candidate, functions) is not None:
            return candidate
    return None


def _replacement(functions: Container[str]) -> Callable[[ast.Call], ast.AST | None]:
    def replace(node: ast.Call) -> ast.AST | None:
        func = node.func
        if not isinstance(func, ast.Attribute):
            return None
        receiver = func.value
        if spellings.split(func) is not None or (
            isinstance(receiver, ast.Name) and receiver.id in ("self", "cls")
        ):
            return None  # np.exp(x), torch.where(...), self.act(x): no methods
        name = _method(func.attr, functions)
        if name is None:
            return None
        if name in _SAME_VALUE:
            return receiver if not (node.args or node.keywords) else None
        if name == "where":  # x.where(condition, other) = where(condition, x, other)
            if len(node.args) != 2 or node.keywords:
                return None
            return ast.Call(_torch("where"), [node.args[0], receiver, node.args[1]], [])
        if name == "masked_fill":  # x.masked_fill(mask, value): value where mask
            if len(node.args) != 2 or node.keywords:
                return None
            return ast.Call(_torch("where"), [node.args[0], node.args[1], receiver], [])
        return ast.Call(_torch(name), [receiver, *node.args], list(node.keywords))

    return replace


def rewrite(tree: ast.AST, functions: Container[str]) -> ast.AST:
    """``tree`` with elementwise tensor methods as PyTorch function calls."""
    return replace_calls(tree, _replacement(functions))
