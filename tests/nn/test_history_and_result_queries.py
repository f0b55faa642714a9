"""Queries of a finished training: ``History.epochs_to`` and ``CompareResult.best``.

``epochs_to('nope', 0.5)`` (a metric the History does not record) and
``epochs_to('loss', nan)`` returned None, which reads "never reached";
``target=True`` counted as 1.0 and ``target='a'`` raised "'>=' not supported" from
inside. ``CompareResult.best(by=5)`` raised "argument of type 'int' is not iterable"
while ``scores(by=5)`` named the column."""

from __future__ import annotations

import contextlib
import math

import pytest

from symnb import datasets, nn

X, Y = datasets.two_moons(40, seed=0)


@pytest.fixture(scope="module")
def history():
    model = nn.MLP([2, 4, 1], backend="numpy", loss="bce_with_logits", seed=0)
    return model.fit(X, Y, epochs=4, lr=0.05)


def test_an_unrecorded_metric_is_refused(history) -> None:
    with pytest.raises(ValueError) as info:
        history.epochs_to("val_accuracy", 0.5)
    message = str(info.value)
    assert "no metric 'val_accuracy'" in message and "loss, accuracy" in message


@pytest.mark.parametrize("target", [math.nan, math.inf])
def test_a_target_that_is_not_finite_is_refused(history, target) -> None:
    with pytest.raises(ValueError, match=r"^epochs_to: target must be finite"):
        history.epochs_to("loss", target)


@pytest.mark.parametrize("target", [True, "a", None])
def test_a_target_that_is_no_number_is_refused(history, target) -> None:
    with pytest.raises(TypeError, match=r"^epochs_to: target must be a number"):
        history.epochs_to("loss", target)


def test_an_unknown_mode_is_refused(history) -> None:
    with pytest.raises(ValueError, match=r"mode must be 'min', 'max' or None"):
        history.epochs_to("loss", 1.0, mode="up")


def test_epochs_to_follows_the_recorded_values(history) -> None:
    losses = history["loss"]
    # the first epoch at or below the second epoch's loss, found by hand
    expected = next(e for e, v in zip(history.epochs, losses) if v <= losses[1])
    assert history.epochs_to("loss", losses[1]) == expected
    assert history.epochs_to("accuracy", 1.0) in (None, *history.epochs)
    with pytest.raises(ValueError, match="fraction in"):  # was None, "never"
        history.epochs_to("accuracy", 2.0)  # (test_unreachable_targets.py)
    assert nn.History().epochs_to("anything", 0.5) is None  # no epoch yet


def test_best_checks_by_as_scores_does() -> None:
    result = nn.compare(
        {"a": "relu", "b": "tanh"},
        (X, Y),
        seeds=[0],
        hidden=(3,),
        epochs=2,
        progress=False,
        backend="numpy",
    )
    for by in (5, "nope"):
        with pytest.raises(ValueError, match=rf"no column {by!r} to rank by"):
            result.best(by=by)
    scores = result.scores("loss")
    assert result.best(by="loss") == min(scores, key=scores.get)


@pytest.mark.parametrize("diverge", [False, True])
def test_a_history_without_epochs_says_why_a_metric_is_missing(diverge) -> None:
    """``history["loss"]`` after fit(epochs=0), or after training diverged in its first
    step, raised KeyError "no metric 'loss' in this History; it has " (an empty
    list); it now says that no epoch completed, and how training ended."""
    model = nn.MLP([2, 4, 1], backend="numpy", seed=0)
    with pytest.warns(RuntimeWarning) if diverge else contextlib.nullcontext():
        history = model.fit(
            X,
            Y * 1e20 if diverge else Y,
            epochs=3 if diverge else 0,
            lr=1e5,
            optimizer="sgd",
        )
    with pytest.raises(KeyError) as info:
        history["loss"]
    message = str(info.value)
    assert "no metric 'loss'" in message and "no epoch completed" in message
    assert ("NaN or infinite" if diverge else "0 epochs") in message


def test_a_metric_read_as_an_attribute_names_the_way_to_read_it(history) -> None:
    """``history.loss`` was Python's bare "'History' object has no attribute 'loss'"."""
    with pytest.raises(AttributeError, match=r"history\['loss'\]"):
        history.loss  # noqa: B018
    assert history["loss"] == history.history["loss"]
    assert len(history["loss"]) == 4  # one value per epoch
    with pytest.raises(AttributeError, match="no attribute 'nope'$"):
        history.nope  # noqa: B018
