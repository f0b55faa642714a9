"""Masked arrays with masked entries given to MLP.fit / predict / evaluate (and the
scikit-learn estimators) were trained on or predicted with the hidden values under
the mask (``np.asarray`` drops it) without a word; the kernels already refused them.
Now a ValueError names the argument, the first masked position and the fix."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLP, MLPClassifier, MLPRegressor


def _data():
    X = np.random.default_rng(0).normal(size=(20, 2))
    return X, (X[:, 0] > 0).astype(float)


def _masked_X(X):
    mask = np.zeros_like(X, dtype=bool)
    mask[3, 1] = True
    return np.ma.array(X, mask=mask)


def test_fit_refuses_masked_X_and_keeps_the_model_untouched():
    X, y = _data()
    model = MLP([2, 3, 1], loss="bce_with_logits", seed=0)
    before = model.get_flat_parameters()
    with pytest.raises(ValueError, match=r"training data: X is a masked array") as e:
        model.fit(_masked_X(X), y, epochs=1)
    assert "[3, 1]" in str(e.value) and "X.filled(value)" in str(e.value)
    np.testing.assert_array_equal(model.get_flat_parameters(), before)


def test_fit_refuses_masked_y():
    X, y = _data()
    model = MLP([2, 3, 1], loss="bce_with_logits", seed=0)
    with pytest.raises(ValueError, match=r"training data: y is a masked array"):
        model.fit(X, np.ma.array(y, mask=np.arange(20) == 5), epochs=1)


def test_predict_evaluate_and_validation_refuse_masked_X():
    X, y = _data()
    model = MLP([2, 3, 1], loss="bce_with_logits", seed=0)
    model.fit(X, y, epochs=1)
    with pytest.raises(ValueError, match="X is a masked array"):
        model.predict(_masked_X(X))
    with pytest.raises(ValueError, match="evaluation data: X is a masked array"):
        model.evaluate(_masked_X(X), y)
    with pytest.raises(ValueError, match="validation data: X is a masked array"):
        model.fit(X, y, epochs=1, validation_data=(_masked_X(X), y))


def test_masked_arrays_without_masked_entries_are_plain_data():
    X, y = _data()
    a = MLP([2, 3, 1], loss="bce_with_logits", seed=0)
    b = MLP([2, 3, 1], loss="bce_with_logits", seed=0)
    a.fit(np.ma.array(X), np.ma.array(y), epochs=2, shuffle=False)
    b.fit(X, y, epochs=2, shuffle=False)
    np.testing.assert_array_equal(a.get_flat_parameters(), b.get_flat_parameters())


def test_estimators_refuse_masked_inputs():
    X, y = _data()
    with pytest.raises(ValueError, match="X is a masked array"):
        MLPClassifier(epochs=1).fit(_masked_X(X), y.astype(int))
    with pytest.raises(ValueError, match="y is a masked array"):
        MLPRegressor(epochs=1).fit(X, np.ma.array(y, mask=np.arange(20) == 0))
    fitted = MLPClassifier(epochs=1).fit(X, y.astype(int))
    with pytest.raises(ValueError, match="X is a masked array"):
        fitted.predict(_masked_X(X))
