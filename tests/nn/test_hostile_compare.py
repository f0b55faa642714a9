"""compare with labels given as a column, y of shape (n, 1).

Before: compare read only (n,) integer labels as classes, so the same labels as a
column trained a regression (loss mse) and ranked by its loss: accuracy 0.63 for y
became a "score" of 0.36 for y[:, None], without a word. A column of labels or
targets is now read as (n,), for the training and the validation set."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import compare

RUN = {"epochs": 2, "progress": False, "hidden": (4,), "seeds": (0,)}


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.random((30, 2))
    return X, (X[:, 0] > 0.5).astype(int), (X[:, 0] * 3).astype(int)


@pytest.mark.parametrize("which", ["binary", "three classes"])
def test_labels_as_a_column_are_classes(data, which) -> None:
    X, two, three = data
    y = two if which == "binary" else three
    flat = compare(["relu", "tanh"], (X, y), **RUN)
    column = compare(["relu", "tanh"], (X, y[:, None]), **RUN)
    assert "accuracy_mean" in column.to_pandas(wide=False).columns
    assert column.scores() == flat.scores()


def test_validation_labels_as_a_column(data) -> None:
    X, y, _ = data
    flat = compare(["relu"], (X, y, X, y), **RUN)
    column = compare(["relu"], (X, y[:, None], X, y[:, None]), **RUN)
    assert column.scores() == flat.scores()


def test_a_target_column_is_the_same_regression(data) -> None:
    X, _, _ = data
    t = np.sin(3 * X[:, 0])
    flat = compare(["relu"], (X, t), **RUN)
    column = compare(["relu"], (X, t[:, None]), **RUN)
    assert column.scores() == pytest.approx(flat.scores())
