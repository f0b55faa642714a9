"""f and f' of a formula as its compiled kernel computes them, for the reference tests."""

from __future__ import annotations

import numpy as np

import symnb


def kernel_values(
    text: str, backend: str, dtype: str, points
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, f(x), f'(x)): ``points`` rounded to dtype and both outputs of
    ``forward_with_derivative`` (overflow and invalid-value warnings silenced)."""
    kernel = symnb.Activation(text).compile(backend=backend, dtype=dtype)
    x = np.asarray(points, dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(x)
    return x, y, dy
