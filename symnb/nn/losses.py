"""Losses for training: any ``symnb.Loss`` (compiled elementwise kernel) and softmax
cross-entropy for multi-class classification.

Every training loss here is the MEAN over all output elements (PyTorch's
``reduction="mean"``) and exposes ``value_and_gradient(pred, target, grad_out) ->
float`` that writes the gradient of that mean with respect to ``pred`` into
``grad_out``.

Tasks: a loss decides what the network's outputs mean.

===================================  ==========  ======================================
loss                                  task        outputs
===================================  ==========  ======================================
``"cross_entropy"`` (softmax)         multiclass  logits, one per class; labels 0..C-1
``"bce_with_logits"``                 binary      one logit; labels 0/1
``"bce"`` (with a sigmoid output)     binary      one probability; labels 0/1
anything else (mse, mae, huber, ...)  regression  values
===================================  ==========  ======================================

A user ``symnb.Loss`` is a regression loss unless the model is told ``task="binary"``
(the output is then a logit, or a probability when the output layer has an activation).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from symnb.checks import check_flag, check_probabilities

__all__ = ["ElementwiseLoss", "SoftmaxCrossEntropy", "TrainingLoss", "resolve_loss"]

_SOFTMAX_NAMES = (
    "cross_entropy",
    "softmax_cross_entropy",
    "categorical_cross_entropy",
    "categorical_crossentropy",
    "ce",
    "nll",
)
_LOGIT_NAMES = ("bce_with_logits", "binary_cross_entropy_with_logits", "logistic")
_PROB_NAMES = ("bce", "binary_cross_entropy", "binary_crossentropy")


class TrainingLoss:
    """Interface of a training loss (see the module docstring)."""

    name = "loss"
    task = "regression"  # "regression" | "binary" | "multiclass"
    logits = True  # for classification: are outputs logits (True) or probabilities?

    def compile(
        self, backend: str, device: int | None, dtype: str, strict: bool
    ) -> None:
        """Prepare kernels (called once by the model)."""

    def value(self, pred: Any, target: Any) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def value_and_gradient(self, pred: Any, target: Any, grad_out: Any) -> float:
        raise NotImplementedError  # pragma: no cover - abstract

    def describe(self) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def check_targets(self, targets: np.ndarray, what: str) -> None:
        """A ValueError for targets the loss is not defined on (called by the model
        on training, validation and evaluation targets); by default any."""


class ElementwiseLoss(TrainingLoss):
    """A ``symnb.Loss`` evaluated by its compiled kernel (``LossKernel``)."""

    def __init__(
        self, loss: Any, task: str = "regression", logits: bool = True
    ) -> None:
        # checked now: ElementwiseLoss(3) or task='nope' failed at the first
        # compile or step, far from the call; logits='no' was truthy
        if not (hasattr(loss, "compile") and hasattr(loss, "expr")):
            raise TypeError(
                "ElementwiseLoss takes a symnb.Loss (e.g. symnb.loss('mse')), got "
                f"{loss!r:.60}; for a name use symnb.nn.losses.resolve_loss(name)"
            )
        if task not in ("regression", "binary"):
            raise ValueError(
                f"ElementwiseLoss: task must be 'regression' or 'binary', got {task!r:.60}"
                " (several classes: SoftmaxCrossEntropy)"
            )
        marked = sorted(getattr(loss, "learnable", None) or {})
        if marked:  # kept fixed without a word: the user meant them to learn
            shown = ", ".join(f"{n}={float(loss.constants[n])!r}" for n in marked)
            raise ValueError(
                f"loss {getattr(loss, 'name', 'loss')!r} marks {', '.join(marked)} "
                "learnable, but symnb.nn trains the network's parameters only: a "
                "loss constant stays fixed (learning it would lower the loss by "
                f"changing the loss itself); give a number instead, e.g. {shown}"
            )
        self.loss = loss
        self.name = getattr(loss, "name", "loss")
        self.task = task
        self.logits = check_flag(logits, "ElementwiseLoss: logits")
        self.kernel: Any = None
        self.library_name: str | None = None
        self._labels = _labels_of(loss)

    def check_targets(self, targets: np.ndarray, what: str) -> None:
        """The hinge loss max(0, 1 - y_pred*y_true) is defined on labels -1 and +1:
        with 0/1 labels every sample of class 0 had the constant loss 1 and no
        gradient, and the network learned to call everything class 1 without a
        word."""
        if self._labels is None:
            return
        bad = np.argwhere(~np.isin(targets, self._labels))
        if bad.size:
            r, c = (int(v) for v in bad[0])
            raise ValueError(
                f"{what}: loss {self.name!r} takes labels -1 and +1 "
                f"({self.loss.expr}), but y at row {r} is {float(targets[r, c])!r}; "
                "for 0/1 labels pass 2*y - 1, or train them with "
                "loss='bce_with_logits'"
            )

    def compile(
        self, backend: str, device: int | None, dtype: str, strict: bool
    ) -> None:
        self.kernel = self.loss.compile(
            backend=backend, device=device, dtype=dtype, strict=strict
        )

    def _check_probabilities(self, pred: Any, target: Any) -> None:
        check_probabilities(
            self.name,
            pred,
            target,
            "give the output layer a sigmoid (output='sigmoid'), or train on "
            "logits with loss='bce_with_logits'",
        )

    def value(self, pred: Any, target: Any) -> float:
        if self.library_name == "bce":
            self._check_probabilities(pred, target)
        return float(self.kernel.value(pred, target))

    def value_and_gradient(self, pred: Any, target: Any, grad_out: Any) -> float:
        # pred, target and grad_out have the same shape (n, outputs), C-contiguous
        kernel = self.kernel
        if self.library_name == "bce":
            self._check_probabilities(pred, target)
        value = kernel.value(pred, target)
        kernel.gradient(pred, target, out=grad_out)
        return float(value)

    def describe(self) -> dict[str, Any]:
        loss = self.loss
        return {
            "type": "elementwise",
            "library": self.library_name,
            "text": getattr(loss, "text", None),
            "name": getattr(loss, "name", None),
            "constants": {
                k: float(v) for k, v in (getattr(loss, "constants", {}) or {}).items()
            },
            "derivative": getattr(loss, "derivative_text", None),
            "task": self.task,
            "logits": self.logits,
        }


class SoftmaxCrossEntropy(TrainingLoss):
    """Mean of ``-log softmax(z)[label]`` over the rows, computed stably (log-sum-exp).

    Targets are integer class labels (n,). ``label_smoothing`` as in PyTorch.
    """

    name = "cross_entropy"
    task = "multiclass"
    logits = True

    def __init__(self, label_smoothing: float = 0.0) -> None:
        if isinstance(label_smoothing, (bool, np.bool_)) or not isinstance(
            label_smoothing, numbers.Real
        ):
            raise TypeError(
                f"label_smoothing must be a number in [0, 1), got {label_smoothing!r:.60}"
            )
        if not 0 <= label_smoothing < 1:
            raise ValueError(
                f"label_smoothing must be in [0, 1), got {label_smoothing!r}"
            )
        self.label_smoothing = float(label_smoothing)
        self.xp: Any = np

    def compile(
        self, backend: str, device: int | None, dtype: str, strict: bool
    ) -> None:
        if backend == "cuda":
            import cupy

            self.xp = cupy

    def _log_softmax(self, z: Any, out: Any) -> Any:
        xp = self.xp
        m = z.max(axis=1, keepdims=True)
        xp.subtract(z, m, out=out)
        lse = xp.log(xp.exp(out).sum(axis=1, keepdims=True))
        out -= lse
        return out

    def _check(self, pred: Any, target: Any) -> None:
        """Logits (n, C) and integer labels (n,) in 0..C-1. A target of shape
        (n, 1) indexed ``logp[arange(n), target]`` as an (n, n) table (a wrong
        mean and n*n memory), a label -1 picked the last class, and float labels
        or a label C raised NumPy's bare IndexError."""
        shape = getattr(pred, "shape", None)
        if shape is None or len(shape) != 2 or shape[1] < 1:
            raise ValueError(
                f"{self.name}: pred must be logits of shape (n, classes), got "
                f"shape {shape}"
            )
        n, c = shape
        tshape = getattr(target, "shape", None)
        if tshape != (n,):
            raise ValueError(
                f"{self.name}: target must be class labels of shape ({n},), one per "
                f"row of pred, got shape {tshape}; pass y.reshape(-1) (one-hot "
                "rows: y.argmax(axis=1))"
            )
        if target.dtype.kind not in "iu":
            raise TypeError(
                f"{self.name}: target must hold integer class labels 0..{c - 1}, "
                f"got dtype {target.dtype}; pass y.astype(int)"
            )
        if self.xp is np and n:
            low, high = int(target.min()), int(target.max())
            if low < 0 or high >= c:
                bad = low if low < 0 else high
                raise ValueError(
                    f"{self.name}: target holds the label {bad}, outside 0..{c - 1} "
                    f"(pred has {c} classes)"
                )

    def value(self, pred: Any, target: Any) -> float:
        xp = self.xp
        self._check(pred, target)
        if not pred.shape[0]:
            return float("nan")  # the mean over no rows, as ElementwiseLoss
        logp = self._log_softmax(pred, xp.empty_like(pred))
        return self._mean_nll(logp, target)

    def _mean_nll(self, logp: Any, target: Any) -> float:
        xp = self.xp
        n, c = logp.shape
        picked = logp[xp.arange(n), target]
        nll = -float(picked.sum()) / n
        if self.label_smoothing:
            eps = self.label_smoothing
            nll = (1 - eps) * nll - eps * float(logp.sum()) / (n * c)
        return nll

    def value_and_gradient(self, pred: Any, target: Any, grad_out: Any) -> float:
        xp = self.xp
        self._check(pred, target)
        n, c = pred.shape
        logp = self._log_softmax(pred, grad_out)
        value = self._mean_nll(logp, target)
        xp.exp(logp, out=grad_out)  # softmax
        eps = self.label_smoothing
        rows = xp.arange(n)
        if eps:
            grad_out -= eps / c
            grad_out[rows, target] -= 1 - eps
        else:
            grad_out[rows, target] -= 1
        grad_out *= 1.0 / n
        return value

    def describe(self) -> dict[str, Any]:
        return {
            "type": "softmax_cross_entropy",
            "label_smoothing": self.label_smoothing,
        }


