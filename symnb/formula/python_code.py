"""A formula pasted as Python code: ``def f(x): return ...``, ``lambda z: ...``, a class.

Researchers copy activations from their code: a module's ``forward(self, x)``, a
decorated function, a lambda, a bare ``return`` line, a whole ``nn.Module`` class (its
``forward``, Keras's ``call``). When that code is one function
that returns one expression, the expression is the formula and the function's first
parameter (after ``self``) is the input. The rest of the text is blanked out, column
for column, so that an error in the expression points at the pasted text.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from symnb.formula import layer_objects
from symnb.formula.inline_locals import (
    Unreadable,
    body_without_docstring,
    returned_formula,
)
from symnb.formula.spellings import attribute_of

#: Texts that may be Python code rather than a formula (a cheap test before parsing).
_CODE_START = re.compile(
    r"\s*(?:#[^\n]*\n\s*)*"
    r"(?:(?:async\s+)?def\b|class\b|@|lambda\b|return\b|\w+\s*=\s*lambda\b)"
)


#: The method of a pasted class that computes the activation (PyTorch, Keras, plain).
FORWARD_METHODS = ("forward", "call", "__call__")


#: A method's first parameter that is not its input (an autograd.Function's
#: ``forward(ctx, i)`` included).
_RECEIVERS = ("self", "cls", "ctx")


def looks_like_code(text: str) -> bool:
    """Whether ``text`` starts as Python code (def, class, decorator, lambda, return)."""
    return _CODE_START.match(text) is not None


class CodeProblem(Exception):
    """The text is a Python function, but not one of a single returned expression
    (``lineno``, ``col_offset``: where in the pasted text, when known)."""

    def __init__(self, message: str, lineno: int = 0, col_offset: int = 0) -> None:
        super().__init__(message)
        self.lineno, self.col_offset = lineno, col_offset


def pasted_statement(text: str) -> ast.stmt | None:
    """The one Python statement ``text`` is when it looks like pasted code (a def,
    class, lambda or return), else None."""
    if not text.isascii() or not looks_like_code(text):
        return None
    try:
        module = ast.parse(text, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return module.body[0] if len(module.body) == 1 else None


def forward_method(node: ast.ClassDef) -> ast.FunctionDef:
    """The method of a module class that computes its output (``forward``, Keras's
    ``call``, ``__call__``); :class:`CodeProblem` when it has none or several."""
    methods = [
        m
        for m in node.body
        if isinstance(m, ast.FunctionDef) and m.name in FORWARD_METHODS
    ]
    if len(methods) != 1:
        raise CodeProblem(
            f"class {node.name} has no forward, call or __call__ method to read"
            if not methods
            else f"class {node.name} has more than one of forward, call, __call__"
        )
    method = layer_objects.with_submodule_calls(node, methods[0])
    setattr(method, _OPTIONS, _class_options(node))
    return method


#: Set on a class's forward method: the options its ``__init__`` stores
#: (``self.reduction = reduction`` with ``reduction="mean"``), by ``self.name``.
_OPTIONS = "_symnb_options"


def _is_option(node: ast.expr) -> bool:
    """A True/False, string or None literal: an option, not a constant."""
    return isinstance(node, ast.Constant) and (
        node.value is None or isinstance(node.value, (bool, str))
    )


def _class_options(cls: ast.ClassDef) -> dict[str, object]:
    """``self.name = <option>`` in ``__init__``: a literal, or a parameter whose
    default is one."""
    found: dict[str, object] = {}
    for method in cls.body:
        if not (isinstance(method, ast.FunctionDef) and method.name == "__init__"):
            continue
        _, defaults = parameter_defaults(method.args)
        options = {k: v.value for k, v in defaults.items() if _is_option(v)}
        for stmt in method.body:
            if not isinstance(stmt, ast.Assign):
                continue
            value = stmt.value
            known = _is_option(value) or (
                isinstance(value, ast.Name) and value.id in options
            )
            for target in stmt.targets:
                if attribute_of(target) is None:
                    continue
                key = f"self.{target.attr}"
                if not known:
                    found.pop(key, None)
                elif isinstance(value, ast.Constant):
                    found[key] = value.value
                else:
                    found[key] = options[value.id]
    return found


def parameter_defaults(args: ast.arguments) -> tuple[list[str], dict[str, ast.expr]]:
    """A signature's parameter names (without a leading ``self``, ``cls`` or an
    autograd.Function's ``ctx``) and the default expression of each parameter that
    has one (keyword-only ones too)."""
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    if params and params[0] in _RECEIVERS:
        params = params[1:]
    defaults = dict(zip(params[len(params) - len(args.defaults) :], args.defaults))
    defaults.update(
        {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    )
    return params, defaults


def _function_parts(node: ast.stmt) -> tuple[ast.expr, tuple[str, ...], bool] | None:
    """(returned expression, input parameter names (those without a default),
    whether assignments were put in) of one pasted statement."""
    if isinstance(node, ast.Return) and node.value is not None:
        return node.value, (), False
    lam = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
    if isinstance(lam, ast.Lambda):
        params, defaults = parameter_defaults(lam.args)
        inputs = tuple(p for p in params if p not in defaults)
        return (lam.body, inputs, False) if inputs else None  # lambda: 1 is no f(x)
    if isinstance(node, ast.ClassDef):  # an nn.Module / Keras layer: its forward
        node = forward_method(node)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    returned = single_return(node)
    params, defaults = parameter_defaults(node.args)
    inputs = tuple(p for p in params if p not in defaults)
    if not inputs:  # was read as formula text: "syntax error: invalid syntax"
        first = [a.arg for a in (*node.args.posonlyargs, *node.args.args)][:1]
        receiver = "self, " if first and first[0] in _RECEIVERS else ""
        raise CodeProblem(
            f"function {node.name} has no input: a formula's function takes its "
            f"input as a parameter without a default (def {node.name}({receiver}x): "
            "return ...)"
            + ("; *args and **kwargs are not inputs" if _starred(node.args) else ""),
            node.lineno,
            node.col_offset,
        )
    return returned, inputs, is_inlined(node, returned)


def _starred(args: ast.arguments) -> bool:
    return args.vararg is not None or args.kwarg is not None


def single_return(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.expr:
    """The expression a function returns, with its local assignments put in
    (:mod:`symnb.formula.inline_locals`); the ``return`` node's own expression when
    the body (after a docstring) is that one line. :class:`CodeProblem` for any
    other body (a branch, a loop), naming the statement and its line."""
    _, defaults = parameter_defaults(node.args)
    flags = {
        **getattr(node, _OPTIONS, {}),
        **{name: v.value for name, v in defaults.items() if _is_option(v)},
    }
    try:
        return returned_formula(node.name, node.body, flags)
    except Unreadable as problem:
        raise CodeProblem(str(problem), problem.lineno, problem.col_offset) from None


def is_inlined(node: ast.FunctionDef | ast.AsyncFunctionDef, expr: ast.expr) -> bool:
    """Whether ``expr`` (from :func:`single_return`) was built from assignments, so
    that its columns do not point into the pasted text."""
    last = body_without_docstring(node.body)[-1]
    return (
        getattr(node, layer_objects.REWRITTEN, False)
        or not isinstance(last, ast.Return)  # a branch taken on a flag's default
        or expr is not last.value
    )


@dataclass(frozen=True)
class Pasted:
    """A pasted function's formula: ``text`` is the pasted text with all but the
    returned expression blanked (its columns point into the paste), or, when
    ``inlined`` (assignments or submodule calls were put in), ``lambda <inputs>:
    <expression>`` on one line, to be read on its own. ``inputs``: the function's
    parameters without a default (none for a bare ``return`` line)."""

    text: str
    inputs: tuple[str, ...]
    inlined: bool = False


def returned_expression(text: str) -> Pasted | None:
    """The formula of ``text`` when it is one pasted function, lambda, class or
    ``return`` line, else None. Raises :class:`CodeProblem` for a function whose
    body is not straight-line assignments and one return."""
    statement = pasted_statement(text)
    if statement is None:
        return None
    parts = _function_parts(statement)
    if parts is None:
        return None
    expr, inputs, inlined = parts
    if inlined:
        return Pasted(f"lambda {', '.join(inputs)}: {ast.unparse(expr)}", inputs, True)
    lines = text.split("\n")
    first, last = expr.lineno - 1, expr.end_lineno - 1
    kept = []
    for i, line in enumerate(lines):
        start = expr.col_offset if i == first else 0
        end = expr.end_col_offset if i == last else len(line)
        if first <= i <= last:
            kept.append(" " * start + line[start:end] + " " * (len(line) - end))
        else:
            kept.append(" " * len(line))
    return Pasted("\n".join(kept), inputs)
