"""The definition language of the ``%%symact`` cell magic.

One definition per line::

    %%symact --backend cpp
    # a comment; blank lines are ignored
    swish(x; beta=1.0) = x*sigmoid(beta*x)
    bump(x) = exp(-x**2)            # trailing comments are fine too
    prelu(x; a=learnable(0.25)) = Max(0, x) + a*Min(0, x)
    long(x; a=1, b=2) = a*tanh(x) \\
        + b*x                       # a line ending in a backslash continues

With ``--loss`` the definitions are losses of the prediction and the target::

    %%symact --loss
    my_mse(y_pred, y_true) = (y_pred - y_true)**2
    soft_hinge(y_pred, y_true; margin=1) = softplus(margin - y_pred*y_true)

Rules
-----
- ``NAME(INPUTS; CONSTANTS) = FORMULA``. ``NAME`` is a Python identifier, not a keyword,
  not starting with an underscore, and neither a Python builtin (``abs``, ``max``,
  ``print``...) nor a name of the IPython shell (``get_ipython``, ``In``, ``display``...):
  binding those would break the notebook. The same name may not be defined twice in
  one cell.
- ``INPUTS`` is one variable for an activation (``x``) and two for a loss (the
  prediction, then the target: ``y_pred, y_true``). Any identifiers may be used; they
  are renamed to the canonical ``x`` / ``y_pred``, ``y_true`` before parsing. A loss
  whose first input is called ``y_true`` or whose second is called ``y_pred``
  (scikit-learn's order) is refused rather than read the other way round.
- Names, inputs and constants are ASCII (``beta``, not ``β``); a constant may not take
  the name of a function or constant of the formula language (``pi``, ``E``, ``exp``).
- ``CONSTANTS`` (optional, after ``;``) are ``name=value`` pairs separated by commas. A
  value is a finite number (``1``, ``-0.5``, ``1e-2``) or ``learnable(value)`` /
  ``learnable(value, per="neuron")`` to mark the constant trainable.
- ``FORMULA`` is the formula language of :func:`symnb.Activation` (``^`` means power).
- ``#`` starts a comment (formulas contain no strings). A line ending in ``\\``
  continues on the next line.
- A cell of Python functions is read too: ``def swish(x, beta=1.0): return
  x*torch.sigmoid(beta*x)`` is ``swish(x; beta=1.0) = x*torch.sigmoid(beta*x)`` (the
  parameters with a default are the constants; decorators and a docstring are allowed;
  local assignments before the ``return`` are put in; a module class is read by its
  ``forward``).

Errors are :class:`symnb.errors.FormulaError` with the position in the cell: line 1 is
the ``%%symact`` line itself, so the first definition line is line 2 (``first_line``
changes this).
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import math
import re
import tokenize
import unicodedata
from dataclasses import dataclass, field, replace

from symnb.checks import MAX_NAME_CHARS, nonzero_literal
from symnb.errors import FormulaError
from symnb.formula import spellings
from symnb.formula.code_constants import class_declared
from symnb.formula.inline_locals import body_without_docstring
from symnb.formula.python_code import (
    CodeProblem,
    forward_method,
    is_inlined,
    parameter_defaults,
    single_return,
)

#: Longest cell parsed (each formula also has the core's own length limit).
MAX_CELL_CHARS = 4_000_000
ACTIVATION_INPUTS = ("x",)
LOSS_INPUTS = ("y_pred", "y_true")

#: Names an IPython shell defines for itself (in the user namespace or as builtins);
#: binding one of them breaks the notebook (``get_ipython`` runs every magic).
SHELL_NAMES = frozenset({"get_ipython", "display", "exit", "quit", "In", "Out"})

_IDENT = r"[A-Za-z_][A-Za-z_0-9]*"
_HEADER = re.compile(rf"^\s*(?P<name>{_IDENT})?\s*(?P<open>\()?")


@dataclass(frozen=True)
class ConstantSpec:
    """One constant of a definition: name, default value, whether it is trainable."""

    name: str
    value: float
    learnable: bool = False
    per: str | None = None  # "layer" | "neuron" when learnable (None: library default)

    def as_value(self) -> object:
        """The value for :class:`symnb.Activation` (a float or a ``Learnable``)."""
        if not self.learnable:
            return self.value
        import symnb

        if self.per is None:
            return symnb.learnable(self.value)
        return symnb.learnable(self.value, per=self.per)

    def __str__(self) -> str:
        if not self.learnable:
            return f"{self.name}={self.value:g}"
        per = f", per={self.per!r}" if self.per else ""
        return f"{self.name}=learnable({self.value:g}{per})"


@dataclass(frozen=True)
class Definition:
    """One parsed ``name(inputs; constants) = formula`` line of a ``%%symact`` cell."""

    kind: str  # "activation" | "loss"
    name: str
    inputs: tuple[str, ...]  # as the user wrote them
    constants: tuple[ConstantSpec, ...]
    formula: str  # the formula as typed (continuations joined by one space)
    line: int  # cell line (1-based) where the definition starts
    # (offset in ``formula``, cell line, cell column) for each joined segment
    segments: tuple[tuple[int, int, int], ...] = field(default=((0, 1, 1),), repr=False)
    warnings: tuple[str, ...] = ()

    @property
    def signature(self) -> str:
        """``name(x; beta=1)`` as shown in headers."""
        inputs = ", ".join(self.inputs)
        consts = ", ".join(str(c) for c in self.constants)
        return (
            f"{self.name}({inputs}; {consts})" if consts else f"{self.name}({inputs})"
        )

    def canonical_formula(self) -> tuple[str, list[tuple[int, int]]]:
        """The formula with the inputs renamed to ``x`` (or ``y_pred``/``y_true``).

        Returns the text and the renamed positions that :meth:`cell_position` uses to
        map an error column back to the cell.
        """
        canonical = ACTIVATION_INPUTS if self.kind == "activation" else LOSS_INPUTS
        mapping = {u: c for u, c in zip(self.inputs, canonical) if u != c}
        if not mapping:
            return self.formula, []
        return _rename(self.formula, mapping)

    def cell_position(
        self, column: int | None, moves: list[tuple[int, int, int]] | None = None
    ) -> tuple[int, int]:
        """Map a 1-based column of the (canonical) formula to (cell line, column)."""
        if column is None:
            return self.segments[0][1], self.segments[0][2]
        offset = _old_offset(column - 1, moves or [], self.formula)
        offset = max(0, min(offset, len(self.formula)))
        line, col = self.segments[0][1], self.segments[0][2]
        for start, seg_line, seg_col in self.segments:
            if offset >= start:
                line, col = seg_line, seg_col + (offset - start)
        return line, col


def _article(word: str) -> str:
    """'an' before a vowel ('an activation'), else 'a' ('a loss')."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def _rename(
    text: str, mapping: dict[str, str]
) -> tuple[str, list[tuple[int, int, int]]]:
    """Rename NAME tokens of ``text`` (one line), recording where the columns moved.

    Returns the new text and ``(new_start, new_end, old_start)`` for each renamed token.
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return text, []  # let the formula parser report the syntax error
    out: list[str] = []
    moves: list[tuple[int, int, int]] = []
    pos = 0
    length = 0
    for tok in tokens:
        if tok.type != tokenize.NAME or tok.string not in mapping or tok.start[0] != 1:
            continue
        start, end = tok.start[1], tok.end[1]
        out.append(text[pos:start])
        length += start - pos
        new = mapping[tok.string]
        moves.append((length, length + len(new), start))
        out.append(new)
        length += len(new)
        pos = end
    out.append(text[pos:])
    return "".join(out), moves


def _old_offset(offset: int, moves: list[tuple[int, int, int]], old_text: str) -> int:
    """Map a 0-based offset of the renamed text back to the text as typed."""
    for new_start, new_end, old_start in reversed(moves):
        if offset >= new_end:
            # after this token: shift by the difference accumulated so far
            old_end = old_start + _token_len(old_text, old_start)
            return old_end + (offset - new_end)
        if offset >= new_start:
            return old_start
    return offset


def _token_len(text: str, start: int) -> int:
    m = re.match(_IDENT, text[start:])
    return len(m.group(0)) if m else 0


def _strip_comment(line: str) -> str:
    i = line.find("#")
    return line if i < 0 else line[:i]


def _without_continuation(line: str) -> str:
    """``line`` without a trailing line-continuation backslash (and the spaces
    after it)."""
    stripped = line.rstrip()
    return stripped[:-1] if stripped.endswith("\\") else line


def _error(
    message: str, cell: str, line: int, column: int, suggestion: str | None = None
) -> FormulaError:
    return FormulaError(
        message, text=cell, line=line, column=column, suggestion=suggestion
    )


def _parse_value(
    text: str, const: str, cell: str, line: int, column: int
) -> tuple[float, bool, str | None]:
    """A constant's value: a finite number or ``learnable(number[, per=...])``."""
    hint = "a constant's value is a number such as 1.0, or learnable(1.0)"
    if not text.strip():
        raise _error(f"constant {const!r} has no value", cell, line, column, hint)
    if len(text) > 200:
        raise _error(f"the value of {const!r} is too long", cell, line, column, hint)
    source = text.strip()
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        raise _error(
            f"cannot read the value of constant {const!r}: {text.strip()!r}",
            cell,
            line,
            column,
            hint,
        ) from None

    def number(n: ast.AST) -> float:
        sign = 1.0
        while isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            if isinstance(n.op, ast.USub):
                sign = -sign
            n = n.operand
        if (
            isinstance(n, ast.Constant)
            and isinstance(n.value, (int, float))
            and not isinstance(n.value, bool)
        ):
            if isinstance(n.value, int) and abs(n.value) > 10**300:
                raise ValueError("too large")
            v = sign * float(n.value)
            if not math.isfinite(v):
                raise ValueError("not finite")
            literal = ast.get_source_segment(source, n)
            if isinstance(n.value, float) and v == 0.0 and nonzero_literal(literal):
                raise ValueError("underflow")  # 1e-400 reads as 0.0
            return v
        if isinstance(n, ast.Name) and n.id.lower() in ("nan", "inf", "infinity"):
            raise ValueError("not finite")  # was "cannot read the value"
        raise ValueError("not a number")

    try:
        if isinstance(node, ast.Call):
            fn = node.func
            fname = (
                fn.id
                if isinstance(fn, ast.Name)
                else (
                    fn.attr
                    if isinstance(fn, ast.Attribute)
                    and isinstance(fn.value, ast.Name)
                    and fn.value.id == "symnb"
                    else None
                )
            )
            if fname != "learnable":
                raise ValueError("call")
            if len(node.args) != 1:
                raise ValueError("learnable takes one value")
            value = number(node.args[0])
            per = None
            for kw in node.keywords:
                if kw.arg != "per":
                    raise ValueError("bad keyword")
                if not (
                    isinstance(kw.value, ast.Constant)
                    and kw.value.value in ("layer", "neuron")
                ):
                    raise ValueError("bad per")
                per = kw.value.value
            return value, True, per
        return number(node), False, None
    except ValueError as exc:
        why = str(exc)
        if why == "not finite":
            msg = f"constant {const!r} must be a finite number, not {text.strip()!r}"
        elif why == "underflow":
            msg = (
                f"constant {const!r} = {text.strip()!r} is too small for a float "
                "(it would be 0); the smallest nonzero magnitude is about 5e-324"
            )
        elif why == "bad per":
            per = next(k.value for k in node.keywords if k.arg == "per")
            msg = (
                f"learnable's per= of constant {const!r} is "
                f"{_short(ast.get_source_segment(source, per) or '?')}; "
                'per= takes "layer" (one value for the layer, the default) or '
                '"neuron" (one value per neuron)'
            )
        else:
            msg = f"cannot read the value of constant {const!r}: {text.strip()!r}"
        raise _error(
            msg,
            cell,
            line,
            column,
            hint + ' (learnable(v, per="neuron") for one value per neuron)',
        ) from None


