"""Playground data beyond TensorFlow Playground's six sets: a data set typed as a
condition or formula in x1, x2, and the user's own arrays.

A condition (``x2 > sin(2*x1)``) labels uniform points of the plane +1 where it holds
and -1 elsewhere (classification); any other formula (``x1*x2``) is a regression
target, scaled into [-1, 1]. Formulas go through symnb's safe parser (nothing is
evaluated but the SymPy expression it builds). Arrays with two columns are shown as
they are (rescaled to the plane); with more columns the plane is their two principal
directions, and the output map shows the network along that plane.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import numpy as np

from . import data

#: Half-width of the plane the points are shown in.
RADIUS = 6.0
#: Points drawn for a formula data set.
N_POINTS = 500


class DataSource:
    """Points, labels and network inputs of a Playground data set not in ``data``."""

    def __init__(
        self,
        name: str,
        problem: str,
        sample: Callable[[float, int], tuple[Any, ...]],
        formula: str | None = None,
        projection: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    ) -> None:
        self.name = name
        self.problem = problem
        self.formula = formula
        self._sample = sample
        #: what the last :meth:`points` left out, and why ("" when nothing)
        self.note = ""
        #: (mean, scale, components (2, d)) for arrays of more than two columns
        self._projection = projection

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_formula(cls, text: Any) -> DataSource:
        """A data set from a condition (classification) or formula (regression) in
        ``x1`` and ``x2``; raises ``symnb.errors.FormulaError`` for a bad formula."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(
                "data formula: give a condition such as 'x2 > sin(2*x1)' or a "
                "formula such as 'x1*x2'"
            )
        fn, problem = _compile(text.strip())

        def sample(noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
            rng = np.random.default_rng(seed)
            X = rng.uniform(-RADIUS, RADIUS, (N_POINTS, 2))
            shift = rng.uniform(-RADIUS, RADIUS, (N_POINTS, 2)) * noise / 100.0
            values = fn(X[:, 0] + shift[:, 0], X[:, 1] + shift[:, 1])
            if problem == "classification":
                labels = np.where(values > 0, 1.0, -1.0)
                if np.all(labels == labels[0]):  # x1 > 100: one class, no word
                    where = "every" if labels[0] > 0 else "no"
                    return (
                        X,
                        labels,
                        (
                            f"{text.strip()} holds at {where} point of the plane "
                            f"[-{RADIUS:g}, {RADIUS:g}]^2: one class, nothing to learn; "
                            "change the condition"
                        ),
                    )
                return X, labels
            # undefined (log(x1) at x1 < 0) or beyond float64 (exp(1000*x1)): such
            # points are left out; they were labelled 0, so the largest values of
            # exp(1000*x1) became 0 without a word
            finite = np.isfinite(values)
            if not finite.any():
                raise ValueError(
                    f"data formula {text.strip()!r} is not a finite number at any "
                    f"point of the plane [-{RADIUS:g}, {RADIUS:g}]^2 (undefined or "
                    "too large everywhere); type a formula that has values there, "
                    "e.g. x1*x2"
                )
            note = ""
            if not finite.all():
                note = (
                    f"{text.strip()} is undefined or too large at "
                    f"{int((~finite).sum())} of {len(values)} points; they are left "
                    "out"
                )
                X, values = X[finite], values[finite]
            if np.all(values == values[0]):  # 0*x1: a constant, nothing to learn
                same = (
                    f"{text.strip()} has the same value {float(values[0]):g} at "
                    "every point: nothing to learn; type a formula that varies "
                    "with x1 or x2"
                )
                note = f"{note}; {same}" if note else same
            scale = float(np.abs(values).max()) or 1.0
            return X, values / scale, note

        source = cls(text.strip(), problem, sample, formula=text.strip())
        source.points(0, 0)  # a formula without a single value is refused now
        return source

    @classmethod
    def from_arrays(cls, X: Any, y: Any) -> DataSource:
        """The user's own data: X of shape (n, d >= 2), y of shape (n,)."""
        for name, given in (("X", X), ("y", y)):
            try:
                kind = np.asarray(given).dtype.kind
            except (TypeError, ValueError) as exc:  # ragged rows: NumPy's bare
                # "setting an array element with a sequence", naming no argument
                raise ValueError(
                    f"Playground(data=(X, y)): {name} must be an array of numbers "
                    f"with rows of one length ({exc})"
                ) from None
            if kind == "c":
                # np.array(..., float64) dropped the imaginary part (ComplexWarning)
                raise TypeError(
                    f"Playground(data=(X, y)): {name} holds complex numbers; pass "
                    f"real ones, e.g. {name}.real or abs({name})"
                )
        try:
            X = np.array(X, dtype=np.float64)
            y = np.array(y, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"Playground(data=(X, y)): numbers expected ({exc})"
            ) from None
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1:
            raise ValueError(
                "Playground(data=(X, y)): y must hold one label or number per row "
                f"of X, shape (n,) or (n, 1); got shape {y.shape}"
            )
        if X.ndim != 2 or X.shape[1] < 2 or X.shape[0] < 4:
            raise ValueError(
                f"Playground(data=(X, y)): X must have shape (n >= 4, d >= 2), got "
                f"{X.shape}"
            )
        if len(y) != len(X):
            raise ValueError(
                f"Playground(data=(X, y)): {len(X)} rows in X but {len(y)} labels"
            )
        bad = np.argwhere(~np.isfinite(X))
        if len(bad):
            r, c = bad[0]
            raise ValueError(f"Playground(data=(X, y)): X[{r}, {c}] is not finite")
        if not np.isfinite(y).all():
            raise ValueError(
                f"Playground(data=(X, y)): y[{int(np.argmin(np.isfinite(y)))}] "
                "is not finite"
            )
        classes = np.unique(y)
        if len(classes) < 2:
            # trained as "classification" of one class: every point 1, nothing to
            # learn, a perfect score at once (compare and MLPClassifier refuse it)
            raise ValueError(
                f"Playground(data=(X, y)): y has the single value "
                f"{float(classes[0])!r:.20} in all {len(y)} rows, so there is nothing "
                "to learn; give labels of two classes, or numbers that vary"
            )
        note = ""
        if len(classes) <= 2:
            problem = "classification"
            labels = np.where(y == classes[-1], 1.0, -1.0)
        else:
            problem = "regression"
            labels = y / (float(np.abs(y).max()) or 1.0)
            if len(classes) <= 10 and (classes == np.round(classes)).all():
                # class labels 0, 1, 2 would otherwise become numbers without a word
                note = (
                    f"y has {len(classes)} whole values, so it is learned as numbers "
                    "(regression): the playground classifies two classes; pass e.g. "
                    "y == 0 for one class against the rest"
                )
        # scaled into [-1, 1] first: the mean and spread of values near the float64
        # limit (1e308) overflowed to inf/NaN, and training then blamed "the data"
        if X.shape[1] == 2:  # one scale for both columns keeps the picture's shape
            X = X / (float(np.abs(X).max()) or 1.0)
        else:  # each column is standardised below anyway
            peak = np.abs(X).max(0)
            X = X / np.where(peak > 0, peak, 1.0)
        mean = X.mean(0)
        centred = X - mean
        if X.shape[1] == 2:
            scale = float(np.abs(centred).max()) or 1.0
            shown = centred / scale * (RADIUS - 0.5)
            projection = None
        else:
            scale_d = centred.std(0)
            scale_d[scale_d == 0] = 1.0
            z = centred / scale_d
            _, _, vt = np.linalg.svd(z, full_matrices=False)
            components = vt[:2]
            plane = z @ components.T
            spread = float(np.abs(plane).max()) or 1.0
            factor = (RADIUS - 0.5) / spread
            shown = plane * factor
            projection = (scale_d, components, np.array(factor))
            X = z

        def sample(noise: float, seed: int) -> tuple[Any, ...]:
            return (X if projection is not None else shown), labels, note

        return cls(f"your data ({len(X)} points)", problem, sample, None, projection)

    # ------------------------------------------------------------------ use
    @property
    def fixed_inputs(self) -> bool:
        """Whether the network sees the data's own columns (not the plane features)."""
        return self._projection is not None

    @property
    def input_names(self) -> list[str]:
        d = self._projection[1].shape[1] if self._projection is not None else 2
        return [f"x{i + 1}" for i in range(d)]

    def points(self, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """All points and labels (in [-1, 1]); :attr:`note` says what was left out."""
        out = self._sample(float(noise), int(seed))
        self.note = out[2] if len(out) == 3 else ""
        return out[0], out[1]

    def shown(self, points: np.ndarray) -> np.ndarray:
        """Where points are drawn on the plane."""
        if self._projection is None:
            return points
        _, components, factor = self._projection
        return points @ components.T * float(factor)

    def inputs(self, points: np.ndarray, features: list[str]) -> np.ndarray:
        """The network's inputs for points."""
        if self._projection is None:
            return data.features(points, features)
        return np.ascontiguousarray(points, dtype=np.float32)

    def plane_inputs(self, plane: np.ndarray, features: list[str]) -> np.ndarray:
        """The network's inputs at plane points (for the maps)."""
        if self._projection is None:
            return data.features(plane, features)
        _, components, factor = self._projection
        return np.ascontiguousarray(plane / float(factor) @ components, np.float32)


def _compile(text: str) -> tuple[Callable[[np.ndarray, np.ndarray], np.ndarray], str]:
    """A NumPy function of (x1, x2) and the problem it defines."""
    import sympy as sp

    from symnb.formula.parse import parse_formula

    variables = ("x1", "x2")
    try:
        tree = ast.parse(text.replace("^", "**"), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # a syntax error, a NUL, or a text too long or deep for Python's parser
        # (100,000 terms or unary minus raised RecursionError/MemoryError here):
        # parse_formula below checks the length and depth first and says so
        tree = None
    condition = isinstance(tree, (ast.Compare, ast.BoolOp)) or (
        isinstance(tree, ast.UnaryOp) and isinstance(tree.op, ast.Not)
    )
    if condition:
        # one whole expression (checked by ast above), so wrapping adds no argument
        expr = parse_formula(f"where({text}, 1, -1)", variables=variables)
    else:
        expr = parse_formula(text, variables=variables)
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    unknown = [s.name for s in symbols if s.name not in variables]
    if unknown:
        from symnb.errors import FormulaError

        raise FormulaError(
            f"data formula {text!r}: unknown name(s) {unknown}; use x1 and x2"
        )
    x1, x2 = sp.Symbol("x1", real=True), sp.Symbol("x2", real=True)
    fn = sp.lambdify((x1, x2), expr, modules="numpy")

    def evaluate(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = np.asarray(fn(a, b), dtype=np.float64)
        return np.broadcast_to(out, a.shape).copy()

    return evaluate, "classification" if condition else "regression"
