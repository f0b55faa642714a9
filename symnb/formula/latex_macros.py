"""Macros a paper defines before its formula, and the wrappers around pasted LaTeX.

``\\newcommand{\\relu}{\\max(0,x)} \\relu`` and ``\\DeclareMathOperator{\\sp}{softplus}
\\sp(x)`` come pasted with a paper's preamble; TeX reads the formula with each macro
written out, and so does :func:`expanded`: a macro is replaced by its body (a
``\\DeclareMathOperator`` by ``\\operatorname{...}``), with its arguments put in for
``#1``, ``#2`` as TeX puts them in (``\\newcommand{\\sq}[1]{#1^2}``: ``\\sq{x}`` is
``x^2``; an optional first argument takes its default). Markdown's code fence and
LaTeX's ``%`` comments are dropped by :func:`unwrapped`, and HTML's escapes
(``&gt;``) read as what they stand for.
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
    (a ``\\%`` stays), its HTML escapes (``&lt;``) read. A comment that reads as a formula's rest (``x % 2``) is
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
    return _ENTITY.sub(_entity, _COMMENT.sub("", text))


#: HTML's escapes of what LaTeX pasted from a web page's source holds (``x &gt; 0``,
#: ``a &amp; x`` in Jupyter's or MathJax's HTML) -> the LaTeX they stand for.
_ENTITIES = {
    "lt": "<",
    "gt": ">",
    "amp": "&",
    "nbsp": " ",
    "le": "\\le ",
    "ge": "\\ge ",
    "ne": "\\ne ",
    "minus": "-",
    "times": "\\times ",
    "sdot": "\\cdot ",
    "middot": "\\cdot ",
}
_ENTITY = re.compile(r"&(?:([a-z]+)|#(\d{1,5})|#x([0-9a-fA-F]{1,4}));")


def _entity(m: re.Match) -> str:
    """The LaTeX of an HTML escape; one with no entry here stays as typed (and is
    refused by the reader, naming it)."""
    if m.group(1):
        return _ENTITIES.get(m.group(1), m.group())
    code = int(m.group(2)) if m.group(2) else int(m.group(3), 16)
    return chr(code) if chr(code) in "<>&" else m.group()


#: The arguments of a definition: ``[2]``, ``[2][default]`` (\\newcommand), ``#1#2``
#: (\\def, undelimited).
_COUNT = re.compile(r"\[\s*([0-9])\s*\]\s*")
_DEF_PARAMETERS = re.compile(r"(?:#[1-9])+")
_PARAMETER = re.compile(r"#([1-9])")


class _Macro:
    """A macro's body, its number of arguments and the default of an optional first
    one (None where the first is required)."""

    def __init__(self, body: str, count: int = 0, default: str | None = None) -> None:
        self.body, self.count, self.default = body, count, default


def _definition(text: str, m: re.Match) -> tuple[_Macro, int]:
    """The macro defined by the head ``m`` and the index after its definition."""
    kind, name = m.group(1), m.group(2) or m.group(3)
    end, count, default = m.end(), 0, None
    counted = _COUNT.match(text, end) if kind != "def" else None
    if counted:
        count, end = int(counted.group(1)), counted.end()
        if text.startswith("[", end):
            close = text.find("]", end)
            if close < 0:
                raise MacroProblem(f"the default of \\{name}'s argument is not closed")
            default, end = text[end + 1 : close], close + 1
            end = len(text) - len(text[end:].lstrip())
    elif kind == "def" and text.startswith("#", end):
        params = _DEF_PARAMETERS.match(text, end)
        numbers = _PARAMETER.findall(params.group()) if params else []
        if numbers != [str(k) for k in range(1, len(numbers) + 1)] or not (
            text.startswith("{", params.end())
        ):
            raise MacroProblem(
                f"the macro \\{name} takes delimited arguments "
                f"({text[m.start() : end + 8]}...): type the formula with the macro "
                "written out"
            )
        count, end = len(numbers), params.end()
    elif kind != "DeclareMathOperator" and text.startswith("[", end):
        raise MacroProblem(
            f"the macro \\{name}'s arguments ({text[end : end + 8]}...) have no "
            "count 0 to 9: type the formula with the macro written out"
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
    return _Macro(body, count, default), close


def _argument(text: str, at: int, name: str) -> tuple[str, int]:
    """The argument TeX takes at ``text[at]`` (spaces skipped): a ``{...}`` group's
    inside, a control word or one character; and the index after it."""
    while at < len(text) and text[at].isspace():
        at += 1
    if at >= len(text):
        raise MacroProblem(
            f"the formula ends before an argument of the macro \\{name}: type its "
            "argument in braces, \\" + name + "{...}"
        )
    if text[at] == "{":
        close = _group(text, at)
        return text[at + 1 : close - 1], close
    if text[at] == "}":
        raise MacroProblem(
            f"the macro \\{name} lacks an argument before '}}': type its arguments "
            "in braces"
        )
    if text[at] == "\\":
        word = re.match(r"\\(?:[A-Za-z]+|.)", text[at:], re.DOTALL)
        return word.group(), at + len(word.group())
    return text[at], at + 1


def _use(text: str, at: int, name: str, macro: _Macro) -> tuple[str, int]:
    """The macro used at ``text[at]`` (after its name) written out, and the index
    after its arguments."""
    args: list[str] = []
    if macro.default is not None:
        rest = text[at:].lstrip()
        if rest.startswith("["):
            start = len(text) - len(rest)
            close = text.find("]", start)
            if close < 0:
                raise MacroProblem(f"the optional argument of \\{name} is not closed")
            args.append(text[start + 1 : close])
            at = close + 1
        else:
            args.append(macro.default)
    while len(args) < macro.count:
        arg, at = _argument(text, at, name)
        args.append(arg)
    for k, arg in enumerate(args, 1):
        if re.search(r"[-+]", _outside_groups(arg)):
            _refuse_bound_sum(name, arg, k, macro.body)
    beyond = [k for k in _PARAMETER.findall(macro.body) if int(k) > macro.count]
    if beyond:
        raise MacroProblem(
            f"the macro \\{name} uses #{beyond[0]} but takes {macro.count} "
            f"argument(s): give its definition [{beyond[0]}] arguments"
        )
    return _written(_PARAMETER.sub(lambda p: _put_in(p, args), macro.body)), at


def _put_in(p: re.Match, args: list[str]) -> str:
    """The argument for ``#k`` at ``p``, a space before it after a control word
    (``\\lvert#1`` with x: ``\\lvert x``, as TeX read the body's tokens)."""
    arg = args[int(p.group(1)) - 1]
    if re.search(r"\\[A-Za-z]+$", p.string[: p.start()]):
        return " " + arg
    return arg


#: Delimiters that bracket what they enclose (``\\lvert#1\\rvert``, ``\\left\\lVert``).
_OPENER = re.compile(r"\\(?:left\s*\\?\S?|lvert|lVert|langle|lfloor|lceil|\{)$")
_CLOSER = re.compile(r"\\(?:right|rvert|rVert|rangle|rfloor|rceil|\}|\\)")


def _refuse_bound_sum(name: str, arg: str, k: int, body: str) -> None:
    """Refuse a sum (or signed) argument put in where a neighbour binds it: TeX puts
    ``x+1`` in ``#1^2`` as ``x+1^2`` and in ``2#1`` as ``2x+1`` (no brackets), which
    is what the paper shows but rarely what its author meant; alone in its term
    (``\\left(#1\\right)``, ``#1 + 1``) it reads as written."""
    signed = re.fullmatch(r"\s*[-+][^-+]*", _outside_groups(arg)) is not None
    for m in re.finditer(rf"#{k}", body):
        before, after = body[: m.start()].rstrip(), body[m.end() :].lstrip()
        alone_before = not before or before[-1] in "{([,=&+|" or _OPENER.search(before)
        alone_after = (
            not after
            or after[0] in "})]+-,&|"
            or _CLOSER.match(after)
            or (signed and after[0] not in "^_!")  # -x\sigma(-x): (-x)\sigma(-x)
        )
        if not (alone_before and alone_after):
            shown = f"{before[-12:]}{arg}{after[:12]}".strip()
            raise MacroProblem(
                f"\\{name}{{{arg}}} is set as '{shown}': TeX puts the argument in "
                "without brackets, so its neighbours take only its first or last "
                f"term: type \\{name}{{({arg})}} for the whole, or the formula with "
                "the macro written out"
            )


def _outside_groups(text: str) -> str:
    """``text`` without what its brackets hold (``a_{i-1}``, ``(x+1)``: no sum)."""
    out, depth = [], 0
    for ch in text:
        depth -= ch in ")]}"
        if depth == 0 and ch not in "([{}])":
            out.append(ch)
        depth += ch in "([{"
    return "".join(out)


def _too_long() -> MacroProblem:
    return MacroProblem(
        f"the macros written out are longer than {_MAX_LENGTH} characters: "
        "type the formula with the macros written out"
    )


def expanded(text: str) -> str:
    """``text`` with its macro definitions taken out and their uses written out;
    the text each round writes is bounded by _MAX_LENGTH as it is written (a macro
    that doubles its argument)."""
    if "\\" not in text or not _HEAD.search(text):
        return text
    macros: dict[str, _Macro] = {}
    out, at = [], 0
    for m in _HEAD.finditer(text):
        if m.start() < at:
            continue
        macros[m.group(2) or m.group(3)], close = _definition(text, m)
        out.append(text[at : m.start()])
        at = close
    out.append(text[at:])
    formula = "".join(out)
    use = re.compile(r"\\(" + "|".join(map(re.escape, macros)) + r")(?![A-Za-z])")
    for _ in range(_MAX_ROUNDS):
        if not use.search(formula):
            return formula
        pieces, length, at = [], 0, 0
        for u in use.finditer(formula):
            if u.start() < at:
                continue  # inside an argument already taken
            written, end = _use(formula, u.end(), u.group(1), macros[u.group(1)])
            pieces += [formula[at : u.start()], written]
            length += u.start() - at + len(written)
            if length > _MAX_LENGTH:
                raise _too_long()
            at = end
        pieces.append(formula[at:])
        formula = "".join(pieces)
        if len(formula) > _MAX_LENGTH:
            raise _too_long()
    raise MacroProblem(
        "the macros expand without end (a macro that uses itself): type the "
        "formula with the macros written out"
    )