def _short(text: str) -> str:
    """``repr(text)``, cut to about 40 characters for messages."""
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


def _check_length(name: str, what: str, cell: str, line: int, column: int) -> None:
    if len(name) > MAX_NAME_CHARS:
        raise _error(
            f"{what} {_short(name)} is {len(name):,} characters long; names, inputs "
            f"and constants have at most {MAX_NAME_CHARS}",
            cell,
            line,
            column,
            "choose a shorter name",
        )


def _check_name(name: str, what: str, cell: str, line: int, column: int) -> None:
    _check_length(name, what, cell, line, column)
    # the underscore rule first: '_' is also a soft keyword, whose hint ('__')
    # named another reserved name
    if name.startswith("_"):
        raise _error(
            f"{what} {name!r} starts with an underscore",
            cell,
            line,
            column,
            "names starting with _ are reserved; start with a letter, e.g. "
            f"my{name if name.strip('_') else '_f'}",
        )
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        raise _error(
            f"{what} {name!r} is a Python keyword",
            cell,
            line,
            column,
            f"choose another name, e.g. {name}_",
        )
    if what == "name" and (hasattr(builtins, name) or name in SHELL_NAMES):
        owner = "IPython shell" if name in SHELL_NAMES else "Python builtin"
        raise _error(
            f"{what} {name!r} would hide the {owner} {name!r} in this notebook",
            cell,
            line,
            column,
            f"choose another name, e.g. my_{name}",
        )


