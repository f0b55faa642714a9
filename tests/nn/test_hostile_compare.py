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


@pytest.mark.parametrize(
    "labels", [(1, 2), (0, 5), (-1, 1), (1, 2, 3), (0, 2, 4)], ids=str
)
def test_other_integer_labels_are_the_same_classes(data, labels) -> None:
    """Before: compare counted the classes of labels {1, 2} or {0, 2, 4}, built that
    many outputs, and every run failed with "binary labels must be 0 or 1" or
    "labels must be 0..2", about a network the user never built."""
    X, two, three = data
    index = two if len(labels) == 2 else three
    y = np.asarray(labels)[index]
    want = compare(["relu"], (X, index), **RUN).scores()
    assert compare(["relu"], (X, y), **RUN).scores() == want
    assert (
        compare(["relu"], (X, y, X, y), **RUN).scores()
        == compare(["relu"], (X, index, X, index), **RUN).scores()
    )


def test_a_validation_label_outside_the_training_classes_is_named(data) -> None:
    X, two, _ = data
    y = two + 1
    y_val = y.copy()
    y_val[4] = 7
    with pytest.raises(ValueError, match=r"validation label 7 at row 4"):
        compare(["relu"], (X, y, X, y_val), **RUN)


@pytest.mark.parametrize("loss", ["bce", "bce_with_logits", "BCE"])
def test_binary_cross_entropy_on_three_classes_names_the_loss(data, loss) -> None:
    """Before: every run failed with the model's "binary labels must be 0 or 1" or
    "the last size must be 1, got 3", about a network compare built."""
    X, _, three = data
    with pytest.raises(ValueError, match=rf"compare: loss='{loss}'.*3 classes"):
        compare(["relu"], (X, three), loss=loss, **RUN)


def test_binary_cross_entropy_on_two_classes_still_runs(data) -> None:
    X, two, _ = data
    result = compare(["relu"], (X, two), loss="bce_with_logits", **RUN)
    assert 0.0 <= result.scores()["relu"] <= 1.0  # an accuracy
