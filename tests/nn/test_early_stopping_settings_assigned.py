"""EarlyStopping's settings assigned after construction skipped the constructor's
checks: ``es.patience = "a"`` failed inside fit with "'>=' not supported between
instances of 'int' and 'str'", ``es.target = "a"`` with "unsupported operand type(s)
for -", and ``es.mode = "x"``, ``es.min_delta = nan`` or ``es.patience = -1`` were
kept and changed when training stopped without a word. ``es.monitor =
"val_accuracy"`` kept the mode chosen for val_loss ("min"), so rising accuracy
counted as getting worse. Assignments are now checked as the constructor's
arguments are, and a mode chosen from the metric follows a new metric."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symnb import nn


@pytest.mark.parametrize(
    ("attr", "value", "error"),
    [
        ("patience", "a", ValueError),
        ("patience", -1, ValueError),
        ("patience", 2.5, ValueError),
        ("min_delta", math.nan, ValueError),
        ("min_delta", -1.0, ValueError),
        ("monitor", 5, TypeError),
        ("mode", "x", ValueError),
        ("target", "a", TypeError),
        ("target", math.nan, ValueError),
        ("restore_best", "no", TypeError),
    ],
)
def test_assigned_settings_are_checked(attr, value, error) -> None:
    es = nn.EarlyStopping(monitor="loss", patience=1)
    before = getattr(es, attr)
    with pytest.raises(error, match=rf"EarlyStopping: {attr}"):
        setattr(es, attr, value)
    assert getattr(es, attr) == before


def test_a_chosen_mode_follows_the_metric_and_a_given_one_stays() -> None:
    es = nn.EarlyStopping(monitor="val_loss")
    es.monitor = "val_accuracy"
    assert es.mode == "max"
    fixed = nn.EarlyStopping(monitor="val_loss", mode="min")
    fixed.monitor = "val_accuracy"
    assert fixed.mode == "min"


def test_assigned_valid_settings_take_effect() -> None:
    X = np.random.default_rng(0).normal(size=(20, 2))
    es = nn.EarlyStopping(monitor="loss", patience=10)
    es.patience = 0  # stop after the first epoch that does not improve
    es.min_delta = 1e9
    history = nn.MLP([2, 3, 1], backend="numpy", seed=0).fit(
        X, X[:, 0], epochs=5, callbacks=[es]
    )
    assert len(history) == 1 and history.stop_reason == "callback"
