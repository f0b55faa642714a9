"""Metrics against scikit-learn's, History helpers, and the live=True display."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets, nn
from symnb.nn import metrics


def test_classification_metrics_match_sklearn():
    skm = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    for classes in (2, 4):
        t = rng.integers(0, classes, 200)
        p = np.where(rng.random(200) < 0.7, t, rng.integers(0, classes, 200))
        avg = "binary" if classes == 2 else "macro"
        assert metrics.accuracy(t, p) == pytest.approx(skm.accuracy_score(t, p))
        assert metrics.precision(t, p) == pytest.approx(
            skm.precision_score(t, p, average=avg, zero_division=0)
        )
        assert metrics.recall(t, p) == pytest.approx(
            skm.recall_score(t, p, average=avg, zero_division=0)
        )
        assert metrics.f1(t, p) == pytest.approx(
            skm.f1_score(t, p, average=avg, zero_division=0)
        )


def test_regression_metrics_match_sklearn():
    skm = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(1)
    t = rng.normal(size=(50, 2))
    p = t + 0.3 * rng.normal(size=(50, 2))
    assert metrics.mse(t, p) == pytest.approx(skm.mean_squared_error(t, p))
    assert metrics.mae(t, p) == pytest.approx(skm.mean_absolute_error(t, p))
    assert metrics.r2(t, p) == pytest.approx(skm.r2_score(t, p))
    assert metrics.r2(t[:, 0], p[:, 0]) == pytest.approx(skm.r2_score(t[:, 0], p[:, 0]))
    with pytest.raises(ValueError, match="unknown metric"):
        metrics.get("auc")
    with pytest.raises(ValueError, match="at least one sample"):
        metrics.mse([], [])


def test_fit_records_requested_metrics():
    X, y = datasets.two_moons(100, seed=0)
    model = nn.MLP([2, 6, 1], activation="tanh", loss="bce_with_logits")
    history = model.fit(
        X,
        y,
        epochs=2,
        metrics=["accuracy", "f1", "precision", "recall"],
        validation_data=(X, y),
    )
    assert {"accuracy", "f1", "precision", "recall", "val_f1"} <= set(history.keys())
    assert history.last["val_accuracy"] == pytest.approx(
        model.evaluate(X, y)["accuracy"]
    )
    with pytest.raises(ValueError, match="for regression"):
        model.fit(X, y, epochs=1, metrics=["r2"])
    assert "2 epochs" in repr(history)
    assert "<table>" in history._repr_html_() and "val_f1" in history._repr_html_()


class _Handle:
    def __init__(self):
        self.updates = 0

    def update(self, obj):
        self.updates += 1


def test_live_plot_updates_one_display(monkeypatch):
    import IPython.display

    from symnb.nn import live

    shown = []
    handle = _Handle()

    def fake_display(obj, display_id=False):
        shown.append(obj)
        return handle

    monkeypatch.setattr(live, "_in_ipython", lambda: True)
    monkeypatch.setattr(IPython.display, "display", fake_display)
    X, y = datasets.two_moons(100, seed=0)
    model = nn.MLP([2, 4, 1], activation="tanh", loss="bce_with_logits")
    history = model.fit(X, y, epochs=6, live=True, validation_data=(X, y))
    assert len(history) == 6
    assert len(shown) == 1  # one display, then updates of it
    assert 1 <= handle.updates <= 7


def test_verbose_progress_outside_a_notebook(capsys):
    X, y = datasets.two_moons(50, seed=0)
    model = nn.MLP([2, 4, 1], activation="tanh", loss="bce_with_logits")
    model.fit(X, y, epochs=3, verbose=True)
    err = capsys.readouterr().err
    assert "3/3" in err
