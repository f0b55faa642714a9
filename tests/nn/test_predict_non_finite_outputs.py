"""A network whose parameters blew up (training diverged: the last finite parameters
are kept, but they are huge) gives NaN logits. predict() returned label 0 for every
such row (``NaN > 0`` is False), multi-class argmax picked a column by position, and
evaluate() reported an accuracy computed from those labels (0.52 here) beside a NaN
loss, with NumPy's "invalid value encountered in dot" as the only sign. Now predict
is a ValueError naming the rows, and the classification metrics are NaN."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from symnb.nn import MLP, MLPClassifier


def _diverged(loss: str, outputs: int, y) -> MLP:
    X = np.random.default_rng(0).normal(size=(64, 2))
    model = MLP([2, 8, outputs], seed=0, activation="x*exp(x)", loss=loss)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        history = model.fit(X, y(X), epochs=50, lr=1e6, optimizer="sgd")
    assert history.stop_reason == "diverged"
    return model, X


def _binary(X):
    return (X[:, 0] > 0).astype(float)


def _three(X):
    return (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)


@pytest.mark.parametrize(
    ("loss", "outputs", "y"),
    [("bce_with_logits", 1, _binary), ("cross_entropy", 3, _three)],
)
def test_predict_refuses_outputs_without_a_class(loss, outputs, y) -> None:
    model, X = _diverged(loss, outputs, y)
    assert not np.isfinite(model(X)).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy RuntimeWarning either
        with pytest.raises(ValueError, match="predict: no class can be read") as e:
            model.predict(X)
    assert "diverged" in str(e.value) and "smaller lr" in str(e.value)
    assert "row 0" in str(e.value)


@pytest.mark.parametrize(
    ("loss", "outputs", "y"),
    [("bce_with_logits", 1, _binary), ("cross_entropy", 3, _three)],
)
def test_classification_metrics_are_nan_not_a_number_from_nan(loss, outputs, y):
    model, X = _diverged(loss, outputs, y)
    result = model.evaluate(
        X, y(X), metrics=["accuracy", "f1"] if outputs == 1 else None
    )
    assert all(math.isnan(v) for v in result.values()), result
    assert math.isnan(model.score(X, y(X)))


def test_finite_outputs_still_predict() -> None:
    X = np.random.default_rng(1).normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(float)
    model = MLP([2, 8, 1], seed=0, loss="bce_with_logits")
    model.fit(X, y, epochs=30, lr=0.05)
    logits = model(X)[:, 0]
    np.testing.assert_array_equal(model.predict(X), (logits > 0).astype(np.int64))
    assert model.evaluate(X, y)["accuracy"] == np.mean((logits > 0) == y)


def test_binary_infinite_logits_still_decide() -> None:
    model = MLP([1, 1], loss="bce_with_logits", seed=0)
    model.set_flat_parameters(np.array([1e38, 0.0]))
    X = np.array([[10.0], [-10.0]])
    np.testing.assert_array_equal(model(X)[:, 0], [np.inf, -np.inf])
    np.testing.assert_array_equal(model.predict(X), [1, 0])


def test_estimator_predict_refuses_too() -> None:
    X = np.random.default_rng(0).normal(size=(64, 2))
    clf = MLPClassifier(
        hidden_layer_sizes=(8,),
        activation="x*exp(x)",
        epochs=50,
        lr=1e6,
        optimizer="sgd",
        seed=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, _binary(X))
    with pytest.raises(ValueError, match="no class can be read"):
        clf.predict(X)


def test_a_nan_parameter_is_named_not_called_too_large() -> None:
    """A NaN written into a weight (p.data[...] = nan) made predict say "its
    parameters are too large for these inputs", sending the user to the lr."""
    model = MLP([2, 3, 1], loss="bce_with_logits", backend="numpy")
    model.parameters()[0].data[1, 2] = np.nan
    with pytest.raises(ValueError) as info:
        model.predict(np.ones((2, 2)))
    message = str(info.value)
    assert "its parameters are not finite: layers.0.weight[1, 2] is nan" in message
    assert "too large" not in message
