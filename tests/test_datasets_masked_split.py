"""train_test_split keeps a masked array's mask (boundary probe 17).

Before: ``np.asarray`` dropped the mask, so the hidden values of missing entries came
back as ordinary data in both parts (scikit-learn's split keeps masked arrays masked).
"""

from __future__ import annotations

import numpy as np

from symnb import datasets


def _rows_with_masks(a):
    return {tuple(r.data.tolist()): tuple(np.ma.getmaskarray(r).tolist()) for r in a}


def test_a_masked_x_keeps_its_mask_in_both_parts():
    X, y = datasets.two_moons(40, seed=1)
    Xm = np.ma.array(X, mask=X > 0.9)
    expected = _rows_with_masks(Xm)
    X_train, X_test, _, _ = datasets.train_test_split(Xm, y, seed=3)
    assert isinstance(X_train, np.ma.MaskedArray) and isinstance(
        X_test, np.ma.MaskedArray
    )
    for part in (X_train, X_test):
        for row, mask in _rows_with_masks(part).items():
            assert mask == expected[row]
    assert np.ma.count_masked(X_train) + np.ma.count_masked(X_test) == int(
        (X > 0.9).sum()
    )


def test_a_masked_label_stays_masked():
    X, y = datasets.two_moons(20, seed=0)
    mask = np.zeros(20, bool)
    mask[[2, 7]] = True
    ym = np.ma.array(y, mask=mask)
    _, _, y_train, y_test = datasets.train_test_split(X, ym, seed=0)
    assert np.ma.count_masked(y_train) + np.ma.count_masked(y_test) == 2
    # plain arrays still come back as plain arrays
    parts = datasets.train_test_split(X, y, seed=0)
    assert not any(isinstance(p, np.ma.MaskedArray) for p in parts)
