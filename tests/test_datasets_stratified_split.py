"""``datasets.train_test_split`` with ``stratify`` rounded each class's share on
its own: 50 classes of 2 rows gave no test row at all (round(0.5) == 0; the error
then said 'use a test_size nearer 0.5 or more data'), and two classes of 10 gave 4
test rows of 20 (20%, not 25%). The per-class counts now add up to
round(test_size * n), each class within one row of its share."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.datasets import train_test_split


@pytest.mark.parametrize(
    ("counts", "test_size"),
    [
        ([2] * 50, 0.25),
        ([10, 10], 0.25),
        ([50, 30, 20], 0.25),
        ([1] * 10, 0.3),
        ([7, 5, 3], 0.5),
        ([3, 97], 0.1),
    ],
)
def test_stratified_split_keeps_the_requested_size(counts, test_size) -> None:
    y = np.repeat(np.arange(len(counts)), counts)
    X = np.arange(len(y), dtype=float)[:, None]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=test_size)
    assert len(y_test) == round(test_size * len(y))
    assert len(y_train) + len(y_test) == len(y)
    per_class = np.bincount(y_test, minlength=len(counts))
    assert np.all(np.abs(per_class - test_size * np.array(counts)) < 1)
    assert sorted(np.concatenate([X_train, X_test]).ravel()) == list(range(len(y)))
    np.testing.assert_array_equal(y[X_test.ravel().astype(int)], y_test)
