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

SymPy objects (``Activation(sympy_expr)``) get the same checks from :func:`adopt_sympy`: the
formula functions only, the same number, exponent, depth and size limits (walked
iteratively, before SymPy prints or recurses into them), identifier names.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import inspect
import itertools
import keyword
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import mpmath
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.logic.boolalg import ITE, Boolean, BooleanAtom

from symnb.checks import is_formula_name, nonzero_literal
from symnb.errors import FormulaError
from symnb.formula import (
    batch_means,
    compose,
    foreign_losses,
    latex_input,
    layer_objects,
    library,
    python_code,
    spellings,
    tensor_idioms,
    tensor_methods,
    unicode_math,
)
from symnb.formula.budget import check_minmax_arity, cpu_clock
from symnb.formula.functions import ALLOWED_CONSTANTS, ALLOWED_FUNCTIONS, erfcx, ierfcx

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

_COMMENT = re.compile(r"#[^\n\r]*")
# LaTeX's words in text (\text{für } x > 0): letters of any language
_TEXT_WORD = re.compile(r"\\(?:text|textrm|textit|textnormal|mbox)\s*\{([^{}]*)\}")
# where a LaTeX macro is defined (\newcommand{\sq}[1]{#1^2}), #1 is its argument
_MACRO = re.compile(r"\\(?:newcommand|renewcommand|providecommand|def)(?![A-Za-z])")
_MACRO_COMMENT = re.compile(r"#(?![1-9])[^\n\r]*")
# \, \; \| too: no code has them
_LATEX_COMMAND = re.compile(r"\\(?:[A-Za-z]+|[,;:!|%\\])")
# f'(x), f' = ...: a prime after a name (no code has one: a string opens after '=', '(')
_PRIME = re.compile(r"(?<![\w'\"])[A-Za-z]\w*'+\s*(?:[(=]|$)")
# (x)_+, x^+ (and x^-, the negative part, refused as LaTeX: no code types x**(-+x))
_POSITIVE_PART = re.compile(
    r"[)\]]_\+|\^\{\+\}|\^[-+](?!\s*[\w(.\\])|\b[A-Za-z]_\+(?=\s*(?:\^|\)|$))"
)
# pasted Python (a docstring may say f'(x)), a string's opening quote ('a'): no
# LaTeX marked by a prime or a star
_PYTHON_CODE = re.compile(r"\"|\b(?:def|return|lambda|import)\b|(?:^|[\s=(,\[])'")
# a^*, a^{*} (a_star), 0{,}5, 1{.}05 (a decimal mark): LaTeX, no code has them
_STAR_OR_COMMA = re.compile(r"\^\s*\*|\{[,.]\}")
# [x > 0], [x = 0]: Iverson's bracket, 1 where the condition holds (code has no
# reading of a comparison in square brackets: a formula neither indexes nor lists)
_IVERSON = re.compile(r"\[[^\[\]]*(?:<|>|=)[^\[\]]*\]")
# &gt;, &amp;: LaTeX pasted from a web page's HTML source
_HTML_ESCAPE = re.compile(r"&(?:lt|gt|amp|le|ge|ne|minus|times|sdot|nbsp|#\d+);")
# 'f(x) =', 'y =' at the start (not '==')
_DEFINITION = re.compile(r"\s*[A-Za-z_]\w*\s*(?:\([^()=]*\))?\s*=(?!=)")
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
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
}


#: Other libraries' keyword for a library activation's constant (PyTorch's name).
_CONSTANT_ALIASES = {"negative_slope": "alpha", "threshold": "lambd"}


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
    return math.copysign(abs(u) ** (1.0 / 3.0), u)


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
    "lgamma": math.lgamma,
    "tgamma": math.gamma,
    "digamma": lambda u: float(mpmath.digamma(u)),
    "trigamma": lambda u: float(mpmath.psi(1, u)),
    "clip": lambda u, lo, hi: min(max(u, lo), hi),
}
_APPROX_BY_CALLABLE: dict[int, Callable[..., float]] = {
    id(ALLOWED_FUNCTIONS[name]): fn
    for name, fn in _APPROX_BY_NAME.items()
    if name in ALLOWED_FUNCTIONS
}


