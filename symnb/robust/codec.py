"""A structural JSON encoding of lowered expressions, for the analysis cache.

The cache must never run stored text through ``eval``, ``pickle``, ``sympify`` or
``parse_expr``: an expression is stored as nested lists ``[kind, ...]`` and rebuilt here from
a whitelist of node kinds; symbols are looked up among the form's own symbols, numbers are
checked against a numeric pattern. Anything else is refused (the entry is then recomputed).
"""

from __future__ import annotations

import re

import sympy as sp
from sympy.core.relational import (
    Equality,
    GreaterThan,
    LessThan,
    StrictGreaterThan,
    StrictLessThan,
    Unequality,
)

from symnb.formula.functions import (
    erfc,
    erfcx,
    expm1,
    ierfcx,
    log1p,
    logsigmoid,
    sigmoid,
    softplus,
)
from symnb.formula.gamma import GAMMA_FUNCTIONS
from symnb.robust.hypot import hypot2
from symnb.robust.literals import ldexp2
from symnb.robust.widen import wide_cos, wide_sin, wide_tan

_NODES: dict[str, object] = {
    "Add": sp.Add,
    "Mul": sp.Mul,
    "Pow": sp.Pow,
    "exp": sp.exp,
    "log": sp.log,
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "asin": sp.asin,
    "acos": sp.acos,
    "atan": sp.atan,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "tanh": sp.tanh,
    "asinh": sp.asinh,
    "acosh": sp.acosh,
    "atanh": sp.atanh,
    "erf": sp.erf,
    "erfc": erfc,
    "erfcx": erfcx,
    "ierfcx": ierfcx,
    "Abs": sp.Abs,
    "sign": sp.sign,
    "Max": sp.Max,
    "Min": sp.Min,
    "Heaviside": sp.Heaviside,
    "floor": sp.floor,
    "ceiling": sp.ceiling,
    "sigmoid": sigmoid,
    "softplus": softplus,
    "logsigmoid": logsigmoid,
    "log1p": log1p,
    "expm1": expm1,
    "StrictGreaterThan": StrictGreaterThan,
    "StrictLessThan": StrictLessThan,
    "GreaterThan": GreaterThan,
    "LessThan": LessThan,
    "Equality": Equality,
    "Unequality": Unequality,
    "And": sp.And,
    "Or": sp.Or,
    "Not": sp.Not,
    "UnevaluatedExpr": sp.UnevaluatedExpr,
    "wide_sin": wide_sin,
    "wide_cos": wide_cos,
    "wide_tan": wide_tan,
    "ldexp2": ldexp2,
    "hypot2": hypot2,
    **GAMMA_FUNCTIONS,
}
#: Conditions rebuilt unevaluated (see :func:`decode`).
_LOGIC = frozenset(
    {
        "StrictGreaterThan",
        "StrictLessThan",
        "GreaterThan",
        "LessThan",
        "Equality",
        "Unequality",
        "And",
        "Or",
    }
)
_CONSTANTS = {
    "pi": sp.pi,
    "E": sp.E,
    "oo": sp.oo,
    "-oo": -sp.oo,
    "true": sp.true,
    "false": sp.false,
}
_INT = re.compile(r"-?[0-9]{1,4000}\Z")
_FLOAT = re.compile(r"-?[0-9]+(\.[0-9]*)?(e[-+]?[0-9]+)?\Z")


class DecodeError(ValueError):
    """A stored expression is not a valid encoding (the cache entry is ignored)."""


def encode(e: sp.Basic) -> list | str:
    """The JSON-able encoding of an expression built from the whitelisted nodes."""
    if isinstance(e, sp.Symbol):
        return ["S", e.name]
    if e is sp.true or e is sp.false:
        return ["C", "true" if e is sp.true else "false"]
    if e in (sp.oo, -sp.oo):
        return ["C", "oo" if e is sp.oo else "-oo"]
    if e is sp.pi or e is sp.E:
        return ["C", "pi" if e is sp.pi else "E"]
    if isinstance(e, sp.Integer):
        return ["I", str(int(e))]
    if isinstance(e, sp.Rational):
        return ["Q", str(e.p), str(e.q)]
    if isinstance(e, sp.Float):
        return ["F", sp.Float(e, 30).__str__(), int(e._prec)]
    if isinstance(e, sp.Piecewise):
        return ["Piecewise"] + [[encode(a.expr), encode(a.cond)] for a in e.args]
    name = type(e).__name__
    if name not in _NODES:
        raise DecodeError(f"cannot encode {name}")
    return [name] + [encode(a) for a in e.args]


def decode(data, symbols: dict[str, sp.Symbol]) -> sp.Basic:
    """Rebuild an expression from :func:`encode`'s output; symbols by name."""
    if not isinstance(data, list) or not data or not isinstance(data[0], str):
        raise DecodeError("malformed node")
    kind, args = data[0], data[1:]
    if kind == "S":
        if len(args) != 1 or args[0] not in symbols:
            raise DecodeError("unknown symbol")
        return symbols[args[0]]
    if kind == "C":
        if len(args) != 1 or args[0] not in _CONSTANTS:
            raise DecodeError("unknown constant")
        return _CONSTANTS[args[0]]
    if kind == "I":
        if len(args) != 1 or not isinstance(args[0], str) or not _INT.match(args[0]):
            raise DecodeError("bad integer")
        return sp.Integer(int(args[0]))
    if kind == "Q":
        if len(args) != 2 or not all(
            isinstance(a, str) and _INT.match(a) for a in args
        ):
            raise DecodeError("bad rational")
        return sp.Rational(int(args[0]), int(args[1]))
    if kind == "F":
        if (
            len(args) != 2
            or not isinstance(args[0], str)
            or not _FLOAT.match(args[0])
            or not isinstance(args[1], int)
            or not 1 <= args[1] <= 4000
        ):
            raise DecodeError("bad float")
        return sp.Float(args[0], precision=args[1])
    if kind == "Piecewise":
        pairs = []
        for pair in args:
            if not isinstance(pair, list) or len(pair) != 2:
                raise DecodeError("bad Piecewise")
            pairs.append((decode(pair[0], symbols), decode(pair[1], symbols)))
        # stored forms were built evaluated: rebuilding them unevaluated gives the same
        # expression, without SymPy re-checking every condition (most of a cache hit)
        return sp.Piecewise(*pairs, evaluate=False)
    fn = _NODES.get(kind)
    if fn is None:
        raise DecodeError(f"unknown node {kind!r}")
    decoded = [decode(a, symbols) for a in args]
    if kind in _LOGIC:
        return fn(*decoded, evaluate=False)
    return fn(*decoded)


__all__ = ["DecodeError", "decode", "encode"]
