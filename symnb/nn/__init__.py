"""symnb.nn: train small networks with symnb activations and losses.

The kernels compiled for an activation (forward and derivative, fused) are the ones that
train; matrix products run in NumPy (CuPy on the GPU). Everything here is
classroom-sized: one concept per class, ``parameters()``, ``__call__``, ``__repr__``.

>>> import symnb
>>> from symnb import datasets
>>> X, y = datasets.two_moons(400, seed=0)
>>> model = symnb.nn.MLP([2, 16, 16, 1], activation="tanh", loss="bce_with_logits")
>>> history = model.fit(X, y, epochs=30, lr=0.01)          # doctest: +SKIP

Public names: :class:`MLP`, :func:`load`, :class:`SGD`, :class:`Adam`, :class:`History`,
:class:`Callback`, :class:`LambdaCallback`, :class:`EarlyStopping`,
:class:`TrainingDiverged`, :class:`MLPClassifier`, :class:`MLPRegressor`,
:func:`compare`, :func:`search`, :class:`Leaderboard`, :class:`RunStore`,
:class:`LiveProgress`, and the modules ``init``, ``metrics``,
``optim``.
"""

from __future__ import annotations

from typing import Any

from . import init, metrics, optim

# eager (light: NumPy only): a lazy attribute would be shadowed by the submodule of the
# same name once another module imports ``symnb.nn.compare``
from .compare import CompareResult, compare
from .layers import Dense, LayerActivation
from .losses import ElementwiseLoss, SoftmaxCrossEntropy, TrainingLoss
from .model import MLP, load
from .optim import SGD, Adam, Optimizer, Parameter, Parameters
from .train import (
    Callback,
    EarlyStopping,
    History,
    LambdaCallback,
    StopTraining,
    TrainingDiverged,
)

__all__ = [
    "MLP",
    "SGD",
    "Adam",
    "Callback",
    "CompareResult",
    "Dense",
    "EarlyStopping",
    "ElementwiseLoss",
    "History",
    "LambdaCallback",
    "LayerActivation",
    "Leaderboard",
    "LiveProgress",
    "MLPClassifier",
    "MLPRegressor",
    "Optimizer",
    "Parameter",
    "Parameters",
    "RunStore",
    "SoftmaxCrossEntropy",
    "StopTraining",
    "TrainingDiverged",
    "TrainingLoss",
    "compare",
    "init",
    "load",
    "metrics",
    "optim",
    "search",
]

_LAZY = {
    "MLPClassifier": ("estimators", "MLPClassifier"),
    "MLPRegressor": ("estimators", "MLPRegressor"),
    "LiveProgress": ("live", "LiveProgress"),
    "search": ("activation_search", "search"),
    "Leaderboard": ("activation_search", "Leaderboard"),
    "RunStore": ("store", "RunStore"),
}


def __getattr__(name: str) -> Any:
    # estimators import scikit-learn (slow, optional); live imports matplotlib
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
