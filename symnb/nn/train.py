"""The training loop: ``History``, callbacks, deferred interrupts and the NaN stop.

``MLP.fit`` runs :func:`fit`. Per step it does a forward pass, the loss and its
gradient, the backward pass, two finiteness checks (loss, and the sum of all gradients,
which is NaN/inf if any gradient is) and one optimizer update over the model's flat
parameter buffer. Everything else (metrics, validation, callbacks, the live plot)
happens once per epoch, except callbacks' ``on_step_end``, which is called at most
``step_rate`` times per second.

On the cpp backend's fused step (``symnb/nn/fused.py``) without per-step callbacks,
each epoch is one native call (every minibatch and optimizer update); Python runs only
between epochs. A callback with ``on_step_end`` (or an optimizer the native code does not
implement) makes it one native call per minibatch instead, with the same results.

Interrupts: during ``fit`` a Ctrl-C (the notebook's stop button) only sets a flag;
training stops at the next step boundary (the next epoch boundary when whole epochs run
natively), so the parameters are those after a complete update and the History ends
with the last complete epoch (the partial epoch is recorded in ``history.partial``).
``fit`` then returns normally with ``history.stop_reason == "interrupted"``.

A NaN or infinite loss, gradient or parameter stops training with a message naming the
epoch and step; the update that produced it is not kept (the parameters are the last
finite ones).
"""

from __future__ import annotations

import _signal  # signal's C module: signal.signal's enum wrapping costs ~8 us a fit
import copy
import math
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from typing_extensions import Self

from symnb.checks import check_epochs, check_flag, check_hook, is_list_like, warn_caller

from .optional import require

__all__ = [
    "Callback",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "StopTraining",
    "TrainingDiverged",
    "deferred_interrupts",
]


class TrainingDiverged(FloatingPointError):
    """A loss, gradient or parameter became NaN or infinite (names epoch and step)."""

    def __init__(self, message: str, epoch: int, step: int, what: str) -> None:
        self.epoch = epoch
        self.step = step
        self.what = what
        super().__init__(message)


class StopTraining(Exception):
    """Raise from a callback to end training after the current epoch or step."""


