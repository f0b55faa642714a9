"""Formulas with Unicode math symbols (``x·σ(βx)``, ``α(eˣ − 1)``, ``√(1 + x²)``)
and absolute values typed as bars (``x/(1 + |x|)``).

Text copied from a paper's PDF or a web page carries the symbols the paper shows:
middle dots and multiplication signs, the minus sign U+2212, superscripts, Greek
letters, a square-root sign. A formula stays plain ASCII (a look-alike character is
refused by name, with the ASCII to type), but the refusal also gives the whole
formula retyped: the symbols are rewritten into the LaTeX they stand for (``·`` is
``\\cdot``, ``β`` is ``\\beta``, ``eˣ`` is ``e^{x}``, ``√x`` is ``\\sqrt{x}``),
which :mod:`symnb.formula.latex_input` reads as it reads a paper's LaTeX (Greek
letters are constants' names, ``σ(...)`` is the sigmoid, juxtaposition a product).
ASCII bars ``|x|`` (Python's ``|`` means nothing in a formula) are read the same way.
"""

from __future__ import annotations

import re
import unicodedata

#: Operators and relations -> their LaTeX (or ASCII).
_SYMBOLS = {
    "\u00b7": r" \cdot ",  # MIDDLE DOT
    "\u22c5": r" \cdot ",  # DOT OPERATOR
    "\u2219": r" \cdot ",  # BULLET OPERATOR
    "\u00d7": r" \cdot ",  # MULTIPLICATION SIGN
    "\u2217": r" \cdot ",  # ASTERISK OPERATOR
    "\u2212": "-",  # MINUS SIGN
    "\u2013": "-",  # EN DASH (a PDF's minus)
    "\u2010": "-",  # HYPHEN
    "\u2011": "-",  # NON-BREAKING HYPHEN
    "\u00f7": "/",  # DIVISION SIGN
    "\u2215": "/",  # DIVISION SLASH
    "\u2265": r" \geq ",
    "\u2264": r" \leq ",
    "\u2260": r" \neq ",
    "\u2223": "|",  # DIVIDES (a PDF's absolute-value bar)
    "\u212f": "e",  # SCRIPT SMALL E
}
#: Superscript characters -> what they raise to (a run is one exponent).
_SUPERSCRIPTS = dict(
    zip(
        "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207a\u207b"
        "\u207d\u207e\u02e3\u207f\u2071",
        "0123456789+-()xni",
        strict=True,
    )
)
#: Subscript digits (``x₀``, ``α₁``: a name's index).
_SUBSCRIPTS = dict(zip("\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089",
                       "0123456789", strict=True))  # fmt: skip
