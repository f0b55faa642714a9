"""Safe formula text -> SymPy expression.

The text is never handed to ``eval``, ``sympify`` or ``parse_expr``. It is checked (length,
characters, bracket depth), ``^`` is rewritten to ``**``, then ``ast.parse(..., mode="eval")``
builds a syntax tree that is walked with a whitelist; every SymPy object is built here.

Limits (all checked before SymPy sees anything expensive):

- at most :data:`MAX_LENGTH` characters, :data:`MAX_NODES` syntax nodes and a nesting depth of
  :data:`MAX_DEPTH` (a chain ``a + b + c ...`` or ``a * b * c ...`` counts as one level);
- numbers must be finite reals of magnitude at most :data:`MAX_MAGNITUDE`; a numeric exponent
  must satisfy ``|n| <= MAX_EXPONENT``; constant sub-expressions are estimated in floating point
  *before* SymPy evaluates them, so ``9**9**9**9`` is refused at once;
- the whole parse has a time budget of :data:`TIME_BUDGET_SECONDS`.

Every error is a :class:`symnb.errors.FormulaError` with a 1-based line and column where there
is a position, and a suggestion where there is one.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import keyword
import math
import re
import time
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import sympy as sp

from symnb.errors import FormulaError
from symnb.formula.budget import check_minmax_arity
from symnb.formula.functions import ALLOWED_CONSTANTS, ALLOWED_FUNCTIONS

#: Longest formula text accepted, in characters.
MAX_LENGTH = 20_000
#: Most syntax-tree nodes accepted.
MAX_NODES = 5_000
#: Deepest nesting accepted (brackets, and syntax-tree levels; flat sums/products count once).
MAX_DEPTH = 100
#: Longest run of consecutive signs (``- - - x``) accepted.
MAX_SIGN_RUN = 50
#: Largest magnitude of a number (literal or constant sub-expression).
MAX_MAGNITUDE = 1e300
#: Largest magnitude of a numeric exponent.
MAX_EXPONENT = 1000
#: Wall-clock budget for one parse, in seconds (checked between syntax nodes).
TIME_BUDGET_SECONDS = 10.0

#: Function names preferred by the did-you-mean suggestions.
PREFERRED_FUNCTIONS = (
    "sigmoid",
    "tanh",
    "softplus",
    "relu",
    "logsigmoid",
    "exp",
    "log",
    "sqrt",
    "abs",
    "max",
    "min",
    "erf",
    "where",
    "Heaviside",
    "Piecewise",
    "log1p",
    "expm1",
)

# Look-alike characters and the ASCII to type instead.
_LOOKALIKES: dict[str, str] = {
    "\u2212": "-",  # MINUS SIGN
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",  # EN DASH
    "\u2014": "-",  # EM DASH
    "\u2015": "-",
    "\ufe63": "-",
    "\uff0d": "-",
    "\u00d7": "*",  # MULTIPLICATION SIGN
    "\u00b7": "*",  # MIDDLE DOT
    "\u22c5": "*",  # DOT OPERATOR
    "\u2219": "*",
    "\u2217": "*",
    "\u2022": "*",
    "\u00f7": "/",  # DIVISION SIGN
    "\u2215": "/",
    "\u2044": "/",
    "\u2070": "**0",
    "\u00b9": "**1",
    "\u00b2": "**2",
    "\u00b3": "**3",
    "\u2074": "**4",
    "\u2075": "**5",
    "\u2076": "**6",
    "\u2077": "**7",
    "\u2078": "**8",
    "\u2079": "**9",
    "\u207b": "**-",
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u2032": "'",
    "\u00a0": " ",  # NO-BREAK SPACE
    "\u2007": " ",
    "\u2009": " ",
    "\u200a": " ",
    "\u202f": " ",
    "\u3000": " ",
    "\u2264": "<=",
    "\u2265": ">=",
    "\u2260": "!=",
    "\u221a": "sqrt(...)",
    "\u03c0": "pi",
    "\u221e": "a finite number",
    "\u2026": "...",
}
_REMOVE = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\x00"}
_GREEK_SPELLING = {"lamda": "lam", "lambda": "lam"}

_NOT_FINITE_NAMES = {"inf", "infinity", "Infinity", "oo", "nan", "NaN", "zoo"}
_COMPLEX_NAMES = {"I", "j", "J"}

_SIGN_RUN = re.compile(rf"[-+~](?:\s*[-+~]){{{MAX_SIGN_RUN},}}")
_TOKEN = re.compile(
    r"(?P<num>0[xXoObB][0-9a-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[jJ]?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<open>\()"
    r"|(?P<close>\))"
    r"|(?P<space>\s+)"
    r"|(?P<other>.)",
    re.DOTALL,
)

_COMPARE_OPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: sp.StrictLessThan,
    ast.LtE: sp.LessThan,
    ast.Gt: sp.StrictGreaterThan,
    ast.GtE: sp.GreaterThan,
    ast.Eq: sp.Eq,
    ast.NotEq: sp.Ne,
}
_OPERATOR_TEXT = {
    ast.Mod: "%",
    ast.FloorDiv: "//",
    ast.MatMult: "@",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
}
_NODE_DESCRIPTION = {
    ast.Attribute: "attribute access",
    ast.Subscript: "indexing",
    ast.Slice: "slicing",
    ast.Lambda: "lambda",
    ast.ListComp: "comprehensions",
    ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions",
    ast.GeneratorExp: "comprehensions",
    ast.JoinedStr: "strings",
    ast.FormattedValue: "strings",
    ast.NamedExpr: "assignment (:=)",
    ast.Starred: "starred arguments",
    ast.List: "lists",
    ast.Set: "sets",
    ast.Dict: "dictionaries",
    ast.Tuple: "tuples",
    ast.IfExp: "'a if cond else b'",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
}


class _Val:
    """A built SymPy object plus a float estimate of it when it is a plain number."""

    __slots__ = ("approx", "expr")

    def __init__(self, expr: Any, approx: float | None = None) -> None:
        self.expr = expr
        self.approx = approx


def _sigmoid_f(u: float) -> float:
    if u >= 0:
        return 1.0 / (1.0 + math.exp(-u))
    e = math.exp(u)
    return e / (1.0 + e)


def _softplus_f(u: float) -> float:
    return max(u, 0.0) + math.log1p(math.exp(-abs(u)))


def _logsigmoid_f(u: float) -> float:
    return min(u, 0.0) - math.log1p(math.exp(-abs(u)))


def _log_f(u: float, base: float | None = None) -> float:
    if base is None:
        return math.log(u)
    return math.log(u) / math.log(base)


def _cbrt_f(u: float) -> float:
    if u < 0:
        raise ValueError("negative argument")
    return u ** (1.0 / 3.0)


def _heaviside_f(u: float, h0: float = 0.0) -> float:
    return 1.0 if u > 0 else (h0 if u == 0 else 0.0)


def _sign_f(u: float) -> float:
    return 0.0 if u == 0 else math.copysign(1.0, u)


# Float estimates of the allowed functions, by canonical name (looked up by callable).
_APPROX_BY_NAME: dict[str, Callable[..., float]] = {
    "exp": math.exp,
    "log": _log_f,
    "sqrt": math.sqrt,
    "cbrt": _cbrt_f,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "sinh": math.sinh,
    "cosh": math.cosh,
    "tanh": math.tanh,
    "asinh": math.asinh,
    "acosh": math.acosh,
    "atanh": math.atanh,
    "erf": math.erf,
    "erfc": math.erfc,
    "abs": abs,
    "sign": _sign_f,
    "max": lambda *a: max(a),
    "min": lambda *a: min(a),
    "floor": lambda u: float(math.floor(u)),
    "ceiling": lambda u: float(math.ceil(u)),
    "Heaviside": _heaviside_f,
    "sigmoid": _sigmoid_f,
    "softplus": _softplus_f,
    "logsigmoid": _logsigmoid_f,
    "log1p": math.log1p,
    "expm1": math.expm1,
    "relu": lambda u: max(0.0, u),
    "log10": lambda u: _log_f(u) / math.log(10.0),
    "log2": lambda u: _log_f(u) / math.log(2.0),
    "sech": lambda u: 1.0 / math.cosh(u),
    "clip": lambda u, lo, hi: min(max(u, lo), hi),
}
_APPROX_BY_CALLABLE: dict[int, Callable[..., float]] = {
    id(ALLOWED_FUNCTIONS[name]): fn
    for name, fn in _APPROX_BY_NAME.items()
    if name in ALLOWED_FUNCTIONS
}


def _is_piecewise(fn: Any) -> bool:
    return fn is sp.Piecewise


def _is_where(fn: Any) -> bool:
    return fn is ALLOWED_FUNCTIONS.get("where")


def _suggest(
    word: str, candidates: Iterable[str], preferred: Iterable[str] = ()
) -> str | None:
    """The closest candidate (case-insensitive), nudged toward ``preferred`` names."""
    preferred = {p.lower() for p in preferred}
    best: tuple[float, str] | None = None
    low = word.lower()
    for cand in candidates:
        ratio = difflib.SequenceMatcher(None, low, cand.lower()).ratio()
        if cand.lower() == low:
            ratio = 1.5
        if cand.lower() in preferred:
            ratio += 0.15
        if word[:1].isupper() == cand[:1].isupper():
            ratio += 0.01  # 'max' for 'mux', 'Max' for 'Mux'
        if ratio >= 0.65 and (best is None or ratio > best[0]):
            best = (ratio, cand)
    return None if best is None else best[1]


def _char_advice(ch: str) -> str | None:
    """The ASCII to type instead of a non-ASCII character, or None to just remove it."""
    if ch in _LOOKALIKES:
        return _LOOKALIKES[ch]
    if ch in _REMOVE:
        return None
    name = unicodedata.name(ch, "")
    if name.startswith("GREEK ") and " LETTER " in name:
        spelled = name.rsplit(" ", 1)[-1].lower()
        spelled = _GREEK_SPELLING.get(spelled, spelled)
        return spelled if "CAPITAL" not in name else spelled.capitalize()
    folded = unicodedata.normalize("NFKC", ch)
    if folded != ch and folded.isascii() and folded.isprintable():
        return folded
    if 0xFF01 <= ord(ch) <= 0xFF5E:
        return chr(ord(ch) - 0xFEE0)
    return ""


class _Parser:
    def __init__(
        self,
        text: str,
        variables: tuple[str, ...],
        constants: tuple[str, ...],
        functions: Mapping[str, Any],
    ) -> None:
        self.text = text
        self.variables = variables
        self.constants = constants
        self.functions = functions
        self.deadline = time.monotonic() + TIME_BUDGET_SECONDS
        self.symbols: dict[str, sp.Symbol] = {
            name: sp.Symbol(name, real=True) for name in (*variables, *constants)
        }
        self.named_constants = {
            k: v for k, v in ALLOWED_CONSTANTS.items() if k not in self.symbols
        }
        self.lines = self._split_lines(text)
        # col_map[line_index][processed_column] -> original 0-based column
        self.col_map: list[list[int]] = []
        self.wrapped = False
        self.processed_text = text
        self.processed_lines: list[str] = []

    # ----------------------------------------------------------------- positions
    @staticmethod
    def _split_lines(text: str) -> list[str]:
        return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")

    def error(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        suggestion: str | None = None,
    ) -> FormulaError:
        return FormulaError(message, self.text, line, column, suggestion)

    def position(
        self, lineno: int | None, col: int | None
    ) -> tuple[int | None, int | None]:
        """1-based (line, column) in the user's text of a 0-based processed position."""
        if lineno is None or col is None:
            return None, None
        if self.wrapped:
            if lineno == 1:
                col -= 1
            if lineno > len(self.lines):  # the closing wrapper line
                lineno = len(self.lines)
                col = 10**9
        lineno = max(1, min(lineno, len(self.lines)))
        cmap = self.col_map[lineno - 1] if lineno - 1 < len(self.col_map) else []
        col = max(col, 0)
        if col < len(cmap):
            orig = cmap[col]
        else:
            orig = len(self.lines[lineno - 1])
        return lineno, orig + 1

    def node_error(
        self, node: ast.AST, message: str, suggestion: str | None = None
    ) -> FormulaError:
        line, col = self.position(
            getattr(node, "lineno", None), getattr(node, "col_offset", None)
        )
        return self.error(message, line, col, suggestion)

    # ----------------------------------------------------------------- checks
    def check_characters(self) -> None:
        for li, line in enumerate(self.lines):
            for ci, ch in enumerate(line):
                if ch.isascii() and (ch.isprintable() or ch in "\t"):
                    continue
                if ch == "\r":
                    continue
                code = f"U+{ord(ch):04X}"
                uname = unicodedata.name(ch, "")
                label = f"{ch!r} ({code}{' ' + uname if uname else ''})"
                advice = _char_advice(ch)
                if ch.isascii():  # control characters (NUL, form feed, ...)
                    raise self.error(
                        f"control character {label} is not allowed",
                        li + 1,
                        ci + 1,
                        "remove it",
                    )
                if advice is None:
                    raise self.error(
                        f"invisible character {label} is not allowed",
                        li + 1,
                        ci + 1,
                        "remove it",
                    )
                if advice == "":
                    raise self.error(
                        f"character {label} is not allowed: formulas are plain ASCII",
                        li + 1,
                        ci + 1,
                        "retype it with ASCII letters, digits and operators",
                    )
                raise self.error(
                    f"character {label} is not allowed; type {advice!r} instead",
                    li + 1,
                    ci + 1,
                    f"type {advice!r} instead of {ch!r}",
                )

    def check_nesting(self) -> None:
        depth = 0
        for li, line in enumerate(self.lines):
            for ci, ch in enumerate(line):
                if ch in "([{":
                    depth += 1
                    if depth > MAX_DEPTH:
                        raise self.error(
                            f"formula is nested too deeply (more than {MAX_DEPTH} brackets)",
                            li + 1,
                            ci + 1,
                            "simplify the formula",
                        )
                elif ch in ")]}":
                    depth = max(0, depth - 1)
            m = _SIGN_RUN.search(line)
            if m:
                raise self.error(
                    f"too many consecutive signs (more than {MAX_SIGN_RUN})",
                    li + 1,
                    m.start() + 1,
                    "simplify the signs",
                )

    def preprocess(self) -> str:
        """Rewrite ``^`` to ``**`` (keeping a column map) and normalise line ends."""
        out_lines = []
        self.col_map = []
        for line in self.lines:
            chars: list[str] = []
            cmap: list[int] = []
            for ci, ch in enumerate(line):
                if ch == "^":
                    chars.append("**")
                    cmap.extend((ci, ci))
                else:
                    chars.append(ch)
                    cmap.append(ci)
            out_lines.append("".join(chars))
            self.col_map.append(cmap)
        return "\n".join(out_lines)

    def implicit_multiplication(self) -> tuple[int, int, str, str] | None:
        """First place where two operands touch (``2x``, ``(a)(b)``, ``beta x``)."""
        prev: tuple[str, str] | None = None
        for li, line in enumerate(self.lines):
            for m in _TOKEN.finditer(line):
                kind = m.lastgroup
                tok = m.group()
                if kind == "space":
                    continue
                if kind == "name" and keyword.iskeyword(tok):
                    prev = ("other", tok)
                    continue
                if prev is not None:
                    pk, ptok = prev
                    left_ok = pk in ("num", "close") or (
                        pk == "name" and ptok not in self.functions
                    )
                    right_ok = kind in ("num", "name", "open")
                    if pk == "name" and kind == "open":
                        right_ok = False  # a call; checked when building
                    if left_ok and right_ok:
                        return li + 1, m.start() + 1, ptok, tok
                prev = (kind, tok)
        return None

    def check_tree(self, tree: ast.AST) -> None:
        """Node count and nesting depth, iteratively (no recursion on deep trees)."""
        count = 0
        body = tree.body if isinstance(tree, ast.Expression) else tree
        stack: list[tuple[ast.AST, int, ast.AST | None]] = [(body, 0, None)]
        flat = (ast.Add, ast.Sub, ast.Mult, ast.Div)
        while stack:
            node, depth, parent = stack.pop()
            if isinstance(
                node,
                (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop),
            ):
                continue
            count += 1
            if count > MAX_NODES:
                raise self.error(
                    f"formula is too long (more than {MAX_NODES} terms and operators)",
                    suggestion="split it into smaller formulas",
                )
            same_chain = (
                isinstance(node, ast.BinOp)
                and isinstance(parent, ast.BinOp)
                and isinstance(node.op, flat)
                and isinstance(parent.op, flat)
                and node is parent.left
                and isinstance(node.op, (ast.Add, ast.Sub))
                == isinstance(parent.op, (ast.Add, ast.Sub))
            )
            d = depth if same_chain else depth + 1
            if d > MAX_DEPTH:
                raise self.node_error(
                    node,
                    f"formula is nested too deeply (more than {MAX_DEPTH} levels)",
                    "simplify the formula",
                )
            for child in ast.iter_child_nodes(node):
                stack.append((child, d, node))

    # ----------------------------------------------------------------- numbers
    def check_number(self, node: ast.AST, value: float, what: str = "number") -> float:
        if isinstance(value, complex):
            raise self.node_error(node, "complex numbers are not allowed")
        if math.isnan(value) or math.isinf(value):
            raise self.node_error(
                node,
                f"{what} is not a finite real number",
                "use numbers whose magnitude is at most 1e300",
            )
        if abs(value) > MAX_MAGNITUDE:
            raise self.node_error(
                node,
                f"{what} is too large (magnitude above {MAX_MAGNITUDE:g})",
                "use numbers whose magnitude is at most 1e300",
            )
        return value

    def estimate(
        self, node: ast.AST, fn: Callable[..., float], *args: float
    ) -> float | None:
        """Float value of a constant expression (None when the arguments do not fit)."""
        try:
            value = float(fn(*args))
        except TypeError:  # wrong number of arguments: SymPy will say so
            return None
        except OverflowError:
            raise self.node_error(
                node,
                f"the value of this constant expression is too large "
                f"(magnitude above {MAX_MAGNITUDE:g})",
            ) from None
        except ZeroDivisionError:
            raise self.node_error(node, "division by zero") from None
        except ValueError:
            raise self.node_error(
                node,
                "this constant expression is not a finite real number",
            ) from None
        return self.check_number(node, value, "the value of this constant expression")

    def result(self, node: ast.AST, expr: Any, approx: float | None) -> _Val:
        """Wrap a SymPy result; exact numbers give their own estimate."""
        if isinstance(expr, sp.Number):
            if expr.is_finite is False or expr is sp.nan:
                raise self.node_error(
                    node, "this expression is not a finite real number"
                )
            try:
                approx = float(expr)
            except (OverflowError, TypeError, ValueError):
                raise self.node_error(node, "this number is too large") from None
            self.check_number(node, approx, "the value of this expression")
        return _Val(expr, approx)

    def sympy_call(
        self, node: ast.AST, what: str, fn: Callable[..., Any], *args: Any
    ) -> Any:
        try:
            return fn(*args)
        except FormulaError:
            raise
        except RecursionError:
            raise self.node_error(
                node, "formula is nested too deeply for SymPy"
            ) from None
        except MemoryError:
            raise self.node_error(node, "formula is too large for SymPy") from None
        except Exception as exc:  # noqa: BLE001 - any SymPy failure -> FormulaError
            raise self.node_error(
                node,
                f"could not build {what} in formula {self.short_text()}: "
                f"{type(exc).__name__}: {exc}",
            ) from None

    def short_text(self) -> str:
        t = self.text.strip()
        return repr(t if len(t) <= 60 else t[:57] + "...")

    # ----------------------------------------------------------------- building
    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise self.error(
                f"formula took too long to read (over {TIME_BUDGET_SECONDS:g} s)",
                suggestion="simplify the formula",
            )

    def build(self, node: ast.AST) -> _Val:
        self.tick()
        if isinstance(node, ast.Constant):
            return self.build_constant(node)
        if isinstance(node, ast.Name):
            return self.build_name(node)
        if isinstance(node, ast.BinOp):
            return self.build_binop(node)
        if isinstance(node, ast.UnaryOp):
            return self.build_unary(node)
        if isinstance(node, ast.Call):
            return self.build_call(node)
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            raise self.node_error(
                node,
                "comparisons and and/or/not are not allowed here: only as conditions "
                "of Piecewise(...) or where(...)",
                "for example where(x > 0, x, 0.1*x) or Piecewise((x, x > 0), (0, True))",
            )
        self.refuse(node)
        raise AssertionError  # pragma: no cover

    def refuse(self, node: ast.AST) -> None:
        if isinstance(node, ast.Attribute):
            line, col = self.position(
                getattr(node, "end_lineno", node.lineno),
                (node.end_col_offset or 0) - len(node.attr),
            )
            if getattr(node, "end_lineno", node.lineno) != node.lineno:
                line, col = self.position(node.lineno, node.col_offset)
            raise self.error(
                f"attribute access ('.{node.attr}') is not allowed",
                line,
                col,
                "formulas may only use numbers, names, operators and allowed functions",
            )
        desc = _NODE_DESCRIPTION.get(type(node), f"'{type(node).__name__}'")
        hint = None
        if isinstance(node, ast.IfExp):
            hint = "use where(cond, a, b)"
        elif isinstance(node, ast.Tuple):
            hint = "tuples are only allowed as (value, condition) pairs in Piecewise"
        raise self.node_error(
            node,
            f"{desc} are not allowed in a formula"
            if desc.endswith("s")
            else f"{desc} is not allowed in a formula",
            hint,
        )

    def build_constant(self, node: ast.Constant) -> _Val:
        v = node.value
        if isinstance(v, bool) or v is None or v is Ellipsis:
            raise self.node_error(
                node,
                f"{v!r} is not allowed here",
                "True is only allowed as the last condition of Piecewise"
                if v is True
                else None,
            )
        if isinstance(v, (str, bytes)):
            raise self.node_error(node, "strings are not allowed in a formula")
        if isinstance(v, complex):
            raise self.node_error(
                node, "complex numbers are not allowed", "formulas are real"
            )
        if isinstance(v, int):
            if abs(v) > MAX_MAGNITUDE:
                raise self.node_error(
                    node,
                    f"number is too large (magnitude above {MAX_MAGNITUDE:g})",
                    "use numbers whose magnitude is at most 1e300",
                )
            return _Val(sp.Integer(v), float(v))
        if isinstance(v, float):
            self.check_number(node, v)
            literal = None
            if hasattr(node, "end_col_offset") and node.lineno == node.end_lineno:
                shift = 1 if self.wrapped and node.lineno == 1 else 0
                line_text = self.processed_lines[node.lineno - 1]
                seg = line_text[node.col_offset - shift : node.end_col_offset - shift]
                seg = seg.replace("_", "")
                if 0 < len(seg) <= 60 and re.fullmatch(r"[0-9.eE+-]+", seg):
                    literal = seg
            expr = sp.Float(literal) if literal is not None else sp.Float(v)
            return _Val(expr, v)
        raise self.node_error(
            node, f"constant {v!r} is not allowed"
        )  # pragma: no cover

    def build_name(self, node: ast.Name) -> _Val:
        name = node.id
        if name in self.symbols:
            return _Val(self.symbols[name], None)
        if name in self.named_constants:
            value = self.named_constants[name]
            return _Val(value, float(value))
        self.unknown_name(node, name, called=False)
        raise AssertionError  # pragma: no cover

    def unknown_name(self, node: ast.AST, name: str, called: bool) -> None:
        if name.startswith("_"):
            raise self.node_error(
                node,
                f"name {name!r} is not allowed (names starting with '_' are not allowed)",
            )
        if not called and name in self.functions:
            raise self.node_error(
                node,
                f"{name!r} is a function; call it, e.g. {name}(x)",
            )
        if name in _NOT_FINITE_NAMES:
            raise self.node_error(
                node,
                f"{name!r} is not allowed: numbers must be finite reals",
            )
        if name in _COMPLEX_NAMES and not called:
            raise self.node_error(
                node, f"{name!r} is not allowed: complex numbers are not allowed"
            )
        if called:
            guess = _suggest(name, self.functions, PREFERRED_FUNCTIONS)
            if name in dir(builtins) or name in ("exec", "eval", "open", "getattr"):
                raise self.node_error(
                    node,
                    f"function {name!r} is not allowed in a formula",
                    f"did you mean {guess!r}?" if guess else self.functions_hint(),
                )
            if guess:
                raise self.node_error(
                    node,
                    f"unknown function {name!r} (did you mean {guess!r}?)",
                    f"write {guess}(...); " + self.functions_hint(),
                )
            raise self.node_error(
                node, f"unknown function {name!r}", self.functions_hint()
            )
        if name in dir(builtins):
            raise self.node_error(node, f"name {name!r} is not allowed in a formula")
        known = [*self.symbols, *self.named_constants]
        guess = _suggest(name, known)
        declare = self.declare_hint(name)
        if guess:
            raise self.node_error(
                node,
                f"unknown symbol {name!r} (did you mean {guess!r}?)",
                f"did you mean {guess!r}? Otherwise {declare}",
            )
        raise self.node_error(node, f"unknown symbol {name!r}", declare)

    def declare_hint(self, name: str) -> str:
        t = self.text.strip()
        shown = repr(t) if len(t) <= 40 and "\n" not in t else "'...'"
        if tuple(self.variables) == ("y_pred", "y_true"):
            return (
                f"declare it as a constant: Loss({shown}, {name}=1.0) "
                f"or in %%symact --loss: name(y_pred, y_true; {name}=1.0) = ..."
            )
        var = ", ".join(self.variables) if self.variables else "x"
        return (
            f"declare it as a constant: Activation({shown}, {name}=1.0) "
            f"or in %%symact: name({var}; {name}=1.0) = ..."
        )

    def functions_hint(self) -> str:
        names = sorted({n for n in self.functions if n.islower()})
        return "allowed functions: " + ", ".join(names)

    def build_binop(self, node: ast.BinOp) -> _Val:
        op = node.op
        if isinstance(op, (ast.Add, ast.Sub)):
            return self.build_chain(node, (ast.Add, ast.Sub))
        if isinstance(op, (ast.Mult, ast.Div)):
            return self.build_chain(node, (ast.Mult, ast.Div))
        if isinstance(op, ast.Pow):
            return self.build_pow(node)
        text = _OPERATOR_TEXT.get(type(op), type(op).__name__)
        hint = None
        if isinstance(op, (ast.BitAnd, ast.BitOr)):
            hint = "'&' and '|' are only allowed in conditions of Piecewise(...) or where(...)"
        elif isinstance(op, ast.Mod):
            hint = "there is no modulo in formulas"
        elif isinstance(op, ast.FloorDiv):
            hint = "use floor(a/b)"
        raise self.node_error(node, f"operator '{text}' is not allowed", hint)

    def build_chain(self, node: ast.BinOp, ops: tuple[type, ...]) -> _Val:
        """A flat chain ``a + b - c`` or ``a * b / c`` (no recursion along the chain)."""
        items: list[tuple[ast.AST, ast.AST, bool]] = []  # (operand, op node, inverse)
        cur: ast.AST = node
        while isinstance(cur, ast.BinOp) and isinstance(cur.op, ops):
            items.append((cur.right, cur, isinstance(cur.op, (ast.Sub, ast.Div))))
            cur = cur.left
        items.append((cur, cur, False))
        items.reverse()
        additive = ops[0] is ast.Add
        terms = []
        approx: float | None = 0.0 if additive else 1.0
        log_mag = 0.0
        zero = False
        sign = 1.0
        for operand, opnode, inverse in items:
            val = self.build(operand)
            if val.approx is not None and inverse and not additive and val.approx == 0:
                raise self.node_error(opnode, "division by zero")
            if additive:
                terms.append(-val.expr if inverse else val.expr)
                if approx is not None and val.approx is not None:
                    approx = approx + (-val.approx if inverse else val.approx)
                    if not math.isfinite(approx) or abs(approx) > MAX_MAGNITUDE:
                        raise self.node_error(
                            opnode, "the value of this sum is too large"
                        )
                else:
                    approx = None
            else:
                if inverse:
                    terms.append(
                        self.sympy_call(opnode, "a division", sp.Pow, val.expr, -1)
                    )
                else:
                    terms.append(val.expr)
                if val.approx is not None:
                    if val.approx == 0:
                        zero = True
                    else:
                        lg = math.log10(abs(val.approx))
                        log_mag += -lg if inverse else lg
                        if val.approx < 0:
                            sign = -sign
                    if not zero and abs(log_mag) > 300:
                        raise self.node_error(
                            opnode,
                            "the value of this product is too large or too small "
                            f"(magnitude beyond {MAX_MAGNITUDE:g})",
                        )
                else:
                    approx = None
        if additive:
            expr = self.sympy_call(node, "a sum", sp.Add, *terms)
        else:
            expr = self.sympy_call(node, "a product", sp.Mul, *terms)
            if approx is not None:
                approx = 0.0 if zero else sign * 10.0**log_mag
        return self.result(node, expr, approx)

    def build_pow(self, node: ast.BinOp) -> _Val:
        base = self.build(node.left)
        expo = self.build(node.right)
        approx = None
        if expo.approx is not None and abs(expo.approx) > MAX_EXPONENT:
            raise self.node_error(
                node.right,
                f"exponent is too large (|exponent| above {MAX_EXPONENT})",
                "use a smaller exponent",
            )
        if base.approx is not None and expo.approx is not None:
            b, e = base.approx, expo.approx
            if b == 0 and e < 0:
                raise self.node_error(node, "division by zero (0 to a negative power)")
            if b < 0 and e != int(e):
                raise self.node_error(
                    node,
                    "a negative number to a fractional power is not a real number",
                )
            if b != 0 and abs(e * math.log10(abs(b))) > 300:
                raise self.node_error(
                    node,
                    "the value of this power is too large or too small "
                    f"(magnitude beyond {MAX_MAGNITUDE:g})",
                )
            approx = self.estimate(node, math.pow, b, e)
        elif expo.approx is not None and base.approx is None:
            coeff, _ = (
                base.expr.as_coeff_Mul()
                if isinstance(base.expr, sp.Expr)
                else (1, None)
            )
            if isinstance(coeff, sp.Number) and coeff != 0 and coeff.is_finite:
                c = abs(float(coeff))
                if c and abs(expo.approx * math.log10(c)) > 300:
                    raise self.node_error(
                        node,
                        "a coefficient in this power becomes too large or too small "
                        f"(magnitude beyond {MAX_MAGNITUDE:g})",
                    )
        expr = self.sympy_call(node, "a power", sp.Pow, base.expr, expo.expr)
        return self.result(node, expr, approx)

    def build_unary(self, node: ast.UnaryOp) -> _Val:
        if isinstance(node.op, ast.USub):
            val = self.build(node.operand)
            expr = self.sympy_call(
                node, "a negation", sp.Mul, sp.S.NegativeOne, val.expr
            )
            return self.result(node, expr, None if val.approx is None else -val.approx)
        if isinstance(node.op, ast.UAdd):
            return self.build(node.operand)
        word = "not" if isinstance(node.op, ast.Not) else "~"
        raise self.node_error(
            node,
            f"'{word}' is not allowed here: only in conditions of Piecewise(...) "
            "or where(...)",
        )

    def build_call(self, node: ast.Call) -> _Val:
        func = node.func
        if not isinstance(func, ast.Name):
            if isinstance(func, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.Call)):
                left = ast.get_source_segment(self.processed_text, func) or "a"
                if len(left) > 30:
                    left = "..."
                if not isinstance(func, ast.Constant):
                    left = f"({left})"
                raise self.node_error(
                    node.args[0] if node.args else node,
                    f"missing '*' between {left!r} and '('",
                    f"use * for multiplication: {left}*(...)",
                )
            self.refuse(func)
        name = func.id
        if name not in self.functions:
            if name in self.symbols:
                raise self.node_error(
                    node,
                    f"{name!r} is not a function",
                    f"use * for multiplication: {name}*(...)",
                )
            self.unknown_name(func, name, called=True)
        for kw in node.keywords:
            raise self.node_error(
                kw.value if kw.arg is None else node,
                "keyword arguments are not allowed"
                if kw.arg
                else "'**' arguments are not allowed",
                f"pass the arguments of {name}(...) by position",
            )
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.node_error(arg, "starred arguments are not allowed")
        fn = self.functions[name]
        if not node.args:
            raise self.node_error(node, f"{name}() needs at least one argument")
        if _is_piecewise(fn):
            return self.build_piecewise(node, name, fn)
        if _is_where(fn):
            if len(node.args) != 3:
                raise self.node_error(
                    node,
                    f"where takes 3 arguments (condition, value, otherwise), "
                    f"{len(node.args)} given",
                )
            cond = self.build_condition(node.args[0])
            a = self.build(node.args[1])
            b = self.build(node.args[2])
            expr = self.sympy_call(node, f"{name}(...)", fn, cond, a.expr, b.expr)
            return self.result(node, expr, None)
        args = [self.build(a) for a in node.args]
        self.check_call(node, name, fn, args)
        approx = None
        est = _APPROX_BY_CALLABLE.get(id(fn))
        if est is not None and args and all(a.approx is not None for a in args):
            approx = self.estimate(node, est, *[a.approx for a in args])
        expr = self.sympy_call(node, f"{name}(...)", fn, *[a.expr for a in args])
        if not isinstance(expr, sp.Basic):
            raise self.node_error(node, f"{name}(...) did not give a SymPy expression")
        return self.result(node, expr, approx)

    def check_call(self, node: ast.Call, name: str, fn: Any, args: list[_Val]) -> None:
        """Arguments SymPy would accept but that hang or mean nothing: checked first."""
        exprs = tuple(a.expr for a in args)
        if fn is ALLOWED_FUNCTIONS.get("relu"):
            fn, exprs = sp.Max, (sp.S.Zero, *exprs)
        if fn in (sp.Max, sp.Min):
            try:
                check_minmax_arity(fn, exprs)
            except FormulaError as exc:
                raise self.node_error(node, exc.message, exc.suggestion) from None
        if fn is sp.log and len(args) == 2:
            base = args[1]
            shown = ast.get_source_segment(self.processed_text, node.args[1]) or "?"
            if base.approx is not None and not (
                math.isfinite(base.approx) and base.approx > 0 and base.approx != 1
            ):
                raise self.node_error(
                    node.args[1],
                    f"log(x, base): the base {shown} (= {base.approx:g}) is not a "
                    "valid logarithm base; it must be a finite number > 0 and != 1",
                    "use log(x) for the natural logarithm, or a base such as 2 or 10",
                )

    def build_piecewise(self, node: ast.Call, name: str, fn: Any) -> _Val:
        if not node.args:
            raise self.node_error(
                node, f"{name} needs at least one (value, condition) pair"
            )
        pairs = []
        for arg in node.args:
            if not (isinstance(arg, ast.Tuple) and len(arg.elts) == 2):
                raise self.node_error(
                    arg,
                    f"arguments of {name} must be (value, condition) pairs",
                    "for example Piecewise((x, x > 0), (0, True))",
                )
            value = self.build(arg.elts[0])
            cond = self.build_condition(arg.elts[1])
            pairs.append((value.expr, cond))
        expr = self.sympy_call(node, f"{name}(...)", fn, *pairs)
        if isinstance(expr, sp.Piecewise) and expr.args[-1].cond is not sp.true:
            raise self.node_error(
                node,
                f"{name} needs an 'otherwise' pair (value, True) as its last argument",
                "for example Piecewise((x, x > 0), (0, True))",
            )
        return self.result(node, expr, None)

    def build_condition(self, node: ast.AST) -> Any:
        self.tick()
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return sp.true if node.value else sp.false
        if isinstance(node, ast.Compare):
            left = self.build(node.left)
            parts = []
            for op, right_node in zip(node.ops, node.comparators):
                cmp = _COMPARE_OPS.get(type(op))
                if cmp is None:
                    raise self.node_error(
                        right_node,
                        f"comparison '{type(op).__name__}' is not allowed",
                        "use <, <=, >, >=, == or !=",
                    )
                right = self.build(right_node)
                parts.append(
                    self.sympy_call(node, "a comparison", cmp, left.expr, right.expr)
                )
                left = right
            if len(parts) == 1:
                return parts[0]
            return self.sympy_call(node, "a comparison", sp.And, *parts)
        if isinstance(node, ast.BoolOp):
            parts = [self.build_condition(v) for v in node.values]
            op = sp.And if isinstance(node.op, ast.And) else sp.Or
            return self.sympy_call(node, "a condition", op, *parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            a = self.build_condition(node.left)
            b = self.build_condition(node.right)
            op = sp.And if isinstance(node.op, ast.BitAnd) else sp.Or
            return self.sympy_call(node, "a condition", op, a, b)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.Invert)):
            inner = self.build_condition(node.operand)
            return self.sympy_call(node, "a condition", sp.Not, inner)
        if isinstance(node, (ast.Constant, ast.Name, ast.BinOp, ast.UnaryOp, ast.Call)):
            if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
                raise self.node_error(node, "strings are not allowed in a formula")
            if isinstance(node, ast.Call) and not isinstance(node.func, ast.Name):
                self.build(node)  # gives the precise error
            if (
                isinstance(node, ast.Name)
                and node.id not in self.symbols
                and node.id not in self.named_constants
            ):
                self.build(node)  # unknown / not allowed name
            raise self.node_error(
                node,
                "a condition must be a comparison (<, <=, >, >=, ==, !=) or True",
                "for example (x > 0)",
            )
        self.refuse(node)
        raise AssertionError  # pragma: no cover

    # ----------------------------------------------------------------- driver
    def parse(self) -> sp.Expr:
        text = self.text
        if len(text) > MAX_LENGTH:
            raise FormulaError(
                f"formula is too long ({len(text)} characters, at most {MAX_LENGTH})",
                None,
                None,
                None,
                "split it into smaller formulas",
            )
        if not text.strip():
            raise self.error(
                "empty formula", suggestion="type a formula, e.g. x*sigmoid(x)"
            )
        self.check_characters()
        self.check_nesting()
        processed = self.preprocess()
        self.processed_lines = processed.split("\n")
        self.processed_text = processed
        tree = self.ast_parse(processed)
        self.check_tree(tree)
        try:
            val = self.build(tree.body)
        except RecursionError:
            raise self.error("formula is nested too deeply") from None
        except MemoryError:
            raise self.error("formula is too large") from None
        expr = val.expr
        if not isinstance(expr, sp.Expr):
            raise self.error(
                f"formula {self.short_text()} is not a number-valued expression",
            )
        self.check_result(expr)
        return expr

    def ast_parse(self, processed: str) -> ast.Expression:
        try:
            return ast.parse(processed, mode="eval")
        except SyntaxError as exc:
            first = exc
        except (RecursionError, MemoryError):
            raise self.error(
                "formula is nested too deeply", suggestion="simplify it"
            ) from None
        except ValueError as exc:  # pragma: no cover - NUL bytes are refused earlier
            raise self.error(f"formula cannot be read: {exc}") from None
        if True:  # newlines or leading spaces: read it as one bracketed expression
            try:
                tree = ast.parse("(" + processed + "\n)", mode="eval")
            except (SyntaxError, RecursionError, MemoryError, ValueError):
                pass
            else:
                self.wrapped = True
                self.processed_text = "(" + processed + "\n)"
                return tree
        self.raise_syntax(first)
        raise AssertionError  # pragma: no cover

    def raise_syntax(self, exc: SyntaxError) -> None:
        lineno = exc.lineno or 1
        offset = exc.offset
        if offset is None or offset <= 0:
            line, col = lineno, len(self.lines[min(lineno, len(self.lines)) - 1]) + 1
            line = min(line, len(self.lines))
        else:
            line, col = self.position(lineno, offset - 1)
        msg = (
            (exc.msg or "invalid syntax")
            .replace("Perhaps you forgot a comma?", "")
            .strip()
        )
        msg = msg.rstrip(".")
        if "Exceeds the limit" in msg:  # a huge integer literal
            raise self.error(
                f"number is too large (magnitude above {MAX_MAGNITUDE:g})",
                line,
                col,
                "use numbers whose magnitude is at most 1e300",
            )
        implicit = self.implicit_multiplication()
        if implicit is not None:
            iline, icol, left, right = implicit
            left = left if len(left) <= 20 else left[:17] + "..."
            right = right if len(right) <= 20 else right[:17] + "..."
            raise self.error(
                f"syntax error: {msg} (missing '*' between {left!r} and {right!r}?)",
                iline,
                icol,
                f"use * for multiplication: {left}*{right}",
            )
        hint = None
        if "never closed" in msg:
            hint = "add the missing ')'"
        elif "unmatched" in msg:
            hint = "remove the extra bracket or add the opening one"
        elif line == len(self.lines) and col is not None and col > len(self.lines[-1]):
            hint = "the formula ends too early"
        if not hint and any("|" in text for text in self.lines):
            hint = "write |u| as abs(u) ('|' is not absolute value in a formula)"
        if "'(' was never closed" not in msg and exc.offset == 0 and not hint:
            hint = "the formula ends too early"
        raise self.error(f"syntax error: {msg}", line, col, hint)

    def check_result(self, expr: sp.Expr) -> None:
        bad = [
            a
            for a in (sp.I, sp.nan, sp.zoo, sp.oo, sp.S.NegativeInfinity)
            if expr.has(a)
        ]
        if bad:
            what = "complex" if bad[0] is sp.I else "infinite or undefined"
            raise self.error(
                f"formula {self.short_text()} gives a {what} value ({bad[0]}); "
                "formulas must be finite and real",
                suggestion="check divisions by zero, logs and roots of negative constants",
            )
        for num in expr.atoms(sp.Number):
            try:
                big = abs(float(num)) > MAX_MAGNITUDE
            except OverflowError:
                big = True
            if big:
                raise self.error(
                    f"formula {self.short_text()} contains a number beyond {MAX_MAGNITUDE:g}",
                )
        for p in expr.atoms(sp.Pow):
            e = p.exp
            if isinstance(e, sp.Number) and abs(float(e)) > MAX_EXPONENT:
                raise self.error(
                    f"formula {self.short_text()} contains an exponent above {MAX_EXPONENT}",
                )


