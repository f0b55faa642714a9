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
