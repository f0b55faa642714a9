"""Optimizers check parameters given one by one: arrays they can update in place.

``SGD``/``Adam`` take ``model.parameters()`` or any sequence of objects with ``data``
and ``grad``. Before, a list or a number as ``data`` was rebound inside ``step`` and
never changed (training silently did nothing); a grad of shape (1,) was broadcast over
every weight; integer data, a grad of None, a grad of another shape and read-only data
failed inside NumPy ("Cannot cast ufunc 'multiply' output from dtype('float64') to
dtype('int64')", "output array is read-only"). The expectation for valid parameters is
PyTorch's update rule, w - lr * g for plain SGD.
"""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLP, SGD, Adam, Parameter

OPTIMIZERS = {"sgd": SGD, "adam": Adam}

BAD = {
    "list_data": ([1.0, 2.0], np.ones(2), TypeError, r"data must be a NumPy or CuPy"),
    "number_data": (1.0, np.ones(()), TypeError, r"data must be a NumPy or CuPy"),
    "none_grad": (np.ones(2), None, TypeError, r"grad must be a NumPy or CuPy"),
    "int_data": (np.ones(2, int), np.ones(2), TypeError, r"data has dtype int64"),
    "bool_grad": (np.ones(2), np.ones(2, bool), TypeError, r"grad has dtype bool"),
    "complex_data": (np.ones(2, complex), np.ones(2), TypeError, "complex128"),
    "grad_broadcast": (np.ones(3), np.ones(1), ValueError, r"grad has shape \(1,\)"),
    "grad_longer": (np.ones(3), np.ones(4), ValueError, r"grad has shape \(4,\)"),
    "grad_column": (np.ones(3), np.ones((3, 1)), ValueError, r"shape \(3, 1\)"),
}


@pytest.mark.parametrize("opt", list(OPTIMIZERS))
@pytest.mark.parametrize("case", list(BAD))
def test_parameters_that_cannot_be_updated_in_place_are_refused(opt, case):
    data, grad, error, message = BAD[case]
    with pytest.raises(
        error, match=rf"^{OPTIMIZERS[opt].__name__}: parameter 0 \('w'\): .*{message}"
    ):
        OPTIMIZERS[opt]([Parameter("w", data, grad)], lr=0.1)


@pytest.mark.parametrize("opt", list(OPTIMIZERS))
def test_read_only_data_is_refused(opt):
    data = np.ones(3)
    data.setflags(write=False)
    with pytest.raises(ValueError, match="data is read-only.*data.copy"):
        OPTIMIZERS[opt]([Parameter("w", data, np.ones(3))])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_floating_arrays_step_as_pytorch_does(dtype):
    data = np.array([1.0, -2.0, 3.0], dtype=dtype)
    grad = np.array([0.5, 0.25, -1.0], dtype=dtype)
    expected = data.astype(np.float64) - 0.1 * grad.astype(np.float64)
    strided = np.zeros(6, dtype=dtype)
    strided[::2] = data
    p = Parameter("w", strided[::2], grad)
    SGD([p], lr=0.1).step()
    np.testing.assert_allclose(
        strided[::2], expected, rtol=2e-3 if dtype == np.float16 else 1e-6
    )
    assert not strided[1::2].any()


def test_model_parameters_one_by_one_still_train():
    model = MLP([2, 3, 1], backend="numpy")
    params = list(model.parameters())
    opt = Adam(params, lr=0.01)
    X = np.random.default_rng(0).normal(size=(16, 2))
    before = model.get_flat_parameters()
    model.train_step(X, X[:, 0], opt)
    assert not np.array_equal(model.get_flat_parameters(), before)


@pytest.mark.parametrize("data", [[1.0, 2.0], 1.5])
def test_a_parameter_of_list_or_number_data_prints(data):
    """repr(Parameter('w', [1.0, 2.0], ...)) raised "'list' object has no attribute
    'shape'", so printing the list the optimizer then refused failed too."""
    p = Parameter("w", data, np.zeros(np.shape(data)))
    assert repr(p) == f"Parameter('w', shape={np.shape(data)}, kind='weight')"
    assert p.size == np.size(data)
    with pytest.raises(TypeError, match=r"parameter 0 \('w'\): data must be"):
        SGD([p])
