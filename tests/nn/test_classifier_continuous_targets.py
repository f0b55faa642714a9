"""MLPClassifier.fit on regression targets (floats that are not whole) made one class
per distinct value, 40 targets giving 40 classes, and trained without a word.
scikit-learn's MLPClassifier raises ValueError "Unknown label type: continuous"; so
does symnb's now, naming the first such row and MLPRegressor. Whole floats (0.0/1.0)
stay class labels, as in scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLPClassifier

pytest.importorskip("sklearn")
from sklearn.neural_network import MLPClassifier as SklearnMLP

X = np.random.default_rng(0).normal(size=(40, 2))


def test_continuous_targets_are_refused_as_scikit_learn_does() -> None:
    y = X[:, 0].copy()
    with pytest.raises(ValueError, match="Unknown label type"):
        SklearnMLP(max_iter=1).fit(X, y)
    with pytest.raises(ValueError, match=r"not whole .* at row 0.*MLPRegressor"):
        MLPClassifier(epochs=1, backend="numpy").fit(X, y)


def test_whole_float_labels_are_classes() -> None:
    y = (X[:, 0] > 0).astype(np.float64)
    model = MLPClassifier(epochs=1, backend="numpy").fit(X, y)
    assert model.classes_.tolist() == [0.0, 1.0]
