"""Playground logic with a stand-in network: Play/Pause/Step/Reset, the training thread,
the lock, the refresh rate, config round trips and the controls' effects.

The stand-in (``FakeMLP`` in conftest) makes epochs take a known time, so these tests
check the widget's own behaviour whatever the load of the machine;
``test_playground_nn.py`` runs the real ``symnb.nn``.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from .conftest import png_ok


def floats(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype=np.float32)


def wait_for(cond, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return cond()


@pytest.fixture
def pg(fake_nn):
    from symnb.widgets import Playground

    p = Playground(refresh_interval=0.1, frame_interval=0.05)
    yield p
    p.pause()


def test_initial_state(pg, fake_nn) -> None:
    assert pg.epoch == 0
    assert pg.history == {"train": [], "test": []}
    assert pg.epoch_label.value == "Epoch 0"
    assert not pg.is_running
    assert pg.play_button.disabled is False and pg.pause_button.disabled is True
    m = fake_nn.instances[-1]
    assert m.sizes == [2, 4, 2, 1]
    assert m.loss == "bce_with_logits"
    assert m.activation == ["tanh", "tanh"]
    v = pg.view
    assert v.hidden == [4, 2] and v.features == ["x1", "x2"]
    assert floats(v.output_map).shape == (100 * 100,)
    assert floats(v.neuron_maps).shape == (6 * v.neuron_grid**2,)
    # weights of the three layers, as the model holds them
    want = np.concatenate([w.ravel() for w in m.weights]).astype(np.float32)
    np.testing.assert_array_equal(floats(v.weights), want)
    assert len(floats(v.train_points)) == 3 * 250
    assert pg.errors == [] and pg.stats()["epoch"] == 0


def test_step_trains_one_epoch_and_updates_the_view(pg, fake_nn) -> None:
    before = pg.view.output_map
    frames = pg.stats()["frames"]
    pg.step_button.click()
    assert pg.epoch == 1
    assert len(pg.history["train"]) == len(pg.history["test"]) == 1
    assert pg.epoch_label.value == "Epoch 1"
    assert "Training loss 0.500" in pg.loss_label.value
    assert pg.view.output_map != before  # the fake's weights shrink each epoch
    assert pg.stats()["frames"] > frames and pg.view.epoch == 1
    np.testing.assert_allclose(floats(pg.view.loss_train), [0.5])
    call = fake_nn.instances[-1].train_calls[-1]
    assert call["batch_size"] == 10 and call["l1"] == 0 and call["l2"] == 0
    assert call["n"] == 250  # 50 % of 500 points


def test_pause_stops_a_running_training(pg, fake_nn) -> None:
    fake_nn.delay = 0.02
    pg.play_button.click()
    assert pg.is_running
    assert pg.play_button.disabled and not pg.pause_button.disabled
    assert wait_for(lambda: pg.epoch >= 3)
    pg.pause_button.click()
    assert not pg.is_running
    stopped_at = pg.epoch
    time.sleep(0.2)
    assert pg.epoch == stopped_at  # nothing trains after Pause
    assert pg.epoch_label.value == f"Epoch {stopped_at}"  # the final value was sent
    assert len(pg.history["train"]) == stopped_at
    assert not pg.play_button.disabled and pg.pause_button.disabled
    # Play resumes from there
    pg.play()
    assert wait_for(lambda: pg.epoch > stopped_at)
    assert pg.pause()
    assert fake_nn.instances[-1].violations == []


def test_play_with_epochs_and_wait(pg) -> None:
    pg.play(epochs=5)
    assert pg.wait(10)
    assert pg.epoch == 5
    assert pg.epoch_label.value == "Epoch 5"


def test_changes_while_running_wait_for_the_epoch_boundary(pg, fake_nn) -> None:
    fake_nn.delay = 0.01
    pg.play()
    assert wait_for(lambda: pg.epoch >= 2)
    for lr, opt in ((0.1, "adam"), (0.3, "momentum"), (0.01, "sgd"), (0.03, "adam")):
        pg.learning_rate.value = lr  # applied between epochs
        pg.optimizer.value = opt  # a new optimizer, built under the lock
        time.sleep(0.015)
    assert pg.is_running
    pg.pause()
    model = fake_nn.instances[-1]
    assert model.violations == []
    assert pg._optimizer.lr == 0.03 and pg._optimizer.name == "adam"


def test_reset_while_running_pauses_and_restarts(pg, fake_nn) -> None:
    fake_nn.delay = 0.01
    pg.play()
    assert wait_for(lambda: pg.epoch >= 2)
    pg.reset_button.click()
    assert not pg.is_running
    assert pg.epoch == 0 and pg.history["train"] == []
    assert pg.epoch_label.value == "Epoch 0"
    assert all(m.violations == [] for m in fake_nn.instances)


def test_refresh_rate_is_bounded_and_final_state_sent(pg, fake_nn, sent) -> None:
    fake_nn.delay = 0.0005  # hundreds of epochs a second
    t0 = time.monotonic()
    pg.play()
    time.sleep(1.5)
    pg.pause()
    elapsed = time.monotonic() - t0
    assert pg.epoch > 30
    label_msgs = sent[pg.epoch_label.model_id]
    view_msgs = sent[pg.view.model_id]
    assert label_msgs <= elapsed / pg.refresh_interval + 3
    assert view_msgs <= elapsed / pg.frame_interval + 5
    assert view_msgs < pg.epoch  # fewer messages than epochs
    assert pg.epoch_label.value == f"Epoch {pg.epoch}"
    assert pg.view.epoch == pg.epoch  # the final state was sent
    sent_loss = floats(pg.view.loss_train)
    assert sent_loss[-1] == np.float32(pg.history["train"][-1])
    if pg.epoch <= 1000:
        assert len(sent_loss) == pg.epoch
    else:  # long curves are thinned to about 1000 points, the last one kept
        assert len(sent_loss) <= 1001 and pg.view.loss_step == -(-pg.epoch // 1000)


def test_config_round_trip(fake_nn) -> None:
    from symnb.widgets import Playground

    cfg = {
        "dataset": "spiral",
        "noise": 15,
        "train_percent": 70,
        "batch_size": 5,
        "features": ["x1", "x2", "sin x1"],
        "hidden": [3, 2, 2],
        "activations": ["relu", ["tanh", "sigmoid"], "linear"],
        "learning_rate": 0.1,
        "regularization": "L2",
        "regularization_rate": 0.003,
        "optimizer": "adam",
        "show_test": True,
        "discretize": True,
        "data_seed": 4,
        "seed": 7,
    }
    a = Playground(config=cfg)
    got = a.config
    json.dumps(got)  # JSON-able
    for k, v in cfg.items():
        assert got[k] == v, k
    assert got["problem"] == "classification"
    m = fake_nn.instances[-1]
    assert m.sizes == [3, 3, 2, 2, 1]
    assert m.activation == ["relu", ["tanh", "sigmoid"], "linear"]
    assert m.seed == 7
    b = Playground(config=got)
    assert b.config == got
    assert b.noise.value == 15 and b.dataset.value == "spiral"
    assert b.feature_boxes["sin x1"].value and not b.feature_boxes["x1^2"].value
    assert b.view.hidden == [3, 2, 2]
    assert b.view.neuron_activations[1] == ["", "sigmoid"]
    assert b.view.layer_activations == ["relu", "tanh", "linear"]
    b.step()
    b.config = {"dataset": "xor"}  # the setter applies a setup too (epoch 0)
    assert b.epoch == 0 and b.config["hidden"] == [4, 2]
    b.config = got
    b.step()
    call = fake_nn.instances[-1].train_calls[-1]
    assert call["l2"] == 0.003 and call["l1"] == 0.0 and call["batch_size"] == 5
    assert call["optimizer"].name == "adam" and call["optimizer"].lr == 0.1


def test_bad_config_is_refused_with_the_key() -> None:
    from symnb.widgets.playground import normalize_config

    with pytest.raises(ValueError, match="dataset"):
        normalize_config({"dataset": "moons"})
    with pytest.raises(ValueError, match="unknown playground setting"):
        normalize_config({"lerning_rate": 0.1})
    with pytest.raises(ValueError, match="noise"):
        normalize_config({"noise": 80})
    with pytest.raises(ValueError, match="hidden"):
        normalize_config({"hidden": [9]})
    with pytest.raises(ValueError, match="layer 2 has 2 neurons but 3"):
        normalize_config({"activations": ["tanh", ["relu", "tanh", "relu"]]})
    with pytest.raises(ValueError, match="not a regression"):
        normalize_config({"problem": "regression", "dataset": "xor"})


def test_regression_problem(pg, fake_nn) -> None:
    pg.problem.value = "regression"
    assert pg.dataset.options == ("plane", "multi-gaussian")
    assert pg.dataset.value == "plane"
    m = fake_nn.instances[-1]
    assert m.loss == "mse"
    assert len(pg._data["X_train"]) == 600
    pg.dataset.value = "multi-gaussian"
    pg.step()
    assert pg.epoch == 1 and pg.view.problem == "regression"
    assert np.abs(floats(pg.view.train_points)[2::3]).max() <= 1
    assert pg.config["problem"] == "regression"


def test_structure_controls(pg, fake_nn) -> None:
    pg.add_layer()
    pg.wait_for_build()
    assert pg.model.sizes == [2, 4, 2, 2, 1]
    assert pg.view.hidden == [4, 2, 2]
    pg.remove_layer()
    pg.remove_layer()
    pg.wait_for_build()
    assert pg.model.sizes == [2, 4, 1]
    pg.add_neuron(0)
    assert pg.model.sizes == [2, 5, 1]
    pg.remove_neuron(0)
    pg.remove_neuron(0)
    pg.wait_for_build()
    assert pg.model.sizes == [2, 3, 1]
    with pytest.raises(IndexError, match="1 hidden layers"):
        pg.add_neuron(3)
    pg.add_neuron(0)
    pg.add_neuron(0)
    pg.feature_boxes["x1*x2"].value = True
    assert pg.model.sizes == [3, 5, 1]
    # the last feature cannot be unchecked
    for name in ("x1", "x2", "x1*x2"):
        pg.feature_boxes[name].value = False
    assert pg.features == ["x1*x2"]
    assert "at least one" in pg.status.value


def test_activation_per_layer_and_per_neuron(pg, fake_nn) -> None:
    pg.activation.value = "relu"
    pg.wait_for_build()
    assert pg.model.activation == ["relu", "relu"]
    pg.set_activation("sigmoid", layer=1)
    pg.wait_for_build()
    assert pg.model.activation == ["relu", "sigmoid"]
    pg.set_activation("tanh", layer=0, neuron=2)
    pg.wait_for_build()
    assert pg.model.activation == [["relu", "relu", "tanh", "relu"], "sigmoid"]
    assert pg.config["activations"] == [["relu", "relu", "tanh", "relu"], "sigmoid"]
    assert pg.view.neuron_activations[0] == ["", "", "tanh", ""]
    pg.set_activation("", layer=0, neuron=2)  # back to the layer's
    pg.wait_for_build()
    assert pg.model.activation == ["relu", "sigmoid"]
    with pytest.raises(ValueError, match="unknown activation 'nope'"):
        pg.set_activation("nope", layer=0)


def test_data_controls_regenerate(pg, fake_nn) -> None:
    first = pg._data["points_train"].copy()
    pg.regenerate_button.click()
    assert pg.config["data_seed"] == 1
    assert (pg._data["points_train"] != first).any()
    pg.train_percent.value = 80
    assert len(pg._data["X_train"]) == 400
    pg.noise.value = 25
    assert pg.config["noise"] == 25
    pg.batch_size.value = 3
    pg.step()
    assert fake_nn.instances[-1].train_calls[-1]["batch_size"] == 3


def test_view_options_reach_the_view(pg) -> None:
    pg.show_test.value = True
    assert pg.view.show_test
    pg.set_view(discretize=True, show_test=False)
    assert pg.view.discretize and not pg.view.show_test
    assert pg.discretize.value and not pg.show_test.value
    with pytest.raises(TypeError, match="show_test"):
        pg.set_view(show_test="yes")


def test_errors_in_training_are_shown_and_stop(pg, fake_nn) -> None:
    model = fake_nn.instances[-1]

    def boom(*a, **k):
        raise FloatingPointError("the loss became NaN at epoch 1, step 3")

    model.train_epoch = boom
    pg.play()
    assert pg.wait(5)
    assert not pg.is_running
    assert "NaN" in pg.status.value
    assert any("NaN" in o.get("text", "") for o in pg.output.outputs)
    assert [type(e) for e in pg.errors] == [FloatingPointError]
    pg.step()  # also shown, not raised
    assert "NaN" in pg.status.value
    assert len(pg.errors) == 2
    pg.reset()  # Reset clears the error box
    assert pg.errors == [] and pg.output.outputs == ()
    assert "NaN" not in pg.status.value


def test_model_build_error_is_shown(monkeypatch, fake_nn) -> None:
    from symnb.widgets import Playground, playground

    def refuse(*a, **k):
        raise ValueError("unknown activation 'nope'")

    monkeypatch.setattr(playground, "build_model", refuse)
    pg = Playground()
    assert pg.model is None
    assert "unknown activation" in pg.status.value
    pg.play()
    assert not pg.is_running


def test_headless_display_has_a_png(pg) -> None:
    bundle = pg._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    import base64

    assert png_ok(base64.b64decode(bundle["image/png"]))
    assert "Playground" in bundle["text/plain"]


def test_rebuilding_does_not_leak_widgets(pg) -> None:
    from ipywidgets.widgets.widget import _instances

    pg.add_layer()
    pg.remove_layer()
    before = len(_instances)
    for _ in range(3):
        pg.add_layer()
        pg.add_neuron(2)
        pg.remove_layer()
    pg.wait_for_build()
    assert len(_instances) == before
    pg.close()
    assert not pg.is_running
    assert pg.comm is None and pg.play_button.comm is None


def test_dom_classes_for_browser_tests(pg) -> None:
    expected = {
        pg.play_button: "symnb-play",
        pg.pause_button: "symnb-pause",
        pg.step_button: "symnb-step",
        pg.reset_button: "symnb-reset",
        pg.epoch_label: "symnb-epoch",
        pg.view: "symnb-view",
        pg.speed_slider: "symnb-speed",
        pg.presentation: "symnb-presentation",
        pg.loss_label: "symnb-loss",
        pg.dataset: "symnb-dataset",
        pg: "symnb-playground",
    }
    for widget, name in expected.items():
        assert name in widget._dom_classes, name
