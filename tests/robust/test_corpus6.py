"""The sixth corpus (activations and losses not in the first five), compiled by symnb,
against independent mpmath references under issue 8's rule.

Same judge as ``test_corpus.py``: points over the whole float range and near every kink
and removable point (``corpus_reference.sample_points``), references from SymPy + mpmath
of the typed text (or, for the entries of ``REFERENCE_TEXT``, of a textbook identity that
mpmath can evaluate there), and ``corpus_reference.violations``. Each formula must also
build (parse, differentiate, LaTeX of f and f') within 10 s.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus6 import ALL6, REFERENCE_TEXT
from tests.robust.test_corpus import (
    build_seconds,
    judged_references,
    nan_not_propagated,
    rule_problems,
)

_BY_NAME = {e.name: e for e in ALL6}

#: CPU seconds a formula may take to parse, differentiate and render (this thread's
#: CPU time, as the symbolic budget counts it: the wall clock of a loaded machine
#: failed log_cosh_over_x at 11.7 s while its budget was never spent).
BUILD_SECONDS = 10.0


@functools.cache
def _reference(name: str):
    """dtype -> (points, f'-check mask, Reference), computed once per entry."""
    return judged_references(_BY_NAME[name], REFERENCE_TEXT)


@functools.cache
def _activation(name: str) -> symnb.Activation:
    entry = _BY_NAME[name]
    return symnb.Activation(entry.text, **entry.constants)


@pytest.mark.parametrize("name", sorted(_BY_NAME))
def test_formula_builds_and_renders_quickly(name):
    assert build_seconds(_BY_NAME[name]) < BUILD_SECONDS


@pytest.mark.slow
@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", [e.name for e in ALL6])
def test_corpus6_formula_meets_the_accuracy_rule(name, dtype, backend):
    xs, check_df, ref = _reference(name)[dtype]
    kernel = _activation(name).compile(backend=backend, dtype=dtype)
    problems = rule_problems(kernel, xs, check_df, ref, dtype)
    assert not problems, f"{name} on {backend} {dtype}:\n" + "\n".join(problems)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_in_gives_nan_out(backend, dtype):
    acts = {e.name: _activation(e.name) for e in ALL6}
    assert not nan_not_propagated(acts, backend, dtype)


#: Points where the reference does not settle and why (they are not checked).
_UNSETTLED = {
    # log(1 + exp(-262.5)): 1 + tiny needs more than the ladder's 240 digits
    "softplus_50": (-5.25, -4.875),
}


def test_references_settle_everywhere_but_at_steps():
    """The judge itself: a reference is left unsettled only at a kink or at 0, where a
    step's argument is exactly 0 (its value there is a convention, not checked), and at
    the points listed in ``_UNSETTLED``."""
    for entry in ALL6:
        allowed = {0.0, *entry.kinks, *_UNSETTLED.get(entry.name, ())}
        for dt, (xs, _, ref) in _reference(entry.name).items():
            loose = xs[~ref.settled_f | ~ref.settled_df].astype(np.float64)
            near = [min(abs(v - a) for a in allowed) <= 1e-6 for v in loose.tolist()]
            assert all(near), (entry.name, dt, loose)
