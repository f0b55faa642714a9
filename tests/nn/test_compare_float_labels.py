"""``compare`` on float targets 0.0/1.0 (labels stored as floats, as many loaders give
them) trained a regression without a word: the table showed a loss where the user
expected accuracy. It still reads floats as numbers to fit (a count or a score may be
0/1), but now warns, naming the two fixes; integer labels classify as before."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symnb


def _data(dtype):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(dtype)
    return X, y


def _compare(X, y, **kw):
    return symnb.nn.compare(
        ["relu"], dataset=(X, y), hidden=(4,), epochs=2, seeds=[0], progress=False, **kw
    )


def test_float_zero_one_targets_warn_that_they_are_fit_as_numbers():
    X, y = _data(float)
    with pytest.warns(UserWarning, match=r"y\.astype\(int\)"):
        result = _compare(X, y)
    assert "accuracy" not in result.to_pandas().columns.str.cat(sep=" ")


@pytest.mark.parametrize(("dtype", "kw"), [(int, {}), (float, {"loss": "mse"})])
def test_integer_labels_or_an_explicit_loss_do_not_warn(dtype, kw):
    X, y = _data(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        _compare(X, y, **kw)
