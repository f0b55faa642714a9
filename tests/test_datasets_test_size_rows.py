"""``train_test_split(test_size=5)``: a whole number is a number of test rows, as in
scikit-learn (h118's probe: it was refused with "between 0 and 1"). Checked against
scikit-learn's own split sizes where it is installed, and by counting."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets


@pytest.mark.parametrize("stratify", [None, False])
@pytest.mark.parametrize("rows", [1, 5, np.int64(13), 39])
def test_an_int_test_size_is_that_many_rows(rows, stratify):
    X, y = datasets.two_moons(40, seed=0)
    X_train, X_test, y_train, y_test = datasets.train_test_split(
        X, y, test_size=rows, stratify=stratify
    )
    assert len(X_test) == len(y_test) == int(rows)
    assert len(X_train) == len(y_train) == 40 - int(rows)
    # the parts are the rows, each once
    both = np.concatenate([X_train, X_test])
    assert sorted(map(tuple, both)) == sorted(map(tuple, X))


def test_the_sizes_match_scikit_learn():
    sklearn = pytest.importorskip("sklearn.model_selection")
    X, y = datasets.two_moons(40, seed=0)
    for rows in (3, 10, 30):
        want = [len(p) for p in sklearn.train_test_split(X, y, test_size=rows)]
        got = [len(p) for p in datasets.train_test_split(X, y, test_size=rows)]
        assert got == want


@pytest.mark.parametrize("rows", [0, 40, 41, -3])
def test_row_counts_outside_the_data_are_refused(rows):
    X, y = datasets.two_moons(40, seed=0)
    with pytest.raises(
        ValueError, match=f"test_size={rows} rows: X has 40 rows, so give 1 to 39"
    ):
        datasets.train_test_split(X, y, test_size=rows)
