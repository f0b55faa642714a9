"""Judge one typed formula as the corpus is judged, for the small regression files.

``rule_problems_of(text, backend, dtype)`` compiles ``symnb.Activation(text)`` and
returns the rule violations of its f and f' against mpmath references over the whole
float range (``corpus_reference.references_by_dtype``, ``test_corpus.rule_problems``);
the references are computed once per formula and constants.
"""

from __future__ import annotations

import functools

import symnb
from tests.robust.corpus import Published
from tests.robust.corpus_reference import references_by_dtype
from tests.robust.test_corpus import rule_problems


@functools.cache
def _reference(text: str, constants: tuple):
    return references_by_dtype(Published("judged", text, "probe", dict(constants)))


def rule_problems_of(
    text: str,
    backend: str,
    dtype: str,
    constants: dict | None = None,
    moved: dict | None = None,
) -> list[str]:
    """The rule's complaints about ``text`` compiled with ``constants`` (then set to
    ``moved`` on the kernel, as training sets them; judged at the moved values)."""
    constants = dict(constants or {})
    judged = constants | dict(moved or {})
    xs, check_df, ref = _reference(text, tuple(sorted(judged.items())))[dtype]
    kernel = symnb.Activation(text, **constants).compile(backend, dtype=dtype)
    if moved:
        kernel.set_constants(**moved)
    return rule_problems(kernel, xs, check_df, ref, dtype)
