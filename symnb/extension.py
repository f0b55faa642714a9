"""IPython extension entry points: ``%load_ext symnb`` and ``%unload_ext symnb``.

Tiny and lazy: nothing heavy is imported until the extension is loaded.
"""

from __future__ import annotations

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    """Register the ``%%symact`` and ``%symnb`` magics in ``ipython``."""
    from symnb.notebook import state
    from symnb.notebook.magics import SymnbMagics

    ipython.register_magics(SymnbMagics)
    state.loaded = True


def unload_ipython_extension(ipython: Any) -> None:
    """Remove the magics registered by :func:`load_ipython_extension`."""
    from symnb.notebook import state
    from symnb.notebook.magics import SymnbMagics

    manager = ipython.magics_manager
    for kind, names in SymnbMagics.magics.items():
        table = manager.magics.get(kind, {})
        for name in names:
            table.pop(name, None)
    manager.registry.pop(SymnbMagics.__name__, None)
    state.reset()  # defaults of a fresh kernel; loaded = False
