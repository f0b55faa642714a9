"""A target that the metric can never take was accepted: ``compare(...,
target=95)`` (95 meant as a percentage) reported "never" for every activation,
``history.epochs_to("accuracy", 95)`` returned None ("not reached") and
``EarlyStopping(monitor="accuracy", target=1.5)`` never stopped. Accuracy,
precision, recall and F1 are fractions in [0, 1] and R^2 is at most 1; such targets
are now a ValueError naming the metric (and the fraction meant, for 1 < t <= 100).
Targets of losses are not bounded and stay accepted."""

from __future__ import annotations

import pytest

from symnb import datasets, nn

X, Y = datasets.two_moons(40, seed=0)
KW = {"epochs": 2, "progress": False, "backend": "numpy", "seeds": (0,)}


def test_compare_refuses_a_percentage_target() -> None:
    with pytest.raises(ValueError, match=r"compare: accuracy .* target=0\.95"):
        nn.compare(["relu"], (X, Y), target=95, **KW)


def test_epochs_to_and_early_stopping_refuse_unreachable_targets() -> None:
    model = nn.MLP([2, 4, 1], loss="bce_with_logits", backend="numpy", seed=0)
    history = model.fit(X, Y, epochs=2, metrics=["accuracy"])
    with pytest.raises(ValueError, match="epochs_to: accuracy is a fraction"):
        history.epochs_to("accuracy", 95)
    regression = nn.MLP([2, 4, 1], backend="numpy", seed=0)
    fitted = regression.fit(X, X[:, 0], epochs=2, metrics=["r2"])
    with pytest.raises(ValueError, match="epochs_to: r2 is at most 1"):
        fitted.epochs_to("r2", 2.0)
    stop = nn.EarlyStopping(monitor="accuracy", target=-0.5)
    with pytest.raises(ValueError, match="EarlyStopping: accuracy is a fraction"):
        model.fit(X, Y, epochs=2, metrics=["accuracy"], callbacks=[stop])


def test_reachable_and_loss_targets_are_unchanged() -> None:
    result = nn.compare(["relu"], (X, Y.astype(float)), loss="mse", target=0.1, **KW)
    assert result.target == 0.1
    history = nn.MLP([2, 4, 1], backend="numpy", seed=0).fit(X, Y, epochs=2)
    assert history.epochs_to("loss", -5.0) is None
    assert history.epochs_to("loss", 1e9) == 1
