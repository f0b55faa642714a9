"""Rational activations whose quotient grows faster than a line: the numerator's top
power overflows long before the quotient does.

``(1.1915 + 1.5957*x + 0.5*x**2 + 0.0865*x**3)/(1 + abs(2.383*x))`` (a rational
activation with a safe denominator): in float64 x**3 overflows from |x| = 1.3e103
while f (about 0.036 x**2) is finite up to 7e154, so f was inf on [1.3e103, 7e154]
and NaN (inf/inf) at -1.8e308 where it is -inf; in float32 inf from |x| = 1e15 and
NaN at -3.4e38. ``(0.5 + x + 0.3*x**2 + 0.1*x**4)/(1 + abs(x))``: f' was inf - inf =
NaN from |x| = 1e27 (float32) and 1e77 (float64). Neither has a constant or linear
asymptote, so the asymptote regime found nothing; now numerator and denominator are
divided by the denominator's leading term past a measured threshold.

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
        "rational_3_1_safe",
        "(1.1915 + 1.5957*x + 0.5*x**2 + 0.0865*x**3)/(1 + abs(2.383*x))",
        "test",
        kinks=(0.0,),
    ),
    Published(
        "rational_4_1_safe",
        "(0.5 + x + 0.3*x**2 + 0.1*x**4)/(1 + abs(x))",
        "test",
        kinks=(0.0,),
    ),
    Published(
        "rational_5_2",
        "(a0 + a1*x + a5*x**5)/(1 + b2*x**2)",
        "test",
        {"a0": 0.02, "a1": 0.5, "a5": 0.001, "b2": 0.3},
    ),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_rational_activation_meets_the_rule_at_large_x(entry, dtype, backend):
    assert_published_meets_rule(entry, backend, dtype)


#: PAU 3/2 (Molina et al. 2020's safe form) with a numerator top coefficient above 1:
#: the constants-as-symbols tail was (a3*x + ...)/(|b2| + ...), and a3*x overflowed
#: from x = 1.2e38 in float32 where f = (a3/b2)*x is finite; failing there, the tail
#: was dropped altogether and f was NaN (inf - inf, inf/inf) from |x| = 1e13.
@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_growing_rational_tail_with_a_large_top_coefficient(dtype, backend):
    """PAU 3/2 (Molina et al. 2020's safe form) with a numerator top coefficient
    above 1: the constants-as-symbols tail was (a3*x + ...)/(|b2| + ...), and a3*x
    overflowed from x = 1.2e38 in float32 where f = (a3/b2)*x is finite; failing
    there, the tail was dropped altogether and f was NaN (inf/inf) from |x| = 1e13.
    f and f' against mpmath over the whole float range, at the analysed constants and
    after training moved them (the tail keeps the constants as symbols), and the
    constants' gradients."""
    from tests.robust.corpus7 import PAU_3_2, PAU_3_2_CONSTANTS
    from tests.robust.text_judge import constant_gradient_problems_of, rule_problems_of

    c = PAU_3_2_CONSTANTS
    problems = rule_problems_of(PAU_3_2, backend, dtype, c)
    moved = {"a3": 3.5, "b2": 4.0, "a2": -1.0}
    problems += rule_problems_of(PAU_3_2, backend, dtype, c, moved)
    if backend == "numpy":
        problems += constant_gradient_problems_of(PAU_3_2, backend, dtype, c)
    assert not problems, "\n".join(problems)
