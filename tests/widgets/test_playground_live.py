"""The live Playground from Python: view settings toggled while training (no race),
speed, the public surface (errors, stats, to_code), weights edited from the browser,
structure messages with their acknowledgement, activation changes that keep training
while the chosen backend's model builds in the background, and data beyond
TensorFlow Playground (a typed formula, the user's arrays)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from symnb.widgets import Playground, playground
from symnb.widgets.view import PlaygroundView

from .test_playground_controls import floats, wait_for


@pytest.fixture
def pg(fake_nn):
    p = Playground(frame_interval=0.01)
    yield p
    p.pause()


def test_view_toggles_while_training_real_network() -> None:
    """Issue 13: 'Show test data' / 'Discretize' while training failed 14 times in 24
    (the redraw read the loss history while training appended to it)."""
    pg = Playground(config={"backend": "numpy", "hidden": [8, 8]}, frame_interval=0.0)
    pg.play()
    assert wait_for(lambda: pg.epoch >= 2, 60)
    snapshots = []
    for i in range(200):
        pg.set_view(show_test=i % 2 == 0, discretize=i % 3 == 0)
        pg.set_view(presentation=i % 5 == 0)
        if i % 20 == 0:
            snapshots.append(pg.snapshot())
    pg.render()
    assert pg.is_running
    assert pg.pause()
    assert pg.errors == [], pg.errors
    assert pg.output.outputs == ()
    assert pg.stats()["frames"] > 0
    for snap in snapshots:  # each snapshot is one consistent state
        assert len(snap.train) == len(snap.test) == snap.epoch
    # views hold copies: training on does not change a snapshot taken before
    last = pg.snapshot()
    pg.step()
    assert len(last.train) == last.epoch == pg.epoch - 1


def test_snapshot_is_immutable_and_consistent(pg, fake_nn) -> None:
    fake_nn.delay = 0.002
    pg.play()
    seen = []
    errors = []

    def reader() -> None:
        try:
            for _ in range(200):
                snap = pg.snapshot()
                seen.append((snap.epoch, len(snap.train), len(snap.test)))
        except Exception as exc:  # noqa: BLE001 - collected for the assert
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    pg.pause()
    assert errors == []
    assert all(e == a == b for e, a, b in seen)


def test_speed_limits_epochs_per_second(pg, fake_nn) -> None:
    pg.speed = 10
    t0 = time.monotonic()
    pg.play()
    time.sleep(1.0)
    pg.pause()
    elapsed = time.monotonic() - t0
    # about 10 epochs a second (first epoch at once); generous for a loaded machine
    assert 0.5 * 10 * elapsed <= pg.epoch <= 10 * elapsed + 2
    pg.speed = None
    pg.play()
    assert wait_for(lambda: pg.epoch > 40, 10)
    pg.pause()


def test_speed_slider_sets_speed(pg) -> None:
    pg.speed_slider.value = 5.0
    assert pg.speed == 5.0
    pg.speed_slider.value = 0.0  # "max"
    assert pg.speed is None
    assert pg.config["speed"] is None


def test_stats_and_frames(pg) -> None:
    stats = pg.stats()
    assert {"epoch", "frames", "frames_drawn", "train_seconds", "draw_seconds"} <= set(
        stats
    )
    frames = stats["frames"]
    pg.step()
    assert pg.stats()["epoch"] == 1 and pg.stats()["frames"] == frames + 1
    pg.view._handle_custom_msg({"kind": "drawn", "frame": pg.view.frame}, [])
    assert pg.stats()["frames_drawn"] == 1
    pg.view._handle_custom_msg(
        {"kind": "drawn", "frame": pg.view.frame, "draws": 3}, []
    )
    assert pg.stats()["frames_drawn"] == 4  # reports are batched


def test_views_take_a_bounded_share_of_the_kernel(pg, fake_nn) -> None:
    """A view update that costs c seconds is sent at most every c / VIEW_SHARE s."""
    pg.frame_interval = 0.0
    pg._view_cost = 0.1
    frame = pg.view.frame
    pg._last_frame = time.monotonic() - 0.2  # 0.2 s < 0.1 / 0.2 = 0.5 s
    pg._send_frame()
    assert pg.view.frame == frame
    pg._last_frame = time.monotonic() - 0.6
    pg._send_frame()
    assert pg.view.frame == frame + 1
    assert 0 < pg._view_cost < 0.1  # the running mean follows the real cost


def test_frames_wait_for_a_slow_browser(pg, fake_nn) -> None:
    """Python sends no more than a few frames ahead of what the browser drew (it
    draws only the newest of the frames that arrived)."""
    pg.frame_interval = 0.0
    pg._view_cost = 0.0
    pg.view._handle_custom_msg({"kind": "drawn", "frame": pg.view.frame}, [])
    acked = pg.view.frame
    for _ in range(20):
        pg.step()  # a step always sends (force); training frames are throttled
    for _ in range(20):
        pg._view_cost = 0.0  # (cheap views: only the browser holds frames back)
        pg._send_frame()
    assert pg.view.frame == acked + 20  # nothing beyond the forced frames
    pg.view._handle_custom_msg({"kind": "drawn", "frame": pg.view.frame}, [])
    for _ in range(20):
        pg._view_cost = 0.0  # (cheap views: only the browser holds frames back)
        pg._send_frame()
    assert pg.view.frame == acked + 20 + 7  # up to 6 frames not yet drawn, then wait


def test_to_code_rebuilds_the_same_setup(fake_nn) -> None:
    pg = Playground(
        config={"dataset": "xor", "hidden": [3, 2], "learning_rate": 0.1, "speed": 5}
    )
    code = pg.to_code()
    assert code.startswith("from symnb.widgets import Playground")
    namespace: dict = {}
    exec(compile(code, "<to_code>", "exec"), namespace)  # noqa: S102 - our own text
    assert namespace["playground"].config == pg.config


def test_weight_edit_from_the_browser_changes_the_output(pg, fake_nn) -> None:
    model = pg.model
    before = floats(pg.view.output_map).copy()
    pg.view._handle_custom_msg(
        {"kind": "weight", "layer": 2, "source": 1, "target": 0, "value": -3.5}, []
    )
    assert model.weights[2][1, 0] == -3.5
    sent = floats(pg.view.weights)
    offset = model.weights[0].size + model.weights[1].size
    assert sent[offset + 1] == np.float32(-3.5)  # row-major (fan_in, fan_out)
    assert not np.array_equal(floats(pg.view.output_map), before)
    with pytest.raises(IndexError):
        pg.set_weight(5, 0, 0, 1.0)
    with pytest.raises(ValueError, match="finite"):
        pg.set_weight(0, 0, 0, float("nan"))


def test_structure_messages_are_acknowledged(pg, fake_nn) -> None:
    """Three quick '+ neuron' clicks are three messages: three neurons, acked."""
    for seq in (1, 2, 3):
        pg.view._handle_custom_msg(
            {"kind": "neurons", "layer": 0, "delta": 1, "seq": seq}, []
        )
    pg.wait_for_build()
    assert pg.view.hidden == [7, 2] and pg.view.ack == 3
    assert pg.model.sizes == [2, 7, 2, 1]
    pg.view._handle_custom_msg({"kind": "layers", "delta": 1, "seq": 4}, [])
    pg.view._handle_custom_msg(
        {"kind": "activation", "layer": 2, "neuron": 1, "name": "relu", "seq": 5}, []
    )
    pg.view._handle_custom_msg(
        {"kind": "activation", "layer": 0, "neuron": -1, "name": "sigmoid", "seq": 6},
        [],
    )
    pg.wait_for_build()
    assert pg.view.ack == 6
    assert pg.model.activation == ["sigmoid", "tanh", ["tanh", "relu"]]
    # an older activation choice that arrives late does not win
    late = {"kind": "activation", "layer": 1, "neuron": -1, "session": "v"}
    pg.view._handle_custom_msg(dict(late, name="relu", seq=9), [])
    pg.view._handle_custom_msg(dict(late, name="sigmoid", seq=8), [])
    pg.wait_for_build()
    assert pg.model.activation[1] == "relu" and pg.view.ack == 9
    # a bad message is shown, not lost, and still acknowledged
    pg.view._handle_custom_msg(
        {"kind": "neurons", "layer": 9, "delta": 1, "seq": 10}, []
    )
    assert pg.view.ack == 10 and isinstance(pg.errors[-1], IndexError)


def test_activation_change_keeps_training_while_the_backend_builds(
    fake_nn, monkeypatch
) -> None:
    built = threading.Event()

    def slow_native(sizes, activations, loss, backend, seed, **device):
        if backend != "numpy":
            time.sleep(0.5)  # a compile
            built.set()
        return fake_nn(sizes, activations, loss, backend, seed, **device)

    monkeypatch.setattr(playground, "build_model", slow_native)
    fake_nn.delay = 0.002
    pg = Playground(config={"backend": "auto"})
    assert pg.model.backend == "auto"  # reset builds the chosen backend at once
    pg.play()
    assert wait_for(lambda: pg.epoch >= 3)
    with pg._lock:
        weights = pg.model.get_flat_parameters()
    t0 = time.monotonic()
    pg.set_activation("relu", layer=1)
    assert time.monotonic() - t0 < 0.4  # did not wait for the compile
    quick = pg.model
    assert quick.backend == "numpy" and quick.activation == ["tanh", "relu"]
    assert pg.is_running
    # the weights were carried over (then trained on: the fake shrinks them)
    with pg._lock:
        ratio = quick.get_flat_parameters() / weights
    assert np.allclose(ratio, ratio[0]) and 0.5 < ratio[0] <= 1
    assert "building auto" in pg._backend_text()
    epoch = pg.epoch
    assert wait_for(lambda: pg.epoch > epoch + 5)  # training goes on meanwhile
    assert built.wait(10) and pg.wait_for_build(10)
    assert pg.model.backend == "auto" and pg.model.activation == ["tanh", "relu"]
    assert pg.is_running
    pg.pause()
    assert pg.stats()["backend"] == "auto" and pg.errors == []


def test_esm_and_css_ship_in_the_package() -> None:
    view = PlaygroundView()
    assert (
        "export default" in view._esm
        and "requestAnimationFrame" in view._esm
        and "renderCurves" in view._esm
    )
    assert ".symnb-pgv" in view._css
    from symnb.widgets.view import CurveView

    assert CurveView().view == "curves" and view.view == "playground"


# ------------------------------------------------------------------ data


def test_data_from_a_condition(fake_nn) -> None:
    pg = Playground(config={"dataset": "formula", "data_formula": "x2 > sin(2*x1)"})
    assert pg.problem.value == "classification"
    d = pg._data
    X, y = d["points_train"], d["labels_train"]
    np.testing.assert_array_equal(y, np.where(X[:, 1] > np.sin(2 * X[:, 0]), 1, -1))
    assert pg.config["dataset"] == "formula"
    assert pg.config["data_formula"] == "x2 > sin(2*x1)"
    restored = Playground(config=pg.config)
    np.testing.assert_array_equal(restored._data["labels_train"], y)


def test_data_from_a_regression_formula(fake_nn) -> None:
    pg = Playground()
    pg.data_formula.value = "x1*x2"
    assert pg.problem.value == "regression" and fake_nn.instances[-1].loss == "mse"
    X, y = pg._data["points_train"], pg._data["labels_train"]
    target = X[:, 0] * X[:, 1]
    ratio = y / target
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-9)  # scaled into [-1, 1]
    assert np.abs(y).max() <= 1 and ratio[0] >= 1 / 36 - 1e-12  # |x1*x2| <= 36


@pytest.mark.parametrize(
    "text, words",
    [
        ("x2 > sinn(x1)", ["sinn", "sin"]),
        ("x3 + x1", ["x3"]),
        ("__import__('os')", ["not allowed"]),
    ],
)
def test_bad_data_formula_is_shown(fake_nn, text, words) -> None:
    pg = Playground()
    cfg = pg.config
    pg.data_formula.value = text
    for word in words:
        assert word in pg.status.value
    assert pg.config == cfg  # the data set did not change


def test_data_from_arrays_two_features(fake_nn) -> None:
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 1, (120, 2))
    y = (X[:, 0] > X[:, 1]).astype(int)
    pg = Playground(data=(X, y))
    assert pg.problem.value == "classification"
    assert fake_nn.instances[-1].sizes[0] == 2
    shown = np.vstack([pg._data["points_train"], pg._data["points_test"]])
    assert np.abs(shown).max() <= 6
    labels = np.concatenate([pg._data["labels_train"], pg._data["labels_test"]])
    assert sorted(set(labels)) == [-1.0, 1.0] and (labels > 0).sum() == y.sum()


def test_data_from_arrays_more_features_projected(fake_nn) -> None:
    rng = np.random.default_rng(2)
    X = rng.normal(size=(90, 5))
    y = X[:, 0] + 0.5 * X[:, 3]
    pg = Playground(data=(X, y))
    assert pg.problem.value == "regression"
    assert fake_nn.instances[-1].sizes[0] == 5
    assert pg.view.features == ["x1", "x2", "x3", "x4", "x5"]
    assert pg._data["X_grid"].shape == (100 * 100, 5)
    assert pg._data["points_train"].shape[1] == 2


@pytest.mark.parametrize(
    "X, y, words",
    [
        (np.zeros((10, 1)), np.zeros(10), ["shape"]),
        (np.zeros((10, 2)), np.zeros(9), ["10 rows", "9 labels"]),
        (np.array([[0, 1], [np.nan, 1], [0, 0], [1, 1]]), np.zeros(4), ["X[1, 0]"]),
        ([["a", "b"]] * 5, np.zeros(5), ["numbers"]),
    ],
)
def test_bad_arrays_are_refused(fake_nn, X, y, words) -> None:
    with pytest.raises(ValueError) as info:
        Playground(data=(X, y))
    for word in words:
        assert word in str(info.value)
