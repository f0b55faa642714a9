"""LaTeX pasted from a paper, read as formula text: ``x \\cdot \\sigma(\\beta x)``.

Activations are published as LaTeX, so researchers paste it. This module turns the
common math of papers into symnb's formula syntax, which the safe parser then reads
as any typed formula (nothing here evaluates anything): fractions, roots, powers
(``e^{-x}``, ``\\sin^2(ax)``), the functions of the library (``\\tanh``, ``\\ln``,
``\\sigma``, ``\\Phi``, ``\\operatorname{softplus}``), Greek letters as constants'
names (``\\beta`` is ``beta``), absolute values, brackets, implicit multiplication
(``2x``, ``\\beta x``, ``x(1 + x)``) and ``\\begin{cases}`` as Piecewise (the last case
is the otherwise). A command without a reading raises :class:`LatexProblem` naming it.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Container

from symnb.formula import (
    latex_chain,
    latex_lattice,
    latex_macros,
    latex_sums,
    spellings,
)
from symnb.formula.functions import ALLOWED_FUNCTIONS
from symnb.formula.latex_numbers import SEPARATORS, NumberProblem, joined_number
from symnb.formula.library import ACTIVATIONS

#: Commands whose ``{word}`` is a function's or a constant's name (``\\text{if}``
#: words of a case's condition too).
_WORD_COMMANDS = frozenset(
    {
        "operatorname",
        "mathrm",
        "text",
        "textrm",
        "textit",
        "textnormal",
        "mathit",
        "mathsf",
        "mathbf",
        "boldsymbol",
        "bm",  # \bm{x}, \vec{x}: the input x as a paper's vector (elementwise here)
        "pmb",
        "vec",
        "mbox",
        "rm",
    }
)

#: ``^{-1}`` of a function: its inverse (``tan^{-1}`` is arctan, not 1/tan).
_MINUS_ONE = [("(", "("), ("op", "-"), ("num", "1"), (")", ")")]
_INVERSES = {
    "sin": "asin",
    "cos": "acos",
    "tan": "atan",
    "sinh": "asinh",
    "cosh": "acosh",
    "tanh": "atanh",
    "sigmoid": "logit",
}


#: An interval's comparisons, by whether its bracket is open: x > a or x >= a...
_INTERVAL_LOWER = {True: ">", False: ">="}
_INTERVAL_UPPER = {True: "<", False: "<="}
_OPPOSITE = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}


_DERIVATIVE = (
    "a derivative has no formula reading: type the function itself, symnb "
    "derives f' (or type the derivative's formula)"
)
#: A decimal number, with its exponent as code writes it (siunitx's \\num{1e-8}).
_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
#: The upright e of ``1\\mathrm{e}{-6}`` (a number's exponent when braced).
_UPRIGHT = ("mathrm", "text", "textrm", "rm")
#: The largest n of n! and \\binom{n}{k} read as a number (20! still fits 64 bits).
_MAX_FACTORIAL = 20


class LatexProblem(ValueError):
    """LaTeX that has no formula reading here; the message names the command.

    ``suggestion`` is the fix where the LaTeX itself should change (a case to add);
    without one, the error suggests typing that part as code."""

    def __init__(self, message: str, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.suggestion = suggestion


class UnreadCommand(LatexProblem):
    """A command or character symnb has no reading of, and no fix of its own to
    name (``\\frobnicate``, ``\\begin{pmatrix}``): the error suggests typing that
    part as code. Every other problem names its fix in its message or suggestion,
    and the generic advice beside it contradicted it (a cases display without an
    otherwise, a number TeX sets as one)."""


#: Greek letters -> the constant names they read as (``\lambda``: PyTorch's lambd).
_GREEK = {
    **{
        g: g
        for g in [
            "alpha",
            "beta",
            "gamma",
            "delta",
            "epsilon",
            "zeta",
            "eta",
            "theta",
            "iota",
            "kappa",
            "mu",
            "nu",
            "xi",
            "rho",
            "tau",
            "upsilon",
            "chi",
            "psi",
            "omega",
        ]
    },
    "varepsilon": "epsilon",
    "vartheta": "theta",
    "varphi": "phi",
    "lambda": "lambd",
    "Lambda": "Lambda",
    "Gamma": "Gamma",
    "Delta": "Delta",
    "Theta": "Theta",
    "Omega": "Omega",
}
#: Other names a Greek letter's constant may be declared by, tried in order where its
#: own reading is not declared: ``lambda`` is a Python keyword, so ``lambda_`` or ``lam``.
_ALIASES = {
    "lambda": ("lambda_", "lam", "lmbda"),
    "epsilon": ("eps",),
    "varepsilon": ("eps",),
}
#: What opens a function's argument (``\\Gamma(x)``, ``\\psi\\left(x\\right)``).
_SIZES = ("\\left", "\\bigl", "\\Bigl", "\\biggl", "\\Biggl")
_SIZES += ("\\big", "\\Big", "\\bigg", "\\Bigg")
_CALL_OPENERS = ("(", *_SIZES)
#: Commands that are functions, by their formula name.
_FUNCTIONS = {
    "exp": "exp",
    "log": "log",
    "ln": "log",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "max": "max",
    "min": "min",
    "erf": "erf",
    "Phi": "ndtr",
    "sgn": "sign",
    "sign": "sign",
}
#: The inverse hyperbolic functions as ISO 80000 names them (``\\operatorname{arsinh}``).
_AREA_FUNCTIONS = {"arsinh": "asinh", "arcosh": "acosh", "artanh": "atanh"}
#: Reciprocal functions, by the function they are 1 over.
_RECIPROCALS = {
    "sec": "cos",
    "csc": "sin",
    "cot": "tan",
    "sech": "cosh",
    "csch": "sinh",
    "coth": "tanh",
}
#: Accents over a name -> the suffix of the constant's name they read as
#: (``\\bar{a}`` is a_bar, declared as any constant; ``\\hat{y}`` is the prediction).
_ACCENTS = {
    "hat": "hat",
    "widehat": "hat",
    "bar": "bar",
    "overline": "bar",
    "tilde": "tilde",
    "widetilde": "tilde",
}
#: Fonts of a paper's vectors and matrices: the name typed in them (``\\bm{x}`` is x).
_BOLD = frozenset({"mathbf", "boldsymbol", "bm", "pmb", "vec", "mathit", "mathsf"})
_BOLD_WORD = re.compile(
    r"\\(?:" + "|".join(sorted(_BOLD)) + r")(?:\{([^{}]*)\}|([A-Za-z]))"
)
#: The environments of cases (mathtools' rcases sets its brace on the right; each row
#: is still a value and its condition).
_CASES = frozenset(
    f"{size}{side}cases{star}"
    for size in ("", "d")
    for side in ("", "r")
    for star in ("", "*")
)
#: Commands that highlight their group, ``\\boxed{x\\tanh(x)}``: the group.
_DECORATIONS = frozenset({"boxed", "fbox", "textcolor", "colorbox"})
#: Braces over or under a group with a label, by the label's mark.
_BRACES = {"underbrace": "_", "overbrace": "^"}
#: Brackets that round: the opener -> (the function, the closer).
_FLOORS = {"lfloor": ("floor", "rfloor"), "lceil": ("ceiling", "rceil")}
_OPERATORS = {
    "cdot": "*",
    "cdotp": "*",
    "bullet": "*",
    "times": "*",
    "ast": "*",
    "odot": "*",
    "div": "/",
}
_COMPARISONS = {
    "geq": ">=",
    "ge": ">=",
    "geqslant": ">=",
    "leq": "<=",
    "le": "<=",
    "leqslant": "<=",
    "neq": "!=",
    "ne": "!=",
    "lt": "<",
    "gt": ">",
}
#: The connectives of conditions (``\\land``, ``\\text{ or }``) -> the formula's.
_LOGIC = {"land": "&", "wedge": "&", "and": "&", "lor": "|", "vee": "|", "or": "|"}
#: Commands that only size or space what follows.
_IGNORED = frozenset(
    [
        "left",
        "right",
        "bigl",
        "bigr",
        "Bigl",
        "Bigr",
        "biggl",
        "biggr",
        "Biggl",
        "Biggr",
        "bigm",
        "Bigm",
        "biggm",
        "Biggm",
        "big",
        "Big",
        "bigg",
        "Bigg",
        "displaystyle",
        "textstyle",
        "scriptstyle",
        "scriptscriptstyle",
        "quad",
        "qquad",
        "thinspace",
        "medspace",
        "thickspace",
        "enspace",
        "negthinspace",
        "negmedspace",
        "negthickspace",
        ",",
        ";",
        "!",
        ":",
        " ",
        "limits",
        "nolimits",
    ]
)
_BARS = frozenset({"lvert", "rvert", "vert", "|", "lVert", "rVert"})
#: The tokens of absolute value bars.
_BAR_TOKENS = frozenset({"|", "\\|"} | {"\\" + b for b in _BARS})
#: Spacing commands, skipped before a function's bracket (``\\sigma\\!\\left(x\\right)``).
_SPACING = frozenset({"\\,", "\\;", "\\:", "\\!", "\\ ", "\\quad", "\\qquad"})
_SPACING |= {"\\thinspace", "\\medspace", "\\thickspace", "\\enspace", "~"}
#: ``\\mathbb{1}``, ``\\mathbf{1}``, ``\\mathbb{I}``: the indicator of a condition.
_INDICATOR_FONTS = frozenset({"mathbb", "mathbf", "mathds", "mathbbm", "mathrm"})

_TOKEN = re.compile(
    r"\\(?:[A-Za-z]+|[,;:! |\\{}%])|[A-Za-z]|\d+(?:\.\d*)?|\.\d+|<=|>=|!=|\S"
)


#: Brackets typed by name (``\\max\\lbrace 0, x\\rbrace``) -> the bracket they set.
_BRACKET_NAMES = {
    "\\lbrace": "\\{",
    "\\rbrace": "\\}",
    "\\lbrack": "[",
    "\\rbrack": "]",
    "\\lparen": "(",
    "\\rparen": ")",
    "\\llbracket": "[",  # stmaryrd's Iverson bracket [\![x > 0]\!]
    "\\rrbracket": "]",
}
#: A row's end with extra space (``\\\\[2pt]``, ``\\\\[0.5em]`` in cases): the end.
_ROW_SPACE = re.compile(
    r"\\\\\s*\[\s*-?(?:\d+\.?\d*|\.\d+)\s*(?:pt|em|ex|mm|cm|in|mu|bp|pc|dd|sp)\s*\]"
)

#: The library's activations by their names without case or '_' (LeakyReLU).
_SQUEEZED = {name.replace("_", ""): name for name in ACTIVATIONS}


def _known_function(word: str) -> bool:
    return (
        word in ALLOWED_FUNCTIONS
        or word in ACTIVATIONS
        or word in spellings.BARE
        or word.lower() in _SQUEEZED
    )


def _function_name(word: str) -> str:
    """The formula's name of a known function as papers capitalise it (``ReLU``,
    ``LeakyReLU``: leaky_relu)."""
    if word in ALLOWED_FUNCTIONS or word in ACTIVATIONS or word in spellings.BARE:
        return word
    return _SQUEEZED[word.lower()]


class _Reader:
    def __init__(self, text: str, declared: Container[str] = ()) -> None:
        found = list(_TOKEN.finditer(text))
        self.tokens = [_BRACKET_NAMES.get(m.group(), m.group()) for m in found]
        self.starts = [m.start() for m in found]
        self.text = text
        self.i = 0
        self.declared = declared
        self.written = 0  # the terms of sums written out so far
        self.argument = False  # reading an unbraced argument (x^2, \\frac 1 2)

    def where(self) -> str:
        """Where the reading stopped: `` (at '...\\approx 0.5x')``, the text around the
        last token taken (the LaTeX after its wrappers, ``f(x) =``, were dropped)."""
        if not self.tokens:
            return ""
        k = min(max(self.i - 1, 0), len(self.tokens) - 1)
        start = self.starts[k]
        left = max(0, start - 20)
        excerpt = self.text[left : start + len(self.tokens[k]) + 20]
        return f" (at '{'...' if left else ''}{excerpt.strip()}')"

    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.tokens[j] if j < len(self.tokens) else None

    def take(self) -> str:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def group_text(self) -> str:
        """The raw text of a ``{...}`` group (for ``\\operatorname{softplus}``)."""
        if self.peek() != "{":
            return self.take() if self.peek() is not None else ""
        self.take()
        depth, out = 1, []
        while self.peek() is not None:
            tok = self.take()
            depth += tok == "{"
            depth -= tok == "}"
            if depth == 0:
                break
            out.append(tok)
        else:
            raise LatexProblem("a '{' is not closed")
        return "".join(out)

    # ------------------------------------------------------------------ items
    def items(self, stop: frozenset) -> list[tuple[str, str]]:
        """(kind, text) items until a token of ``stop`` (not taken) or the end."""
        out: list[tuple[str, str]] = []
        bars = 0
        while self.peek() is not None and self.peek() not in stop:
            tok = self.peek()
            if tok in ("|", "\\|") or tok[1:] in _BARS:
                self.take()
                ends = out and out[-1][0] in ("num", "name", ")")
                if bars and ends:
                    out.append((")", ")"))
                    bars -= 1
                    if tok in ("\\|", "\\rVert") and self.peek() == "_":
                        self.take()  # a norm's index: \|u\|_2 of a number is |u|
                        self.group_text()
                else:
                    out += [("func", "abs"), ("(", "(")]
                    bars += 1
                continue
            if tok == "^" and self.positive_part(mark="^"):  # x^+, (1 - x)^{+}
                start = _operand_start(out)
                if start is None:
                    raise LatexProblem("a positive part ^+ follows no operand")
                out = [
                    *out[:start],
                    *_maximum_with_zero(out[start:]),
                ]
                continue
            if tok == "^" and self.negative_part():
                raise LatexProblem(
                    "a negative part x^- is max(-x, 0) (measure theory) or min(x, 0) "
                    "(some papers): type the one meant"
                )
            if tok in ("\\in", "\\notin"):
                self.take()
                out = self.membership(out, negated=tok == "\\notin")
                continue
            if tok[1:] in _MODULO:  # x \bmod 1
                self.take()
                out = self.modulo(out)
                continue
            if tok == "'" and out and out[-1][0] == "name":  # a', \alpha': a_prime
                out[-1] = ("name", self.primed(out[-1][1]))
                continue
            if tok == "^" and self.starred():  # a^*, \alpha^{\star}: a_star
                if not (out and out[-1][0] == "name"):
                    raise LatexProblem(
                        "a star ^* reads as a constant's name only after a name "
                        "(a^* is a_star): type the formula it stands for"
                    )
                out[-1] = ("name", f"{out[-1][1]}_star")
                continue
            out += self.item()
        if bars:
            raise LatexProblem("an absolute value bar '|' is not closed")
        return out

    def membership(self, out: list, negated: bool) -> list[tuple[str, str]]:
        """``x \\in [0, 1)``, ``x \\notin (-\\infty, 0]``: the comparisons with the
        interval's ends (a bracket turned outward, ``]0, 1[``, is open)."""
        start = len(out)
        depth = 0
        while start > 0:  # the operand before \in: back to a comparison or bracket
            kind, text = out[start - 1]
            depth += kind == ")"
            depth -= kind == "("
            if depth < 0 or (depth == 0 and (kind in ("cmp", "logic") or text == ",")):
                break
            if depth == 0 and kind == "name" and text in (*_WORDS, "else"):
                break  # a \text{ if } x \in (0, 1) \text{ else } b: from the word on
            start -= 1
        for word in _WORDS:  # "if x \\in ...": the word is no part of the operand
            for spelled in ([("name", word)], [("name", ch) for ch in word]):
                if out[start : start + len(spelled)] == spelled:
                    start += len(spelled)
        left = out[start:]
        opener = self.peek()
        if not left or opener not in ("[", "(", "]"):
            raise LatexProblem(
                "\\in has a reading only as an interval's bounds: type "
                "x \\in [a, b] (or (a, b), [a, b)), or the comparisons a <= x <= b"
            )
        self.take()
        ends = []
        for stop in (",", ("]", ")", "[")):
            stops = frozenset((stop,) if isinstance(stop, str) else stop)
            if (self.peek(), self.peek(1)) in (("-", "\\infty"), ("+", "\\infty")):
                self.take()
            infinite = self.peek() == "\\infty"
            if infinite:
                self.take()
            bound = self.items(stops)
            if self.peek() not in stops:
                raise LatexProblem(f"the interval after \\in is not closed by {stop}")
            closer = self.take()
            if infinite and bound:
                raise LatexProblem("an interval's bound \\infty has more after it")
            if not infinite and not bound:
                raise LatexProblem("an interval after \\in lacks a bound")
            ends.append(None if infinite else bound)
        # (lower end, its bracket is open) and the comparison x <cmp> end that holds
        # inside; outside (\\notin) is the opposite comparison
        ends_open = ((ends[0], opener != "["), (ends[1], closer != "]"))
        inside = (_INTERVAL_LOWER, _INTERVAL_UPPER)
        sides = [
            [
                *left,
                ("cmp", table[is_open] if not negated else _OPPOSITE[table[is_open]]),
                *end,
            ]
            for (end, is_open), table in zip(ends_open, inside)
            if end is not None
        ]
        if not sides:
            raise LatexProblem("an interval (-\\infty, \\infty) holds every x: drop it")
        joined: list[tuple[str, str]] = [("(", "(")]
        for k, side in enumerate(sides):
            if k:
                joined.append(("op", "|" if negated else "&"))
            joined += [("(", "("), *side, (")", ")")]
        return [*out[:start], *joined, (")", ")")]

    def modulo(self, out: list) -> list[tuple[str, str]]:
        """``a \\bmod m`` (``\\mod``), with Python's precedence for the left operand
        (back to a '+' or '-' that is no sign): a - m*floor(a/m), the remainder with
        the sign of m, as Python's %; m is the product that follows (``2\\pi``)."""
        start, depth = len(out), 0
        while start > 0:
            kind, text = out[start - 1]
            depth += kind == ")"
            depth -= kind == "("
            if depth < 0:
                break
            if depth == 0 and (kind in ("cmp", "logic") or text in ("+", "-", ",")):
                sign = kind == "op" and text in ("+", "-")
                if sign and (start == 1 or out[start - 2][0] in ("op", "cmp", "(")):
                    start -= 1  # -x \bmod 1 is (-x) mod 1, as in Python
                break
            start -= 1
        left = out[start:]
        self.skip_spacing()
        right = self.product()
        if not left or not right:
            raise LatexProblem("\\bmod lacks an operand: type a \\bmod m")
        a = [("(", "("), *left, (")", ")")]
        m = [("(", "("), *right, (")", ")")]
        return [
            *out[:start],
            ("(", "("),
            *a,
            ("op", "-"),
            *m,
            ("op", "*"),
            ("func", "floor"),
            ("(", "("),
            *a,
            ("op", "/"),
            *m,
            (")", ")"),
            (")", ")"),
        ]

    def primed(self, name: str) -> str:
        """``a'`` as the constant a_prime; ``f'(x)``, a derivative, is refused."""
        self.take()
        if self.peek() == "'":
            raise LatexProblem(
                f"{name}'' has no formula reading: a derivative is symnb's to take "
                "(type f itself), a constant needs a name of its own"
            )
        self.skip_spacing()
        if self.peek() in _CALL_OPENERS:
            raise LatexProblem(
                f"{name}'(...) has a prime ' (a derivative): type the function "
                "itself, symnb derives f' (or type the derivative's formula)"
            )
        return f"{name}_prime"

    def starred(self) -> bool:
        """Whether ``^*`` (``^{*}``, ``^\\ast``, ``^{\\star}``) follows, and takes it."""
        for star in ("*", "\\ast", "\\star"):
            for spelled in (["^", star], ["^", "{", star, "}"]):
                if self.tokens[self.i : self.i + len(spelled)] == spelled:
                    self.i += len(spelled)
                    return True
        return False

    def closed(self, opener: str, closers: tuple[str, ...]) -> list[tuple[str, str]]:
        """The items up to the bracket that closes ``opener`` (taken already)."""
        inner = self.items(frozenset(closers))
        if self.peek() not in closers:
            raise LatexProblem(f"a '{opener}' is not closed")
        self.take()
        return inner

    def braced(self, digit: bool = False) -> list[tuple[str, str]]:
        """A ``{...}`` group (or one atom) as bracketed items; ``digit``: an unbraced
        number gives its first digit only (a fraction's argument)."""
        if self.peek() == "{":
            self.take()
            inner = self.closed("{", ("}",))
            if not inner:
                raise LatexProblem("an argument {} is empty: type its value")
            return [("(", "("), *inner, (")", ")")]
        tok = self.peek()
        if tok is None:
            raise LatexProblem("an argument is missing at the end")
        if digit and tok[0].isdigit() and len(tok) > 1:
            # a fraction's unbraced argument is one digit, as in TeX: \frac12 is 1/2
            # (x^12, \sqrt12 keep their number: typed so, they mean x^{12}, not x^1 2)
            self.tokens[self.i] = tok[1:]
            self.starts[self.i] += 1
            return [("(", "("), ("num", tok[0]), (")", ")")]
        if tok in ("-", "+"):  # TeX sets e^-x as e^{-}x
            raise LatexProblem(
                f"an unbraced argument is one token, here the sign '{tok}' alone: "
                f"brace it, e^{{{tok}x}} (not e^{tok}x)"
            )
        if tok.isalpha():  # one letter, as in TeX: e^x y is e^{x} y, \frac ab is a/b
            self.take()
            return [("(", "("), ("name", tok), (")", ")")]
        self.argument = tok[0].isdigit() or tok[0] == "."  # x^2 3 is x^{2} 3
        try:
            return [("(", "("), *self.item(), (")", ")")]
        finally:
            self.argument = False

    def skip_spacing(self) -> None:
        while self.peek() in _SPACING:
            self.take()

    def positive_part(self, mark: str = "_") -> bool:
        """Whether ``_+`` (or ``_{+}``; ``^+`` with ``mark`` '^') follows, and takes
        it: ``(x)_+`` is max(x, 0)."""
        if self.peek() != mark:
            return False
        if self.peek(1) == "+" and (mark == "_" or _ends_operand(self.peek(2))):
            self.i += 2
            return True
        if (self.peek(1), self.peek(2), self.peek(3)) == ("{", "+", "}"):
            self.i += 4
            return True
        return False

    def negative_part(self) -> bool:
        """Whether ``^-`` (or ``^{-}``) follows with no operand after the sign."""
        if self.peek(1) == "-" and _ends_operand(self.peek(2)):
            return True
        return (self.peek(1), self.peek(2), self.peek(3)) == ("{", "-", "}")

    def item(self) -> list[tuple[str, str]]:
        tok = self.take()
        if tok in ("{", "(", "[", "\\{"):
            closers = {"{": ("}",), "\\{": ("\\}",)}.get(tok, (")", "]"))
            inner = self.closed(tok, closers)
            if tok == "{" and not inner:
                return []  # x^{2}{}: an empty group sets nothing
            if tok == "{" and len(inner) == 1 and inner[0][0] in ("op", "cmp"):
                return inner  # x{\cdot}y, {=}: braces only space an operator
            group = [("(", "("), *inner, (")", ")")]
            if tok == "[" and _top_parts(inner, lambda item: item[0] == "cmp")[1]:
                return _iverson(inner)  # [x > 0]: 1 where it holds, else 0
            if tok in ("(", "[") and self.positive_part():
                return _maximum_with_zero(group)
            return group
        if tok in (")", "]", "}"):
            raise LatexProblem(f"a '{tok}' closes nothing")
        if tok == "^":
            power = self.braced()
            if self.peek() == "^":  # TeX's "Double superscript" error, not a tower
                raise LatexProblem(
                    "a double superscript a^b^c has no reading: brace it as "
                    "{a^b}^c or a^{b^c}"
                )
            return [("op", "**"), *power]
        if tok == "_":
            if self.i > 1 and self.tokens[self.i - 2] in _BAR_TOKENS:
                raise LatexProblem(
                    "an evaluation bar |_{...} has no formula reading: type the "
                    "formula with the value put in"
                )
            raise LatexProblem("a subscript '_' follows no name")
        if tok[0].isdigit() or tok[0] == ".":
            if self.peek() == "!":  # 3!: the factorial of a whole number
                self.take()
                if not tok.isdigit() or int(tok) > _MAX_FACTORIAL:
                    raise LatexProblem(
                        f"{tok}! has a reading only for a whole number up to "
                        f"{_MAX_FACTORIAL}: type its value"
                    )
                return [("num", str(math.factorial(int(tok))))]
            if not self.argument:  # 1\,000, 0{,}5, 1.\!702: one number, as TeX sets it
                try:
                    tok, self.i = joined_number(self.tokens, self.i, tok)
                except NumberProblem as problem:
                    raise LatexProblem(str(problem)) from None
            j = self.i
            while self.peek(j - self.i) in SEPARATORS:  # 5\,\%
                j += 1
            if self.peek(j - self.i) == "\\%":  # 50\%: per cent
                self.i = j + 1
                return [
                    ("(", "("),
                    ("num", tok),
                    ("op", "/"),
                    ("num", "100"),
                    (")", ")"),
                ]
            return [("num", tok + self.exponent())]
        if tok.isalpha():
            return self.letters(tok)
        if tok.startswith("\\"):
            return self.command(tok[1:])
        if tok in "+-*/,":
            return [("op", tok)]
        if tok == "~":  # a space that does not break a line
            return []
        if tok == ";":  # a sentence's separator (a case's "x > 0;"), as ','
            return [("op", ",")]
        if tok in ("<", ">", "<=", ">=", "!=", "="):
            return [("cmp", "==" if tok == "=" else tok)]
        if tok == "'":
            raise LatexProblem(
                _DERIVATIVE.replace("a derivative", "a prime ' (a derivative)")
            )
        raise UnreadCommand(f"'{tok}' has no formula reading")

    def exponent(self) -> str:
        """A number's decimal exponent written as code, ``1e-8``, ``2.5E3`` (taken;
        else ''): scientific notation, as Python reads it, not 1*e - 8. An unbraced
        superscript is its one token, as in TeX: x^2e-3 is x^{2} e - 3."""
        if self.i >= 2 and self.tokens[self.i - 2] in ("^", "_"):
            return ""
        head = self.tokens[self.i : self.i + 5]  # 1\mathrm{e}{-6}: braced, as code
        if head and head[0][1:] in _UPRIGHT and head[1:] == ["{", "e", "}", "{"]:
            for size in (2, 3):  # {6}, {-6}
                inner = self.tokens[self.i + 5 : self.i + 5 + size]
                power = "".join(inner[:-1])
                if inner[-1:] == ["}"] and re.fullmatch(r"[-+]?\d+", power):
                    self.i += 5 + size
                    return "e" + power
        sign = self.peek(1) in ("-", "+")
        digits = self.peek(2 if sign else 1) or ""
        if self.peek() not in ("e", "E") or not digits.isdigit():
            return ""
        self.take()
        return "e" + (self.take() if sign else "") + self.take()

    def subscript(self, name: str) -> str:
        """``\\beta_1``, ``x_{0}``: the name with its subscript (``beta_1``)."""
        if self.peek() != "_":
            return name
        self.take()
        if (self.peek() or "")[1:] in _WORD_COMMANDS:  # y_\text{true}
            self.take()
        # y_{\text{pred}}: the word, not the command's letters
        raw = re.sub(r"\\[A-Za-z]+", "", self.group_text())
        sub = re.sub(r"[^A-Za-z0-9]", "", raw)
        if not sub:
            raise LatexProblem(f"the subscript of {name} has no letters or digits")
        if sub in _INDICES and (name in _INDEXED or name.endswith("_hat")):
            return name  # x_i, \hat{y}_i: the sample's index, not a new name
        return f"{name}_{sub}"

    def letters(self, first: str) -> list[tuple[str, str]]:
        """A run of letters: a function name (``tanh(x)``, ``erf``) or a product of
        one-letter names, as LaTeX sets them (``ax`` is a*x)."""
        word = first
        while (
            self.peek() is not None and self.peek().isalpha() and len(self.peek()) == 1
        ):
            word += self.take()
        if len(word) > 1 and _known_function(word):
            return self.function(_function_name(word))
        out: list[tuple[str, str]] = []
        for k, ch in enumerate(word):
            last = k == len(word) - 1
            if last and self.positive_part():  # x_+, x_{+}: max(x, 0)
                return [*out, *_maximum_with_zero([("name", ch)])]
            out.append(("name", self.subscript(ch) if last else ch))
        return out

    def command(self, name: str) -> list[tuple[str, str]]:
        if name in _IGNORED or name in ("left", "right"):
            if name in ("left", "right") and self.peek() == ".":
                self.take()
            return []
        if name in _KERNS:  # \kern1pt, \mkern-2mu, \hskip 0.5em: a space
            self.dimension()
            return []
        if name in ("hspace", "mspace"):  # \hspace{1em}, \hspace*{2pt}: a space
            if self.peek() == "*":
                self.take()
            self.group_text()
            return []
        if name in _DECORATIONS:  # \boxed{x}, \textcolor{red}{x}: x, highlighted
            if name in ("textcolor", "colorbox"):
                self.group_text()  # the colour's name
            return self.braced()
        if name in _BRACES:  # \underbrace{x}_{\text{input}}: x, its label dropped
            body = self.braced()
            if self.peek() == _BRACES[name]:
                self.take()
                if (self.peek() or "").startswith("\\") and self.peek(1) == "{":
                    self.take()  # _\text{input}: the braces around it were dropped
                self.group_text()
            return body
        if name == "color":  # \color{red} x: a switch of colour, no value
            self.group_text()
            return []
        if name in ("frac", "dfrac", "tfrac", "cfrac", "nicefrac", "sfrac"):
            top, bottom = self.braced(digit=True), self.braced(digit=True)
            d = ("name", "d")
            if "d" not in self.declared and top[1:2] == [d] and bottom[1:2] == [d]:
                raise LatexProblem(_DERIVATIVE)  # \frac{d}{dx}, \frac{\mathrm{d}f}{dx}
            return [("(", "("), *top, ("op", "/"), *bottom, (")", ")")]
        if name == "sqrt":
            if self.peek() == "[":
                self.take()
                degree = self.closed("[", ("]",))
                body = self.braced()
                odd = _odd_degree(degree)
                if odd == 3:  # the real cube root, as printed: \sqrt[3]{-8} is -2
                    return [("func", "cbrt"), *body]
                if odd is not None:  # an odd root of a negative number is negative
                    return [
                        ("(", "("),
                        ("func", "sign"),
                        *body,
                        ("op", "*"),
                        ("func", "abs"),
                        *body,
                        ("op", "**"),
                        ("(", "("),
                        ("num", "1"),
                        ("op", "/"),
                        ("num", str(odd)),
                        (")", ")"),
                        (")", ")"),
                    ]
                return [
                    ("(", "("),
                    *body,
                    ("op", "**"),
                    ("(", "("),
                    ("num", "1"),
                    ("op", "/"),
                    ("(", "("),
                    *degree,
                    (")", ")"),
                    (")", ")"),
                    (")", ")"),
                ]
            return [("func", "sqrt"), *self.braced()]
        if (
            name in _INDICATOR_FONTS
            and self.peek() == "{"
            and self.peek(1)
            in (
                "1",
                "I",
            )
            and self.peek(2) == "}"
        ):
            self.i += 3
            return self.indicator()
        if name in _BOLD and self.peek() == "{" and (self.peek(1) or "")[:1] == "\\":
            return []  # \boldsymbol{\beta}, \bm{\hat y}: the font only, its group follows
        if name in _WORD_COMMANDS:
            if name == "operatorname" and self.peek() == "*":
                self.take()  # \operatorname*{max}: its limits go below, nothing else
            # \text{otherwise.}, \text{if }: a sentence's punctuation is no name
            raw = self.group_text()
            if raw[1:] in _WORD_COMMANDS and self.peek() == "{":
                raw = self.group_text()  # \operatorname{\mathrm{my\_act2}}: symnb's own
            raw = _NESTED_WORD.sub(r"\1", raw).replace("\\_", "_")  # my\_act2: my_act2
            word = re.sub(r"[\s.,;:]+", "", raw)
            if not word:  # \text{,} after a case's condition: a separator, or space
                return [("op", ",")] if re.search("[,;]", raw) else []
            if name == "rm" and word.isalpha():  # {\rm ReLU}: the letters that follow
                while (self.peek() or "").isalpha():
                    word += self.take()
            if word in _AREA_FUNCTIONS:  # \operatorname{arsinh}: ISO's asinh
                return self.function(_AREA_FUNCTIONS[word])
            if word in _WORDS:  # \text{ where }: a condition's word, not where()
                return [("name", word)]
            if name in _TEXT_COMMANDS and word in _TRANSLATED:  # \text{falls}
                return [("name", _TRANSLATED[word])]
            self.skip_empty_limits()  # \operatorname*{max}_{}(0, x)
            if _known_function(word) and self.peek() == "_":  # \mathrm{ELU}_\alpha
                return self.parametrised(_function_name(word), f"\\{name}{{{word}}}")
            if _known_function(word):
                return self.function(_function_name(word))
            if word in ("and", "or"):  # \text{ and } between conditions (spaced:
                return [("logic", f" {_LOGIC[word]} ")]  # no lattice max/min of words)
            if (
                len(word) > 1
                and word not in self.declared
                and self.peek() in _CALL_OPENERS
                and re.fullmatch(r"[A-Za-z]\w*", word)
            ):  # \operatorname{sinc}(x): a function, named as the parser knows it
                return [("func", word)]
            if re.fullmatch(r"[A-Za-z]\w*", word):
                return [("name", self.subscript(word))]
            raise UnreadCommand(f"\\{name}{{{word}}} has no formula reading")
        if name == "begin":
            env = self.group_text()
            if env not in _CASES:
                raise UnreadCommand(
                    f"\\begin{{{env}}} has no formula reading (cases do)"
                )
            if env.endswith("*"):  # mathtools: conditions in text, "if $x > 0$"
                for j in range(self.i, len(self.tokens)):
                    if self.tokens[j] == "\\end":
                        break
                    if self.tokens[j] == "$":
                        self.tokens[j] = "\\,"
            return self.cases()
        if name in _ACCENTS:  # \hat{y}: the prediction (y_hat); \bar{a}: a_bar
            word = re.sub(r"\s+", "", self.group_text())
            word = _BOLD_WORD.sub(lambda m: m.group(1) or m.group(2), word)  # y_hat
            if word[1:] in _GREEK or word[1:] in ("sigma", "phi"):  # \bar{\alpha}
                word = self.greek(word[1:])
            if not re.fullmatch(r"[A-Za-z]\w*", word):
                raise UnreadCommand(f"\\{name}{{{word}}} has no formula reading")
            suffix = _ACCENTS[name]
            if (
                f"{word}{suffix}" in self.declared
                and f"{word}_{suffix}" not in self.declared
            ):
                return [("name", self.subscript(f"{word}{suffix}"))]  # declared abar
            return [("name", self.subscript(f"{word}_{suffix}"))]
        if name in _FLOORS:  # \lfloor x \rfloor, \lceil x \rceil
            inner = self.closed("\\" + name, ("\\rfloor", "\\rceil"))
            if self.tokens[self.i - 1] != "\\" + _FLOORS[name][1]:
                raise LatexProblem(
                    f"\\{name} ... {self.tokens[self.i - 1]} (the nearest integer) has "
                    "no reading, as ties round either way: type "
                    "\\lfloor x + \\frac{1}{2} \\rfloor, or round(x) (ties to even)"
                )
            return [("func", _FLOORS[name][0]), ("(", "("), *inner, (")", ")")]
        if name == "log" and self.peek() == "_":  # \log_2 x, \log_{10}(x)
            self.take()
            base = self.braced()
            return [
                ("(", "("),
                *self.function("log"),
                ("op", "/"),
                ("func", "log"),
                ("(", "("),
                *base,
                (")", ")"),
                (")", ")"),
            ]
        if name in _OPERATORS:
            return [("op", _OPERATORS[name])]
        if name in _COMPARISONS:
            return [("cmp", _COMPARISONS[name])]
        if name in _LOGIC:  # x > 0 \land x < 1
            return [("logic", _LOGIC[name])]
        if name == "pi":
            return [("name", "pi")]
        if name == "partial":
            raise LatexProblem(_DERIVATIVE)
        if name in ("sum", "prod"):
            return self.finite(name)
        unspaced = self.i  # \theta\, x: the space stays, ending an argument
        self.skip_spacing()
        if name == "sigma" and self.peek() in (*_CALL_OPENERS, "[", "{"):
            return self.function("sigmoid")
        if name == "sigma" and "sigma" not in self.declared and self.peek() == "^":
            # \sigma^{-1}(p): the logit; \sigma^2(x), as \sin^2(x), the sigmoid's square
            save = self.i
            self.take()
            minus_one = self.braced() == _MINUS_ONE
            self.skip_spacing()
            called = self.peek() in (*_CALL_OPENERS, "[")
            self.i = save
            if minus_one or called:
                return self.function("sigmoid")
        gamma = self.gamma_family(name)
        if gamma is not None:
            return self.function(gamma)
        if name in _FUNCTIONS:
            return self.function(_FUNCTIONS[name])
        if name in _AREA_FUNCTIONS:  # \arsinh as a paper's macro
            return self.function(_AREA_FUNCTIONS[name])
        if name == "binom":
            return self.binomial()
        if name == "num":  # siunitx's \num{1e-8}, \num{1.0507}: the number
            number = re.sub(r"\s+", "", self.group_text())
            if not _NUMBER.fullmatch(number):
                raise LatexProblem(
                    f"\\num{{{number}}} has a reading only for a decimal number "
                    "(\\num{1.5e-3}): type its value"
                )
            return [("num", number)]
        if name in _RECIPROCALS:  # \sec x is 1/cos(x), \cot^2 x is 1/tan(x)**2
            if self.peek() == "^" and self.tokens[self.i : self.i + 5] == [
                "^",
                "{",
                "-",
                "1",
                "}",
            ]:
                raise LatexProblem(
                    f"\\{name}^{{-1}} (the inverse) has no formula reading; type it "
                    f"through atan, asin, acos (\\cot^{{-1}}(x) as atan(1/x))"
                )
            return [
                ("(", "("),
                ("num", "1"),
                ("op", "/"),
                *self.function(_RECIPROCALS[name]),
                (")", ")"),
            ]
        if (
            name in ("phi", "varphi")
            and self.greek(name) not in self.declared
            and self.peek() in (*_CALL_OPENERS, "[")
        ):
            if re.search(r"\\Phi(?![A-Za-z])", self.text):
                return self.normal_density()  # beside \Phi (the CDF), the density
            raise LatexProblem(
                f"\\{name}(x) is the normal density or a function the paper defines: "
                "type the density as exp(-x**2/2)/sqrt(2*pi) (\\Phi(x) is the normal "
                f"CDF), or declare the constant {self.greek(name)} for a product"
            )
        if name in _GREEK or name == "sigma" or name == "phi":
            self.i = unspaced
            return [("name", self.greek_subscripted(name))]
        if name in ("mathcal", "mathscr"):
            letter = re.sub(r"\s+", "", self.group_text())
            if letter == "N":
                return self.normal_law()
            raise LatexProblem(
                f"\\{name}{{{letter}}} (a set's, a distribution's or a loss's name) "
                "has no formula reading: type the formula it stands for"
            )
        if name in _NAMED_REFUSALS:
            raise LatexProblem(f"\\{name} {_NAMED_REFUSALS[name]}")
        if name == "over":
            raise LatexProblem(
                "\\over has no formula reading; type {a \\over b} as \\frac{a}{b}"
            )
        raise UnreadCommand(f"LaTeX command \\{name} has no formula reading")

    def finite(self, name: str) -> list[tuple[str, str]]:
        """``\\sum_{k=1}^{3} x^k``, ``\\prod_{k=1}^{3}(1 + x/k)``: with whole-number
        bounds, the terms written out (x + x**2 + x**3); the summand is the product
        and quotient that follow, up to a '+' or '-' (``\\sum_k x^k/k + 1`` adds 1
        once)."""
        lower = upper = ""
        for _ in range(3):  # _{k=1}^{3} or ^{3}_{k=1}, \limits between
            while self.peek() in ("\\limits", "\\nolimits", *_SPACING):
                self.take()
            if self.peek() == "_" and not lower:
                self.take()
                lower = re.sub(r"\s+", "", self.group_text())
            elif self.peek() == "^" and not upper:
                self.take()
                braced = self.peek() == "{"
                upper = re.sub(r"\s+", "", self.group_text())
                if not braced and len(upper) > 1:  # TeX's ^10 is ^{1} 0
                    raise LatexProblem(f"brace the bound of \\{name}: ^{{{upper}}}")
        start = latex_sums.INDEX_START.fullmatch(lower)
        if start is None or not latex_sums.WHOLE.fullmatch(upper):
            raise LatexProblem(
                f"\\{name} has no formula reading without whole-number bounds "
                f"(\\{name}_{{k=1}}^{{3}} is its terms written out): a formula is "
                "elementwise, and of a loss symnb takes the batch mean itself; type "
                "the terms, or the summand (the mean \\frac{1}{N}\\sum_i ...)"
            )
        letter, first, last = start.group(1), int(start.group(2)), int(upper)
        if last - first + 1 > latex_sums.MAX_TERMS:
            raise LatexProblem(
                f"\\{name}_{{{letter}={first}}}^{{{last}}} has more than "
                f"{latex_sums.MAX_TERMS} terms: type a closed form"
            )
        self.skip_spacing()
        self.written += max(last - first + 1, 1)
        if self.written > latex_sums.MAX_WRITTEN:  # nested sums multiply their terms
            raise LatexProblem(
                f"the sums write out more than {latex_sums.MAX_WRITTEN} terms: type "
                "a closed form"
            )
        body, tokens, end = self.i, self.tokens, None
        terms: list[list[tuple[str, str]]] = []
        values = range(first, last + 1)
        for value in values or [first]:  # an empty range: the summand read, dropped
            self.tokens = latex_sums.with_index(
                tokens, body, letter, value, _known_function
            )
            self.i = body
            try:
                term = self.product(whole=True)
            finally:
                self.tokens = tokens
            if not term:
                raise LatexProblem(f"\\{name} has no term after its bounds")
            end = self.i
            terms.append([("(", "("), *term, (")", ")")])
            if sum(map(len, terms)) > latex_sums.MAX_ITEMS:
                raise LatexProblem(
                    f"\\{name} written out is too long (a formula has at most "
                    f"{latex_sums.MAX_ITEMS} parts): type a closed form"
                )
        self.i = end
        if not values:  # an empty sum is 0, an empty product 1
            return [("num", "0" if name == "sum" else "1")]
        joiner = ("op", "+" if name == "sum" else "*")
        out: list[tuple[str, str]] = [("(", "(")]
        for k, term in enumerate(terms):
            out += [joiner, *term] if k else term
        return [*out, (")", ")")]

    def dimension(self) -> None:
        """Take a kern's length, ``2mu``, ``-0.5em``, ``{1pt}``."""
        if self.peek() == "{":
            self.group_text()
            return
        if self.peek() in ("-", "+"):
            self.take()
        number = self.peek() or ""
        units = "".join(self.tokens[self.i + 1 : self.i + 3])
        if not _NUMBER.fullmatch(number) or units not in _UNITS:
            raise LatexProblem(
                "a kern's length is a number and a unit (\\kern 1pt, \\mkern 2mu)"
            )
        self.i += 3

    def skip_empty_limits(self) -> None:
        """Take what sets a function's limits and nothing else: ``\\limits``,
        ``\\nolimits``, an empty ``_{}`` (``\\max\\limits(0, x)``)."""
        while True:
            if self.peek() in ("\\limits", "\\nolimits"):
                self.take()
            elif self.peek() in ("_", "^") and self.tokens[self.i + 1 : self.i + 3] == [
                "{",
                "}",
            ]:
                self.i += 3
            else:
                return

    def parametrised(self, name: str, shown: str) -> list[tuple[str, str]]:
        """``\\mathrm{ELU}_\\alpha(x)``, ``\\operatorname{LeakyReLU}_{0.2}(x)``: the
        subscript is the library function's one parameter, elu(x, alpha)."""
        self.take()
        parameter = self.braced()
        entry = ACTIVATIONS.get(name)
        if entry is None or len(entry.constants) != 1:
            takes = ", ".join(entry.constants) if entry else ""
            raise LatexProblem(
                f"{shown}_{{...}} has no reading: {name} takes "
                + (f"the parameters {takes}" if takes else "no parameter")
                + f"; type them after the argument, {name}(x"
                + (f", {takes})" if takes else ")")
            )
        call = self.function(name)
        if call[0] != ("func", name):
            raise LatexProblem(f"{shown}_{{...}} with a power has no reading")
        return [
            ("func", name),
            ("(", "("),
            *call[1:],
            ("op", ","),
            *parameter,
            (")", ")"),
        ]

    def normal_law(self) -> list[tuple[str, str]]:
        """``\\mathcal{N}(u; \\mu, \\sigma^2)`` (or ``u \\mid \\mu, \\sigma^2``): the
        normal density of u with mean mu and variance sigma^2."""
        while self.peek() in _SIZES:
            self.take()
        if self.peek() != "(":
            raise LatexProblem(_NORMAL_LAW)
        depth = 0
        for j in range(self.i, len(self.tokens)):  # \mid, |: the density's ';'
            depth += self.tokens[j] == "("
            depth -= self.tokens[j] == ")"
            if depth == 0:
                break
            if depth == 1 and self.tokens[j] in ("\\mid", "|", "\\vert"):
                self.tokens[j] = ";"
        self.take()
        parts, _ = _top_parts(self.closed("(", (")",)), _is_comma)
        if len(parts) != 3 or not all(parts):
            raise LatexProblem(_NORMAL_LAW)
        u, mean, variance = ([("(", "("), *p, (")", ")")] for p in parts)
        return _normal_density(u, mean, variance)

    def digit_text(self) -> str:
        """A group's text; unbraced, one token, of a number its first digit (TeX's
        ``\\binom 42`` is \\binom{4}{2})."""
        tok = self.peek() or ""
        if tok != "{" and tok[:1].isdigit() and len(tok) > 1:
            self.tokens[self.i] = tok[1:]
            self.starts[self.i] += 1
            return tok[0]
        return self.group_text()

    def binomial(self) -> list[tuple[str, str]]:
        """``\\binom{4}{2}``: the binomial coefficient of whole numbers, as a number."""
        n, k = (re.sub(r"\s+", "", self.digit_text()) for _ in range(2))
        if not (n.isdigit() and k.isdigit()) or int(n) > _MAX_FACTORIAL:
            raise LatexProblem(
                f"\\binom{{{n}}}{{{k}}} has a reading only for whole numbers up to "
                f"{_MAX_FACTORIAL}: type its value"
            )
        return [("num", str(math.comb(int(n), int(k))))]

    def normal_density(self) -> list[tuple[str, str]]:
        """``\\phi(u)`` where the formula has ``\\Phi``: exp(-u**2/2)/sqrt(2*pi)."""
        while self.peek() in _SIZES:
            self.take()
        return _normal_density(self.item())

    def gamma_family(self, name: str) -> str | None:
        """``\\Gamma(x)``: tgamma, ``\\psi(x)``: digamma, ``\\ln\\Gamma(x)`` (or
        ``\\log\\Gamma``): lgamma, where a bracket follows and the formula declares
        no constant of that name (then ``\\psi(x)`` is psi times x, as before)."""
        if name in ("ln", "log") and self.peek() == "\\Gamma":
            save = self.i
            self.take()
            self.skip_spacing()
            if "Gamma" not in self.declared and self.peek() in _CALL_OPENERS:
                return "lgamma"
            self.i = save
            return None
        letter = {"Gamma": "tgamma", "psi": "digamma"}.get(name)
        if letter is None or name in self.declared:
            return None
        return letter if self.peek() in _CALL_OPENERS else None

    def greek_subscripted(self, name: str) -> str:
        """A Greek letter with its subscript (``\\lambda_1``): the reading the formula
        declares, of ``lambd_1``, ``lambda_1``, ``lambda__1``..., else ``lambd_1``."""
        plain = self.greek(name)
        full = self.subscript(plain)
        if full == plain or full in self.declared:
            return full
        tail = full[len(plain) :]
        for spelling in (name, _GREEK.get(name, name), *_ALIASES.get(name, ())):
            if spelling + tail in self.declared:
                return spelling + tail
        return full

    def greek(self, name: str) -> str:
        """The constant name a Greek letter reads as: ``\\varepsilon`` as epsilon,
        unless the formula declares varepsilon (and no epsilon) as its constant."""
        plain = _GREEK.get(name, name)
        if plain != name and name in self.declared and plain not in self.declared:
            return name
        if plain not in self.declared:  # \lambda for lambda_ (lambda is a keyword)
            for alias in _ALIASES.get(name, ()):
                if alias in self.declared:
                    return alias
        return plain

    def indicator(self) -> list[tuple[str, str]]:
        """``\\mathbb{1}_{x > 0}``, ``\\mathbf{1}[x > 0]``, ``\\mathbb{1}\\{x > 0\\}``:
        1 where the condition holds, else 0."""
        if self.peek() == "_":
            self.take()
            if self.peek() == "{" and self.peek(1) == "\\{":
                self.take()
                condition = self.braced_condition()
                if self.peek() != "}":
                    raise LatexProblem("an indicator's subscript is not closed")
                self.take()
            else:
                condition = self.braced()
        elif self.peek() in ("(", "[", "\\{", *_SIZES):
            while self.peek() in _SIZES:  # \mathbf{1}\left[x > 0\right]
                self.take()
            condition = self.item()
            if condition[:1] == [("func", "where")]:
                return condition  # \mathbf{1}[x > 0]: the bracket is the indicator
        else:
            raise LatexProblem("an indicator \\mathbb{1} needs its condition")
        return _iverson(condition)

    def braced_condition(self) -> list[tuple[str, str]]:
        """A ``\\{...\\}`` condition (the opening brace next)."""
        self.take()
        return [("(", "("), *self.closed("\\{", ("\\}",)), (")", ")")]

    def function(self, name: str) -> list[tuple[str, str]]:
        """A function and its argument: a bracket (``\\tanh(x)``, ``\\tanh\\left(x
        \\right)``) or, unbracketed, the product that follows (``\\ln x``, ``\\sin 2x``);
        ``\\sin^2(x)`` is sin(x)**2."""
        power: list[tuple[str, str]] = []
        self.skip_spacing()
        self.skip_empty_limits()
        if self.peek() == "^":
            self.take()
            power = self.braced()
            if power == _MINUS_ONE and name in _INVERSES:
                name, power = _INVERSES[name], []  # tan^{-1}: the inverse
            elif power == _MINUS_ONE:  # \erf^{-1}, \Phi^{-1}: the inverse, not 1/f
                raise LatexProblem(
                    f"{name}^{{-1}} (the inverse function) has no formula reading; "
                    f"for the reciprocal type 1/{name}(x) or {name}(x)^{{-1}}"
                )
        while self.peek() in _SIZES:
            self.take()
        bars = self.bar_argument()
        if bars is not None:
            argument = bars
        elif self.peek() in ("(", "[", "\\{"):
            argument = self.item()
        elif self.peek() == "{":
            argument = self.braced()
            if (
                argument[1:2] == [("(", "(")]
                and _closing(argument[1:]) == len(argument) - 3
            ):
                argument = argument[1:-1]  # \max{(0, x)}: the braces only group
        else:
            factors = self.product()
            if not factors:
                raise LatexProblem(f"{name} has no argument")
            argument = [("(", "("), *factors, (")", ")")]
        call = [("func", name), *argument]
        if power:
            return [("(", "("), *call, (")", ")"), ("op", "**"), *power]
        return call

    def product(self, whole: bool = False) -> list[tuple[str, str]]:
        """The factors that follow, up to the next operator, comparison or closing
        bracket: an unbracketed argument (``\\ln 2x``), a modulus (``x \\bmod 2\\pi``).
        ``whole``: a summand, which a function's command, a '*' or '/' does not end."""
        factors: list[tuple[str, str]] = []
        while (
            self.peek() is not None
            and (whole or self.peek() not in ("/", "*"))
            and self.peek()
            not in (
                "+",
                "-",
                "=",
                "<",
                ">",
                "<=",
                ">=",
                ",",
                ")",
                "]",
                "}",
                "&",
                "\\\\",
                "|",
            )
            and not (self.peek() or "").startswith(("\\right", "\\end"))
        ):
            if self.peek()[1:] in (*_COMPARISONS, *_MODULO):
                break
            if self.peek()[1:] in _OPERATORS and not whole:
                break
            if factors and not whole and self.starts_function():
                break  # \sin x \cos x is sin(x)*cos(x), as printed
            if factors and not whole and self.peek() in _SPACING:
                break  # \log 2\, x: a space ends the argument, log(2)*x
            factors += self.item()
        return factors

    def starts_function(self) -> bool:
        """Whether the next token is a function's command (``\\cos``, ``\\ln``,
        ``\\operatorname``, ``\\sigma(``): it ends an unbracketed argument."""
        tok = self.peek() or ""
        name = tok[1:]
        if not tok.startswith("\\"):
            return False
        if name in _FUNCTIONS or name == "operatorname":
            return True
        if name in ("sigma", "Gamma", "psi") and name not in self.declared:
            return self.peek(1) in _CALL_OPENERS or self.peek(1) in ("[", "{")
        return False

    def bar_argument(self) -> list[tuple[str, str]] | None:
        """``\\ln|x|``, ``\\log\\left|x\\right|``: the absolute value as the argument."""
        if self.peek() not in _BAR_TOKENS:
            return None
        opener = self.take()
        inner = self.items(_BAR_TOKENS)
        if self.peek() not in _BAR_TOKENS:
            raise LatexProblem(f"an absolute value bar '{opener}' is not closed")
        self.take()
        return [("(", "("), ("func", "abs"), ("(", "("), *inner, (")", ")"), (")", ")")]

    def cases(self) -> list[tuple[str, str]]:
        """``\\begin{cases} a & \\text{if } c \\\\ b & \\text{otherwise}\\end{cases}``."""
        rows: list[tuple[list, list]] = []
        while True:
            value = self.items(frozenset({"&", "\\\\", "\\end"}))
            condition: list = []
            if self.peek() == "&":
                self.take()
                if self.peek() in (":", "\\colon"):  # x &: x > 0
                    self.take()
                condition = self.items(frozenset({"\\\\", "\\end"}))
            rows.append((value, condition))
            if self.peek() == "\\\\":
                self.take()
                continue
            if self.peek() == "\\end":
                self.take()
                self.group_text()
                break
            raise LatexProblem("\\begin{cases} is not closed by \\end{cases}")
        rows = [(v, c) for v, c in rows if v or c]
        if not rows:
            raise LatexProblem("\\begin{cases} has no cases")
        if len(rows) == 1 and rows[0][1] and _condition(rows[0][1]) is not None:
            raise LatexProblem(  # the one case's condition would be dropped
                "\\begin{cases} has one case with a condition and no value "
                "elsewhere: add the other case (0 & \\text{otherwise})"
            )
        _refuse_uncovered([_condition(_comma_joined(raw)) for _, raw in rows])
        out = [("func", "Piecewise"), ("(", "(")]
        for k, (value, raw) in enumerate(rows):
            while value and value[-1] == ("op", ","):  # "x, & x > 0"
                value = value[:-1]
            condition = _condition(_comma_joined(raw))
            last = k == len(rows) - 1
            if not last and not condition:
                raise LatexProblem(
                    f"case {k + 1} of {len(rows)} has no condition (only the last "
                    "case may be the otherwise)",
                    suggestion=f"give case {k + 1} a condition, or put it last",
                )
            if last:  # the last case is the otherwise
                condition = [("name", "True")]
            out += [("(", "("), *value, ("op", ","), *condition, (")", ")")]
            if not last:
                out.append(("op", ","))
        return [*out, (")", ")")]


