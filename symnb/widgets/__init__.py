"""ipywidgets faces of symnb: a live activation editor and a TensorFlow-Playground-like
trainer.

>>> from symnb.widgets import ActivationEditor, Playground   # doctest: +SKIP
>>> ActivationEditor("x*sigmoid(beta*x)")                    # doctest: +SKIP
>>> Playground(config={"dataset": "spiral", "hidden": [8, 8]})  # doctest: +SKIP

Both are ``ipywidgets.VBox`` subclasses, usable without a browser: set the child
widgets' values, click their buttons (``button.click()``), read the results. When a
notebook runs headless they also carry a PNG picture in their display data.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ActivationEditor", "Playground", "register_activation"]


def __getattr__(name: str) -> Any:
    # lazily: ipywidgets and matplotlib load only when a widget is asked for
    if name == "ActivationEditor":
        from .editor import ActivationEditor

        return ActivationEditor
    if name == "Playground":
        from .playground import Playground

        return Playground
    if name == "register_activation":
        from ._common import register_activation

        return register_activation
    raise AttributeError(f"module 'symnb.widgets' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
