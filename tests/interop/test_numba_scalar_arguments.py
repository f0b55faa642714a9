"""Activation.to_numba called from Python with something that is not a real number.

Before: an array, None, a complex or a string reached numba's type inference and came
back as a TypingError from deep inside numba ("No implementation of function
abs(array(float64, 1d, C))"), naming neither the argument nor the way out."""

from __future__ import annotations

import numpy as np
import pytest

import symnb

numba = pytest.importorskip("numba", reason="needs the numba extra (symnb[numba])")


def _swish():
    return symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.3)


@pytest.mark.parametrize("bad", [np.ones(3), None, 1 + 1j, "a"])
def test_non_scalar_x_names_the_argument_and_the_fix(bad):
    fns = _swish().to_numba()
    for fn in (fns.f, fns.df, fns.dconstants[0], fns.bind(beta=2.0).f):
        with pytest.raises(TypeError, match=r"x is .*one real number.*numba.njit"):
            fn(bad)


def test_non_scalar_constant_is_named():
    with pytest.raises(TypeError, match=r"beta is an array of shape \(2,\)"):
        _swish().to_numba().f(1.0, np.ones(2))


def test_scalars_and_njit_use_still_work():
    fns = _swish().to_numba()
    want = 1.5 / (1 + np.exp(-1.3 * 1.5))
    for x in (1.5, np.float32(1.5), np.float64(1.5)):
        assert fns.f(x) == pytest.approx(want, rel=1e-7)
    assert fns.f(2) == pytest.approx(2 / (1 + np.exp(-2.6)), rel=1e-12)
    f = fns.f

    @numba.njit
    def run(x):
        out = np.empty_like(x)
        for i in range(x.size):
            out[i] = f(x[i], 1.3)
        return out

    x = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(run(x), x / (1 + np.exp(-1.3 * x)), rtol=1e-12)