def _refuse_uncovered(conditions: list) -> None:
    """A ``LatexProblem`` where every case has a condition in x and together they
    leave an interval of x to no case: the last case is read as the otherwise, so
    ``x & x > 1 \\\\ -x & x < -1`` gave -x on (-1, 1] without a word. A single point
    left out (``x > 0`` and ``x < 0``, papers' usual sloppiness at a kink) and
    conditions with constants or functions that SymPy cannot solve are not checked."""
    import sympy as sp

    from symnb.formula.parse import parse_formula

    if not conditions or conditions[-1] is None or any(c is None for c in conditions):
        return
    try:
        conds = []
        for c in conditions:  # each alone: Piecewise drops conditions others imply
            pw = parse_formula(f"Piecewise((1, {_joined(c)}), (0, True))")
            cond = pw.args[0].cond if isinstance(pw, sp.Piecewise) else sp.true
            if cond is sp.true or pw == 1:
                return  # one case takes every x
            conds.append(cond)
        if any(c.free_symbols - {_x_of(c)} for c in conds):
            return
        gap = sp.Complement(sp.Reals, sp.Union(*(c.as_set() for c in conds)))
    except Exception:  # noqa: BLE001 - not decidable here: read as before
        return
    if gap is sp.EmptySet or isinstance(gap, sp.FiniteSet):
        return
    raise LatexProblem(
        f"\\begin{{cases}}: no case takes x in {_set_text(gap)} (every case has a "
        "condition, and the last one does not cover what the others leave)",
        suggestion="add a case for those x, or make the last case \\text{otherwise}",
    )


