"""train_test_split stratifies by rows of a 2-D y (one-hot or multi-label rows).

Before, ``np.unique`` counted the entries of a one-hot ``y`` (classes 0 and 1) and
the flat indices of its entries were used as row numbers: ``IndexError: index 30 is out
of bounds for axis 0 with size 30`` from inside the split, or rows that were not the
class's when the indices happened to stay below ``len(y)``. Expected (as scikit-learn's
``stratify`` of a 2-D y): each distinct row is one class and keeps its share.
"""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_one_hot_labels_keep_each_class_share(seed):
    classes = np.repeat([0, 1, 2], [10, 20, 30])
    X = np.arange(60)[:, None]  # row numbers: pairs are checked below
    Y = np.eye(3, dtype=np.int64)[classes]
    X_tr, X_te, Y_tr, Y_te = datasets.train_test_split(X, Y, 0.3, seed=seed)
    assert Y_te.sum(axis=0).tolist() == [3, 6, 9]
    assert Y_tr.sum(axis=0).tolist() == [7, 14, 21]
    for Xp, Yp in ((X_tr, Y_tr), (X_te, Y_te)):
        np.testing.assert_array_equal(Yp, Y[Xp[:, 0]])  # rows stay paired
    assert sorted(np.concatenate([X_tr, X_te])[:, 0].tolist()) == list(range(60))


def test_multi_label_rows_are_classes():
    rows = np.array([[0, 0], [0, 1], [1, 1], [1, 0]], dtype=bool)
    Y = np.repeat(rows, 5, axis=0)
    X = np.arange(20.0)[:, None]
    _, X_te, _, Y_te = datasets.train_test_split(X, Y, 0.2, seed=5)
    assert sorted(map(tuple, Y_te.astype(int).tolist())) == sorted(
        map(tuple, rows.astype(int).tolist())
    )
    np.testing.assert_array_equal(Y_te, Y[X_te[:, 0].astype(int)])


def test_labels_as_a_column_split_as_the_same_labels_flat():
    y = np.repeat([0, 1, 2], [4, 8, 12])
    X = np.arange(24.0)[:, None]
    flat = datasets.train_test_split(X, y, 0.25, seed=7)
    column = datasets.train_test_split(X, y[:, None], 0.25, seed=7)
    for a, b in zip(flat[:2], column[:2]):
        np.testing.assert_array_equal(a, b)