class History:
    """Per-epoch metrics of one ``fit``: ``history["loss"]``,
    ``history["val_accuracy"]``...

    Attributes
    ----------
    history:
        dict metric name -> list with one value per completed epoch. Train metrics are
        ``loss``, ``accuracy``...; validation ones ``val_loss``, ``val_accuracy``...;
        ``time`` is the wall time of each epoch in seconds (training steps only).
    epochs:
        the epoch numbers (1-based, continuing across repeated ``fit`` calls on a
        model).
    stop_reason:
        ``"completed"``, ``"interrupted"``, ``"diverged"`` (NaN/inf), ``"callback"``,
        or ``"error"`` (an exception, e.g. from a callback, ended ``fit``: it
        propagates; ``message`` names it, and the epochs completed before it stay).
    message:
        a sentence on how training ended.
    steps:
        number of optimizer steps taken.
    partial:
        for an interrupted or diverged run, ``{"epoch": e, "step": s, "loss": mean so
        far}`` of the unfinished epoch; otherwise ``None``.
    """

    def __init__(self) -> None:
        self.history: dict[str, list[float]] = {}
        self.epochs: list[int] = []
        self.stop_reason: str | None = None
        self.message: str = ""
        self.steps: int = 0
        self.partial: dict[str, Any] | None = None
        self.params: dict[str, Any] = {}

    def append(self, epoch: int, logs: dict[str, float]) -> None:
        self.epochs.append(epoch)
        for key, value in logs.items():
            self.history.setdefault(key, []).append(float(value))

    def __getitem__(self, key: str) -> list[float]:
        try:
            return self.history[key]
        except KeyError:
            if not self.history:  # was "...; it has " and nothing after it
                ended = f" ({self.message})" if self.message else ""
                raise KeyError(
                    f"no metric {key!r} in this History: no epoch completed{ended}"
                ) from None
            raise KeyError(
                f"no metric {key!r} in this History; it has {', '.join(self.history)}"
            ) from None

    def __getattr__(self, name: str) -> Any:
        # only for names that are no attribute: h.loss said "'History' object has no
        # attribute 'loss'" with nothing on how a metric is read
        metrics = self.__dict__.get("history", {})
        if name.startswith("_") or name not in metrics:
            raise AttributeError(
                f"'History' object has no attribute {name!r}"
            ) from None
        raise AttributeError(
            f"'History' object has no attribute {name!r}; read the metric as "
            f"history[{name!r}] (a list, one value per epoch)"
        )

    def __contains__(self, key: object) -> bool:
        return key in self.history

    def __len__(self) -> int:
        return len(self.epochs)

    def keys(self) -> list[str]:
        return list(self.history)

    @property
    def last(self) -> dict[str, float]:
        """The metrics of the last completed epoch (empty if none)."""
        return {k: v[-1] for k, v in self.history.items() if v}

    @property
    def interrupted(self) -> bool:
        return self.stop_reason == "interrupted"

    def epochs_to(
        self, metric: str, target: float, mode: str | None = None
    ) -> int | None:
        """First epoch whose ``metric`` reached ``target`` (>= for accuracy-like
        metrics, <= for losses and errors; ``mode`` "max"/"min" overrides), or ``None``
        (also before the first epoch).

        A metric this History does not record, a target that is no finite number
        and an unknown mode are refused (they returned None, "never reached", and
        target='a' raised a comparison error from inside).
        """
        if self.history and metric not in self.history:
            raise ValueError(
                f"epochs_to: no metric {metric!r} in this History; it has "
                f"{', '.join(self.history)}"
            )
        target = _finite_target(target, "epochs_to")
        _check_mode(mode, "epochs_to")
        check_reachable_target(metric, target, "epochs_to")
        values = self.history.get(metric)
        if not values:
            return None
        mode = mode or _mode_of(metric)
        for epoch, value in zip(self.epochs, values):
            if (value >= target) if mode == "max" else (value <= target):
                return epoch
        return None

    def to_pandas(self):
        """A ``pandas.DataFrame`` indexed by epoch (needs pandas)."""
        pd = require("pandas", "History.to_pandas")

        return pd.DataFrame(self.history, index=pd.Index(self.epochs, name="epoch"))

    def as_dict(self) -> dict[str, Any]:
        return {
            "epochs": list(self.epochs),
            "history": {k: list(v) for k, v in self.history.items()},
            "stop_reason": self.stop_reason,
            "message": self.message,
            "steps": self.steps,
        }

    def __repr__(self) -> str:
        last = ", ".join(f"{k}={v:.4g}" for k, v in self.last.items() if k != "time")
        return (
            f"History({len(self)} epochs, {self.stop_reason or 'running'}"
            + (f", last: {last}" if last else "")
            + ")"
        )

    def _repr_html_(self) -> str:
        import html as _html

        head = _html.escape(repr(self))
        if not self.epochs:
            return f"<p>{head}</p>"
        keys = [k for k in self.history if k != "time"]
        shown = list(range(len(self.epochs)))
        if len(shown) > 10:
            shown = shown[:5] + [-1] + shown[-5:]
        rows = []
        for i in shown:
            if i == -1:
                rows.append("<tr>" + "<td>...</td>" * (len(keys) + 1) + "</tr>")
                continue
            cells = "".join(f"<td>{self.history[k][i]:.4g}</td>" for k in keys)
            rows.append(f"<tr><td>{self.epochs[i]}</td>{cells}</tr>")
        header = "".join(f"<th>{_html.escape(k)}</th>" for k in keys)
        return (
            f"<p>{head}</p><table><thead><tr><th>epoch</th>{header}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )


def _finite_target(target: Any, owner: str) -> float:
    """``target`` of ``owner`` as a finite float; a TypeError for what is no number
    (True, 'a'), a ValueError for NaN and infinity."""
    from .optim import check_number

    value = check_number(f"{owner}: target", target, "e.g. target=0.95")
    if not math.isfinite(value):
        raise ValueError(f"{owner}: target must be finite, got {target!r}")
    return value


#: Metrics whose values are fractions in [0, 1].
_FRACTIONS = ("accuracy", "precision", "recall", "f1")


def check_reachable_target(metric: str, target: float, owner: str) -> None:
    """A ValueError for a ``target`` that ``metric`` cannot take: accuracy (precision,
    recall, F1) lies in [0, 1] and R^2 is at most 1, so ``target=95`` (95 meant as a
    percentage) was silently "never reached" (and target=-1 reached at once)."""
    base = str(metric).removeprefix("val_")
    if base in _FRACTIONS and not 0 <= target <= 1:
        hint = (
            f"; for {target:g}% pass target={target / 100:g}"
            if 1 < target <= 100
            else ""
        )
        raise ValueError(
            f"{owner}: {metric} is a fraction in [0, 1], so target={target:g} "
            f"cannot be a value it reaches{hint}"
        )
    if base == "r2" and target > 1:
        raise ValueError(
            f"{owner}: {metric} is at most 1 (a perfect fit), so target={target:g} "
            "is never reached"
        )


def _check_mode(mode: Any, owner: str) -> None:
    if mode not in (None, "min", "max"):
        raise ValueError(
            f"{owner}: mode must be 'min', 'max' or None (chosen from the metric), "
            f"got {mode!r:.60}"
        )


def _mode_of(metric: str) -> str:
    base = metric.removeprefix("val_")
    return "max" if base in ("accuracy", "precision", "recall", "f1", "r2") else "min"


class Callback:
    """Hooks into ``fit``. Override what you need; every hook may stop training by
    returning ``True`` (or setting ``model.stop_training = True``, or raising
    :class:`StopTraining`).

    ``self.model`` and ``self.history`` are set before ``on_train_begin``;
    ``self.params`` holds ``epochs``, ``steps_per_epoch``, ``batch_size``, ``samples``.
    """

    model: Any = None
    history: History | None = None
    params: dict[str, Any] = {}  # noqa: RUF012 - replaced per fit, never mutated

    def on_train_begin(self, logs: dict[str, Any]) -> bool | None:
        return None

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any]) -> bool | None:
        return None

    def on_step_end(self, step: int, logs: dict[str, Any]) -> bool | None:
        """Called at most ``step_rate`` times a second; logs: epoch, step, loss (the
        running mean of the epoch so far), batch_loss."""
        return None

    def on_epoch_end(self, epoch: int, logs: dict[str, float]) -> bool | None:
        return None

    def on_train_end(self, logs: dict[str, Any]) -> None:
        return None


