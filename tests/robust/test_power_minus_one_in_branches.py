"""``(1 + w)**q - 1`` inside a Piecewise branch whose condition makes ``1 + w``
nonnegative: the branch's condition (and the earlier conditions' failing) gives the
variable a sign, so the rewrite to ``expm1(q*log1p(w))`` holds there even for a
constant q that may train to an integer.

Found with the Yeo-Johnson transform (Yeo and Johnson, Biometrika 2000) as typed,
``where(x >= 0, ((x + 1)**lam - 1)/lam, -((1 - x)**(2 - lam) - 1)/(2 - lam))``: at
lam = 1e-9 f was 0 for 0 < x < 2e-6 in float32 and x < 1e-9 in float64 (the value is
about x); the power rounds to 1 and the subtraction cancels.

Judged at the corpus's sample points against SymPy + mpmath references
(``tests/robust/corpus_reference.py``) under issue 8's rule.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.robust.corpus import Published
from tests.robust.test_corpus import assert_published_meets_rule

_SOURCE = "Yeo and Johnson 2000, power transform pieces"

CASES = (
    Published(
        "yeo_johnson_positive_piece",
        "where(x >= 0, ((x + 1)**lam - 1)/lam, x)",
        _SOURCE,
        {"lam": 1e-9},
        kinks=(0.0,),
    ),
    Published(
        "yeo_johnson_negative_piece_first",
        "where(x < 0, ((1 - x)**a - 1)/a, 0)",
        _SOURCE,
        {"a": 1e-7},
        kinks=(0.0,),
    ),
    Published(
        "box_cox_after_an_earlier_branch",
        "where(x <= 0, x, ((1 + x)**lam - 1)/lam)",
        _SOURCE,
        {"lam": 1e-9},
        kinks=(0.0,),
    ),
)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_power_minus_one_in_a_signed_branch_meets_the_rule(entry, dtype):
    assert_published_meets_rule(entry, "numpy", dtype)


def test_a_condition_that_gives_no_sign_keeps_the_power():
    """x > -2 does not make 1 + x nonnegative: k = 2 after training is -0.75 at
    x = -1.5, where expm1(k*log1p(x)) would be NaN."""
    act = symnb.Activation("where(x > -2, (1 + x)**k - 1, 0)", k=2.5)
    assert "expm1" not in str(act.internal.f)
    kernel = act.compile(backend="numpy", dtype="float64")
    kernel.set_constants(k=2.0)
    assert kernel.forward(np.array([-1.5]))[0] == pytest.approx(-0.75)
