"""MLP.loss_and_gradient took any l1/l2: l1=nan returned an all-NaN gradient, l1=-1
the gradient of a penalty that rewards large weights, l2="x" failed inside NumPy,
while train_step and train_epoch refused them. Now the same ValueError/TypeError
naming the argument; valid penalties add their gradient as PyTorch computes it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symnb.nn import MLP

torch = pytest.importorskip("torch", reason="needs the torch extra (symnb[torch])")


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.random((12, 2))
    return X, X.sum(1)


@pytest.mark.parametrize(
    ("kw", "error", "message"),
    [
        ({"l1": math.nan}, ValueError, r"l1 must be a finite number >= 0, got nan"),
        ({"l1": -1.0}, ValueError, r"l1 must be a finite number >= 0"),
        ({"l2": math.inf}, ValueError, r"l2 must be a finite number >= 0"),
        ({"l2": "x"}, TypeError, r"l2"),
    ],
)
def test_bad_penalties_are_refused(data, kw, error, message) -> None:
    model = MLP([2, 3, 1], backend="numpy", dtype="float64")
    with pytest.raises(error, match=message):
        model.loss_and_gradient(*data, **kw)


def test_the_penalty_gradients_match_pytorch(data) -> None:
    """The documented penalty: gradient l1*sign(w) + l2*w on the weights (the
    gradient of l1*sum|w| + l2/2*sum w^2), none on the biases."""
    X, y = data
    model = MLP([2, 3, 1], backend="numpy", dtype="float64", seed=1)
    _, plain = model.loss_and_gradient(X, y)
    _, penalised = model.loss_and_gradient(X, y, l1=0.1, l2=0.25)
    n_weights = 2 * 3 + 3 * 1  # the flat layout holds the weights first
    w = torch.tensor(model.get_flat_parameters()[:n_weights], requires_grad=True)
    (0.1 * w.abs().sum() + 0.125 * (w**2).sum()).backward()
    difference = penalised - plain
    np.testing.assert_allclose(difference[:n_weights], w.grad.numpy(), rtol=1e-9)
    np.testing.assert_array_equal(difference[n_weights:], 0.0)