def parse_cell(
    cell: str, *, loss: bool = False, first_line: int = 2
) -> list[Definition]:
    """Parse the body of a ``%%symact`` cell into definitions.

    Parameters
    ----------
    cell:
        The cell body (without the ``%%symact`` line).
    loss:
        Parse loss definitions (two inputs) instead of activations (one input).
    first_line:
        The cell line number of the body's first line (2: the magic line is line 1).

    Raises
    ------
    FormulaError
        With the cell line and column, for the first malformed definition.
    """
    if len(cell) > MAX_CELL_CHARS:
        raise FormulaError(
            f"the cell is too long (more than {MAX_CELL_CHARS:,} characters)",
            suggestion="split it into several cells",
        )
    kind = "loss" if loss else "activation"
    n_inputs = 2 if loss else 1
    text = cell.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        before = text[: text.index("\x00")]
        line = first_line + before.count("\n")
        column = len(before) - (before.rfind("\n") + 1) + 1
        raise FormulaError(
            "the cell contains a NUL character (U+0000)",
            line=line,
            column=column,
            suggestion="delete it",
        )
    raw_lines = text.split("\n")
    # cell text used to render carets: prefix one line for the magic line
    shown = "\n" * (first_line - 1) + text
    defs: list[Definition] = []
    seen: dict[str, int] = {}
    functions = _python_functions(text)
    if functions is not None:
        return [
            _function_definition(f, raw_lines, shown, kind, n_inputs, first_line, seen)
            for f in functions
        ]
    i = 0
    while i < len(raw_lines):
        line_no = first_line + i
        stripped = _strip_comment(raw_lines[i])
        if not stripped.strip():
            i += 1
            continue
        # gather continuation lines: (text, cell line, cell column of text[0])
        pieces: list[tuple[str, int, int]] = [(stripped, line_no, 1)]
        while pieces[-1][0].rstrip().endswith("\\"):
            last, ln, col = pieces[-1]
            pieces[-1] = (last.rstrip()[:-1], ln, col)
            i += 1
            # comment lines inside a continuation are skipped (they held the
            # next line of the formula back: "a definition must start with a name")
            while i < len(raw_lines) and raw_lines[i].lstrip().startswith("#"):
                i += 1
            if not "".join(map(_strip_comment, raw_lines[i:])).strip():
                raise _error(
                    "the cell ends after a line continuation '\\'",
                    shown,
                    ln,
                    len(last.rstrip()),
                    "remove the trailing backslash",
                )
            if not raw_lines[i].strip():
                # as in Python: a continued line does not end at an empty line
                raise _error(
                    f"the line continuation '\\' on line {ln} is followed by an "
                    "empty line",
                    shown,
                    ln,
                    len(last.rstrip()),
                    "remove the backslash, or the empty line",
                )
            pieces.append((_strip_comment(raw_lines[i]), first_line + i, 1))
        i += 1
        defs.append(_parse_definition(pieces, shown, kind, n_inputs, seen))
    return defs


