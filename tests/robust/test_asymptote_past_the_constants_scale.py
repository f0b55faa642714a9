"""A line asymptote that starts past the constants' scale.

``sqrt(x**2 + eps**2) - eps`` (the Charbonnier penalty shifted to 0 at 0) with
eps = 1e10: its cancellation-free form x**2/(eps + sqrt(eps**2 + x**2)) is inf/inf =
NaN from |x| = 1e21 in float32 (x**2 overflows) and 1e155 in float64, where f is
|x| - eps. The asymptote was read off 1e8 to 1e12 only, where this function still
bends (|x| ~ eps), so none was found; it is now also read off eight and sixteen decades
farther out (``regimes.numeric_asymptote``).

Judged at the corpus's sample points against SymPy + mpmath references
(``tests/robust/corpus_reference.py``) under issue 8's rule.
"""

from __future__ import annotations

import pytest

from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import assert_published_meets_rule

CASES = (
    Published(
        "charbonnier_shifted_large_eps",
        "sqrt(x**2 + eps**2) - eps",
        "Charbonnier et al. 1994, shifted, eps = 1e10",
        {"eps": 1e10},
    ),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_far_asymptote_meets_the_rule(entry, dtype, backend):
    assert_published_meets_rule(entry, backend, dtype)
