"""set_flat_parameters with values beyond the network's float32 (1e300) said
"parameters must be finite", though they are finite (they overflowed in the cast, with
NumPy's "overflow encountered in cast"). Now the message names the position, the value
and the fix; NaN/inf keep "must be finite"; values below float32's range still round
to 0 (harmless for weights)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from symnb.nn import MLP


def test_overflowing_value_is_named() -> None:
    model = MLP([2, 3, 1])
    values = np.ones(model.n_parameters)
    values[4] = 1e300
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"values\[4\] is 1e\+300: it is beyond"):
            model.set_flat_parameters(values)
    assert np.all(model.get_flat_parameters() != 1.0)  # untouched (initial values)


def test_nan_still_must_be_finite_and_tiny_values_round() -> None:
    model = MLP([2, 3, 1])
    values = np.ones(model.n_parameters)
    values[0] = np.nan
    with pytest.raises(ValueError, match=r"values\[0\] is nan: parameters must be"):
        model.set_flat_parameters(values)
    values[0] = 1e-50
    model.set_flat_parameters(values)
    assert model.get_flat_parameters()[0] == 0.0
