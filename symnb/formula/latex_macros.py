"""Macros a paper defines before its formula, and the wrappers around pasted LaTeX.

``\\newcommand{\\relu}{\\max(0,x)} \\relu`` and ``\\DeclareMathOperator{\\sp}{softplus}
\\sp(x)`` come pasted with a paper's preamble; TeX reads the formula with each macro
written out, and so does :func:`expanded`: a macro without arguments is replaced by
its body (a ``\\DeclareMathOperator`` by ``\\operatorname{...}``), a macro with
arguments is refused naming it. Markdown's code fence and LaTeX's ``%`` comments
are dropped by :func:`unwrapped`.
"""

from __future__ import annotations

import re

#: A definition's head: the command and the macro's name (``\\newcommand{\\a}``,
#: ``\\newcommand\\a``, ``\\def\\a``, ``\\DeclareMathOperator*{\\a}``).
_HEAD = re.compile(
    r"\\(newcommand|renewcommand|providecommand|def|DeclareMathOperator)\*?\s*"
    r"(?:\{\s*\\([A-Za-z]+)\s*\}|\\([A-Za-z]+))\s*"
)
#: How long the formula may grow by expanding macros (a macro that calls itself).
_MAX_LENGTH = 20_000
_MAX_ROUNDS = 50
_FENCE = re.compile(r"^\s*```[A-Za-z]*[ \t]*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_COMMENT = re.compile(r"(?<!\\)%([^\n]*)")


class MacroProblem(ValueError):
    """A definition or comment with no reading (the message names it)."""


def _group(text: str, at: int) -> int:
    """The index after the ``{...}`` group that opens at ``text[at]``."""
    depth = 0
    for k in range(at, len(text)):
        depth += text[k] == "{" and text[k - 1 : k] != "\\"
        depth -= text[k] == "}" and text[k - 1 : k] != "\\"
        if depth == 0:
            return k + 1
    raise MacroProblem(f"the definition '{text[:60]}' has an unclosed brace")


def _written(body: str) -> str:
    """A macro's body as written out: a space after a closing control word, so that
    ``\\e x`` with ``\\e`` as ``\\exp`` is ``\\exp x``, not ``\\expx``."""
    return body + " " if re.search(r"\\[A-Za-z]+$", body) else body


def unwrapped(text: str) -> str:
    """``text`` without a Markdown code fence around it and without ``%`` comments
    (a ``\\%`` stays). A comment that reads as a formula's rest (``x % 2``) is
    refused: it is a remainder typed as code, not a note."""
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    for m in _COMMENT.finditer(text):
        rest = m.group(1).strip()
        if re.fullmatch(r"[\w\s.+\-*/^()]+", rest) and not re.search(
            r"[A-Za-z]{2,}", rest
        ):
            raise MacroProblem(
                f"'%{m.group(1)}' is a comment in LaTeX, but '{rest}' reads as the "
                "formula's rest: type \\bmod for a remainder, \\% for per cent, or "
                "drop the comment"
            )
    return _COMMENT.sub("", text)


def expanded(text: str) -> str:
    """``text`` with its macro definitions taken out and their uses written out."""
    if "\\" not in text or not _HEAD.search(text):
        return text
    macros: dict[str, str] = {}
    out, at = [], 0
    for m in _HEAD.finditer(text):
        if m.start() < at:
            continue
        kind, name = m.group(1), m.group(2) or m.group(3)
        end = m.end()
        if text.startswith("[", end) or (kind == "def" and text.startswith("#", end)):
            raise MacroProblem(
                f"the macro \\{name} takes arguments ({text[m.start() : end + 3]}...): "
                "type the formula with the macro written out"
            )
        if not text.startswith("{", end):
            raise MacroProblem(
                f"the definition of \\{name} has no {{body}}: type the formula with "
                "the macro written out"
            )
        close = _group(text, end)
        body = text[end + 1 : close - 1]
        if kind == "DeclareMathOperator":
            body = f"\\operatorname{{{body}}}"
        macros[name] = body
        out.append(text[at : m.start()])
        at = close
    out.append(text[at:])
    formula = "".join(out)
    use = re.compile(r"\\(" + "|".join(map(re.escape, macros)) + r")(?![A-Za-z])")
    for _ in range(_MAX_ROUNDS):
        uses = list(use.finditer(formula))
        if not uses:
            return formula
        grown = sum(len(macros[u.group(1)]) + 1 - len(u.group()) for u in uses)
        if len(formula) + grown > _MAX_LENGTH:
            raise MacroProblem(
                f"the macros written out are longer than {_MAX_LENGTH} characters: "
                "type the formula with the macros written out"
            )
        formula = use.sub(lambda u: _written(macros[u.group(1)]), formula)
    raise MacroProblem(
        "the macros expand without end (a macro that uses itself): type the "
        "formula with the macros written out"
    )