class _Problem(Exception):
    """A bad number or power, before the caller knows where to point (its position)."""

    def __init__(self, message: str, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.suggestion = suggestion


def _check_number(value: float, what: str = "number") -> float:
    """``value`` if it is a finite real of magnitude at most MAX_MAGNITUDE."""
    if isinstance(value, complex):
        raise _Problem("complex numbers are not allowed")
    if math.isnan(value) or math.isinf(value):
        raise _Problem(
            f"{what} is not a finite real number",
            "use numbers whose magnitude is at most 1e300",
        )
    if abs(value) > MAX_MAGNITUDE:
        raise _Problem(
            f"{what} is too large (magnitude above {MAX_MAGNITUDE:g})",
            "use numbers whose magnitude is at most 1e300",
        )
    return value


def _estimate(fn: Callable[..., float], *args: float) -> float | None:
    """Float value of a constant expression (None when the arguments do not fit)."""
    try:
        value = float(fn(*args))
    except TypeError:  # wrong number of arguments: SymPy will say so
        return None
    except OverflowError:
        raise _Problem(
            f"the value of this constant expression is too large "
            f"(magnitude above {MAX_MAGNITUDE:g})",
        ) from None
    except ZeroDivisionError:
        raise _Problem("division by zero") from None
    except ValueError:
        raise _Problem("this constant expression is not a finite real number") from None
    return _check_number(value, "the value of this constant expression")


def _power_problem(
    base: float | None, expo: float | None, base_expr: Any
) -> tuple[str, str, str | None] | None:
    """What is wrong with ``base**expo`` given float estimates of its parts (None where
    a part is not a plain number): ``(part, message, suggestion)`` with part
    ``"exponent"`` or ``"power"``, or None when the power is fine."""
    beyond = f"(magnitude beyond {MAX_MAGNITUDE:g})"
    if expo is not None and abs(expo) > MAX_EXPONENT:
        return (
            "exponent",
            f"exponent is too large (|exponent| above {MAX_EXPONENT})",
            "use a smaller exponent",
        )
    if base is not None and expo is not None:
        if base == 0 and expo < 0:
            return "power", "division by zero (0 to a negative power)", None
        if base < 0 and expo != int(expo):
            return (
                "power",
                "a negative number to a fractional power is not a real number",
                None,
            )
        if base != 0 and abs(expo * math.log10(abs(base))) > 300:
            return (
                "power",
                f"the value of this power is too large or too small {beyond}",
                None,
            )
    elif expo is not None and isinstance(base_expr, sp.Expr):
        coeff, _ = base_expr.as_coeff_Mul()
        if isinstance(coeff, sp.Number) and coeff != 0 and coeff.is_finite:
            c = abs(float(coeff))
            if c and abs(expo * math.log10(c)) > 300:
                return (
                    "power",
                    "a coefficient in this power becomes too large or too small "
                    + beyond,
                    None,
                )
    return None


def _is_piecewise(fn: Any) -> bool:
    return fn is sp.Piecewise


def _is_where(fn: Any) -> bool:
    return fn is ALLOWED_FUNCTIONS.get("where")


#: Least similarity (difflib's ratio) of a did-you-mean suggestion: 'tahn' -> 'tanh' is
#: 0.75, 'mux' -> 'max' 0.67; 'softmax' -> 'max' and 'mod' -> 'sigmoid' are 0.6.
_SUGGEST_CUTOFF = 0.65


def _suggest(
    word: str, candidates: Iterable[str], preferred: Iterable[str] = ()
) -> str | None:
    """The closest candidate (case-insensitive), nudged toward ``preferred`` names.

    Only a close match counts (similarity at least :data:`_SUGGEST_CUTOFF` before the
    nudges): the nudges rank close matches, they never make a far one close ('gamma'
    is not 'max', 'mod' is not 'sigmoid').
    """
    preferred = {p.lower() for p in preferred}
    best: tuple[float, str] | None = None
    low = word.lower()
    for cand in candidates:
        ratio = difflib.SequenceMatcher(None, low, cand.lower()).ratio()
        if cand.lower() == low:
            ratio = 1.5
        if ratio < _SUGGEST_CUTOFF:
            continue
        if cand.lower() in preferred:
            ratio += 0.15
        if word[:1].isupper() == cand[:1].isupper():
            ratio += 0.01  # 'max' for 'mux', 'Max' for 'Mux'
        if best is None or ratio > best[0]:
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


#: Library GELUs whose variant a library's ``approximate`` argument chooses.
_GELUS = ("gelu", "gelu_tanh")


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
        self.deadline = cpu_clock() + TIME_BUDGET_SECONDS
        self.symbols: dict[str, sp.Symbol] = {
            name: sp.Symbol(name, real=True) for name in (*variables, *constants)
        }
        # 'e' is Euler's number too (ln(1 + e^x)), unless declared; it is no name of
        # ALLOWED_CONSTANTS so that a constant may still be called e
        self.named_constants = {
            k: v
            for k, v in {**ALLOWED_CONSTANTS, "e": sp.E}.items()
            if k not in self.symbols
        }
        self.lines = self._split_lines(text)
        # col_map[line_index][processed_column] -> original 0-based column
        self.col_map: list[list[int]] = []
        self.wrapped = False
        self.processed_text = text
        self.processed_lines: list[str] = []
        # the input under another name (input, z...) in a formula without x
        self.input_alias: str | None = None
        # a pasted loss's parameters -> y_pred / y_true (spellings.loss_inputs)
        self.code_names: dict[str, str] = {}

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
            comment = False
            words = {  # \text{für}: a sentence's letters in a case (LaTeX)
                k
                for m in _TEXT_WORD.finditer(line)
                for k in range(m.start(1), m.end(1))
            }
            for ci, ch in enumerate(line):
                comment = comment or ch == "#"
                if comment and ch.isprintable():
                    continue  # a comment may say anything (x*sigmoid(x)  # x·σ(x))
                if ci in words and ch.isalpha():
                    continue
                if ch.isascii() and (ch.isprintable() or ch in "\t"):
                    continue
                if ch == "\r":
                    continue
                code = f"U+{ord(ch):04X}"
                uname = unicodedata.name(ch, "")
                label = f"{ch!r} ({code}{' ' + uname if uname else ''})"
                advice = _char_advice(ch)
                if ch == "\u03c3" and line[ci + 1 :].lstrip().startswith("("):
                    advice = "sigmoid"  # the logistic function, as papers write it
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
                retyped = unicode_math.ascii_formula(self.text)
                raise self.error(
                    f"character {label} is not allowed; type {advice!r} instead",
                    li + 1,
                    ci + 1,
                    f"type {advice!r} instead of {ch!r}"
                    + (
                        f"; the whole formula in ASCII: {retyped}"
                        if retyped and len(retyped) <= 200
                        else ""
                    ),
                )

    def bars_formula(self, text: str) -> sp.Expr:
        """Read a formula with absolute values typed as bars (``x/(1 + |x|)``) as
        LaTeX reads it (symnb.formula.unicode_math); errors quote the formula read."""
        try:
            translated = latex_input.translate(text, self.constants)
        except RecursionError:
            raise self.error("formula is nested too deeply") from None
        except latex_input.LatexProblem as problem:
            raise self.error(
                f"|...| is read as an absolute value here, but {problem}",
                suggestion=problem.suggestion or "write abs(...) for an absolute value",
            ) from None
        return self.read_as(translated, "in the formula read with |...| as abs(...)")

    def read_as(self, text: str, what: str) -> sp.Expr:
        """Parse ``text``, a reading of the user's text (LaTeX, code, bars), with
        this parser's names; an error quotes that reading, as its columns do not
        point into what the user typed."""
        try:
            return _Parser(text, self.variables, self.constants, self.functions).parse()
        except FormulaError as exc:
            raise self.error(
                f"{exc.message} ({what}: {text[:200]})", suggestion=exc.suggestion
            ) from None

    def code_formula(self, text: str) -> sp.Expr:
        """Read ``lambda x: <expression>``, a pasted function with its local
        assignments put in (symnb.formula.inline_locals); errors quote that text, as
        their columns cannot point into the pasted code."""
        return self.read_as(
            text, "in the formula read from the code, with its assignments put in"
        )

    def latex_text(self) -> str | None:
        """LaTeX pasted from a paper (``\\frac{1}{1 + e^{-x}}``, ``e^{-x}``): its
        formula text (:mod:`symnb.formula.latex_input`), else None for a formula."""
        comment = _MACRO_COMMENT if _MACRO.search(self.text) else _COMMENT
        code = "\n".join(comment.sub("", line) for line in self.lines)
        if not (
            _LATEX_COMMAND.search(code)
            or "^{" in code
            or "_{" in code
            or "}^" in code  # {e^x}^2: a braced base
            or _POSITIVE_PART.search(code)  # (x)_+, [x]_+: the positive part, x^-
            or (_PRIME.search(code) and not _PYTHON_CODE.search(code))
            or (_STAR_OR_COMMA.search(code) and not _PYTHON_CODE.search(code))
            or (_IVERSON.search(code) and not _PYTHON_CODE.search(code))
            or _HTML_ESCAPE.search(code)
            or code.lstrip().startswith(("\\(", "\\["))  # \( ... \), \[ ... \]
        ):
            return None
        try:
            return latex_input.translate(code, self.constants)
        except RecursionError:
            raise self.error(
                "formula is nested too deeply", suggestion="simplify it"
            ) from None
        except latex_input.LatexProblem as problem:
            m = _LATEX_COMMAND.search(code)
            raise self.error(
                f"LaTeX is read here, but {problem}",
                suggestion=problem.suggestion
                or (
                    "type that part as code: \\frac{a}{b} as (a)/(b), e^{-x} "
                    "as exp(-x), \\sigma(x) as sigmoid(x)"
                    + (f" (first command: {m.group()})" if m else "")
                    if isinstance(problem, latex_input.UnreadCommand)
                    else None  # the message names its own fix
                ),
            ) from None

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

    def call_without_brackets(self) -> tuple[int, int, str, str] | None:
        """First function name followed by its argument without brackets, as in
        mathematics (``ln x``, ``sin 2``): (line, column, name, argument)."""
        for li, line in enumerate(self.lines):
            tokens = [m for m in _TOKEN.finditer(line) if m.lastgroup != "space"]
            for fn, arg in itertools.pairwise(tokens):
                if (
                    fn.lastgroup == "name"
                    and fn.group() in self.functions
                    and arg.lastgroup in ("name", "num")
                    and not keyword.iskeyword(arg.group())
                ):
                    return li + 1, arg.start() + 1, fn.group(), arg.group()
        return None

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
        try:
            return _check_number(value, what)
        except _Problem as problem:
            raise self.node_error(node, problem.message, problem.suggestion) from None

    def estimate(
        self, node: ast.AST, fn: Callable[..., float], *args: float
    ) -> float | None:
        """Float value of a constant expression (None when the arguments do not fit)."""
        try:
            return _estimate(fn, *args)
        except _Problem as problem:
            raise self.node_error(node, problem.message, problem.suggestion) from None

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
            return _plain_conditions(fn(*args))
        except FormulaError as exc:
            if exc.line is not None:
                raise
            raise self.node_error(node, exc.message, exc.suggestion) from None
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
        if cpu_clock() > self.deadline:
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
        if isinstance(node, ast.Attribute):
            return self.module_constant(node)
        if isinstance(node, ast.IfExp):
            return self.build_conditional(node)
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            raise self.node_error(
                node,
                "comparisons and and/or/not are not allowed here: only as conditions "
                "of Piecewise(...) or where(...)",
                "for example where(x > 0, x, 0.1*x) or Piecewise((x, x > 0), (0, True))",
            )
        self.refuse(node)
        raise AssertionError  # pragma: no cover

    def build_conditional(self, node: ast.IfExp) -> _Val:
        """``a if cond else b``, as pasted from scalar Python code: where(cond, a, b)."""
        cond = self.build_condition(node.test)
        a = self.build(node.body)
        b = self.build(node.orelse)
        fn = ALLOWED_FUNCTIONS["where"]
        expr = self.sympy_call(node, "'a if cond else b'", fn, cond, a.expr, b.expr)
        return self.result(node, expr, None)

    def library_entry(self, name: str) -> library.Entry | None:
        """The library activation with constants that ``name`` calls, else None."""
        lib = compose.library_name(self.functions.get(name))
        if lib is None and self.functions.get(name) is ALLOWED_FUNCTIONS.get(name):
            lib = name  # softplus(x, beta=2): PyTorch's Softplus, the library entry
        entry = library.ACTIVATIONS.get(lib) if lib is not None else None
        return entry if entry is not None and entry.constants else None

    def call_arguments(
        self,
        node: ast.Call,
        name: str,
        names: list[str],
        aliases: Mapping[str, str],
        first_by_keyword: bool = False,
        keyword_only: Sequence[str] = (),
    ) -> dict[str, ast.AST]:
        """``names`` (and ``keyword_only``) -> the call's argument nodes, given by
        position or keyword (the first by position only unless ``first_by_keyword``:
        a loss's ``labels=..., logits=...``)."""
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.node_error(node, "starred arguments are not allowed")
        if len(node.args) > len(names):
            raise self.node_error(
                node,
                f"{name} takes at most {len(names)} arguments "
                f"({', '.join(names)}), {len(node.args)} given",
            )
        given = dict(zip(names, node.args))
        for kw in node.keywords:
            key = aliases.get(kw.arg, kw.arg)
            keys = [*names[0 if first_by_keyword else 1 :], *keyword_only]
            if kw.arg is None or key not in keys:
                raise self.node_error(
                    kw.value if kw.arg is None else node,
                    f"{name} has no argument {kw.arg!r}"
                    if kw.arg
                    else "'**' arguments are not allowed",
                    f"its arguments are {', '.join([*names, *keyword_only])}",
                )
            if key in given:
                raise self.node_error(node, f"{name} got {kw.arg!r} twice")
            given[key] = kw.value
        return given

    def check_domain(
        self, entry: library.Entry, given: dict[str, ast.AST], node: ast.Call
    ) -> None:
        """Refuse constants given as numbers outside the entry's domain
        (``huber(y_pred, y_true, delta=-1)``: a negative loss)."""
        numbers = {}
        for k, v in given.items():
            if k not in entry.constants:
                continue
            try:
                numbers[k] = float(ast.literal_eval(v))
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
        problem = library.domain_problem(entry, numbers)
        if problem is not None:
            raise self.node_error(node, problem)

    def library_call(self, node: ast.Call, name: str, entry: library.Entry) -> ast.AST:
        """``elu(x, alpha=0.5)``, ``leaky_relu(x, 0.2)``: the library formula's syntax
        tree with the arguments in place of x and its constants (defaults for the rest)."""
        names = ["x", *entry.constants]
        # other libraries' names of a constant: Keras's soft_shrink(x, threshold=0.5)
        # is PyTorch's softshrink lambd (softplus's own threshold stays its own)
        aliases = {
            k: v for k, v in _CONSTANT_ALIASES.items() if k not in entry.constants
        }
        given = self.call_arguments(node, name, names, aliases)
        if "x" not in given:
            raise self.node_error(node, f"{name}() needs the input as first argument")
        self.check_domain(entry, given, node)
        return _substituted(entry, given, node)

    def library_loss_call(self, node: ast.Call, name: str) -> ast.AST:
        """``huber(y_pred, y_true, delta=0.5)``, ``F.mse_loss(input, target)``: the
        library loss's syntax tree with the arguments in place of y_pred and y_true."""
        shown = spellings.dotted(node.func) or name
        if tuple(self.variables) != ("y_pred", "y_true"):
            named = f" or symnb.loss('{name}')" if name in library.LOSSES else ""
            raise self.node_error(
                node,
                f"{shown} is a loss of (y_pred, y_true), not a function of "
                f"{', '.join(self.variables) or 'x'}",
                f"write it in a loss: symnb.Loss('{shown}(...)'){named}",
            )
        node, name = self.loss_options(node, name, shown)
        entry = library.LOSSES.get(name) or foreign_losses.ENTRIES[name]
        names, aliases, keyword_only = spellings.loss_arguments(
            node.func, list(entry.constants)
        )
        given = self.call_arguments(
            node, shown, names, aliases, True, keyword_only=keyword_only
        )
        if "y_pred" not in given or "y_true" not in given:
            pair = ", ".join(n for n in names if n in ("y_pred", "y_true"))
            raise self.node_error(
                node,
                f"{shown} needs the prediction and the target, e.g. {shown}({pair})",
            )
        self.check_domain(entry, given, node)
        return _substituted(entry, given, node)

    def loss_options(
        self, node: ast.Call, name: str, shown: str
    ) -> tuple[ast.Call, str]:
        """The call without the keywords that choose a formula, and that formula's
        name: PyTorch's ``reduction`` (symnb takes the mean itself; 'sum' is refused),
        :data:`foreign_losses.OPTIONS` (``from_logits=True``, ``log_input=False``)."""
        parts = spellings.split(node.func)
        options = foreign_losses.OPTIONS.get(parts, {})
        torch = parts is not None and parts[0] in foreign_losses.TORCH_REDUCTION
        kept = []
        for kw in node.keywords:
            value = kw.value.value if isinstance(kw.value, ast.Constant) else kw.value
            if kw.arg == "reduction" and torch:
                if value == "sum":
                    raise self.node_error(
                        kw.value,
                        f"{shown}(..., reduction='sum'): symnb averages a loss over "
                        "the batch",
                        "leave reduction out (the mean); for the sum scale the loss "
                        "by the batch size",
                    )
                if value not in foreign_losses.REDUCTIONS_KEPT:
                    raise self.node_error(
                        kw.value,
                        f"{shown}'s reduction must be 'mean', 'none' or "
                        "'batchmean' (symnb takes the mean over the batch)",
                    )
            elif (
                switch := foreign_losses.keyword_switch(
                    parts, kw.arg, _signed_constant(kw.value, value)
                )
            ) is not None:
                key, keep = switch
                name = key or name
                if keep:
                    kept.append(kw)
            elif kw.arg in options:
                choices = options[kw.arg]
                if isinstance(value, ast.AST) or value not in choices:
                    allowed = " or ".join(repr(v) for v in choices)
                    raise self.node_error(
                        kw.value,
                        f"{shown}'s {kw.arg} must be {allowed} in a formula",
                        "write the per-element formula you need with symnb's functions",
                    )
                if len(choices) > 1:  # one allowed value only checks (full=False)
                    name = choices[value]
            else:
                kept.append(kw)
        return _located(ast.Call(node.func, node.args, kept), node), name

    def gelu_variant(self, node: ast.Call, name: str) -> ast.AST:
        """``F.gelu(x, approximate='tanh')``, ``jax.nn.gelu(x, approximate=False)``,
        ``tf.nn.gelu(x, True)``: the libraries' choice of the exact (erf) GELU or its
        tanh approximation, PyTorch's 'none'/'tanh' or JAX's/TensorFlow's False/True."""
        shown = spellings.dotted(node.func) or name
        given = self.call_arguments(node, shown, ["x", "approximate"], {})
        if "x" not in given:
            raise self.node_error(node, f"{shown}() needs the input as first argument")
        choice = given.get("approximate")
        if choice is not None:
            value = choice.value if isinstance(choice, ast.Constant) else None
            if value == "tanh" or value is True:
                name = "gelu_tanh"
            elif value == "none" or value is False:
                name = "gelu"
            else:
                raise self.node_error(
                    choice,
                    f"{shown}'s approximate must be 'none' or 'tanh' (PyTorch), "
                    "or False or True (JAX, TensorFlow)",
                    "write approximate='tanh' for the tanh approximation, or "
                    "gelu(x) for the exact (erf) GELU",
                )
        return _located(ast.Call(ast.Name(name, ast.Load()), [given["x"]], []), node)

    def clip_call(self, node: ast.Call) -> ast.AST:
        """``torch.clamp(x, min=0, max=6)``, ``np.clip(x, a_min=0)``, ``torch.clamp(x,
        0)``, ``np.clip(x, 0, None)``: max/min of x (a bound that is None or left out
        is no bound, as in NumPy and PyTorch; one bound at least)."""
        aliases = {"a_min": "min", "a_max": "max", "lo": "min", "hi": "max"}
        shown = spellings.dotted(node.func) or "clip"
        given = self.call_arguments(node, shown, ["x", "min", "max"], aliases)
        if "x" not in given:
            raise self.node_error(node, f"{shown}() needs the input as first argument")
        bounds = {
            k: v
            for k, v in given.items()
            if k != "x" and not (isinstance(v, ast.Constant) and v.value is None)
        }
        if not bounds:
            raise self.node_error(
                node,
                f"{shown}() needs a bound: min, max or both",
                f"for example {shown}(x, 0, 6) or {shown}(x, min=0)",
            )
        tree = given["x"]
        for bound, fn in (("min", "max"), ("max", "min")):
            if bound in bounds:
                tree = ast.Call(ast.Name(fn, ast.Load()), [tree, bounds[bound]], [])
        return _located(tree, node)

    def reduction_refused(self, node: ast.Call, name: str) -> None:
        """``max(x)``, ``torch.max(x)``, ``np.min(x, 0)``, ``torch.max(x, dim=1)``: a
        reduction over the batch (one argument; PyTorch's dim, NumPy's axis), refused:
        read as the elementwise max, ``x - torch.max(x)`` was silently 0."""
        func = node.func
        attr = func.attr if isinstance(func, ast.Attribute) else None
        if name.lower() not in spellings.MAX_MIN or attr not in (None, name):
            return  # np.maximum, torch.clamp...: elementwise by definition
        shown = spellings.dotted(func) or name
        if shown.rpartition(".")[0] in spellings.SYMBOLIC_MODULES:
            return  # sp.Max(x, 0): SymPy's Max is elementwise, of any arguments
        name = name.lower()
        args = node.args
        keys = {k.arg for k in node.keywords}
        reducing = {"dim", "axis", "keepdim", "keepdims"}
        if keys - reducing or any(isinstance(a, ast.Starred) for a in args):
            return  # max(x, key=abs), max(*x): refused as such further on
        numeric = (
            attr is not None
            and len(args) == 2
            and isinstance(args[1], ast.Constant)
            and not isinstance(args[1].value, bool)
        )
        if len(args) == 1 or numeric or keys:
            what = "maximum" if name == "max" else "minimum"
            raise self.node_error(
                node,
                f"{shown}(...) here is a {what} over the batch (one argument, or "
                "PyTorch's dim / NumPy's axis); a formula is elementwise",
                f"for the elementwise {what} of two values write {name}(x, 0), "
                f"np.{what}(x, 0) or torch.clamp(x, "
                f"{'min' if name == 'max' else 'max'}=0)",
            )

    def without_inplace(self, node: ast.Call) -> ast.Call:
        """``F.relu(x, inplace=True)``, ``F.leaky_relu(x, 0.2, True)``: PyTorch's
        in-place switch changes no value, so it is dropped (True or False only)."""
        flags = [k.value for k in node.keywords if k.arg == "inplace"]
        args = node.args
        parts = spellings.split(node.func)
        at = None if parts is None else spellings.inplace_position(*parts)
        if at is not None and len(args) == at + 1:
            flags.append(args[-1])
            args = args[:-1]
        if not flags:
            return node
        for value in flags:
            if not (isinstance(value, ast.Constant) and isinstance(value.value, bool)):
                raise self.node_error(value, "inplace must be True or False")
        kept = [k for k in node.keywords if k.arg != "inplace"]
        return _located(ast.Call(node.func, args, kept), node)

    def module_function(self, node: ast.Call) -> str:
        """symnb's name for a call ``np.tanh(...)``, ``F.silu(...)`` (see ``spellings``)."""
        parts = spellings.split(node.func)
        if parts is None:
            self.submodule_call(node)
            self.method_call(node)
            self.refuse(node.func)
        module, attr = parts
        optioned = spellings.with_options(parts, node)
        if optioned is not None:
            return optioned
        try:
            return spellings.function_name(module, attr, self.functions)
        except LookupError as exc:
            message, hint = exc.args
            raise self.node_error(node.func, message, hint) from None

    def module_object_call(self, node: ast.Call, func: ast.Call) -> None:
        """``nn.ReLU()(x)``, ``torch.nn.SiLU()(x)``: a layer object called on x is
        refused, naming symnb's function (it is no product of two brackets)."""
        path = spellings.dotted(func.func)
        if path is None or path in self.symbols or path in self.functions:
            return
        cls = path.rpartition(".")[2].lower()
        known = [n for n in self.functions if n.replace("_", "") == cls]
        shown = ast.get_source_segment(self.processed_text, func) or cls

        def texts(call: ast.Call) -> list[str]:
            seg = [ast.get_source_segment(self.processed_text, a) for a in call.args]
            seg += [
                f"{k.arg}={ast.get_source_segment(self.processed_text, k.value)}"
                for k in call.keywords
            ]
            return [t or "..." for t in seg]

        loss = foreign_losses.class_hint(path, texts(node))
        raise self.node_error(
            node,
            f"calling a {'loss' if loss else 'layer'} object ({shown}) is not allowed",
            loss
            or (
                f"write {known[0]}({', '.join(texts(node) + texts(func))})"
                if known
                else "write the activation as a formula of x, e.g. tanh(x) or max(x, 0)"
            ),
        )

    def submodule_call(self, node: ast.Call) -> None:
        """``self.act(x)`` left after reading a pasted class: a submodule whose
        formula the paste does not hold (a user's own layer class)."""
        attr = spellings.attribute_of(node.func)
        if attr is None:
            return
        raise self.node_error(
            node,
            f"self.{attr}(...) calls a submodule whose formula is not in the "
            "pasted code (only PyTorch's activation layers, e.g. nn.ReLU6(), are "
            "read)",
            f"write the formula self.{attr} computes in its place, or define "
            "that activation first and call it by name",
        )

    def method_call(self, node: ast.Call) -> None:
        """``x.sigmoid()``, ``x.clamp(min=0)`` (PyTorch tensor methods): refused,
        naming the function call to write instead."""
        func = node.func
        if not isinstance(func, ast.Attribute):
            return
        path = spellings.dotted(func.value)
        if path is not None and path not in self.symbols:
            return  # os.system(...), np.random.rand(...): no method of a formula's value
        name = spellings.method_function(func.attr, self.functions)
        if name is None:
            return
        receiver = ast.get_source_segment(self.processed_text, func.value) or "x"
        rest = [
            ast.get_source_segment(self.processed_text, a) or "..." for a in node.args
        ]
        rest += [
            f"{k.arg}={ast.get_source_segment(self.processed_text, k.value) or '...'}"
            for k in node.keywords
            if k.arg
        ]
        if len(receiver) > 30:
            receiver = "..."
        line, col = self.position(
            func.end_lineno, (func.end_col_offset or 0) - len(func.attr)
        )
        raise self.error(
            f"method calls ('.{func.attr}(...)') are not allowed",
            line,
            col,
            f"write {name}({', '.join([receiver, *rest])})",
        )

    def build_rewritten(self, node: ast.Call, name: str) -> _Val:
        """``np.square(u)``, ``np.logaddexp(a, b)``, ``F.hardshrink(x, lambd=0.2)``...:
        built from their formula syntax (keywords where the library names them)."""
        shown = spellings.dotted(node.func) or name
        names = list(spellings.argument_names(name))
        defaults = spellings.KEYWORD_DEFAULTS.get(name)
        # the input by keyword: PyTorch's input= (torch.logit(input=x, eps=1e-6))
        aliases = {"input": names[0]}
        aliases |= {
            k: v for k, v in _CONSTANT_ALIASES.items() if k not in names and v in names
        }
        if (
            defaults is None
            and node.keywords
            and all(aliases.get(k.arg, k.arg) in names for k in node.keywords)
        ):
            defaults = {}  # every argument required, by position or name
        if defaults is None:
            if node.keywords:
                raise self.node_error(
                    node,
                    f"{shown}(...) takes its arguments by position only",
                    f"write {shown}({', '.join(['...'] * len(names))})",
                )
            if len(node.args) != len(names):
                raise self.node_error(
                    node,
                    f"{shown} takes {len(names)} argument(s), {len(node.args)} given",
                )
            # a starred argument stays in the tree, where build refuses it by name
            return self.build(spellings.rewrite_call(name, node))
        given = self.call_arguments(node, shown, names, aliases, first_by_keyword=True)
        training = given.get("training")
        if training is not None and not (
            isinstance(training, ast.Constant) and training.value is False
        ):
            raise self.node_error(
                node,
                f"{shown} with training=True draws a random slope for each element; "
                "a formula is one function",
                f"write {shown}(x, training=False) (the slope (lower + upper)/2 for "
                "x < 0) or leaky_relu(x, negative_slope=...)",
            )
        args = []
        for arg in names:
            if arg in given:
                args.append(given[arg])
            elif defaults.get(arg) is not None:
                args.append(_located(ast.Constant(defaults[arg]), node))
            else:
                raise self.node_error(
                    node,
                    f"{shown}() needs its argument {arg!r}",
                    f"write {shown}({', '.join(names)})",
                )
        return self.build(spellings.rewrite_call(name, node, args))

    def module_constant(self, node: ast.Attribute) -> _Val:
        """``np.pi``, ``math.e``: the number, whatever constants the user declared;
        ``self.beta`` (pasted from a module's forward): the constant beta."""
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            if node.attr in self.constants:
                return _Val(self.symbols[node.attr], None)
            raise self.node_error(
                node,
                f"unknown constant self.{node.attr}",
                f"declare it: Activation(..., {node.attr}=1.0) (self.{node.attr} "
                f"reads as the constant {node.attr})",
            )
        parts = spellings.split(node)
        if parts is None or parts[1] not in spellings.CONSTANTS:
            self.refuse(node)
        value = ALLOWED_CONSTANTS[spellings.CONSTANTS[parts[1]]]
        return _Val(value, float(value))

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
        if isinstance(node, ast.Tuple):
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
                is_literal = re.fullmatch(r"[0-9.eE+-]+", seg) is not None
                # (a node built from other text, e.g. a library default, has the
                # position of the call it stands in: its segment is no literal)
                if is_literal and v == 0.0 and nonzero_literal(seg):
                    # 1e-400: a nonzero literal that float64 reads as 0.0
                    raise self.node_error(
                        node,
                        f"number {seg[:40]} is too small for a float (it would be "
                        "0); the smallest nonzero magnitude is about 5e-324",
                        "write 0 if 0 is meant, or rescale the formula",
                    )
                if 0 < len(seg) <= 60 and is_literal:
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
        alias = self.code_names.get(name) or spellings.variable_alias(
            name, self.variables
        )
        if alias in self.symbols:
            return _Val(self.symbols[alias], None)
        if name == self.input_alias:
            return _Val(self.symbols["x"], None)
        self.unknown_name(node, name, called=False)
        raise AssertionError  # pragma: no cover

    def unknown_name(self, node: ast.AST, name: str, called: bool) -> None:
        if name.startswith("_"):
            raise self.node_error(
                node,
                f"name {name!r} is not allowed (names starting with '_' are not allowed)",
            )
        if not called and name in library.LOSSES:
            raise self.node_error(
                node,
                f"{name!r} is a library loss; call it, e.g. {name}(y_pred, y_true)",
                f"or use symnb.loss({name!r})",
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
        if called and name in spellings.AMBIGUOUS:
            raise self.node_error(node, *spellings.AMBIGUOUS[name])
        if called and name == "sum":
            # sum(w*exp(-((x - c)/h)**2) for c, w in ...): a KAN-style basis pasted
            # from Python; the generic "not allowed" listed every function instead
            raise self.node_error(
                node,
                "sum(...) over terms is not supported: a formula is one elementwise "
                "expression, not a reduction",
                "write the terms out with +, e.g. exp(-(x - 0)**2) + exp(-(x - 1)**2) "
                "+ exp(-(x - 2)**2)",
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

    def build_operand(self, node: ast.AST) -> _Val:
        """An operand of + - * /: a comparison there is 1 where it holds, else 0, as
        NumPy and PyTorch read ``x*(x > 0)`` or ``x*((x > -1) & (x < 1))``."""
        logical = isinstance(node, (ast.Compare, ast.BoolOp)) or (
            isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr))
        )
        if not logical:
            return self.build(node)
        cond = self.build_condition(node)
        fn = ALLOWED_FUNCTIONS["where"]
        expr = self.sympy_call(node, "a comparison", fn, cond, sp.S.One, sp.S.Zero)
        return self.result(node, expr, None)

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
            val = self.build_operand(operand)
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
        problem = _power_problem(base.approx, expo.approx, base.expr)
        if problem is not None:
            part, message, suggestion = problem
            raise self.node_error(
                node.right if part == "exponent" else node, message, suggestion
            )
        if base.approx is not None and expo.approx is not None:
            approx = self.estimate(node, math.pow, base.approx, expo.approx)
        expr = self.sympy_call(node, "a power", sp.Pow, base.expr, expo.expr)
        return self.result(node, expr, approx)

    def build_unary(self, node: ast.UnaryOp) -> _Val:
        if isinstance(node.op, ast.USub):
            val = self.build_operand(node.operand)
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
        node = self.without_inplace(node)
        func = node.func
        if not isinstance(func, ast.Name):
            if isinstance(func, ast.Call):
                self.module_object_call(node, func)
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
            name = self.module_function(node)
            if spellings.is_rewritten(name):
                return self.build_rewritten(node, name)
        else:
            name = func.id
        if (
            name in library.LOSSES or name in foreign_losses.ENTRIES
        ) and name not in self.functions:
            return self.build(self.library_loss_call(node, name))
        if name not in self.functions:
            if name in self.symbols:
                raise self.node_error(
                    node,
                    f"{name!r} is not a function",
                    f"use * for multiplication: {name}*(...)",
                )
            folded = spellings.folded_name(name, self.functions)
            if spellings.BARE.get(name) in self.functions:
                name = spellings.BARE[name]
            elif spellings.is_rewritten(spellings.BARE.get(name, "")):
                return self.build_rewritten(node, spellings.BARE[name])
            elif folded is not None:
                name = folded  # ReLU(x), GELU(x), hard_swish(x), hswish(x)
            else:
                self.unknown_name(func, name, called=True)
        if compose.library_name(self.functions.get(name)) in _GELUS and (
            node.keywords or len(node.args) > 1
        ):
            return self.build(self.gelu_variant(node, name))
        entry = self.library_entry(name)
        if entry is not None and (node.keywords or len(node.args) > 1):
            return self.build(self.library_call(node, name, entry))
        if name == "clip":
            return self.build(self.clip_call(node))
        self.reduction_refused(node, name)
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
        if name not in ALLOWED_FUNCTIONS and len(node.args) > 1:
            shown = [
                ast.get_source_segment(self.processed_text, a) or "?" for a in node.args
            ]
            message, suggestion = activation_arity(name, fn, shown)
            raise self.node_error(node, message, suggestion)
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
        problem = arity_problem(name, fn, len(node.args))
        if problem is not None:
            raise self.node_error(node, *problem)
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
        check_length(text)
        if not text.strip():
            raise self.error(
                "empty formula", suggestion="type a formula, e.g. x*sigmoid(x)"
            )
        if not _COMMENT.sub("", text).strip():
            raise self.error(
                "empty formula (it is only a comment)",
                suggestion="type a formula before the '#', e.g. x*sigmoid(x)  # swish",
            )
        barred = unicode_math.bars(text)
        if barred is not None:
            return self.bars_formula(barred)
        self.check_characters()
        self.check_nesting()
        latex = self.latex_text()
        if latex is not None:
            return self.read_as(latex, "in the LaTeX read as")
        self.check_nesting()
        processed = self.preprocess()
        try:
            pasted = python_code.returned_expression(processed)
        except python_code.CodeProblem as problem:
            line, column = (
                self.position(problem.lineno, problem.col_offset)
                if problem.lineno
                else (None, None)
            )
            raise self.error(
                str(problem),
                line,
                column,
                suggestion="paste one function whose body assigns names and returns "
                "one expression (or type the formula itself)",
            ) from None
        code_inputs: tuple[str, ...] = ()
        if pasted is not None and pasted.inlined:
            return self.code_formula(pasted.text)
        if pasted is not None:
            processed, code_inputs = pasted.text, pasted.inputs
        self.code_names = spellings.loss_inputs(code_inputs, self.variables)
        if len(code_inputs) == 1 and tuple(self.variables) == ("y_pred", "y_true"):
            # its one parameter was an "unknown symbol" (did you mean 'pi'?)
            raise self.error(
                f"the pasted loss function takes one input ({code_inputs[0]}); a "
                "loss takes two, the prediction and the target",
                suggestion=f"write it as def loss(y_pred, y_true): return ..., or "
                f"give {code_inputs[0]} a partner: def loss({code_inputs[0]}, "
                "target): ...",
            )
        self.processed_lines = processed.split("\n")
        self.processed_text = processed
        tree = self.ast_parse(processed)
        self.check_tree(tree)
        tree = tensor_idioms.rewrite(tree)
        tree = layer_objects.rewrite(tree)
        tree = tensor_methods.rewrite(tree, self.functions)
        self.input_alias = spellings.input_alias(
            tree,
            self.variables,
            self.constants,
            code_inputs[0] if code_inputs else None,
        )
        try:
            if tuple(self.variables) == ("y_pred", "y_true"):
                tree.body = batch_means.strip(
                    tree.body,
                    lambda n: (
                        n in self.variables
                        or spellings.variable_alias(n, self.variables) is not None
                    ),
                    self.node_error,
                )
        except RecursionError:
            raise self.error("formula is nested too deeply") from None
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
            # brackets were counted before: a long flat chain (x + x + ... 3000 times)
            # exhausts Python's parser as nesting does, but is no nesting to simplify
            chain = len(re.findall(r"(?<!\*)[-+*/](?!\*)", processed))
            if chain > 1000 and processed.count("**") < 100:
                raise self.error(
                    f"formula is too long to read ({chain} operators in one chain)",
                    suggestion="split it into smaller formulas (e.g. name parts "
                    "with Activation(..., name=...) and combine them)",
                ) from None
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
        statement = self.statement_error()
        if statement is not None:
            raise statement
        named = self.keyword_as_name()
        if named is not None:
            raise named
        bare = self.call_without_brackets()
        if bare is not None:
            bline, bcol, fn, arg = bare
            raise self.error(
                f"syntax error: {msg} ({fn} needs brackets around its argument)",
                bline,
                bcol,
                f"write {fn}({arg})",
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

    def keyword_as_name(self) -> FormulaError | None:
        """A Python keyword typed where a value goes (``lambda*x``, ``x*in``): Python
        stops there with "invalid syntax" (the hint said the formula ends too early)."""
        import io
        import tokenize

        try:
            tokens = [
                t
                for t in tokenize.generate_tokens(io.StringIO(self.text).readline)
                if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT)
                and t.type != tokenize.ENDMARKER
            ]
        except (tokenize.TokenError, SyntaxError, ValueError):
            return None
        edge = {"+", "-", "*", "/", "**", "(", ")", ",", "^"}
        for i, tok in enumerate(tokens):
            if tok.type != tokenize.NAME or not keyword.iskeyword(tok.string):
                continue
            if tok.string in ("and", "or", "not", "if", "else", "True", "False"):
                continue  # meaningful in conditions; their errors come elsewhere
            before = tokens[i - 1].string if i else "("
            after = tokens[i + 1].string if i + 1 < len(tokens) else ")"
            if before in edge and after in edge:
                line, col = self.position(tok.start[0], tok.start[1])
                return self.error(
                    f"{tok.string!r} is a Python keyword and cannot be a name in a "
                    "formula",
                    line,
                    col,
                    f"rename it, e.g. {tok.string}_, in the formula and where its "
                    f"value is given ({tok.string}_=1.0)",
                )
        return None

    def statement_error(self) -> FormulaError | None:
        """``f(x) = ...``, ``y = ...`` or a ``;``: a formula is one expression."""
        text = self.text
        code = _COMMENT.sub(lambda m: " " * len(m.group()), text)
        m = _DEFINITION.match(code)
        if m is not None:
            at = m.end() - 1
            head = " ".join(code[:at].split())
            rhs = code[m.end() :].strip().rstrip(";").strip()
            rhs = rhs if len(rhs) <= 60 else rhs[:57] + "..."
            return self.error(
                f"syntax error: a formula is only the expression, not a definition "
                f"'{head} = ...'",
                code.count("\n", 0, at) + 1,
                at - code.rfind("\n", 0, at),
                f"write only the right-hand side, e.g. {rhs or 'x*sigmoid(x)'} "
                "(the 'name(x) = ...' form is for %%symact cells)",
            )
        at = code.find(";")
        if at < 0:
            return None
        trailing = not code[at + 1 :].replace(";", " ").strip()
        return self.error(
            "syntax error: ';' is not allowed, a formula is one expression",
            code.count("\n", 0, at) + 1,
            at - code.rfind("\n", 0, at),
            "remove the ';' at the end"
            if trailing
            else "remove the ';': write one expression per formula",
        )

    def check_result(self, expr: sp.Expr) -> None:
        where = f"formula {self.short_text()}"
        _validate(expr, self.text, self.functions, where, limits=False)


def _ite_as_logic(ite: ITE) -> Boolean:
    """``ITE(c, a, b)`` as ``(c & a) | (~c & b)``."""
    c, a, b = ite.args
    return sp.Or(sp.And(c, a), sp.And(sp.Not(c), b))


def _plain_conditions(expr: Any) -> Any:
    """``expr`` with conditions written with and/or/not only: SymPy's Piecewise turns a
    comparison of a piecewise value (``where(cbrt(x) > 1, x, 0)``: cbrt is piecewise)
    into ``ITE(x >= 0, x**(1/3) > 1, ...)``, which no formula may hold (it was refused
    as "a condition must be a comparison ..., got ITE")."""
    if not isinstance(expr, sp.Piecewise) or not any(c.has(ITE) for _, c in expr.args):
        return expr
    return sp.Piecewise(
        *[
            (e, c.replace(lambda n: isinstance(n, ITE), _ite_as_logic))
            for e, c in expr.args
        ]
    )


def _signed_constant(node: ast.AST, default: object) -> object:
    """The number of ``-1`` or ``+0.5`` (a sign before a constant), else ``default``."""
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, (int, float))
        and not isinstance(node.operand.value, bool)
    ):
        value = node.operand.value
        return -value if isinstance(node.op, ast.USub) else value
    return default


