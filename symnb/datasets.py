"""Small data sets for trying activations: 2-D toy classification, 1-D regression,
digits.

Every generator is seeded (the same ``seed`` gives the same points), returns ``(X, y)``
with ``X`` a C-contiguous ``float32`` array of shape ``(n, features)`` and ``y`` an
``int64`` label vector (classification) or a ``float32`` target vector (regression).
Nothing is downloaded: the digits come from scikit-learn's bundled copy (an optional
dependency).

>>> from symnb import datasets
>>> X, y = datasets.two_moons(200, noise=0.1, seed=0)
>>> X.shape, sorted(set(y.tolist()))
((200, 2), [0, 1])
"""

from __future__ import annotations

import difflib
import inspect
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from symnb.checks import check_flag, check_seed
from symnb.memory import check_fits

__all__ = [
    "blobs",
    "circles",
    "digits",
    "gaussian_blobs",
    "load",
    "names",
    "sine",
    "spiral",
    "train_test_split",
    "two_moons",
    "xor",
]


def rng_from_seed(seed: int | None) -> np.random.Generator:
    """``np.random.default_rng(seed)`` for a seed that :func:`symnb.checks.check_seed`
    accepts (None or an int >= 0), else an error naming ``seed``. Also used by
    ``MLP.fit(seed=...)``."""
    return np.random.default_rng(check_seed(seed))


def _check(n: int, noise: float) -> None:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    # float64 points, their noise, labels, the shuffle and the float32 copy
    check_fits(int(n) * 96, f"a data set of n = {n} points", "Use a smaller n.")
    if isinstance(noise, (bool, np.bool_)) or not isinstance(
        noise, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"noise must be a number >= 0 such as 0.1, got {noise!r}")
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")


def _real(name: str, value: Any, example: str) -> float:
    """``value`` as a finite float, else an error naming ``name`` (a string or None
    was NumPy's or Python's own message; NaN or inf turned the points into NaN)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number such as {example}, got {value!r}")
    number = float(value)
    if not np.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return number


def _count(name: str, value: Any, n: int) -> int:
    """A number of classes: an integer from 2 to ``n`` (each class gets a point;
    2.5 was cut to 2, 10**9 built a billion classes for 10 points)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 2, got {value!r}")
    if not 2 <= value <= n:
        raise ValueError(
            f"{name} must be an integer from 2 to n = {n} (every class needs at "
            f"least one of the n points), got {value!r}"
        )
    return int(value)


def _finish(
    X: np.ndarray,
    y: np.ndarray,
    rng: np.random.Generator,
    shuffle: bool,
    blame: str,
) -> tuple[np.ndarray, np.ndarray]:
    if shuffle:
        order = rng.permutation(len(X))
        X, y = X[order], y[order]
    with np.errstate(over="ignore", invalid="ignore"):
        X32 = np.ascontiguousarray(X, dtype=np.float32)
    if not np.isfinite(X32).all():
        # float32 holds magnitudes up to 3.4e38: noise=1e308 gave inf points
        raise ValueError(
            f"the points do not fit float32 (finite up to "
            f"{float(np.finfo(np.float32).max):.3g} in magnitude) with {blame}; "
            "use smaller values"
        )
    return X32, np.ascontiguousarray(y)


