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


#: Elements per block: metrics work through the rows in blocks of about this many
#: values, so their float64 temporaries stay a few MiB whatever the input. A
#: zero-stride view (``np.broadcast_to(y, (10**9,))``, a few bytes) was copied whole
#: to float64 and its difference squared: gigabytes, a bare NumPy MemoryError or
#: the kernel killed by the system.
BLOCK = 1 << 18


def _rows(values: Any, name: str) -> np.ndarray:
    """``values`` as an array of numbers with one row per sample (a view where
    NumPy can give one)."""
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
    return a.reshape(len(a), math.prod(a.shape[1:]))


def _pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    """Both as (rows, values per row), with as many rows and values per row."""
    a = _rows(y_true, "y_true")
    b = _rows(y_pred, "y_pred")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"y_true has {a.shape[0]} rows but y_pred has {b.shape[0]}")
    if a.shape[0] == 0:
        raise ValueError("metrics need at least one sample")
    if a.shape[1] == 0 or b.shape[1] == 0:
        raise ValueError(
            f"y_true has shape {np.shape(y_true)} and y_pred {np.shape(y_pred)}: no "
            "values per sample; pass one value (or label) per row, shape (n,)"
        )
    if a.shape[1] != b.shape[1]:
        # else NumPy broadcast one against the other: mse of targets (n, 2) against
        # predictions (n, 1) compared each prediction with both columns, silently
        raise ValueError(
            f"y_true has shape {np.shape(y_true)} but y_pred has shape "
            f"{np.shape(y_pred)}: {a.shape[1]} against {b.shape[1]} values per "
            "sample; pass both with the same columns (class labels (n,) against "
            "predicted labels (n,), not one-hot or probabilities)"
        )
    return a, b


def _blocks(a: np.ndarray, b: np.ndarray):
    """``(a block, b block)`` over the rows, about BLOCK values each."""
    step = max(1, BLOCK // max(1, a.shape[1]))
    for start in range(0, a.shape[0], step):
        yield a[start : start + step], b[start : start + step]


def _f64(block: np.ndarray) -> np.ndarray:
    return block.astype(np.float64, copy=False)


def _label_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    """Labels of both, (n,) each: a NaN label matches nothing, so f1 of [nan, 1]
    against [1, 1] was a plausible 0.33; refused, naming the row. One label per
    row: one-hot (or multi-label) rows were compared entry by entry, so a wrong
    class out of three still matched on two of its three entries (accuracy 1/3
    where no prediction was right; scikit-learn counts whole rows)."""
    a, b = _pair(y_true, y_pred)
    width = a.shape[1]
    if width > 1:
        raise ValueError(
            f"y_true and y_pred have {width} labels per row (shape "
            f"{np.shape(y_true)}); classification metrics take one class label per "
            "row: for one-hot rows pass y.argmax(axis=1) (and model.predict(X), "
            "which gives labels)"
        )
    a, b = a[:, 0], b[:, 0]
    for name, v in (("y_true", a), ("y_pred", b)):
        if v.dtype.kind != "f":
            continue  # integers and booleans are whole and finite
        for start in range(0, len(v), BLOCK):
            block = v[start : start + BLOCK]
            bad = np.flatnonzero(~np.isfinite(block))
            if bad.size:
                raise ValueError(
                    f"{name} has a NaN or infinite label at row {start + bad[0]}; "
                    "class labels must be finite (a diverged model's outputs?)"
                )
            # probabilities matched no label: accuracy([0, 1], [0.2, 0.9]) was 0.0
            fractional = np.flatnonzero(block % 1 != 0)
            if fractional.size:
                row = start + fractional[0]
                raise ValueError(
                    f"{name} holds {float(v[row])!r:.20} at row {row}, which is no "
                    "class label; classification metrics compare class labels "
                    "(whole numbers): pass predicted labels (model.predict(X)), not "
                    "probabilities (predict_proba) or scores (decision_function)"
                )
    return a, b


def accuracy(y_true, y_pred) -> float:
    """Fraction of exactly matching labels."""
    a, b = _label_pair(y_true, y_pred)
    same = sum(
        int(np.count_nonzero(a[i : i + BLOCK] == b[i : i + BLOCK]))
        for i in range(0, len(a), BLOCK)
    )
    return same / len(a)


def _per_class(y_true, y_pred):
    """Per class: true positives, predicted and actual counts (float64); the
    positive class 1 only for labels within {0, 1}."""
    a, b = _label_pair(y_true, y_pred)
    blocks = [(a[i : i + BLOCK], b[i : i + BLOCK]) for i in range(0, len(a), BLOCK)]
    classes = np.unique(np.concatenate([np.union1d(ab, bb) for ab, bb in blocks]))
    tp = np.zeros(len(classes))
    pred_pos = np.zeros(len(classes))
    true_pos = np.zeros(len(classes))
    for ab, bb in blocks:
        ia = np.searchsorted(classes, ab)
        ib = np.searchsorted(classes, bb)
        true_pos += np.bincount(ia, minlength=len(classes))
        pred_pos += np.bincount(ib, minlength=len(classes))
        tp += np.bincount(ia[ab == bb], minlength=len(classes))
    if len(classes) <= 2 and set(classes.tolist()) <= {0, 1}:
        keep = classes == 1  # binary: the positive class (none there: all zero)
        return tp[keep], pred_pos[keep], true_pos[keep]
    return tp, pred_pos, true_pos


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den > 0)
    return out