def _set_text(part) -> str:
    """A set of reals as a reader writes it: ``[-1, 1]``, ``(-inf, 0) U (2, 3]``."""
    import sympy as sp

    def end(v) -> str:
        return "inf" if v is sp.oo else "-inf" if v is -sp.oo else sp.sstr(v)

    pieces = part.args if isinstance(part, sp.Union) else (part,)
    if not all(isinstance(p, sp.Interval) for p in pieces):
        return sp.sstr(part)
    return " U ".join(
        f"{'(' if p.left_open else '['}{end(p.start)}, {end(p.end)}{')' if p.right_open else ']'}"
        for p in pieces
    )


def _x_of(condition) -> object:
    """The symbol x of a condition (None where it has no x)."""
    return next((s for s in condition.free_symbols if s.name == "x"), None)


_WORDS = ("if", "for", "when", "where")
#: A word command inside another's group (``\operatorname{\mathrm{swish2}}``).
_NESTED_WORD = re.compile(r"\\(?:mathrm|text|textrm|mathit|rm)\s*\{([^{}]*)\}")
#: Commands that set a space of a length typed after them (``\\mkern 2mu``).
_KERNS = frozenset({"kern", "mkern", "hskip", "mskip"})
_UNITS = frozenset({"pt", "em", "ex", "mm", "cm", "in", "mu", "bp", "pc", "dd", "sp"})
#: The modulo operators (``x \\bmod 1``).
_MODULO = ("bmod", "mod")
_NORMAL_LAW = (
    "\\mathcal{N} reads only as the normal density with its mean and variance, "
    "\\mathcal{N}(x; \\mu, \\sigma^2) (the standard one \\mathcal{N}(x; 0, 1)); "
    "for the CDF type \\Phi(x)"
)
#: Commands with no formula reading, and why (what to type instead).
_NAMED_REFUSALS = {
    "infty": (
        "has no formula reading outside an interval's bound (x \\in [0, \\infty)): "
        "a formula's values are finite; type the value the limit gives, or a bound "
        "as its comparison (x > 0)"
    ),
    "lim": (
        "has no formula reading (symnb takes no limits): type the formula the limit "
        "gives"
    ),
    "lg": (
        "is log base 10 (ISO 80000-2) or base 2 (computer science): type "
        "\\log_{10} or \\log_2"
    ),
    "circ": (
        "is a composition (f \\circ g) or an elementwise product: type f(g(x)), or "
        "\\cdot for the product"
    ),
    "middle": (
        "(a bar between sized brackets: a conditional p(a \\middle| b) or a set "
        "\\{x \\middle| x > 0\\}) has no formula reading: type the formula of x "
        "alone; for an absolute value type \\left| x \\right|"
    ),
    "pmod": "states a congruence, not a value: type the remainder as x \\bmod m",
    "choose": "has a reading only as {n \\choose k} of whole numbers: type \\binom{n}{k}",
}
_OTHERWISE = ("otherwise", "else")
#: Commands that set words of a sentence (not a function's name, \operatorname{Si}).
_TEXT_COMMANDS = frozenset({"text", "textrm", "textit", "textnormal", "mbox"})
#: A case's words in the languages papers and lecture notes are written in, by the
#: English word read: German, French, Spanish, Italian, Dutch, Portuguese.
_TRANSLATED = {
    **dict.fromkeys(("falls", "wenn", "si", "se", "als", "für", "pour", "para"), "if"),
    **dict.fromkeys(
        ("sonst", "andernfalls", "sinon", "sino", "altrimenti", "anders", "senão"),
        "otherwise",
    ),
}


