"""The Playground with the real symnb.nn: it learns, Pause stops real training, setups
restore exactly, custom and per-neuron activations train."""

from __future__ import annotations

import time

import numpy as np
import pytest

import symnb
from symnb.widgets import Playground

from .conftest import png_ok


def test_learns_the_gaussian_data_set() -> None:
    pg = Playground(
        config={"dataset": "gaussian", "learning_rate": 0.03, "backend": "numpy"}
    )
    pg.train(epochs=15)
    train = pg.history["train"]
    assert len(train) == 15 == pg.epoch
    assert train[-1] < 0.5 * train[0]
    acc = pg.model.evaluate(pg._data["X_test"], pg._data["y_test"])["accuracy"]
    assert acc > 0.9
    assert pg.epoch_label.value == "Epoch 15"
    # the output map sent to the browser is 2 P(class 1) - 1 over the plane
    xs = np.linspace(-6, 6, 100)
    gx, gy = np.meshgrid(xs, xs)
    plane = np.stack([gx.ravel(), gy.ravel()], 1).astype(np.float32)
    p = pg.model.predict_proba(plane)[:, 1]
    sent = np.frombuffer(pg.view.output_map, dtype=np.float32)
    np.testing.assert_allclose(sent, 2 * p - 1, atol=1e-5)
    assert sent[0] < 0 < sent[-1]  # blue blob at (2, 2), orange at (-2, -2)
    assert png_ok(pg.snapshot_png())


def test_pause_stops_real_training() -> None:
    pg = Playground(config={"dataset": "spiral", "hidden": [8, 8], "backend": "numpy"})
    pg.play()
    deadline = time.monotonic() + 30
    while pg.epoch < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pg.is_running and pg.epoch >= 2
    assert pg.pause(timeout=30)
    assert not pg.is_running
    n = pg.epoch
    params = [np.array(p.data, copy=True) for p in pg.model.parameters()]
    time.sleep(0.3)
    assert pg.epoch == n == len(pg.history["train"])
    for before, p in zip(params, pg.model.parameters()):
        np.testing.assert_array_equal(before, np.asarray(p.data))
    assert pg.epoch_label.value == f"Epoch {n}"


def test_same_setup_gives_the_same_curve() -> None:
    cfg = {
        "dataset": "xor",
        "noise": 10,
        "hidden": [3],
        "learning_rate": 0.1,
        "regularization": "L2",
        "regularization_rate": 0.001,
        "backend": "numpy",
    }
    a = Playground(config=cfg)
    a.train(epochs=5)
    b = Playground(config=a.config)
    b.train(epochs=5)
    np.testing.assert_allclose(a.history["train"], b.history["train"], rtol=1e-6)
    np.testing.assert_allclose(a.history["test"], b.history["test"], rtol=1e-6)


def test_custom_per_neuron_activations_train_and_travel_in_the_config() -> None:
    bump = symnb.Activation("exp(-(x/w)**2)", name="bump", w=1.5)
    pg = Playground(
        config={
            "dataset": "circle",
            "hidden": [4],
            "backend": "numpy",
            "activations": [["bump", "tanh", "relu", "bump"]],
            "optimizer": "adam",
        },
        activations={"bump": bump},
    )
    pg.train(epochs=3)
    assert np.isfinite(pg.history["train"]).all()
    cfg = pg.config
    assert cfg["activations"] == [["bump", "tanh", "relu", "bump"]]
    assert cfg["custom_activations"] == {
        "bump": {"formula": "exp(-(x/w)**2)", "constants": {"w": 1.5}}
    }
    # a fresh playground that never saw `bump` rebuilds it from the config
    restored = Playground(config=cfg)
    assert restored.config == cfg
    restored.train(epochs=3)
    np.testing.assert_allclose(
        restored.history["train"], pg.history["train"], rtol=1e-6
    )


def test_regression_and_hidden_maps() -> None:
    pg = Playground(
        config={
            "dataset": "multi-gaussian",
            "hidden": [5, 3],
            "backend": "numpy",
            "features": ["x1", "x2", "x1^2", "x2^2"],
        }
    )
    pg.train(epochs=2)
    assert pg.model.sizes == [4, 5, 3, 1]
    assert pg.view.hidden == [5, 3] and pg.view.features == ["x1", "x2", "x1^2", "x2^2"]
    n = pg.view.neuron_grid
    maps = np.frombuffer(pg.view.neuron_maps, dtype=np.float32).reshape(8, n * n)
    xs = np.linspace(-6, 6, n)
    gx, gy = np.meshgrid(xs, xs)
    a, b = gx.ravel(), gy.ravel()
    inputs = np.stack([a, b, a * a, b * b], 1).astype(np.float32)
    hidden = np.concatenate([h.T for h in pg.model.hidden_outputs(inputs)])
    np.testing.assert_allclose(maps, hidden, rtol=1e-5, atol=1e-6)
    assert np.isfinite(pg.history["test"]).all()


@pytest.mark.parametrize("backend", ["cpp", "cuda"])
def test_native_backends(backend: str) -> None:
    st = symnb.backends.available()[backend]
    if not st.usable:
        pytest.skip(f"{backend}: {st.reason}")
    pg = Playground(config={"dataset": "gaussian", "backend": backend})
    pg.train(epochs=3)
    assert pg.model.backend == backend
    assert pg.history["train"][-1] < pg.history["train"][0]


def test_learnable_constants_train_and_travel_in_the_config() -> None:
    lswish = symnb.Activation(
        "x*sigmoid(beta*x)", name="lswish", beta=symnb.learnable(1.0, per="neuron")
    )
    pg = Playground(
        config={"hidden": [3], "activations": ["lswish"], "backend": "numpy"},
        activations={"lswish": lswish},
    )
    pg.train(epochs=3)
    spec = pg.config["custom_activations"]["lswish"]
    assert spec == {
        "formula": "x*sigmoid(beta*x)",
        "constants": {"beta": 1.0},
        "learnable": {"beta": "neuron"},
    }
    learned = pg.model.learned_constants()[0]["beta"]
    assert len(learned) == 3 and not np.allclose(learned, 1.0)
    restored = Playground(config=pg.config)
    restored.train(epochs=3)
    np.testing.assert_allclose(
        restored.history["train"], pg.history["train"], rtol=1e-6
    )
