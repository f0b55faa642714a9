"""Number literals whose product is 1 give x, not 0.

``x*1e200*1e-200`` parses as 0.99999999999999998...*x (the literals' exact product);
the integral-Float step read that coefficient with ``int``, which truncates, so the
formula became f = 0 without a word. Judged against the text evaluated by Python in
float64 (the literals multiplied as floats).
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb


@pytest.mark.parametrize(
    "text",
    ["x*1e200*1e-200", "1e300*x/1e300", "x*(1e300/1e300)", "x*3e20*(1/3e20) + 1"],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_literals_multiplying_to_one(text, dtype):
    xs = np.array([-3.0, -0.5, 0.0, 0.25, 7.0], dtype=dtype)
    kernel = symnb.Activation(text).compile("numpy", dtype=dtype)
    expected = np.array([eval(text, {"x": float(v)}) for v in xs])
    np.testing.assert_allclose(kernel.forward(xs), expected, rtol=1e-6)
