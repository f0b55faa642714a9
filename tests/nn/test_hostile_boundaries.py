"""Boundary inputs found by a hostile sweep of the nn faces: files that are not regular
files or not there, empty paths, unwritable folders, ragged or overflowing data, a
non-boolean ``strict``, repeated seeds and run stores that would lose the runs. Each
gives a clear error naming the input instead of a hang, a raw library error or a
silently wrong result."""

from __future__ import annotations

import errno
import os
import threading

import numpy as np
import pytest

import symnb
from symnb import datasets, nn
from symnb.nn.compare import check_seeds
from symnb.nn.store import RunStore

X, Y = datasets.two_moons(40, seed=0)


def small(**kwargs) -> nn.MLP:
    kwargs.setdefault("backend", "numpy")
    return nn.MLP([2, 4, 1], activation="tanh", loss="bce_with_logits", **kwargs)


# ------------------------------------------------ load
def test_load_refuses_a_fifo_instead_of_hanging(tmp_path):
    fifo = tmp_path / "model.npz"
    os.mkfifo(fifo)
    outcome: list = []

    def target():
        try:
            nn.load(fifo)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(20)
    if thread.is_alive():  # blocked in open(): a writer that closes releases it
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        thread.join(5)
        pytest.fail("load() blocked on a FIFO")
    assert len(outcome) == 1 and isinstance(outcome[0], ValueError)
    assert "it is a FIFO, not a regular file" in str(outcome[0])
    assert str(fifo) in str(outcome[0])


def test_load_of_a_missing_file_names_it(tmp_path):
    path = tmp_path / "nope.npz"
    with pytest.raises(FileNotFoundError, match="cannot load a model from") as info:
        nn.load(path)
    assert str(path) in str(info.value) and info.value.errno == errno.ENOENT


@pytest.mark.parametrize("face", ["save", "load"])
def test_an_empty_path_is_refused(face):
    # save('') wrote "it is not a regular file, not a regular file" (the working
    # directory); load('') said "Is a directory: ''" from inside zipfile
    with pytest.raises(ValueError, match=f"{face}: path is empty"):
        small().save("") if face == "save" else nn.load("")


def test_save_into_an_unwritable_folder_names_the_path(tmp_path, monkeypatch):
    # CI runs as root, where chmod proves nothing: inject the refusal
    def refuse(path, *args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr(os, "open", refuse)
    target = tmp_path / "model.npz"
    with pytest.raises(PermissionError) as info:
        small().save(target)
    message = str(info.value)
    assert f"cannot save the model as {str(target)!r}" in message
    assert "Permission denied" in message and "writable folder" in message
    assert info.value.errno == errno.EACCES
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------ data
def test_ragged_X_names_the_data():
    with pytest.raises(ValueError, match=r"training data: X must be a 2-D array") as e:
        small().fit([[1.0, 2.0], [3.0]], [0, 1], epochs=1)
    assert "could not convert" in str(e.value)


def test_X_too_large_for_float32_is_named_not_called_infinite():
    big = X.astype(np.float64) * 1e300  # finite in float64, inf in float32
    with pytest.raises(ValueError, match=r"X\[0, 0\] = .*e\+300 does not fit") as e:
        small().fit(big, Y, epochs=1)
    assert "float32" in str(e.value) and "dtype='float64'" in str(e.value)
    with pytest.raises(ValueError, match="does not fit"):
        small().predict(big)
    # the float64 network takes it, and a real infinity keeps its own message
    Xd, n = small(dtype="float64")._prepare_X(big, "data")
    assert n == 40 and np.array_equal(Xd, big)
    bad = X.astype(np.float64)
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="NaN or infinity at row 3, column 1"):
        small().fit(bad, Y, epochs=1)


def test_regression_targets_too_large_for_float32_are_refused():
    model = nn.MLP([2, 3, 1], backend="numpy")
    targets = np.ones(40)
    targets[7] = 1e39  # became inf in float32: every loss inf, no training
    with pytest.raises(ValueError, match=r"y at row 7 is 1e\+39, too large"):
        model.fit(X, targets, epochs=1)
    Xd, T, n = nn.MLP([2, 3, 1], backend="numpy", dtype="float64")._prepare(
        X, targets
    )
    assert T[7, 0] == 1e39


