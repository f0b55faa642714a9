"""exp(x - a) - 1 over x - a: SymPy splits exp(x - 0.5) into 0.6065*exp(x) as it
parses, so the typed ``(exp(x - 0.5) - 1)/(x - 0.5)`` reached symnb as
``(0.6065*exp(x) - 1)/(x - 0.5)``: no expm1 rewrite (the sum is not exp(u) - 1) and no
limit at 0.5 (the numerator is not 0 there in floats). f was NaN at x = 0.5 (inf on
cpp float64), 2.0 instead of 1 at the neighbouring float64s, f' 0.0 instead of 0.49997
at x = 0.4999 in float32. The printers' Float conversion split the exponential again
(exp(x - 1/2) became 0.6065*exp(x) inside any product), so f' was inf - inf = NaN from
x = 745 in float64 after the rewrite too.

Judged at the corpus's sample points against SymPy + mpmath references
(``tests/robust/corpus_reference.py``) under issue 8's rule, over the whole float
range. Two more defects of the class were in the band where exp(x - a) overflows but
the quotient does not: expm1(x - 1)/(x - 1) was inf at x = 90 in float32 (5.0e36; the
engine measured exp's overflow edges for exp(x) only, so never saw x - 1 cross them),
and (1 - exp(0.25 - x))/(x - 0.25)' was NaN (inf - inf) at x = -89 in float32 and
-710 in float64 (its exp-of-logs form was never found: SymPy keeps exp(1/4 - x)*exp(x
- 1/4) apart, so the dominant exponential did not leave the sum).
"""

from __future__ import annotations

import pytest

from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import (
    assert_lowered_cuda_compiles,
    assert_published_meets_rule,
)

CASES = (
    Published(
        "expm1_shift_half", "(exp(x - 0.5) - 1)/(x - 0.5)", "test", removable=(0.5,)
    ),
    Published("expm1_shift_scaled", "3*(exp(x + 1.5) - 1)", "test"),
    Published("expm1_of_shift", "expm1(x - 1)/(x - 1)", "test", removable=(1.0,)),
    Published(
        "one_minus_exp_shift",
        "(1 - exp(0.25 - x))/(x - 0.25)",
        "test",
        removable=(0.25,),
    ),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_shifted_exponential_minus_one_meets_the_rule(entry, dtype, backend):
    assert_published_meets_rule(entry, backend, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cuda_kernels_of_the_lowered_forms_compile(dtype):
    assert_lowered_cuda_compiles(CASES[2:], dtype)
