"""MLP.fit/predict with a torch tensor that requires grad, or a ragged y.

Before: torch's RuntimeError ("Can't call numpy() on Tensor that requires grad") came
out of NumPy's conversion without saying which input, and a ragged y gave NumPy's
bare "inhomogeneous shape" ValueError."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLP


def test_ragged_y_names_y():
    model = MLP([3, 4, 1], backend="numpy")
    X = np.zeros((4, 3), np.float32)
    with pytest.raises(ValueError, match="training data: y must be an array"):
        model.fit(X, [[1.0, 2.0], [3.0], [1.0], [2.0]], epochs=1)


def test_tensor_that_requires_grad_names_the_input_and_the_fix():
    torch = pytest.importorskip("torch", reason="needs the torch extra (symnb[torch])")
    model = MLP([3, 4, 1], backend="numpy")
    X = torch.randn(8, 3, requires_grad=True)
    y = torch.randn(8, requires_grad=True)
    with pytest.raises(ValueError, match=r"training data: X .*detach\(\)"):
        model.fit(X, y.detach(), epochs=1)
    with pytest.raises(ValueError, match=r"training data: y .*detach\(\)"):
        model.fit(X.detach(), y, epochs=1)
    with pytest.raises(ValueError, match=r"^X: X .*detach\(\)"):
        model.predict(X)
    model.fit(X.detach(), y.detach(), epochs=1)  # detached tensors are fine
    assert model.predict(X.detach()).shape == (8,)
