"""Judge a LaTeX formula against its published definition written in NumPy.

f of the compiled float64 kernel is compared with the reference at the points, and
f' with a central difference of the reference off the kinks at 0.
"""

from __future__ import annotations

import numpy as np

import symnb


def assert_reads_as(latex, constants, reference, xs) -> None:
    """The Activation of ``latex`` computes ``reference`` and its derivative."""
    k = symnb.Activation(latex, **constants).compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(
        k.forward(xs.copy()),
        reference(xs.copy()),
        rtol=1e-12,
        atol=1e-14,
        err_msg=latex,
    )
    h = 1e-6
    smooth = xs[np.abs(xs) > 0.05]
    slope = (reference(smooth + h) - reference(smooth - h)) / (2 * h)
    got = k.backward(smooth.copy(), np.ones_like(smooth))
    np.testing.assert_allclose(got, slope, rtol=1e-5, atol=1e-6, err_msg=latex)