def _located(tree: ast.AST, node: ast.AST, every: bool = False) -> ast.AST:
    """``tree`` with ``node``'s position on every node that has none of its own (on
    every node with ``every``: a tree parsed from another text)."""
    for sub in ast.walk(tree):
        if isinstance(sub, ast.expr) and (every or not hasattr(sub, "lineno")):
            ast.copy_location(sub, node)
            sub.end_lineno, sub.end_col_offset = node.end_lineno, node.end_col_offset
    return tree


def _substituted(
    entry: library.Entry, given: dict[str, ast.AST], node: ast.AST
) -> ast.AST:
    """The syntax tree of a library entry's formula with ``given``'s argument nodes in
    place of its variables and constants (the entry's defaults for constants not
    given), located at ``node``."""
    for k, v in entry.constants.items():
        given.setdefault(k, _located(ast.Constant(v), node))

    class Put(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name) -> ast.AST:
            return given.get(n.id, n)

    body = _located(ast.parse(entry.text, mode="eval").body, node, every=True)
    return Put().visit(body)


def check_length(text: str, what: str = "formula") -> None:
    """Refuse a text longer than :data:`MAX_LENGTH`, before anything else reads it."""
    if len(text) > MAX_LENGTH:
        raise FormulaError(
            f"{what} is too long ({len(text)} characters, at most {MAX_LENGTH})",
            suggestion="split it into smaller formulas",
        )