def _symnb():
    import symnb

    return symnb


def _labels_of(loss: Any) -> tuple[float, ...] | None:
    """The target values ``loss`` is defined on, where it is the library's hinge
    loss (by name or as the same formula), else None (any targets)."""
    signature = getattr(getattr(loss, "internal", None), "signature", None)
    if signature is None:
        return None
    hinge = _symnb().loss("hinge")
    return (-1.0, 1.0) if signature() == hinge.internal.signature() else None


def _check_task_fits(loss: TrainingLoss, task: str | None, spec: Any = None) -> None:
    """A ValueError when the model's ``task`` and the loss's disagree on
    multi-class: a softmax loss for task='binary'/'regression', or a binary or
    regression TrainingLoss for task='multiclass' (the model trained with one
    task's loss and predicted with the other's)."""
    if task is None or (task == "multiclass") == (loss.task == "multiclass"):
        return
    name = spec if spec is not None else loss.name
    if task == "multiclass":
        raise ValueError(
            f"loss {name!r} is a {loss.task} loss, but task='multiclass': "
            "multi-class classification trains with loss='cross_entropy' "
            "(softmax over one output per class); pass loss='cross_entropy'"
        )
    raise ValueError(
        f"loss {name!r} is for multi-class classification (softmax over one "
        f"output per class), but task={task!r}: pass task='multiclass', or for "
        "two classes task='binary' with loss='bce_with_logits' and sizes[-1] = 1"
    )


