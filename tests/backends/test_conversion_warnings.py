"""The warning a kernel gives when it converts an input's dtype advises only what
works: ``dtype='float16'`` and ``dtype='>f4'`` are no kernel dtypes (compiling with
them raises), so those inputs get other advice; the values are right either way."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symnb


def _warning_for(x):
    kernel = symnb.Activation("x*tanh(x)").compile(backend="numpy")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = kernel.forward(x)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1
    want = kernel.forward(np.ascontiguousarray(x, dtype=np.float32))
    assert y.dtype == np.float32 and np.array_equal(y, want)
    return messages[0]


@pytest.mark.parametrize("dtype", [">f4", ">f8", "f2"])
def test_no_advice_to_compile_for_an_impossible_dtype(dtype):
    x = np.linspace(-3, 3, 13).astype(dtype)
    message = _warning_for(x)
    assert "compile with dtype" not in message
    big_endian = dtype.startswith(">")
    advice = "astype('float32')" if big_endian else "float32 and float64 only"
    assert advice in message


def test_float64_input_still_advises_a_float64_kernel():
    message = _warning_for(np.linspace(-3, 3, 13))
    assert "compile with dtype='float64' to avoid the copy" in message
    symnb.Activation("x*tanh(x)").compile(backend="numpy", dtype="float64")
