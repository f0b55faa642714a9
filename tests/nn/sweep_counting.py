"""Shared by the sweep tests: count the trainings that really run."""

from __future__ import annotations

from symnb.nn import sweep


def count_trainings(monkeypatch) -> list[tuple[str, str, int]]:
    """Wrap ``sweep.train_run`` (called once per run on the serial path); the list
    fills with (activation, data set, seed) of every training."""
    calls: list[tuple[str, str, int]] = []
    original = sweep.train_run

    def train_run(activation, data, seed, plan, activation_name, dataset_name, *a):
        calls.append((activation_name, dataset_name, seed))
        return original(activation, data, seed, plan, activation_name, dataset_name, *a)

    monkeypatch.setattr(sweep, "train_run", train_run)
    return calls
