"""scikit-learn style estimators: ``MLPClassifier`` and ``MLPRegressor``.

They follow scikit-learn's conventions (constructor arguments stored unchanged, learned
attributes with a trailing underscore, ``fit`` returns ``self``), so ``GridSearchCV``,
``cross_val_score`` and ``clone`` work when scikit-learn is installed; they inherit
scikit-learn's ``BaseEstimator`` and mixins then, and work without it too.

>>> from symnb.nn import MLPClassifier
>>> clf = MLPClassifier(hidden_layer_sizes=(16, 16), activation="tanh", epochs=50)
>>> clf.fit(X, y).score(X, y)                                  # doctest: +SKIP
"""

from __future__ import annotations

import inspect
import re
from typing import Any

import numpy as np

try:  # scikit-learn is optional
    from sklearn.base import BaseEstimator as _Base
    from sklearn.base import ClassifierMixin as _ClassifierMixin
    from sklearn.base import RegressorMixin as _RegressorMixin

    HAVE_SKLEARN = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_SKLEARN = False

    class _Base:  # type: ignore[no-redef]
        """Minimal get_params/set_params when scikit-learn is absent."""

        @classmethod
        def _get_param_names(cls) -> list[str]:
            sig = inspect.signature(cls.__init__)
            return [p for p in sig.parameters if p != "self"]

        def get_params(self, deep: bool = True) -> dict[str, Any]:
            return {k: getattr(self, k) for k in self._get_param_names()}

        def set_params(self, **params: Any) -> _Base:
            valid = self._get_param_names()
            for k, v in params.items():
                if k not in valid:
                    raise ValueError(
                        f"invalid parameter {k!r} for {type(self).__name__}"
                    )
                setattr(self, k, v)
            return self

        def __repr__(self) -> str:
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
            return f"{type(self).__name__}({args})"

    class _ClassifierMixin:  # type: ignore[no-redef]
        _estimator_type = "classifier"

    class _RegressorMixin:  # type: ignore[no-redef]
        _estimator_type = "regressor"


__all__ = ["HAVE_SKLEARN", "MLPClassifier", "MLPRegressor"]


def _estimator_option_names(message: str) -> str:
    """``message`` of MLP with its ``output`` option spelled as the estimators spell
    it, ``output_activation``: a refused sigmoid output told the user to change
    ``output=``, which the estimators do not take."""
    message = re.sub(r"\boutput=", "output_activation=", message)
    # an activation with no hidden layer: the estimators take the hidden widths
    message = re.sub(
        r"\(e\.g\. sizes \[\d+, 16, \d+\]\)", "(e.g. hidden_layer_sizes=(16,))", message
    )
    return message.replace("leave output out", "leave output_activation out")


