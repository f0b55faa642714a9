"""float64 data below the network's smallest float becomes 0 with a warning.

X = 1e-310 in a float32 MLP was silently 0 (a value too large for float32 is refused);
now a UserWarning at the caller's line says how many values were flushed and where.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from symnb.nn import MLP


def _data(scale: float = 1.0):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(32, 2))
    y = (X[:, 0] > 0).astype(np.int64)
    X[3, 1] = 1e-310 * scale  # below float32's smallest subnormal (1.4e-45)
    return X, y


def test_fit_warns_where_float64_data_becomes_zero_in_float32():
    X, y = _data()
    model = MLP([2, 4, 1], activation="tanh", backend="numpy", seed=0)
    with pytest.warns(UserWarning, match=r"1 nonzero value\(s\) of X became 0") as rec:
        model.fit(X, y, epochs=1)
    assert "X[3, 1] = 1e-310" in str(rec[0].message)
    assert rec[0].filename == __file__  # the caller's line, not symnb's
    with pytest.warns(UserWarning, match="dtype='float64'"):
        model.predict(X)


def test_no_warning_where_nothing_is_flushed():
    X, y = _data(scale=1e300)  # 1e-10: a float32 normal number
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MLP([2, 4, 1], activation="tanh", backend="numpy", seed=0).fit(X, y, epochs=1)
        X64, _ = _data()
        model64 = MLP(
            [2, 4, 1], activation="tanh", backend="numpy", seed=0, dtype="float64"
        )
        model64.fit(X64, y, epochs=1)
        assert X64[3, 1] != 0