_PYTHON_START = re.compile(r"\s*(?:#[^\n]*\n\s*)*(?:@|def\b|class\b)")


def _python_functions(text: str) -> list[ast.FunctionDef] | None:
    """The functions of a cell written as Python (``def swish(x, beta=1.0): return
    ...``), else None (a cell of definition lines, or code that is not only defs)."""
    if not text.isascii() or not _PYTHON_START.match(text):
        return None
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not module.body or not all(
        isinstance(n, (ast.FunctionDef, ast.ClassDef)) for n in module.body
    ):
        return None
    return list(module.body)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _class_method(
    node: ast.ClassDef, cell: str, line_no: int
) -> tuple[ast.FunctionDef, str]:
    """A module class's forward (``forward``/``call``/``__call__``) and its constants
    as ``name=value`` text (from ``__init__``/``build``: see
    :func:`symnb.formula.code_constants.class_declared`)."""
    try:
        method = forward_method(node)
    except CodeProblem as problem:
        raise _error(
            str(problem),
            cell,
            line_no,
            node.col_offset + 1,
            "paste a class with one forward(self, x) that returns the formula",
        ) from None
    found = class_declared(node)
    constants = ", ".join(
        f"{name}=learnable({value!r})" if trainable else f"{name}={value!r}"
        for name, (value, trainable) in (found.constants if found else {}).items()
    )
    return method, constants


