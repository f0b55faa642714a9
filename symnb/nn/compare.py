"""``compare``: train one architecture with several activations over several seeds.

>>> import symnb
>>> table = symnb.nn.compare(["relu", "tanh", swish], "two_moons", seeds=(0, 1, 2),
...                          epochs=50)                         # doctest: +SKIP
>>> table                                                       # doctest: +SKIP
activation  final_loss      accuracy        epochs_to_0.95  time_s
relu        0.041 ± 0.004   0.990 ± 0.002   12 (3/3)        0.41
...

Each row aggregates the runs of one activation: mean and standard deviation of the final
loss and accuracy (validation values when validation data are given), the mean number of
epochs to reach the target (and in how many runs it was reached), and the mean training
time. ``result.runs`` keeps every run's History.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["CompareResult", "compare"]


def _name_of(act: Any, index: int) -> str:
    if isinstance(act, str):
        return act
    if isinstance(act, (list, tuple)):
        return f"mix{index}"
    return str(getattr(act, "name", f"activation{index}"))


def _load(dataset: Any) -> tuple[np.ndarray, np.ndarray, Any]:
    from .. import datasets

    if isinstance(dataset, str):
        X, y = datasets.load(dataset)
        return X, y, None
    if isinstance(dataset, (tuple, list)):
        if len(dataset) == 2:
            return np.asarray(dataset[0]), np.asarray(dataset[1]), None
        if len(dataset) == 4:
            X, y, Xv, yv = dataset
            return np.asarray(X), np.asarray(y), (np.asarray(Xv), np.asarray(yv))
    raise ValueError(
        "dataset must be a name (see symnb.datasets.names()), (X, y), or "
        "(X_train, y_train, X_val, y_val)"
    )


def _classification_labels(y: np.ndarray) -> bool:
    if y.ndim != 1 or y.dtype.kind not in "iub":
        return False
    return len(np.unique(y)) <= max(2, min(100, len(y) // 2))


class CompareResult:
    """The table ``compare`` returns; ``rows`` (one dict per activation), ``runs`` (one
    dict per activation and seed, with its ``history`` and ``model``)."""

    def __init__(
        self,
        rows: list[dict[str, Any]],
        runs: list[dict[str, Any]],
        target_metric: str | None,
        target: float | None,
    ) -> None:
        self.rows = rows
        self.runs = runs
        self.target_metric = target_metric
        self.target = target

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, name: str) -> dict[str, Any]:
        for row in self.rows:
            if row["activation"] == name:
                return row
        raise KeyError(name)

    def best(self, by: str = "accuracy") -> str:
        """Name of the best activation by mean ``accuracy`` (higher) or ``loss``
        (lower)."""
        key = f"{by}_mean" if f"{by}_mean" in self.rows[0] else by
        higher = "loss" not in by and "time" not in by and "epochs" not in by
        vals = [(row.get(key), row["activation"]) for row in self.rows]
        vals = [(v, n) for v, n in vals if v is not None and not math.isnan(v)]
        if not vals:
            raise ValueError(f"no values of {by!r} to rank")
        return (max if higher else min)(vals)[1]

    def to_pandas(self):
        """A ``pandas.DataFrame`` indexed by activation (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.rows).set_index("activation")

    def _columns(self) -> list[tuple[str, Any]]:
        def pm(mean: str, std: str):
            return lambda r: (
                "-"
                if r.get(mean) is None or math.isnan(r[mean])
                else f"{r[mean]:.4g} ± {r[std]:.2g}"
            )

        cols: list[tuple[str, Any]] = [
            ("activation", lambda r: r["activation"]),
            ("final loss", pm("loss_mean", "loss_std")),
        ]
        if "accuracy_mean" in self.rows[0]:
            cols.append(("accuracy", pm("accuracy_mean", "accuracy_std")))
        if self.target is not None:
            label = f"epochs to {self.target_metric} {self.target:g}"
            cols.append(
                (
                    label,
                    lambda r: (
                        "never"
                        if r["epochs_to_target"] is None
                        else f"{r['epochs_to_target']:.1f} ({r['reached']}/{r['runs']})"
                    ),
                )
            )
        cols.append(("time [s]", lambda r: f"{r['time_mean']:.3g}"))
        return cols

    def __repr__(self) -> str:
        if not self.rows:
            return "CompareResult(empty)"
        cols = self._columns()
        cells = [[c[0] for c in cols]] + [
            [str(f(r)) for _, f in cols] for r in self.rows
        ]
        widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
        return "\n".join(
            "  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells
        )

    def _repr_html_(self) -> str:
        cols = self._columns()
        head = "".join(f"<th>{html.escape(c[0])}</th>" for c in cols)
        body = "".join(
            "<tr>"
            + "".join(f"<td>{html.escape(str(f(r)))}</td>" for _, f in cols)
            + "</tr>"
            for r in self.rows
        )
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def compare(
    activations: Sequence[Any] | dict[str, Any],
    dataset: Any,
    seeds: Iterable[int] = (0, 1, 2),
    hidden: Sequence[int] = (16, 16),
    loss: Any = None,
    epochs: int = 50,
    target: float | None = None,
    target_metric: str | None = None,
    backend: str = "auto",
    dtype: str = "float32",
    keep_models: bool = False,
    **fit_options: Any,
) -> CompareResult:
    """Train ``[features, *hidden, outputs]`` with each activation and seed.

    Parameters
    ----------
    activations:
        a list (Activations, library names, formula texts, or per-layer lists as ``MLP``
        accepts) or a dict display name -> activation.
    dataset:
        a data set name (``symnb.datasets.names()``), ``(X, y)``, or
        ``(X_train, y_train, X_val, y_val)`` (then the table reports validation values).
    seeds:
        one run per seed (the seed fixes the weights and the shuffling).
    hidden, loss, backend, dtype:
        the architecture; ``loss`` defaults to bce_with_logits (two classes), softmax
        cross-entropy (more) or mse (regression), decided from ``y``.
    target, target_metric:
        "epochs to target": first epoch at which ``target_metric`` (default
        ``accuracy``, or ``val_accuracy`` with validation data; ``loss`` for regression)
        reaches ``target`` (default 0.95 for classification, none for regression).
    fit_options:
        passed to ``MLP.fit`` (``lr``, ``batch_size``, ``optimizer``, ...).
    """
    from .model import MLP

    if isinstance(activations, dict):
        named = list(activations.items())
    else:
        named = [(_name_of(a, i), a) for i, a in enumerate(activations)]
    if not named:
        raise ValueError("compare needs at least one activation")
    seeds = list(seeds)
    if not seeds:
        raise ValueError("compare needs at least one seed")
    X, y, val = _load(dataset)
    X = np.asarray(X)
    if X.ndim == 1:
        X = X.reshape(-1, 1)
    classify = (
        loss is None
        and _classification_labels(y)
        or loss in ("bce_with_logits", "cross_entropy")
    )
    n_classes = len(np.unique(y)) if classify else 0
    if loss is None:
        loss = (
            ("bce_with_logits" if n_classes == 2 else "cross_entropy")
            if classify
            else "mse"
        )
    if classify and n_classes == 2:
        n_out = 1
    elif classify:
        n_out = n_classes
    else:
        n_out = 1 if y.ndim == 1 else y.shape[1]
    prefix = "val_" if val is not None else ""
    if target_metric is None:
        target_metric = prefix + ("accuracy" if classify else "loss")
    if target is None and classify:
        target = 0.95
    sizes = [X.shape[1], *list(hidden), n_out]
    runs: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    for name, act in named:
        finals, accs, to_target, times = [], [], [], []
        for seed in seeds:
            model = MLP(
                sizes,
                activation=act,
                loss=loss,
                backend=backend,
                seed=seed,
                dtype=dtype,
            )
            t0 = time.perf_counter()
            history = model.fit(
                X, y, epochs=epochs, validation_data=val, seed=seed, **fit_options
            )
            elapsed = time.perf_counter() - t0
            last = history.last
            final = last.get(prefix + "loss", float("nan"))
            acc = last.get(prefix + "accuracy", float("nan")) if classify else None
            reached = (
                history.epochs_to(target_metric, target) if target is not None else None
            )
            run = {
                "activation": name,
                "seed": seed,
                "final_loss": final,
                "accuracy": acc,
                "epochs_to_target": reached,
                "time": elapsed,
                "history": history,
                "stop_reason": history.stop_reason,
            }
            if keep_models:
                run["model"] = model
            runs.append(run)
            finals.append(final)
            times.append(elapsed)
            if classify:
                accs.append(acc)
            if reached is not None:
                to_target.append(reached)
        row: dict[str, Any] = {
            "activation": name,
            "loss_mean": float(np.mean(finals)),
            "loss_std": float(np.std(finals)),
        }
        if classify:
            row["accuracy_mean"] = float(np.mean(accs))
            row["accuracy_std"] = float(np.std(accs))
        row["epochs_to_target"] = float(np.mean(to_target)) if to_target else None
        row["reached"] = len(to_target)
        row["runs"] = len(seeds)
        row["time_mean"] = float(np.mean(times))
        rows.append(row)
    return CompareResult(rows, runs, target_metric, target)
