"""Browser-drawn views: ``anywidget`` models whose pictures are drawn by ES modules
shipped next to this file (``widgets.js``, ``widgets.css``; no build step).

Python sends only data: float32 arrays as ``traitlets.Bytes`` (a DataView in the
browser), small lists and numbers. The browser draws on ``<canvas>``/SVG in
``requestAnimationFrame`` and answers with messages (a weight edited, a neuron added,
a frame drawn), which the owning widget handles.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import traitlets as T

try:  # anywidget is a dependency; the message names the fix if it is missing
    import anywidget
except ImportError as exc:  # pragma: no cover - exercised only without anywidget
    raise ImportError(
        "symnb's widgets need anywidget: pip install anywidget (or pip install symnb)"
    ) from exc

HERE = Path(__file__).parent


def f32(values: Any) -> bytes:
    """The float32 bytes of an array (NaN/inf kept: the browser greys them out)."""
    return np.ascontiguousarray(np.asarray(values, dtype=np.float32)).tobytes()


def decimate(values: np.ndarray, limit: int = 1000) -> tuple[np.ndarray, int]:
    """At most ``limit`` points of a long curve (every k-th, the last one kept) and k."""
    n = len(values)
    if n <= limit:
        return values, 1
    step = -(-n // limit)
    picked = values[::step]
    if (n - 1) % step:
        picked = np.append(picked, values[-1])
    return picked, step


class _MessageMixin:
    """Routes ``model.send({...})`` messages from the browser to one handler."""

    def listen(self, handler: Callable[[dict], Any]) -> None:
        def route(_widget: Any, content: Any, _buffers: Any) -> None:
            if isinstance(content, dict):
                handler(content)

        self.on_msg(route)  # type: ignore[attr-defined]


class PlaygroundView(_MessageMixin, anywidget.AnyWidget):
    """The network (inputs, neurons with their maps, weight lines), the output map
    with the points and a colour legend, and the loss curves of a Playground."""

    _esm = HERE / "widgets.js"
    _css = HERE / "widgets.css"
    view = T.Unicode("playground").tag(sync=True)

    # structure (changes rarely)
    features = T.List(T.Unicode()).tag(sync=True)
    hidden = T.List(T.Int()).tag(sync=True)
    layer_activations = T.List(T.Unicode()).tag(sync=True)
    neuron_activations = T.List(T.List(T.Unicode())).tag(sync=True)
    activation_options = T.List(T.Unicode()).tag(sync=True)
    max_layers = T.Int(6).tag(sync=True)
    max_neurons = T.Int(8).tag(sync=True)
    ack = T.Int(0).tag(sync=True)
    problem = T.Unicode("classification").tag(sync=True)
    # data (changes on reset)
    grid = T.Int(100).tag(sync=True)
    neuron_grid = T.Int(30).tag(sync=True)
    extent = T.List(T.Float(), default_value=[-6.0, 6.0, -6.0, 6.0]).tag(sync=True)
    input_maps = T.Bytes(b"").tag(sync=True)
    train_points = T.Bytes(b"").tag(sync=True)
    test_points = T.Bytes(b"").tag(sync=True)
    # frames (change while training)
    output_map = T.Bytes(b"").tag(sync=True)
    neuron_maps = T.Bytes(b"").tag(sync=True)
    weights = T.Bytes(b"").tag(sync=True)
    loss_train = T.Bytes(b"").tag(sync=True)
    loss_test = T.Bytes(b"").tag(sync=True)
    loss_step = T.Int(1).tag(sync=True)
    epoch = T.Int(0).tag(sync=True)
    frame = T.Int(0).tag(sync=True)
    backend_text = T.Unicode("").tag(sync=True)
    # view settings
    show_test = T.Bool(False).tag(sync=True)
    discretize = T.Bool(False).tag(sync=True)
    presentation = T.Bool(False).tag(sync=True)


class CurveView(_MessageMixin, anywidget.AnyWidget):
    """Curves y(x) on shared axes (f, f', comparison activations) with a hover
    readout; an error text keeps the last good curves on screen."""

    _esm = HERE / "widgets.js"
    _css = HERE / "widgets.css"
    view = T.Unicode("curves").tag(sync=True)

    xs = T.Bytes(b"").tag(sync=True)
    #: one float32 buffer of len(names) * len(xs) values, curve after curve
    ys = T.Bytes(b"").tag(sync=True)
    names = T.List(T.Unicode()).tag(sync=True)
    colours = T.List(T.Unicode()).tag(sync=True)
    dashed = T.List(T.Bool()).tag(sync=True)
    title = T.Unicode("").tag(sync=True)
    error = T.Unicode("").tag(sync=True)
    #: the constants' sliders: [{"name", "value", "min", "max", "step"}, ...]
    constants = T.List(T.Dict()).tag(sync=True)
    frame = T.Int(0).tag(sync=True)
    presentation = T.Bool(False).tag(sync=True)