class _MLPEstimator(_Base):
    """Shared fitting code; see the subclasses."""

    def _store_params(self, params: dict[str, Any]) -> None:
        """Keep every constructor argument unchanged under its own name (the
        scikit-learn convention); ``params`` is the constructor's ``locals()``."""
        for name in self._get_param_names():
            setattr(self, name, params[name])

    def _build(self, n_features: int, n_outputs: int, loss: Any):
        from .model import MLP

        hidden = self.hidden_layer_sizes
        if isinstance(hidden, (int, np.integer)) and not isinstance(hidden, bool):
            hidden = (hidden,)  # one hidden layer, as scikit-learn takes it
        try:
            if isinstance(hidden, (str, bytes, set, frozenset, dict)):
                raise TypeError  # unordered ({16, 8}: its own order), or characters
            hidden = list(hidden)
        except TypeError:
            raise TypeError(
                "hidden_layer_sizes must be a tuple of layer widths such as (16, 16), "
                f"got {self.hidden_layer_sizes!r}"
            ) from None
        sizes = [n_features, *hidden, n_outputs]
        try:
            return MLP(
                sizes,
                activation=self.activation,
                output=self.output_activation,
                loss=loss,
                backend=self.backend,
                device=self.device,
                seed=self.seed,
                dtype=self.dtype,
                init=self.init,
            )
        except ValueError as exc:
            renamed = _estimator_option_names(str(exc))
            if renamed == str(exc):
                raise
            raise ValueError(renamed) from None

    def _fit_model(
        self,
        X: np.ndarray,
        target: np.ndarray,
        loss: Any,
        n_outputs: int,
        names: np.ndarray | None,
        **fitted: Any,
    ):
        """Build and train the network; the fitted attributes (``model_``, and
        ``fitted`` such as ``classes_``) are set together once training ran: a refit
        that failed left the new ``classes_`` beside the old ``model_``, whose
        class indices then named the wrong labels (or were out of range)."""
        model = self._build(X.shape[1], n_outputs, loss)
        history = model.fit(
            X,
            target,
            epochs=self.epochs,
            batch_size=self.batch_size,
            lr=self.lr,
            optimizer=self.optimizer,
            weight_decay=self.weight_decay if self.weight_decay else None,
            shuffle=True,
            verbose=self.verbose,
            metrics=[],
        )
        self.__dict__.update(fitted)
        self.model_ = model
        self.history_ = history
        self.n_features_in_ = X.shape[1]
        if names is None:
            self.__dict__.pop("feature_names_in_", None)
        else:
            self.feature_names_in_ = names
        self.loss_ = history["loss"][-1] if len(history) else float("nan")
        self.loss_curve_ = list(history.history.get("loss", []))
        self.n_iter_ = len(history)
        return self

    def _check_X(self, X: Any, fitting: bool = False) -> np.ndarray:
        fitted = getattr(self, "feature_names_in_", None)
        names = _column_names(X)
        if (
            not fitting
            and fitted is not None
            and names is not None
            and (len(names) != len(fitted) or bool((names != fitted).any()))
        ):
            # the columns were matched by position: a frame with its columns in
            # another order was predicted on the wrong features, silently
            raise ValueError(
                f"X has the columns {_shown(names)}, but this "
                f"{type(self).__name__} was fitted on {_shown(fitted)} (in this "
                "order); select them as fitted: X[model.feature_names_in_]"
            )
        from .model import refuse_wrapped

        raw = X
        X = _array(X, "X", "a 2-D array of numbers (samples, features)")
        refuse_wrapped(raw, X, "X", "(samples, features)")  # not "got shape ()"
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (samples, features), got shape {X.shape}")
        if X.shape[0] == 0:
            raise ValueError("X is empty (0 samples)")
        if X.shape[1] == 0:
            # else MLP's "every size must be a positive integer, got [0, 16, 16, 1]",
            # naming sizes the user never gave
            raise ValueError(
                f"X has shape {X.shape}: no features; give at least one column"
            )
        return X

    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            try:
                from sklearn.exceptions import NotFittedError
            except ImportError:  # pragma: no cover
                NotFittedError = RuntimeError
            raise NotFittedError(
                f"this {type(self).__name__} is not fitted yet; call fit(X, y) first"
            )


def _array(value: Any, name: str, what: str, dtype: Any = None) -> np.ndarray:
    """``np.asarray(value)``, or a ValueError naming the input: a ragged list gave
    NumPy's bare "inhomogeneous shape", a torch tensor that requires grad torch's
    RuntimeError, strings for a regressor "could not convert string to float"; a
    masked array with masked entries is refused (asarray drops the mask)."""
    from .model import _refuse_masked

    _refuse_masked(value, name, "")
    try:
        return np.asarray(value, dtype=dtype)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise ValueError(
            f"{name} must be {what}; NumPy could not convert it: {exc}"
        ) from None


def _targets(value: Any, name: str) -> np.ndarray:
    """Regression targets as float64; text and complex numbers are refused (the
    cast to float64 dropped the imaginary part with a mere ComplexWarning, and
    trained on text such as '0.5' read from a file as if it were numbers)."""
    y = _array(value, name, "an array of numbers, one row per row of X")
    if y.dtype.kind == "c":
        raise ValueError(
            f"{name} must be an array of real numbers; it holds complex numbers "
            f"(such as {y.ravel()[0].item()!r}): give y.real, abs(y), or both as "
            "two columns"
        )
    if y.dtype.kind in "USV":
        raise ValueError(
            f"{name} must be an array of numbers; it holds text ({y.dtype}, such as "
            f"{y.ravel()[0].item()!r:.40}): convert it first, e.g. y.astype(float)"
        )
    return _array(y, name, "an array of numbers, one row per row of X", np.float64)


