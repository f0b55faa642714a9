"""An optimizer given the same weights twice, ``SGD(params + params)``, took every
step twice (twice the learning rate; Adam's moments updated twice per step) without
a word; PyTorch warns of it. Now a ValueError names both positions."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLP, SGD, Adam, Parameter


def _param(name: str, data: np.ndarray) -> Parameter:
    return Parameter(name, data, np.ones_like(data))


@pytest.mark.parametrize("optimizer", [SGD, Adam])
def test_the_same_parameter_twice_is_refused(optimizer) -> None:
    params = list(MLP([2, 3, 1], backend="numpy").parameters())
    with pytest.raises(ValueError, match=r"parameters 0 and \d+ are the same weights"):
        optimizer(params + params[:1])


def test_two_parameters_over_one_array_are_refused() -> None:
    buffer = np.zeros(6)
    a = _param("a", buffer[:4])
    b = _param("b", buffer[2:])  # overlaps a
    with pytest.raises(ValueError, match=r"parameters 0 and 1 are the same weights"):
        SGD([a, b], lr=0.1)


def test_distinct_views_of_one_buffer_step_once() -> None:
    buffer = np.zeros(6)
    a = _param("a", buffer[:3])
    b = _param("b", buffer[3:])
    b.grad[:] = 2.0
    SGD([a, b], lr=0.1).step()
    # plain gradient descent, one step: w - lr * g
    np.testing.assert_allclose(buffer, [-0.1, -0.1, -0.1, -0.2, -0.2, -0.2])
