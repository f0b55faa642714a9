"""R^2 with a NaN or inf target or prediction was 0.0 ("predicts the mean"): NaN made
``ss_tot > 0`` False. symnb.nn.metrics.r2 now gives NaN, and MLPRegressor.score
refuses non-finite targets as fit does, naming the row. MLPClassifier/MLPRegressor
took hidden_layer_sizes={16, 8} in the set's own order."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symnb.nn import MLPClassifier, MLPRegressor
from symnb.nn.metrics import r2


@pytest.mark.parametrize(
    ("y_true", "y_pred"),
    [
        ([np.nan, 1.0, 2.0], [0.0, 1.0, 2.0]),
        ([0.0, 1.0, 2.0], [0.0, np.nan, 2.0]),
        ([np.inf, 1.0, 2.0], [0.0, 1.0, 2.0]),
        ([[0.0, np.nan], [1.0, 2.0]], [[0.0, 1.0], [1.0, 2.0]]),
    ],
)
def test_r2_of_non_finite_values_is_nan(y_true, y_pred) -> None:
    assert math.isnan(r2(np.array(y_true), np.array(y_pred)))


def test_r2_of_finite_values_unchanged() -> None:
    a = np.array([1.0, 2.0, 4.0, 7.0])
    b = np.array([1.5, 2.0, 3.0, 7.5])
    expected = 1 - np.sum((a - b) ** 2) / np.sum((a - a.mean()) ** 2)
    assert r2(a, b) == pytest.approx(expected, rel=1e-12)
    assert r2(np.ones(3), np.ones(3)) == 1.0


def test_regressor_score_refuses_non_finite_targets() -> None:
    X = np.random.default_rng(0).normal(size=(30, 2))
    model = MLPRegressor(hidden_layer_sizes=(4,), epochs=1).fit(X, X[:, 0])
    y = X[:, 0].copy()
    y[7] = np.nan
    with pytest.raises(ValueError, match="score: y is not finite at row 7"):
        model.score(X, y)


@pytest.mark.parametrize("estimator", [MLPClassifier, MLPRegressor])
@pytest.mark.parametrize("hidden", [{16, 8}, "16"])
def test_unordered_hidden_layer_sizes_are_refused(estimator, hidden) -> None:
    X = np.random.default_rng(0).normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(TypeError, match="hidden_layer_sizes must be a tuple"):
        estimator(hidden_layer_sizes=hidden, epochs=1).fit(X, y)