def _split_counts(n: int, k: int) -> list[int]:
    """n points into k classes as evenly as possible (the first classes get the extra)."""
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def two_moons(
    n: int = 200, noise: float = 0.1, seed: int | None = 0, shuffle: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaving half circles (scikit-learn's ``make_moons`` shape), labels 0/1."""
    _check(n, noise)
    shuffle = check_flag(shuffle, "shuffle")
    rng = rng_from_seed(seed)
    n0, n1 = _split_counts(n, 2)
    t0 = np.linspace(0.0, np.pi, n0)
    t1 = np.linspace(0.0, np.pi, n1)
    upper = np.stack([np.cos(t0), np.sin(t0)], axis=1)
    lower = np.stack([1.0 - np.cos(t1), 0.5 - np.sin(t1)], axis=1)
    X = np.concatenate([upper, lower]) + rng.normal(0.0, noise, (n, 2))
    y = np.concatenate([np.zeros(n0, np.int64), np.ones(n1, np.int64)])
    return _finish(X, y, rng, shuffle, f"noise={noise!r}")


def circles(
    n: int = 200,
    noise: float = 0.05,
    factor: float = 0.5,
    seed: int | None = 0,
    shuffle: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """A small circle (label 1) inside a large one (label 0); ``factor`` is the radius
    ratio."""
    _check(n, noise)
    shuffle = check_flag(shuffle, "shuffle")
    factor = _real("factor", factor, "0.5")
    if not 0 < factor < 1:
        raise ValueError(f"factor must be between 0 and 1, got {factor!r}")
    rng = rng_from_seed(seed)
    n0, n1 = _split_counts(n, 2)
    t0 = np.linspace(0.0, 2 * np.pi, n0, endpoint=False)
    t1 = np.linspace(0.0, 2 * np.pi, n1, endpoint=False)
    outer = np.stack([np.cos(t0), np.sin(t0)], axis=1)
    inner = factor * np.stack([np.cos(t1), np.sin(t1)], axis=1)
    X = np.concatenate([outer, inner]) + rng.normal(0.0, noise, (n, 2))
    y = np.concatenate([np.zeros(n0, np.int64), np.ones(n1, np.int64)])
    return _finish(X, y, rng, shuffle, f"noise={noise!r}")


def xor(
    n: int = 200, noise: float = 0.0, seed: int | None = 0, shuffle: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Points in the four quadrants of [-1, 1]^2, label 1 where the signs of the two
    coordinates differ; classes balanced, a small margin (0.05) around the axes as in
    TensorFlow Playground. ``noise`` adds Gaussian jitter after labelling."""
    _check(n, noise)
    shuffle = check_flag(shuffle, "shuffle")
    rng = rng_from_seed(seed)
    n0, n1 = _split_counts(n, 2)
    y = np.concatenate([np.zeros(n0, np.int64), np.ones(n1, np.int64)])
    sx = rng.choice([-1.0, 1.0], n)
    sy = np.where(y == 0, sx, -sx)
    mag = rng.uniform(0.05, 1.0, (n, 2))
    X = np.stack([sx * mag[:, 0], sy * mag[:, 1]], axis=1)
    if noise:
        X = X + rng.normal(0.0, noise, (n, 2))
    return _finish(X, y, rng, shuffle, f"noise={noise!r}")


def spiral(
    n: int = 200,
    noise: float = 0.05,
    classes: int = 2,
    turns: float = 1.5,
    seed: int | None = 0,
    shuffle: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """``classes`` interleaved spiral arms in about the unit disc, labels 0..classes-1."""
    _check(n, noise)
    shuffle = check_flag(shuffle, "shuffle")
    classes = _count("classes", classes, n)
    turns = _real("turns", turns, "1.5")
    rng = rng_from_seed(seed)
    parts, labels = [], []
    for k, m in enumerate(_split_counts(n, classes)):
        r = np.linspace(0.05, 1.0, m)
        t = 2 * np.pi * turns * r + 2 * np.pi * k / classes
        parts.append(np.stack([r * np.cos(t), r * np.sin(t)], axis=1))
        labels.append(np.full(m, k, np.int64))
    X = np.concatenate(parts) + rng.normal(0.0, noise, (n, 2))
    return _finish(X, np.concatenate(labels), rng, shuffle, f"noise={noise!r}")


def blobs(
    n: int = 200,
    centers: int | np.ndarray = 2,
    noise: float = 0.5,
    seed: int | None = 0,
    shuffle: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian blobs: ``centers`` classes (a count or a (k, 2) array), std ``noise``."""
    _check(n, noise)
    shuffle = check_flag(shuffle, "shuffle")
    rng = rng_from_seed(seed)
    if isinstance(centers, (numbers.Number, np.bool_)):
        k = _count("centers", centers, n)
        angles = 2 * np.pi * np.arange(k) / k + np.pi / 4
        means = 2.0 * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    else:
        try:
            if np.iscomplexobj(centers):  # the cast dropped the imaginary parts
                raise TypeError
            means = np.asarray(centers, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                "centers must be a count or an array of numbers of shape (k, "
                f"features), got {centers!r:.80}"
            ) from None
        if means.ndim != 2 or not 2 <= len(means) <= n or means.shape[1] < 1:
            raise ValueError(
                "centers must be a count or an array of shape (k, features) with "
                f"2 <= k <= n = {n}, got shape {means.shape}"
            )
        if not np.isfinite(means).all():
            row = int(np.flatnonzero(~np.isfinite(means).all(axis=1))[0])
            raise ValueError(
                f"centers must be finite numbers; row {row} is {means[row].tolist()}"
            )
    parts, labels = [], []
    for k, m in enumerate(_split_counts(n, len(means))):
        parts.append(means[k] + rng.normal(0.0, noise, (m, means.shape[1])))
        labels.append(np.full(m, k, np.int64))
    return _finish(
        np.concatenate(parts),
        np.concatenate(labels),
        rng,
        shuffle,
        f"centers={centers!r:.60} and noise={noise!r}",
    )


gaussian_blobs = blobs


def sine(
    n: int = 200,
    noise: float = 0.1,
    low: float = -np.pi,
    high: float = np.pi,
    seed: int | None = 0,
    shuffle: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """1-D regression: ``x`` uniform in [low, high], ``y = sin(x) + noise * N(0, 1)``.

    ``X`` has shape (n, 1) and ``y`` shape (n,), both float32.
    """
    _check(n, noise)
    shuffle = check_flag(shuffle, "shuffle")
    low, high = _real("low", low, "-3.14"), _real("high", high, "3.14")
    if not low <= high or not np.isfinite(high - low):
        raise ValueError(
            f"low and high must satisfy low <= high with a finite width high - low, "
            f"got low={low!r}, high={high!r}"
        )
    rng = rng_from_seed(seed)
    x = np.sort(rng.uniform(low, high, n))
    y = np.sin(x) + rng.normal(0.0, noise, n)
    X, y = _finish(x[:, None], y, rng, shuffle, f"low={low!r}, high={high!r}")
    with np.errstate(over="ignore"):
        y32 = y.astype(np.float32)
    if not np.isfinite(y32).all():
        raise ValueError(
            f"the targets do not fit float32 with noise={noise!r}; use a smaller noise"
        )
    return X, y32


def digits(scale: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled 8x8 handwritten digits: X (1797, 64), labels 0..9.

    ``scale`` divides the pixel values (0..16) by 16. Needs scikit-learn (no download).
    """
    scale = check_flag(scale, "scale")
    try:
        from sklearn.datasets import load_digits
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "symnb.datasets.digits needs scikit-learn, which ships the data set: "
            "pip install scikit-learn"
        ) from exc
    data = load_digits()
    X = data.data / 16.0 if scale else data.data
    return (
        np.ascontiguousarray(X, dtype=np.float32),
        np.ascontiguousarray(data.target, dtype=np.int64),
    )


def _stratified_counts(counts: np.ndarray, test_size: float) -> np.ndarray:
    """Test rows per class: ``test_size`` of each class, rounded so that they add up
    to ``round(test_size * n)`` (largest remainders first). Rounding each class on
    its own lost rows: classes of 2 gave none (round(0.5) == 0, so 50 pairs of
    labels left the test set empty) and classes of 10 gave 2 of 10 (20%, not 25%)."""
    exact = test_size * counts
    out = np.floor(exact).astype(np.int64)
    missing = round(float(test_size) * int(counts.sum())) - int(out.sum())
    order = np.argsort(-(exact - out), kind="stable")
    out[order[:missing]] += 1
    return out


def _strata(
    y: np.ndarray, stratify: bool | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(class index per row, rows per class)`` to stratify by, or None for a plain
    split. Each row of y is one label (one-hot or multi-label rows: the row is the
    class); np.unique of a 2-D y counted its entries, and their flat indices reached
    past the last row (IndexError), or marked the wrong rows.

    ``stratify=True`` of continuous targets made every distinct value a class: float
    y was split without a word, and integer targets seen once each put the smallest
    values in the test set (equal remainders, lowest classes first). Refused, as
    scikit-learn refuses a class of fewer than 2 members."""
    if stratify is False:
        return None
    if y.dtype.kind == "O" and all(isinstance(v, str) for v in y.ravel()):
        y = y.astype(str)  # text labels as Python objects (a pandas column)
    labels = y.dtype.kind in "iubUS"  # integers, bools and text are class labels
    if stratify and not labels:
        values = y.reshape(len(y), -1)
        whole = y.dtype.kind == "f" and bool(
            np.all(np.isfinite(values)) and np.all(values == np.round(values))
        )
        if not whole:
            bad = (
                np.flatnonzero(np.any(values != np.round(values), axis=1))
                if y.dtype.kind == "f"
                else np.array([], int)
            )
            where = (
                f" (row {int(bad[0])} is {values[bad[0]].tolist()!r:.60})"
                if bad.size
                else ""
            )
            raise ValueError(
                f"stratify=True needs class labels, but y (dtype {y.dtype}) holds "
                f"continuous or non-numeric values{where}; bin y into classes first "
                "(e.g. np.digitize(y, np.quantile(y, [0.25, 0.5, 0.75]))) and split "
                "by those, or pass stratify=None for a plain random split"
            )
        labels = True
    if not labels:
        return None
    _, classes, counts = np.unique(
        y.reshape(len(y), -1), axis=0, return_inverse=True, return_counts=True
    )
    if counts.min() < 2:
        if stratify is None:
            return None  # not labels to keep proportions of: a plain split
        rare = int(np.sum(counts < 2))
        raise ValueError(
            f"stratify=True: {rare} of the {len(counts)} classes in y have only 1 "
            f"row ({len(y)} rows, {len(counts)} distinct values), and each class "
            "needs at least 2 to be in both parts (scikit-learn refuses it too); "
            "if y is a continuous target, bin it into fewer classes first, else "
            "merge the rare classes or pass stratify=None for a plain random split"
        )
    return classes.reshape(-1), counts


def _array_keeping_mask(a: Any) -> np.ndarray:
    """``a`` as an array; a ``numpy.ma.MaskedArray`` stays one (with its mask)."""
    return a if isinstance(a, np.ma.MaskedArray) else np.asarray(a)


def train_test_split(
    X: np.ndarray,
    y: np.ndarray,
    test_size: float = 0.25,
    seed: int | None = 0,
    stratify: bool | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Split into ``X_train, X_test, y_train, y_test`` (scikit-learn's order), seeded.

    ``stratify=None`` (the default): integer, bool or text labels of at least 2 rows per
    class keep each class's proportion in both parts; other targets (regression
    values, labels seen once) get a plain random split. ``stratify=True`` requires
    class labels (integers, or floats holding whole numbers) with at least 2 rows per
    class, as scikit-learn's ``stratify=y``, and refuses continuous targets.
    ``stratify=False``: a plain random split. ``test_size`` is a fraction of the rows
    (a float) or their number (an int), as in scikit-learn.
    """
    # a masked array keeps its mask in both parts (np.asarray would drop it and turn
    # the hidden values of missing entries into data, as scikit-learn's split does not)
    X = _array_keeping_mask(X)
    y = _array_keeping_mask(y)
    for name, a in (("X", X), ("y", y)):
        if a.ndim == 0:
            raise ValueError(
                f"{name} must be an array with one row per sample, got a single "
                f"value {a!r:.60}"
            )
    if stratify is not None:
        stratify = check_flag(stratify, "stratify (True, False or None)")
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)}")
    if len(X) < 2:  # 0 rows with integer labels: NumPy's "cannot reshape array"
        raise ValueError(
            f"X has {len(X)} rows; a split needs at least 2 (one for each part)"
        )
    if isinstance(test_size, (bool, np.bool_)) or not isinstance(
        test_size, (int, float, np.integer, np.floating)
    ):
        raise TypeError(
            f"test_size must be a fraction between 0 and 1 or a number of rows, "
            f"got {test_size!r}"
        )
    if isinstance(test_size, (int, np.integer)):  # a number of rows, as scikit-learn
        if not 0 < test_size < len(X):
            raise ValueError(
                f"test_size={test_size!r} rows: X has {len(X)} rows, so give 1 to "
                f"{len(X) - 1} test rows, or a fraction between 0 and 1"
            )
        test_size = int(test_size) / len(X)
    if not 0 < test_size < 1:
        raise ValueError(
            f"test_size must be between 0 and 1 (a fraction) or a whole number of "
            f"rows, got {test_size!r}"
        )
    rng = rng_from_seed(seed)
    strata = _strata(y, stratify)
    if strata is not None:
        classes, counts = strata
        test = []
        for c, k in enumerate(_stratified_counts(counts, test_size)):
            idx = np.flatnonzero(classes == c)
            rng.shuffle(idx)
            test.append(idx[:k])
        test_idx = np.sort(np.concatenate(test))
    else:
        perm = rng.permutation(len(X))
        test_idx = np.sort(perm[: round(test_size * len(X))])
    if test_idx.size in (0, len(X)):
        empty = "test" if test_idx.size == 0 else "train"
        raise ValueError(
            f"with {len(X)} samples and test_size={test_size!r} the {empty} set "
            f"would be empty; use a test_size nearer 0.5 or more data"
        )
    mask = np.zeros(len(X), bool)
    mask[test_idx] = True
    return X[~mask], X[mask], y[~mask], y[mask]


_GENERATORS: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
    "two_moons": two_moons,
    "moons": two_moons,
    "circles": circles,
    "circle": circles,
    "xor": xor,
    "spiral": spiral,
    "blobs": blobs,
    "gaussian": blobs,
    "gaussian_blobs": blobs,
    "sine": sine,
    "digits": digits,
}


def names() -> list[str]:
    """The names :func:`load` accepts."""
    return sorted(_GENERATORS)


def load(name: str, **options: object) -> tuple[np.ndarray, np.ndarray]:
    """A data set by name (``"two_moons"``, ``"circles"``, ``"xor"``, ``"spiral"``,
    ``"blobs"``, ``"sine"``, ``"digits"``) with the generator's keyword options."""
    key = str(name).strip().lower().replace("-", "_").replace(" ", "_")
    if key not in _GENERATORS:
        raise ValueError(
            f"unknown data set {name!r}; choose one of {', '.join(names())}"
        )
    generator = _GENERATORS[key]
    known = list(inspect.signature(generator).parameters)
    unknown = [k for k in options if k not in known]
    if unknown:  # was the generator's "xor() got an unexpected keyword argument"
        close = difflib.get_close_matches(unknown[0], known, n=1)
        raise TypeError(
            f"data set {name!r} has no option {unknown[0]!r}"
            + (f" (did you mean {close[0]!r}?)" if close else "")
            + f"; its options are {', '.join(known)}"
        )
    return generator(**options)  # type: ignore[arg-type]
