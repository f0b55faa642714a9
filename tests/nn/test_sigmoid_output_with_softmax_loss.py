"""MLP([.., 3], loss='cross_entropy', output='sigmoid') was built and trained: the
sigmoid squashed the logits into (0, 1) before the softmax, so no class probability
could pass e / (e + C - 1) (0.58 for three classes) however well it trained, and the
loss could not approach 0. Refused now, as a sigmoid before bce_with_logits is."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symnb.nn import MLP

torch = pytest.importorskip("torch", reason="needs the torch extra (symnb[torch])")


@pytest.mark.parametrize("classes", [3, 5])
def test_the_cap_in_the_message_is_the_real_one(classes) -> None:
    # the most confident logits a sigmoid lets through: 1 for one class, 0 others
    z = torch.full((1, classes), -40.0)
    z[0, 0] = 40.0
    best = torch.softmax(torch.sigmoid(z), dim=1).max().item()
    with pytest.raises(ValueError) as info:
        MLP([2, 4, classes], loss="cross_entropy", output="sigmoid", backend="numpy")
    message = str(info.value)
    assert "output='sigmoid' with loss='cross_entropy'" in message
    assert f"= {best:.2f}" in message
    assert best == pytest.approx(math.e / (math.e + classes - 1), rel=1e-6)


def test_one_sigmoid_neuron_in_a_per_neuron_output_is_refused() -> None:
    with pytest.raises(ValueError, match="squashes the logits"):
        MLP(
            [2, 4, 3],
            task="multiclass",
            loss="cross_entropy",
            output=["identity", "sigmoid", "identity"],
            backend="numpy",
        )


def test_a_linear_output_still_trains_confidently() -> None:
    X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]] * 10)
    y = np.array([0, 1, 2] * 10)
    model = MLP([2, 8, 3], loss="cross_entropy", backend="numpy", seed=0)
    model.fit(X, y, epochs=300, lr=0.05)
    assert model.predict_proba(X).max() > 0.9