def _function_definition(
    node: ast.FunctionDef | ast.ClassDef,
    lines: list[str],
    cell: str,
    kind: str,
    n_inputs: int,
    first_line: int,
    seen: dict[str, int],
) -> Definition:
    """``def swish(x, beta=1.0): return x*sigmoid(beta*x)`` as ``swish(x; beta=1.0) =
    x*sigmoid(beta*x)``: the parameters without a default are the inputs, those with
    one the constants (a number or ``learnable(...)``), the one returned expression
    the formula; errors point into the function's text."""
    line_no = first_line + node.lineno - 1
    name, class_constants = node.name, None
    if isinstance(node, ast.ClassDef):  # an nn.Module / Keras layer: its forward
        node, class_constants = _class_method(node, cell, line_no)
    try:
        expr = single_return(node)
    except CodeProblem as problem:
        raise _error(
            str(problem),
            cell,
            first_line + problem.lineno - 1,
            problem.col_offset + 1,
            "return one expression (local assignments before it are put in)",
        ) from None
    params, defaults = parameter_defaults(node.args)
    inputs = [a for a in params if a not in defaults]
    source = "\n".join(lines)
    constants = ", ".join(
        f"{param}={ast.get_source_segment(source, value)}"
        for param, value in defaults.items()
        # a flag (inplace=False), a string or None is an option, no constant
        if not (isinstance(value, ast.Constant) and not _is_number(value.value))
    )
    if class_constants is not None:
        constants = ", ".join(c for c in (class_constants, constants) if c)
    if is_inlined(node, expr):  # assignments put in: one line, at the return
        last = body_without_docstring(node.body)[-1]
        at = last.value if isinstance(last, ast.Return) and last.value else last
        expr_line, expr_column = at.lineno, at.col_offset
        text_lines = [ast.unparse(expr)]
    else:
        expr_line, expr_column = expr.lineno, expr.col_offset
        text_lines = lines[expr.lineno - 1 : expr.end_lineno]
        text_lines[-1] = text_lines[-1][: expr.end_col_offset]
        text_lines[0] = text_lines[0][expr.col_offset :]
        # the expression's own lines, as Python reads them: without comments and
        # continuation backslashes ("return x + \\" reached the formula parser
        # as "x + \\ 1", and "(x +  # note" as a product "note*...")
        text_lines = [_without_continuation(_strip_comment(t)) for t in text_lines]
    head = f"{name}({', '.join(inputs)}{'; ' + constants if constants else ''}) = "
    if len(inputs) != n_inputs:
        want = "one input (x)" if n_inputs == 1 else "two inputs (y_pred, y_true)"
        raise _error(
            f"function {node.name} has {len(inputs)} parameter(s) without a default; "
            f"{'a loss' if kind == 'loss' else 'an activation'} takes {want}",
            cell,
            line_no,
            node.col_offset + 1,
            "give the constants defaults (def f(x, beta=1.0): ...)",
        )
    pieces = [(head + text_lines[0], line_no, 1)]
    pieces += [
        (t, first_line + expr_line - 1 + k, 1) for k, t in enumerate(text_lines[1:], 1)
    ]
    definition = _parse_definition(pieces, cell, kind, n_inputs, seen)
    segments = [(0, first_line + expr_line - 1, expr_column + 1)]
    formula = text_lines[0].strip()
    for k, t in enumerate(text_lines[1:], 1):
        if t.strip():
            segments.append(
                (
                    len(formula) + 1,
                    first_line + expr_line - 1 + k,
                    len(t) - len(t.lstrip()) + 1,
                )
            )
            formula += " " + t.strip()
    return replace(definition, segments=tuple(segments), line=line_no)


