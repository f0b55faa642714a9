"""Playground data and training at their edges (a hostile-input probe, 2026-12-04).

- A small data set of your own with Train % 10 left no training point: every epoch
  failed with "training data: X is empty".
- Your own X near the float64 limit (1e308): the centring overflowed, so training
  blamed "X contains NaN or infinity" (two columns), or NumPy's SVD raised
  LinAlgError at construction (three columns).
- y of shape (n, 2) was flattened and then reported as "n rows in X but 2n labels".
- A regression formula data set labelled its undefined or overflowing points 0:
  ``exp(1000*x1)`` became 0 exactly where it is largest, ``sqrt(-1-x1**2)`` trained on
  all zeros.
- A diverged network: the status line did not say what to change, and drawing its
  maps printed NumPy overflow warnings from the training thread.
- A crafted setup nested a few hundred levels deep: RecursionError from
  copy.deepcopy; a speed of 1e-300 epochs/s: OverflowError from the training thread.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

from symnb.widgets import Playground, data
from symnb.widgets.data_source import RADIUS, DataSource
from symnb.widgets.playground_config import PlaygroundConfigError, normalize_config


def make(**kwargs) -> Playground:
    config = dict({"backend": "numpy"}, **kwargs.pop("config", {}))
    return Playground(config=config, **kwargs)


@pytest.mark.parametrize("n", range(2, 12))
@pytest.mark.parametrize("percent", [10, 50, 90])
def test_split_keeps_a_point_on_each_side(n, percent) -> None:
    X = np.arange(2 * n, dtype=float).reshape(n, 2)
    y = np.arange(n, dtype=float)
    Xtr, ytr, Xte, yte = data.split(X, y, percent, seed=3)
    assert len(Xtr) >= 1 and len(Xte) >= 1
    assert len(Xtr) + len(Xte) == n
    assert sorted(np.concatenate([ytr, yte]).tolist()) == y.tolist()
    if n >= 10:  # large enough: the percentage itself
        assert len(Xtr) == int(np.floor(n * percent / 100))


def test_split_of_the_playground_data_sets_is_unchanged() -> None:
    X, y = data.generate("circle", 0, seed=0)
    for percent in range(10, 100, 10):
        Xtr, _, Xte, _ = data.split(X, y, percent, seed=0)
        assert len(Xtr) == len(X) * percent // 100 and len(Xte) == len(X) - len(Xtr)


def test_small_data_with_train_percent_10_trains() -> None:
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [-1.0, -2.0]])
    pg = make(data=(X, [0, 1, 0, 1]), config={"train_percent": 10})
    pg.step()
    assert pg.errors == [], pg.errors
    assert pg.epoch == 1
    assert len(pg._data["X_train"]) == 1 and len(pg._data["X_test"]) == 3
    assert np.isfinite(pg.history["train"]).all()


def _shown(pg: Playground) -> np.ndarray:
    d = pg._data
    return np.concatenate([d["points_train"], d["points_test"]])


@pytest.mark.parametrize("columns", [2, 3, 5])
def test_own_data_near_the_float64_limit(columns) -> None:
    """The picture and the network inputs do not depend on the data's unit: the same
    points times 1e308 give what they give at their own size."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(30, columns))
    y = (X[:, 0] > 0).astype(int)
    small = make(data=(X, y))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        huge = make(data=(X * 1e308, y))
    huge.step()
    assert huge.errors == [], huge.errors
    assert np.isfinite(huge._data["X_train"]).all()
    np.testing.assert_allclose(
        np.abs(_shown(huge)), np.abs(_shown(small)), rtol=1e-9, atol=1e-9
    )
    if columns == 2:  # two columns are drawn as they are: centred, one scale
        reference = X - X.mean(0)
        reference = reference / np.abs(reference).max() * (RADIUS - 0.5)
        points = _shown(small)
        order = np.lexsort(points.T)
        np.testing.assert_allclose(
            points[order], reference[np.lexsort(reference.T)], rtol=1e-12
        )


def test_y_with_two_columns_is_named() -> None:
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError) as info:
        make(data=(X, np.zeros((20, 2))))
    assert "shape (20, 2)" in str(info.value) and "y must" in str(info.value)
    pg = make(data=(X, (np.arange(20) % 2).reshape(-1, 1)))  # a column is fine
    assert pg.problem.value == "classification"


def _formula_points(pg: Playground) -> tuple[np.ndarray, np.ndarray]:
    d = pg._data
    return (
        np.concatenate([d["points_train"], d["points_test"]]),
        np.concatenate([d["labels_train"], d["labels_test"]]),
    )


def test_formula_data_leaves_out_undefined_points() -> None:
    pg = make(config={"dataset": "formula", "data_formula": "log(x1)"})
    points, labels = _formula_points(pg)
    assert (points[:, 0] > 0).all()  # log(x1) is undefined for x1 <= 0
    reference = np.log(points[:, 0])
    np.testing.assert_allclose(labels, reference / np.abs(reference).max(), rtol=1e-12)
    assert "left out" in pg.status.value and "log(x1)" in pg.status.value
    pg.step()
    assert pg.errors == []


def test_formula_data_beyond_float64_is_left_out_not_zero() -> None:
    pg = make(config={"dataset": "formula", "data_formula": "exp(1000*x1)"})
    points, labels = _formula_points(pg)
    limit = np.log(np.finfo(np.float64).max) / 1000  # exp overflows above it
    assert points[:, 0].max() <= limit
    reference = np.exp(1000 * points[:, 0])
    np.testing.assert_allclose(labels, reference / reference.max(), rtol=1e-9)
    assert labels.max() == 1.0


