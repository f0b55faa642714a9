"""The six data sets of TensorFlow Playground and its input features.

Ported from TensorFlow Playground's ``dataset.ts`` so the widget behaves like the
original: points lie in about [-6, 6]^2, ``noise`` is the Playground's percentage (0 to
50), labels are -1/+1 for classification and in [-1, 1] for regression. A seeded
``numpy.random.Generator`` replaces ``Math.random`` so a configuration reproduces its
data.
"""

from __future__ import annotations

import numpy as np

CLASSIFICATION = ("circle", "xor", "gaussian", "spiral")
REGRESSION = ("plane", "multi-gaussian")
DATASETS = CLASSIFICATION + REGRESSION

#: Number of points, as in the Playground.
N_CLASSIFY = 500
N_REGRESS = 1200

#: Input features (name -> function of the two coordinates), in the Playground's order.
FEATURES: dict[str, object] = {
    "x1": lambda a, b: a,
    "x2": lambda a, b: b,
    "x1^2": lambda a, b: a * a,
    "x2^2": lambda a, b: b * b,
    "x1*x2": lambda a, b: a * b,
    "sin x1": lambda a, b: np.sin(a),
    "sin x2": lambda a, b: np.sin(b),
}

#: LaTeX labels of the features (for the checkboxes' descriptions).
FEATURE_LABELS = {
    "x1": "X₁",
    "x2": "X₂",
    "x1^2": "X₁²",
    "x2^2": "X₂²",
    "x1*x2": "X₁X₂",
    "sin x1": "sin(X₁)",
    "sin x2": "sin(X₂)",
}


def problem_of(dataset: str) -> str:
    """ "classification" or "regression"."""
    if dataset in CLASSIFICATION:
        return "classification"
    if dataset in REGRESSION:
        return "regression"
    raise ValueError(
        f"unknown data set {dataset!r}; choose one of {', '.join(DATASETS)}"
    )


def _uniform(rng: np.random.Generator, lo: float, hi: float, n: int) -> np.ndarray:
    return rng.uniform(lo, hi, n)


