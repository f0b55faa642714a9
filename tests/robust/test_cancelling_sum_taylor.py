"""A sum that cancels at 0 without a denominator gets a Taylor branch there
(``regimes._cancels_at_zero``), with a radius that may reach past |x| = 1.

LINEX ``b*(exp(a*x) - a*x - 1)`` (Varian 1975) is ``b*(expm1(a*x) - a*x)``: for
small a*x the two terms cancel to (a*x)**2/2, so with a = 1e-3 float32 lost 1e-4
relative up to |x| of a few units (18 of 183 corpus points over the rule, 0.49989 for
0.49983 at x = -1). Taylor branches were made only around zeros of denominators, and
only out to distance 1. Judged against mpmath over the whole float range
(``text_judge.rule_problems_of``).
"""

from __future__ import annotations

import pytest

from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import assert_lowered_cuda_compiles
from tests.robust.text_judge import rule_problems_of

LINEX = "b*(exp(a*x) - a*x - 1)"


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "constants", [{"a": 1e-3, "b": 1e6}, {"a": 0.02, "b": 1.0}], ids=["a1e-3", "a0.02"]
)
def test_linex_meets_the_rule(constants, dtype, backend):
    problems = rule_problems_of(LINEX, backend, dtype, constants)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cuda_kernels_of_the_branch_compile(dtype):
    entry = Published("linex", LINEX, "Varian 1975", {"a": 1e-3, "b": 1e6})
    assert_lowered_cuda_compiles([entry], dtype)