def _ends_operand(tok: str | None) -> bool:
    """Whether ``tok`` may follow an operand's end (``x^+`` then ``+ 1``, ``)``, the
    end): ``x^+y`` is no positive part but a sign without its operand."""
    if tok is None or tok in "+-*/=,)]}&<>|" or tok in ("<=", ">=", "!=", "\\\\"):
        return True
    name = tok[1:]
    return (
        tok in _SPACING
        or name in _COMPARISONS
        or name in _OPERATORS
        or name
        in (
            "right",
            "end",
            "bigr",
            "Bigr",
            "biggr",
            "Biggr",
            "big",
            "Big",
            "bigg",
            "Bigg",
        )
    )


def _normal_density(
    u: list, mean: list | None = None, variance: list | None = None
) -> list[tuple[str, str]]:
    """The normal density of u, exp(-(u - mean)**2/(2*variance))/sqrt(2*pi*variance)
    (the standard one without mean and variance)."""
    times_variance = [("op", "*"), *variance] if variance else []
    return [
        ("(", "("),
        ("func", "exp"),
        ("(", "("),
        ("op", "-"),
        ("(", "("),
        *u,
        *([("op", "-"), *mean] if mean else []),
        (")", ")"),
        ("op", "**"),
        ("num", "2"),
        ("op", "/"),
        ("(", "("),
        ("num", "2"),
        *times_variance,
        (")", ")"),
        (")", ")"),
        ("op", "/"),
        ("func", "sqrt"),
        ("(", "("),
        ("num", "2"),
        ("op", "*"),
        ("name", "pi"),
        *times_variance,
        (")", ")"),
        (")", ")"),
    ]


