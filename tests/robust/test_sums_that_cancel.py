"""Sums whose rounding decided the value: terms of x that cancel, a small constant.

- ``1 - (x*y + s)/(x + y - x*y + s)`` (soft Jaccard of one element, target y = 1,
  s = 1e-8): its f' is -1/(1 + s) at every x, but ``x + y - x*y`` summed term by term
  cancelled to 0 at large |x|: f' was -inf from x = -1e19 in float32. The multiples of x
  are now added as one, x*(1 - y) (rewrite ``collect_linear_terms``).
- ``-(y*log(x + eps) + (1 - y)*log(1 - x + eps))`` (log-loss of a probability with an
  eps, y = 0.7): in SymPy's order ``(eps - x) + 1`` the eps was lost to the rounding of
  eps - x, f was inf at x = 1 in float32 where it is 8.3, and f' inf in float64 where
  it is 3e11. The terms with x and the numbers are now added first, ``(1 - x) + eps``
  (rewrite ``sum_numbers_with_variable``). eps = 2^-40, a float32 holds exactly: a
  rounded eps moves the pole off -eps.

Judged at the corpus's sample points against SymPy + mpmath references
(``tests/robust/corpus_reference.py``) under issue 8's rule.
"""

from __future__ import annotations

import pytest

from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import assert_published_meets_rule

_EPS = 2.0**-40

CASES = (
    Published(
        "soft_jaccard_target_one",
        "1 - (x*y + s)/(x + y - x*y + s)",
        "test",
        {"y": 1.0, "s": 1e-8},
    ),
    Published(
        "log_loss_with_eps",
        "-(y*log(x + eps) + (1 - y)*log(1 - x + eps))",
        "test",
        {"y": 0.7, "eps": _EPS},
        kinks=(-_EPS, 1 + _EPS),
    ),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_sums_keep_what_their_rounding_lost(entry, dtype, backend):
    assert_published_meets_rule(entry, backend, dtype)
