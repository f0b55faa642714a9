"""One training call at a time per model: fit inside its own fit, or two threads
training one model, are refused instead of mixing their steps.

Before, ``fit`` called from an ``on_epoch_end`` callback of ``fit`` ran inside it:
the model trained 1 + 2 + 2 = 5 epochs but ``epochs_trained`` said 3, the outer
History listed epochs [1, 2, 3] and ``model.history`` was the inner run's. Two threads
calling ``fit`` on one model shared its buffers and gradients (torn steps) and counted
22 of 40 epochs, without a word. Expected: the inner/second call raises, naming the
running call and the fix; the outer run completes with a consistent count.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from symnb import datasets
from symnb.nn import MLP, Adam, LambdaCallback


@pytest.fixture(scope="module")
def data():
    return datasets.two_moons(96, seed=0)


INNER = {
    "fit": lambda m, X, y: m.fit(X, y, epochs=1),
    "train_epoch": lambda m, X, y: m.train_epoch(X, y, Adam(m.parameters())),
}


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "per_step"])
@pytest.mark.parametrize("inner", list(INNER))
def test_training_from_a_callback_of_fit_is_refused(data, inner, fused):
    X, y = data
    model = MLP([2, 6, 1], "tanh", loss="bce_with_logits", fused=fused)
    errors = []

    def callback(epoch, logs):
        try:
            INNER[inner](model, X, y)
        except RuntimeError as exc:
            errors.append(str(exc))

    history = model.fit(X, y, epochs=3, batch_size=16, callbacks=[callback])
    assert history.stop_reason == "completed"
    assert history.epochs == [1, 2, 3]
    assert model.epochs_trained == 3
    assert model.history is history
    assert len(errors) == 3
    assert errors[0].startswith(f"{inner}: this model is inside its own fit")
    # and the model trains again once fit has returned
    INNER[inner](model, X, y)


def test_a_step_callback_cannot_fit_but_may_step(data):
    """train_step and loss_and_gradient between the steps of a running fit stay
    allowed (test_fused_epoch relies on it between epochs)."""
    X, y = data
    model = MLP([2, 6, 1], "tanh", loss="bce_with_logits", fused=False)
    seen = []

    def on_step(step, logs):
        try:
            model.fit(X, y, epochs=1)
        except RuntimeError as exc:
            seen.append(str(exc))
        model.train_step(X[:4], y[:4], Adam(model.parameters()))
        model.loss_and_gradient(X[:4], y[:4])
        model.set_flat_parameters(model.get_flat_parameters())
        return True  # stop after the first step

    model.fit(X, y, epochs=1, callbacks=[LambdaCallback(on_step_end=on_step)])
    assert seen and seen[0].startswith("fit: this model is inside its own fit")


def test_a_second_thread_is_refused_while_the_first_trains(data):
    X, y = data
    model = MLP([2, 6, 1], "tanh", loss="bce_with_logits", fused=False)
    started, release = threading.Event(), threading.Event()

    def hold(epoch, logs):
        started.set()
        release.wait(30)

    worker = threading.Thread(
        target=lambda: model.fit(X, y, epochs=2, callbacks=[hold]), daemon=True
    )
    worker.start()
    assert started.wait(30)
    try:
        before = model.get_flat_parameters()
        with pytest.raises(RuntimeError, match="running fit in another thread"):
            model.fit(X, y, epochs=1)
        with pytest.raises(RuntimeError, match="in another thread"):
            model.train_step(X[:4], y[:4], Adam(model.parameters()))
        with pytest.raises(RuntimeError, match="^set_flat_parameters: .*another"):
            model.set_flat_parameters(np.zeros_like(before))
        np.testing.assert_array_equal(model.get_flat_parameters(), before)
        model.predict(X[:3])  # inference is not training: allowed
    finally:
        release.set()
        worker.join(30)
    assert model.epochs_trained == 2
    model.fit(X, y, epochs=1)
    assert model.epochs_trained == 3