def _iverson(condition: list) -> list[tuple[str, str]]:
    """Iverson's bracket ``[x > 0]`` (Knuth's notation, as papers write an
    indicator) and ``\\mathbb{1}_{x > 0}``: 1 where the condition holds, else 0."""
    return [
        ("func", "where"),
        ("(", "("),
        *_connected(condition),
        ("op", ","),
        ("num", "1"),
        ("op", ","),
        ("num", "0"),
        (")", ")"),
    ]


def _maximum_with_zero(operand: list) -> list[tuple[str, str]]:
    """The positive part max(operand, 0)."""
    return [
        ("func", "max"),
        ("(", "("),
        *operand,
        ("op", ","),
        ("num", "0"),
        (")", ")"),
    ]


def _operand_start(items: list) -> int | None:
    """Where the last operand of ``items`` starts (a name, a number, a bracket with
    its function), for a postfix ``^+``; None where none ends them."""
    if not items or items[-1][0] not in ("name", "num", ")"):
        return None
    k = len(items) - 1
    if items[k][0] == ")":
        depth = 0
        while k >= 0:
            depth += items[k][0] == ")"
            depth -= items[k][0] == "("
            if depth == 0:
                break
            k -= 1
        if k > 0 and items[k - 1][0] == "func":
            k -= 1
    return k


