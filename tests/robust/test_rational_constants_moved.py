"""A rational activation whose constants moved away from the analysed ones (training).

The asymptote regimes of a rational function (PAU's "safe" form
P(x)/(1 + |b1 x| + |b2 x^2| + ...)) applied only while the constants equal the values
they were analysed at: with ``a3 = 0.31, b2 = 1.4`` instead of ``0.3, 1.5`` the (3,2)
form was NaN from |x| = 1e20 in float32 (x**3 and x**2 overflow: inf/inf). Its large-|x|
form now keeps the constants as symbols, numerator and denominator divided by x**m
(``regimes.symbolic_rational_tail``), exact for every value of them. Judged as the corpus
is (mpmath references over the whole float range, ``corpus_reference``) at the moved
constants, set on the compiled kernel (``Kernel.set_constants``, as training does).

The far forms are rare branches (``symnb.codegen.rare``): the C++ kernels compute them
in a second pass only for the elements past their thresholds, so PAU 5/4 (the
benchmark's, ``benchmarks/bench_torch.py``) is as fast as without them.
"""

from __future__ import annotations

import pytest

from tests.conftest import backend_params
from tests.robust.text_judge import rule_problems_of

PAU_3_2 = "(a0 + a1*x + a2*x**2 + a3*x**3)/(1 + abs(b1*x) + abs(b2*x**2))"
PAU_4_3 = (
    "(a0 + a1*x + a2*x**2 + a3*x**3 + a4*x**4)"
    "/(1 + abs(b1*x) + abs(b2*x**2) + abs(b3*x**3))"
)
PAU_5_4 = (
    "(a0 + a1*x + a2*x**2 + a3*x**3 + a4*x**4 + a5*x**5)"
    "/(1 + abs(b1*x) + abs(b2*x**2) + abs(b3*x**3) + abs(b4*x**4))"
)
ANALYSED = {
    PAU_3_2: {"a0": 0.02, "a1": 0.5, "a2": 1.2, "a3": 0.3, "b1": 0.8, "b2": 1.5},
    PAU_4_3: {
        "a0": 0.02,
        "a1": 0.5,
        "a2": 1.2,
        "a3": 0.3,
        "a4": 0.05,
        "b1": 0.8,
        "b2": 1.5,
        "b3": 0.2,
    },
    PAU_5_4: {
        "a0": 0.0298,
        "a1": 0.6184,
        "a2": 2.3233,
        "a3": 3.0520,
        "a4": 1.4854,
        "a5": 0.2510,
        "b1": 1.1420,
        "b2": 4.3934,
        "b3": 0.8715,
        "b4": 0.3472,
    },
}
MOVED = {
    PAU_3_2: [{"a3": 0.31, "b2": 1.4}, {"a1": -0.2, "a3": -0.7, "b1": 2.0}],
    PAU_4_3: [{"a4": 0.06, "b3": 0.25}, {"a2": -1.0, "b1": 0.0}],
    PAU_5_4: [{"a5": 0.26, "b4": 0.35}, {"a5": -0.3, "a4": 0.0, "b2": 2.0}],
}
CASES = [(text, i) for text in MOVED for i in range(len(MOVED[text]))]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text,i", CASES)
def test_moved_constants_keep_the_tail_finite(text, i, dtype, backend):
    # compiled for the analysed constants, then moved as training moves them
    moved = MOVED[text][i]
    problems = rule_problems_of(text, backend, dtype, ANALYSED[text], moved)
    assert not problems, f"{text} {moved} on {backend} {dtype}:\n" + "\n".join(problems)
