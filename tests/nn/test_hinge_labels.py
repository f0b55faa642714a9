"""The hinge loss takes labels -1 and +1; 0/1 labels are refused before training.

Before, ``MLP(..., loss="hinge").fit(X, y)`` with 0/1 labels trained without a word:
max(0, 1 - y_pred*0) is the constant 1 for every sample of class 0 (no gradient), so
the network learned to push every output up and called everything class 1 (the
library documents "labels in {-1, +1}", as scikit-learn's hinge and PyTorch's
HingeEmbeddingLoss). Expected: a ValueError naming the row and the fix 2*y - 1; labels
-1/+1 train as before.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import datasets
from symnb.nn import MLP


@pytest.fixture(scope="module")
def moons():
    return datasets.two_moons(128, seed=0)


@pytest.mark.parametrize(
    "loss",
    ["hinge", "library_object", "same_formula"],
)
def test_zero_one_labels_are_refused_before_training(moons, loss):
    spec = {
        "hinge": "hinge",
        "library_object": symnb.loss("hinge"),
        "same_formula": symnb.Loss("max(0, 1 - y_pred*y_true)", name="my_hinge"),
    }[loss]
    X, y = moons
    model = MLP([2, 8, 1], "tanh", loss=spec)
    before = model.get_flat_parameters()
    with pytest.raises(
        ValueError, match=r"takes labels -1 and \+1.*row 0 is 0\.0.*2\*y - 1"
    ):
        model.fit(X, y, epochs=1)
    with pytest.raises(ValueError, match=r"^validation data: loss"):
        model.fit(X, 2 * y - 1, epochs=1, validation_data=(X, y))
    with pytest.raises(ValueError, match=r"^evaluation data: loss"):
        model.evaluate(X, y)
    np.testing.assert_array_equal(model.get_flat_parameters(), before)
    assert model.epochs_trained == 0


def test_plus_minus_one_labels_train_and_separate_the_classes(moons):
    X, y = moons
    model = MLP([2, 16, 1], "tanh", loss="hinge", seed=0)
    labels = 2 * y - 1
    history = model.fit(X, labels, epochs=40, batch_size=16, lr=0.02)
    assert history.stop_reason == "completed"
    scores = model.decision_function(X)[:, 0]
    assert np.mean(np.sign(scores) == labels) > 0.8


def test_other_losses_take_any_targets(moons):
    X, y = moons
    MLP([2, 4, 1], loss="mae").fit(X, 3 * y - 7, epochs=1)
    MLP([2, 4, 1], loss=symnb.Loss("max(0, 2 - y_pred*y_true)")).fit(X, y, epochs=1)