def call_arity(fn: Any) -> tuple[int, int | None]:
    """(fewest, most) positional arguments a formula function takes; most is None for
    any number (``Max``). SymPy classes say it in ``nargs``; the helpers in
    :mod:`symnb.formula.functions` in their signatures (``evaluate`` is SymPy's option,
    not an argument: ``sqrt(x, 0)`` was read as ``sqrt(x)``)."""
    nargs = getattr(fn, "nargs", None) if isinstance(fn, type) else None
    if isinstance(nargs, sp.FiniteSet):
        counts = [int(n) for n in nargs]
        return min(counts), max(counts)
    if nargs is not None:
        return 1, None
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1, None
    positional = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        and p.name != "evaluate"
    ]
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return len(positional), None
    required = sum(1 for p in positional if p.default is p.empty)
    return required, len(positional)


#: Hints for calls with too many arguments where users mean something else.
_ARITY_HINTS = {
    "sqrt": "for another root write x**(1/n), or cbrt(x) for the cube root",
    "exp": "for a power of another base write b**x",
}


def arity_problem(name: str, fn: Any, given: int) -> tuple[str, str] | None:
    """Message and hint when ``name`` (calling ``fn``) cannot take ``given``
    arguments, else None."""
    low, high = call_arity(fn)
    if low <= given and (high is None or given <= high):
        return None
    if high is None:
        wanted = f"at least {low}"
    elif low == high:
        wanted = f"{low}"
    else:
        wanted = f"{low} to {high}"
    plural = "" if wanted == "1" else "s"
    message = f"{name} takes {wanted} argument{plural}, {given} given"
    return message, _ARITY_HINTS.get(
        name, f"call {name}(...) with {wanted} argument{plural}"
    )


