"""``compare``: train one architecture with several activations over several seeds.

>>> import symnb
>>> table = symnb.nn.compare(["relu", "tanh", swish], "two_moons", seeds=(0, 1, 2),
...                          epochs=50)                         # doctest: +SKIP
>>> table                                                       # doctest: +SKIP
activation  final_loss      accuracy        epochs_to_0.95  time_s
relu        0.041 ± 0.004   0.990 ± 0.002   12 (3/3)        0.41
...

Each row aggregates the runs of one activation (on one data set): mean and standard
deviation of the final loss and accuracy (validation values when validation data are
given), the mean number of epochs to reach the target (and in how many runs it was
reached), and the mean training time. ``result.runs`` keeps every run's History.

The same call scales out: ``client="local"`` (or a ``dask.distributed.Client``) runs
the (activation, data set, seed) runs as Dask tasks, ``store="runs.db"`` keeps finished
runs on disk so an interrupted sweep resumes (:mod:`symnb.nn.sweep`,
:mod:`symnb.nn.store`).
"""

from __future__ import annotations

import hashlib
import html
import inspect
import math
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from symnb.checks import check_epochs, check_flag, check_name, is_list_like
from symnb.memory import check_fits

from .optional import require

__all__ = ["CompareResult", "compare"]


def _name_of(act: Any, index: int) -> str:
    if isinstance(act, str):
        return act
    if isinstance(act, (list, tuple)):
        return f"mix{index}"
    return str(getattr(act, "name", f"activation{index}"))


def _array(value: Any, label: str, what: str) -> np.ndarray:
    """``value`` as an array; ragged rows are named (NumPy's own message says only
    "setting an array element with a sequence")."""
    try:
        return np.asarray(value)
    except ValueError as exc:
        raise ValueError(
            f"dataset {label!r}: {what} is ragged (its rows differ in length) or not "
            f"numbers: {exc}; give a 2-d array with one row per sample"
        ) from None


def _one_column(y: np.ndarray) -> np.ndarray:
    """Targets of shape (n, 1) as (n,): one label or value per row either way."""
    return y[:, 0] if y.ndim == 2 and y.shape[1] == 1 else y


def _load(dataset: Any, label: str = "data") -> tuple[np.ndarray, np.ndarray, Any]:
    from .. import datasets

    if isinstance(dataset, str):
        X, y = datasets.load(dataset)
        return X, y, None
    if isinstance(dataset, (tuple, list)) and len(dataset) in (2, 4):
        names = ("X", "y", "X_val", "y_val")
        arrays = [_array(v, label, n) for v, n in zip(dataset, names)]
        # labels as a column (n, 1) were read as regression targets: accuracy
        # 0.63 for y became a loss of 0.36 for y[:, None], without a word
        arrays[1::2] = [_one_column(a) for a in arrays[1::2]]
        val = tuple(arrays[2:]) if len(arrays) == 4 else None
        return arrays[0], arrays[1], val
    raise ValueError(
        "dataset must be a name (see symnb.datasets.names()), (X, y), "
        "(X_train, y_train, X_val, y_val), or a list/dict of these"
    )


