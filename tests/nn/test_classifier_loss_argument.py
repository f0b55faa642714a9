"""``MLPClassifier(loss=...)``: with two classes a loss name other than bce (say
``'mse'``) made the network a regressor, whose float predictions then indexed
``classes_`` (``IndexError: arrays used as indices must be of integer type`` from
predict and score, after training); with three or more classes any loss was
ignored without a word (softmax cross-entropy trained). Both are now a ValueError
before training; bce, bce_with_logits, cross_entropy (3+ classes) and a
symnb.Loss (two classes, on the logits) still train."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.nn import MLPClassifier

X = np.random.RandomState(0).randn(60, 2)
Y2 = (X[:, 0] > 0).astype(int)
Y3 = np.arange(60) % 3
FAST = {"epochs": 2, "backend": "numpy"}


@pytest.mark.parametrize("loss", ["mse", "mae", "hinge", "cross_entropy", "nope"])
def test_two_classes_refuse_a_loss_that_is_not_for_them(loss) -> None:
    with pytest.raises(ValueError, match="is not a loss for two classes"):
        MLPClassifier(loss=loss, **FAST).fit(X, Y2)


@pytest.mark.parametrize("loss", ["mse", "bce_with_logits", symnb.loss("mse")])
def test_more_classes_refuse_a_loss_that_would_be_ignored(loss) -> None:
    with pytest.raises(ValueError, match="is for two classes, but y has 3"):
        MLPClassifier(loss=loss, **FAST).fit(X, Y3)


@pytest.mark.parametrize(
    ("loss", "y"),
    [
        (None, Y2),
        ("bce", Y2),
        ("BCE_with_logits", Y2),
        (symnb.loss("bce_with_logits"), Y2),
        (None, Y3),
        ("cross_entropy", Y3),
    ],
)
def test_classification_losses_train(loss, y) -> None:
    clf = MLPClassifier(loss=loss, **FAST).fit(X, y)
    predicted = clf.predict(X)
    assert set(predicted) <= set(y)
    assert 0.0 <= clf.score(X, y) <= 1.0
