"""A pasted function's local assignments put into the expression it returns.

Code from a model names its intermediate values::

    def forward(self, x):
        gate = torch.sigmoid(self.beta * x)
        x = x * gate
        return x

is the formula ``x * torch.sigmoid(self.beta * x)``. Each assignment's right-hand side
is read with the names assigned before it, so a reassigned input (``x = x * gate``)
means what Python means. Only straight-line code is read: assignments to names
(``a = b = ...``, ``y: float = ...``, ``y += ...``), ``pass`` and a docstring, then one
``return``. Anything else (``if``, loops, tuple unpacking, ``del``) is refused, naming
the statement and its line, since it is not one expression.
"""

from __future__ import annotations

import ast
import copy

#: Most AST nodes the returned expression may grow to once the assignments are put in
#: (each use of a name copies its expression: ``y = x*x`` twenty times is 2**20).
MAX_INLINED_NODES = 20_000

_WHAT = {
    ast.If: "an 'if' statement",
    ast.For: "a 'for' loop",
    ast.While: "a 'while' loop",
    ast.With: "a 'with' block",
    ast.Try: "a 'try' block",
    ast.Delete: "a 'del' statement",
    ast.Raise: "a 'raise' statement",
    ast.Assert: "an 'assert' statement",
    ast.Import: "an import",
    ast.ImportFrom: "an import",
    ast.FunctionDef: "a nested function",
    ast.Global: "a 'global' statement",
    ast.Nonlocal: "a 'nonlocal' statement",
}


#: Calls that create a trainable parameter inside a module's call (Flax's
#: ``self.param``, Haiku's ``hk.get_parameter``, Keras's ``add_weight``): the name
#: assigned from one is a constant of the formula (its value comes from the
#: initializer: symnb.formula.code_constants).
PARAMETER_CALLS = frozenset({"param", "get_parameter", "add_weight"})


class Unreadable(Exception):
    """The body is not straight-line code ending in one ``return``; the message says
    which statement and where (``lineno``: its line in the pasted text)."""

    def __init__(self, message: str, lineno: int, col_offset: int) -> None:
        super().__init__(message)
        self.lineno, self.col_offset = lineno, col_offset


def body_without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` without a leading docstring."""
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[1:]
    return list(body)


def returned_formula(name: str, body: list[ast.stmt]) -> ast.expr | None:
    """The expression function ``name`` returns with its local assignments put in:
    the ``return`` node's own expression when there are none (its columns still
    point into the pasted text). :class:`Unreadable`, with the reason and line, for
    a body that is not straight-line assignments ending in ``return <expression>``."""
    statements = body_without_docstring(body)
    if not statements or not (
        isinstance(statements[-1], ast.Return) and statements[-1].value is not None
    ):
        last = statements[-1] if statements else None
        raise Unreadable(
            f"function {name} does not end in 'return <expression>': a formula is "
            "the one expression it returns",
            getattr(last, "lineno", 1),
            getattr(last, "col_offset", 0),
        )
    if len(statements) == 1:
        return statements[0].value
    env: dict[str, ast.expr] = {}
    for stmt in statements[:-1]:
        _assign(name, stmt, env)
    result = _put_in(statements[-1].value, env)
    try:
        size = _size(result)
    except RecursionError:
        raise Unreadable(
            f"function {name}'s assignments nest its formula too deeply",
            statements[-1].lineno,
            statements[-1].col_offset,
        ) from None
    if size > MAX_INLINED_NODES:
        raise Unreadable(
            f"function {name}'s assignments expand to a formula of {size:,} parts "
            f"(at most {MAX_INLINED_NODES:,}): each use of a name repeats its "
            "expression",
            statements[-1].lineno,
            statements[-1].col_offset,
        )
    return result


def _assign(name: str, stmt: ast.stmt, env: dict[str, ast.expr]) -> None:
    """Record one statement's assignment in ``env`` (or refuse it)."""
    if isinstance(stmt, ast.Pass) or (
        isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
    ):
        return  # pass, a string or number standing alone
    if isinstance(stmt, ast.Assign) and all(
        isinstance(t, ast.Name) for t in stmt.targets
    ):
        if is_parameter_call(stmt.value) and len(stmt.targets) == 1:
            env.pop(stmt.targets[0].id, None)  # the constant of that name
            return
        value = _put_in(stmt.value, env)
        for target in stmt.targets:
            env[target.id] = value
        return
    if (
        isinstance(stmt, ast.AnnAssign)
        and isinstance(stmt.target, ast.Name)
        and stmt.value is not None
    ):
        env[stmt.target.id] = _put_in(stmt.value, env)
        return
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        current = env.get(stmt.target.id, ast.Name(stmt.target.id, ast.Load()))
        shared = [n for n, v in env.items() if v is current and n != stmt.target.id]
        if isinstance(current, ast.Name) and current.id != stmt.target.id:
            shared.append(current.id)  # y = x; y += 1 changes x too
        if shared:
            # a tensor's `s += 1` changes it in place, for every name that holds it
            raise Unreadable(
                f"function {name} updates {stmt.target.id} in place, and "
                f"{shared[0]} also holds that value (PyTorch and NumPy change both): "
                f"write {stmt.target.id} = {stmt.target.id} + ... if only "
                f"{stmt.target.id} should change",
                stmt.lineno,
                stmt.col_offset,
            )
        env[stmt.target.id] = ast.BinOp(current, stmt.op, _put_in(stmt.value, env))
        return
    if isinstance(stmt, ast.Return):
        what = "a 'return' before its last line"
    elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        what = "an assignment to something other than a name (unpacking, an attribute)"
    else:
        what = _WHAT.get(type(stmt), f"a {type(stmt).__name__} statement")
    raise Unreadable(
        f"function {name} has {what}: a formula is one expression; write branches "
        "with torch.where(condition, a, b) and put the other assignments in",
        stmt.lineno,
        stmt.col_offset,
    )


def is_parameter_call(node: ast.expr) -> bool:
    """Whether ``node`` creates a trainable parameter (see PARAMETER_CALLS)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in PARAMETER_CALLS


class _Substitute(ast.NodeTransformer):
    def __init__(self, env: dict[str, ast.expr]) -> None:
        self.env = env

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.env:
            return self.env[node.id]
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
        return node  # its parameters are its own names


def _put_in(expr: ast.expr, env: dict[str, ast.expr]) -> ast.expr:
    """``expr`` (copied) with the names of ``env`` replaced by their expressions,
    which are shared, never changed: :func:`_size` bounds the whole tree before
    anything prints it."""
    return _Substitute(env).visit(copy.deepcopy(expr)) if env else expr


def _size(expr: ast.expr) -> int:
    """The number of nodes ``expr`` prints as, counting shared subtrees each time
    they occur (linear in the distinct nodes)."""
    memo: dict[int, int] = {}

    def count(node: ast.AST) -> int:
        key = id(node)
        if key not in memo:
            memo[key] = 1 + sum(count(c) for c in ast.iter_child_nodes(node))
        return memo[key]

    return count(expr)
