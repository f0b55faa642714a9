"""The in-process program cache keys on the constants' values, not the formula alone.

The forms are lowered (``symnb.robust``) at the constants' values, and one formula may
lower to another form at other values. Keyed on the formula alone, a process that had
compiled ``x*sigmoid(beta*x)`` with beta = 1.0 gave beta = 1.5 that form (right, but
rounded otherwise than a fresh process), so a Dask sweep's rows differed from the serial
rows (tests/nn/test_sweep_dask.py failed after tests that compiled that swish).

Which formulas lower differently at two values changes as the engine learns (swish no
longer does), so the test takes the first of a few candidates that does, and fails if
none does: then it could not show anything, and needs a new candidate.
"""

import warnings

import numpy as np

import symnb
from symnb.backends import select

# (formula, value compiled first, value asked for after)
CANDIDATES = [
    ("sin(beta*x)", 1.0, 1.5),
    ("x + beta*exp(-beta*x**2)", 1.0, 0.5),
    ("x*sigmoid(beta*x)", 1.0, 1.5),
]


def _fresh(text: str, beta: float):
    select._programs.clear()
    return symnb.Activation(text, beta=beta).compile(backend="numpy")


def _a_formula_that_lowers_differently():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for text, first, then in CANDIDATES:
            if (
                _fresh(text, first)._program.source
                != _fresh(text, then)._program.source
            ):
                return text, first, then
    raise AssertionError(
        "none of CANDIDATES lowers to another program at its two values; add one that does"
    )


def test_a_formula_at_other_values_gets_the_program_a_fresh_process_gets():
    text, first, then = _a_formula_that_lowers_differently()
    want = _fresh(text, then)._program.source
    _fresh(text, first)  # now the first value is cached: the second must not reuse it
    got = symnb.Activation(text, beta=then).compile(backend="numpy")
    assert got._program.source == want
    x = np.linspace(-30, 30, 101).astype(np.float32)
    np.testing.assert_array_equal(
        got.backward(x, np.ones_like(x)),
        _fresh(text, then).backward(x, np.ones_like(x)),
    )