def _stop_asked(value: Any, callback: Any, method: str) -> bool:
    """A callback's return value read as "stop training?"; a value without one
    truth value (a NumPy array of several entries: NumPy's "truth value of an
    array ... is ambiguous" named neither the callback nor the fix) is a
    TypeError naming the callback."""
    try:
        return bool(value)
    except (TypeError, ValueError):
        hook = {"on_epoch_end": "_epoch", "on_step_end": "_step"}.get(method, "")
        fn = (
            getattr(callback, hook, None)
            if isinstance(callback, LambdaCallback)
            else None
        )
        name = getattr(fn, "__qualname__", None) or type(callback).__name__
        raise TypeError(
            f"callback {name} returned {value!r:.60} from {method}; return True "
            "to stop training, or False or None to go on"
        ) from None


class LambdaCallback(Callback):
    """A callback from plain functions, e.g. ``LambdaCallback(on_epoch_end=lambda e,
    logs: print(e, logs["loss"]))``. A bare function in ``callbacks=[...]`` becomes one
    of these as its ``on_epoch_end``."""

    def __init__(
        self,
        on_epoch_end: Callable[[int, dict], Any] | None = None,
        on_step_end: Callable[[int, dict], Any] | None = None,
        on_train_begin: Callable[[dict], Any] | None = None,
        on_train_end: Callable[[dict], Any] | None = None,
    ) -> None:
        for name, fn, args in (
            ("on_epoch_end", on_epoch_end, ("epoch", "logs")),
            ("on_step_end", on_step_end, ("step", "logs")),
            ("on_train_begin", on_train_begin, ("logs",)),
            ("on_train_end", on_train_end, ("logs",)),
        ):
            # checked now: fit called it only after the first epoch's work
            if fn is not None:
                check_hook(fn, f"LambdaCallback: {name}", args, "a function or None")
        self._epoch = on_epoch_end
        self._step = on_step_end
        self._begin = on_train_begin
        self._end = on_train_end

    def on_train_begin(self, logs):
        return self._begin(logs) if self._begin else None

    def on_epoch_end(self, epoch, logs):
        return self._epoch(epoch, logs) if self._epoch else None

    def on_step_end(self, step, logs):
        return self._step(step, logs) if self._step else None

    def on_train_end(self, logs):
        return self._end(logs) if self._end else None

    @property
    def wants_steps(self) -> bool:
        return self._step is not None


_EARLY_STOPPING_SETTINGS = frozenset(
    {"monitor", "patience", "min_delta", "mode", "target", "restore_best"}
)


def _early_stopping_setting(name: str, value: Any) -> Any:
    """An EarlyStopping setting checked (the constructor's and assignment's checks)."""
    from .optim import check_number

    if name == "monitor" and not isinstance(value, str):
        raise TypeError(
            f"EarlyStopping: monitor must be a metric name such as 'val_loss', "
            f"got {value!r}"
        )
    if name == "patience":
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, np.integer))
            or value < 0
        ):  # patience=2.5 was cut to 2
            raise ValueError(
                f"EarlyStopping: patience must be an integer >= 0 (epochs without "
                f"improvement), got {value!r}"
            )
        return int(value)
    if name == "min_delta":
        value = check_number("min_delta", value, "e.g. 1e-4")
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(
                f"EarlyStopping: min_delta must be a finite number >= 0, got {value!r}"
            )
    if name == "mode":
        _check_mode(value, "EarlyStopping")
    if name == "target" and value is not None:
        return _finite_target(value, "EarlyStopping")
    if name == "restore_best":
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(
                f"EarlyStopping: restore_best must be True or False, got {value!r}"
            )
        return bool(value)
    return value


