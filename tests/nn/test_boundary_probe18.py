"""Eighteenth boundary probe of symnb.nn (helper h123).

References are float64 NumPy recomputations of the loss from the model's raw
outputs (the published binary cross-entropy with logits and mean squared error).
"""

from __future__ import annotations

import numpy as np
import pytest

from symnb import ModelFileError, datasets
from symnb.nn import MLP, EarlyStopping, load

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


def test_restore_best_on_loss_gives_the_end_of_the_best_epoch():
    """Use: EarlyStopping(monitor="loss", restore_best=True) with no validation
    data (the documented semantics, pinned against a NumPy reference): fit's
    "loss" of an epoch is taken before each step (full batch: at the epoch's
    start), and the weights restored are those at the end of the best epoch, so
    the restored model's loss is the next epoch's logged loss (0.724, not best's
    0.692, in float64)."""
    model, stop, history = _rising_fit(monitor="loss")
    losses = list(history["loss"])
    assert stop.best == min(losses) < losses[-1]
    got = _bce_with_logits(model.decision_function(X), Y)
    best = losses.index(stop.best)
    np.testing.assert_allclose(got, losses[best + 1], rtol=1e-12)


def test_restore_best_on_val_loss_gives_the_end_of_epoch_weights():
    """The reference for validation metrics (measured at the end of each epoch):
    the restored model's validation loss is es.best."""
    model, stop, history = _rising_fit(monitor="val_loss")
    assert stop.best == min(history["val_loss"]) < history["val_loss"][-1]
    got = _bce_with_logits(model.decision_function(X), Y)
    np.testing.assert_allclose(got, stop.best, rtol=1e-12)


def test_fit_continued_after_load_matches_the_uninterrupted_run(tmp_path):
    """Use: fit 3 epochs, save, load, fit 2 more (shuffled minibatches). Before:
    the loaded model shuffled from the seed's start again, so its weights left
    those of the model trained 5 epochs without a break (1.8e-3 with Adam, 3e-6
    with SGD, float32); after: identical. The reference is the same model object
    trained on without saving."""
    model = MLP([2, 6, 1], "tanh", loss="bce_with_logits", backend="numpy", seed=3)
    model.fit(X, Y, epochs=3, batch_size=8)
    model.save(tmp_path / "m.npz")
    loaded = load(tmp_path / "m.npz")
    model.fit(X, Y, epochs=2, batch_size=8)
    loaded.fit(X, Y, epochs=2, batch_size=8)
    np.testing.assert_array_equal(
        loaded.get_flat_parameters(), model.get_flat_parameters()
    )


def test_a_broken_shuffle_state_in_a_model_file_is_named(tmp_path):
    """A hand-edited file whose shuffle state is not four integers is a
    ModelFileError naming the field (not numpy's error from deep inside)."""
    import json

    model = MLP([2, 3, 1], "tanh", loss="bce_with_logits", backend="numpy", seed=3)
    model.save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz") as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays["meta"]))
    meta["shuffle"] = [1, 2, "x", 4]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ModelFileError, match="shuffle"):
        load(tmp_path / "bad.npz")