def _parse_definition(
    pieces: list[tuple[str, int, int]],
    cell: str,
    kind: str,
    n_inputs: int,
    seen: dict[str, int],
) -> Definition:
    head, line_no, _ = pieces[0]
    example = (
        "name(y_pred, y_true; k=1.0) = formula"
        if kind == "loss"
        else "name(x; k=1.0) = formula"
    )
    _check_ascii_header(head, cell, line_no)
    m = _HEADER.match(head)
    name = m.group("name") if m else None
    if not name:
        col = len(head) - len(head.lstrip()) + 1
        raise _error(
            "a definition must start with a name",
            cell,
            line_no,
            col,
            f"write {example}",
        )
    name_col = head.index(name) + 1
    _check_length(name, "name", cell, line_no, name_col)
    if not m.group("open"):
        col = m.end() + 1
        raise _error(
            f"expected '(' after {name!r}",
            cell,
            line_no,
            col,
            f"write {example}",
        )
    open_at = m.end() - 1
    close_at = _matching_paren(head, open_at)
    if close_at < 0:
        split = len(pieces) > 1
        raise _error(
            f"missing ')' after the inputs of {name!r}"
            + (" (a line continuation '\\' split them)" if split else ""),
            cell,
            line_no,
            len(head) + 1,
            f"write {example}"
            + (
                " with the head on one line (continue only the formula)"
                if split
                else ""
            ),
        )
    rest = head[close_at + 1 :]
    eq_rel = rest.find("=")
    if eq_rel < 0 or rest[:eq_rel].strip():
        col = close_at + 2 + (len(rest) - len(rest.lstrip()))
        raise _error(
            f"expected '=' after {name}(...)",
            cell,
            line_no,
            col,
            f"write {example}",
        )
    _check_name(name, "name", cell, line_no, name_col)
    if name in seen:
        raise _error(
            f"{name!r} is defined twice in this cell (first on line {seen[name]})",
            cell,
            line_no,
            name_col,
            "give each definition its own name",
        )
    inside = head[open_at + 1 : close_at]
    inputs_text, _, consts_text = inside.partition(";")
    # inputs
    inputs: list[str] = []
    offset = open_at + 2
    for part in inputs_text.split(","):
        col = offset + len(part) - len(part.lstrip())
        ident = part.strip()
        offset += len(part) + 1
        if not ident:
            continue
        if "=" in ident:
            raise _error(
                "constants go after a ';'",
                cell,
                line_no,
                col,
                f"write {example}",
            )
        if not re.fullmatch(_IDENT, ident):
            raise _error(
                f"input {_short(ident)} is not a name",
                cell,
                line_no,
                col,
                f"write {example}",
            )
        _check_name(ident, "input", cell, line_no, col)
        if ident in _reserved_names():
            raise _error(
                f"input {ident!r} is the name of a function or constant of the formula "
                "language",
                cell,
                line_no,
                col,
                f"write {example}",
            )
        inputs.append(ident)
    if len(inputs) != n_inputs:
        want = (
            "two inputs (prediction, target): name(y_pred, y_true)"
            if kind == "loss"
            else "one input: name(x)"
        )
        extra = "" if kind == "loss" else " (use %%symact --loss for losses)"
        raise _error(
            f"{name!r} has {len(inputs)} input(s); {_article(kind)} {kind} takes "
            f"{want}{extra}",
            cell,
            line_no,
            open_at + 2,
            f"write {example}",
        )
    if len(set(inputs)) != len(inputs):
        raise _error(
            f"the inputs of {name!r} repeat a name",
            cell,
            line_no,
            open_at + 2,
            "give each input its own name",
        )
    roles = [spellings.variable_alias(n, LOSS_INPUTS) or n for n in inputs]
    if kind == "loss" and (roles[0] == "y_true" or roles[1] == "y_pred"):
        # inputs are positional (prediction first): l(y_true, y_pred), the order of
        # scikit-learn's metrics, silently made y_true the prediction (so would
        # l(y, y_hat) or l(target, output): names formulas read as the other role)
        raise _error(
            f"{name}({', '.join(inputs)}): a loss takes the prediction first and the "
            f"target second, so {inputs[0]!r} would be the prediction",
            cell,
            line_no,
            open_at + 2,
            f"write {name}(y_pred, y_true) = ...",
        )
    # constants
    constants: list[ConstantSpec] = []
    if consts_text.strip():
        offset = open_at + 2 + len(inputs_text) + 1
        for part in _split_commas(consts_text):
            col = offset + len(part) - len(part.lstrip())
            offset += len(part) + 1
            if not part.strip():
                continue
            cname, eq, value = part.partition("=")
            cname = cname.strip()
            if not eq:
                raise _error(
                    f"constant {_short(cname)} needs a value",
                    cell,
                    line_no,
                    col,
                    f"write {cname if len(cname) <= 40 else 'name'}=1.0",
                )
            if not re.fullmatch(_IDENT, cname):
                raise _error(
                    f"constant name {_short(cname)} is not a name",
                    cell,
                    line_no,
                    col,
                    "write name=value, e.g. beta=1.0",
                )
            _check_name(cname, "constant", cell, line_no, col)
            if cname in _reserved_names():
                # a constant 'pi' replaced the number pi in the kernels while the
                # LaTeX still showed the Greek letter
                raise _error(
                    f"constant {cname!r} has the name of a function or constant of "
                    "the formula language",
                    cell,
                    line_no,
                    col,
                    f"rename the constant, e.g. {cname}_",
                )
            canonical = ACTIVATION_INPUTS if kind == "activation" else LOSS_INPUTS
            if cname in inputs or cname in canonical:
                what = (
                    "an input"
                    if cname in inputs
                    else f"the input of {_article(kind)} {kind}"
                )
                raise _error(
                    f"constant {cname!r} has the name of {what}",
                    cell,
                    line_no,
                    col,
                    "rename the constant",
                )
            if any(c.name == cname for c in constants):
                raise _error(
                    f"constant {cname!r} is given twice",
                    cell,
                    line_no,
                    col,
                    "give it once",
                )
            vcol = col + len(part.lstrip()) - len(value)
            v, is_learnable, per = _parse_value(value, cname, cell, line_no, vcol)
            constants.append(ConstantSpec(cname, v, is_learnable, per))
    # formula: the text after '=', plus continuation pieces
    eq_col0 = close_at + 1 + eq_rel  # 0-based column of '='
    first = head[eq_col0 + 1 :]
    lead = len(first) - len(first.lstrip())
    formula = first.strip()
    segments = [(0, line_no, eq_col0 + 2 + lead)]
    for text, ln, _ in pieces[1:]:
        lead = len(text) - len(text.lstrip())
        piece = text.strip()
        if not piece:
            continue
        if formula:
            formula += " "
        segments.append((len(formula), ln, lead + 1))
        formula += piece
    if not formula:
        raise _error(
            f"{name!r} has no formula after '='",
            cell,
            line_no,
            eq_col0 + 2,
            f"write {example}",
        )
    seen[name] = line_no
    definition = Definition(
        kind=kind,
        name=name,
        inputs=tuple(inputs),
        constants=tuple(constants),
        formula=formula,
        line=line_no,
        segments=tuple(segments),
    )
    _check_stray_canonical(definition, cell)
    return definition


