"""Classification metrics refuse values that are no class label.

``accuracy([0, 1], [0.2, 0.9])`` compared probabilities with labels and returned
0.0 (precision, recall and F1 likewise), a plausible number for a model that is in
fact right on both samples. Now a ``ValueError`` names the argument, the value, its
row and what to pass instead."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import metrics

CLASSIFICATION = [metrics.accuracy, metrics.precision, metrics.recall, metrics.f1]


@pytest.mark.parametrize("metric", CLASSIFICATION)
def test_probabilities_as_predictions_are_refused(metric) -> None:
    with pytest.raises(ValueError) as info:
        metric([0, 1, 1], [0.0, 0.9, 1.0])
    message = str(info.value)
    assert message.startswith("y_pred holds 0.9 at row 1, which is no class label")
    assert "model.predict(X)" in message and "predict_proba" in message


@pytest.mark.parametrize("metric", CLASSIFICATION)
def test_fractional_true_labels_are_refused(metric) -> None:
    with pytest.raises(ValueError, match=r"^y_true holds 1\.5 at row 2"):
        metric(np.array([[0.0], [1.0], [1.5]]), np.array([[0], [1], [1]]))


def test_labels_stored_as_floats_are_still_labels() -> None:
    y_true = np.array([0.0, 1.0, 2.0, 2.0, 1.0], dtype=np.float32)
    y_pred = np.array([0, 2, 2, 2, 1])
    assert metrics.accuracy(y_true, y_pred) == np.mean(y_true == y_pred) == 0.8
    # macro F1 from per-class counts, computed here with NumPy in float64
    scores = []
    for c in (0, 1, 2):
        tp = np.sum((y_pred == c) & (y_true == c))
        p, r = tp / np.sum(y_pred == c), tp / np.sum(y_true == c)
        scores.append(0.0 if p + r == 0 else 2 * p * r / (p + r))
    assert metrics.f1(y_true, y_pred) == pytest.approx(np.mean(scores), rel=1e-12)


def test_regression_metrics_still_take_fractions() -> None:
    assert metrics.mse([0.5, 1.5], [0.25, 1.0]) == pytest.approx(
        np.mean(np.square([0.25, 0.5]))
    )
