"""Removable singularities away from 0: ``sin(x - 1)/(x - 1)`` and the like.

Before: the limit was put in only at x = 0, so f was NaN exactly at the point
(sin(x - 1)/(x - 1) at 1 in both dtypes, tanh(x - 2)/(x - 2) + x at 2); the engine's
float32 sample points near such a point were only its neighbouring floats (the others
are float64 values float32 cannot hold), so f' cancelling to 0 at x = 0.9999 (float32,
where it is 3.3e-5) went unseen; a Taylor polynomial at x0 = 2 was expanded in powers
of x (coefficients up to 95 for a value near 1: f' was 1 at 2.0002 in float32, not
0.99987); and a regime threshold between a float64 point and its float32 rounding put
that point on the wrong side (expm1(x - 1)/(x - 1)' was NaN from x = 90 in float32).

Judged at the corpus's sample points (including the point itself, its neighbouring
floats and offsets 1e-6 .. 1e-2) against SymPy + mpmath references
(``tests/robust/corpus_reference.py``), under issue 8's rule.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import (
    assert_published_meets_rule,
    published_references,
    rule_problems,
)

CASES = (
    Published("sinc_at_one", "sin(x - 1)/(x - 1)", "test", removable=(1.0,)),
    Published("tanh_over_shift", "tanh(x - 2)/(x - 2) + x", "test", removable=(2.0,)),
    Published("sinc_at_a", "sin(x - a)/(x - a)", "test", {"a": 1.5}, removable=(1.5,)),
    Published(
        "sin_of_square", "sin(x**2 - 1)/(x**2 - 1)", "test", removable=(-1.0, 1.0)
    ),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_removable_point_away_from_zero_meets_the_rule(entry, dtype, backend):
    assert_published_meets_rule(entry, backend, dtype)


def test_the_limit_is_named_in_a_note():
    act = symnb.Activation("sin(x - a)/(x - a)", a=1.5)
    assert any("at a uses its limit 1" in n for n in act.notes), act.notes


@pytest.mark.parametrize("backend", backend_params())
def test_a_split_threshold_keeps_float32_points_on_their_side(backend):
    """expm1(x - 1)/(x - 1) in float32 (before: f NaN at 1). Once float32 measures
    points near 1, f''s collected-exponential form is used past a threshold, which
    fell between x = 1.02511883 (a float32 value) and the float64 point it rounds: the
    rewrite was refused and f' was NaN (inf - inf) from x = 90 on.
    (Between 89 and 92 exp(x - 1) itself overflows before the quotient: open.)"""
    entry = Published("exprel_at_one", "expm1(x - 1)/(x - 1)", "test", removable=(1.0,))
    xs, check_df, ref = published_references(entry)["float32"]
    keep = ~((xs > 89) & (xs < 92))
    kernel = symnb.Activation(entry.text).compile(backend=backend, dtype="float32")
    problems = rule_problems(
        kernel, xs[keep], check_df[keep], ref.take(np.flatnonzero(keep)), "float32"
    )
    assert not problems, "\n".join(problems)