@pytest.mark.parametrize("strict", ["no", 1, None])
def test_strict_must_be_a_boolean(strict):
    # strict="no" was truthy: the user asked for fallbacks and got strict mode
    message = f"strict must be True or False, got {strict!r}"
    with pytest.raises(TypeError, match=message):
        small(strict=strict)
    assert small(strict=np.bool_(False)).strict is False


# ------------------------------------------------ sweeps
def test_repeated_seeds_are_refused():
    # seeds=[0, 0] trained the same run twice and reported a spread of ± 0
    with pytest.raises(ValueError, match=r"seeds repeats \[0, 2\]"):
        check_seeds([0, 2, 1, 0, 2], 1)
    with pytest.raises(ValueError, match="seeds repeats"):
        nn.compare(
            ["relu"], (X, Y), seeds=[1, 1], hidden=(4,), epochs=1, progress=False
        )
    assert check_seeds(range(3), 1) == [0, 1, 2]


@pytest.mark.parametrize("path", ["", ":memory:"])
def test_a_run_store_that_would_lose_the_runs_is_refused(path):
    # SQLite opens "" as a temporary database: every finished run was lost
    with pytest.raises(ValueError, match="names no file"):
        RunStore(path)
    with pytest.raises(ValueError, match="names no file"):
        nn.compare(
            ["relu"], (X, Y), seeds=[0], hidden=(4,), epochs=1, progress=False,
            store=path,
        )