class EarlyStopping(Callback):
    """Stop when ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs,
    or when it reaches ``target`` (if given). ``restore_best`` puts back, when fit
    ends (stopped early or not), the parameters at the end of the epoch with the
    best value (Keras's ``restore_best_weights``). For ``val_*`` and the training
    metrics other than ``loss``, measured at each epoch's end, the restored model
    scores exactly ``best``. fit's ``loss`` is the mean of the epoch's minibatch
    losses, each taken before its step, so the restored model's training loss
    differs from ``best`` (full batch: it is the next epoch's logged loss; full-batch
    SGD whose loss rose from 0.692 restores weights at 0.724); monitor
    ``val_loss`` (``validation_data=(X, y)``, the training set itself works) for
    weights whose loss is ``best``. Restoring the epoch's start instead would lose
    the last epoch's progress when the loss still falls."""

    def __init__(
        self,
        monitor: str = "val_loss",
        patience: int = 10,
        min_delta: float = 0.0,
        mode: str | None = None,
        target: float | None = None,
        restore_best: bool = False,
    ) -> None:
        self.monitor = monitor
        self.patience = patience
        self.min_delta = min_delta
        self.mode = mode
        self.target = target
        self.restore_best = restore_best
        self.best: float | None = None
        self.best_epoch: int | None = None
        self.stopped_epoch: int | None = None
        self._wait = 0
        self._best_params: Any = None

    def __setattr__(self, name: str, value: Any) -> None:
        # settings assigned after construction skipped the constructor's checks:
        # es.patience = "a" failed inside fit with "'>=' not supported", es.mode = "x"
        # and es.min_delta = nan were kept and changed when training stopped
        if name in _EARLY_STOPPING_SETTINGS:
            value = _early_stopping_setting(name, value)
            if name == "mode":
                self.__dict__["_auto_mode"] = value is None
                if value is None:
                    value = _mode_of(self.__dict__.get("monitor", "val_loss"))
            elif name == "monitor" and self.__dict__.get("_auto_mode"):
                # a mode chosen from the metric follows a new metric
                self.__dict__["mode"] = _mode_of(value)
        super().__setattr__(name, value)

    def on_train_begin(self, logs):
        if self.target is not None:
            check_reachable_target(self.monitor, self.target, "EarlyStopping")
        # the best parameters too: kept from an earlier fit (of this or another
        # model), a fit that ended before its first epoch's end got them back
        self.best = self.best_epoch = self._best_params = None
        self._wait = 0
        self.stopped_epoch = None

    def on_epoch_end(self, epoch, logs):
        if self.monitor not in logs:
            raise KeyError(
                f"EarlyStopping monitors {self.monitor!r}, which fit does not report; "
                f"available: {', '.join(logs)}"
            )
        value = logs[self.monitor]
        sign = 1.0 if self.mode == "max" else -1.0
        if self.best is None or sign * (value - self.best) > self.min_delta:
            self.best, self.best_epoch, self._wait = value, epoch, 0
            if self.restore_best and self.model is not None:
                self._best_params = self.model.get_flat_parameters()
        else:
            self._wait += 1
        reached = self.target is not None and sign * (value - self.target) >= 0
        if reached or self._wait >= self.patience:
            self.stopped_epoch = epoch
            return True
        return None

    def on_train_end(self, logs):
        if (
            self.restore_best
            and self._best_params is not None
            and self.model is not None
        ):
            self.model.set_flat_parameters(self._best_params)


#: the hooks fit calls and the arguments it passes (after self)
_HOOK_ARGUMENTS = {
    "on_train_begin": ("logs",),
    "on_epoch_begin": ("epoch", "logs"),
    "on_step_end": ("step", "logs"),
    "on_epoch_end": ("epoch", "logs"),
    "on_train_end": ("logs",),
}


def _check_hook_methods(cb: Callback) -> None:
    """A TypeError naming the class and method when a Callback subclass overrides
    a hook with other arguments than fit passes: ``def on_epoch_end(self)`` failed
    after the first epoch's work with Python's bare "takes 1 positional argument
    but 3 were given", naming neither the callback nor the fix."""
    for method, args in _HOOK_ARGUMENTS.items():
        if getattr(type(cb), method, None) is getattr(Callback, method):
            continue
        check_hook(
            getattr(cb, method, None),
            f"callback {type(cb).__name__}.{method}",
            args,
            f"a method {method}(self, {', '.join(args)})",
        )


def as_callbacks(
    callbacks: Iterable[Any] | Callback | Callable | None,
) -> list[Callback]:
    """Normalise the ``callbacks=`` argument."""
    if callbacks is None:
        return []
    if isinstance(callbacks, Callback) or (
        callable(callbacks) and not isinstance(callbacks, (list, tuple))
    ):
        callbacks = [callbacks]
    if isinstance(callbacks, (str, bytes)) or not is_list_like(callbacks):
        raise TypeError(
            "callbacks must be a symnb.nn.Callback, a function f(epoch, logs) or a "
            f"list of them, got {callbacks!r}"
        )
    result: list[Callback] = []
    for cb in callbacks:
        if isinstance(cb, Callback):
            _check_hook_methods(cb)
            result.append(cb)
        else:
            check_hook(
                cb,
                "a callback",
                ("epoch", "logs"),
                "a symnb.nn.Callback or a function f(epoch, logs)",
            )
            result.append(LambdaCallback(on_epoch_end=cb))
    return result


def check_penalty(name: str, value: Any) -> float:
    """``l1``/``l2`` as a float: a finite number >= 0, else a clear error."""
    from .optim import check_number

    value = check_number(name, value, "a penalty factor >= 0 such as 1e-4, or 0")
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def _check_monitors(cbs: list, metric_names: list[str], validation: bool) -> None:
    """An EarlyStopping that monitors a value this fit never reports failed only
    after the first epoch (a KeyError, the epoch's work thrown away), and a
    LiveProgress asked to plot one drew nothing without a word: checked now."""
    from .live import LiveProgress

    names = ["loss", *metric_names]
    reported = names + (["val_" + k for k in names] if validation else []) + ["time"]
    for cb in cbs:
        if isinstance(cb, LiveProgress):
            missing = cb.unreported(reported, validation)
            what = "LiveProgress plots"
        elif isinstance(cb, EarlyStopping):
            missing = [] if cb.monitor in reported else [cb.monitor]
            what = "EarlyStopping monitors"
        else:
            continue
        if missing:
            hint = (
                "; val_ values need validation_data=(X_val, y_val)"
                if any(k.startswith("val_") for k in missing) and not validation
                else ""
            )
            raise ValueError(
                f"{what} {', '.join(map(repr, missing))}, which this fit does not "
                f"report; it reports {', '.join(reported)}{hint}"
            )