def _column_names(X: Any) -> np.ndarray | None:
    """The column names of a data frame whose names are all strings (scikit-learn's
    ``feature_names_in_``), else None."""
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    try:
        names = np.asarray(list(columns), dtype=object)
    except TypeError:
        return None
    if names.ndim != 1 or not all(isinstance(n, str) for n in names):
        return None
    return names


def _shown(names: np.ndarray) -> str:
    """At most eight column names, for messages."""
    text = ", ".join(repr(n)[:40] for n in names[:8])
    return f"[{text}{', ...' if len(names) > 8 else ''}]"


def _check_labels(y: np.ndarray) -> None:
    """A ValueError, as scikit-learn's "Input y contains NaN", for a missing label
    (NaN, None, pd.NA) or an infinite one: np.unique would make it a class of its
    own, which predict then returns."""
    if y.dtype.kind in "fc":
        bad = np.flatnonzero(~np.isfinite(y))
    elif y.dtype.kind == "O":
        bad = np.flatnonzero(
            [
                v is None
                or (isinstance(v, (float, np.floating)) and not np.isfinite(v))
                or type(v).__name__ in ("NAType", "NaTType")
                for v in y
            ]
        )
    else:
        return
    if bad.size:
        raise ValueError(
            f"y contains a missing or infinite label ({y[bad[0]]!r} at row {bad[0]}, "
            f"{bad.size} in all); drop those rows or give them a class first"
        )
    if y.dtype.kind == "f":
        # regression targets made one class per distinct value (40 targets: 40
        # classes) without a word; scikit-learn: "Unknown label type: continuous"
        fractional = np.flatnonzero(y % 1 != 0)
        if fractional.size:
            row = int(fractional[0])
            raise ValueError(
                f"y holds numbers that are not whole ({float(y[row])!r:.20} at row "
                f"{row}, {fractional.size} in all): continuous targets, not class "
                "labels (scikit-learn: 'Unknown label type: continuous'); use "
                "MLPRegressor for numbers, or give labels (integers or text)"
            )


def _text_labels(labels: np.ndarray) -> bool | None:
    """True for text labels, False for numbers, None for a mix (object arrays)."""
    if labels.dtype.kind in "US":
        return True
    if labels.dtype.kind != "O":
        return False
    kinds = {isinstance(v, (str, bytes)) for v in labels.ravel().tolist()}
    return kinds.pop() if len(kinds) == 1 else None


def _check_label_kinds(y: np.ndarray, classes: np.ndarray) -> None:
    """A ValueError, as scikit-learn's "Mix of label input types (string and
    number)", for labels of the other kind than ``classes_``: text never equals a
    number, so score(X, ['0', '1', ...]) of a classifier fitted on 0/1 (labels read
    from a CSV file as text) was accuracy 0.0 without a word."""
    given, fitted = _text_labels(y), _text_labels(classes)
    if y.size and given is not None and fitted is not None and given != fitted:
        kind = {True: "text", False: "numbers"}
        raise ValueError(
            f"score: y holds {kind[given]} (such as {y.ravel()[0]!r}) but the "
            f"classifier was fitted on {kind[fitted]} (classes_ "
            f"{classes.tolist()!r:.80}); give y the fitted labels' type, e.g. "
            f"{'y.astype(int)' if not fitted else 'y.astype(str)'}"
        )


def _loss_key(name: str) -> str:
    """A loss name as ``symnb.nn.losses`` compares them."""
    return name.strip().lower().replace("-", "_")


