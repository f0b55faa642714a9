"""f and f' of a formula as its compiled kernel computes them, for the reference tests."""

from __future__ import annotations

import numpy as np

import symnb


def kernel_values(
    text: str, backend: str, dtype: str, points, **constants: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, f(x), f'(x)): ``points`` rounded to dtype and both outputs of
    ``forward_with_derivative`` (overflow and invalid-value warnings silenced) of the
    formula with ``constants``."""
    act = symnb.Activation(text, **constants)
    kernel = act.compile(backend=backend, dtype=dtype)
    x = np.asarray(points, dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(x)
    return x, y, dy


def assert_value(got: float, want: float, dtype: str, at: float) -> None:
    """``got`` within issue 8's relative tolerance of the reference ``want`` (2e-5 in
    float32, 1e-9 in float64), or the right-signed inf where ``want`` is beyond the
    dtype's range; ``at`` (the input) names the point in the failure."""
    import pytest

    if abs(want) > float(np.finfo(dtype).max):
        assert np.isinf(got) and np.sign(got) == np.sign(want), at
    else:
        rtol = 2e-5 if dtype == "float32" else 1e-9
        assert got == pytest.approx(want, rel=rtol), at
