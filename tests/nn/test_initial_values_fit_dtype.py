"""Initial values that the network's dtype cannot hold: MLP([2, 3, 1], init=1e300)
(float32) started with inf weights, bias_init=1e39 with inf biases, init=1e-50 with
zero weights, all without a word (only NumPy's "overflow encountered in cast"); a bias
initialiser giving NaN or the wrong shape was taken too. Now a ValueError names the
layer, the part (init / bias_init) and the value."""

from __future__ import annotations

import re

import numpy as np
import pytest

from symnb.nn import MLP


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"init": 1e300}, "initial weights of layer 0 (init) hold 1e+300"),
        ({"init": 1e-50}, "initial weights of layer 0 (init) hold 1e-50"),
        ({"bias_init": 1e39}, "initial biases of layer 0 (bias_init) hold 1e+39"),
        ({"bias_init": [None, -1e300]}, "initial biases of layer 1 (bias_init)"),
        (
            {"init": lambda shape, rng: np.full(shape, 4e38)},
            "initial weights of layer 0",
        ),
    ],
)
def test_values_beyond_float32_are_refused(options, words) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        MLP([2, 3, 1], **options)


@pytest.mark.parametrize(
    "bias_init",
    [lambda shape, rng: np.full(shape, np.nan), lambda shape, rng: np.ones(7)],
)
def test_bias_initialiser_must_give_finite_values_of_its_shape(bias_init) -> None:
    with pytest.raises(ValueError, match="bias initialiser of layer 0 gave no finite"):
        MLP([2, 3, 1], bias_init=bias_init)


def test_values_that_fit_are_kept() -> None:
    flat = MLP([2, 3, 1], init=1e300, dtype="float64").get_flat_parameters()
    assert flat[0] == 1e300
    flat = MLP([2, 3, 1], init=0.0, bias_init=1e30).get_flat_parameters()
    np.testing.assert_array_equal(flat[:9], 0.0)
    np.testing.assert_array_equal(flat[9:], np.float32(1e30))
