"""Learnable library constants that an optimizer step moves out of their domain.

A hardtanh with learnable ``min_val`` and ``max_val`` trained with a large step
had ``min_val`` pass ``max_val`` in its first epoch; it then computed a constant
function (``min(max(x, lo), hi)`` with lo > hi) and trained on for every epoch
asked without a word (loss 0.6939, accuracy 0.5). Refusing the write inside the
step would leave the step half done; ``fit`` now tests the domains at each
epoch's end and stops there as it does on NaN: ``stop_reason == "diverged"``, a
RuntimeWarning and ``history.message`` naming the constant, and the parameters of
the epoch's start (all of them at once), with which the model predicts."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import nn


@pytest.fixture(scope="module")
def data():
    X = np.random.default_rng(0).normal(size=(64, 2)).astype(np.float32)
    return X, (X[:, 0] > 0).astype(np.int64)


def _model(backend: str) -> nn.MLP:
    act = symnb.activation(
        "hardtanh", min_val=symnb.learnable(0.9), max_val=symnb.learnable(1.0)
    )
    return nn.MLP(
        [2, 8, 1], activation=act, loss="bce_with_logits", seed=0, backend=backend
    )


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_fit_stops_at_the_epoch_that_left_the_domain(data, backend) -> None:
    model = _model(backend)
    start = model.get_flat_parameters().copy()
    with pytest.warns(RuntimeWarning, match=r"training stopped at epoch 1: a learn"):
        history = model.fit(*data, epochs=50, lr=0.5, optimizer="sgd")
    assert history.stop_reason == "diverged"
    assert "min_val must not be greater than max_val" in history.message
    assert len(history.epochs) == 0 and history.partial["epoch"] == 1
    # all parameters are the epoch's start, and the kernels compute with them
    np.testing.assert_array_equal(model.get_flat_parameters(), start)
    fresh = _model(backend)
    X = data[0][:5]
    np.testing.assert_array_equal(model.predict_proba(X), fresh.predict_proba(X))


def test_a_step_within_the_domain_trains_on(data) -> None:
    model = _model("numpy")
    history = model.fit(*data, epochs=3, lr=1e-3, optimizer="sgd")
    assert history.stop_reason == "completed" and len(history.epochs) == 3
    (layer,) = [c for c in model.learned_constants() if c]
    assert layer["min_val"] < layer["max_val"]


@pytest.mark.parametrize("call", ["train_epoch", "train_step"])
def test_the_manual_training_calls_raise_and_put_back(data, call) -> None:
    model = _model("numpy")
    start = model.get_flat_parameters().copy()
    optimizer = nn.SGD(model.parameters(), lr=5.0)
    with pytest.raises(nn.TrainingDiverged, match=r"left its domain.*min_val") as info:
        for _ in range(20):
            getattr(model, call)(*data, optimizer)
            start = model.get_flat_parameters().copy()
    assert info.value.what == "constants"
    np.testing.assert_array_equal(model.get_flat_parameters(), start)
    model.predict(data[0][:3])  # the restored constants are in the domain
