"""IPython faces of symnb: the ``%%symact`` / ``%symnb`` magics and their rich output.

``%load_ext symnb`` (or ``%load_ext symnb.notebook``) registers the magics; see
:mod:`symnb.notebook.magics` for the options and :mod:`symnb.notebook.syntax` for the
definition language. Nothing heavy is imported here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["load_ipython_extension", "unload_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics (same as ``%load_ext symnb``)."""
    from symnb.extension import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the magics."""
    from symnb.extension import unload_ipython_extension as unload

    unload(ipython)