def precision(y_true, y_pred) -> float:
    """TP / (TP + FP): binary for labels {0, 1}, macro average otherwise."""
    tp, pred_pos, _ = _per_class(y_true, y_pred)
    return float(np.mean(_safe_div(tp, pred_pos))) if len(tp) else 0.0


def recall(y_true, y_pred) -> float:
    """TP / (TP + FN): binary for labels {0, 1}, macro average otherwise."""
    tp, _, true_pos = _per_class(y_true, y_pred)
    return float(np.mean(_safe_div(tp, true_pos))) if len(tp) else 0.0


def f1(y_true, y_pred) -> float:
    """Harmonic mean of precision and recall (per class, then macro average)."""
    tp, pred_pos, true_pos = _per_class(y_true, y_pred)
    if not len(tp):
        return 0.0
    p = _safe_div(tp, pred_pos)
    r = _safe_div(tp, true_pos)
    return float(np.mean(_safe_div(2 * p * r, p + r)))


def mse(y_true, y_pred) -> float:
    """Mean squared error."""
    a, b = _pair(y_true, y_pred)
    total = 0.0
    for ab, bb in _blocks(a, b):
        d = _f64(ab) - bb
        total += float(np.sum(d * d))
    return total / a.size


def mae(y_true, y_pred) -> float:
    """Mean absolute error."""
    a, b = _pair(y_true, y_pred)
    total = 0.0
    for ab, bb in _blocks(a, b):
        total += float(np.sum(np.abs(_f64(ab) - bb)))
    return total / a.size


def check_sample_weight(sample_weight, n: int, what: str, result: str) -> np.ndarray:
    """``sample_weight`` as float64 (n,), or a ``ValueError`` naming ``what``: one
    weight per row, finite, >= 0 and not all zero (else ``result`` was NaN or
    meaningless)."""
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(
            f"{what}: sample_weight has shape {w.shape}; give one weight per row of "
            f"X ({n})"
        )
    if not (np.all(np.isfinite(w)) and np.all(w >= 0) and np.sum(w) > 0):
        raise ValueError(
            f"{what}: sample_weight must be finite, >= 0 and not all zero "
            f"({result} was NaN)"
        )
    return w


def r2(y_true, y_pred, sample_weight=None) -> float:
    """Coefficient of determination 1 - SS_res / SS_tot (averaged over outputs);
    1.0 is perfect, 0.0 predicts the mean; constant targets give 0.0 unless perfect.
    ``sample_weight`` (one per row) weights both sums and the mean, as scikit-learn's
    ``r2_score(y_true, y_pred, sample_weight=w)``.

    As scikit-learn's ``r2_score``: one sample gives NaN with a warning (R^2 is not
    defined for fewer than two samples; it was 0.0 or 1.0, a score that looked
    measured), and NaN or infinite values give NaN."""
    a, b = _pair(y_true, y_pred)
    w = None
    if sample_weight is not None:
        w = check_sample_weight(sample_weight, a.shape[0], "r2", "R^2")
    if a.shape[0] < 2:
        warnings.warn(
            "R^2 is not defined for fewer than two samples (y_true has one): the "
            "score is nan, as scikit-learn's r2_score gives; score on more samples "
            "or use mse/mae",
            RuntimeWarning,
            stacklevel=2,
        )
        return math.nan
    column_sums = np.zeros(a.shape[1])
    start = 0
    for ab, bb in _blocks(a, b):
        ab, bb = _f64(ab), _f64(bb)
        if not (np.isfinite(ab).all() and np.isfinite(bb).all()):
            # NaN made ss_tot > 0 False: the score was 0.0, "predicts the mean"
            return math.nan
        if w is None:
            column_sums += ab.sum(axis=0)
        else:
            column_sums += w[start : start + len(ab)] @ ab
        start += len(ab)
    mean = column_sums / (a.shape[0] if w is None else np.sum(w))
    ss_res = np.zeros(a.shape[1])
    ss_tot = np.zeros(a.shape[1])
    start = 0
    for ab, bb in _blocks(a, b):
        ab = _f64(ab)
        if w is None:
            ss_res += np.sum((ab - bb) ** 2, axis=0)
            ss_tot += np.sum((ab - mean) ** 2, axis=0)
        else:
            wb = w[start : start + len(ab)]
            ss_res += wb @ (ab - bb) ** 2
            ss_tot += wb @ (ab - mean) ** 2
        start += len(ab)
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
