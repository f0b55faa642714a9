"""Interop: symnb activations in other people's code.

* :mod:`symnb.interop.torch`: ``torch.nn.Module``s over a PyTorch custom operator that
  runs symnb's compiled kernels on the tensors' own memory (``Activation.to_torch``,
  ``symnb.to_torch_layer``, ``MLP.to_torch``);
* :mod:`symnb.interop.jax`: a ``jax.numpy`` lowering with symnb's derivative as a
  ``jax.custom_jvp`` (``Activation.to_jax``);
* :mod:`symnb.interop.source`: a self-contained C++/CUDA header with f and f'
  (``Activation.to_source``);
* :mod:`symnb.interop.numba`: scalar f and f' for ``numba.njit`` and ``numba.cuda``
  (``Activation.to_numba``).

This layer stands above the backends; nothing in the core imports it. Each optional
dependency is imported only when its face is used.
"""

from __future__ import annotations

import importlib
from typing import Any

#: optional module -> the extra that installs it
EXTRAS = {"torch": "torch", "jax": "jax", "numba": "numba"}


def require(module: str) -> Any:
    """Import an optional dependency, or raise a one-line ImportError naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        extra = EXTRAS.get(top, top)
        raise ImportError(
            f"{top} is not installed ({exc}); install it with: pip install symnb[{extra}]"
        ) from None