def test_a_run_store_that_is_a_directory_says_so(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a directory; give a file"):
        RunStore(tmp_path)


# ------------------------------------------------ fit flags, callbacks, metrics
@pytest.mark.parametrize("flag", ["shuffle", "live", "verbose"])
def test_fit_flags_must_be_booleans(flag):
    # shuffle="no" is truthy: the data was shuffled
    with pytest.raises(TypeError, match=f"{flag} must be True or False, got 'no'"):
        small().fit(X, Y, epochs=1, **{flag: "no"})


def test_shuffle_false_keeps_the_order_and_numpy_bools_pass():
    a, b = small(seed=3), small(seed=3)
    a.fit(X, Y, epochs=2, shuffle=np.bool_(False), batch_size=8)
    b.fit(X, Y, epochs=2, shuffle=False, batch_size=8)
    assert np.array_equal(a.get_flat_parameters(), b.get_flat_parameters())


@pytest.mark.parametrize(
    "rate, error", [(float("nan"), ValueError), (-1, ValueError), ("10", TypeError)]
)
def test_step_rate_is_checked(rate, error):
    with pytest.raises(error, match="step_rate"):
        small().fit(X, Y, epochs=1, step_rate=rate)
    for fine in (None, 0, float("inf"), 5):
        small().fit(X, Y, epochs=1, step_rate=fine)


@pytest.mark.parametrize(
    "options, error, words",
    [
        ({"patience": 2.5}, ValueError, r"patience must be an integer >= 0 .*got 2\.5"),
        ({"patience": -1}, ValueError, "patience must be an integer >= 0"),
        ({"patience": True}, ValueError, "patience"),
        ({"min_delta": float("nan")}, ValueError, "min_delta must be a finite"),
        ({"min_delta": -0.1}, ValueError, "min_delta must be a finite number >= 0"),
        ({"mode": "maximum"}, ValueError, "mode must be 'min', 'max' or None"),
        ({"target": float("nan")}, ValueError, "target must be finite"),
        ({"target": "0.9"}, TypeError, "target must be a number"),
        ({"monitor": 3}, TypeError, "monitor must be a metric name"),
        ({"restore_best": "yes"}, TypeError, "restore_best must be True or False"),
    ],
)
def test_early_stopping_arguments_are_checked(options, error, words):
    with pytest.raises(error, match=words):
        nn.EarlyStopping(**options)


@pytest.mark.parametrize("metric", ["accuracy", "f1", "precision", "recall"])
def test_label_metrics_refuse_nan_labels(metric):
    # f1([1, 1], [nan, 1]) was 0.33: a NaN label silently counted as a miss
    fn = getattr(nn.metrics, metric)
    with pytest.raises(ValueError, match="y_pred has a NaN or infinite label at row 0"):
        fn(np.array([1, 1]), np.array([np.nan, 1.0]))
    with pytest.raises(ValueError, match="y_true has a NaN or infinite label at row 1"):
        fn(np.array([1.0, np.inf]), np.array([1, 1]))
    assert fn(np.array([0, 1, 1]), np.array([0, 1, 1])) == 1.0


def test_metrics_name_what_is_not_numbers():
    with pytest.raises(TypeError, match="y_true has dtype <U1; metrics take numbers"):
        nn.metrics.mse(["a"], ["b"])
    with pytest.raises(ValueError, match="y_pred must be an array of numbers"):
        nn.metrics.mae([1.0, 2.0], [[1.0], [2.0, 3.0]])
    assert nn.metrics.mse([1, 2], np.array([1.0, 4.0])) == 2.0


# ------------------------------------------------ estimators
def classifier(**kwargs) -> nn.MLPClassifier:
    kwargs.setdefault("hidden_layer_sizes", (4,))
    return nn.MLPClassifier(epochs=1, backend="numpy", **kwargs)


def test_classifier_hidden_layer_sizes_as_one_int():
    # "'int' object is not iterable"; scikit-learn takes an int as one layer
    assert classifier(hidden_layer_sizes=5).fit(X, Y).model_.sizes == [2, 5, 1]
    with pytest.raises(TypeError, match="hidden_layer_sizes must be a tuple"):
        classifier(hidden_layer_sizes=None).fit(X, Y)


def test_classifier_labels_of_mixed_types_are_named():
    labels = Y.astype(object)
    labels[0] = "a"  # np.unique raised "'<' not supported between 'int' and 'str'"
    with pytest.raises(TypeError, match=r"y mixes labels of types \['int', 'str'\]"):
        classifier().fit(X, labels)


def test_classifier_score_checks_y_and_weights():
    model = classifier().fit(X, Y)
    with pytest.raises(ValueError, match=r"score: y has shape \(3,\) but X has 40"):
        model.score(X, Y[:3])
    with pytest.raises(ValueError, match="score: sample_weight has shape"):
        model.score(X, Y, sample_weight=np.ones(3))
    for bad in (np.zeros(40), np.full(40, np.nan), -np.ones(40)):
        # all zeros gave NaN with a RuntimeWarning
        with pytest.raises(ValueError, match="sample_weight must be finite, >= 0"):
            model.score(X, Y, sample_weight=bad)
    weights = np.arange(40, dtype=float)
    correct = (model.predict(X) == Y).astype(float)
    want = np.sum(correct * weights) / np.sum(weights)
    assert model.score(X, Y, sample_weight=weights) == pytest.approx(want)


def test_early_stopping_on_an_unreported_value_fails_before_training():
    # the KeyError came after the first epoch had trained
    model = small()
    before = model.get_flat_parameters()
    with pytest.raises(ValueError, match="val_ values need validation_data") as info:
        model.fit(X, Y, epochs=3, callbacks=[nn.EarlyStopping()])
    assert "monitors 'val_loss'" in str(info.value)
    with pytest.raises(ValueError, match="monitors 'val_foo'.*reports loss, accuracy"):
        model.fit(
            X,
            Y,
            epochs=3,
            validation_data=(X, Y),
            callbacks=[nn.EarlyStopping(monitor="val_foo")],
        )
    assert np.array_equal(model.get_flat_parameters(), before)
    assert model.epochs_trained == 0
    stopper = nn.EarlyStopping(monitor="val_accuracy", patience=0)
    model.fit(X, Y, epochs=3, validation_data=(X, Y), callbacks=[stopper])
    assert model.epochs_trained >= 1


def test_a_loss_given_as_activation_is_refused_when_the_model_is_built():
    # MLP and compare took a symnb.Loss as an activation and failed only inside fit,
    # with AttributeError: 'LossKernel' object has no attribute 'forward_with_derivative'
    mse = symnb.loss("mse")
    with pytest.raises(TypeError, match="got the loss 'mse'.*give losses as loss="):
        nn.MLP([2, 4, 1], activation=mse, backend="numpy")
    with pytest.raises(TypeError, match="got the loss 'mse'"):
        nn.MLP([2, 2, 1], activation=[["tanh", mse]], backend="numpy")
    with pytest.raises(TypeError, match="got the loss 'mse'"):
        nn.compare([mse], (X, Y), seeds=(0,), epochs=1, progress=False)