def activation_arity(name: str, fn: Any, args: list[str]) -> tuple[str, str]:
    """Message and hint for an activation called with more than its one argument,
    e.g. ``leaky_relu(x, 0.2)``; ``args`` are the arguments as the user wrote them.

    Inside a formula a library activation has its default constants and a named one the
    values it was defined with; another value means writing the formula out or naming
    an activation with that value.
    """
    given = f"{name} takes one argument in a formula, the input ({len(args)} given)"
    lib = compose.library_name(fn)
    entry = library.ACTIVATIONS.get(lib) if lib is not None else None
    if entry is None:
        return given, (
            f"a named activation keeps the constant values it was defined with; for "
            f"other values define one more name with them, e.g. in %%symact: "
            f"{name}_2(x; c=0.5) = ... and call {name}_2(x)"
        )
    if not entry.constants:
        return given, f"{name} has no constants: call it as {name}(x)"
    names = list(entry.constants)
    defaults = ", ".join(f"{k}={v:g}" for k, v in entry.constants.items())
    message = f"{given}; it uses the library's {defaults}"
    if len(args) - 1 > len(names):
        return message, (
            f"its constants are {', '.join(names)}: see symnb.activation({name!r}, "
            + ", ".join(f"{k}=..." for k in names)
            + ")"
        )
    values = dict(zip(["x", *names], args))
    simple = re.compile(r"[A-Za-z0-9_.]+")

    def put(m: re.Match) -> str:
        text = values.get(m.group(), m.group())
        return text if simple.fullmatch(text) else f"({text})"

    written = re.sub(r"[A-Za-z_]\w*", put, entry.text)
    numeric = {k: values[k] for k in names if _is_number_text(values.get(k, ""))}
    example = {**{k: f"{v:g}" for k, v in entry.constants.items()}, **numeric}
    keywords = ", ".join(f"{k}={v}" for k, v in example.items())
    return message, (
        f"write it out with your values: {written}; or define a named activation "
        f"with them and call it by its name: symnb.Activation({entry.text!r}, "
        f"name='my_{name}', {keywords}) or the %%symact line my_{name}(x; {keywords})"
        f" = {entry.text}, then my_{name}(x) (symnb.activation({name!r}, {keywords})"
        " is that activation on its own, not callable in formulas)"
    )