def _odd_degree(degree: list) -> int | None:
    """The degree of ``\\sqrt[n]`` where it is an odd whole number (its root is real
    for every real number), else None."""
    if len(degree) == 1 and degree[0][0] == "num" and degree[0][1].isdigit():
        n = int(degree[0][1])
        return n if n % 2 == 1 and n > 1 else None
    return None


def _condition(items: list) -> list | None:
    """A case's condition without its words (``\\text{if }``, ``for``); None for
    ``otherwise``/``else``."""
    names = [t for kind, t in items if kind == "name"]
    letters = "".join(t for t in names if len(t) == 1)
    if any(w in names or w in letters for w in _OTHERWISE):
        return None
    out = [(k, t) for k, t in items if not (k == "name" and t in _WORDS)]
    for word in _WORDS:  # if typed without \text: the letters i, f
        spelled = [("name", ch) for ch in word]
        if out[: len(word)] == spelled:
            out = out[len(word) :]
    return _connected(_without_empty_groups(out))


def _is_comma(item: tuple[str, str]) -> bool:
    return item == ("op", ",")


def _top_parts(items: list, separates) -> tuple[list[list], list]:
    """``items`` split at the items outside brackets that ``separates``: the parts
    and the separators."""
    parts: list[list] = [[]]
    separators: list = []
    depth = 0
    for item in items:
        depth += item[0] == "("
        depth -= item[0] == ")"
        if depth == 0 and separates(item):
            parts.append([])
            separators.append(item)
        else:
            parts[-1].append(item)
    return parts, separators


def _comma_joined(items: list) -> list:
    """A case's condition without the commas of its sentence (``x > 0,``) and with
    a comma between comparisons read as 'and' (``x > 0, x < 1``); commas inside
    brackets (``\\max(0, x) > 1``) stay."""
    parts = [part for part in _top_parts(items, _is_comma)[0] if part]
    if len(parts) < 2:
        return parts[0] if parts else []
    if not all(any(kind == "cmp" for kind, _ in part) for part in parts):
        raise LatexProblem(
            "a case's condition has parts after a comma that compare nothing: type "
            "the conditions joined by \\land (x > 0 \\land x < 1)"
        )
    out: list = []
    for part in parts:
        out += [("logic", "&"), *part] if out else part
    return out


def _connected(items: list) -> list:
    """Conditions joined by ``&``/``|`` with each side bracketed (``x > 0 & x < 1``
    would compare 0 & x); the items unchanged where no connective is at their top."""
    if items and items[0][0] == "(" and _closing(items) == len(items) - 1:
        return [items[0], *_connected(items[1:-1]), items[-1]]  # (x > 0 & x < 1)
    parts, logic = _top_parts(items, lambda item: item[0] == "logic")
    ops = [("op", text) for _, text in logic]
    if not ops:
        return items
    if any(not part for part in parts):
        raise LatexProblem("a condition's 'and'/'or' lacks a side")
    out = [("(", "("), *parts[0], (")", ")")]
    for op, part in zip(ops, parts[1:]):
        out += [op, ("(", "("), *part, (")", ")")]
    return out


def _closing(items: list) -> int:
    """The index of the bracket that closes the one opening ``items``."""
    depth = 0
    for k, item in enumerate(items):
        depth += item[0] == "("
        depth -= item[0] == ")"
        if depth == 0:
            return k
    return -1


def _without_empty_groups(items: list) -> list:
    """A braced word (``{\\text{if }}``) leaves ``()`` once dropped: remove those."""
    out: list = []
    for item in items:
        if item == (")", ")") and out and out[-1] == ("(", "("):
            out.pop()
        else:
            out.append(item)
    return out


def _operand_end(items: list, k: int) -> int:
    """The index after the operand that starts at ``items[k]`` (a number, a name, a
    bracket, a function and its bracket), with its powers (``2^{k}``, ``\\sigma^2``)."""
    if k >= len(items):
        return k
    if items[k][0] == "func":
        k += 1
    if k < len(items) and items[k][0] == "(":
        depth = 0
        while k < len(items):
            depth += items[k][0] == "("
            depth -= items[k][0] == ")"
            k += 1
            if depth == 0:
                break
    elif k < len(items) and items[k][0] in ("num", "name"):
        k += 1
    while k + 1 < len(items) and items[k] == ("op", "**"):
        k += 1
        while k < len(items) and items[k] in (("op", "-"), ("op", "+")):
            k += 1
        k = _operand_end(items, k)
    return k


def _refuse_product_after_slash(items: list) -> None:
    """``x^2/2\\sigma^2``, ``1/2x``: a factor juxtaposed after a slash's divisor is
    x^2/(2 sigma^2) to most papers and (x^2/2) sigma^2 to Python's order; neither
    reading is safe, so it is refused naming the part (``\\frac`` says which)."""
    for k, item in enumerate(items):
        if item != ("op", "/"):
            continue
        start = k + 1
        while start < len(items) and items[start] in (("op", "-"), ("op", "+")):
            start += 1  # x/-2y
        end = _operand_end(items, start)
        if end == start or end >= len(items):
            continue
        if items[end][0] in ("num", "name", "func", "("):
            divisor = _joined(items[k + 1 : end])
            shown = _joined(items[k + 1 : _operand_end(items, end)])
            raise LatexProblem(
                f"'/{shown}' divides by {divisor} and multiplies by what follows "
                f"(Python's order), or divides by all of {shown} (most papers): "
                f"type \\frac{{...}}{{{shown}}}, or \\cdot before the factor"
            )


