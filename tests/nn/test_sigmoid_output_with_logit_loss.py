"""``MLP(output='sigmoid', loss='bce_with_logits')`` applied the sigmoid twice: every
probability stayed in (0.5, 0.73), every prediction was class 1, and two_moons
trained to accuracy 0.5 without a word. The combination is now refused, naming
both arguments and the two right spellings."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import datasets, nn


@pytest.mark.parametrize(
    "output",
    ["sigmoid", symnb.activation("sigmoid"), symnb.Activation("sigmoid(x)")],
    ids=["name", "library", "formula"],
)
def test_a_sigmoid_before_a_logit_loss_is_refused(output) -> None:
    with pytest.raises(ValueError) as info:
        nn.MLP([2, 4, 1], output=output, loss="bce_with_logits", backend="numpy")
    message = str(info.value)
    assert "output='sigmoid' with loss='bce_with_logits'" in message
    assert "applies the sigmoid twice" in message and "loss='bce'" in message


def test_the_estimator_refuses_it_too() -> None:
    X, y = datasets.two_moons(40, seed=0)
    clf = nn.MLPClassifier(
        hidden_layer_sizes=(4,), output_activation="sigmoid", epochs=1
    )
    with pytest.raises(ValueError, match="applies the sigmoid twice"):
        clf.fit(X, y)


@pytest.mark.parametrize(
    "options",
    [
        {"loss": "bce_with_logits"},
        {"loss": "bce", "output": "sigmoid"},
        {"loss": "bce"},
        {"loss": "bce_with_logits", "output": "tanh"},
    ],
)
def test_the_right_spellings_give_sigmoid_probabilities(options) -> None:
    """With a logit loss the probability is the sigmoid of the raw output; with
    'bce' the raw output (after the sigmoid output layer) is the probability."""
    X, _ = datasets.two_moons(20, seed=1)
    model = nn.MLP([2, 4, 1], backend="numpy", dtype="float64", seed=0, **options)
    out = model.decision_function(X).reshape(-1).astype(np.float64)
    probability = model.predict_proba(X)[:, 1]
    if options["loss"] == "bce":
        assert ((out > 0) & (out < 1)).all()
        np.testing.assert_allclose(probability, out, rtol=1e-12)
    else:
        np.testing.assert_allclose(probability, 1 / (1 + np.exp(-out)), rtol=1e-12)