_SCRIPTS = (("^", _SUPERSCRIPTS), ("_", _SUBSCRIPTS))
#: Greek symbol variants -> the letter's LaTeX name.
_GREEK_VARIANTS = {
    "\u03f5": "epsilon",  # LUNATE EPSILON SYMBOL
    "\u03d5": "phi",  # PHI SYMBOL
    "\u03d1": "theta",  # THETA SYMBOL
    "\u03c2": "sigma",  # FINAL SIGMA
    "\u03f1": "rho",  # RHO SYMBOL
}
#: Roots -> their function.
_ROOTS = {"\u221a": "sqrt", "\u221b": "cbrt"}
_OPERAND = re.compile(r"\s*([A-Za-z0-9.]+|\\[A-Za-z]+)")
_COMMENT = re.compile(r"#[^\n]*")
#: A typed name of two or more characters (``beta2``, ``x1``, ``tanh``): LaTeX reads
#: letters side by side as a product (``beta2`` as b*e*t*a*2), so it goes to the
#: reader as ``\operatorname{beta2}``, one name.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A name that is not called (``beta`` in ``beta*x``, not ``sigmoid`` in ``sigmoid(``).
_SYMBOL = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b(?!\s*\()")
#: An absolute value typed with bars, ``|x|``, ``|x - 1|`` (not ``a | b``, a
#: condition's or: no comparison inside).
_BARS = re.compile(r"\|[^|<>=!&\n]+\|")


def _greek(ch: str) -> str | None:
    """``\\beta`` for β, ``\\Phi`` for Φ, else None."""
    if ch in _GREEK_VARIANTS:
        return "\\" + _GREEK_VARIANTS[ch]
    name = unicodedata.name(ch, "")
    if not (name.startswith("GREEK ") and " LETTER " in name):
        return None
    spelled = name.rsplit(" ", 1)[-1].lower()
    if spelled == "lamda":  # Unicode's spelling
        spelled = "lambda"
    return "\\" + (spelled.capitalize() if "CAPITAL" in name else spelled)


def _known(ch: str) -> bool:
    return (
        ch in _SYMBOLS
        or ch in _SUPERSCRIPTS
        or ch in _SUBSCRIPTS
        or ch in _ROOTS
        or _greek(ch) is not None
        or (unicodedata.category(ch) == "Zs" and not ch.isascii())
    )


def bars(text: str) -> str | None:
    """ASCII ``text`` with an absolute value typed as bars (``|x|``), to be read as
    LaTeX reads it, else None."""
    code = _COMMENT.sub("", text)
    if "\\" in code or "^{" in code or "_{" in code:
        return None  # LaTeX: its reader reads the bars too
    return code if code.isascii() and _BARS.search(code) else None


def ascii_formula(text: str) -> str | None:
    """The formula ``text`` retyped in ASCII (``x*sigmoid(beta*x)`` for
    ``x·σ(βx)``), or None when it has no Unicode math symbol or cannot be read."""
    from symnb.formula.latex_input import LatexProblem, translate

    latex = to_latex(text)
    if latex is None:
        return None
    try:
        retyped = translate(latex)
    except (LatexProblem, RecursionError):
        return None
    return retyped if _names_kept(text, retyped) else None


def _names_kept(text: str, retyped: str) -> bool:
    """Whether every name of ``retyped`` was typed in ``text`` (or stands for one of
    its symbols: a Greek letter's name, a function): a retyping that splits a name
    (``beta2`` into b*e*t*a*2) or makes one up is no retyping of the formula.
    Called names (``ndtr(`` for Φ) are the parser's to judge."""
    from symnb.formula.latex_input import _GREEK

    code = _COMMENT.sub("", text)
    typed = set(_IDENTIFIER.findall(code))
    typed |= {g.lstrip("\\") for g in map(_greek, code) if g}
    typed |= {_SUPERSCRIPTS.get(ch, "") for ch in code}  # e^x typed as eˣ
    known = typed | set(_GREEK.values()) | {"pi", "E"}
    return set(_SYMBOL.findall(retyped)) <= known


def to_latex(text: str) -> str | None:
    """``text`` with its Unicode math symbols as LaTeX, or None when it has none
    (outside comments)."""
    code = _COMMENT.sub("", text)
    if code.isascii() or not any(_known(ch) for ch in code if not ch.isascii()):
        return None
    out: list[str] = []
    i = 0
    while i < len(code):
        ch = code[i]
        script = next((t for t in _SCRIPTS if ch in t[1]), None)
        if script is not None:  # a run of superscripts is one exponent
            mark, table = script
            j = i
            while j < len(code) and code[j] in table:
                j += 1
            out.append(mark + "{" + "".join(table[c] for c in code[i:j]) + "}")
            i = j
            continue
        if ch in _ROOTS:
            rest = code[i + 1 :]
            if rest.lstrip().startswith("("):
                out.append(f" {_ROOTS[ch]}")  # √(1 + x²): sqrt(...)
            else:
                greek = _greek(rest.lstrip()[:1]) if rest.strip() else None
                operand = _OPERAND.match(greek or rest)
                if operand is None:
                    out.append(f" {_ROOTS[ch]}")  # left for the reader to refuse
                else:
                    out.append(f" {_ROOTS[ch]}({operand.group(1)}) ")
                    spaces = len(rest) - len(rest.lstrip())
                    i += 1 + (spaces + 1 if greek else operand.end())
                    continue
            i += 1
            continue
        greek = _greek(ch)
        if greek is not None:
            out.append(greek + " ")
        elif ch in _SYMBOLS:
            out.append(_SYMBOLS[ch])
        elif not ch.isascii() and unicodedata.category(ch) == "Zs":
            out.append(" ")  # a no-break or thin space
        elif (name := _NAME.match(code, i)) and not (
            i and (code[i - 1] in "\\_" or code[i - 1].isalnum())
        ):
            out.append(r"\operatorname{" + name.group() + "}")
            i = name.end()
            continue
        else:
            out.append(ch)
        i += 1
    return "".join(out)
