"""The lattice operations of papers, ``x \\vee 0`` (max) and ``x \\wedge 1`` (min).

Order theory and probability papers write the positive part as ``x \\vee 0`` and a
clip as ``(x \\vee 0) \\wedge 1``. Between values (no comparison in the same bracket or
argument, nested ones counted) the LaTeX reader's connectives ``|`` and ``&`` are these
operations: :func:`joined` writes them as ``max(a, b)`` and ``min(a, b)``, within each
bracket and each argument of a call. Where a side holds a sum (``x \\vee 0 + 1``),
papers differ on which binds first, and where \\vee and \\wedge meet unbracketed the
order is unstated: both are refused, naming the part, rather than read one way
silently.
"""

from __future__ import annotations

#: The connective's formula text -> the function it is between values.
_FUNCTIONS = {"|": "max", "&": "min"}
_NAMES = {"|": "\\vee", "&": "\\wedge"}
#: The reader's items of \\vee and \\wedge (the words 'or', 'and' come spaced, " | ":
#: prose between two formulas is no max).
_MARKS = frozenset({("logic", "|"), ("logic", "&")})


class LatticeProblem(ValueError):
    """A join or meet without one reading (the message names it and the fix)."""


def joined(items: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``items`` (the LaTeX reader's (kind, text) pairs) with each ``a | b`` and
    ``a & b`` written as ``max(a, b)`` and ``min(a, b)``."""
    out: list[tuple[str, str]] = []
    segment: list[tuple[str, str]] = []
    k = 0
    while k < len(items):
        item = items[k]
        if item[0] == "(":
            end = _closing(items, k)
            segment += [item, *joined(items[k + 1 : end]), items[end]]
            k = end + 1
            continue
        if item == ("op", ","):
            out += [*_values(segment), item]
            segment = []
        else:
            segment.append(item)
        k += 1
    return out + _values(segment)


def _closing(items: list, at: int) -> int:
    depth = 0
    for k in range(at, len(items)):
        depth += items[k][0] == "("
        depth -= items[k][0] == ")"
        if depth == 0:
            return k
    raise LatticeProblem("a bracket around \\vee or \\wedge is not closed")


def _values(segment: list) -> list:
    """One bracket's or argument's items, its joins written as max/min."""
    marks = [k for k, item in enumerate(segment) if item in _MARKS]
    if not marks or any(kind == "cmp" for kind, _ in segment):
        return segment  # x > 0 \lor x < -1: conditions joined, not values
    kinds = {segment[k][1] for k in marks}
    if len(kinds) > 1:
        raise LatticeProblem(
            "\\vee and \\wedge meet without brackets (which comes first is "
            "unstated): bracket them, (a \\vee b) \\wedge c, or type \\max and \\min"
        )
    parts, start = [], 0
    for k in [*marks, len(segment)]:
        parts.append(segment[start:k])
        start = k + 1
    op = segment[marks[0]][1]
    for part in parts:
        if not part:
            raise LatticeProblem(f"{_NAMES[op]} lacks a side: type \\max(a, b)")
        if _holds_sum(part):
            raise LatticeProblem(
                f"a side of {_NAMES[op]} holds a sum (whether {_NAMES[op]} or + "
                f"comes first is unstated): bracket it, or type "
                f"\\{_FUNCTIONS[op]}(a, b)"
            )
    out: list = [("func", _FUNCTIONS[op]), ("(", "(")]
    for n, part in enumerate(parts):
        out += [*([("op", ",")] if n else []), *part]
    return [*out, (")", ")")]


def _holds_sum(part: list) -> bool:
    """Whether ``part`` adds or subtracts outside its brackets (a sign is no sum)."""
    depth, previous = 0, None
    for kind, text in part:
        depth += kind == "("
        depth -= kind == ")"
        binary = previous in ("num", "name", ")")
        if depth == 0 and kind == "op" and text in ("+", "-") and binary:
            return True
        previous = kind
    return False
