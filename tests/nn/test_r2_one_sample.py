"""R^2 of one sample was 0.0 (or 1.0 when the prediction matched): a score that looked
measured where R^2 is not defined. Now NaN with a RuntimeWarning, as scikit-learn's
r2_score (NaN with UndefinedMetricWarning)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symnb.nn.metrics import r2


@pytest.mark.parametrize(
    ("y_true", "y_pred"),
    [([1.0], [2.0]), ([1.0], [1.0]), ([[1.0, 2.0]], [[1.0, 2.0]])],
)
def test_r2_of_one_sample_is_nan_with_a_warning(y_true, y_pred) -> None:
    with pytest.warns(RuntimeWarning, match="fewer than two samples"):
        score = r2(np.array(y_true), np.array(y_pred))
    assert math.isnan(score)
    sklearn = pytest.importorskip("sklearn.metrics")
    with pytest.warns(Warning):
        assert math.isnan(sklearn.r2_score(y_true, y_pred))


def test_r2_of_two_samples_matches_scikit_learn() -> None:
    sklearn = pytest.importorskip("sklearn.metrics")
    for a, b in (([1.0, 2.0], [1.5, 2.5]), ([1.0, 1.0], [1.0, 1.0]), ([1, 1], [1, 2])):
        assert r2(np.array(a), np.array(b)) == pytest.approx(sklearn.r2_score(a, b))
