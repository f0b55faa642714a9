"""A float64 input beyond float32's range (1e300) into a float32 kernel became inf
with NumPy's bare "RuntimeWarning: overflow encountered in cast", which named
neither the argument nor what to do. The conversion now warns in symnb's words,
naming the argument, how many values, the first one and where, and the fix; the
values still become +-inf (as float32 holds them) and the results follow them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symnb


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_values_beyond_float32_warn_by_name(backend) -> None:
    k = symnb.activation("relu").compile(backend=backend)
    x = np.array([[1.0, 2.0], [3.0, -1e40]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = k.forward(x)
    texts = [str(w.message) for w in caught]
    assert not any("overflow encountered" in t for t in texts), texts
    assert any(
        "x holds 1 value(s) beyond the kernel's float32 range" in t
        and "-1e+40 at index (1, 1)" in t
        and "dtype='float64'" in t
        for t in texts
    ), texts
    np.testing.assert_array_equal(y, np.maximum(x, 0).astype(np.float32))


def test_a_loss_argument_beyond_float32_is_named() -> None:
    loss = symnb.loss("mse").compile(backend="numpy")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = loss.value(np.array([1e300, 0.0]), np.array([0.0, 0.0]))
    assert value == np.inf
    assert any("y_pred holds 1 value" in str(w.message) for w in caught)


def test_values_within_range_convert_without_a_range_warning() -> None:
    k = symnb.activation("relu").compile(backend="numpy")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k.forward(np.array([1e38, -3e38, np.inf, np.nan]))
    assert not any("range" in str(w.message) for w in caught)