def _joined(items: list[tuple[str, str]]) -> str:
    """Formula text, with '*' where LaTeX multiplies by juxtaposition."""
    out: list[str] = []
    prev = None
    for kind, text in items:
        if prev in ("num", "name", ")") and kind in ("num", "name", "func", "("):
            out.append("*")
        out.append(text)
        prev = kind
    return "".join(out)


#: ``=`` and the definition signs of papers (``\\doteq``, ``:=``), not ``<=``/``==``.
_DEFINES = (
    r"(?<![<>!=:])(?::=|=)(?!=)"
    r"|\\(?:doteq|coloneqq|triangleq|equiv|approx|mapsto)(?![A-Za-z])"
    # \stackrel{\text{def}}{=}, \overset{\mathrm{def}}{=} (its braces dropped or not)
    r"|\\(?:stackrel|overset)\s*(?:\{[^{}]*(?:\{[^{}]*\})?[^{}]*\}|\\\w+\s*\{[^{}]*\})"
    r"\s*\{\s*=\s*\}"
)
#: A constant's value stated after its formula: ``, \\beta = 1.702``, ``\\text{ where }
#: a = 2`` (the text before the last ``=``, ending in the constant's name).
_STATED_CONSTANT = re.compile(
    r"(?:(?<!\\),|\(|\\text\s*\{[\s,]*(?:where|with|and)\s*\})"  # not \, (space)
    r"\s*(?:\\[,;:! ]|\\q?quad\b|\s)*"
    r"(\\?[A-Za-z]+(?:_\{?[A-Za-z0-9]+\}?)?)"
    # or a function the formula uses, defined after it: , \sigma(x) = ...
    r"(\s*(?:\\left\s*)?\(\s*[A-Za-z]\s*(?:\\right\s*)?\))?\s*$"
)
#: A definition's head, ``\\operatorname{GELU}(x)``, ``f(x)``, ``\\mathrm{ELU}_\\alpha(x)``.
_DEFINED_HEAD = re.compile(
    r"(?:\\(?:operatorname|mathrm|text|textrm|mathit)\s*\{\s*\w+\s*\}|\\?[A-Za-z]+)"
    r"(?:_\{?\\?\w+\}?)?\s*(?:\\left\s*)?\(\s*[A-Za-z]\s*(?:\\right\s*)?\)"
)
#: A definition's head without its argument: ``y``, ``\\sigma``, ``f_{\\beta}``.
_NAMED_HEAD = re.compile(r"\\?[A-Za-z]+(?:_\{?\\?\w+\}?)?(?:\^\{?\*\}?)?")
#: A ``\\text{...}`` (or ``\\operatorname``, ``\\mathrm``) alone in braces, as
#: Wikipedia writes them: ``{\\text{erf}}(x)``, ``{\\text{if }}``.
_BRACED_WORD = re.compile(
    r"(?:\\mathop\s*)?\{(\\(?:text|textrm|mathrm|operatorname|mbox)\s*\{[^{}]*\}"
    r"|\\rm(?![A-Za-z])\s*[A-Za-z]+)\s*\}"
)


#: Index subscripts of a sample's values (``y_i``, ``\\hat{y}_i``, ``x_j``) and the
#: names that take them.
_INDICES = frozenset({"i", "j", "k", "n"})
_INDEXED = frozenset({"x", "y", "z"})
#: A loss's mean over the batch, written out: ``\\frac{1}{N}\\sum_{i=1}^{N}`` (symnb
#: takes that mean itself).
_BATCH_MEAN = re.compile(
    r"^\s*(-?)\s*\\[dt]?frac\s*\{\s*1\s*\}\s*\{\s*[NnMm]\s*\}\s*\\sum"
    r"(?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z]))?(?:\s*\^\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?"
)
#: A loss's expectation, ``\\mathbb{E}_{x}[...]``: the batch mean symnb takes itself.
_EXPECTATION = re.compile(
    r"^\s*(-?)\s*\\mathbb\s*\{\s*E\s*\}(?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z]))?\s*"
)


def _without_expectation(body: str) -> str:
    """``-\\mathbb{E}[\\log \\hat{y}]`` as ``-[\\log \\hat{y}]``: the expectation of
    the whole loss is the mean symnb takes (of a part, it has no reading here)."""
    m = _EXPECTATION.match(body)
    if m is None:
        return body
    rest = body[m.end() :]
    depth, k = 0, -1
    for k, ch in enumerate(rest):
        depth += ch in "[("
        depth -= ch in ")]"
        if depth == 0 and ch in ")]":
            break
    closed_at_end = (
        depth == 0 and not rest[k + 1 :].strip() and rest.lstrip()[:1] in "[(\\"
    )
    if not rest or not closed_at_end:
        raise LatexProblem(
            "\\mathbb{E} has a reading only around the whole loss, "
            "\\mathbb{E}[...] (symnb takes the batch mean itself): type the loss per "
            "sample"
        )
    return m.group(1) + rest


_ARRAY_OPEN = re.compile(
    r"(?:\\left\s*)?\\\{\s*\\begin\{(?:array\}\s*\{[^{}]*\}|matrix\})"
)
_ARRAY_CLOSE = re.compile(r"\\end\{(?:array|matrix)\}(?:\s*\\right\s*\.)?")


#: A trailing domain, as papers state it: ``\\text{ for } x \\in \\mathbb{R}``,
#: ``\\quad (x \\in \\mathbb{R})``: no part of the formula.
_DOMAIN = re.compile(
    r"(?:\s|,|\\[,;:! ]|\\q?quad|\\text\{\s*(?:for|where)\s*\})*"
    r"\(?\s*x\s*\\in\s*\\(?:mathbb|mathbf)\s*\{\s*R\s*\}\s*\)?\s*[.,]?\s*$"
)


#: "for all x" after the formula (``\\quad \\forall x \\in \\mathbb{R}``,
#: ``\\text{ for all } x``): the domain stated, as _DOMAIN.
_FOR_ALL = re.compile(
    r"(?:\s|,|\\[,;:! ]|\\q?quad)*(?:\\forall|\\text\s*\{\s*for\s+(?:all|every|any)\s*\})"
    r"\s*x\s*(?:\\in\s*\\(?:mathbb|mathbf)\s*\{\s*R\s*\})?\s*[.,]?\s*$"
)
#: An interval after the formula, ``\\sigma(x) = ... \\in (0, 1)``: its range stated.
_RANGE = re.compile(
    r"\\in\s*(?:\\left\s*)?[(\[][^()\[\]]*?(?:\\right\s*)?[)\]]\s*[.,]?\s*$"
)


#: A name in brackets after the formula, ``x\\sigma(x) \\quad \\text{(Swish)}``: a label.
_NAME_LABEL = re.compile(
    r"(?:\\q?quad|\\[,;:]|~|\s)+\\text\s*\{\s*\([^{}()]*\)\s*\}\s*[.,]?\s*$"
)
#: An empty subscript, ``x^{2}_{}``: TeX sets nothing (an empty power is refused: an
#: exponent forgotten).
_EMPTY_SCRIPT = re.compile(r"(?<!\\)_\s*\{\s*\}")
#: Plain TeX's binomial coefficient ``{n \\choose k}``, read as ``\\binom{n}{k}``.
_CHOOSE = re.compile(r"\{([^{}]*?)\\choose(?![A-Za-z])([^{}]*?)\}")
#: What typesets a display, not the formula: its environment, label, tag.
_DISPLAY = re.compile(
    r"\\(?:begin|end)\s*\{(?:equation|align|gather|multline|displaymath|math)\*?\}"
    r"|\\(?:begin|end)\s*\{(?:aligned|split|gathered)\}"
    r"|\\(?:label|tag\*?)\s*\{[^{}]*\}|\\(?:nonumber|notag)(?![A-Za-z])"
)
#: An equation's number after a space: ``x\\sigma(x) \\qquad (2)`` (not a factor 2).
#: An equation's number at the end: ``(2)``, ``(2.1)``, ``(A.3)``, ``(3a)``, ``[2]``.
_NUMBER_MARK = re.compile(
    r"(?:\(\s*(?:[A-Z]\.)?\d+(?:\.\d+)*[a-z]?\s*\)|\[\s*\d+(?:\.\d+)*\s*\])"
    r"\s*[.,]?\s*$"
)
#: Spacing a number may follow, widest first (``\hspace{..}`` is found apart).
_WIDE_SPACES = ("\\qquad", "\\quad", "\\hfill")
_SMALL_SPACES = ("\\,", "\\;", "\\:", "\\!", "~")


def _without_equation_number(body: str) -> str:
    """``body`` without an equation number set apart at its end by a wide space
    (``x\\sigma(x) \\qquad (2.1)``, ``\\;\\;(3)``, ``\\hspace{1cm}(4)``); one
    small space before it (``x\\,(2)``) is a number or a factor, refused. Scans
    back from the end: linear in the text."""
    mark = _NUMBER_MARK.search(body)
    if not mark:
        return body
    end = mark.start()
    wide, small = False, 0
    while True:
        head = body[:end].rstrip()
        if len(head) < end and head.endswith("\\") and not head.endswith("\\\\"):
            small, end = small + 1, len(head) - 1  # a control space "\ "
            continue
        end = len(head)
        at = head.rfind("\\hspace") if head.endswith("}") else -1
        if at >= 0 and re.fullmatch(r"\\hspace\*?\s*\{[^{}]*\}", head[at:]):
            wide, end = True, at
            continue
        space = next(
            (t for t in _WIDE_SPACES + _SMALL_SPACES if head.endswith(t)), None
        )
        if space is None or (space == "~" and head.endswith("\\~")):
            break
        wide = wide or space in _WIDE_SPACES
        small += space in _SMALL_SPACES
        end -= len(space)
    if wide or small >= 2:
        return body[:end]
    if small == 1:
        raise LatexProblem(
            f"'{body[end:].strip()}' at the end is an equation number or a factor: "
            "drop the number, or type \\cdot before a factor"
        )
    return body


_EQUATION_NUMBER = re.compile(
    r"\\l?eqno(?![A-Za-z]).*$"  # plain TeX's \eqno(3): the rest is the number
)


#: What may open an aligned display's continued line (``&\\quad + x^2``,
#: ``&= x \\cdot x``): an operator or a definition sign, after '&' and spacing.
_CONTINUED = re.compile(
    r"(?:&|\s|\\[,;:! ]|\\q?quad(?![A-Za-z])|\\displaystyle(?![A-Za-z]))*"
    r"(?:[-+=<>/*]|:=|\\(?:cdot|times|approx|leq?|geq?|doteq|coloneqq)(?![A-Za-z]))"
)


def _top_level(pattern: str, body: str, brackets: bool = False):
    """The matches of ``pattern`` in ``body`` outside groups ``{...}`` and
    environments ``\\begin ... \\end`` (and with ``brackets``, outside Iverson's
    ``[...]``: ``x[x = 0]`` holds no definition; round brackets are counted only to
    pair an interval's closers, ``[0, 1)``; ``(\\beta = 1)`` is a stated value)."""
    depth, square, round_ = 0, 0, 0
    opened = r"|[(\[\])]" if brackets else ""
    for m in re.finditer(r"[{}]|\\begin|\\end|" + pattern + opened, body):
        text = m.group()
        if text in ("(", "["):
            square += text == "["
            round_ += text == "("
        elif text in (")", "]"):  # an interval's closer ends either: [0, 1)
            if (text == "]" and square) or not round_:
                square = max(0, square - 1)
            else:
                round_ -= 1
        elif text in ("{", "}"):
            depth += 1 if text == "{" else -1
        elif text in ("\\begin", "\\end"):
            depth += 100 if text == "\\begin" else -100
        elif depth == 0 and square == 0:
            yield m