def _check_both_classes(xp: Any, T: Any) -> None:
    """fit on binary targets: both classes must occur (as MLPClassifier requires)."""
    lo = float(T.min())  # T holds only 0 and 1 (checked): both occur iff min < max
    if lo == float(T.max()):
        raise ValueError(
            f"training data: y holds only class {int(lo)}; a binary "
            "classifier needs examples of both 0 and 1 (check the labels, or the "
            "split that produced this data)"
        )


def check_optimizer(model: Any, optimizer: Any, where: str) -> None:
    """TypeError for something that is not an optimizer; ValueError for an optimizer
    that holds parameters other than ``model``'s (built on another model: it would
    update those and train nothing here)."""
    from .optim import Optimizer

    if not isinstance(optimizer, Optimizer):
        if isinstance(optimizer, str) or optimizer is None:
            raise TypeError(
                f"{where}: optimizer must be an optimizer instance that keeps its "
                f"state between calls, got {optimizer!r}; create it once, e.g. "
                "opt = symnb.nn.Adam(model.parameters(), lr=0.01)"
            )
        if not callable(getattr(optimizer, "step", None)):
            raise TypeError(
                f"{where}: optimizer must be a symnb.nn optimizer (SGD, Adam) "
                f"built from model.parameters(), got {optimizer!r}"
            )
        return  # a duck-typed optimizer: its parameters cannot be checked
    flat, xp = model._flat, model.xp
    params = getattr(optimizer, "params", ())
    if getattr(params, "flat_data", None) is flat:
        return
    foreign = [
        getattr(p, "name", f"parameter {i}")
        for i, p in enumerate(params)
        if not (
            type(getattr(p, "data", None)) is type(flat)
            and xp.may_share_memory(p.data, flat)
        )
    ]
    if foreign:
        some = ", ".join(map(str, foreign[:3])) + (" ..." if len(foreign) > 3 else "")
        raise ValueError(
            f"{where}: the optimizer {optimizer!r} holds parameters that are not this "
            f"model's ({len(foreign)} of {len(params)}: {some}); it was built on "
            "another model, so it would train nothing here. Build it from this "
            "model: symnb.nn."
            f"{type(optimizer).__name__}(model.parameters())"
        )


