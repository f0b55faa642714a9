"""log of a quotient of positive factors: log(1/(2 + x**2)) was -inf from |x| = 1.8e19
in float32 (1.3e154 in float64), where the value is about -2 log|x| (-177 at the
float32 maximum): the quotient underflows to 0 long before its logarithm leaves the
float range. It is now the sum of the factors' logarithms (log(c) - log(2 + x**2)),
each of which the engine keeps finite; PyTorch's ``torch.special.logit`` spelling of
such a quotient (log(u) - log(1 - u)) meets the rule with it.

Judged at the corpus's sample points against SymPy + mpmath references
(``tests/robust/corpus_reference.py``) under issue 8's rule.
"""

from __future__ import annotations

import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import (
    assert_lowered_cuda_compiles,
    assert_published_meets_rule,
)

CASES = (
    Published("log_reciprocal_quadratic", "log(1/(2 + x**2))", "test"),
    Published("log_scaled_quotient", "log(3/(2 + x**2)) + x", "test"),
    Published("log_negative_power", "log((1 + x**2)**-1)", "test"),
    # torch.special.logit(1/(2 + x**2)) as symnb reads it (test_spellings)
    Published("logit_of_quotient", "log(1/(2 + x**2)) - log(1 - 1/(2 + x**2))", "test"),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_log_of_a_quotient_meets_the_rule(entry, dtype, backend):
    assert_published_meets_rule(entry, backend, dtype)


def test_only_positive_factors_are_split():
    assert "log(x**2 + 2)" in str(symnb.Activation("log(1/(2 + x**2))").expr)
    # a factor of either sign (x) keeps the quotient's logarithm
    assert "log(x**2 + 2)" not in str(symnb.Activation("log(x/(2 + x**2))").expr)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cuda_kernels_of_the_rewrite_compile(dtype):
    assert_lowered_cuda_compiles(CASES, dtype)
