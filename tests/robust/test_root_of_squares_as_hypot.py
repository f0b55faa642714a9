"""A square root of a sum of two squares as ``hypot`` (``symnb.robust.hypot``).

Charbonnier's loss sqrt(x**2 + e**2) with e = 1e-33: in float32 both squares are 0
from |x| = 1e-23, and f' = x/sqrt(x**2 + e**2) was -inf at x = -1e-25 where it is -1;
SMU-1 (Biswas et al. 2022), ((1 + a) x + sqrt(((1 - a) x)**2 + mu**2))/2, with a small
mu had the same f' (-inf instead of 2.5e-23 at x = -1e-25). Judged against SymPy +
mpmath of the typed text over the whole float range (``text_judge.rule_problems_of``).
"""

from __future__ import annotations

import pytest

from tests.conftest import backend_params
from tests.robust.text_judge import rule_problems_of

CASES = [
    ("sqrt(x**2 + e**2)", {"e": 1e-33}),
    ("((1 + a)*x + sqrt(((1 - a)*x)**2 + mu**2))/2", {"a": 0.25, "mu": 1e-36}),
]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_roots_of_two_tiny_squares_meet_the_rule(dtype, backend):
    failures = []
    for text, constants in CASES:
        problems = rule_problems_of(text, backend, dtype, constants)
        if problems:
            failures.append(f"{text} {constants}:\n" + "\n".join(problems))
    assert not failures, f"{backend} {dtype}:\n" + "\n".join(failures)
