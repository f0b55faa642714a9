"""``MLP(loss=...)`` takes a formula text in y_pred and y_true, as ``activation=`` takes
one in x: ``loss='(y_pred - y_true)**4'`` was "unknown loss" (only library names and
``symnb.Loss`` objects were read)."""

from __future__ import annotations

import numpy as np
import pytest

import symnb


def _regression_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(64, 2))
    return X, np.sin(X[:, 0]) + 0.5 * X[:, 1]


def test_formula_text_loss_value_and_gradient_match_float64_references():
    X, y = _regression_data()
    model = symnb.nn.MLP([2, 8, 1], loss="(y_pred - y_true)**4", dtype="float64")
    loss, grad = model.loss_and_gradient(X, y)
    pred = model.decision_function(X)[:, 0]
    # the training loss is the mean of the formula over the batch
    assert loss == pytest.approx(np.mean((pred - y) ** 4), rel=1e-12)
    # its gradient against central differences of that mean in float64
    w = model.get_flat_parameters().astype(np.float64)
    for k in (0, 5, len(w) - 1):
        h = 1e-6
        vals = []
        for s in (h, -h):
            model.set_flat_parameters(w + s * (np.arange(len(w)) == k))
            vals.append(np.mean((model.decision_function(X)[:, 0] - y) ** 4))
        model.set_flat_parameters(w)
        assert grad[k] == pytest.approx((vals[0] - vals[1]) / (2 * h), rel=1e-6)


def test_formula_text_loss_trains_as_the_same_symnb_loss():
    X, y = _regression_data()
    kw = {"epochs": 3, "batch_size": 16, "lr": 0.01, "seed": 0}
    text = symnb.nn.MLP([2, 8, 1], loss="(y_pred - y_true)**4").fit(X, y, **kw)
    obj = symnb.nn.MLP([2, 8, 1], loss=symnb.Loss("(y_pred - y_true)**4"))
    np.testing.assert_array_equal(text["loss"], obj.fit(X, y, **kw)["loss"])


def test_formula_text_loss_errors_name_the_input():
    with pytest.raises(symnb.FormulaError, match="ends too early"):
        symnb.nn.MLP([2, 4, 1], loss="(y_pred - y_true)**")
    with pytest.raises(ValueError, match="formula text in y_pred and y_true"):
        symnb.nn.MLP([2, 4, 1], loss="mse_loss")
    with pytest.raises(ValueError, match="cross_entropy"):
        symnb.nn.MLP([2, 4, 3], loss="(y_pred - y_true)**2", task="multiclass")
