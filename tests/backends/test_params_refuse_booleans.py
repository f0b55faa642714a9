"""A compiled kernel's constants took booleans: ``k.params = [True]`` stored 1.0
(and ``[1.0, True]`` too, NumPy reading it as floats); ``write_params`` likewise,
while ``set_constants(a=True)`` was refused. Now each is a TypeError."""

from __future__ import annotations

import numpy as np
import pytest

import symnb


@pytest.fixture
def kernels():
    act = symnb.Activation("a*x + b", a=2.0, b=0.5)
    single = act.compile("numpy", dtype="float64")
    layer = symnb.compile_layer([act, act], backend="numpy", dtype="float64")
    return single, layer


BOOLEANS = [
    [True, False],
    np.array([True, False]),
    [1.0, True],
    [np.True_, 2.0],
    (2.0, False),
]


@pytest.mark.parametrize("value", BOOLEANS)
def test_params_refuse_booleans(kernels, value) -> None:
    for kernel in kernels:
        before = kernel.params.copy()
        size = before.size
        bad = list(value) * (size // 2) if size > 2 else value
        with pytest.raises(TypeError, match="params holds booleans"):
            kernel.params = bad
        np.testing.assert_array_equal(kernel.params, before)


@pytest.mark.parametrize("value", BOOLEANS)
def test_write_params_refuses_booleans(kernels, value) -> None:
    single, _ = kernels
    with pytest.raises(TypeError, match="write_params: values holds booleans"):
        single.write_params(value)
    np.testing.assert_array_equal(single.params, [2.0, 0.5])


def test_numbers_are_still_taken(kernels) -> None:
    single, layer = kernels
    single.params = [3, np.int8(1)]
    np.testing.assert_array_equal(single.forward(np.array([1.0, 2.0])), [4.0, 7.0])
    layer.params = np.arange(4.0)
    assert layer.params.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_complex_message_names_int_or_float(kernels) -> None:
    with pytest.raises(TypeError, match=r"real numbers \(int or float\)"):
        kernels[0].params = [1j, 2.0]
