"""Near and at 0 from the side where a formula's terms overflow or underflow together.

exp(1/x)' = -exp(1/x)/x**2 was 0/0 = NaN at x = -0.0 and from x = -1e-25 in float32
(-1e-168 in float64), where it is 0: exp(1/x) and x**2 both underflow. x**-3 + x**-2
was inf - inf = NaN at -0.0 and from x = -1e-22 in float32 (-1e-160 in float64), where
it is -1e66 (float -inf); its derivative too. At 0 itself SymPy's limit is from the
right, and with two different one-sided limits no branch was made, so the direct
formula's IEEE value (NaN) stood. Now a side whose IEEE value is not its one-sided limit
gets a branch at that signed zero (1/x < 0 tells -0.0 apart), and the engine divides
exp(u)/x**k one x at a time and writes sums of negative powers in Horner form in 1/x.

Judged at the corpus's sample points (but x = 0, where these have no two-sided limit
and the reference is undefined) against SymPy + mpmath references under issue 8's rule,
and at +-0.0 against mpmath at x = +-1e-1000 (the one-sided limit, rounded to a float).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import symnb
from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import (
    assert_lowered_cuda_compiles,
    published_references,
    rule_problems,
)

CASES = (
    Published("exp_reciprocal", "exp(1/x)", "test"),
    Published("reciprocal_powers", "x**-3 + 1/x**2", "test"),
    Published("reciprocal_powers_even", "2/x**2 - 1/x**4", "test"),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_near_zero_meets_the_rule(entry, dtype, backend):
    xs, check_df, ref = published_references(entry)[dtype]
    keep = xs != 0
    xs, check_df, ref = xs[keep], check_df[keep], ref.take(keep)
    kernel = symnb.Activation(entry.text).compile(backend=backend, dtype=dtype)
    problems = rule_problems(kernel, xs, check_df, ref, dtype)
    assert not problems, f"{entry.text} on {backend} {dtype}:\n" + "\n".join(problems)


def _one_sided(text: str, side: int) -> tuple[float, float]:
    """f and f' at x = side*1e-1000 with mpmath, as floats (+-inf past the range)."""
    x = sp.Symbol("x", real=True)
    f = sp.sympify(text, locals={"x": x})
    fns = [sp.lambdify(x, e, modules="mpmath") for e in (f, sp.diff(f, x))]
    with mpmath.workdps(50):
        return tuple(float(fn(side * mpmath.mpf("1e-1000"))) for fn in fns)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_signed_zero_gives_the_one_sided_limit(entry, dtype, backend):
    kernel = symnb.Activation(entry.text).compile(backend=backend, dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(np.array([-0.0, 0.0], dtype=dtype))
    for i, side in enumerate((-1, 1)):
        want_f, want_df = _one_sided(entry.text, side)
        assert y[i] == want_f, (entry.text, side, y[i], want_f)
        assert dy[i] == want_df, (entry.text, side, dy[i], want_df)


def test_a_side_the_direct_formula_gets_right_has_no_branch():
    # exp(1/x) is 0 at -0.0 and inf at +0.0 by IEEE already: the formula reads as typed
    assert symnb.Activation("exp(1/x)").expr == sp.exp(1 / sp.Symbol("x", real=True))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cuda_kernels_of_the_branches_compile(dtype):
    assert_lowered_cuda_compiles(CASES, dtype)