def _check_ascii_header(head: str, cell: str, line_no: int) -> None:
    """Names, inputs and constants are ASCII identifiers: name the first other
    character of the header (before the formula's '=') and what to type instead.
    ``fä(x)`` was "expected '(' after 'f'"; a byte-order mark or ``ƒ`` was "a
    definition must start with a name"."""
    depth = 0
    for k, ch in enumerate(head):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "=" and depth <= 0:
            return
        elif ord(ch) > 127:
            what = unicodedata.name(ch, "")
            shown = f"U+{ord(ch):04X}" + (f" {what}" if what else "")
            greek = re.fullmatch(r"GREEK (SMALL|CAPITAL) LETTER (\w+)", what)
            if greek:
                word = greek.group(2).lower()
                hint = f"write {word if greek.group(1) == 'SMALL' else word.title()}"
            elif unicodedata.category(ch) in ("Cf", "Zs", "Zl", "Zp"):
                hint = "delete it (an invisible character, e.g. from a copy-paste)"
            else:
                hint = "retype it with ASCII letters, digits and _"
            raise _error(
                f"character {ch!r} ({shown}) is not allowed before the formula: "
                "names, inputs and constants are ASCII letters, digits and _",
                cell,
                line_no,
                k + 1,
                hint,
            )


def _split_commas(text: str) -> list[str]:
    """Split on commas that are not inside parentheses (``learnable(1, per=...)``)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for k, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:k])
            start = k + 1
    parts.append(text[start:])
    return parts


def _matching_paren(text: str, open_at: int) -> int:
    """Index of the ')' closing the '(' at ``open_at``, or -1."""
    depth = 0
    for k in range(open_at, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return -1


def _reserved_names() -> set[str]:
    """Function and constant names of the formula language (not usable as inputs)."""
    try:
        from symnb.formula.functions import ALLOWED_CONSTANTS, ALLOWED_FUNCTIONS
    except ImportError:  # pragma: no cover - the core always has them
        return set()
    return set(ALLOWED_FUNCTIONS) | set(ALLOWED_CONSTANTS)


def _check_stray_canonical(definition: Definition, cell: str) -> None:
    """With inputs renamed (``f(z) = ...``), a literal ``x`` would silently become the
    input: report it as the unknown symbol it is."""
    canonical = ACTIVATION_INPUTS if definition.kind == "activation" else LOSS_INPUTS
    stray = {c for c in canonical if c not in definition.inputs}
    if definition.kind == "loss" and tuple(definition.inputs) != LOSS_INPUTS:
        # y, y_hat, target... are the loss's inputs only under their canonical names
        stray |= set(spellings.LOSS_VARIABLES) - set(definition.inputs)
    stray -= {c.name for c in definition.constants}
    if not stray:
        return
    try:
        tokens = list(
            tokenize.generate_tokens(io.StringIO(definition.formula).readline)
        )
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string in stray and tok.start[0] == 1:
            line, col = definition.cell_position(tok.start[1] + 1)
            inputs = ", ".join(definition.inputs)
            raise _error(
                f"unknown symbol {tok.string!r}: the input of {definition.name!r} is "
                f"called {inputs}",
                cell,
                line,
                col,
                f"use {inputs} in the formula, or declare {tok.string} as a constant",
            )