def resolve_loss(
    spec: Any, task: str | None = None, has_output_activation: bool = False
):
    """A :class:`TrainingLoss` from a name, a ``symnb.Loss`` or a TrainingLoss."""
    if isinstance(spec, TrainingLoss):
        _check_task_fits(spec, task)
        return spec
    if spec is None:
        spec = "mse"
    if isinstance(spec, str):
        key = spec.strip().lower().replace("-", "_")
        if key in _SOFTMAX_NAMES:
            result = SoftmaxCrossEntropy()
            _check_task_fits(result, task, spec)
            return result
        symnb = _symnb()
        lib = {"mse": "mse", "l2": "mse", "mae": "mae", "l1": "mae"}.get(key, key)
        if key in _PROB_NAMES:
            lib = "bce"
        if key in _LOGIT_NAMES:  # 'logistic' was listed here yet "unknown loss"
            lib = "bce_with_logits"
        if task == "multiclass" and (key in _PROB_NAMES or key in _LOGIT_NAMES):
            # built a sigmoid/bce network that trained one 0/1 output per class
            # against the class labels (n,) without a word
            raise ValueError(
                f"loss {spec!r} is binary cross-entropy, for two classes "
                "(task='binary', one output); task='multiclass' trains with "
                "loss='cross_entropy' (softmax over one output per class): pass "
                "loss='cross_entropy', or task='binary' with sizes[-1] = 1"
            )
        try:
            loss = symnb.loss(lib)
        except (KeyError, ValueError) as exc:
            from .layers import _did_you_mean

            text = spec.strip()
            if "y_pred" in text and not text.isidentifier():
                # a formula text, as activation= takes one in x ('(y_pred-y_true)**4'
                # was "unknown loss")
                formula = symnb.Loss(text, name=text)
                return resolve_loss(formula, task, has_output_activation)
            names = [*symnb.library_losses(), "cross_entropy"]
            raise ValueError(
                f"unknown loss {spec!r}: {_did_you_mean(key, names)}use 'cross_entropy' (softmax, "
                f"multi-class), a library loss ({', '.join(names[:-1])}), a formula "
                "text in y_pred and y_true such as '(y_pred - y_true)**4', or a "
                "symnb.Loss"
            ) from exc
        if key in _LOGIT_NAMES:
            result = ElementwiseLoss(loss, task="binary", logits=True)
        elif key in _PROB_NAMES:
            result = ElementwiseLoss(loss, task="binary", logits=False)
        elif task == "multiclass":
            # said "ElementwiseLoss: task must be 'regression' or 'binary'", a class
            # MLP(task='multiclass') users never named
            raise ValueError(
                f"task='multiclass' trains with loss='cross_entropy' (softmax over "
                f"the classes); loss {spec!r} is an elementwise loss for "
                "task='regression' or 'binary': pass loss='cross_entropy'"
            )
        else:
            result = ElementwiseLoss(
                loss, task=task or "regression", logits=not has_output_activation
            )
        result.library_name = lib
        return result
    if isinstance(spec, _symnb().Activation):
        raise TypeError(
            f"loss is an Activation ({getattr(spec, 'name', spec)!r}), not a loss: "
            "give a loss name such as 'mse' or 'bce_with_logits', or a "
            "symnb.Loss('...', name=...) of the prediction and the target; an "
            "activation belongs in activation= or output="
        )
    if hasattr(spec, "compile") and hasattr(spec, "expr"):
        t = task or "regression"
        if t == "multiclass":
            raise ValueError(
                "an elementwise symnb.Loss cannot be a multi-class loss here; use "
                "loss='cross_entropy' (softmax) for multi-class classification"
            )
        return ElementwiseLoss(spec, task=t, logits=not has_output_activation)
    raise TypeError(f"a loss is a name, a symnb.Loss or a TrainingLoss, not {spec!r}")
