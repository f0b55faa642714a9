"""Removable singularities away from 0: ``sin(x - 1)/(x - 1)`` and the like.

Before: the limit was put in only at x = 0, so f was NaN exactly at the point
(sin(x - 1)/(x - 1) at 1 in both dtypes, tanh(x - 2)/(x - 2) + x at 2); the engine's
float32 sample points near such a point were only its neighbouring floats (the others
are float64 values float32 cannot hold), so f' cancelling to 0 at x = 0.9999 (float32,
where it is 3.3e-5) went unseen; a Taylor polynomial at x0 = 2 was expanded in powers
of x (coefficients up to 95 for a value near 1: f' was 1 at 2.0002 in float32, not
0.99987); and a regime threshold between a float64 point and its float32 rounding put
that point on the wrong side (expm1(x - 1)/(x - 1)' was NaN from x = 90 in float32).
``sin(pi*(x - 1))/(pi*(x - 1))``' cancels near 1 too, but NumPy's wide sin/cos (the
product pi*(x - 1) evaluated wide where it overflows) returned float64 for float32
inputs (pi is a float64 constant), so the engine measured no cancellation and made no
Taylor branch: the C kernels' f' was 0.00098 at x = 0.9999 in float32 (3.3e-4).

Judged at the corpus's sample points (including the point itself, its neighbouring
floats and offsets 1e-6 .. 1e-2) against SymPy + mpmath references
(``tests/robust/corpus_reference.py``), under issue 8's rule.
"""

from __future__ import annotations

import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import (
    assert_published_meets_rule,
)

CASES = (
    Published("sinc_at_one", "sin(x - 1)/(x - 1)", "test", removable=(1.0,)),
    Published("tanh_over_shift", "tanh(x - 2)/(x - 2) + x", "test", removable=(2.0,)),
    Published("sinc_at_a", "sin(x - a)/(x - a)", "test", {"a": 1.5}, removable=(1.5,)),
    Published(
        "normalized_sinc_at_one",
        "sin(pi*(x - 1))/(pi*(x - 1))",
        "test",
        removable=(1.0,),
    ),
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
    rewrite was refused and f' was NaN (inf - inf) from x = 90 on. (Between 89 and
    92, where exp(x - 1) itself overflows before the quotient, see
    test_shifted_exponentials.)"""
    entry = Published("exprel_at_one", "expm1(x - 1)/(x - 1)", "test", removable=(1.0,))
    assert_published_meets_rule(entry, backend, "float32")
