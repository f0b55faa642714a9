"""A pasted function's local assignments put into the expression it returns.

Code from a model names its intermediate values::

    def forward(self, x):
        gate = torch.sigmoid(self.beta * x)
        x = x * gate
        return x

is the formula ``x * torch.sigmoid(self.beta * x)``. Each assignment's right-hand side
is read with the names assigned before it, so a reassigned input (``x = x * gate``)
means what Python means. Read: assignments to names (``a = b = ...``, ``y: float =
...``, ``y += ...``), helper functions and lambdas defined inside, an
``autograd.Function``'s ``ctx`` bookkeeping, ``pass`` and a docstring, branches on
options at their values (``if inplace:``, ``if self.reduction == "mean":``), then one
``return`` (what follows it never runs). An ``if`` on data (``if x > 0: return a``
then ``return b``; or branches that assign the same names) is the conditional
expression ``a if x > 0 else b``, as Python means it for each element. Anything
else (loops, tuple unpacking, ``del``) is refused, naming the statement and its
line, since it is not one expression.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Container, Mapping
from dataclasses import dataclass, field

from symnb.formula.spellings import attribute_of, call_name

#: Most AST nodes the returned expression may grow to once the assignments are put in
#: (each use of a name copies its expression: ``y = x*x`` twenty times is 2**20).
MAX_INLINED_NODES = 20_000

_WHAT = {
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


def returned_formula(
    name: str, body: list[ast.stmt], flags: Mapping[str, object] | None = None
) -> ast.expr:
    """The expression function ``name`` returns with its local assignments (and
    helper functions) put in: the ``return`` node's own expression when there is
    nothing to put in (its columns still point into the pasted text).

    ``flags``: options at their values, by name or ``self.name``: parameters with
    a True/False, string or None default (``inplace=False``, ``reduction="mean"``)
    and such attributes of a module; a test on them (``a if inplace else b``, ``if
    self.reduction == "mean":``) takes its branch. :class:`Unreadable`, with the
    reason and line, for a body that is not straight-line code ending in ``return
    <expression>``."""
    flags = dict(flags or {})
    statements = _flag_branches(body_without_docstring(body), flags)
    if not statements or not (
        isinstance(statements[-1], ast.If)
        or isinstance(statements[-1], ast.Return)
        and statements[-1].value is not None
    ):
        _no_return(name, statements)
    if any(isinstance(s, ast.If) for s in statements):
        values = {
            k: ast.Constant(v)
            for k, v in flags.items()
            if "." not in k and isinstance(v, bool)
        }
        result = _run(name, statements, _Scope(values, {}, flags))
        if result is None:
            _no_return(name, statements)
        return _bounded(name, result, statements[-1])
    returned = statements[-1].value
    used = {n.id for n in ast.walk(returned) if isinstance(n, ast.Name)}
    decided = any(
        isinstance(n, ast.IfExp) and _flag_value(n.test, flags) is not None
        for n in ast.walk(returned)
    )
    # a flag is also a value (F.relu(x, inplace=inplace)); a string or None option
    # only decides tests (beta=None used as a number stays an unknown symbol)
    values = {
        k: ast.Constant(v)
        for k, v in flags.items()
        if "." not in k and isinstance(v, bool)
    }
    if len(statements) == 1 and not used & set(values) and not decided:
        return returned
    scope = _Scope(values, {}, flags)
    for stmt in statements[:-1]:
        _assign(name, stmt, scope)
    return _bounded(name, scope.put_in(returned), statements[-1])


def _no_return(name: str, statements: list[ast.stmt]) -> None:
    last = statements[-1] if statements else None
    raise Unreadable(
        f"function {name} does not end in 'return <expression>': a formula is "
        "the one expression it returns",
        getattr(last, "lineno", 1),
        getattr(last, "col_offset", 0),
    )


def _bounded(name: str, result: ast.expr, last: ast.stmt) -> ast.expr:
    """``result``, refused when the assignments put in made it too large."""
    try:
        size = _size(result)
    except RecursionError:
        raise Unreadable(
            f"function {name}'s assignments nest its formula too deeply",
            last.lineno,
            last.col_offset,
        ) from None
    if size > MAX_INLINED_NODES:
        raise Unreadable(
            f"function {name}'s assignments expand to a formula of {size:,} parts "
            f"(at most {MAX_INLINED_NODES:,}): each use of a name repeats its "
            "expression",
            last.lineno,
            last.col_offset,
        )
    return result


def _run(name: str, statements: list[ast.stmt], scope: _Scope) -> ast.expr | None:
    """Put the assignments of ``statements`` into ``scope``, an ``if`` on data as
    conditional values: the expression of the ``return`` reached, with the names
    put in, or None when the statements end without one."""
    for i, stmt in enumerate(statements):
        if isinstance(stmt, ast.Return):
            if stmt.value is None:
                _no_return(name, [stmt])
            return scope.put_in(stmt.value)
        if isinstance(stmt, ast.If):
            result = _branch(name, stmt, statements[i + 1 :], scope)
            if result is not None:
                return result
            continue
        _assign(name, stmt, scope)
    return None


def _branch(
    name: str, stmt: ast.If, rest: list[ast.stmt], scope: _Scope
) -> ast.expr | None:
    """One ``if``: the returned conditional expression when a branch returns (the
    other path goes on with ``rest``), else None with each name a branch assigns
    made ``(value if test else other value)`` in ``scope``."""
    taken = _flag_value(stmt.test, scope.flags)
    if taken is not None:  # an option nested in a branch on data
        return _run(name, list(stmt.body if taken else stmt.orelse) + rest, scope)
    test = scope.put_in(stmt.test)
    paths = []
    for branch in (stmt.body, stmt.orelse):
        path = _Scope(dict(scope.values), dict(scope.helpers), scope.flags)
        paths.append((path, _run(name, list(branch), path)))
    (yes, returned_yes), (no, returned_no) = paths
    if returned_yes is None and returned_no is None:
        if yes.helpers != scope.helpers or no.helpers != scope.helpers:
            raise Unreadable(
                f"function {name} defines a helper function inside an 'if': "
                "define it before the 'if'",
                stmt.lineno,
                stmt.col_offset,
            )
        for key in {*yes.values, *no.values}:
            a = yes.values.get(key, ast.Name(key, ast.Load()))
            b = no.values.get(key, ast.Name(key, ast.Load()))
            if a is not scope.values.get(key) or b is not scope.values.get(key):
                scope.values[key] = ast.IfExp(test, a, b)
        return None
    if returned_yes is None:
        returned_yes = _run(name, rest, yes)
    if returned_no is None:
        returned_no = _run(name, rest, no)
    if returned_yes is None or returned_no is None:
        _no_return(name, rest or [stmt])
    return ast.IfExp(test, returned_yes, returned_no)


_COMPARE = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def _option(node: ast.expr, flags: Mapping[str, object]) -> tuple[bool, object]:
    """(known, value) of an option in a test: a literal, a flag's name, ``self.``
    its name, or a tuple of literals (``reduction in ("mean", "sum")``)."""
    if isinstance(node, ast.Constant):
        return True, node.value
    if isinstance(node, ast.Name) and node.id in flags:
        return True, flags[node.id]
    attr = attribute_of(node)
    if attr is not None and f"self.{attr}" in flags:
        return True, flags[f"self.{attr}"]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_option(e, flags) for e in node.elts]
        if all(known for known, _ in items):
            return True, tuple(v for _, v in items)
    return False, None


def _flag_value(test: ast.expr, flags: Mapping[str, object]) -> bool | None:
    """The truth of a test on options at their values (``inplace``, ``not
    self.logits``, ``self.reduction == 'mean'``), else None (a test on data)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _flag_value(test.operand, flags)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        values = [_flag_value(v, flags) for v in test.values]
        if any(v is None for v in values):
            return None
        return all(values) if isinstance(test.op, ast.And) else any(values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        (left_known, left), (right_known, right) = (
            _option(test.left, flags),
            _option(test.comparators[0], flags),
        )
        compare = _COMPARE.get(type(test.ops[0]))
        if not (left_known and right_known and compare):
            return None
        try:
            return bool(compare(left, right))
        except TypeError:  # 'mean' in 3
            return None
    known, value = _option(test, flags)
    if not known or isinstance(value, tuple):
        return None
    return bool(value)


def _flag_branches(
    statements: list[ast.stmt], flags: Mapping[str, object]
) -> list[ast.stmt]:
    """``statements`` with each ``if <flag>: ... else: ...`` replaced by the branch
    its default takes (``if inplace: return x.mul_(y)`` else the pure form), up to
    the first ``return`` (what follows it never runs)."""
    out: list[ast.stmt] = []
    for stmt in statements:
        value = _flag_value(stmt.test, flags) if isinstance(stmt, ast.If) else None
        if value is not None:
            taken = stmt.body if value else stmt.orelse
            out.extend(_flag_branches(list(taken), flags))
        else:
            out.append(stmt)
        if out and isinstance(out[-1], ast.Return):
            break
    return out


@dataclass
class _Scope:
    """The values of the local names so far, and the helper functions (a nested
    ``def`` or a lambda assigned to a name: their parameters and expression)."""

    values: dict[str, ast.expr]
    helpers: dict[str, tuple[list[str], ast.expr]]
    flags: Mapping[str, object] = field(default_factory=dict)

    def put_in(self, expr: ast.expr, hidden: Container[str] = ()) -> ast.expr:
        """``expr`` (copied) with the local names (but ``hidden``, a helper's
        parameters) and helper calls replaced; the values are shared, never
        changed: :func:`_size` bounds the whole tree before anything prints it."""
        values = {k: v for k, v in self.values.items() if k not in hidden}
        helpers = {k: v for k, v in self.helpers.items() if k not in hidden}
        if not values and not helpers and not self.flags:
            return expr
        return _Substitute(values, helpers, self.flags).visit(copy.deepcopy(expr))


def _helper(name: str, stmt: ast.stmt, scope: _Scope) -> bool:
    """Record a nested ``def f(t): return ...`` or ``f = lambda t: ...``."""
    if isinstance(stmt, ast.FunctionDef):
        helper, args = stmt.name, stmt.args
        if args.defaults or args.vararg or args.kwonlyargs:
            raise Unreadable(
                f"function {name} has a nested function {helper} with optional "
                "arguments: put its formula in where it is called",
                stmt.lineno,
                stmt.col_offset,
            )
        expr = returned_formula(helper, stmt.body)
    elif (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Lambda)
    ):
        helper, args, expr = stmt.targets[0].id, stmt.value.args, stmt.value.body
        if args.defaults or args.vararg or args.kwonlyargs:
            return False
    else:
        return False
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    scope.values.pop(helper, None)
    scope.helpers[helper] = (params, scope.put_in(expr, hidden=params))
    return True