def _classification_labels(y: np.ndarray) -> bool:
    if y.ndim != 1 or y.dtype.kind not in "iub":
        return False
    return len(np.unique(y)) <= max(2, min(100, len(y) // 2))


def _float_class_labels(y: np.ndarray) -> bool:
    """Float targets that look like binary labels (0.0/1.0 only): read as regression,
    which a user who meant labels would not notice."""
    if y.ndim != 1 or y.dtype.kind != "f" or len(y) == 0:
        return False
    values = np.unique(y)
    return len(values) == 2 and values.tolist() == [0.0, 1.0]


#: ``MLP.fit`` arguments that ``compare`` sets itself, and what to use instead.
_FIT_ARGUMENTS_SET_BY_COMPARE = {
    "X": "the data come from dataset=(X, y)",
    "y": "the data come from dataset=(X, y)",
    "seed": "use seeds=[...]: one run per seed, the seed fixes weights and shuffling",
    "validation_data": "use dataset=(X_train, y_train, X_val, y_val)",
}


def check_list(
    value: Any, what: str, example: str, wrap: bool = True, ordered: bool = False
) -> list[Any]:
    """``value`` as a list, refusing a bare string (a string is iterable, and
    ``"relu"`` would be read as the names 'r', 'e', 'l', 'u') and a non-iterable, with
    a message naming the argument ``what`` and the fix: the string in a list
    (``wrap``) or ``example``. Where the order matters (``ordered``) a set or dict is
    refused too: string hashing changes a set's order from one process to the next
    (search(unary={...}, seed=0) drew other candidates in each), and a set of widths
    is not the order written."""
    if ordered and isinstance(value, (set, frozenset, dict)):
        raise TypeError(
            f"{what} must be an ordered list, got a {type(value).__name__} "
            f"{value!r:.80} (its order is not the one written, and a set of names "
            "changes order between processes); pass a list such as "
            f"{what}={example}"
        )
    if isinstance(value, (str, bytes)):
        fix = f"[{value!r}]" if wrap else example
        raise TypeError(
            f"{what} must be a list, got the string {value!r}; "
            f"pass a list such as {what}={fix}"
        )
    if not is_list_like(value):
        raise TypeError(
            f"{what} must be a list such as {what}={example}, got {value!r}"
        )
    return list(value)


def check_integer(value: Any, what: str, minimum: int, example: str) -> int:
    """``value`` as an int >= ``minimum`` (NumPy integers too, not bools), or a
    ``ValueError`` naming ``what``, the value and an ``example``."""
    integer = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not integer or value < minimum:
        raise ValueError(
            f"{what} must be an integer >= {minimum}, got {value!r}; e.g. "
            f"{what}={example}"
        )
    return int(value)


def _check_hidden(hidden: Any) -> list[int]:
    """``hidden`` as a list of layer widths: an int is one hidden layer."""
    if isinstance(hidden, (int, np.integer)) and not isinstance(hidden, bool):
        hidden = [hidden]
    widths = check_list(hidden, "hidden", "(16, 16)", wrap=False, ordered=True)
    if not widths:
        # [features, outputs]: no layer applies an activation, so every one scored
        # the same (compare's table, search's ranking were meaningless)
        raise ValueError(
            "hidden is empty: a network without hidden layers applies no activation, "
            "so every activation would score the same; give at least one width, "
            "e.g. hidden=(16, 16)"
        )
    return [check_integer(w, f"hidden[{i}]", 1, "16") for i, w in enumerate(widths)]


def _check_fit_options(fit_options: dict[str, Any]) -> None:
    clash = [k for k in fit_options if k in _FIT_ARGUMENTS_SET_BY_COMPARE]
    if clash:
        raise TypeError(
            f"compare sets {', '.join(map(repr, clash))} of MLP.fit itself: "
            + "; ".join(f"{k}: {_FIT_ARGUMENTS_SET_BY_COMPARE[k]}" for k in clash)
        )
    unknown = [k for k in fit_options if k not in _fit_option_names()]
    if unknown:  # was MLP.fit's own "unexpected keyword argument", of a call not made
        import difflib

        fit = sorted(_fit_option_names())
        own = [
            p.name
            for p in inspect.signature(compare).parameters.values()
            if p.kind is not p.VAR_KEYWORD
        ]
        hints = []
        for k in unknown:
            close = [_OPTION_ALIASES[k]] if k in _OPTION_ALIASES else []
            close = close or difflib.get_close_matches(k, fit + own, n=1)
            hints.append(f"{k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise TypeError(
            f"unknown option {', '.join(hints)}; the training options are MLP.fit's: "
            f"{', '.join(fit)}"
        )


#: Option names of other libraries -> symnb's (for the hint of an unknown option).
_OPTION_ALIASES = {
    "learning_rate": "lr",
    "learning_rate_init": "lr",
    "n_epochs": "epochs",
    "max_iter": "epochs",
    "random_state": "seeds",
    "hidden_layer_sizes": "hidden",
}


def _fit_option_names() -> set[str]:
    """The keyword arguments of ``MLP.fit`` that compare passes on."""
    from .model import MLP

    names = set(inspect.signature(MLP.fit).parameters) - {"self"}
    return names - set(_FIT_ARGUMENTS_SET_BY_COMPARE)


def _check_target(target: Any) -> float | None:
    if target is None:
        return None
    if isinstance(target, bool) or not isinstance(target, (int, float, np.number)):
        raise TypeError(
            f"target must be a number (e.g. target=0.95) or None, got {target!r}"
        )
    if not math.isfinite(float(target)):
        raise ValueError(
            f"target must be a finite number (e.g. target=0.95) or None, got {target!r}"
        )
    return float(target)


def _check_data(label: str, X: np.ndarray, y: np.ndarray, val: Any) -> None:
    """What ``compare`` needs of a data set before it plans runs: rows, and as many
    labels as rows."""
    if X.ndim != 2:
        raise ValueError(
            f"dataset {label!r}: X must be a 2-d array (rows x features), got shape "
            f"{X.shape}"
        )
    if len(X) == 0 or X.shape[1] == 0:
        raise ValueError(
            f"dataset {label!r}: X has shape {X.shape}; give at least one row and "
            "one feature"
        )
    if y.ndim == 0 or len(y) != len(X):
        raise ValueError(
            f"dataset {label!r}: X has {len(X)} rows but y has "
            f"{'no rows (a scalar)' if y.ndim == 0 else len(y)}; give one label or "
            "target per row"
        )
    # each run's fit refused the row as "training data: X contains NaN", which
    # did not say which of several data sets held it
    arrays = [("X", X), ("y", y)]
    if isinstance(val, (tuple, list)) and len(val) == 2:
        arrays += [("X_val", np.asarray(val[0])), ("y_val", np.asarray(val[1]))]
    for what, array in arrays:
        at = _first_not_finite(array)
        if at is not None:
            raise ValueError(
                f"dataset {label!r}: {what}[{', '.join(map(str, at))}] is "
                f"{float(array[at])!r}, not a finite number; clean or impute the "
                "data first (e.g. drop the rows with NaN)"
            )


def _first_not_finite(array: np.ndarray) -> tuple[int, ...] | None:
    """The index of ``array``'s first NaN or infinity (None when all are finite,
    or when it holds no numbers: fit says what is wrong with those)."""
    if array.dtype.kind != "f":
        return None
    bad = ~np.isfinite(array)
    if not bad.any():
        return None
    return tuple(int(i) for i in np.argwhere(bad)[0])


def _target_metrics(classify: bool, validation: bool, fit_options: dict) -> list[str]:
    """The per-epoch metrics a run records (the names ``target_metric`` can take)."""
    from . import metrics as metrics_mod

    names = ["loss", "accuracy"] if classify else ["loss"]
    extra = fit_options.get("metrics")
    if extra is not None:
        extra = [extra] if isinstance(extra, str) else list(extra)
        names += [metrics_mod.get(m)[0] for m in extra]
    names = list(dict.fromkeys(names))
    return names + [f"val_{n}" for n in names if validation] + ["time"]


def _check_label(label: str, what: str) -> None:
    """A dict key that names rows of the table, plots and stored runs: printable
    (``check_name``) and not blank ({'': relu, ' ': tanh} gave two rows without a
    name)."""
    check_name(label, what)
    if not label.strip():
        raise ValueError(
            f"{what} {label!r} is blank: the table, the plots and the store show "
            "rows by this name; give a name such as 'relu'"
        )


def _refuse_keys_that_are_no_text(
    given: dict[Any, Any], argument: str, what: str, example: str
) -> None:
    """A ``TypeError`` for a dict key that is not a string. Keys name the table's
    rows, the DataFrame's index and the store's runs as text: ``{1: "relu"}`` gave
    a row named '1' that ``result[1]`` did not find, and ``{1: A, "1": B}`` two
    names that read the same."""
    for key in given:
        if not isinstance(key, str):
            raise TypeError(
                f"compare: {argument} has the {what} {key!r:.60} "
                f"({type(key).__name__}); names are the table's rows, the "
                f"DataFrame's index and the store's keys, so give text, e.g. "
                f"{str(key)!r:.60} or {example}"
            )


def _split_datasets(dataset: Any) -> tuple[list[tuple[str, Any]], bool]:
    """``[(label, dataset)]`` and whether several data sets were given (a dict
    label -> data set, or a list of names / tuples of arrays)."""
    if isinstance(dataset, dict):
        if not dataset:
            raise ValueError("dataset: the dict of data sets is empty")
        _refuse_keys_that_are_no_text(dataset, "dataset", "data set label", "'moons'")
        labels = [str(k) for k in dataset]
        for label in labels:  # shown in plots, messages and the store, as names
            _check_label(label, "compare: data set label")
        repeated = _repeated(labels)
        if repeated:
            # runs and rows are keyed by the label as text: {1: A, "1": B} gave B's
            # runs for both rows and A was never trained
            raise ValueError(
                f"dataset: the dict names the data set {repeated[0]!r} twice (its "
                f"keys {list(dataset)!r} read {labels}); give each its own label"
            )
        return list(zip(labels, dataset.values())), True
    if (
        isinstance(dataset, (list, tuple))
        and dataset
        and all(isinstance(d, (str, tuple)) for d in dataset)
    ):
        labels = [
            d if isinstance(d, str) else f"data{i}" for i, d in enumerate(dataset)
        ]
        if len(set(labels)) != len(labels):
            raise ValueError(
                f"dataset: the list names a data set twice ({labels}); use a dict "
                "label -> data set to tell them apart"
            )
        return list(zip(labels, dataset)), True
    label = dataset if isinstance(dataset, str) else "data"
    return [(label, dataset)], False


def _describe(value: Any, unkeyed: list[Any]) -> Any:
    """``value`` (a fit option) as JSON for the store's run key. Objects are their
    class and the arguments they were made with (the attributes named like their
    ``__init__`` parameters); ``str()`` of a callback is its memory address, which
    Python reuses: a rerun with EarlyStopping(patience=50) got the stored run of
    EarlyStopping(patience=0). What cannot be described so (functions, objects that
    do not keep their arguments) gets a key of its own, and goes to ``unkeyed``."""
    import inspect
    import uuid

    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_describe(v, unkeyed) for v in value]
    if isinstance(value, dict):
        return {str(k): _describe(v, unkeyed) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        array = np.ascontiguousarray(value)
        digest = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
        return {"array": digest.hexdigest()}
    if not inspect.isroutine(value) and not isinstance(value, type):
        cls = type(value)
        try:
            params = list(inspect.signature(cls).parameters.values())
        except (TypeError, ValueError):
            params = None
        plain = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        if params is not None and all(
            p.kind not in plain
            and hasattr(value, p.name)
            and not inspect.isroutine(getattr(value, p.name))
            for p in params
        ):
            size = len(unkeyed)
            config = {
                p.name: _describe(getattr(value, p.name), unkeyed) for p in params
            }
            if len(unkeyed) == size:
                return {"class": f"{cls.__module__}.{cls.__qualname__}", **config}
    unkeyed.append(value)
    return {"unkeyed": uuid.uuid4().hex}


def _repeated(names: list[str]) -> list[str]:
    return sorted(n for n, k in Counter(names).items() if k > 1)


def _data_identity(raw: Any, arrays: tuple[np.ndarray, np.ndarray, Any]) -> Any:
    if isinstance(raw, str):
        return {"name": raw.strip().lower()}
    digest = hashlib.sha256()
    X, y, val = arrays
    for a in (X, y, *(val or ())):
        a = np.asarray(a)
        if a.ndim == 0:
            a = a.reshape(1)  # as np.ascontiguousarray gave it
        digest.update(f"{a.dtype.str}{a.shape}".encode())
        # the C-order bytes in blocks of rows: the same digest as a.tobytes(), but
        # a copy of a few MiB at a time (a whole copy plus its bytes doubled the
        # data set's memory, and a zero-stride view became its full size twice)
        step = max(1, (1 << 22) // max(1, a[:1].nbytes))
        for start in range(0, len(a), step):
            digest.update(np.ascontiguousarray(a[start : start + step]).data)
    return {"sha256": digest.hexdigest()}


def _refuse_binary_loss_for_classes(label: str, loss: Any, y: np.ndarray) -> None:
    """A ValueError naming compare's ``loss`` for binary cross-entropy on integer
    labels of more than two classes: every run failed with the model's "binary
    labels must be 0 or 1" or "the last size must be 1, got 3", about a network
    compare built, not the argument the user gave."""
    from .losses import _LOGIT_NAMES, _PROB_NAMES

    if not isinstance(loss, str) or y.dtype.kind not in "iu":
        return
    if loss.strip().lower().replace("-", "_") not in _PROB_NAMES + _LOGIT_NAMES:
        return
    classes = np.unique(y)
    if len(classes) > 2:
        raise ValueError(
            f"compare: loss={loss!r} is binary cross-entropy, for two classes, but "
            f"y of dataset {label!r} has {len(classes)} classes "
            f"({classes.tolist()[:10]}); leave loss=None (softmax cross-entropy "
            "for several classes) or pass loss='cross_entropy'"
        )


def _plan(
    label: str,
    X: np.ndarray,
    y: np.ndarray,
    val: Any,
    hidden: Sequence[int],
    fit_options: dict[str, Any],
    *,
    loss: Any,
    epochs: int,
    target: float | None,
    target_metric: str | None,
    backend: str,
    dtype: str,
) -> dict[str, Any]:
    """Everything a run on this data set needs besides activation and seed."""
    _refuse_binary_loss_for_classes(label, loss, y)
    classify = bool(
        (loss is None and _classification_labels(y))
        or (isinstance(loss, str) and loss in ("bce_with_logits", "cross_entropy"))
    )
    if loss is None and not classify and _float_class_labels(y):
        warnings.warn(
            f"dataset {label!r}: y holds only the floats 0.0 and 1.0; compare reads "
            "float targets as numbers to fit (regression, loss 'mse', metric loss). "
            "For classification pass integer labels (y.astype(int)); pass loss='mse' "
            "to keep the regression and silence this",
            UserWarning,
            stacklevel=4,
        )
    n_classes = len(np.unique(y)) if classify else 0
    if classify and n_classes < 2:
        only = np.unique(y)[0].tolist()
        raise ValueError(
            f"dataset {label!r}: y has a single class ({only!r}) in {len(y)} "
            "row(s); classification needs at least two classes. Give data with "
            "several classes, or loss='mse' to fit y as numbers"
        )
    if not classify and y.size and np.all(y == y.flat[0]):
        # every activation fits a constant at once: a table of equal, meaningless
        # scores without a word (one class is refused above)
        raise ValueError(
            f"dataset {label!r}: y has the single value {float(y.flat[0])!r:.20} in "
            f"all {len(y)} row(s), so there is nothing to fit and every activation "
            "scores the same; give targets that vary"
        )
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
    else:
        valid = _target_metrics(classify, val is not None, fit_options)
        if target_metric not in valid:
            raise ValueError(
                f"target_metric={target_metric!r} is not recorded by these runs "
                f"(dataset {label!r}); choose one of {', '.join(valid)}"
            )
    if target is None and classify:
        target = 0.95
    if target is not None:
        from .train import check_reachable_target

        check_reachable_target(target_metric, float(target), "compare")
    return {
        "sizes": [int(X.shape[1]), *[int(h) for h in hidden], int(n_out)],
        "loss": loss,
        "classify": classify,
        "epochs": int(epochs),
        "target": target,
        "target_metric": target_metric,
        "backend": backend,
        "dtype": dtype,
        "fit_options": dict(fit_options),
    }


def _history_of(data: dict[str, Any] | None) -> Any:
    from .train import History

    history = History()
    if data:
        history.epochs = list(data["epochs"])
        history.history = {k: list(v) for k, v in data["history"].items()}
        history.stop_reason = data.get("stop_reason")
        history.message = data.get("message", "")
        history.steps = data.get("steps", 0)
    return history


def _finite(values: Iterable[Any]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(v)]


def _aggregate(
    name: str, label: str, records: list[dict[str, Any]], classify: bool, multi: bool
) -> dict[str, Any]:
    trained = [r for r in records if r["status"] != "error"]
    finals = _finite(r["final_loss"] for r in trained)
    reached = [r["epochs_to_target"] for r in trained if r["epochs_to_target"]]
    row: dict[str, Any] = {"activation": name}
    if multi:
        row["dataset"] = label
    nan = float("nan")
    row["loss_mean"] = float(np.mean(finals)) if finals else nan
    row["loss_std"] = float(np.std(finals)) if finals else nan
    if classify:
        accs = _finite(r["accuracy"] for r in trained)
        row["accuracy_mean"] = float(np.mean(accs)) if accs else nan
        row["accuracy_std"] = float(np.std(accs)) if accs else nan
    row["epochs_to_target"] = float(np.mean(reached)) if reached else None
    row["reached"] = len(reached)
    row["runs"] = len(records)
    row["diverged"] = sum(r["status"] == "diverged" for r in records)
    row["failed"] = sum(r["status"] == "error" for r in records)
    errors = [r["error"] for r in records if r["status"] == "error"]
    row["error"] = errors[0] if errors else None
    times = _finite(r["time"] for r in trained)
    row["time_mean"] = float(np.mean(times)) if times else nan
    return row


class CompareResult:
    """The table ``compare`` returns; ``rows`` (one dict per activation and data set),
    ``runs`` (one dict per activation, data set and seed, with its ``history``, its
    ``status`` — ``"ok"``, ``"diverged"`` or ``"error"`` — and ``model`` when kept)."""

    def __init__(
        self,
        rows: list[dict[str, Any]],
        runs: list[dict[str, Any]],
        target_metric: str | None,
        target: float | None,
        datasets: Sequence[str] | None = None,
    ) -> None:
        self.rows = rows
        self.runs = runs
        self.target_metric = target_metric
        self.target = target
        self.datasets = list(datasets) if datasets else []
        self.multi = bool(rows) and "dataset" in rows[0]

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, name: str | tuple[str, str]) -> dict[str, Any]:
        """The row of an activation (``result["relu"]``), or of an activation on a
        data set when several were compared (``result["relu", "circles"]``)."""
        if isinstance(name, tuple):
            if len(name) != 2:
                raise KeyError(f"{name!r}: give (activation, data set)")
            act, data = name
            if data not in self.datasets:
                # one data set: its rows carry no label, and any label matched
                raise KeyError(
                    f"{data!r} is not a data set of this comparison; it has "
                    f"{self.datasets}"
                )
            for row in self.rows:
                if row["activation"] == act and row.get("dataset", data) == data:
                    return row
            raise self._no_activation(act)
        if self.multi:
            raise KeyError(
                f"{name!r}: several data sets were compared; use "
                f"result[{name!r}, {self.datasets[0]!r}]"
            )
        for row in self.rows:
            if row["activation"] == name:
                return row
        raise self._no_activation(name)

    def _no_activation(self, name: Any) -> KeyError:
        return KeyError(
            f"{name!r} is not an activation of this comparison; it has "
            f"{self.activations}"
        )

    @property
    def activations(self) -> list[str]:
        return list(dict.fromkeys(row["activation"] for row in self.rows))

    def _default_by(self) -> str:
        """``accuracy`` where every data set's runs classify, else ``loss`` (data sets
        of both kinds: the first one's accuracy was the default, and every score was
        NaN for want of accuracy on the regression ones)."""
        return "accuracy" if all("accuracy_mean" in r for r in self.rows) else "loss"

    def scores(self, by: str | None = None) -> dict[str, float]:
        """Mean of ``by`` (``accuracy``, ``loss``, ``time``...; default ``accuracy``
        for classification, ``loss`` otherwise) per activation, averaged over the data
        sets (NaN where no run gave a value)."""
        by = self._default_by() if by is None else by
        key = f"{by}_mean" if any(f"{by}_mean" in r for r in self.rows) else by
        if not any(key in r for r in self.rows):
            have = dict.fromkeys(k for r in self.rows for k in r)
            raise ValueError(f"no column {by!r} to rank by; have {', '.join(have)}")
        lacking = list(
            dict.fromkeys(r.get("dataset", "data") for r in self.rows if key not in r)
        )
        if lacking:
            # every score was NaN, and best() said "no values of 'accuracy' to rank"
            raise ValueError(
                f"{by!r} is not recorded on data set(s) {lacking} (regression has no "
                "accuracy), so no activation has a score averaged over all data "
                "sets; rank by a value every data set records (by='loss'), or "
                "compare those data sets separately"
            )
        out = {}
        for act in self.activations:
            values = [r.get(key) for r in self.rows if r["activation"] == act]
            vals = _finite(values)
            out[act] = float(np.mean(vals)) if len(vals) == len(values) else math.nan
        return out

    def best(self, by: str | None = None) -> str:
        """Name of the best activation by mean ``accuracy`` (higher) or ``loss``
        (lower), averaged over the data sets (default as :meth:`scores`)."""
        by = self._default_by() if by is None else by
        scores = self.scores(by)  # checks by (by=5 was "int is not iterable")
        higher = "loss" not in by and "time" not in by and "epochs" not in by
        vals = [(v, n) for n, v in scores.items() if not math.isnan(v)]
        if not vals:
            diverged = sum(r.get("diverged") or 0 for r in self.rows)
            failed = sum(r.get("failed") or 0 for r in self.rows)
            why = (
                f": every run diverged or failed ({diverged} diverged, {failed} "
                "failed; see the 'diverged / failed' column and the errors); try a "
                "smaller lr, other activations, or fix the errors named"
                if diverged or failed
                else ""
            )
            raise ValueError(f"no values of {by!r} to rank{why}")
        return (max if higher else min)(vals)[1]

    def to_pandas(self, wide: bool = True):
        """A ``pandas.DataFrame`` indexed by activation (needs pandas). With several
        data sets: one column group per data set (``wide``), or indexed by
        (activation, dataset) with ``wide=False``."""
        pd = require("pandas", "CompareResult.to_pandas")

        wide = check_flag(wide, "wide")  # "no" was truthy: the wide table
        frame = _numbers_as_floats(pd.DataFrame(self.rows))
        if not self.multi:
            return frame.set_index("activation")
        frame = frame.set_index(["activation", "dataset"])
        if not wide:
            return frame
        table = frame.unstack("dataset")
        table = table.swaplevel(0, 1, axis=1)
        metrics = list(frame.columns)
        order = [(d, m) for d in self.datasets for m in metrics]
        return table.reindex(columns=pd.MultiIndex.from_tuples(order)).loc[
            self.activations
        ]

    def runs_to_pandas(self):
        """One row per run (activation, dataset, seed, status, metrics, error)."""
        pd = require("pandas", "CompareResult.runs_to_pandas")

        skip = ("history", "model")
        return _numbers_as_floats(
            pd.DataFrame(
                [{k: v for k, v in run.items() if k not in skip} for run in self.runs]
            )
        )

    def plot_spread(self, metric: str | None = None, **options: Any) -> Any:
        """Box plot with the seeds as points, per activation and data set
        (:func:`symnb.nn.sweep_plots.plot_spread`); ``metric`` defaults to accuracy
        for classification, loss otherwise (a regression's ``plot_spread()`` was
        "metric='accuracy' is not a value of these runs")."""
        from .sweep_plots import plot_spread

        by = self._default_by() if metric is None else metric
        return plot_spread(self, by, **options)

    def plot_curves(self, metric: str | None = None, top: int = 3, **options: Any):
        """Learning curves of the best run of the ``top`` activations per data set
        (:func:`symnb.nn.sweep_plots.plot_best_curves`)."""
        from .sweep_plots import plot_best_curves

        return plot_best_curves(self, metric, top=top, **options)

    def _metric_columns(self) -> list[tuple[str, Any]]:
        def pm(mean: str, std: str):
            return lambda r: (
                "-"
                if r.get(mean) is None or math.isnan(r[mean])
                else f"{r[mean]:.4g} ± {r[std]:.2g}"
            )

        cols: list[tuple[str, Any]] = [("final loss", pm("loss_mean", "loss_std"))]
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
        if any(r.get("diverged") or r.get("failed") for r in self.rows):
            cols.append(("diverged / failed", _status_cell))
        cols.append(("time [s]", lambda r: f"{r['time_mean']:.3g}"))
        return cols

    def _columns(self) -> list[tuple[str, Any]]:
        cols: list[tuple[str, Any]] = [("activation", lambda r: r["activation"])]
        if self.multi:
            cols.append(("dataset", lambda r: r["dataset"]))
        return cols + self._metric_columns()

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
        if not self.multi:
            cols = self._columns()
            head = "".join(f"<th>{html.escape(c[0])}</th>" for c in cols)
            body = "".join(
                "<tr>"
                + "".join(f"<td>{html.escape(str(f(r)))}</td>" for _, f in cols)
                + "</tr>"
                for r in self.rows
            )
            return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        # one column group per data set
        metrics = self._metric_columns()
        top = '<th rowspan="2">activation</th>' + "".join(
            f'<th colspan="{len(metrics)}">{html.escape(d)}</th>' for d in self.datasets
        )
        sub = "".join(
            f"<th>{html.escape(m[0])}</th>" for _ in self.datasets for m in metrics
        )
        body = []
        for act in self.activations:
            cells = [f"<td>{html.escape(act)}</td>"]
            for d in self.datasets:
                row = self[act, d]
                cells += [f"<td>{html.escape(str(f(row)))}</td>" for _, f in metrics]
            body.append("<tr>" + "".join(cells) + "</tr>")
        return (
            f"<table><thead><tr>{top}</tr><tr>{sub}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>"
        )


#: the columns of CompareResult's tables that hold text (or None), not numbers
_TEXT_COLUMNS = frozenset(
    ("activation", "formula", "dataset", "status", "stop_reason", "error")
)


def _numbers_as_floats(frame: Any) -> Any:
    """``frame`` with its number columns that hold None (epochs_to_target of a run
    that never reached the target) as float64, None as NaN: such a column was
    ``object`` when no run reached the target and float64 otherwise, so two results'
    frames concatenated, ``.mean()`` and ``.plot()`` depended on the outcome."""
    for column in frame.columns:
        if column in _TEXT_COLUMNS or frame[column].dtype != object:
            continue
        values = frame[column].tolist()
        if all(
            v is None
            or (isinstance(v, (int, float, np.number)) and not isinstance(v, bool))
            for v in values
        ):
            frame[column] = np.array(
                [np.nan if v is None else float(v) for v in values], dtype=np.float64
            )
    return frame


def _status_cell(row: dict[str, Any]) -> str:
    text = f"{row['diverged']} / {row['failed']}"
    if row.get("error"):
        text += f" ({row['error'][:60]})"
    return text


#: the largest seed a sweep takes (a store keeps it as a 64-bit signed integer)
MAX_SEED = 2**63 - 1


def check_seeds(seeds: Iterable[int], runs_per_seed: int) -> list[int]:
    """The seeds as a list of ints from 0 to :data:`MAX_SEED` (for compare and
    search); a clear error for anything else, and a MemoryError, before the list is
    built, for more runs than memory can describe (``seeds=range(10**9)``: a run's
    spec and row take ~2 KB)."""
    if isinstance(seeds, (str, bytes)) or not is_list_like(seeds):
        raise TypeError(f"seeds must be a list of integers, got {seeds!r}")
    if hasattr(seeds, "__len__"):
        check_fits(
            len(seeds) * runs_per_seed * 2048,
            f"a sweep of {len(seeds)} seeds x {runs_per_seed} runs per seed",
            "Use fewer seeds (or split the sweep over several calls with one store).",
        )
    out = list(seeds)
    for i, seed in enumerate(out):
        integer = isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
        if not integer or seed < 0:
            raise ValueError(f"seeds must be integers >= 0, got {seed!r} (seeds[{i}])")
        if seed > MAX_SEED:
            # a store keeps the seed as an SQLite INTEGER (64-bit signed): a larger
            # one raised OverflowError after its run trained, ending the sweep
            raise ValueError(
                f"seeds[{i}] = {seed!r} is too large: seeds must be at most "
                f"{MAX_SEED} (2**63 - 1), e.g. seeds=range(3)"
            )
    if not out:
        raise ValueError("seeds is empty: give at least one, e.g. seeds=(0, 1, 2)")
    out = [int(s) for s in out]
    if len(set(out)) != len(out):
        # the same seed trains the same run: a repeat would count it twice and
        # shrink the reported spread (± 0 for seeds=[0, 0])
        repeated = sorted(s for s, k in Counter(out).items() if k > 1)
        raise ValueError(
            f"seeds repeats {repeated}: the same seed gives the same run; give "
            "distinct seeds, e.g. seeds=range(3)"
        )
    return out


def _class_indices(label: str, y: np.ndarray, val: Any) -> tuple[np.ndarray, Any]:
    """Integer class labels as 0..k-1 (training and validation alike), where they
    are other integers. compare counted the classes of labels {1, 2} or {0, 2, 4}
    and built that many outputs, then every run failed with "binary labels must be
    0 or 1" or "labels must be 0..2", about a network the user never built."""
    classes = np.unique(y)
    if y.dtype.kind not in "iu" or np.array_equal(classes, np.arange(len(classes))):
        return y, val
    index = np.searchsorted(classes, y)
    if val is None:
        return index, None
    X_val, y_val = val
    y_val = _one_column(np.asarray(y_val))
    if y_val.dtype.kind not in "iub":
        return index, val  # the model names what is wrong with them
    unseen = np.flatnonzero(~np.isin(y_val, classes))
    if unseen.size:
        row = int(unseen[0])
        raise ValueError(
            f"dataset {label!r}: the validation label {y_val[row].item()!r} at row {row} "
            f"is none of the training classes {classes.tolist()[:10]}; give "
            "validation data of the same classes"
        )
    return index, (X_val, np.searchsorted(classes, y_val))


def _prepare(
    dataset: Any, hidden: Any, fit_options: dict[str, Any], settings: dict[str, Any]
) -> tuple[list[tuple[str, Any]], bool, dict, dict, dict]:
    """The checked data sets and settings of a sweep, before any run: ``(data_sets,
    multi, plans, loaded, identities)`` (see :func:`_split_datasets`; the dicts are
    keyed by data set label). ``settings``: ``compare``'s loss, epochs, target,
    target_metric, backend and dtype."""
    hidden = _check_hidden(hidden)
    settings = dict(
        settings,
        target=_check_target(settings["target"]),
        epochs=check_epochs(
            settings["epochs"], "epochs", 1, "compare with fewer epochs"
        ),
    )
    _check_fit_options(fit_options)
    data_sets, multi = _split_datasets(dataset)
    plans, loaded, identities = {}, {}, {}
    for label, raw in data_sets:
        X, y, val = _load(raw, label)
        X = np.asarray(X)
        if X.ndim == 1:
            X = X.reshape(-1, 1)
        loaded[label] = (X, y, val)
        identities[label] = _data_identity(raw, (X, y, val))
        _check_data(label, X, np.asarray(y), val)
        plans[label] = _plan(label, X, y, val, hidden, fit_options, **settings)
        if plans[label]["classify"]:
            y, val = _class_indices(label, np.asarray(y), val)
            loaded[label] = (X, y, val)
        _check_fit_values(X, y, val, plans[label])
    return data_sets, multi, plans, loaded, identities


def _check_fit_values(X: np.ndarray, y: Any, val: Any, plan: dict[str, Any]) -> None:
    """The runs' ``MLP.fit`` arguments checked by ``fit`` itself, on a relu model of the
    runs' sizes trained for no epoch, in this process before any run starts: on a
    cluster a bad value (``batch_size=0``, ``lr=-1``, ``optimizer='sdg'``) came back
    from every worker as a failed task. Callbacks and progress output are left out (no
    side effects from a run that does not train)."""
    from .model import MLP

    options = {
        k: v
        for k, v in plan["fit_options"].items()
        if k not in ("callbacks", "live", "verbose")
    }
    model = MLP(
        plan["sizes"],
        activation="relu",
        loss=plan["loss"],
        backend="numpy",
        seed=0,
        dtype=plan["dtype"],
    )
    model.fit(X, y, epochs=0, validation_data=val, seed=0, **options)


def check_options(dataset: Any, hidden: Any, epochs: int, options: dict) -> bool:
    """Check, before any cluster or training work, what a ``search`` will pass to
    :func:`compare`: ``options`` holds its keyword arguments and ``MLP.fit``'s. A
    search ranks every candidate by one score (mean accuracy, or mean loss): data
    sets of both kinds are refused (it trained the first batch, then failed with a
    bare ``KeyError: 'accuracy_mean'``). Returns whether the data sets classify."""
    import inspect

    from .sweep import check_runs_per_task

    own = inspect.signature(compare).parameters
    check_runs_per_task(options.get("runs_per_task"))
    settings = {
        name: options.get(name, own[name].default)
        for name in ("loss", "target", "target_metric", "backend", "dtype")
    }
    fit_options = {k: v for k, v in options.items() if k not in own}
    _, _, plans, _, _ = _prepare(
        dataset, hidden, fit_options, dict(settings, epochs=epochs)
    )
    kinds = {label: plan["classify"] for label, plan in plans.items()}
    if len(set(kinds.values())) > 1:
        classify = [label for label, c in kinds.items() if c]
        regress = [label for label, c in kinds.items() if not c]
        raise ValueError(
            f"search: the data sets mix classification ({classify}) and regression "
            f"({regress}); a search ranks candidates by one score (mean accuracy, "
            "or mean loss), which these do not share: search each kind separately"
        )
    return bool(next(iter(kinds.values())))


def compare(
    activations: Sequence[Any] | dict[str, Any],
    dataset: Any,
    seeds: Iterable[int] = (0, 1, 2),
    hidden: int | Sequence[int] = (16, 16),
    loss: Any = None,
    epochs: int = 50,
    target: float | None = None,
    target_metric: str | None = None,
    backend: str = "auto",
    dtype: str = "float32",
    keep_models: bool = False,
    client: Any = None,
    store: Any = None,
    progress: bool = True,
    runs_per_task: int | None = None,
    **fit_options: Any,
) -> CompareResult:
    """Train ``[features, *hidden, outputs]`` with each activation, data set and seed.

    Parameters
    ----------
    activations:
        a list (Activations, library names, formula texts, or per-layer lists as ``MLP``
        accepts) or a dict display name -> activation.
    dataset:
        a data set name (``symnb.datasets.names()``), ``(X, y)``, or
        ``(X_train, y_train, X_val, y_val)`` (then the table reports validation values);
        or several of these as a list (names, tuples) or a dict label -> data set,
        giving one row per (activation, data set) and one column group per data set.
    seeds:
        one run per seed (the seed fixes the weights and the shuffling).
    hidden, loss, backend, dtype:
        the architecture (``hidden``: widths of the hidden layers, an int for one);
        ``loss`` defaults to bce_with_logits (two classes), softmax
        cross-entropy (more) or mse (regression), decided from ``y``.
    target, target_metric:
        "epochs to target": first epoch at which ``target_metric`` (default
        ``accuracy``, or ``val_accuracy`` with validation data; ``loss`` for regression)
        reaches ``target`` (default 0.95 for classification, none for regression).
        ``target_metric`` is one the runs record: ``loss``, ``accuracy``
        (classification), the ``metrics`` given, ``val_`` ones with validation data.
    keep_models:
        keep each trained model in ``result.runs`` (serial runs without a store only).
    client:
        ``None`` runs serially in this process; ``"local"`` starts a Dask
        ``LocalCluster`` (one worker process per CPU) for this call; a
        ``dask.distributed.Client`` (or a scheduler address) uses that cluster. The
        (activation, data set, seed) runs are grouped into tasks (``runs_per_task``);
        results equal the serial ones.
    store:
        a path (SQLite file, created if missing) or a :class:`~symnb.nn.store.RunStore`:
        each finished run is written as it completes, and runs already there (same
        formula, data, seed and settings) are not trained again.
    progress:
        a ``tqdm.auto`` bar with runs done/total and the best run so far.
    runs_per_task:
        with a ``client``: runs (of one data set) that one Dask task trains in turn
        (1: one task per run). Several per task amortise Dask's cost per task
        (milliseconds) when each run takes only milliseconds. The default None picks
        about 6 tasks per worker (``symnb.nn.sweep.auto_runs_per_task``: 120 runs on
        2 workers -> 10 per task), smaller towards the end so that the workers finish
        together; a killed worker's tasks, which Dask reruns, hold few runs. Results
        do not depend on it.
    fit_options:
        passed to ``MLP.fit`` (``lr``, ``batch_size``, ``optimizer``, ...); not the
        ones ``compare`` sets itself (``seed``: use ``seeds``; ``validation_data``:
        give ``dataset=(X_train, y_train, X_val, y_val)``), a ``TypeError`` says so.
    """
    import symnb

    from .layers import resolve_activation
    from .store import RunStore, run_key
    from .sweep import (
        Run,
        _Progress,
        check_client,
        check_runs_per_task,
        encode_activation,
        encode_loss,
        execute,
    )

    if isinstance(activations, dict):
        # names are text: a tuple or object key trained its first run, then the
        # store could not write it (sqlite3's ProgrammingError ended the sweep)
        _refuse_keys_that_are_no_text(
            activations, "activations", "activation name", "'relu'"
        )
        named = [(str(k), v) for k, v in activations.items()]
        for name, _ in named:
            # a 10,000-character name took a minute to draw in plot_spread; a
            # newline broke the legend and the messages (a formula text given in a
            # list is its own name, and is checked as a formula)
            _check_label(name, "compare: activation name")
    else:
        listed = check_list(activations, "activations", '["relu", "tanh"]')
        named = [(_name_of(a, i), a) for i, a in enumerate(listed)]
    if not named:
        raise ValueError("compare needs at least one activation")
    names = [n for n, _ in named]
    repeated = _repeated(names)
    if repeated:
        # the whole list was in the message: a million names, megabytes of text
        shown = ", ".join(repr(n) for n in repeated[:5])
        more = f" and {len(repeated) - 5} more" if len(repeated) > 5 else ""
        raise ValueError(
            f"compare: activations share a name ({shown}{more}, each given more "
            "than once, names written as text); give each activation once, or "
            "pass a dict with a distinct name -> activation"
        )
    check_runs_per_task(runs_per_task)
    seeds = check_seeds(seeds, len(named))
    if not isinstance(progress, _Progress):  # a search passes its own bar
        progress = check_flag(progress, "progress")
    keep_models = check_flag(keep_models, "keep_models")
    check_client(client)
    if isinstance(store, RunStore):
        store.check_open()
    if keep_models and (client is not None or store is not None):
        raise ValueError(
            "keep_models=True needs client=None and store=None: trained models hold "
            "compiled kernels and stay in the process that trained them"
        )
    for label, act in named:
        # unknown names and bad formulas fail here, before any run starts
        for atom in act if isinstance(act, (list, tuple)) else [act]:
            for sub in atom if isinstance(atom, (list, tuple)) else [atom]:
                where = "activation" if label == sub else f"activation {label!r}"
                resolve_activation(sub, where)
    settings = {
        "loss": loss,
        "epochs": epochs,
        "target": target,
        "target_metric": target_metric,
        "backend": backend,
        "dtype": dtype,
    }
    data_sets, multi, plans, loaded, identities = _prepare(
        dataset, hidden, fit_options, settings
    )
    runs: list[Run] = []
    unkeyed: list[Any] = []
    options_unkeyed: list[str] = []  # the fit options holding them
    described: dict[str, dict[str, Any]] = {}
    for label, plan in plans.items():
        described[label] = {}
        for option, value in plan["fit_options"].items():
            before = len(unkeyed)
            described[label][option] = _describe(value, unkeyed)
            if len(unkeyed) > before and option not in options_unkeyed:
                options_unkeyed.append(option)
    if unkeyed and store is not None:
        warnings.warn(
            f"store: {', '.join(options_unkeyed)}= holds {unkeyed[0]!r:.80}, which "
            "cannot be described for the store's keys (a function, or an object "
            "that does not keep the arguments it was made with): these runs are "
            "written, but a rerun trains them again; callbacks such as "
            "EarlyStopping(...) keep them resumable",
            UserWarning,
            stacklevel=2,
        )
    for name, act in named:
        encoded = encode_activation(act)
        for label, _ in data_sets:
            plan = plans[label]
            settings = dict(
                plan,
                loss=encode_loss(plan["loss"]),
                fit_options=described[label],
            )
            for seed in seeds:
                spec = {
                    "activation": encoded,
                    "dataset": identities[label],
                    "seed": int(seed),
                    "settings": settings,
                    "symnb": symnb.__version__,
                }
                runs.append(
                    Run(
                        key=run_key(spec),
                        activation_name=name,
                        activation=act,
                        dataset_name=label,
                        data=loaded[label],
                        seed=int(seed),
                        plan=plan,
                        spec=spec,
                    )
                )
    classify_any = any(p["classify"] for p in plans.values())
    records = execute(
        runs,
        client=client,
        store=store,
        progress=progress,
        keep_models=keep_models,
        higher_is_better=classify_any,
        runs_per_task=runs_per_task,
    )
    for record in records:
        record["history"] = _history_of(record.get("history"))
    rows = []
    for name, _ in named:
        for label, _ in data_sets:
            mine = [
                r for r in records if r["activation"] == name and r["dataset"] == label
            ]
            rows.append(_aggregate(name, label, mine, plans[label]["classify"], multi))
    first = plans[data_sets[0][0]]
    return CompareResult(
        rows,
        records,
        first["target_metric"],
        first["target"],
        datasets=[label for label, _ in data_sets],
    )