def _names(
    kind: str, names: Any, text: str | None, functions: Mapping[str, Any]
) -> tuple[str, ...]:
    if isinstance(names, str):
        names = (names,)
    try:
        result = tuple(names)
    except TypeError:
        raise FormulaError(
            f"{kind}s must be a sequence of names, got {names!r}", text
        ) from None
    for name in result:
        if not isinstance(name, str):
            raise FormulaError(f"{kind} name {name!r} is not a string", text)
        if not (name.isascii() and name.isidentifier()) or keyword.iskeyword(name):
            raise FormulaError(
                f"{kind} name {name!r} is not a valid name",
                text,
                None,
                None,
                "use letters, digits and '_', starting with a letter",
            )
        if name.startswith("_"):
            raise FormulaError(
                f"{kind} name {name!r} is not allowed (names starting with '_' are not allowed)",
                text,
            )
        if name in functions:
            raise FormulaError(
                f"{kind} {name!r} shadows the function {name}; rename it",
                text,
                None,
                None,
                f"for example {name}_",
            )
    return result


def parse_formula(
    text: str,
    variables: tuple[str, ...] = ("x",),
    constants: Iterable[str] = (),
    *,
    functions: Mapping[str, Any] | None = None,
) -> sp.Expr:
    """Read a formula text into a SymPy expression, safely.

    Parameters
    ----------
    text:
        The formula, e.g. ``"x*sigmoid(beta*x)"``. ``^`` means power; newlines are allowed.
    variables:
        Names of the input variables (``("x",)`` for an activation).
    constants:
        Names of the user's constants (e.g. ``("beta",)``); they shadow ``pi`` and ``E``.
    functions:
        The functions a formula may call (name -> SymPy callable); defaults to
        :data:`symnb.formula.functions.ALLOWED_FUNCTIONS`.

    Returns
    -------
    sympy.Expr
        Every symbol is ``Symbol(name, real=True)`` with the user's name.

    Raises
    ------
    FormulaError
        For anything that is not a finite real formula over the given names, with the line,
        column and a suggestion where there is one.
    """
    functions = ALLOWED_FUNCTIONS if functions is None else functions
    if not isinstance(text, str):
        raise FormulaError(f"a formula must be a string, got {type(text).__name__}")
    var_names = _names("variable", variables, None, functions)
    const_names = _names("constant", constants, None, functions)
    seen: set[str] = set()
    for kind, name in [("variable", n) for n in var_names] + [
        ("constant", n) for n in const_names
    ]:
        if name in seen:
            raise FormulaError(
                f"{kind} {name!r} is declared twice (variables and constants must differ)",
            )
        seen.add(name)
    return _Parser(text, var_names, const_names, functions).parse()


__all__ = [
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_LENGTH",
    "MAX_MAGNITUDE",
    "MAX_NODES",
    "TIME_BUDGET_SECONDS",
    "parse_formula",
]
