"""A loss pasted with its batch mean: ``torch.mean((y_pred - y_true)**2)``.

symnb averages a loss over the batch itself, so a loss formula written as the mean of
a per-element formula (``torch.mean``, ``jnp.mean``, ``np.mean``, ``tf.reduce_mean``,
``K.mean(..., axis=-1)``, ``(...).mean()``) is that per-element formula. The mean is
linear, so sums, differences and constant multiples of means are read too
(``0.5*torch.mean(a) + torch.mean(b)`` is the per-element ``0.5*a + b``). A mean under
anything else (``sqrt(torch.mean(...))``, an RMSE; ``torch.mean(a)*y_true``) is no
per-element loss and is refused, as before, with the reason.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from symnb.formula import spellings

#: Mean reductions, by name: ``module.name(E)`` with the module one of
#: :data:`spellings.MODULES`, ``mean(E)`` and the tensor method ``E.mean()``.
_MEANS = frozenset({"mean", "reduce_mean", "average"})

#: Keywords of those reductions that do not change a mean of equal-length rows.
_AXES = frozenset({"axis", "dim", "keepdim", "keepdims"})


def _mean_argument(node: ast.AST) -> ast.AST | None:
    """The argument E of a mean call ``node`` (``torch.mean(E)``, ``E.mean()``),
    else None (not a mean, or one with weights or other options)."""
    if not isinstance(node, ast.Call):
        return None
    if any(k.arg not in _AXES for k in node.keywords):
        return None  # np.average(E, weights=w), torch.mean(E, dtype=...)
    func = node.func
    if isinstance(func, ast.Name):
        return node.args[0] if func.id == "mean" and len(node.args) == 1 else None
    if not isinstance(func, ast.Attribute) or func.attr not in _MEANS:
        return None
    parts = spellings.split(func)
    if parts is not None:  # torch.mean(E, dim=-1); np.mean(E, 1)
        return node.args[0] if 1 <= len(node.args) <= 2 else None
    axis_only = not node.args or (
        len(node.args) == 1 and isinstance(_unsigned(node.args[0]), ast.Constant)
    )
    if func.attr == "mean" and axis_only:  # (E).mean(), y_pred.mean(-1)
        return func.value
    return None


def _unsigned(node: ast.AST) -> ast.AST:
    """``-1`` as its number node."""
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return node


def strip(
    tree: ast.AST,
    is_variable: Callable[[str], bool],
    refuse: Callable[[ast.AST, str, str], Exception],
) -> ast.AST:
    """``tree`` with its batch means replaced by their arguments where they stand in a
    linear position; ``refuse(node, message, hint)`` builds the error for one that
    does not. ``is_variable(name)``: whether a name is y_pred/y_true (or an alias)."""

    def constant(node: ast.AST) -> bool:
        return not any(
            (isinstance(n, ast.Name) and is_variable(n.id))
            or _mean_argument(n) is not None
            for n in ast.walk(node)
        )

    def walk(node: ast.AST, linear: bool) -> ast.AST:
        inner = _mean_argument(node)
        if inner is not None:
            if not linear:
                raise refuse(
                    node,
                    "a batch mean inside this formula makes it no per-sample loss "
                    "(symnb averages a per-sample loss over the batch itself)",
                    "write the per-element formula, e.g. (y_pred - y_true)**2 for "
                    "torch.mean((y_pred - y_true)**2); an RMSE is no mean: train on "
                    "the MSE",
                )
            return walk(inner, True)
        if isinstance(node, ast.BinOp):
            op = node.op
            left_linear = right_linear = False
            if isinstance(op, (ast.Add, ast.Sub)):
                left_linear = right_linear = linear
            elif isinstance(op, ast.Mult):
                left_linear = linear and constant(node.right)
                right_linear = linear and constant(node.left)
            elif isinstance(op, ast.Div):
                left_linear = linear and constant(node.right)
            return ast.copy_location(
                ast.BinOp(
                    walk(node.left, left_linear), op, walk(node.right, right_linear)
                ),
                node,
            )
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return ast.copy_location(
                ast.UnaryOp(node.op, walk(node.operand, linear)), node
            )
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                setattr(node, field, walk(value, False))
            elif isinstance(value, list):
                setattr(
                    node,
                    field,
                    [walk(v, False) if isinstance(v, ast.AST) else v for v in value],
                )
        return node

    if not any(_mean_argument(n) is not None for n in ast.walk(tree)):
        return tree  # (no recursion into a long formula without means)
    return walk(tree, True)