def test_formula_data_without_any_value_is_refused() -> None:
    with pytest.raises(ValueError) as info:
        make(config={"dataset": "formula", "data_formula": "sqrt(-1 - x1**2)"})
    assert "sqrt(-1 - x1**2)" in str(info.value) and "finite" in str(info.value)
    pg = make()
    pg.data_formula.value = "sqrt(-1 - x1**2)"
    assert "finite" in pg.status.value
    assert pg.errors == [] and pg.output.outputs == ()
    assert pg._source is None and pg.model is not None  # the old data set stays


def test_formula_source_note_follows_the_noise() -> None:
    source = DataSource.from_formula("x1*x2")
    source.points(0, 0)
    assert source.note == ""
    source = DataSource.from_formula("log(x2)")
    source.points(30, 1)
    assert "left out" in source.note


#: a network that diverges in its first epoch
DIVERGES = {
    "learning_rate": 100.0,
    "activations": "linear",
    "problem": "regression",
    "dataset": "plane",
    "batch_size": 1,
}


def test_diverged_training_says_what_to_change() -> None:
    pg = make(
        config={**DIVERGES, "regularization": "L2", "regularization_rate": 0.1}
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pg.step()
        pg.play()
        assert pg.wait(60)
        pg.render()
    status = pg.status.value
    assert "lower the learning rate (now 100)" in status
    assert "L2 rate (now 0.1)" in status and "Reset" in status
    assert [str(w.message) for w in caught if w.category is RuntimeWarning] == []
    pg.learning_rate.value = 0.001
    pg.regularization.value = "none"
    pg.reset()
    pg.train(3)
    assert pg.errors == [] and pg.epoch == 3
    assert np.isfinite(pg.model.get_flat_parameters()).all()


# ---------------------------------------------------------------- crafted setups


@pytest.mark.parametrize("depth", [7, 50, 800, 5000])
def test_deeply_nested_setup_is_refused_by_name(depth) -> None:
    """copy.deepcopy of a crafted setup raised RecursionError from ~300 levels."""
    nested: object = "tanh"
    for _ in range(depth):
        nested = [nested]
    with pytest.raises(PlaygroundConfigError) as info:
        normalize_config({"activations": nested})
    assert "'activations'" in str(info.value) and "nested" in str(info.value)
    inner: dict = {}
    outer = inner
    for _ in range(depth):
        inner["k"] = {}
        inner = inner["k"]
    with pytest.raises(PlaygroundConfigError) as info:
        normalize_config(
            {"custom_activations": {"a": {"formula": "x", "constants": outer}}}
        )
    assert "'custom_activations'" in str(info.value)


def test_setups_as_deep_as_they_get_are_taken() -> None:
    cfg = normalize_config(
        {
            "hidden": [2],
            "activations": [["tanh", "xt"]],
            "custom_activations": {
                "xt": {
                    "formula": "a*x*tanh(x)",
                    "constants": {"a": 1.0},
                    "learnable": {"a": "neuron"},
                }
            },
        }
    )
    assert cfg["activations"] == [["tanh", "xt"]]


@pytest.mark.parametrize("speed", [1e-300, 1e-3, 0.0099])
def test_speed_too_slow_is_refused(speed) -> None:
    """A speed of 1e-300 epochs/s made the training thread wait 1e300 s:
    OverflowError 'timestamp out of range' after the first epoch."""
    with pytest.raises(PlaygroundConfigError) as info:
        make(config={"speed": speed})
    assert "'speed'" in str(info.value) and "0.01" in str(info.value)
    pg = make()
    with pytest.raises(PlaygroundConfigError):
        pg.speed = speed
    pg.speed = 0.01  # the slowest: one epoch, then a wait of 100 s
    pg.play()
    deadline = time.monotonic() + 30
    while pg.epoch < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pg.pause(5)
    assert pg.errors == [] and pg.epoch == 1


# ---------------------------------------------------------------- quiet surprises


def test_whole_number_labels_of_three_classes_say_regression() -> None:
    X = np.random.default_rng(2).normal(size=(30, 2))
    pg = make(data=(X, np.arange(30) % 3))
    assert pg.problem.value == "regression"
    assert "3 whole values" in pg.status.value and "y == 0" in pg.status.value
    np.testing.assert_allclose(
        np.sort(np.unique(pg._data["labels_train"])), [0.0, 0.5, 1.0]
    )
    assert "whole values" not in make(data=(X, X[:, 0] * 3.5)).status.value
    assert "whole values" not in make(data=(X, np.arange(30) % 2)).status.value


def test_editor_range_narrower_than_float32_is_refused() -> None:
    from symnb.widgets import ActivationEditor

    with pytest.raises(ValueError) as info:
        ActivationEditor(x_range=(1.0, 1.00000001))
    assert "narrower than float32" in str(info.value)
    editor = ActivationEditor(x_range=(1.0, 1.001))  # 8000 float32 steps: fine
    assert np.unique(editor.curves()["x"]).size > 300
    editor.close()


def test_editor_says_when_a_loss_was_typed() -> None:
    from symnb.widgets import ActivationEditor

    editor = ActivationEditor("(y_pred - y_true)**2")
    assert "y_pred and y_true are constants" in editor.notes.value
    assert "%%symact --loss" in editor.notes.value
    editor.formula.value = "x*sigmoid(beta*x)"
    editor.refresh()
    assert "constants (sliders)" not in editor.notes.value
    editor.close()


def test_train_that_diverges_raises_and_says_so_in_the_widget() -> None:
    from symnb.nn import TrainingDiverged

    pg = make(config=DIVERGES)
    before = pg.status.value
    with pytest.raises(TrainingDiverged):
        pg.train(5)
    assert pg.status.value != before
    assert "lower the learning rate (now 100)" in pg.status.value
    assert len(pg.errors) == 1 and pg.view.epoch == pg.epoch
