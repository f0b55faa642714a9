"""The terms of a finite sum or product typed as LaTeX (``\\sum_{k=1}^{3} x^k``).

A sum with whole-number bounds is a formula of its own, x + x**2 + x**3: the LaTeX
reader (:mod:`symnb.formula.latex_input`) reads its summand once for each value of the
index, with the index's letter put in as that number. This module puts the number in
the reader's tokens, where the letter stands for the index: alone (``kx``, ``x^k``,
``k!``) or as a subscript (``a_k`` is then ``a_1``), and not inside a word
(``\\text{softplus}``, ``tanh``), whose letters are no index.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: ``{k=1}``, ``{k = 0}``: the index and its first value (braces and spaces dropped).
INDEX_START = re.compile(r"([A-Za-z])=(\d+)")
#: An upper bound: a whole number.
WHOLE = re.compile(r"\d+")
#: The most terms one sum or product is expanded into.
MAX_TERMS = 50
#: The most terms all sums of a formula write out, nested ones counted each time
#: (two nested sums of 2 terms write out 2 + 2*2): nesting multiplies the work.
MAX_WRITTEN = 200
#: The most parts (names, numbers, operators) a sum written out has: more makes a
#: formula longer than the parser takes (20,000 characters).
MAX_ITEMS = 20_000
#: Commands whose braced group is a word (a name, a unit), never an index.
WORD_GROUPS = frozenset(
    {
        "\\operatorname",
        "\\mathrm",
        "\\text",
        "\\textrm",
        "\\textit",
        "\\textnormal",
        "\\mathit",
        "\\mathsf",
        "\\mathbf",
        "\\boldsymbol",
        "\\mbox",
        "\\begin",
        "\\end",
        "\\hspace",
        "\\mathcal",
        "\\mathscr",
        "\\mathbb",
    }
)


def with_index(
    tokens: list[str],
    start: int,
    letter: str,
    value: int,
    is_word: Callable[[str], bool],
) -> list[str]:
    """``tokens`` with the index ``letter`` from ``start`` on read as ``value``: every
    one-letter token ``letter`` outside a word group and outside a run of letters
    that ``is_word`` names (``tanh`` typed without its backslash)."""
    out = list(tokens)
    j = start
    while j < len(out):
        tok = out[j]
        if tok in WORD_GROUPS and j + 1 < len(out):
            j = _after_group(out, j + 1 + (out[j + 1] == "*"))
            continue
        if len(tok) == 1 and tok.isalpha():
            end = j
            while end < len(out) and len(out[end]) == 1 and out[end].isalpha():
                end += 1
            word = "".join(out[j:end])
            if end - j == 1 or not is_word(word):
                for m in range(j, end):
                    if out[m] == letter:
                        out[m] = str(value)
            j = end
            continue
        j += 1
    return out


def _after_group(tokens: list[str], j: int) -> int:
    """The index after the ``{...}`` group at ``j`` (or after its one token)."""
    if j >= len(tokens) or tokens[j] != "{":
        return j + 1
    depth = 0
    for m in range(j, len(tokens)):
        depth += tokens[m] == "{"
        depth -= tokens[m] == "}"
        if depth == 0:
            return m + 1
    return len(tokens)
