"""Polynomials with rational roots are factored where their terms cancel.

SymPy writes smootherstep's f' (``t = clip(x, 0, 1)``) as a sum that is
30t^4 - 60t^3 + 30t^2: near t = 1 its terms cancel (float32 f' 2.74e-5 for 2.99e-5 at
x = 0.999, 8.5% off; 7 of the sample points outside the rule). Factored,
30 t^2 (t - 1)^2 is exact to rounding (``symnb/robust/factored_polynomial.py``). The
same for the seventh-order smoothstep (140 t^3 (t - 1)^3) and the double-well
potential's f' 4x(x^2 - 1) near x = 1. Judged at the corpus's sample points against
SymPy + mpmath references (``tests/robust/corpus_reference.py``) under issue 8's rule.
"""

from __future__ import annotations

import pytest
import sympy as sp

import symnb
from symnb.robust.factored_polynomial import factored_polynomials
from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import judged_references, rule_problems

CASES = (
    Published(
        "smootherstep_def",
        "def smootherstep(x):\n    t = np.clip(x, 0, 1)\n"
        "    return t**3*(t*(6*t - 15) + 10)",
        "Perlin 2002 (smootherstep), NumPy",
        kinks=(0.0, 1.0),
    ),
    Published(
        "smoothstep7_clip",
        "-20*clip(x, 0, 1)**7 + 70*clip(x, 0, 1)**6 - 84*clip(x, 0, 1)**5"
        " + 35*clip(x, 0, 1)**4",
        "seventh-order smoothstep",
        kinks=(0.0, 1.0),
    ),
    Published("double_well", "(x**2 - 1)**2", "double-well potential"),
)

#: the same functions in a form mpmath evaluates as typed (the def is Python code)
REFERENCE = {
    "smootherstep_def": "clip(x, 0, 1)**3*(clip(x, 0, 1)*(6*clip(x, 0, 1) - 15) + 10)",
}


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_polynomials_near_their_roots_meet_the_rule(entry, dtype, backend):
    xs, check_df, ref = judged_references(entry, REFERENCE)[dtype]
    kernel = symnb.Activation(entry.text).compile(backend=backend, dtype=dtype)
    problems = rule_problems(kernel, xs, check_df, ref, dtype)
    assert not problems, f"{entry.name} on {backend} {dtype}:\n" + "\n".join(problems)


def test_factoring_is_exact_and_leaves_irreducible_sums():
    x, c = sp.symbols("x c", real=True)
    t = sp.Min(1, sp.Max(0, x))
    e = 30 * t**4 - 60 * t**3 + 30 * t**2
    got = factored_polynomials(e, x)
    assert got != e and sp.expand(got - e) == 0
    assert set(sp.Mul.make_args(got)) >= {t**2, (t - 1) ** 2}
    # irreducible over the rationals, a float coefficient, no root but 0 (a power
    # of x alone), a polynomial in 1/x (Horner in 1/x keeps its signed zeros): unchanged
    for same in (
        x**2 + 1,
        6 * x**2 - 15 * x + 10,
        x**2 - 2,
        0.5 * x**2 - x,
        x**2 + x**4,
        x**-3 + x**-2,
    ):
        assert factored_polynomials(same, x) == same
    # a constant is a generator like any other: c*x**2 - c -> c (x - 1)(x + 1)
    got = factored_polynomials(c * x**2 - c, x)
    assert sp.expand(got - (c * x**2 - c)) == 0 and len(sp.Mul.make_args(got)) == 3
