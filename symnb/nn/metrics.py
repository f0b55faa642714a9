"""Metrics on NumPy arrays: accuracy, precision, recall, F1; MSE, MAE, R^2.

``y_true`` holds labels (classification) or targets (regression); ``y_pred`` predicted
labels or values of the same length. Precision, recall and F1 are for the positive class
1 in binary problems and macro-averaged (the unweighted mean over classes) otherwise, as
scikit-learn's ``average="binary"`` / ``"macro"``; a class never predicted contributes
precision 0.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "CLASSIFICATION",
    "REGRESSION",
    "accuracy",
    "f1",
    "get",
    "mae",
    "mse",
    "precision",
    "r2",
    "recall",
]


def _rows(values: Any, name: str) -> np.ndarray:
    """``values`` as an array of numbers with one row per sample."""
    try:
        a = np.asarray(values)
    except (TypeError, ValueError, RuntimeError) as exc:  # ragged, grad tensors
        raise ValueError(f"{name} must be an array of numbers: {exc}") from None
    if a.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} has dtype {a.dtype}; metrics take numbers (encode labels as "
            "integers first)"
        )
    if a.ndim == 0:
        raise ValueError(f"{name} must have one entry per sample, got a scalar")
    return a.reshape(len(a), -1) if a.ndim > 1 else a


def _pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    a = _rows(y_true, "y_true")
    b = _rows(y_pred, "y_pred")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"y_true has {a.shape[0]} rows but y_pred has {b.shape[0]}")
    if a.shape[0] == 0:
        raise ValueError("metrics need at least one sample")
    width_a, width_b = a.size // a.shape[0], b.size // b.shape[0]
    if width_a != width_b:
        # else NumPy broadcast one against the other: mse of targets (n, 2) against
        # predictions (n, 1) compared each prediction with both columns, silently
        raise ValueError(
            f"y_true has shape {a.shape} but y_pred has shape {b.shape}: "
            f"{width_a} against {width_b} values per sample; pass both with the "
            "same columns (class labels (n,) against predicted labels (n,), not "
            "one-hot or probabilities)"
        )
    return a, b


def _label_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    """Labels of both: a NaN label matches nothing, so f1 of [nan, 1] against [1, 1]
    was a plausible 0.33; refused, naming the row. One label per row: one-hot (or
    multi-label) rows were compared entry by entry, so a wrong class out of three
    still matched on two of its three entries (accuracy 1/3 where no prediction was
    right; scikit-learn counts whole rows)."""
    a, b = _pair(y_true, y_pred)
    width = a.size // a.shape[0]
    if width > 1:
        raise ValueError(
            f"y_true and y_pred have {width} labels per row (shape {a.shape}); "
            "classification metrics take one class label per row: for one-hot "
            "rows pass y.argmax(axis=1) (and model.predict(X), which gives labels)"
        )
    for name, v in (("y_true", a), ("y_pred", b)):
        bad = np.flatnonzero(~np.isfinite(v.reshape(len(v), -1)).all(axis=1))
        if bad.size:
            raise ValueError(
                f"{name} has a NaN or infinite label at row {bad[0]}; class labels "
                "must be finite (a diverged model's outputs?)"
            )
        # probabilities matched no label: accuracy([0, 1], [0.2, 0.9]) was 0.0
        fractional = np.flatnonzero((v.reshape(len(v), -1) % 1 != 0).any(axis=1))
        if fractional.size:
            row = fractional[0]
            raise ValueError(
                f"{name} holds {float(v.reshape(len(v), -1)[row][0])!r:.20} at row "
                f"{row}, which is no class label; classification metrics compare "
                "class labels (whole numbers): pass predicted labels "
                "(model.predict(X)), not probabilities (predict_proba) or scores "
                "(decision_function)"
            )
    return a, b


def accuracy(y_true, y_pred) -> float:
    """Fraction of exactly matching labels."""
    a, b = _label_pair(y_true, y_pred)
    return float(np.mean(a.reshape(-1) == b.reshape(-1)))


def _per_class(y_true, y_pred):
    a, b = _label_pair(y_true, y_pred)
    a = a.reshape(-1)
    b = b.reshape(-1)
    classes = np.union1d(a, b)
    binary = len(classes) <= 2 and set(classes.tolist()) <= {0, 1}
    if binary:
        classes = np.array([1])
    tp = np.array([np.sum((b == c) & (a == c)) for c in classes], dtype=np.float64)
    pred_pos = np.array([np.sum(b == c) for c in classes], dtype=np.float64)
    true_pos = np.array([np.sum(a == c) for c in classes], dtype=np.float64)
    return tp, pred_pos, true_pos


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den > 0)
    return out


def precision(y_true, y_pred) -> float:
    """TP / (TP + FP): binary for labels {0, 1}, macro average otherwise."""
    tp, pred_pos, _ = _per_class(y_true, y_pred)
    return float(np.mean(_safe_div(tp, pred_pos)))


def recall(y_true, y_pred) -> float:
    """TP / (TP + FN): binary for labels {0, 1}, macro average otherwise."""
    tp, _, true_pos = _per_class(y_true, y_pred)
    return float(np.mean(_safe_div(tp, true_pos)))


def f1(y_true, y_pred) -> float:
    """Harmonic mean of precision and recall (per class, then macro average)."""
    tp, pred_pos, true_pos = _per_class(y_true, y_pred)
    p = _safe_div(tp, pred_pos)
    r = _safe_div(tp, true_pos)
    return float(np.mean(_safe_div(2 * p * r, p + r)))


def mse(y_true, y_pred) -> float:
    """Mean squared error."""
    a, b = _pair(y_true, y_pred)
    d = a.reshape(len(a), -1).astype(np.float64) - b.reshape(len(b), -1)
    return float(np.mean(d * d))


def mae(y_true, y_pred) -> float:
    """Mean absolute error."""
    a, b = _pair(y_true, y_pred)
    return float(
        np.mean(
            np.abs(a.reshape(len(a), -1).astype(np.float64) - b.reshape(len(b), -1))
        )
    )


def r2(y_true, y_pred) -> float:
    """Coefficient of determination 1 - SS_res / SS_tot (averaged over outputs);
    1.0 is perfect, 0.0 predicts the mean; constant targets give 0.0 unless perfect.

    As scikit-learn's ``r2_score``: one sample gives NaN with a warning (R^2 is not
    defined for fewer than two samples; it was 0.0 or 1.0, a score that looked
    measured), and NaN or infinite values give NaN."""
    a, b = _pair(y_true, y_pred)
    if a.shape[0] < 2:
        warnings.warn(
            "R^2 is not defined for fewer than two samples (y_true has one): the "
            "score is nan, as scikit-learn's r2_score gives; score on more samples "
            "or use mse/mae",
            RuntimeWarning,
            stacklevel=2,
        )
        return math.nan
    a = a.reshape(len(a), -1).astype(np.float64)
    b = b.reshape(len(b), -1).astype(np.float64)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        # NaN made ss_tot > 0 False: the score was 0.0, "predicts the mean"
        return math.nan
    ss_res = np.sum((a - b) ** 2, axis=0)
    ss_tot = np.sum((a - a.mean(axis=0)) ** 2, axis=0)
    scores = np.where(
        ss_tot > 0,
        1 - ss_res / np.where(ss_tot > 0, ss_tot, 1),
        np.where(ss_res == 0, 1.0, 0.0),
    )
    return float(np.mean(scores))


CLASSIFICATION: dict[str, Callable[..., float]] = {
    "accuracy": accuracy,
    "precision": precision,
    "recall": recall,
    "f1": f1,
}
REGRESSION: dict[str, Callable[..., float]] = {"mse": mse, "mae": mae, "r2": r2}
_ALIASES = {"acc": "accuracy", "f1_score": "f1", "r2_score": "r2", "rmse": None}


def get(name: str) -> tuple[str, Callable[..., float], str]:
    """``(name, function, kind)`` for a metric name; kind is
    "classification"/"regression"."""
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key) or key
    if key in CLASSIFICATION:
        return key, CLASSIFICATION[key], "classification"
    if key in REGRESSION:
        return key, REGRESSION[key], "regression"
    raise ValueError(
        f"unknown metric {name!r}; choose from "
        f"{', '.join(sorted(CLASSIFICATION) + sorted(REGRESSION))}"
    )
