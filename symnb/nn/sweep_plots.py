"""Plots of a sweep (``CompareResult``): spread over seeds, best learning curves.

Matplotlib ``Figure`` objects built without pyplot (no global state; show them with
``symnb.plotting.figure_to_png`` or as the cell's value), one panel per data set.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..plotting import literal_text
from .compare import check_integer

__all__ = ["plot_best_curves", "plot_spread"]


def _panels(result: Any, width: float = 4.2, height: float = 3.4) -> tuple[Any, list]:
    from matplotlib.figure import Figure

    datasets = result.datasets or ["data"]
    fig = Figure(figsize=(width * len(datasets), height))
    axes = np.atleast_1d(fig.subplots(1, len(datasets), squeeze=False)[0])
    return fig, list(zip(datasets, axes))


def _run_value(run: dict[str, Any], metric: str) -> float:
    value = run.get(_RUN_VALUES[metric])
    return float(value) if value is not None else math.nan


#: Per-run values ``plot_spread`` can show (name -> key in a run record).
_RUN_VALUES = {
    "accuracy": "accuracy",
    "loss": "final_loss",
    "time": "time",
    "epochs_to_target": "epochs_to_target",
}


def _check_spread_metric(result: Any, metric: Any) -> None:
    valid = [
        name
        for name, key in _RUN_VALUES.items()
        if any(run.get(key) is not None for run in result.runs)
        or (name == "accuracy" and result.rows and "accuracy_mean" in result.rows[0])
    ]
    if metric not in valid:
        raise ValueError(
            f"plot_spread: metric={metric!r} is not a value of these runs; choose one "
            f"of {', '.join(valid)}"
        )
    lacking = list(
        dict.fromkeys(
            r.get("dataset", "data")
            for r in result.rows
            if metric == "accuracy" and "accuracy_mean" not in r
        )
    )
    if lacking:  # data sets of both kinds: their panels were empty, without a word
        raise ValueError(
            f"plot_spread: metric='accuracy' is not recorded on data set(s) "
            f"{lacking} (regression); use metric='loss', or leave metric=None"
        )


def plot_spread(
    result: Any,
    metric: str | None = None,
    activations: Sequence[str] | None = None,
    jitter: float = 0.08,
) -> Any:
    """Per data set: a box per activation (all, or the names in ``activations``)
    over its seeds' final ``metric`` (``accuracy`` (classification), ``loss``,
    ``time`` or ``epochs_to_target``), each seed a point; another name is a
    ``ValueError``; None: accuracy for classification, loss otherwise."""
    metric = result._default_by() if metric is None else metric
    _check_spread_metric(result, metric)
    names = list(activations) if activations is not None else result.activations
    unknown = [n for n in names if n not in result.activations]
    if unknown:
        raise KeyError(f"activations {unknown} are not in this result")
    fig, panels = _panels(result, width=max(4.2, 0.55 * len(names) + 1.5))
    rng = np.random.default_rng(0)  # fixed jitter: the same picture every time
    for label, ax in panels:
        values = []
        for name in names:
            runs = [
                r
                for r in result.runs
                if r["activation"] == name and r["dataset"] == label
            ]
            vals = [_run_value(r, metric) for r in runs if r["status"] != "error"]
            values.append([v for v in vals if math.isfinite(v)])
        positions = np.arange(1, len(names) + 1)
        shown = [v if v else [math.nan] for v in values]
        ax.boxplot(shown, positions=positions, widths=0.5, showfliers=False)
        for pos, vals in zip(positions, values):
            xs = pos + rng.uniform(-jitter, jitter, size=len(vals))
            ax.plot(xs, vals, "o", ms=3.5, alpha=0.7, color="C0")
        ax.set_xticks(positions)
        ax.set_xticklabels(
            [literal_text(n) for n in names], rotation=35, ha="right", fontsize="small"
        )
        ax.set_title(f"{label}: {metric} over seeds")
        ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def plot_best_curves(
    result: Any, metric: str | None = None, top: int = 3, log: bool = True
) -> Any:
    """Per data set: the learning curve (``metric`` per epoch; default ``val_loss``
    when validation data were given, else ``loss``) of the best seed of the ``top``
    activations, ranked by their mean final loss on that data set. ``top`` is a
    positive integer; a ``metric`` the runs did not record is a ``ValueError``."""
    from ..plotting import plot_curves

    top = check_integer(top, "top", 1, "3")
    recorded: dict[str, set[str]] = {}  # data set -> metrics its runs recorded
    for run in result.runs:
        keys = getattr(run.get("history"), "history", ())
        recorded.setdefault(run.get("dataset"), set()).update(keys)
    every = set.union(*recorded.values()) if recorded else set()
    if metric is not None and every and metric not in every:
        raise ValueError(
            f"plot_curves: metric={metric!r} was not recorded by these runs; choose "
            f"one of {', '.join(sorted(every))}"
        )
    lacking = [label for label, keys in recorded.items() if keys and metric not in keys]
    if metric is not None and lacking:
        # data sets of both kinds: History's KeyError "no metric 'accuracy' in
        # this History" came from inside the loop, naming no data set
        shared = set.intersection(*(k for k in recorded.values() if k))
        raise ValueError(
            f"plot_curves: metric={metric!r} was not recorded on data set(s) "
            f"{lacking}; choose one that every data set records "
            f"({', '.join(sorted(shared))}), or leave metric=None"
        )
    fig, panels = _panels(result)
    for label, ax in panels:
        rows = [r for r in result.rows if r.get("dataset", label) == label]
        rows = [r for r in rows if not math.isnan(r["loss_mean"])]
        rows.sort(key=lambda r: r["loss_mean"])
        curves = {}
        for row in rows[:top]:
            runs = [
                r
                for r in result.runs
                if r["activation"] == row["activation"]
                and r["dataset"] == label
                and r["status"] != "error"
            ]
            best = min(runs, key=lambda r: _nan_last(r["final_loss"]))
            history = best["history"]
            key = metric or ("val_loss" if "val_loss" in history else "loss")
            shown = literal_text(row["activation"])
            curves[f"{shown} (seed {best['seed']})"] = history[key]
        name = metric or "loss"
        plot_curves(curves, ax=ax, title=f"{label}: best runs", ylabel=name, log=log)
    fig.tight_layout()
    return fig


def _nan_last(value: Any) -> float:
    return math.inf if value is None or not math.isfinite(value) else float(value)