def _is_number_text(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


# ---------------------------------------------------------------- SymPy objects
# ``Activation(sympy_expr)`` gets the same checks as formula text: the walk below runs
# on the parser's result (limits=False: the text's own length/node/depth limits were
# checked on its syntax tree) and on SymPy objects (limits=True), iteratively.

_RELATIONALS = (
    sp.StrictLessThan,
    sp.LessThan,
    sp.StrictGreaterThan,
    sp.GreaterThan,
    sp.Equality,
    sp.Unequality,
)
_CONNECTIVES = (sp.And, sp.Or, sp.Not)
#: Numbers with names a SymPy expression may hold: the formulas' pi and E, and the ones
#: limits of derivatives bring (code generation prints them all).
_NUMBER_SYMBOLS = (
    *ALLOWED_CONSTANTS.values(),
    sp.EulerGamma,
    sp.GoldenRatio,
    sp.Catalan,
)
_MAX_DEPTH_TEXT = f"formula is nested too deeply (more than {MAX_DEPTH} levels)"


def _allowed_classes() -> tuple[type, ...]:
    """The SymPy function classes the formula functions build (``where`` a Piecewise,
    ``relu`` a Max, ``heaviside`` a Heaviside ...), found by calling each once."""
    if _ALLOWED_CLASSES:
        return _ALLOWED_CLASSES[0]
    u, a, b = sp.symbols("u a b", real=True)
    # SymPy's erfc: symnb's erfc evaluates numbers to it, the stable rewrites use it
    found: set[type] = {sp.erfc, erfcx, ierfcx, compose.ComposedFunction}
    for fn in ALLOWED_FUNCTIONS.values():
        if isinstance(fn, type):
            found.add(fn)
            continue
        for args in ((u,), (u, a, b), (u > 0, a, b)):
            try:
                out = fn(*args)
            except Exception:  # noqa: BLE001, S112 - not this many arguments
                continue
            parts = sp.preorder_traversal(out)
            found.update(type(n) for n in parts if isinstance(n, sp.Function))
            break
    _ALLOWED_CLASSES.append(tuple(found))
    return _ALLOWED_CLASSES[0]


_ALLOWED_CLASSES: list[tuple[type, ...]] = []
#: Float estimates by SymPy class (for constant sub-expressions, as the parser's).
_APPROX_BY_CLASS: dict[type, Callable[..., float]] = {
    **{
        ALLOWED_FUNCTIONS[name]: fn
        for name, fn in _APPROX_BY_NAME.items()
        if isinstance(ALLOWED_FUNCTIONS.get(name), type)
    },
    sp.Heaviside: _heaviside_f,
    sp.erfc: math.erfc,
}


class _Found:
    """What the walk saw: symbols, and calls of undefined functions the table knows."""

    def __init__(self) -> None:
        self.symbols: set[sp.Symbol] = set()
        self.calls: set[sp.Basic] = set()


def _validate(
    expr: sp.Basic,
    text: str | None,
    functions: Mapping[str, Any],
    where: str,
    limits: bool,
) -> _Found:
    """Check a SymPy expression as the parser checks text: only the formula functions,
    finite real numbers within the magnitude and exponent limits, Piecewise with an
    'otherwise' pair, conditions only in Piecewise; with ``limits`` also the node count
    and nesting depth. Iterative (a deep tree raises no RecursionError); each shared
    sub-expression is visited once. ``where`` names the formula in messages."""
    found = _Found()
    classes = _allowed_classes()
    # (height, size written out, float estimate) of each part checked
    info: dict[tuple[int, bool], tuple[int, int, float | None]] = {}
    expanded: set[tuple[int, bool]] = set()
    stack: list[tuple[sp.Basic, bool, bool]] = [(expr, False, False)]

    def fail(message: str, suggestion: str | None = None) -> FormulaError:
        return FormulaError(message, text, None, None, suggestion)

    while stack:
        node, condition, done = stack.pop()
        key = (id(node), condition)
        if done:
            info[key] = _finish(node, condition, info, fail, where)
            if limits and info[key][0] > MAX_DEPTH:
                raise fail(_MAX_DEPTH_TEXT, "simplify the formula")
            if limits and info[key][1] > MAX_LENGTH:
                # a part shared n times is printed (and walked by SymPy) n times
                raise fail(
                    f"formula is too long (written out, more than {MAX_LENGTH} parts)",
                    "split it into smaller formulas",
                )
            continue
        if key in expanded:
            continue
        expanded.add(key)
        if limits and len(expanded) > MAX_NODES:
            raise fail(
                f"formula is too long (more than {MAX_NODES} terms and operators)",
                "split it into smaller formulas",
            )
        children = _children(node, condition, classes, functions, found, fail)
        stack.append((node, condition, True))
        stack.extend(
            (c, cond, False) for c, cond in children if (id(c), cond) not in expanded
        )
    return found


def _parts(node: sp.Basic, condition: bool) -> list[tuple[sp.Basic, bool]]:
    """The sub-expressions of ``node`` and whether each is a condition."""
    if isinstance(node, sp.Piecewise):
        return [
            part
            for pair in node.args
            for part in ((pair.expr, False), (pair.cond, True))
        ]
    if condition and isinstance(node, _CONNECTIVES):
        return [(a, True) for a in node.args]
    return [(a, False) for a in node.args]


def _children(
    node: sp.Basic,
    condition: bool,
    classes: tuple[type, ...],
    functions: Mapping[str, Any],
    found: _Found,
    fail: Callable[..., FormulaError],
) -> list[tuple[sp.Basic, bool]]:
    """Refuse what a formula cannot hold at this place; return the parts to check."""
    if condition:
        if isinstance(node, (BooleanAtom, *_CONNECTIVES, *_RELATIONALS)):
            return _parts(node, condition)
        raise fail(
            f"a condition must be a comparison (<, <=, >, >=, ==, !=) or True, got "
            f"{type(node).__name__}",
            "for example Piecewise((x, x > 0), (0, True))",
        )
    if isinstance(node, sp.Symbol):
        if not is_formula_name(node.name):
            raise fail(
                f"symbol name {node.name[:60]!r} is not a valid name",
                "use letters, digits and '_', starting with a letter",
            )
        found.symbols.add(node)
        return []
    if node is sp.I:
        raise fail("complex numbers are not allowed", "formulas are real")
    if node is sp.zoo:
        raise fail(
            "the formula gives an infinite or undefined value (zoo); formulas must be "
            "finite and real",
            "check divisions by zero",
        )
    if isinstance(node, sp.NumberSymbol) and node not in _NUMBER_SYMBOLS:
        raise fail(f"the constant {node} is not allowed in a formula")
    if isinstance(node, (sp.Number, sp.NumberSymbol, sp.Add, sp.Mul, sp.Pow)):
        return _parts(node, condition)
    if not isinstance(node, sp.Expr):
        if isinstance(node, Boolean):  # comparisons included
            raise fail(
                "comparisons and and/or/not are not allowed here: only as conditions "
                "of Piecewise(...) or where(...)",
                "for example Piecewise((x, x > 0), (0.1*x, True))",
            )
        raise fail(f"{type(node).__name__} is not allowed in a formula")
    if isinstance(node, sp.Piecewise):
        if node.args[-1].cond is not sp.true:
            raise fail(
                "Piecewise needs an 'otherwise' pair (value, True) as its last "
                "argument",
                "for example Piecewise((x, x > 0), (0, True))",
            )
        return _parts(node, condition)
    if isinstance(node, (sp.Max, sp.Min)):
        check_minmax_arity(type(node), node.args)
    if isinstance(node, classes):
        return _parts(node, condition)
    hint = "allowed functions: " + ", ".join(
        sorted({n for n in functions if n.islower()})
    )
    if isinstance(node, AppliedUndef):
        name = type(node).__name__
        if name in functions:
            found.calls.add(node)
            return _parts(node, condition)
        guess = _suggest(name, functions, PREFERRED_FUNCTIONS)
        if guess:
            raise fail(f"unknown function {name!r} (did you mean {guess!r}?)", hint)
        raise fail(f"unknown function {name!r}", hint)
    if isinstance(node, sp.Function):
        name = type(node).__name__
        raise fail(f"function {name!r} is not allowed in a formula", hint)
    raise fail(
        f"{type(node).__name__} is not allowed in a formula: it is not a function of "
        "the formula language (unevaluated integrals, sums, limits and derivatives "
        "cannot be compiled)",
        hint,
    )


def _finish(
    node: sp.Basic,
    condition: bool,
    info: dict[tuple[int, bool], tuple[int, int, float | None]],
    fail: Callable[..., FormulaError],
    where: str,
) -> tuple[int, int, float | None]:
    """Height, size written out and float estimate of ``node``, its parts done;
    numbers and powers checked."""
    parts = [info[(id(c), cond)] for c, cond in _parts(node, condition)]
    height = 1 + max((h for h, _, _ in parts), default=0)
    size = 1 + sum(n for _, n, _ in parts)
    approx = [a for _, _, a in parts]
    known = bool(approx) and all(a is not None for a in approx)
    value = None
    try:
        if isinstance(node, sp.Number):
            value = _number_value(node, where)
        elif isinstance(node, sp.NumberSymbol):
            value = float(node)
        elif isinstance(node, sp.Pow):
            problem = _power_problem(approx[0], approx[1], node.base)
            if problem is not None:
                raise _Problem(f"{problem[1]} in {where}", problem[2])
            value = _estimate(math.pow, *approx) if known else None
        elif isinstance(node, (sp.Add, sp.Mul)) and known:
            op = math.fsum if isinstance(node, sp.Add) else math.prod
            value = _check_number(op(approx), "the value of a constant part")
        elif type(node) in _APPROX_BY_CLASS and known:
            value = _estimate(_APPROX_BY_CLASS[type(node)], *approx)
    except _Problem as problem:
        raise fail(problem.message, problem.suggestion) from None
    return height, size, value


def _number_value(num: sp.Number, where: str) -> float:
    """A finite real number of magnitude at most MAX_MAGNITUDE (exact ones included)."""
    if num.is_finite is False or num is sp.nan:
        raise _Problem(
            f"{where} gives an infinite or undefined value ({num}); formulas must be "
            "finite and real",
            "check divisions by zero, logs and roots of negative constants",
        )
    big = isinstance(num, sp.Rational) and max(abs(num.p), num.q) > MAX_MAGNITUDE
    try:
        big = big or abs(float(num)) > MAX_MAGNITUDE
    except OverflowError:
        big = True
    if big:
        raise _Problem(
            f"{where} contains a number beyond {MAX_MAGNITUDE:g}",
            "use numbers whose magnitude is at most 1e300",
        )
    return float(num)


def adopt_sympy(
    expr: Any,
    variables: tuple[str, ...] = ("x",),
    constants: Iterable[str] = (),
    *,
    functions: Mapping[str, Any] | None = None,
    what: str = "formula",
) -> sp.Expr:
    """A SymPy expression checked as formula text is, in real symbols of the same names.

    Calls of undefined functions whose names the formula may call
    (``sympy.Function("gelu")(x)``) become those functions, as in text.

    Raises
    ------
    FormulaError
        For what the text path refuses: functions outside the formula language
        (``Integral``, ``gamma`` ...), numbers beyond the limits, a Piecewise without
        an 'otherwise' pair, a nesting deeper than :data:`MAX_DEPTH`, more than
        :data:`MAX_NODES` distinct parts, names that are not identifiers, symbols that
        are neither variables nor declared constants.
    """
    functions = ALLOWED_FUNCTIONS if functions is None else functions
    var_names, const_names = _declared(variables, constants, functions)
    if not isinstance(expr, sp.Expr):
        raise FormulaError(
            f"a {what} must be a number-valued SymPy expression, got "
            f"{type(expr).__name__}",
            suggestion="a condition belongs in Piecewise((value, condition), "
            "(otherwise, True))",
        )
    found = _validate(expr, None, functions, f"the {what}", limits=True)
    allowed = {*var_names, *const_names}
    mapping = {}
    for s in sorted(found.symbols, key=lambda s: s.name):
        if s.name not in allowed:
            declare = f"declare it as a constant: {s.name}=1.0"
            guess = _suggest(s.name, allowed)
            raise FormulaError(
                f"unknown symbol {s.name!r} in the {what}",
                suggestion=f"did you mean {guess!r}? Otherwise {declare}"
                if guess
                else declare,
            )
        _refuse_narrowed_symbol(s, what)
        mapping[s] = sp.Symbol(s.name, real=True)
    adopted = expr.xreplace(mapping)
    if found.calls:
        adopted = adopted.replace(
            lambda e: isinstance(e, AppliedUndef) and type(e).__name__ in functions,
            lambda e: _call(type(e).__name__, functions, e.args, what),
        )
        _validate(adopted, None, functions, f"the {what}", limits=True)
    return adopted


#: SymPy assumptions that narrow a symbol to part of the real line (or off it). SymPy
#: simplifies with them as the expression is built (``Abs(x)`` is ``x`` for a positive
#: ``x``, ``sqrt(b**2)`` is ``b``), so the expression handed over may already be wrong
#: for the values a kernel takes (every real ``x``, constants set to any sign).
_NARROWING_ASSUMPTIONS = (
    "positive",
    "negative",
    "nonnegative",
    "nonpositive",
    "zero",
    "nonzero",
    "integer",
    "rational",
    "irrational",
    "even",
    "odd",
    "prime",
    "composite",
    "noninteger",
    "imaginary",
    "extended_positive",
    "extended_negative",
    "extended_nonnegative",
    "extended_nonpositive",
    "extended_nonzero",
)


def _refuse_narrowed_symbol(symbol: sp.Symbol, what: str) -> None:
    """FormulaError for a symbol declared on part of the real line (see above)."""
    facts = symbol.assumptions0
    narrowing = [k for k in _NARROWING_ASSUMPTIONS if facts.get(k) is True]
    if facts.get("real") is False:
        narrowing.append("real=False")
    if narrowing:
        # the first is the strongest (positive implies nonnegative, nonzero, ...)
        declared = narrowing[0] if "=" in narrowing[0] else f"{narrowing[0]}=True"
        raise FormulaError(
            f"symbol {symbol.name!r} in the {what} is declared with {declared}; "
            "SymPy may already have simplified with it (Abs(x) -> x for a positive "
            f"x), which is wrong for the other real values {symbol.name} takes",
            suggestion=f"declare it as sympy.Symbol({symbol.name!r}) or "
            f"sympy.Symbol({symbol.name!r}, real=True) and build the expression again",
        )


def _call(name: str, functions: Mapping[str, Any], args: tuple, what: str) -> Any:
    """``functions[name](*args)`` for an undefined function's call in a SymPy object."""
    fn = functions[name]
    if name not in ALLOWED_FUNCTIONS and len(args) > 1:
        raise FormulaError(*activation_arity(name, fn, [sp.sstr(a) for a in args]))
    try:
        return fn(*args)
    except FormulaError:
        raise
    except Exception as exc:  # noqa: BLE001 - any SymPy failure -> FormulaError
        raise FormulaError(
            f"could not build {name}(...) in the {what}: {type(exc).__name__}: {exc}"
        ) from None


def _declared(
    variables: Any, constants: Any, functions: Mapping[str, Any]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The variable and constant names, checked: identifiers, distinct, no function."""
    var_names = _names("variable", variables, None, functions)
    const_names = _names("constant", constants, None, functions)
    seen: set[str] = set()
    for kind, name in [("variable", n) for n in var_names] + [
        ("constant", n) for n in const_names
    ]:
        if name in seen:
            raise FormulaError(
                f"{kind} {name!r} is declared twice "
                "(variables and constants must differ)",
            )
        seen.add(name)
    return var_names, const_names


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
        if keyword.iskeyword(name):  # was "use letters, digits and '_'": it does
            raise FormulaError(
                f"{kind} name {name!r} is a Python keyword, which a formula cannot "
                "use as a name",
                text,
                None,
                None,
                f"rename it, e.g. {name}_ ({name}_=1.0, and {name}_ in the formula)",
            )
        if not is_formula_name(name):
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
    var_names, const_names = _declared(variables, constants, functions)
    return _Parser(text, var_names, const_names, functions).parse()


__all__ = [
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_LENGTH",
    "MAX_MAGNITUDE",
    "MAX_NODES",
    "TIME_BUDGET_SECONDS",
    "activation_arity",
    "adopt_sympy",
    "check_length",
    "parse_formula",
]
