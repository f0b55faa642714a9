"""The in-process program cache keys on the constants' values, not the formula alone.

The forms are lowered (``symnb.robust``) at the constants' values, and one formula may
lower to another form at other values. Keyed on the formula alone, a process that had
compiled ``x*sigmoid(beta*x)`` with beta = 1.0 gave beta = 1.5 that form (right, but
rounded otherwise than a fresh process), so a Dask sweep's rows differed from the serial
rows (tests/nn/test_sweep_dask.py failed after tests that compiled that swish).
"""

import numpy as np

import symnb
from symnb.backends import select

TEXT = "x*sigmoid(beta*x)"


def _fresh(beta: float):
    select._programs.clear()
    return symnb.Activation(TEXT, beta=beta).compile(backend="numpy")


def test_a_formula_at_other_values_gets_the_program_a_fresh_process_gets():
    want = _fresh(1.5)._program.source
    assert _fresh(1.0)._program.source != want  # the two values lower differently
    # now beta = 1.0 is cached: beta = 1.5 must not reuse it
    got = symnb.Activation(TEXT, beta=1.5).compile(backend="numpy")
    assert got._program.source == want
    x = np.linspace(-30, 30, 101).astype(np.float32)
    np.testing.assert_array_equal(
        got.backward(x, np.ones_like(x)), _fresh(1.5).backward(x, np.ones_like(x))
    )
