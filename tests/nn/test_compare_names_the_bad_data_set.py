"""``compare`` over several data sets, one of which holds NaN or infinity.

Each run's ``fit`` refused it as "training data: X contains NaN or infinity at row
2, column 0", which did not say which data set held it (``compare({"a": ...,
"b": ...})``). Now compare refuses it before any run, naming the data set, the
array (X, y, X_val or y_val) and the entry."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import nn


@pytest.fixture(scope="module")
def clean():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2)).astype(np.float32)
    return X, (X[:, 0] > 0).astype(np.int64)


@pytest.mark.parametrize(
    ("where", "value", "words"),
    [
        ((2, 0), np.nan, r"dataset 'b': X\[2, 0\] is nan, not a finite number"),
        ((5, 1), np.inf, r"dataset 'b': X\[5, 1\] is inf, not a finite number"),
    ],
)
def test_the_data_set_and_entry_are_named(clean, where, value, words) -> None:
    X, y = clean
    bad = X.copy()
    bad[where] = value
    with pytest.raises(ValueError, match=words):
        nn.compare(["relu"], {"a": (X, y), "b": (bad, y)}, epochs=1, progress=False)


def test_a_regression_target_and_validation_data_are_checked_too(clean) -> None:
    X, _ = clean
    target = X[:, 0].astype(np.float64)
    target[7] = -np.inf
    with pytest.raises(ValueError, match=r"dataset 'data': y\[7\] is -inf"):
        nn.compare(["tanh"], (X, target), loss="mse", epochs=1, progress=False)
    X_val = X.copy()
    X_val[3, 1] = np.nan
    labels = (X[:, 0] > 0).astype(np.int64)
    with pytest.raises(ValueError, match=r"dataset 'data': X_val\[3, 1\] is nan"):
        nn.compare(["relu"], (X, labels, X_val, labels), epochs=1, progress=False)