class MLPClassifier(_ClassifierMixin, _MLPEstimator):
    """A classifier on :class:`symnb.nn.MLP`: one logit with ``bce_with_logits`` for two
    classes, softmax cross-entropy for more. Any labels (strings, ints); ``classes_``
    keeps them in sorted order.

    Parameters
    ----------
    hidden_layer_sizes:
        widths of the hidden layers.
    activation:
        as for ``MLP`` (an Activation, a name, a list per layer, per-neuron lists).
    epochs, batch_size, lr, optimizer, weight_decay:
        training options (Adam by default).
    backend, device, dtype, seed, init:
        as for ``MLP``.
    loss:
        ``None`` (the default above) or a loss for two classes (e.g. a ``symnb.Loss`` on
        logits).
    """

    def __init__(
        self,
        hidden_layer_sizes: tuple[int, ...] = (16, 16),
        activation: Any = "relu",
        output_activation: Any = None,
        loss: Any = None,
        epochs: int = 100,
        batch_size: int | None = 32,
        lr: float = 0.01,
        optimizer: str = "adam",
        weight_decay: float = 0.0,
        backend: str = "auto",
        device: int = 0,
        dtype: str = "float32",
        seed: int | None = 0,
        init: Any = None,
        verbose: bool = False,
    ) -> None:
        self._store_params(locals())

    def fit(self, X: Any, y: Any) -> MLPClassifier:
        """Train on (X, y); returns self."""
        names = _column_names(X)
        X = self._check_X(X, fitting=True)
        y = _array(y, "y", "an array of labels, one per row of X")
        if y.ndim != 1 or len(y) != len(X):
            raise ValueError(
                f"y must be 1-D with one label per row of X; got shape {y.shape}"
            )
        _check_labels(y)
        try:
            classes, encoded = np.unique(y, return_inverse=True)
        except TypeError:  # labels that cannot be sorted together, e.g. 1 and "a"
            kinds = sorted({type(v).__name__ for v in y.ravel().tolist()})
            raise TypeError(
                f"y mixes labels of types {kinds}, which cannot be ordered; give "
                "labels of one type (e.g. all strings: y.astype(str))"
            ) from None
        if len(classes) < 2:
            raise ValueError(
                "need at least two classes to train a classifier, got "
                f"{classes.tolist()}"
            )
        if len(classes) == 2:
            loss, n_out = self._binary_loss(), 1
        else:
            loss, n_out = self._multiclass_loss(len(classes)), len(classes)
        return self._fit_model(
            X, encoded.astype(np.int64), loss, n_out, names, classes_=classes
        )

    def _binary_loss(self) -> Any:
        """The loss for two classes: a loss name other than bce/bce_with_logits (say
        'mse') made a regressor, whose float predictions then indexed ``classes_``
        (IndexError in predict and score); a symnb.Loss is taken on the logits."""
        from .losses import _LOGIT_NAMES, _PROB_NAMES, resolve_loss

        if self.loss is None:
            return "bce_with_logits"
        if not isinstance(self.loss, str):
            return resolve_loss(self.loss, task="binary")
        if _loss_key(self.loss) in _LOGIT_NAMES + _PROB_NAMES:
            return self.loss  # MLP gives 'bce' its sigmoid output
        raise ValueError(
            f"loss={self.loss!r:.60} is not a loss for two classes (y has two): "
            "leave loss=None (bce_with_logits) or give 'bce', or a symnb.Loss of the "
            "logits and 0/1 targets; for numeric targets use MLPRegressor"
        )

    def _multiclass_loss(self, n_classes: int) -> str:
        """'cross_entropy', the only loss for more than two classes (another one
        was ignored without a word)."""
        from .losses import _SOFTMAX_NAMES

        given = self.loss
        if given is None or (
            isinstance(given, str) and _loss_key(given) in _SOFTMAX_NAMES
        ):
            return "cross_entropy"
        raise ValueError(
            f"loss={given!r:.60} is for two classes, but y has {n_classes}: "
            "MLPClassifier trains them with softmax cross-entropy; leave loss=None "
            "(or 'cross_entropy')"
        )

    def predict_proba(self, X: Any) -> np.ndarray:
        """Probabilities, shape (n, n_classes), columns in ``classes_`` order."""
        self._check_fitted()
        return self.model_.predict_proba(self._check_X(X))

    def predict(self, X: Any) -> np.ndarray:
        """Predicted labels (from ``classes_``)."""
        self._check_fitted()
        return self.classes_[self.model_.predict(self._check_X(X))]

    def decision_function(self, X: Any) -> np.ndarray:
        """Logits: shape (n,) for two classes, (n, n_classes) otherwise."""
        self._check_fitted()
        out = self.model_.decision_function(self._check_X(X))
        return out[:, 0] if out.shape[1] == 1 else out

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy."""
        pred = self.predict(X)
        y = _array(y, "score: y", "an array of labels, one per row of X")
        _check_label_kinds(y, self.classes_)
        if y.shape != pred.shape:
            raise ValueError(
                f"score: y has shape {y.shape} but X has {len(pred)} rows; give one "
                "label per row"
            )
        correct = (pred == y).astype(np.float64)
        if sample_weight is not None:
            from .metrics import check_sample_weight

            w = check_sample_weight(
                sample_weight, len(correct), "score", "the accuracy"
            )
            return float(np.sum(correct * w) / np.sum(w))
        return float(np.mean(correct))


class MLPRegressor(_RegressorMixin, _MLPEstimator):
    """A regressor on :class:`symnb.nn.MLP` (MSE by default; any ``symnb.Loss``).
    ``y`` may be (n,) or (n, k) for k outputs; ``score`` is R^2."""

    def __init__(
        self,
        hidden_layer_sizes: tuple[int, ...] = (16, 16),
        activation: Any = "relu",
        output_activation: Any = None,
        loss: Any = "mse",
        epochs: int = 100,
        batch_size: int | None = 32,
        lr: float = 0.01,
        optimizer: str = "adam",
        weight_decay: float = 0.0,
        backend: str = "auto",
        device: int = 0,
        dtype: str = "float32",
        seed: int | None = 0,
        init: Any = None,
        verbose: bool = False,
    ) -> None:
        self._store_params(locals())

    def fit(self, X: Any, y: Any) -> MLPRegressor:
        """Train on (X, y); returns self."""
        names = _column_names(X)
        X = self._check_X(X, fitting=True)
        y = _targets(y, "y")
        if y.ndim not in (1, 2) or len(y) != len(X):
            raise ValueError(f"y must have one row per row of X; got shape {y.shape}")
        if y.ndim == 2 and y.shape[1] == 0:  # was "every size must be a positive
            # integer, got [2, 16, 16, 0]", about a list the user never wrote
            raise ValueError(
                f"y has shape {y.shape}: no target per row; give y of shape (n,) "
                "or (n, k) with k >= 1 outputs"
            )
        self._y_2d = y.ndim == 2
        n_out = 1 if y.ndim == 1 else y.shape[1]
        return self._fit_model(X, y, self.loss or "mse", n_out, names)

    def predict(self, X: Any) -> np.ndarray:
        """Predictions, shape (n,) (or (n, k) when fitted on (n, k) targets)."""
        self._check_fitted()
        out = self.model_.decision_function(self._check_X(X))
        return out if self._y_2d else out[:, 0]

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """R^2 of the predictions (weighted by ``sample_weight``, one weight per row,
        as scikit-learn's ``r2_score(y, pred, sample_weight=w)``)."""
        from .metrics import check_sample_weight, r2

        y = _targets(y, "score: y")
        bad = np.argwhere(~np.isfinite(y))
        if bad.size:  # as fit refuses them; R^2 of NaN targets was 0.0
            raise ValueError(
                f"score: y is not finite at row {int(bad[0][0])} "
                f"({y[tuple(bad[0])]!r}); drop or impute those rows"
            )
        pred = self.predict(X)
        if sample_weight is not None:
            if len(y) != len(pred):  # before the weights' length is compared with X
                raise ValueError(
                    f"score: y has {len(y)} rows but X has {len(pred)}; give one "
                    "target per row"
                )
            sample_weight = check_sample_weight(
                sample_weight, len(pred), "score", "R^2"
            )
        return r2(y, pred, sample_weight=sample_weight)
