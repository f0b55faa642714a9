"""At 0, an infinite limit is a branch only when both one-sided limits agree.

``1/x``, ``1/sin(x)``, ``1/(exp(x) - 1)`` and ``exp(1/x)`` have different limits from
the left and from the right at 0. SymPy's limit is from the right, so f got a branch
f(0) = oo: f(-0.0) was +inf (IEEE and the limit from the left: -inf, or 0 for
exp(1/x)) and the LaTeX showed "oo for x = 0". The direct formula's IEEE value at +-0
is the one-sided limit; ``1/x**2`` (+oo from both sides) keeps its branch.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symnb

CASES = {
    "1/x": lambda x: 1 / x,
    "1/sin(x)": lambda x: 1 / np.sin(x),
    "1/(exp(x) - 1)": lambda x: 1 / np.expm1(x),
    "exp(1/x)": lambda x: np.exp(1 / x),
}


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", list(CASES))
def test_signed_zero_gives_the_one_sided_limit(text, dtype, backend):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        act = symnb.Activation(text)
    assert "infty" not in act.latex
    xs = np.array([0.0, -0.0], dtype=dtype)
    with np.errstate(all="ignore"):
        got = act.compile(backend=backend, dtype=dtype).forward(xs)
        want = CASES[text](xs.astype(np.float64))  # +inf, then -inf (0 for exp(1/x))
    np.testing.assert_array_equal(got, want.astype(dtype))


def test_a_two_sided_infinite_limit_keeps_its_branch():
    act = symnb.Activation("1/x**2")
    k = act.compile(backend="numpy", dtype="float64")
    assert k.forward(np.array([0.0, -0.0])).tolist() == [np.inf, np.inf]
    assert "infty" in act.latex