def circle(
    n: int, noise: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Blue disc inside an orange ring (radius 5)."""
    radius = 5.0
    half = n // 2
    parts = []
    for lo, hi in ((0.0, radius * 0.5), (radius * 0.7, radius)):
        r = _uniform(rng, lo, hi, half)
        angle = _uniform(rng, 0, 2 * np.pi, half)
        x, y = r * np.sin(angle), r * np.cos(angle)
        nx = _uniform(rng, -radius, radius, half) * noise
        ny = _uniform(rng, -radius, radius, half) * noise
        label = np.where(np.hypot(x + nx, y + ny) < radius * 0.5, 1.0, -1.0)
        parts.append((np.stack([x, y], 1), label))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def xor(
    n: int, noise: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Four quadrants, label sign(x1*x2)."""
    padding = 0.3
    x, y, nx, ny = _plane_points(n, noise, rng, radius=5.0)
    x = x + np.where(x > 0, padding, -padding)
    y = y + np.where(y > 0, padding, -padding)
    label = np.where((x + nx) * (y + ny) >= 0, 1.0, -1.0)
    return np.stack([x, y], 1), label


def gaussian(
    n: int, noise: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Two Gaussian blobs at (2, 2) and (-2, -2); noise widens them."""
    variance = 0.5 + (4 - 0.5) * (noise / 0.5)
    half = n // 2
    pts, labels = [], []
    for c, lab in ((2.0, 1.0), (-2.0, -1.0)):
        pts.append(rng.normal(c, np.sqrt(variance), (half, 2)))
        labels.append(np.full(half, lab))
    return np.concatenate(pts), np.concatenate(labels)


def spiral(
    n: int, noise: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved spirals."""
    half = n // 2
    pts, labels = [], []
    for delta, lab in ((0.0, 1.0), (np.pi, -1.0)):
        i = np.arange(half)
        r = i / half * 5
        t = 1.75 * i / half * 2 * np.pi + delta
        x = r * np.sin(t) + _uniform(rng, -1, 1, half) * noise
        y = r * np.cos(t) + _uniform(rng, -1, 1, half) * noise
        pts.append(np.stack([x, y], 1))
        labels.append(np.full(half, lab))
    return np.concatenate(pts), np.concatenate(labels)


def _plane_points(
    n: int, noise: float, rng: np.random.Generator, radius: float = 6.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(x, y, noise_x, noise_y)``: n uniform points of [-radius, radius]^2 and their
    noise offsets (uniform on the same square, scaled by ``noise``), in that draw order.
    """
    x = _uniform(rng, -radius, radius, n)
    y = _uniform(rng, -radius, radius, n)
    nx = _uniform(rng, -radius, radius, n) * noise
    ny = _uniform(rng, -radius, radius, n) * noise
    return x, y, nx, ny


def plane(
    n: int, noise: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Regression: label (x1 + x2) / 10, on [-6, 6]^2."""
    x, y, nx, ny = _plane_points(n, noise, rng)
    label = (x + nx + y + ny) / 10.0
    return np.stack([x, y], 1), label


_GAUSSIANS = (
    (-4, 2.5, 1),
    (0, 2.5, -1),
    (4, 2.5, 1),
    (-4, -2.5, -1),
    (0, -2.5, 1),
    (4, -2.5, -1),
)


def multi_gaussian(
    n: int, noise: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Regression: six signed bumps; the label is the strongest bump at the point."""
    x, y, nx, ny = _plane_points(n, noise, rng)
    px, py = x + nx, y + ny
    label = np.zeros(n)
    for cx, cy, sign in _GAUSSIANS:
        bump = sign * np.clip(1 - np.hypot(px - cx, py - cy) / 2, 0, 1)
        label = np.where(np.abs(bump) > np.abs(label), bump, label)
    return np.stack([x, y], 1), label


_GENERATORS = {
    "circle": circle,
    "xor": xor,
    "gaussian": gaussian,
    "spiral": spiral,
    "plane": plane,
    "multi-gaussian": multi_gaussian,
}


def generate(
    dataset: str, noise: float = 0, seed: int = 0, n: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Points ``(n, 2)`` and labels ``(n,)`` of a Playground data set.

    Parameters
    ----------
    dataset:
        One of :data:`DATASETS`.
    noise:
        The Playground's noise percentage, 0 to 50.
    seed:
        Seed of the random generator.
    n:
        Number of points (default: 500 for classification, 1200 for regression).
    """
    problem = problem_of(dataset)
    if n is None:
        n = N_CLASSIFY if problem == "classification" else N_REGRESS
    rng = np.random.default_rng(seed)
    X, y = _GENERATORS[dataset](int(n), float(noise) / 100.0, rng)
    return X.astype(np.float64), y.astype(np.float64)


def split(
    X: np.ndarray, y: np.ndarray, train_percent: float, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Shuffle and split: ``train_percent`` of the points train, the rest test.

    With two points or more, each side keeps at least one point: 10 % of a small data
    set of your own (``Playground(data=...)`` takes 4 points) would otherwise leave
    nothing to train on, and every epoch failed with "X is empty".
    """
    rng = np.random.default_rng(seed + 1)
    order = rng.permutation(len(X))
    cut = int(np.floor(len(X) * float(train_percent) / 100.0))
    if len(X) >= 2:
        cut = min(max(cut, 1), len(X) - 1)
    tr, te = order[:cut], order[cut:]
    return X[tr], y[tr], X[te], y[te]


def features(X: np.ndarray, names: list[str] | tuple[str, ...]) -> np.ndarray:
    """The chosen input features of points ``X`` as a float32 (n, len(names)) array."""
    unknown = [n for n in names if n not in FEATURES]
    if unknown:
        raise ValueError(f"unknown feature(s) {unknown}; choose from {list(FEATURES)}")
    a, b = X[:, 0], X[:, 1]
    cols = [FEATURES[name](a, b) for name in names]  # type: ignore[operator]
    return np.ascontiguousarray(np.stack(cols, 1), dtype=np.float32)
