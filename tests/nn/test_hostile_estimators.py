"""MLPRegressor.fit with targets of shape (n, 0) said "every size must be a positive
integer, got [2, 16, 16, 0]", about a list of sizes the user never wrote; now the
message names y and its shape."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLPRegressor


def test_targets_without_columns_name_y() -> None:
    X = np.random.default_rng(0).random((12, 2))
    with pytest.raises(ValueError, match=r"y has shape \(12, 0\): no target per row"):
        MLPRegressor(epochs=1).fit(X, np.zeros((12, 0)))


def test_one_and_two_target_columns_still_fit() -> None:
    X = np.random.default_rng(1).random((12, 2))
    y = np.stack([X.sum(1), X[:, 0] - X[:, 1]], 1)
    assert MLPRegressor(epochs=1).fit(X, y).predict(X).shape == (12, 2)
    assert MLPRegressor(epochs=1).fit(X, y[:, :1]).predict(X).shape == (12, 1)
