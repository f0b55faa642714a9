"""Eighteenth boundary probe of symnb.nn (helper h123).

References are float64 NumPy recomputations of the loss from the model's raw
outputs (the published binary cross-entropy with logits and mean squared error).
"""

from __future__ import annotations

import numpy as np

from symnb import datasets
from symnb.nn import MLP, EarlyStopping

X, Y = datasets.two_moons(64, seed=0)


def _bce_with_logits(z: np.ndarray, y: np.ndarray) -> float:
    z = np.asarray(z, np.float64).reshape(-1)
    y = np.asarray(y, np.float64).reshape(-1)
    return float(np.mean(np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))))


def _rising_fit(**early):
    """Full-batch SGD at a step size that makes the loss rise after epoch 1."""
    model = MLP(
        [2, 8, 1],
        "tanh",
        loss="bce_with_logits",
        backend="numpy",
        seed=1,
        dtype="float64",
    )
    stop = EarlyStopping(patience=3, restore_best=True, **early)
    history = model.fit(
        X,
        Y,
        epochs=40,
        batch_size=len(X),
        lr=8.0,
        optimizer="sgd",
        shuffle=False,
        callbacks=[stop],
        **({"validation_data": (X, Y)} if early.get("monitor") != "loss" else {}),
    )
    return model, stop, history


def test_restore_best_on_loss_gives_the_weights_the_best_loss_was_measured_at():
    """Use: EarlyStopping(monitor="loss", restore_best=True) with no validation
    data. fit's "loss" is the mean of the epoch's step losses, each measured before
    its update; the restored weights were those at the epoch's end. Before: the
    restored model's loss was 0.724 where es.best said 0.692 (float64); after: the
    loss of the restored model is es.best (full batch: exactly that epoch's loss)."""
    model, stop, history = _rising_fit(monitor="loss")
    assert stop.best == min(history["loss"]) < history["loss"][-1]
    got = _bce_with_logits(model.decision_function(X), Y)
    np.testing.assert_allclose(got, stop.best, rtol=1e-12)


def test_restore_best_on_val_loss_gives_the_end_of_epoch_weights():
    """The reference for validation metrics (measured at the end of each epoch):
    the restored model's validation loss is es.best."""
    model, stop, history = _rising_fit(monitor="val_loss")
    assert stop.best == min(history["val_loss"]) < history["val_loss"][-1]
    got = _bce_with_logits(model.decision_function(X), Y)
    np.testing.assert_allclose(got, stop.best, rtol=1e-12)
