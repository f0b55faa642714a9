"""symnb: a notebook laboratory for activation and loss functions.

Type a formula, see f and f' as LaTeX and plots, compile forward and derivative kernels
(CUDA through CuPy, C++/OpenMP through g++, or NumPy), and train small networks with them.
Importing symnb needs neither IPython nor ipywidgets: only the notebook faces import them.
"""

from __future__ import annotations

from typing import Any

from symnb.backends.kernel import Kernel, LayerKernel, LossKernel
from symnb.backends.select import compile_layer
from symnb.errors import (
    BackendUnavailable,
    CompileError,
    FormulaError,
    ModelFileError,
    SymnbError,
)
from symnb.formula.formula import (
    Activation,
    Learnable,
    Loss,
    activation,
    learnable,
    loss,
)
from symnb.formula.library import activation_names as library_activations
from symnb.formula.library import loss_names as library_losses

__version__ = "0.1.0"

_LAZY = {
    "nn": "symnb.nn",
    "datasets": "symnb.datasets",
    "widgets": "symnb.widgets",
    "backends": "symnb.backends",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return importlib.import_module(_LAZY[name])
    hint = _HINTS.get(name)
    raise AttributeError(
        f"module 'symnb' has no attribute {name!r}" + (f"; {hint}" if hint else "")
    )


# names a newcomer reaches for (the top-level compile is a method of the formula)
_HINTS = {
    name: "compile a formula with its own method, e.g. "
    "symnb.Activation('x*tanh(x)').compile(backend='cpp') or "
    "symnb.loss('mse').compile(); a per-neuron layer with symnb.compile_layer([...])"
    for name in ("compile", "compile_activation", "compile_loss")
}


def to_torch_layer(activations: Any, dim: int = -1, **options: Any) -> Any:
    """A ``torch.nn.Module``: feature j along ``dim`` uses ``activations[j]``
    (``dim=1``: per-channel in a CNN); see ``symnb.interop.torch.to_torch_layer``."""
    from symnb.interop.torch import to_torch_layer as build

    return build(activations, dim=dim, **options)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext symnb``: register the magics (IPython is imported only here)."""
    from symnb.extension import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext symnb``: remove the magics."""
    from symnb.extension import unload_ipython_extension as unload

    unload(ipython)


__all__ = [
    "Activation",
    "BackendUnavailable",
    "CompileError",
    "FormulaError",
    "Kernel",
    "LayerKernel",
    "Learnable",
    "Loss",
    "LossKernel",
    "ModelFileError",
    "SymnbError",
    "activation",
    "compile_layer",
    "learnable",
    "library_activations",
    "library_losses",
    "loss",
    "to_torch_layer",
]
