"""The ninth corpus (``tests/robust/corpus9.py``: 2015-2025 activations, KAN and Padé
pieces, reinforcement-learning squashes and losses of the residual, margin or
probability, typed in the spellings users paste: PyTorch with tensor methods, NumPy,
JAX, TensorFlow, Keras, SciPy, ``math``, a ``def`` with locals, conditional
expressions, LaTeX; constants from 1e-8 to 1e8, zero and negative), compiled by symnb,
against independent mpmath references under issue 8's rule.

Same judge as ``test_corpus8.py``: points over the whole float range and near every
kink (``corpus_reference.sample_points``), references from SymPy + mpmath of the
published definition (``REFERENCE_TEXT`` for every entry SymPy's parser cannot read),
``corpus_reference.violations``. Each formula must also build (parse, differentiate,
LaTeX of f and f') within 10 s of CPU time, and give NaN for a NaN input.
"""

from __future__ import annotations

import functools

import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus9 import CORPUS9, REFERENCE_TEXT
from tests.robust.test_corpus import (
    build_seconds,
    judged_references,
    nan_not_propagated,
    rule_problems,
)

_BY_NAME = {e.name: e for e in CORPUS9}

#: CPU seconds a formula may take to parse, differentiate and render.
BUILD_SECONDS = 10.0


@functools.cache
def _activation(name: str) -> symnb.Activation:
    entry = _BY_NAME[name]
    return symnb.Activation(entry.text, **entry.constants)


def test_corpus_names_are_unique_and_new():
    from tests.robust.corpus import ALL
    from tests.robust.corpus6 import ALL6
    from tests.robust.corpus7 import CORPUS7
    from tests.robust.corpus8 import CORPUS8

    assert len(_BY_NAME) == len(CORPUS9) >= 90
    assert not set(_BY_NAME) & {e.name for e in (*ALL, *ALL6, *CORPUS7, *CORPUS8)}
    assert set(REFERENCE_TEXT) <= set(_BY_NAME)


@pytest.mark.parametrize("name", sorted(_BY_NAME))
def test_formula_builds_and_renders_quickly(name):
    assert build_seconds(_BY_NAME[name]) < BUILD_SECONDS


@pytest.mark.slow
@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", [e.name for e in CORPUS9])
def test_corpus9_formula_meets_the_accuracy_rule(name, dtype, backend):
    xs, check_df, ref = _references(name)[dtype]
    kernel = _activation(name).compile(backend=backend, dtype=dtype)
    problems = rule_problems(kernel, xs, check_df, ref, dtype)
    assert not problems, f"{name} on {backend} {dtype}:\n" + "\n".join(problems)


@functools.cache
def _references(name: str):
    return judged_references(_BY_NAME[name], REFERENCE_TEXT)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_in_gives_nan_out(backend, dtype):
    acts = {e.name: _activation(e.name) for e in CORPUS9}
    assert not nan_not_propagated(acts, backend, dtype)
