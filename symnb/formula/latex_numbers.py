"""A number typed in LaTeX with its digits grouped or spaced (``1\\,000``, ``1.\\!702``).

TeX ignores spaces in math and ``\\,`` only kerns, so ``1\\,000`` and ``1 000`` typeset
the number 1000 (SI groups digits in threes), ``1.\\,5`` the number 1.5, and ``3 2`` the
number 32. Read token by token, they were products (1*000 = 0, 1.*5, 3*2): silently
another constant. Here the reader's tokens after a number are joined as the number TeX
sets, and digits that are neither grouped in threes nor a decimal part are refused.

``{,}`` is a decimal comma (``0{,}5``, ``1{,}702``) or a thousands separator
(``1{,}000{,}000``): one group of three digits ending in 0 after a number that does not
start with 0 (``1{,}000``: a decimal part rarely ends in 0) has both readings, so it is
refused.
"""

from __future__ import annotations

#: What TeX sets between the digits of one number: spaces and kerns only.
SEPARATORS = frozenset(
    {"\\,", "\\!", "\\ ", "\\;", "\\:", "~", "\\thinspace", "\\negthinspace"}
)
_COMMA = ["{", ",", "}"]


class NumberProblem(ValueError):
    """A number whose digits have no one reading (the reader adds where it is)."""


def _digits(tok: str | None) -> bool:
    return tok is not None and tok.isdigit()


def _comma_groups(tokens: list[str], i: int) -> tuple[list[str], int]:
    """The digit groups after ``{,}`` marks from ``i`` on, and the index after them."""
    groups = []
    while tokens[i : i + 3] == _COMMA and _digits(
        tokens[i + 3] if i + 3 < len(tokens) else None
    ):
        groups.append(tokens[i + 3])
        i += 4
    return groups, i


def _with_commas(tok: str, groups: list[str]) -> str:
    """``tok{,}g1{,}g2...`` as one number (a decimal comma, or thousands)."""
    shown = "{,}".join([tok, *groups])
    if "." in tok or not tok.isdigit():
        raise NumberProblem(
            f"the number '{shown}' has two decimal marks: type it as code"
        )
    if len(groups) == 1:
        group = groups[0]  # 1{,}702 is GELU's 1.702; 2{,}500 may be 2500
        if len(group) == 3 and group.endswith("0") and tok[0] != "0" and len(tok) <= 3:
            raise NumberProblem(
                f"'{shown}' is {tok}.{groups[0]} with a decimal comma or "
                f"{tok}{groups[0]} with a thousands separator: type the number as "
                f"code, {tok}.{groups[0]} or {tok}{groups[0]}"
            )
        return f"{tok}.{groups[0]}"  # 0{,}5: a decimal comma, as TeX sets it
    if len(tok) <= 3 and all(len(g) == 3 for g in groups):
        return tok + "".join(groups)  # 1{,}000{,}000: thousands
    raise NumberProblem(
        f"the number '{shown}' has more than one decimal comma: type it as code"
    )


def _joins(tok: str, nxt: str, grouped: bool) -> bool:
    """Whether digits ``nxt`` after a space continue the number ``tok``."""
    if tok.endswith("."):  # 1.\,5
        return True
    whole, _, part = tok.partition(".")
    if "." in tok:  # 0.000\,001: the decimal part in threes
        return nxt.isdigit() and len(part) % 3 == 0 and len(nxt) <= 3
    head = nxt.partition(".")[0]  # 1\,000\,000, 1\,000.5
    return len(head) == 3 and head.isdigit() and (grouped or len(whole) <= 3)


def joined_number(tokens: list[str], i: int, tok: str) -> tuple[str, int]:
    """The number that starts with token ``tok`` (``tokens[i]`` follows it) as TeX
    sets it, and the index of the token after it. Raises :class:`NumberProblem` for
    digits after a space that are no group of the number."""
    if tok.isdigit():
        groups, j = _comma_groups(tokens, i)
        if groups:
            tok, i = _with_commas(tok, groups), j
        elif tokens[i : i + 3] == ["{", ".", "}"] and _digits(
            tokens[i + 3] if i + 3 < len(tokens) else None
        ):
            tok, i = f"{tok}.{tokens[i + 3]}", i + 4  # 1{.}0507: a decimal point
    grouped = False
    while True:
        j = i
        while j < len(tokens) and tokens[j] in SEPARATORS:
            j += 1
        nxt = tokens[j] if j < len(tokens) else None
        groups, k = _comma_groups(tokens, i)
        if grouped and "." not in tok and len(groups) == 1:  # 1\,000{,}5
            tok, i = f"{tok}.{groups[0]}", k
            continue
        if nxt == "." and "." not in tok:  # 1\!.\!5: a spaced decimal point
            k = j + 1
            while k < len(tokens) and tokens[k] in SEPARATORS:
                k += 1
            if _digits(tokens[k] if k < len(tokens) else None):
                tok, i = f"{tok}.{tokens[k]}", k + 1
                continue
            return tok, i
        if nxt is None or not (nxt[0].isdigit() or (nxt[0] == "." and "." not in tok)):
            return tok, i
        if nxt.startswith(".") or _joins(tok, nxt, grouped):
            grouped = grouped or ("." not in tok and "." not in nxt)
            tok, i = tok + nxt, j + 1
            continue
        raise NumberProblem(
            f"the numbers {tok} and {nxt} have only a space between them, and TeX "
            f"sets them as one number, {tok}{nxt}: type it so, group digits in "
            f"threes (1\\,000), or type \\cdot between them for a product"
        )
