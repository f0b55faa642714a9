"""``symnb.nn.LiveProgress`` kept its arguments unchecked: ``max_rate=0`` raised
ZeroDivisionError at the first epoch's redraw, in the middle of ``fit`` (in a
notebook); ``metrics="loss"`` plotted the keys 'l', 'o', 's', 's' (nothing);
``plot="no"`` drew the plot. They are now checked when the callback is built."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symnb.nn import MLP, LiveProgress, live


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"max_rate": 0}, ValueError, "max_rate must be"),
        ({"max_rate": -1.0}, ValueError, "max_rate must be"),
        ({"max_rate": math.nan}, ValueError, "max_rate must be"),
        ({"max_rate": "4"}, TypeError, "max_rate must be"),
        ({"max_rate": True}, TypeError, "max_rate must be"),
        ({"plot": "no"}, TypeError, "plot must be True or False"),
        ({"metrics": "loss"}, TypeError, "metrics must be a list"),
        ({"metrics": [3]}, TypeError, "metrics must be names"),
    ],
)
def test_bad_arguments_are_refused(options, error, match) -> None:
    with pytest.raises(error, match=match):
        LiveProgress(**options)


@pytest.mark.parametrize("rate", [math.inf, 1000.0])
def test_live_plot_redraws_during_fit(monkeypatch, rate) -> None:
    monkeypatch.setattr(live, "_in_ipython", lambda: True)
    X = np.random.RandomState(0).randn(20, 2)
    y = (X[:, 0] > 0).astype(int)
    progress = LiveProgress(max_rate=rate, metrics=["loss"])
    model = MLP([2, 3, 1], backend="numpy", loss="bce_with_logits", seed=0)
    model.fit(X, y, epochs=3, callbacks=[progress])
    assert progress.updates >= 2
    assert [line.get_label() for line in progress._ax.lines] == ["loss"]


def _fit(progress, validation=False):
    X = np.random.RandomState(0).randn(20, 2)
    y = (X[:, 0] > 0).astype(int)
    model = MLP([2, 3, 1], backend="numpy", loss="bce_with_logits", seed=0)
    options = {"validation_data": (X, y)} if validation else {}
    return model.fit(X, y, epochs=2, callbacks=[progress], **options)


@pytest.mark.parametrize(
    ("metrics", "match"),
    [
        (["lose"], r"LiveProgress plots 'lose', which this fit does not report"),
        (["val_loss"], r"'val_loss'.*need validation_data"),
        (["val_accuracy"], r"'val_accuracy'.*need validation_data"),
    ],
)
def test_metrics_the_fit_never_reports_are_refused_before_training(
    metrics, match
) -> None:
    """metrics=['lose'] (a typo) plotted nothing, and a val_ metric without
    validation data too, without a word; EarlyStopping refused the same names."""
    with pytest.raises(ValueError, match=match):
        _fit(LiveProgress(plot=False, metrics=metrics))


def test_reported_metrics_and_the_default_still_train() -> None:
    assert len(_fit(LiveProgress(plot=False))) == 2  # no validation: no val_loss
    assert len(_fit(LiveProgress(plot=False, metrics=["accuracy"]))) == 2
    chosen = LiveProgress(plot=False, metrics=["loss", "val_accuracy"])
    assert len(_fit(chosen, validation=True)) == 2
