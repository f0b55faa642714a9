"""The printer's `*_neg` helpers only where an ordered comparison proves u <= 0.

A false Eq(u, 0) (the guard of a removable singularity's limit) was read as "u <= 0":
exp(x) in the other branch was printed as symnb_exp_neg, and f' of log(expm1(x)) was
-0.0 instead of 1 from x = 80 to 88 in float32 and 600 to 709 in float64.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb


@pytest.mark.parametrize("text", ["log(exp(x) - 1)", "log(expm1(x))"])
@pytest.mark.parametrize(
    ("dtype", "xs"),
    [
        ("float32", [0.5, 30.0, 80.0, 85.0, 88.0]),
        ("float64", [0.5, 30.0, 600.0, 650.0, 700.0, 709.0]),
    ],
)
def test_log_expm1_derivative_near_the_overflow(text, dtype, xs):
    st = symnb.backends.status("cpp")
    if not st.usable:
        pytest.skip(f"cpp backend: {st.reason}")
    x = np.array(xs, dtype=dtype)
    k = symnb.Activation(text).compile(backend="cpp", dtype=dtype)
    _, df = k.forward_with_derivative(x)
    with mpmath.workdps(40):
        want = [float(1 / (1 - mpmath.exp(-mpmath.mpf(float(v))))) for v in x]
    np.testing.assert_allclose(df, want, rtol=4 * np.finfo(dtype).eps)