def _aligned_rows(body: str) -> str:
    """An aligned display's lines as one formula: ``f(x) &= x \\\\ &\\quad + x^2``
    continues a line (x + x^2), ``&= x\\cdot x`` extends an equality chain; a line
    that starts anew (``g(x) &= ...``) is a second formula, refused. The alignment
    marks '&' outside cases go (cases keep theirs)."""
    rows, start = [], 0
    for m in _top_level(r"\\\\", body):
        if body[m.end() : m.end() + 1].isalpha():  # \\sigma: a doubled backslash
            word = re.match(r"[A-Za-z]+", body[m.end() :]).group()
            raise LatexProblem(
                f"'\\\\{word}' has a doubled backslash (a Python string without "
                f"r'...'?): type \\{word}"
            )
        rows.append(body[start : m.start()])
        start = m.end()
    rows.append(body[start:])
    if len(rows) == 1 or not rows[0].strip():
        return body  # one line; or a line's end first, which has no reading
    rows = [row for row in rows if row.replace("&", "").strip()]  # "& \\\\" is empty
    for row in rows[1:]:
        if not _CONTINUED.match(row):
            first, other = (r.replace("&", "").strip()[:40] for r in (rows[0], row))
            raise LatexProblem(
                f"the lines '{first}' and '{other}' are two formulas: type the one "
                "meant alone (a continued line starts with its operator, & + ...)"
            )
    joined = " ".join(rows)
    out, depth = [], 0
    for m in re.finditer(r"\\begin|\\end|\\&|&|[^&\\]+|\\", joined):
        text = m.group()
        depth += 100 * (text == "\\begin") - 100 * (text == "\\end")
        out.append(" " if text == "&" and depth == 0 else text)
    return "".join(out)


def _right_side(body: str, declared: Container[str] = ()) -> str:
    """The formula of ``sigma(x) = frac{1}{1 + e^{-x}}``: what follows the last
    definition sign outside groups and cases (a leading ``f(x) =``, ``doteq``)."""
    cut, signs = None, []
    for m in _top_level(_DEFINES, body, brackets=True):
        cut = m.end()
        signs.append(m)
    if signs:
        _refuse_two_readings(body, signs)
    if signs and all(m.group() in ("=", ":=") for m in signs):
        # f(x) = a = b, a = b: equal forms, or an approximation typed with '='
        sides = [body[m.end() : n.start()] for m, n in itertools.pairwise(signs)]
        head = body[: signs[0].start()].strip()
        if head and not (_DEFINED_HEAD.fullmatch(head) or _NAMED_HEAD.fullmatch(head)):
            sides.insert(0, head)
        try:
            declared = tuple(declared)
            latex_chain.refuse_unequal([*sides, body[cut:]], declared, translate)
        except latex_chain.UnequalSides as problem:
            raise LatexProblem(str(problem)) from None
    if cut is not None and "'" in body[:cut]:  # f'(x) = ...: a derivative's formula
        raise LatexProblem(
            f"the left side '{body[:cut].strip()}' defines a derivative (a prime): "
            "type the function itself, symnb derives f'"
        )
    return body[cut:] if cut is not None else body


def _refuse_two_readings(body: str, signs: list) -> None:
    """Refuse what the right side of the last definition sign would misread: a
    constant's value stated after the formula (``x\\sigma(\\beta x),\\ \\beta = 1.702``
    is no formula 1.702), and an approximation of a formula typed beside it
    (``x\\Phi(x) \\approx 0.5x(...)``, ``f(x) = x\\Phi(x) \\approx ...``: two functions)."""
    last = signs[-1]
    before = body[: last.start()]
    stated = _STATED_CONSTANT.search(before)
    if stated and before[: stated.start()].strip():
        name = stated.group(1).lstrip("\\")
        if stated.group(2):
            raise LatexProblem(
                f"'{body[stated.start(1) :].strip()}' after the formula defines a "
                "function the formula uses (the last '=' is no formula's start): "
                "type the formula alone, with that definition put in"
            )
        if name == "x" and last.group() == "\\mapsto":
            return  # f: \mathbb{R} \to \mathbb{R}, x \mapsto x^2: the map's value
        raise LatexProblem(
            f"'{body[stated.start(1) :].strip()}' after the formula states a "
            f"constant's value: declare the constant ({_GREEK.get(name, name)}=...) "
            "and type the formula alone"
        )
    if last.group() != "\\approx":
        return
    start = signs[-2].end() if len(signs) > 1 else 0
    left = body[start : last.start()].strip()
    if len(signs) > 1 or not _DEFINED_HEAD.fullmatch(left):
        raise LatexProblem(
            f"'{left}' and the approximation after \\approx are two functions: "
            "type the one meant alone"
        )


def translate(text: str, declared: Container[str] = ()) -> str:
    """The formula text of LaTeX ``text`` (``$...$`` and a leading ``f(x) =`` are
    dropped; a trailing '.' or ',' of a sentence too). ``declared``: the constant
    names the formula declares (``\\varepsilon`` reads as a declared varepsilon).
    Raises :class:`LatexProblem`."""
    try:  # a Markdown fence, % comments, \newcommand macros: what TeX reads
        text = latex_macros.expanded(latex_macros.unwrapped(text))
    except latex_macros.MacroProblem as problem:
        raise LatexProblem(str(problem)) from None
    body = re.sub(r"(\$|\\\]|\\\))\s*[.,;]\s*$", r"\1", text.strip())  # $x$.
    body = body.strip("$").strip()
    body = re.sub(r"^\\\[|\\\]$|^\\\(|\\\)$", "", body).strip()
    body = re.sub(r"(?<!\\)\\$", "", body).strip()  # a control space "\ " at the end
    body = re.sub(r"\\text\s*\{\s*[.,;]?\s*\}\s*$", "", body)  # \text{, } at the end
    body = re.sub(r"(?<!\\)[.,;]\s*$", "", body)  # not the spacing \, or \;
    body = re.sub(r"\\\\\s*$", "", _DISPLAY.sub(" ", body).strip())  # a line's end
    body = _without_equation_number(_EQUATION_NUMBER.sub("", body))
    body = _ROW_SPACE.sub(r"\\\\\\\\", body)
    body = re.sub(r"(?<!\\)[.,;]\s*$", "", body).strip()
    body = _DOMAIN.sub("", _FOR_ALL.sub("", body))
    body = _EMPTY_SCRIPT.sub("", _NAME_LABEL.sub("", body))
    stated = _RANGE.search(body)
    if stated:
        raise LatexProblem(
            f"'{stated.group().strip()}' at the end states the formula's range (a "
            "condition is no value): type the formula alone, or \\mathbb{1}[x \\in "
            "(a, b)] for an indicator"
        )
    body = _BRACED_WORD.sub(r"\1", body)
    body = _CHOOSE.sub(r"\\binom{\1}{\2}", body)  # {4 \choose 2}
    # \left\{ \begin{array}{ll} ... \end{array} \right.: the classic piecewise
    body = _ARRAY_OPEN.sub(r"\\begin{cases}", body)
    body = _ARRAY_CLOSE.sub(r"\\end{cases}", body)
    body = _right_side(_aligned_rows(body), declared)
    body = _BATCH_MEAN.sub(r"\1", body)  # -\frac{1}{N}\sum: the minus stays
    body = _without_expectation(body)
    reader = _Reader(body, declared)
    try:
        items = reader.items(frozenset())
    except IndexError:  # a construct cut off at the end of the text
        raise LatexProblem("the LaTeX ends in the middle of a construct") from None
    except LatexProblem as problem:
        raise type(problem)(f"{problem}{reader.where()}", problem.suggestion) from None
    if not items:
        raise LatexProblem("the LaTeX has no formula")
    _refuse_product_after_slash(items)
    try:  # between values: x \vee 0 is max(x, 0), x \wedge 1 is min(x, 1)
        items = latex_lattice.joined(_conditional(items))
    except latex_lattice.LatticeProblem as problem:
        raise LatexProblem(str(problem)) from None
    if any(k == "logic" for k, _ in items) and not any(k == "cmp" for k, _ in items):
        raise LatexProblem(  # x \text{ or } x^2: prose between two formulas
            "'and'/'or' join conditions here, not values: type the one formula "
            "meant (\\max(a, b) for the larger of two)"
        )
    return _joined(items)


def _depth(items: list) -> int:
    """How many brackets ``items`` leave open."""
    return sum((kind == "(") - (kind == ")") for kind, _ in items)


def _conditional(items: list) -> list:
    """``a \\text{ if } c \\text{ else } b`` (Python's order, as some papers write
    it; ``otherwise`` for else, or ``a \\text{ if } c, b \\text{ otherwise}``, with
    more cases ``b \\text{ if } d,`` between) as Piecewise((a, c), (b, True)); a trailing ``\\text{for } x > 0`` without
    an else has no value elsewhere, so it is refused."""
    depth, marks = 0, {}
    for k, (kind, text) in enumerate(items):
        depth += kind == "("
        depth -= kind == ")"
        if depth == 0 and kind == "name" and text in (*_WORDS, *_OTHERWISE):
            marks.setdefault("else" if text in _OTHERWISE else text, k)
    if not marks:
        return items
    word, at = min(marks.items(), key=lambda mark: mark[1])
    otherwise = marks.get("else")
    if word == "if" and otherwise == len(items) - 1:  # a if c, b otherwise
        commas = [
            k
            for k in range(at + 1, otherwise)
            if items[k] == ("op", ",") and _depth(items[:k]) == 0
        ]
        if not commas:
            raise LatexProblem(
                "a \\text{ if } c, b \\text{ otherwise} has no comma between the "
                "condition c and the other value b: type a comma after c"
            )
        rest = items[commas[0] + 1 :]  # b otherwise; or b if d, ..., z otherwise
        chained = any(
            item == ("name", "if") and _depth(rest[:k]) == 0
            for k, item in enumerate(rest)
        )
        items = [
            *items[: commas[0]],
            ("name", "else"),
            *(rest if chained else rest[:-1]),
        ]
        if not chained and len(commas) > 1:
            raise LatexProblem(
                "a \\text{ if } c, b \\text{ otherwise} has more than one comma after "
                "'if': join a condition's parts by \\land (x > 0 \\land x < 1)"
            )
        otherwise = commas[0]
    if word != "if" or otherwise is None or otherwise < at:
        raise LatexProblem(
            f"'{word}' outside \\begin{{cases}} has no reading: give every case a "
            "value, \\begin{cases} a & x > 0 \\\\ b & \\text{otherwise} "
            "\\end{cases} (or a \\text{ if } c \\text{ else } b)"
        )
    value, condition, other = (
        items[:at],
        items[at + 1 : otherwise],
        items[otherwise + 1 :],
    )
    if not (value and condition and other):
        raise LatexProblem("a \\text{ if } c \\text{ else } b lacks a part")
    return [
        ("func", "Piecewise"),
        ("(", "("),
        ("(", "("),
        *value,
        ("op", ","),
        *_connected(condition),
        (")", ")"),
        ("op", ","),
        ("(", "("),
        *_conditional(other),
        ("op", ","),
        ("name", "True"),
        (")", ")"),
        (")", ")"),
    ]