def _on_ctx(stmt: ast.stmt) -> bool:
    """``ctx.save_for_backward(i)``, ``ctx.scale = s``: an autograd.Function's
    bookkeeping in its forward, which changes no value."""
    node = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        node = stmt.targets[0]
    if isinstance(node, ast.Call):
        node = node.func
    return attribute_of(node, "ctx") is not None


def _assign(name: str, stmt: ast.stmt, scope: _Scope) -> None:
    """Record one statement's assignment in ``scope`` (or refuse it)."""
    env = scope.values
    if isinstance(stmt, ast.Pass) or (
        isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
    ):
        return  # pass, a string or number standing alone
    if _on_ctx(stmt) or _helper(name, stmt, scope):
        return
    if isinstance(stmt, ast.Assign) and all(
        isinstance(t, ast.Name) for t in stmt.targets
    ):
        if is_parameter_call(stmt.value) and len(stmt.targets) == 1:
            env.pop(stmt.targets[0].id, None)  # the constant of that name
            return
        value = scope.put_in(stmt.value)
        for target in stmt.targets:
            env[target.id] = value
            scope.helpers.pop(target.id, None)
        return
    if (
        isinstance(stmt, ast.AnnAssign)
        and isinstance(stmt.target, ast.Name)
        and stmt.value is not None
    ):
        env[stmt.target.id] = scope.put_in(stmt.value)
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
        env[stmt.target.id] = ast.BinOp(current, stmt.op, scope.put_in(stmt.value))
        return
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        what = "an assignment to something other than a name (unpacking, an attribute)"
    else:
        what = _WHAT.get(type(stmt), f"a {type(stmt).__name__} statement")
    fix = "compute the value as one expression, with name assignments before it"
    raise Unreadable(
        f"function {name} has {what}: a formula is one returned expression; {fix}",
        stmt.lineno,
        stmt.col_offset,
    )


def is_parameter_call(node: ast.expr) -> bool:
    """Whether ``node`` creates a trainable parameter (see PARAMETER_CALLS)."""
    return call_name(node) in PARAMETER_CALLS


class _Substitute(ast.NodeTransformer):
    def __init__(
        self,
        values: dict[str, ast.expr],
        helpers: dict[str, tuple[list[str], ast.expr]],
        flags: Mapping[str, object] | None = None,
    ) -> None:
        self.values, self.helpers, self.flags = values, helpers, flags or {}

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return self.values[node.id]
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id in self.helpers:
            params, expr = self.helpers[func.id]
            if len(node.args) == len(params) and not node.keywords:
                bound = dict(zip(params, node.args))
                return _Substitute(bound, {}).visit(copy.deepcopy(expr))
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        taken = _flag_value(node.test, self.flags)  # `a if inplace else b`
        if taken is not None:
            return node.body if taken else node.orelse
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
        return node  # its parameters are its own names


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
