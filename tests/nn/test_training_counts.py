"""Absurd epoch counts, batch sizes and learning rates at the training entry points.

``MLP.fit(epochs=10**12)`` was taken and trained on for days (its history growing
by one record an epoch), and so did ``compare``, ``search`` and the scikit-learn
style estimators, which pass epochs on. Now every one refuses more than
``MAX_EPOCHS`` at once with a ``ValueError`` naming ``epochs`` and the limit; a
float, a bool, NaN or inf is refused naming the argument (``epochs=2.0`` says to
write 2), and batch sizes and learning rates keep their checks."""

from __future__ import annotations

import time

import numpy as np
import pytest

from symnb import nn
from symnb.checks import MAX_EPOCHS


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 2)).astype(np.float32)
    return X, (X[:, 0] > 0).astype(np.int64)


def _model() -> nn.MLP:
    return nn.MLP([2, 3, 1], activation="tanh", loss="bce_with_logits", seed=0)


@pytest.mark.parametrize("epochs", [10**12, MAX_EPOCHS + 1, np.int64(10**15)])
def test_fit_refuses_more_epochs_than_one_call_trains(data, epochs) -> None:
    model = _model()  # compiled before the clock starts
    start = time.perf_counter()
    with pytest.raises(ValueError, match=rf"^epochs={int(epochs):,} is more than"):
        model.fit(*data, epochs=epochs)
    assert time.perf_counter() - start < 5  # refused, not trained


@pytest.mark.parametrize(
    ("epochs", "hint"),
    [
        (2.0, r"write it as an integer, e.g. epochs=2$"),
        (1e12, r"e.g. epochs=40$"),  # no hint towards a count that is refused
        (2.5, r"e.g. epochs=40$"),
        (True, r"got True; e.g. epochs=40$"),
        (float("nan"), r"got nan"),
        (float("inf"), r"got inf"),
        (-1, r"got -1"),
        ("5", r"got '5'"),
    ],
)
def test_fit_refuses_epochs_that_are_no_count(data, epochs, hint) -> None:
    with pytest.raises(ValueError, match=r"^epochs must be a non-negative integer"):
        _model().fit(*data, epochs=epochs)
    with pytest.raises(ValueError, match=hint):
        _model().fit(*data, epochs=epochs)


@pytest.mark.parametrize("batch_size", [0, -1, 2.5, True, float("inf"), "8"])
def test_fit_refuses_batch_sizes_that_are_no_count(data, batch_size) -> None:
    with pytest.raises(ValueError, match=r"batch_size must be a positive integer"):
        _model().fit(*data, epochs=1, batch_size=batch_size)


@pytest.mark.parametrize(
    ("lr", "error"),
    [
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (0.0, ValueError),
        (-0.1, ValueError),
        (True, TypeError),
        ("0.1", TypeError),
    ],
)
def test_fit_refuses_learning_rates_that_are_no_rate(data, lr, error) -> None:
    with pytest.raises(error, match=r"^lr must be"):
        _model().fit(*data, epochs=1, lr=lr)


def test_a_count_within_the_limit_trains_and_fit_continues(data) -> None:
    model = _model()
    first = model.fit(*data, epochs=np.int64(3), lr=0.1)
    second = model.fit(*data, epochs=3, lr=0.1)
    assert len(first.epochs) == 3 and len(second.epochs) == 3
    assert second.last["loss"] < first.last["loss"]  # went on from the weights


def test_compare_refuses_too_many_epochs(data) -> None:
    with pytest.raises(ValueError, match=r"^epochs=1,000,000,000,000 is more.*fewer"):
        nn.compare(["relu"], data, epochs=10**12, progress=False)


def test_search_refuses_too_many_epochs(data) -> None:
    with pytest.raises(ValueError, match=r"^epochs=1,000,000,000,000 is more"):
        nn.search(data, budget=3, epochs=10**12, progress=False)


def test_estimator_refuses_too_many_epochs(data) -> None:
    pytest.importorskip("sklearn", reason="needs scikit-learn for the estimators")
    clf = nn.MLPClassifier(hidden_layer_sizes=(3,), epochs=10**12)
    with pytest.raises(ValueError, match=r"^epochs=1,000,000,000,000 is more"):
        clf.fit(*data)