def _optimizer_for(
    model: Any, optimizer: Any, lr: Any, options: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    """The optimizer ``fit`` trains with, and the settings (``lr``, ``momentum``,
    ``weight_decay``) that ``fit`` writes into a given instance once all its
    arguments are checked. They are checked here on a copy: a refused ``fit`` kept
    lr=0.1 written into the user's optimizer (an optimizer of another model, a
    momentum out of range, a bad callback), and the next ``fit`` trained with it."""
    from . import optim

    if not isinstance(optimizer, optim.Optimizer):
        opt = optim.get(optimizer, model.parameters(), lr=lr, **options)
        check_optimizer(model, opt, "fit")
        return opt, {}
    check_optimizer(model, optimizer, "fit")
    settings = dict(options) if lr is None else {"lr": lr, **options}
    trial = copy.copy(optimizer)
    for k, v in settings.items():
        if not hasattr(optimizer, k):
            raise ValueError(
                f"{k} does not apply to {type(optimizer).__name__}; give it to the "
                f"optimizer's constructor or use optimizer='sgd'"
            )
        setattr(trial, k, v)
    return optimizer, settings


def _wants_steps(cb: Callback) -> bool:
    if isinstance(cb, LambdaCallback):
        return cb.wants_steps
    return type(cb).on_step_end is not Callback.on_step_end


class deferred_interrupts:
    """Within the block, SIGINT only sets ``self.requested``; the previous handler is
    put back on exit. Outside the main thread (where Python never delivers SIGINT) it
    does nothing."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None
        self._installed = False

    def _handler(self, signum, frame) -> None:
        if self.requested:
            # a second Ctrl-C while the first is pending: the user insists
            previous = self._previous
            if callable(previous):
                previous(signum, frame)
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self) -> Self:
        if threading.current_thread() is threading.main_thread():
            try:
                self._previous = _signal.getsignal(_signal.SIGINT)
                # None: a handler installed outside Python (an embedding program),
                # which could not be put back; Ctrl-C then stays the program's
                if self._previous is not None:
                    _signal.signal(_signal.SIGINT, self._handler)
                    self._installed = True
            except (ValueError, TypeError):  # pragma: no cover - embedded interpreters
                self._installed = False
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            _signal.signal(_signal.SIGINT, self._previous)
            self._installed = False


class _Diverged(Exception):
    """A step went NaN/inf; ``done`` steps of the epoch (and ``total``, their loss
    sum) completed before it (set by the whole-epoch native call)."""

    def __init__(self, what: str, done: int = 0, total: float = 0.0) -> None:
        self.what = what
        self.done = done
        self.total = total


def _domain_guarded(model: Any) -> list[Any]:
    """The kernels of ``model``'s layers with learnable constants whose library
    formula has domain tests (softplus's beta != 0, hardtanh's min_val <=
    max_val): the ones whose constants an optimizer step can move out of it."""
    kernels = []
    for layer in getattr(model, "_learnable_layers", ()):
        kernel = getattr(layer.activation, "kernel", None)
        if hasattr(kernel, "domain_problem") and kernel._domain_slots():
            kernels.append(kernel)
    return kernels


def _left_domain(model: Any, guarded: list[Any], epoch_start: Any) -> str | None:
    """After an epoch: the first domain problem of the ``guarded`` kernels' learned
    constants, with the parameters put back to ``epoch_start`` (all at once, under
    the state lock), or None. A hardtanh whose learned min_val passed max_val was a
    constant function that trained on without a word."""
    for kernel in guarded:
        problem = kernel.domain_problem()
        if problem is not None:
            with model._state_lock:
                model._flat[...] = epoch_start
                model._sync_constants()
            return problem
    return None


def _diverged_error(exc: _Diverged, epoch: int, step: int) -> TrainingDiverged:
    return TrainingDiverged(
        f"training stopped: the {exc.what} became NaN or infinite at epoch {epoch}, "
        f"step {step}; the parameters are those before that step",
        epoch,
        step,
        exc.what,
    )


def _fused_epoch(
    model: Any, X: Any, T: Any, optimizer: Any, l1: float, l2: float, batch_size: int
) -> Callable[[np.ndarray | None], tuple[float, int]] | None:
    """The whole-epoch native call of the cpp fused step, or None (per-step path:
    not fused, arrays the fused step does not take, an optimizer it does not fuse,
    or ``_train_step_arrays`` replaced on the instance to see every step)."""
    if getattr(model, "_fused_reason", "") is not None:
        return None
    if "_train_step_arrays" in vars(model) or not model._fused_arrays_ok(X, T):
        return None
    impl = model._fused_step()
    if impl is None:
        return None
    return impl.epoch_runner(model, X, T, optimizer, l1, l2, batch_size)


LOOK_UP = object()  # run_epoch's default: look the whole-epoch call up itself


def epoch_order(
    rng: np.random.Generator, n: int, batch_size: int, shuffle: bool
) -> np.ndarray | None:
    """The rows' order for one epoch: a permutation, or None (rows in order) when not
    shuffling or for a full batch, whose gradient does not depend on the row order
    (only the summation's rounding does): no permutation and no gather then."""
    return rng.permutation(n) if shuffle and batch_size < n else None


def run_epoch(
    model: Any,
    X: Any,
    T: Any,
    optimizer: Any,
    batch_size: int,
    order: np.ndarray | None,
    l1: float,
    l2: float,
    interrupts: deferred_interrupts | None,
    epoch: int,
    step_hook: Callable[[int, float, float], bool] | None = None,
    whole: Any = LOOK_UP,
) -> tuple[float, int, str | None]:
    """Train one epoch on device arrays ``X``/``T`` (already validated).

    ``whole``: the whole-epoch native call (or None: there is none) when the caller
    already looked it up with :func:`_fused_epoch`; by default it is looked up here.
    Returns ``(mean loss, steps done, stop)`` with ``stop`` None, "interrupted",
    "callback"; raises :class:`TrainingDiverged` on NaN/inf.
    """
    n = X.shape[0]
    if step_hook is None:
        # no per-step callback: the whole epoch in one native call when fused
        if whole is LOOK_UP:
            whole = _fused_epoch(model, X, T, optimizer, l1, l2, batch_size)
        if whole is not None:
            try:
                with model._state_lock:  # a snapshot waits for the epoch's end
                    total, steps = whole(order)
            except _Diverged as exc:
                raise _diverged_error(exc, epoch, exc.done + 1) from None
            stop = "interrupted" if interrupts and interrupts.requested else None
            return total / n, steps, stop
    with np.errstate(all="ignore"):  # NaN/inf are detected and reported below
        total = 0.0
        done = 0
        steps = 0
        step_fn = model._train_step_arrays
        lock = model._state_lock
        if order is not None:
            # one gather per epoch into reused buffers; minibatches are then contiguous
            # views
            X, T = model._shuffled(X, T, order)
        # the fused native step (cpp backend) trains on row ranges of X, T directly
        # (unless _train_step_arrays was replaced on the instance, e.g. by a test or a
        # wrapper that wants to see every step)
        fused_runner = getattr(model, "_fused_runner", None)
        rows_step = None
        if fused_runner is not None and "_train_step_arrays" not in vars(model):
            rows_step = fused_runner(X, T, optimizer, l1, l2, batch_size)
        for start in range(0, n, batch_size):
            stop_at = min(start + batch_size, n)
            try:
                with lock:  # a snapshot (save, pickle) sees no half step
                    if rows_step is not None:
                        loss = rows_step(start, stop_at)
                    else:
                        loss = step_fn(
                            X[start:stop_at], T[start:stop_at], optimizer, l1, l2
                        )
            except _Diverged as exc:
                raise _diverged_error(exc, epoch, steps + 1) from None
            m = stop_at - start
            total += loss * m
            done += m
            steps += 1
            if step_hook is not None and step_hook(steps, total / done, loss):
                return total / done, steps, "callback"
            if interrupts is not None and interrupts.requested:
                return total / done, steps, "interrupted"
        return total / done, steps, None


def fit(
    model: Any,
    X: Any,
    y: Any,
    epochs: int = 10,
    batch_size: int | None = 32,
    lr: float | None = None,
    optimizer: Any = "adam",
    validation_data: tuple[Any, Any] | None = None,
    callbacks: Any = None,
    shuffle: bool = True,
    seed: int | None = None,
    metrics: Iterable[str] | None = None,
    l1: float = 0.0,
    l2: float = 0.0,
    live: bool = False,
    verbose: bool = False,
    step_rate: float = 10.0,
    momentum: float | None = None,
    weight_decay: float | None = None,
) -> History:
    """Train ``model``; see :meth:`symnb.nn.MLP.fit`."""
    from .optim import check_number

    epochs = check_epochs(epochs)
    for name, flag in (("shuffle", shuffle), ("live", live), ("verbose", verbose)):
        check_flag(flag, name)
    if step_rate is not None:
        step_rate = check_number(
            "step_rate", step_rate, "calls a second such as 10 (None: every step)"
        )
        if not step_rate >= 0:  # NaN too
            raise ValueError(
                f"step_rate must be >= 0 calls a second (0, None or inf: every "
                f"step), got {step_rate!r}"
            )
    Xd, Td, n = model._prepare(X, y, "training data")
    if batch_size is None or batch_size == "full":
        batch_size = n
    if (
        not isinstance(batch_size, (int, np.integer))
        or isinstance(batch_size, bool)
        or batch_size < 1
    ):
        raise ValueError(
            f"batch_size must be a positive integer or None, got {batch_size!r}"
        )
    batch_size = int(min(batch_size, n))
    l1, l2 = check_penalty("l1", l1), check_penalty("l2", l2)
    if model.task == "binary":
        _check_both_classes(model.xp, Td)
    val = None
    if validation_data is not None:
        if not isinstance(validation_data, (tuple, list)) or len(validation_data) != 2:
            raise ValueError("validation_data must be a pair (X_val, y_val)")
        val = model._prepare(validation_data[0], validation_data[1], "validation data")
    metric_names = model._metric_names(metrics)
    opt_options: dict[str, Any] = {}
    if momentum is not None:
        opt_options["momentum"] = momentum
    if weight_decay is not None:
        opt_options["weight_decay"] = weight_decay
    opt, settings = _optimizer_for(model, optimizer, lr, opt_options)
    cbs = as_callbacks(callbacks)
    _check_monitors(cbs, metric_names, val is not None)
    if live:
        from .live import LiveProgress

        cbs.append(LiveProgress(plot=True))
    elif verbose:
        from .live import LiveProgress

        cbs.append(LiveProgress(plot=False))
    # checked before the model changes: seed=-1 replaced the last fit's history
    # with an empty "running" one, then raised
    rng = model._shuffle_rng(seed)
    for k, v in settings.items():  # every argument checked: now the instance's
        setattr(opt, k, v)
    history = History()
    steps_per_epoch = -(-n // batch_size)
    history.params = {
        "epochs": int(epochs),
        "steps_per_epoch": steps_per_epoch,
        "batch_size": batch_size,
        "samples": n,
        "optimizer": repr(opt),
    }
    with model._state_lock:
        model.history = history
    model.stop_training = False
    first_epoch = model.epochs_trained + 1
    for cb in cbs:
        cb.model, cb.history, cb.params = model, history, history.params

    step_cbs = [cb for cb in cbs if _wants_steps(cb)]
    # step_rate None or inf: every step; otherwise at most step_rate calls a second
    min_interval = 0.0 if not step_rate or math.isinf(step_rate) else 1.0 / step_rate
    state = {"last": 0.0, "epoch": first_epoch, "global": 0}

    def step_hook(step: int, running: float, batch_loss: float) -> bool:
        now = time.perf_counter()
        last_step = step == steps_per_epoch
        if now - state["last"] < min_interval and not last_step:
            return False
        state["last"] = now
        logs = {
            "epoch": state["epoch"],
            "step": step,
            "loss": running,
            "batch_loss": batch_loss,
        }
        stop = False
        for cb in step_cbs:
            try:
                stop = (
                    _stop_asked(cb.on_step_end(step, logs), cb, "on_step_end") or stop
                )
            except StopTraining:
                stop = True
        return stop or bool(model.stop_training)

    def call_all(method: str, *args: Any) -> bool:
        stop = False
        for cb in cbs:
            try:
                stop = _stop_asked(getattr(cb, method)(*args), cb, method) or stop
            except StopTraining:
                stop = True
        return stop or bool(model.stop_training)

    stop_reason = "completed"
    message = ""
    failure: BaseException | None = None
    whole: Any = LOOK_UP
    guarded = _domain_guarded(model)
    epoch_start = None
    try:
        with deferred_interrupts() as interrupts:
            if call_all("on_train_begin", {"epochs": epochs, "samples": n}):
                stop_reason = "callback"
            epoch = first_epoch
            while stop_reason == "completed" and epoch < first_epoch + epochs:
                state["epoch"] = epoch
                if call_all("on_epoch_begin", epoch, {}):
                    stop_reason = "callback"
                    break
                order = epoch_order(rng, n, batch_size, shuffle)
                if not cbs and whole is LOOK_UP:
                    # no callbacks: nothing changes the model, the optimizer or the
                    # data between this fit's epochs, so one look-up serves them all
                    # (it checks a dozen objects: ~10 us, a tenth of a small epoch)
                    whole = _fused_epoch(model, Xd, Td, opt, l1, l2, batch_size)
                if guarded:
                    epoch_start = model._flat.copy()
                t0 = time.perf_counter()
                try:
                    loss, steps, stop = run_epoch(
                        model,
                        Xd,
                        Td,
                        opt,
                        batch_size,
                        order,
                        l1,
                        l2,
                        interrupts,
                        epoch,
                        step_hook if step_cbs else None,
                        whole,
                    )
                except TrainingDiverged as exc:
                    with model._state_lock:
                        history.steps += exc.step - 1
                    history.partial = {"epoch": epoch, "step": exc.step}
                    stop_reason, message = "diverged", str(exc)
                    warnings.warn(message, RuntimeWarning, stacklevel=3)
                    break
                elapsed = time.perf_counter() - t0
                problem = _left_domain(model, guarded, epoch_start)
                if problem is not None:
                    history.partial = {"epoch": epoch, "step": steps}
                    stop_reason = "diverged"
                    message = (
                        f"training stopped at epoch {epoch}: a learnable constant "
                        f"left its domain ({problem}); the parameters are those "
                        "before that epoch"
                    )
                    warn_caller(message, RuntimeWarning)
                    break
                with model._state_lock:
                    history.steps += steps
                if stop is not None and steps < steps_per_epoch:
                    # stopped inside the epoch: History keeps complete epochs only
                    history.partial = {"epoch": epoch, "step": steps, "loss": loss}
                    stop_reason = stop
                    break
                logs = {"loss": loss}
                logs.update(model._metrics_on(Xd, Td, metric_names, skip_loss=True))
                if val is not None:
                    for key, value in model._metrics_on(
                        val[0], val[1], metric_names
                    ).items():
                        logs["val_" + key] = value
                logs["time"] = elapsed
                with model._state_lock:  # a snapshot has both or neither
                    history.append(epoch, logs)
                    model.epochs_trained = epoch
                if stop == "interrupted":
                    stop_reason = "interrupted"
                    break
                if call_all("on_epoch_end", epoch, dict(logs)) or stop == "callback":
                    stop_reason = "callback"
                    epoch += 1
                    break
                if interrupts.requested:
                    stop_reason = "interrupted"
                    break
                epoch += 1
    except BaseException as exc:
        # an exception (a callback's, a KeyboardInterrupt raised by one) ends fit:
        # History must not claim the run completed
        if stop_reason == "completed":
            if isinstance(exc, KeyboardInterrupt):
                stop_reason = "interrupted"
            else:
                stop_reason, failure = "error", exc
        raise
    finally:
        if stop_reason == "error":
            text = str(failure)
            text = text if len(text) <= 200 else text[:197] + "..."
            message = (
                f"training stopped by an exception during epoch {state['epoch']} "
                f"({type(failure).__name__}: {text}); the model holds the "
                f"parameters after the last complete step; History has "
                f"{len(history)} complete epochs"
            )
        elif stop_reason == "interrupted":
            where = history.partial or {"epoch": model.epochs_trained, "step": "end"}
            message = (
                f"training interrupted at epoch {where['epoch']}, "
                f"step {where['step']}: the model holds the parameters after the last "
                f"complete step; History has {len(history)} complete epochs"
            )
            warnings.warn(message, RuntimeWarning, stacklevel=3)
        elif stop_reason == "callback" and history.partial:
            message = (
                f"training stopped by a callback at epoch {history.partial['epoch']}, "
                f"step {history.partial['step']}"
            )
        elif stop_reason == "callback":
            message = (
                f"training stopped by a callback after epoch {model.epochs_trained}"
            )
        elif stop_reason == "completed":
            message = f"trained {len(history)} epochs"
        history.stop_reason = stop_reason
        history.message = message
        for cb in cbs:
            try:
                cb.on_train_end({"stop_reason": stop_reason, "message": message})
            except StopTraining:
                pass
            except Exception as exc:
                if failure is None:
                    raise
                # the exception that ended fit stays the one raised; this one is
                # told on it rather than replacing it
                _add_note(
                    failure,
                    f"then {type(cb).__name__}.on_train_end raised "
                    f"{type(exc).__name__}: {exc}",
                )
    return history


def _add_note(exc: BaseException, note: str) -> None:
    """``exc.add_note(note)`` (Python >= 3.11; a no-op before)."""
    add = getattr(exc, "add_note", None)
    if add is not None:
        add(note)
