"""The judge every formula corpus after the first runs, written once.

A corpus test file subclasses :class:`CorpusJudge` with its entries and reference
texts (``class TestCorpus8(CorpusJudge): ENTRIES = CORPUS8``). Each entry must then

- build (parse, differentiate, LaTeX of f and f') within ``BUILD_SECONDS`` of CPU time,
- meet issue 8's accuracy rule on every backend and dtype, f and f' in one kernel call
  at points over the whole float range and near every kink
  (``corpus_reference.sample_points``), against SymPy + mpmath references of the typed
  text, or of the same function in a form mpmath evaluates everywhere where
  ``REFERENCE_TEXT`` names the entry (``corpus_reference.violations``),
- give NaN for a NaN input,

and its name must be new: no earlier corpus uses it. Each corpus keeps its own file so
that ``--dist loadfile`` spreads the corpora over the test workers.
"""

from __future__ import annotations

import functools
from typing import ClassVar

import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.test_corpus import (
    build_seconds,
    judged_references,
    nan_not_propagated,
    rule_problems,
)

#: CPU seconds a formula may take to parse, differentiate and render (this thread's
#: CPU time, as the symbolic budget counts it: the wall clock of a loaded machine
#: failed log_cosh_over_x at 11.7 s while its budget was never spent).
BUILD_SECONDS = 10.0

#: every judged entry by name (names are unique over the corpora: a test checks it)
_ENTRIES: dict[str, object] = {}
#: every judged entry's reference text, where it has one
_REFERENCE_TEXT: dict[str, str] = {}


@functools.cache
def activation(name: str) -> symnb.Activation:
    """The entry's activation, built once per test process."""
    entry = _ENTRIES[name]
    return symnb.Activation(entry.text, **entry.constants)


@functools.cache
def references(name: str) -> dict:
    """dtype -> (points, f'-check mask, Reference), computed once per entry."""
    return judged_references(_ENTRIES[name], _REFERENCE_TEXT)


def names_of(*corpora) -> set[str]:
    """The entry names of the given corpora."""
    return {e.name for corpus in corpora for e in corpus}


def names_before(n: int) -> set[str]:
    """The entry names of every corpus before the n-th (``corpus.ALL`` holds the first
    five, ``corpus6.ALL6`` the sixth, ``corpusK.CORPUSK`` each later one)."""
    from importlib import import_module

    from tests.robust.corpus import ALL
    from tests.robust.corpus6 import ALL6

    later = (
        getattr(import_module(f"tests.robust.corpus{k}"), f"CORPUS{k}")
        for k in range(7, n)
    )
    return names_of(ALL, ALL6, *later)


class CorpusJudge:
    """Tests of one corpus: subclass as ``Test...`` with the class attributes set."""

    #: the corpus's entries (``Published``)
    ENTRIES: tuple = ()
    #: entry name -> the same function in a form mpmath evaluates everywhere
    REFERENCE_TEXT: ClassVar[dict[str, str]] = {}
    #: the fewest entries the corpus must keep (a shrunk corpus fails)
    MIN_SIZE = 60
    #: earlier corpora's names (entries must not repeat them); None: not checked
    EARLIER: set[str] | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for entry in cls.ENTRIES:
            assert _ENTRIES.setdefault(entry.name, entry) is entry, entry.name
        _REFERENCE_TEXT.update(cls.REFERENCE_TEXT)

    @classmethod
    def pytest_generate_tests(cls, metafunc):
        if "name" in metafunc.fixturenames:
            metafunc.parametrize("name", [e.name for e in cls.ENTRIES])

    def test_corpus_names_are_unique_and_new(self):
        names = {e.name for e in self.ENTRIES}
        assert len(names) == len(self.ENTRIES) >= self.MIN_SIZE
        assert set(self.REFERENCE_TEXT) <= names
        if self.EARLIER is not None:
            assert not names & self.EARLIER, sorted(names & self.EARLIER)

    def test_formula_builds_and_renders_quickly(self, name):
        assert build_seconds(_ENTRIES[name]) < BUILD_SECONDS

    @pytest.mark.slow
    @pytest.mark.parametrize("backend", backend_params())
    @pytest.mark.parametrize("dtype", ["float32", "float64"])
    def test_formula_meets_the_accuracy_rule(self, name, dtype, backend):
        xs, check_df, ref = references(name)[dtype]
        kernel = activation(name).compile(backend=backend, dtype=dtype)
        problems = rule_problems(kernel, xs, check_df, ref, dtype)
        assert not problems, f"{name} on {backend} {dtype}:\n" + "\n".join(problems)

    @pytest.mark.parametrize("backend", backend_params())
    @pytest.mark.parametrize("dtype", ["float32", "float64"])
    def test_nan_in_gives_nan_out(self, backend, dtype):
        acts = {e.name: activation(e.name) for e in self.ENTRIES}
        assert not nan_not_propagated(acts, backend, dtype)
