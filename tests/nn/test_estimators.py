"""scikit-learn compatibility of MLPClassifier / MLPRegressor, and symnb.nn.compare."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import datasets, nn

sklearn = pytest.importorskip(
    "sklearn", reason="scikit-learn is an optional dependency"
)
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score


def test_classifier_fit_predict_proba_score_with_string_labels():
    X, y = datasets.two_moons(200, seed=0)
    labels = np.array(["cat", "dog"])[y]
    clf = nn.MLPClassifier(
        hidden_layer_sizes=(8,), activation="tanh", epochs=40, lr=0.02
    )
    assert clf.fit(X, labels) is clf
    assert list(clf.classes_) == ["cat", "dog"]
    proba = clf.predict_proba(X)
    assert proba.shape == (200, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    pred = clf.predict(X)
    assert set(pred) <= {"cat", "dog"}
    assert clf.score(X, labels) > 0.85
    assert clf.n_features_in_ == 2 and len(clf.loss_curve_) == 40


def test_classifier_multiclass_and_regressor():
    X, y = datasets.blobs(150, centers=3, noise=0.4, seed=0)
    clf = nn.MLPClassifier(hidden_layer_sizes=(8,), epochs=20).fit(X, y)
    assert clf.predict_proba(X).shape == (150, 3)
    assert clf.score(X, y) > 0.9
    Xs, ys = datasets.sine(150, noise=0.05, seed=0)
    reg = nn.MLPRegressor(
        hidden_layer_sizes=(16,), activation="tanh", epochs=60, lr=0.01
    )
    assert reg.fit(Xs, ys).score(Xs, ys) > 0.8
    assert reg.predict(Xs).shape == (150,)


def test_get_set_params_and_clone():
    swish = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.0)
    clf = nn.MLPClassifier(activation=swish, epochs=3)
    params = clf.get_params()
    assert params["activation"] is swish and params["epochs"] == 3
    clf.set_params(epochs=5, lr=0.1)
    assert clf.epochs == 5 and clf.lr == 0.1
    copy = clone(clf)
    assert copy.get_params()["epochs"] == 5 and not hasattr(copy, "model_")
    with pytest.raises(ValueError):
        clf.set_params(no_such_param=1)
    with pytest.raises(Exception, match="not fitted"):
        nn.MLPClassifier().predict(np.zeros((2, 2)))


def test_grid_search_and_cross_val_score():
    X, y = datasets.two_moons(120, seed=1)
    swish = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.0)
    grid = GridSearchCV(
        nn.MLPClassifier(hidden_layer_sizes=(8,), epochs=15, lr=0.02),
        {"activation": ["tanh", swish], "lr": [0.02, 0.05]},
        cv=2,
    )
    grid.fit(X, y)
    assert grid.best_score_ > 0.7
    assert len(grid.cv_results_["params"]) == 4
    scores = cross_val_score(
        nn.MLPRegressor(hidden_layer_sizes=(8,), epochs=5), *datasets.sine(60), cv=3
    )
    assert scores.shape == (3,)


def test_classifier_rejects_one_class_and_bad_shapes():
    with pytest.raises(ValueError, match="at least two classes"):
        nn.MLPClassifier(epochs=1).fit(np.zeros((4, 2)), np.zeros(4))
    with pytest.raises(ValueError, match="2-D"):
        nn.MLPClassifier(epochs=1).fit(np.zeros(4), np.zeros(4))


def test_compare_returns_a_table():
    swish = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.0)
    result = nn.compare(
        ["tanh", swish], "two_moons", seeds=(0, 1), hidden=(8,), epochs=15, lr=0.02
    )
    assert [row["activation"] for row in result.rows] == ["tanh", "swish"]
    row = result["swish"]
    assert 0 <= row["accuracy_mean"] <= 1 and row["accuracy_std"] >= 0
    assert row["runs"] == 2 and row["time_mean"] > 0
    assert len(result.runs) == 4
    text = repr(result)
    assert "activation" in text and "epochs to accuracy 0.95" in text
    assert "<table>" in result._repr_html_()
    assert result.best("accuracy") in ("tanh", "swish")


def test_compare_with_validation_data_and_regression():
    X, y = datasets.sine(80, seed=0)
    Xv, yv = datasets.sine(40, seed=1)
    result = nn.compare(
        {"t": "tanh", "s": "sin"},
        (X, y, Xv, yv),
        seeds=[0],
        hidden=(4,),
        epochs=3,
        target=0.5,
    )
    assert result.target_metric == "val_loss"
    assert set(result.rows[0]) >= {
        "loss_mean",
        "loss_std",
        "epochs_to_target",
        "time_mean",
    }
    with pytest.raises(ValueError, match="at least one activation"):
        nn.compare([], "xor")
