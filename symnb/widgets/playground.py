"""``Playground``: TensorFlow Playground inside the notebook, with formula activations.

The controls follow TensorFlow Playground (data set, noise, train/test ratio, batch
size, regenerate; input features; hidden layers and neurons; activation, learning rate,
regularisation and its rate; Play, Pause, Step, Reset and the epoch counter). The
pictures (network with weight lines, every neuron's map, the output map with the
points, a colour legend, the loss curves) are drawn by the browser
(:class:`~symnb.widgets.view.PlaygroundView`); Python sends float32 snapshots.

Beyond the original: any activation of the library or defined in the notebook can be
chosen per layer and per neuron; optimizer, backend and device are choices; ``speed``
sets epochs per second; a data set can be typed as a condition or formula in x1, x2,
or given as arrays (``Playground(data=(X, y))``); ``presentation=True`` is a projector
layout.

Threads: training runs in a background thread (widget events are not processed while a
cell runs). One lock covers every epoch and every read of the model: each view update
is an immutable :class:`Snapshot` taken under it, so toggling a view setting while
training never sees a half-updated history. Changing an activation or the network
keeps training on a model that is ready at once (the numpy backend) while the model for
the chosen backend compiles in the background and is swapped in between epochs.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import dataclasses
import itertools
import math
import numbers
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import ipywidgets as W
import numpy as np

from symnb.checks import MAX_EPOCHS, check_flag

from . import data, plots
from ._common import (
    ErrorSink,
    backend_choices,
    check_offered_activation,
    check_widget_options,
    close_tree,
    constant_value,
    device_argument,
    device_choices,
    error_html,
    escape,
    user_activations,
)
from .data_source import DataSource
from .playground_config import (
    DEFAULT_CONFIG,
    LEARNING_RATES,
    MAX_LAYERS,
    MAX_NEURONS,
    MIN_SPEED,
    OPTIMIZERS,
    PROBLEMS,
    REGULARIZATION_RATES,
    REGULARIZATIONS,
    PlaygroundConfigError,
    check_speed,
    normalize_config,
)
from .throttle import check_seconds
from .view import PlaygroundView, decimate, f32

__all__ = [
    "DEFAULT_CONFIG",
    "MAX_EPOCHS",
    "MAX_LAYERS",
    "MAX_NEURONS",
    "OPTIMIZERS",
    "PROBLEMS",
    "Playground",
    "PlaygroundConfigError",
    "Snapshot",
    "normalize_config",
]

#: The input plane shown in the maps (the data lie in about [-6, 6]^2).
EXTENT = (-6.0, 6.0, -6.0, 6.0)
#: Output map resolution (points per side) and neuron map resolution.
GRID = 100
NEURON_GRID = 30
#: Largest share of the kernel's time spent preparing view updates while training.
VIEW_SHARE = 0.2
#: Longest wait of a change of the network for the running epoch (seconds).
REBUILD_WAIT = 0.25
#: Speed slider choices (epochs per second; the slider's 0 is "max": no limit).
SPEEDS = (1, 2, 5, 10, 20, 50, 100, 300)
# MAX_EPOCHS (symnb.checks, the limit of one fit too) is the most epochs trained
# between two resets: the loss history keeps one entry per epoch, and every frame
# copies it, so an unbounded run (``train(10**12)``, or ``play()`` left overnight at
# about 1000 epochs/s) grew memory and frame time without end. ``train``/``play``
# asking for more raise; ``play()`` stops there.


# ------------------------------------------------------------------------------------
# The two calls into symnb.nn (module functions, so tests can substitute them)
# ------------------------------------------------------------------------------------


def build_model(
    sizes: list[int],
    activations: list[Any],
    loss: str,
    backend: str,
    seed: int,
    **device: Any,
) -> Any:
    """``symnb.nn.MLP`` for the playground's network."""
    from symnb import nn

    return nn.MLP(
        sizes, activation=activations, loss=loss, backend=backend, seed=seed, **device
    )


def build_optimizer(name: str, parameters: Any, learning_rate: float) -> Any:
    """``symnb.nn.SGD`` (plain or with momentum 0.9) or ``symnb.nn.Adam``."""
    from symnb import nn

    if name == "adam":
        return nn.Adam(parameters, lr=learning_rate)
    if name == "momentum":
        return nn.SGD(parameters, lr=learning_rate, momentum=0.9)
    return nn.SGD(parameters, lr=learning_rate)


def _options(values: tuple[float, ...], current: float) -> list[tuple[str, float]]:
    vals = sorted(set(values) | {float(current)})
    return [(f"{v:g}", v) for v in vals]


def _speed_options(current: float | None) -> list[tuple[str, float | None]]:
    vals = sorted(set(SPEEDS) | ({float(current)} if current else set()))
    return [(f"{v:g}/s", float(v)) for v in vals] + [("max", 0.0)]


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """One view update, copied under the training lock (never shared with training).

    ``output`` is the output over the ``GRID``x``GRID`` plane in [-1, 1] (row 0 at the
    bottom); ``neurons`` the hidden outputs over the ``NEURON_GRID`` plane, one row per
    neuron; ``weights`` the weight matrices (fan_in, fan_out) of every layer.
    """

    epoch: int
    train: np.ndarray
    test: np.ndarray
    output: np.ndarray | None
    neurons: np.ndarray
    weights: tuple[np.ndarray, ...]
    backend: str


def _weights_of(model: Any) -> list[Any]:
    """The weight matrices of a model (views, to read or write under the lock)."""
    out = []
    for p in model.parameters():
        name = getattr(p, "name", None)
        if name is None:  # a bare array (test stand-ins)
            if getattr(p, "ndim", 0) == 2:
                out.append(p)
        elif str(name).endswith(".weight"):
            out.append(p.data)
    return out


def _host(a: Any) -> Any:
    """A NumPy array from a NumPy or CuPy array."""
    get = getattr(a, "get", None)
    return get() if callable(get) else a


def _loss_of(model: Any, X: np.ndarray, y: np.ndarray) -> float:
    """The model's loss on (X, y), without computing metrics the widget does not show."""
    try:
        result = model.evaluate(X, y, metrics=[])
    except TypeError:  # an evaluate without the metrics option
        result = model.evaluate(X, y)
    return float(result["loss"])


def _checked_activations(activations: Any) -> dict[str, Any]:
    """``activations`` ({name: symnb.Activation or library name}) checked now, not
    when a menu first offers one and training fails."""
    if activations is None:
        return {}
    if not isinstance(activations, dict):
        raise TypeError(
            "Playground: activations must be a dict {name: symnb.Activation}, e.g. "
            "{'xtanh': symnb.Activation('x*tanh(x)', name='xtanh')}; got "
            f"{type(activations).__name__}"
        )
    for key, act in activations.items():
        check_offered_activation(act, f"Playground: activations[{key!r}]", key)
    return dict(activations)


def _timeout(value: Any, what: str) -> float | None:
    """A timeout in seconds: None (no limit) or a finite number >= 0. pause('1')
    or wait(nan) returned True while nothing ran, and raised from inside
    ``threading`` once a training thread was there to join."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{what}: timeout must be a number of seconds or None, got {value!r:.60}"
        )
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(
            f"{what}: timeout must be a finite number of seconds >= 0 (or None: no "
            f"limit), got {value!r}"
        )
    return float(value)


def _index(value: Any, what: str) -> int:
    """An integer index (NumPy integers too; not bools, floats or text)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer index, not {value!r}")
    return int(value)


def _message_field(msg: dict, key: str, kind: type, default: Any = ...) -> Any:
    """Field ``key`` of a message from the browser view, of type ``kind`` (an int
    field takes a whole float, as JavaScript numbers are floats). A missing or
    mistyped field is a ValueError that says so (the message came from a view of
    another symnb version, e.g. a page not reloaded after an upgrade), not a
    KeyError or "'>' not supported between 'str' and 'int'"."""
    value = msg.get(key, default)
    ok = False
    if kind is str:
        ok = isinstance(value, str)
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        ok = math.isfinite(value) and (kind is float or float(value).is_integer())
    if not ok:
        raise ValueError(
            f"the view sent a message {msg.get('kind')!r} with "
            + (f"no {key!r}" if value is ... else f"{key}={value!r}")
            + f", not {'text' if kind is str else f'a finite {kind.__name__}'}; if "
            "symnb was upgraded, reload the page"
        )
    return kind(value)


def _check_weight_index(
    shapes: list[tuple[int, ...]], layer: int, source: int, target: int
) -> None:
    if not 0 <= layer < len(shapes):
        raise IndexError(
            f"set_weight: layer {layer} does not exist: the network has "
            f"{len(shapes)} weight matrices (0: from the inputs)"
        )
    rows, cols = shapes[layer][:2]
    if not (0 <= source < rows and 0 <= target < cols):
        raise IndexError(
            f"set_weight: weight ({source}, {target}) is outside layer "
            f"{layer}'s {rows} x {cols} matrix"
        )


def _epoch_count(epochs: Any, what: str, minimum: int, done: int) -> int:
    """A number of epochs >= ``minimum`` for ``train``/``play`` that keeps the
    epochs since the last reset (``done`` so far) within :data:`MAX_EPOCHS`."""
    if (
        isinstance(epochs, bool)
        or not isinstance(epochs, (int, np.integer))
        or epochs < minimum
    ):
        raise ValueError(
            f"{what}: epochs must be an integer >= {minimum}, got {epochs!r}; e.g. "
            f"{what}(10)"
        )
    left = MAX_EPOCHS - done
    if epochs > left:
        raise ValueError(
            f"{what}: epochs={int(epochs)} is more than the {left} left of the "
            f"Playground's limit of {MAX_EPOCHS} epochs between resets (MAX_EPOCHS; "
            f"{done} trained so far); ask for at most {left}, or call reset() first"
        )
    return int(epochs)


_EPOCH_LIMIT_TEXT = (
    f"training paused: the Playground trains at most {MAX_EPOCHS} epochs between "
    "resets (MAX_EPOCHS); press Reset to start again"
)


class Playground(W.VBox):
    """A live trainer of small networks on 2-D data, like TensorFlow Playground.

    Parameters
    ----------
    config:
        A setup as returned by :attr:`config` (missing keys take the defaults).
    activations:
        Extra activations to offer, by name (``symnb.Activation`` objects); activations
        defined in the notebook and in editors are found by themselves.
    data:
        Your own data ``(X, y)``: X of shape (n, 2), or (n, d) projected on its two
        principal directions for display; y labels (two classes) or numbers
        (regression). Replaces the data set choice.
    presentation:
        Projector layout: large fonts and maps, fits 1280x720 (also a toggle).
    refresh_interval:
        Minimum seconds between two updates of the epoch counter and loss numbers.
    frame_interval:
        Minimum seconds between two view updates while training (default 0.03: up to
        33 a second; fewer when the browser reports drawing slower).
    plot_interval:
        Old name of ``frame_interval``.

    Public surface: :meth:`play`, :meth:`pause`, :meth:`step`, :meth:`train`,
    :meth:`reset`, :meth:`set_view`, :attr:`speed`, :attr:`errors`, :meth:`stats`,
    :attr:`config`, :meth:`to_code`, :meth:`add_layer`, :meth:`remove_layer`,
    :meth:`add_neuron`, :meth:`remove_neuron`, :meth:`set_activation`,
    :meth:`set_weight`.
    """

    def __init__(
        self,
        config: dict[str, Any] | None = None,
        activations: dict[str, Any] | None = None,
        data: tuple[Any, Any] | None = None,
        presentation: bool = False,
        refresh_interval: float = 0.25,
        frame_interval: float = 0.03,
        plot_interval: float | None = None,
        **kwargs: Any,
    ) -> None:
        check_widget_options(Playground, kwargs)
        cfg = normalize_config(config)
        presentation = check_flag(presentation, "Playground: presentation")
        refresh_interval = check_seconds(refresh_interval, "refresh_interval")
        if plot_interval is not None:
            frame_interval = check_seconds(plot_interval, "plot_interval")
        frame_interval = check_seconds(frame_interval, "frame_interval")
        if data is not None and (not isinstance(data, (tuple, list)) or len(data) != 2):
            raise TypeError(
                "Playground: data must be a pair (X, y) of arrays, got "
                f"{type(data).__name__}"
                + (f" of length {len(data)}" if isinstance(data, (tuple, list)) else "")
            )
        source = DataSource.from_arrays(*data) if data is not None else None
        if source is None and cfg["dataset"] == "formula":
            source = DataSource.from_formula(cfg["data_formula"])
        self._closed = False  # close() sets it
        self._lock = threading.RLock()
        self._send_lock = threading.Lock()  # one view update at a time
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._builder: threading.Thread | None = None
        self._generation = 0
        self._silent = 0
        self._source = source
        self.refresh_interval = refresh_interval
        self.frame_interval = frame_interval
        self._custom: dict[str, Any] = _checked_activations(activations)
        self._custom_specs: dict[str, dict] = {}
        #: the last definition of each notebook/editor activation the network used
        self._seen: dict[str, Any] = {}
        self._model: Any = None
        self._optimizer: Any = None
        self._optimizer_stale = False  # another optimizer chosen during an epoch
        self._pending_lock = threading.Lock()
        #: a rebuild asked for during a long epoch: keep the weights (True) or not
        self._pending_rebuild: bool | None = None
        #: weight edits (layer, source, target, value) made during a long epoch
        self._pending_weights: list[tuple[int, int, int, float]] = []
        self._data: dict[str, np.ndarray] = {}
        self._epoch = 0
        self._history: dict[str, list[float]] = {"train": [], "test": []}
        self._hidden: list[int] = []
        self._layer_acts: list[str] = []
        self._neuron_acts: list[list[str | None]] = []
        self._data_seed = 0
        self._seed = 0
        self._speed: float | None = None
        self._frames = 0
        self._frames_drawn = 0
        self._acked_frame = 0  # the newest frame number the browser drew
        self._view_cost = 0.0  # running mean of the seconds one view update takes
        self._activation_seq: dict[tuple, int] = {}  # newest activation message
        self._last_ack = 0.0
        self._last_frame = 0.0
        self._last_text = 0.0
        self._train_seconds = 0.0
        self._draw_seconds = 0.0
        self._build_widgets(presentation)
        super().__init__(self._layout(), **kwargs)
        self.add_class("symnb-playground")
        self.set_config(cfg)

    # ================================================================== widgets
    def _build_widgets(self, presentation: bool) -> None:
        self.output = W.Output(layout=W.Layout(max_height="200px", overflow="auto"))
        self.output.add_class("symnb-output")
        self._sink = ErrorSink(self.output)
        g = self._sink.guard

        def cls(widget: W.Widget, name: str) -> W.Widget:
            widget.add_class(name)
            return widget

        small = W.Layout(width="auto")
        wide = {"style": {"description_width": "initial"}}

        def button(name: str, **kwargs: Any) -> W.Button:
            kwargs.setdefault("layout", small)
            return cls(W.Button(**kwargs), name)

        def dropdown(name: str, description: str, width: str, **kwargs: Any):
            return cls(
                W.Dropdown(
                    description=description,
                    layout=W.Layout(width=width),
                    **wide,
                    **kwargs,
                ),
                name,
            )

        self.reset_button = button(
            "symnb-reset", description="Reset", icon="undo", tooltip="new weights"
        )
        self.play_button = button(
            "symnb-play", description="Play", icon="play", button_style="success"
        )
        self.pause_button = button(
            "symnb-pause",
            description="Pause",
            icon="pause",
            button_style="warning",
            disabled=True,
        )
        self.step_button = button(
            "symnb-step", description="Step", icon="step-forward", tooltip="one epoch"
        )
        self.epoch_label = cls(
            W.Label(value="Epoch 0", layout=W.Layout(width="110px")), "symnb-epoch"
        )
        self.speed_slider = cls(
            W.SelectionSlider(
                options=_speed_options(None),
                value=0.0,
                description="Speed",
                continuous_update=False,
                layout=W.Layout(width="260px"),
                **wide,
            ),
            "symnb-speed",
        )
        self.learning_rate = dropdown("symnb-learning-rate", "Learning rate", "170px")
        self.activation = dropdown("symnb-activation", "Activation", "190px")
        self.regularization = dropdown(
            "symnb-regularization", "Regularization", "170px", options=REGULARIZATIONS
        )
        self.regularization_rate = dropdown(
            "symnb-regularization-rate", "Reg. rate", "140px"
        )
        self.problem = dropdown(
            "symnb-problem",
            "Problem",
            "190px",
            options=[
                ("Classification", "classification"),
                ("Regression", "regression"),
            ],
        )
        self.optimizer = dropdown(
            "symnb-optimizer",
            "Optimizer",
            "200px",
            options=[("SGD", "sgd"), ("SGD + momentum", "momentum"), ("Adam", "adam")],
        )
        options, note = backend_choices()
        self.backend = dropdown("symnb-backend", "Backend", "150px", options=options)
        self.device = dropdown(
            "symnb-device", "Device", "170px", options=device_choices("auto")
        )
        self.backend_note = cls(W.HTML(value=note), "symnb-backend-note")
        self.presentation = cls(
            W.ToggleButton(
                value=bool(presentation),
                description="Projector",
                icon="television",
                tooltip="large fonts and maps, fits 1280x720",
                layout=small,
            ),
            "symnb-presentation",
        )

        self.dataset = cls(
            W.ToggleButtons(
                options=data.CLASSIFICATION,
                layout=W.Layout(width="280px"),
                style={"button_width": "128px"},
            ),
            "symnb-dataset",
        )
        self.data_formula = cls(
            W.Text(
                placeholder="x2 > sin(2*x1)  or  x1*x2",
                description="Formula",
                continuous_update=False,
                layout=W.Layout(width="275px"),
            ),
            "symnb-data-formula",
        )

        def slider(name: str, description: str, lo: int, hi: int, step: int = 1):
            return cls(
                W.IntSlider(
                    min=lo,
                    max=hi,
                    step=step,
                    description=description,
                    continuous_update=False,
                    layout=W.Layout(width="275px"),
                ),
                name,
            )

        self.train_percent = slider("symnb-ratio", "Train %", 10, 90, step=10)
        self.noise = slider("symnb-noise", "Noise", 0, 50, step=5)
        self.batch_size = slider("symnb-batch", "Batch", 1, 30)
        self.regenerate_button = button(
            "symnb-regenerate", description="Regenerate", icon="refresh"
        )
        self.feature_boxes: dict[str, W.Checkbox] = {
            name: cls(
                W.Checkbox(
                    value=False,
                    description=data.FEATURE_LABELS[name],
                    indent=False,
                    layout=W.Layout(width="90px"),
                ),
                "symnb-feature",
            )
            for name in data.FEATURES
        }
        # the view shows the losses large; this text copy is for scripts and tests
        self.loss_label = cls(
            W.HTML(value="", layout=W.Layout(display="none")), "symnb-loss"
        )
        self.show_test = cls(
            W.Checkbox(
                value=False,
                description="Show test data",
                indent=False,
                layout=W.Layout(width="140px"),
            ),
            "symnb-show-test",
        )
        self.discretize = cls(
            W.Checkbox(
                value=False,
                description="Discretize output",
                indent=False,
                layout=W.Layout(width="150px"),
            ),
            "symnb-discretize",
        )
        self.status = cls(W.HTML(value=""), "symnb-status")
        self.view = cls(PlaygroundView(presentation=bool(presentation)), "symnb-view")
        self.view.listen(g(self._on_message))

        self.play_button.on_click(g(lambda _b: self.play()))
        self.pause_button.on_click(g(lambda _b: self.pause()))
        self.step_button.on_click(g(lambda _b: self.step()))
        self.reset_button.on_click(g(lambda _b: self.reset()))
        self.regenerate_button.on_click(g(lambda _b: self.regenerate()))
        self.learning_rate.observe(g(self._on_optimizer), names="value")
        self.optimizer.observe(g(self._on_optimizer), names="value")
        self.activation.observe(g(self._on_global_activation), names="value")
        self.problem.observe(g(self._on_problem), names="value")
        self.backend.observe(g(self._on_backend), names="value")
        self.speed_slider.observe(g(self._on_speed), names="value")
        self.presentation.observe(g(self._on_presentation), names="value")
        self.data_formula.observe(g(self._on_data_formula), names="value")
        for w in (self.dataset, self.train_percent, self.noise, self.device):
            w.observe(g(self._on_reset_change), names="value")
        for box in self.feature_boxes.values():
            box.observe(g(self._on_feature), names="value")
        for w in (self.show_test, self.discretize):
            w.observe(g(self._on_view), names="value")

    def _layout(self) -> list[W.Widget]:
        row = W.Layout(flex_flow="row wrap", align_items="center")
        top = W.HBox(
            [
                self.reset_button,
                self.play_button,
                self.pause_button,
                self.step_button,
                self.epoch_label,
                self.speed_slider,
                self.learning_rate,
                self.activation,
                self.regularization,
                self.regularization_rate,
                self.problem,
            ],
            layout=row,
        )
        top2 = W.HBox(
            [
                self.optimizer,
                self.backend,
                self.device,
                self.presentation,
                self.backend_note,
            ],
            layout=row,
        )
        features = W.HBox(
            [W.HTML("<b>FEATURES</b>&nbsp;"), *self.feature_boxes.values()],
            layout=W.Layout(flex_flow="row wrap", width="280px"),
        )
        self.data_column = W.VBox(
            [
                W.HTML("<b>DATA</b>"),
                self.dataset,
                self.data_formula,
                self.train_percent,
                self.noise,
                self.batch_size,
                self.regenerate_button,
                features,
            ],
            layout=W.Layout(width="285px", flex="0 0 auto"),
        )
        self.view_column = W.VBox(
            [
                self.view,
                W.HBox([self.loss_label, self.show_test, self.discretize], layout=row),
            ],
            layout=W.Layout(flex="1 1 560px", min_width="0"),
        )
        self.body = W.HBox(
            [self.data_column, self.view_column],
            layout=W.Layout(align_items="flex-start", flex_flow="row wrap"),
        )
        return [top, top2, self.body, self.status, self.output]

    @contextlib.contextmanager
    def _quiet(self) -> Iterator[None]:
        """Set widget values without their callbacks running."""
        self._silent += 1
        try:
            yield
        finally:
            self._silent -= 1

    @staticmethod
    def _grid_points(n: int) -> np.ndarray:
        xs = np.linspace(EXTENT[0], EXTENT[1], n)
        ys = np.linspace(EXTENT[2], EXTENT[3], n)
        gx, gy = np.meshgrid(xs, ys)
        return np.stack([gx.ravel(), gy.ravel()], 1)

    # ================================================================== public state
    @property
    def epoch(self) -> int:
        """Epochs trained since the last reset."""
        return self._epoch

    @property
    def history(self) -> dict[str, list[float]]:
        """``{"train": [...], "test": [...]}``: the losses after each epoch (a copy)."""
        with self._lock:
            return {k: list(v) for k, v in self._history.items()}

    @property
    def errors(self) -> list[BaseException]:
        """The exceptions shown to the user since the last reset (empty: all is well)."""
        return list(self._sink.exceptions)

    @property
    def speed(self) -> float | None:
        """Epochs per second while playing; ``None`` trains as fast as possible."""
        return self._speed

    @speed.setter
    def speed(self, value: float | None) -> None:
        speed = check_speed(value)
        self._speed = speed
        with self._quiet():
            self.speed_slider.options = _speed_options(speed)
            self.speed_slider.value = speed or 0.0

    def stats(self) -> dict[str, Any]:
        """Counters: ``epoch``, ``frames`` (view updates sent), ``frames_drawn`` (those
        the browser reported drawn), ``train_seconds`` and ``draw_seconds`` (kernel time
        spent training and preparing views), ``backend`` and ``running``."""
        model = self._model
        return {
            "epoch": self._epoch,
            "frames": self._frames,
            "frames_drawn": self._frames_drawn,
            "train_seconds": self._train_seconds,
            "draw_seconds": self._draw_seconds,
            "backend": str(getattr(model, "backend", None) or ""),
            "compiling": self._builder is not None and self._builder.is_alive(),
            "running": self.is_running,
            "speed": self._speed,
        }

    def set_view(
        self,
        show_test: bool | None = None,
        discretize: bool | None = None,
        presentation: bool | None = None,
    ) -> None:
        """Change how the view draws (never touches training; safe while playing)."""
        for name, value in (
            ("show_test", show_test),
            ("discretize", discretize),
            ("presentation", presentation),
        ):
            if value is None:
                continue
            if not isinstance(value, bool):
                raise TypeError(
                    f"set_view: {name} must be True or False, not {value!r}"
                )
            getattr(self, name).value = value

    # ================================================================== activations
    def activation_names(self) -> list[str]:
        """What the activation dropdowns offer: the library, then user activations."""
        try:
            import symnb

            lib = list(symnb.library_activations())
        except Exception:  # noqa: BLE001 - the core is not importable
            lib = ["relu", "tanh", "sigmoid"]
        first = [n for n in ("tanh", "relu", "sigmoid") if n in lib] + ["linear"]
        names = first + [n for n in lib if n not in first]
        for name in list(user_activations()) + list(self._custom):
            if name not in names:
                names.append(name)
        for spec in self._layer_acts + [
            a for row in self._neuron_acts for a in row if a
        ]:
            if spec not in names:
                names.append(spec)
        return names

    def add_activation(self, activation: Any, name: str | None = None) -> str:
        """Offer ``activation`` (a ``symnb.Activation``) in this playground's menus."""
        self._check_open("add_activation")
        key = str(name or getattr(activation, "name", None) or "custom")
        self._custom.update(_checked_activations({key: activation}))
        self._refresh_activation_options()
        return key

    def _resolve(self, name: str, found: dict[str, Any]) -> Any:
        if name in self._custom:
            return self._custom[name]
        if name in found:
            self._seen[name] = found[name]
            return found[name]
        if name in self._seen:
            # its editor has an error now (a typo while typing) or its variable was
            # deleted: Reset then lost the whole network to "unknown activation"
            act = self._seen[name]
            warnings.warn(
                f"activation {name!r} is no longer defined in the notebook (an "
                "editor whose formula has an error, or a deleted variable); the "
                f"network keeps its last definition, {getattr(act, 'text', act)}",
                stacklevel=2,
            )
            return act
        return name  # a library name: symnb.nn resolves it ("linear" is no activation)

    def _custom_spec(self, name: str, found: dict[str, Any]) -> dict | None:
        obj = self._custom.get(name, found.get(name, self._seen.get(name)))
        text = getattr(obj, "text", None) if obj is not None else None
        if text is None:
            return self._custom_specs.get(name)
        spec: dict[str, Any] = {"formula": str(text), "constants": {}}
        learn: dict[str, str] = {}
        for k, v in dict(getattr(obj, "constants", {}) or {}).items():
            spec["constants"][k] = constant_value(v)
        for k, v in dict(getattr(obj, "learnable", {}) or {}).items():
            learn[k] = str(getattr(v, "per", "layer"))
        if learn:
            spec["learnable"] = learn
        return spec

    def _load_custom(self, customs: dict[str, dict]) -> None:
        import symnb

        for name, spec in customs.items():
            consts: dict[str, Any] = {}
            learn = dict(spec.get("learnable", {}) or {})
            for k, v in dict(spec.get("constants", {}) or {}).items():
                consts[k] = symnb.learnable(v, per=learn[k]) if k in learn else v
            try:
                act = symnb.Activation(spec["formula"], name=name, **consts)
            except Exception as exc:
                raise PlaygroundConfigError(
                    f"playground setting 'custom_activations': {name!r}: {exc}"
                ) from exc
            self._custom[name] = act
            self._custom_specs[name] = copy.deepcopy(spec)

    def _refresh_activation_options(self) -> None:
        names = self.activation_names()
        with self._quiet():
            current = self.activation.value
            self.activation.options = names
            first = self._layer_acts[0] if self._layer_acts else "tanh"
            self.activation.value = (
                current if current in names else (first if first in names else names[0])
            )
        self._send_structure()

    # ================================================================== structure
    def _send_structure(self, ack: int | None = None) -> None:
        """The network's shape and activations to the view (one message)."""
        v = self.view
        with v.hold_sync():
            v.activation_options = self.activation_names()
            v.hidden = list(self._hidden)
            v.layer_activations = list(self._layer_acts)
            v.neuron_activations = [[a or "" for a in row] for row in self._neuron_acts]
            v.features = self._input_names()
            v.max_layers, v.max_neurons = MAX_LAYERS, MAX_NEURONS
            if ack is not None:
                v.ack = max(int(v.ack), int(ack))

    def add_layer(self) -> None:
        """Add a hidden layer of two neurons (its activation: the last layer's).

        The Playground holds at most :data:`MAX_LAYERS` hidden layers: one more raises
        ``ValueError`` (it was ignored without a word); a click in the view beyond it
        shows the message in the status line."""
        self._check_open("add_layer")
        if len(self._hidden) >= MAX_LAYERS:
            raise ValueError(
                f"add_layer: the Playground holds at most {MAX_LAYERS} hidden layers "
                f"and has {len(self._hidden)}; remove one with remove_layer() first "
                "(for deeper networks use symnb.nn.MLP directly)"
            )
        act = self._layer_acts[-1] if self._layer_acts else self.activation.value
        self._hidden.append(2)
        self._layer_acts.append(act or "tanh")
        self._neuron_acts.append([None, None])
        self._structure_changed()

    def remove_layer(self) -> None:
        """Remove the last hidden layer (``ValueError`` when there is none)."""
        self._check_open("remove_layer")
        if not self._hidden:
            raise ValueError(
                "remove_layer: the network has no hidden layer left to remove "
                "(inputs connect straight to the output)"
            )
        self._hidden.pop()
        self._layer_acts.pop()
        self._neuron_acts.pop()
        self._structure_changed()

    def add_neuron(self, layer: int) -> None:
        """Add a neuron to hidden layer ``layer`` (0-based)."""
        self._check_open("add_neuron")
        self._change_neurons(layer, +1)

    def remove_neuron(self, layer: int) -> None:
        """Remove the last neuron of hidden layer ``layer`` (0-based)."""
        self._check_open("remove_neuron")
        self._change_neurons(layer, -1)

    def _layer_index(self, layer: Any) -> int:
        layer = _index(layer, "layer")
        if not 0 <= layer < len(self._hidden):
            raise IndexError(
                f"layer {layer} does not exist: the network has {len(self._hidden)} "
                "hidden layers (0-based)"
            )
        return int(layer)

    def _change_neurons(self, layer: int, delta: int) -> None:
        layer = self._layer_index(layer)
        width = self._hidden[layer] + delta
        if width > MAX_NEURONS:
            raise ValueError(
                f"add_neuron: layer {layer} already has {MAX_NEURONS} neurons, the "
                "most a Playground layer holds (MAX_NEURONS)"
            )
        if width < 1:
            raise ValueError(
                f"remove_neuron: layer {layer} has one neuron left and a layer keeps "
                "at least one; remove the whole layer with remove_layer() instead"
            )
        self._hidden[layer] = width
        if delta > 0:
            self._neuron_acts[layer].append(None)
        else:
            self._neuron_acts[layer].pop()
        self._structure_changed()

    def set_activation(
        self, name: str, layer: int | None = None, neuron: int | None = None
    ) -> None:
        """Set the activation of every layer (``layer=None``), of one layer, or of one
        neuron (``neuron``; ``name=""`` returns it to its layer's). Training goes on."""
        self._check_open("set_activation")
        if not isinstance(name, str):
            raise TypeError(f"an activation is given by its name, not {name!r}")
        if name and name not in self.activation_names():
            raise ValueError(
                f"unknown activation {name!r}; choose from {self.activation_names()}"
            )
        if layer is None:
            if neuron is not None:  # was ignored: every layer changed, choices lost
                raise TypeError(
                    f"set_activation: neuron={neuron!r} needs its layer; give both, "
                    f"e.g. set_activation({name!r}, layer=0, neuron={neuron!r})"
                )
            if not name:
                raise ValueError("give an activation name")
            self._layer_acts = [name] * len(self._hidden)
            self._neuron_acts = [[None] * n for n in self._hidden]
            with self._quiet():
                self.activation.value = name
        elif neuron is None:
            layer = self._layer_index(layer)
            if not name:
                raise ValueError("give an activation name")
            self._layer_acts[layer] = name
            self._neuron_acts[layer] = [None] * self._hidden[layer]
        else:
            layer = self._layer_index(layer)
            neuron = _index(neuron, "neuron")
            if not 0 <= neuron < self._hidden[layer]:
                raise IndexError(
                    f"neuron {neuron} does not exist: layer {layer} has "
                    f"{self._hidden[layer]} neurons (0-based)"
                )
            self._neuron_acts[layer][neuron] = (
                None if name in ("", self._layer_acts[layer]) else name
            )
        self._structure_changed(keep_weights=True)

    def set_weight(self, layer: int, source: int, target: int, value: float) -> None:
        """Set the weight from neuron ``source`` of layer ``layer`` (0: the inputs) to
        neuron ``target`` of the next layer; applied between epochs (while a long
        epoch runs, by the training thread before the next one: the call returns
        after at most :data:`REBUILD_WAIT` seconds)."""
        self._check_open("set_weight")
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"set_weight: value must be a number, not {value!r}")
        value = float(value)
        with np.errstate(over="ignore"):
            held = float(np.float32(value))  # the network's weights are float32
        if not np.isfinite(held):
            # 1e39 became inf in the network: the next epoch diverged
            raise ValueError(
                f"set_weight: a weight must be a finite number that float32 holds "
                f"(at most {float(np.finfo(np.float32).max):.4g} in magnitude), "
                f"not {value!r}"
            )
        layer, source, target = (
            _index(v, name)
            for v, name in ((layer, "layer"), (source, "source"), (target, "target"))
        )
        if not self._lock.acquire(timeout=REBUILD_WAIT):
            if self.is_running:  # a long epoch: checked now, written after it
                sizes = self._layer_sizes()
                shapes = list(itertools.pairwise(sizes))
                _check_weight_index(shapes, layer, source, target)
                with self._pending_lock:
                    self._pending_weights.append((layer, source, target, value))
                return
            self._lock.acquire()
        try:
            self._write_weight(layer, source, target, value)
            snap = self.snapshot()
        finally:
            self._lock.release()
        self._show(snap)

    def _layer_sizes(self) -> list[int]:
        """Inputs, hidden widths, output: the network the view shows."""
        inputs = self._data.get("X_train")
        n_in = inputs.shape[1] if inputs is not None else len(self._input_names())
        return [int(n_in), *self._hidden, 1]

    def _write_weight(self, layer: int, source: int, target: int, value: float) -> None:
        """One weight of the model (the caller holds the lock)."""
        if self._model is None:
            raise RuntimeError("no network: see the error above")
        weights = _weights_of(self._model)
        _check_weight_index([w.shape for w in weights], layer, source, target)
        weights[layer][source, target] = value

    def _structure_changed(self, keep_weights: bool = False, ack: int | None = None):
        """After a change of layers, neurons or activations: the view first (at once),
        then a model that trains at once; playing goes on."""
        self._send_structure(ack)
        self._rebuild(keep_weights=keep_weights)

    # ================================================================== data and model
    def _input_names(self) -> list[str]:
        if self._source is not None and self._source.fixed_inputs:
            return list(self._source.input_names)
        return self.features

    def _make_data(self) -> None:
        problem = self.problem.value
        if self._source is not None:
            X, y = self._source.points(self.noise.value, seed=self._data_seed)
        else:
            X, y = data.generate(
                self.dataset.value, self.noise.value, seed=self._data_seed
            )
        Xtr, ytr, Xte, yte = data.split(
            X, y, self.train_percent.value, seed=self._data_seed
        )

        def target(labels: np.ndarray) -> np.ndarray:
            t = (labels > 0) if problem == "classification" else labels
            return np.ascontiguousarray(np.reshape(t, (-1, 1)), dtype=np.float32)

        def inputs(points: np.ndarray) -> np.ndarray:
            if self._source is not None:
                return self._source.inputs(points, self.features)
            return data.features(points, self.features)

        shown = self._source.shown if self._source is not None else (lambda p: p)
        grid, small = self._grid_points(GRID), self._grid_points(NEURON_GRID)
        self._data = {
            "points_train": shown(Xtr),
            "labels_train": ytr,
            "points_test": shown(Xte),
            "labels_test": yte,
            "X_train": inputs(Xtr),
            "y_train": target(ytr),
            "X_test": inputs(Xte),
            "y_test": target(yte),
            "X_grid": self._plane_inputs(grid),
            "X_small": self._plane_inputs(small),
        }

    def _plane_inputs(self, plane: np.ndarray) -> np.ndarray:
        if self._source is not None:
            return self._source.plane_inputs(plane, self.features)
        return data.features(plane, self.features)

    def _send_data(self) -> None:
        """Points, input maps and the grid sizes: on reset only."""
        d = self._data

        def points(X: np.ndarray, y: np.ndarray) -> bytes:
            labels = np.clip(np.asarray(y, dtype=float), -1, 1)
            return f32(np.column_stack([X[:, :2], labels]) if len(X) else [])

        inputs = d["X_small"]
        v = self.view
        with v.hold_sync():
            v.grid, v.neuron_grid = GRID, NEURON_GRID
            v.problem = self.problem.value
            v.train_points = points(d["points_train"], d["labels_train"])
            v.test_points = points(d["points_test"], d["labels_test"])
            v.input_maps = f32(inputs.T)

    def _model_layers(self) -> tuple[list[int], list[Any], str]:
        found = user_activations()
        layers: list[Any] = []
        for i, width in enumerate(self._hidden):
            row = [self._neuron_acts[i][j] or self._layer_acts[i] for j in range(width)]
            if len(set(row)) == 1:
                layers.append(self._resolve(row[0], found))
            else:
                layers.append([self._resolve(a, found) for a in row])
        sizes = [self._data["X_train"].shape[1], *self._hidden, 1]
        loss = "bce_with_logits" if self.problem.value == "classification" else "mse"
        return sizes, layers, loss

    def _new_model(self, backend: str, spec: tuple | None = None) -> Any:
        """A model of the current network (or of ``spec``, from
        :meth:`_model_layers`, taken earlier on the main thread)."""
        sizes, layers, loss = spec if spec is not None else self._model_layers()
        return build_model(
            sizes,
            layers,
            loss,
            backend,
            self._seed,
            **device_argument(backend, self.device.value),
        )

    def _install(self, model: Any, params: np.ndarray | None = None) -> None:
        """Make ``model`` the one that trains (the caller holds the lock)."""
        if params is not None and hasattr(model, "set_flat_parameters"):
            with contextlib.suppress(ValueError):  # other shape: keep the new weights
                model.set_flat_parameters(params)
        self._model = model
        self._optimizer_stale = False
        self._optimizer = build_optimizer(
            self.optimizer.value, model.parameters(), float(self.learning_rate.value)
        )

    @property
    def model(self) -> Any:
        """The ``symnb.nn.MLP`` being trained (``None`` when it could not be built)."""
        return self._model

    def regenerate(self) -> None:
        """New random points (next data seed), then reset."""
        self._check_open("regenerate")
        self._data_seed += 1
        self.reset()

    def reset(self) -> None:
        """Pause, clear the errors, new data for the current settings, fresh weights
        for the chosen backend (built now), epoch 0."""
        self._check_open("reset")
        self.pause()
        self._refresh_activation_options()  # activations defined since are offered
        self._sink.clear()
        self.status.value = ""
        with self._lock:
            with self._pending_lock:  # built from the current structure below
                self._pending_rebuild = None
                self._pending_weights = []
            self._generation += 1
            self._epoch = 0
            self._history = {"train": [], "test": []}
            self._model = None
            self._optimizer = None
            try:
                self._make_data()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    self._install(self._new_model(self.backend.value))
            except Exception as exc:  # noqa: BLE001 - shown in the widget
                self._report(exc)
            else:
                self._set_status(caught)
        if self._data:
            self._send_data()
        self.render()

    def _rebuild(self, keep_weights: bool) -> None:
        """A new network after a change while (maybe) playing: a numpy model at once,
        the chosen backend's model built in a background thread and swapped in
        between epochs; playing goes on.

        The change waits at most :data:`REBUILD_WAIT` seconds for a running epoch;
        after that the training thread makes it before its next epoch (with large
        data of your own an epoch takes seconds, and each click on a neuron or an
        activation froze the notebook until it ended)."""
        with self._pending_lock:
            pending = self._pending_rebuild
            self._pending_rebuild = (
                keep_weights if pending is None else pending and keep_weights
            )
        if not self._lock.acquire(timeout=REBUILD_WAIT):
            if self.is_running:
                return  # the training thread applies it at the epoch boundary
            self._lock.acquire()
        try:
            result = self._apply_pending_rebuild()
            # the picture of the new network, taken now: after the lock is released
            # the training thread may hold it for a whole epoch again
            snap = self.snapshot() if result is not None else None
        finally:
            self._lock.release()
        if result is not None:  # not under the lock: it may pause the thread
            self._after_rebuild(*result, snap=snap)

    def _apply_pending_rebuild(self) -> tuple[bool, int, str] | None:
        """The rebuild asked for since the last one, if any (the caller holds the
        lock); returns what :meth:`_after_rebuild` needs."""
        with self._pending_lock:
            keep, self._pending_rebuild = self._pending_rebuild, None
        if keep is None:
            return None
        return self._rebuild_locked(keep)

    def _rebuild_locked(self, keep_weights: bool) -> tuple[bool, int, str]:
        requested = self.backend.value
        with self._lock:
            self._generation += 1
            generation = self._generation
            old = self._model
            params = (
                old.get_flat_parameters()
                if keep_weights
                and old is not None
                and hasattr(old, "get_flat_parameters")
                else None
            )
            if not keep_weights:
                self._epoch = 0
                self._history = {"train": [], "test": []}
            quick = "numpy"
            failed = False
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    self._install(self._new_model(quick), params)
            except Exception as exc:  # noqa: BLE001 - shown in the widget
                self._model = None
                self._report(exc)
                failed = True
            else:
                self._set_status(caught)
        return failed, generation, requested

    def _after_rebuild(
        self,
        failed: bool,
        generation: int,
        requested: str,
        snap: Snapshot | None = None,
    ) -> None:
        quick = "numpy"
        if failed:  # the training thread stops by itself (no model); not under the lock
            self.pause()
            if snap is None:
                self.render()
            else:
                self._show(snap)
            return
        if quick != requested:
            with warnings.catch_warnings():  # said once, by the quick model above
                warnings.simplefilter("ignore")
                spec = self._model_layers()  # here: the thread reads no live state
            self._builder = threading.Thread(
                target=self._build_in_background,
                args=(requested, generation, spec),
                name="symnb-playground-build",
                daemon=True,
            )
            self._builder.start()
        if snap is None:
            self._send_frame(force=True)
        else:  # taken under the lock by _rebuild; now with "building ..."
            self._show(dataclasses.replace(snap, backend=self._backend_text()))

    def _build_in_background(self, backend: str, generation: int, spec: tuple) -> None:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                model = self._new_model(backend, spec)
        except Exception as exc:  # noqa: BLE001 - numpy keeps training; say why
            if generation == self._generation:  # still the network the user wants
                self._report(exc)
            return
        with self._lock:
            if generation != self._generation or self._model is None or self._closed:
                return  # another change came first, or the playground was closed
            current = self._model
            params = (
                current.get_flat_parameters()
                if hasattr(current, "get_flat_parameters")
                else None
            )
            self._install(model, params)
            self._set_status(caught)
        self._send_frame(force=True)

    @property
    def refresh_interval(self) -> float:
        """Seconds between text updates (epoch label, loss) while training;
        assigning it is checked as the constructor's argument is."""
        return self._refresh_interval

    @refresh_interval.setter
    def refresh_interval(self, value: Any) -> None:
        self._refresh_interval = check_seconds(value, "refresh_interval")

    @property
    def frame_interval(self) -> float:
        """Least seconds between view updates; assigning it is checked as the
        constructor's argument is (NaN compared False with every elapsed time, so
        pg.frame_interval = nan sent a frame after every epoch, unthrottled)."""
        return self._frame_interval

    @frame_interval.setter
    def frame_interval(self, value: Any) -> None:
        self._frame_interval = check_seconds(value, "frame_interval")

    def wait_for_build(self, timeout: float | None = 60.0) -> bool:
        """Wait until a background build (after a change) has swapped its model in."""
        timeout = _timeout(timeout, "wait_for_build")
        t = self._builder
        if t is None or t is threading.current_thread():
            return True
        t.join(timeout)
        return not t.is_alive()

    def _no_network(self, what: str) -> ValueError:
        """The error of a call that needs a network when none could be built (an
        unknown activation or a formula that fails in the setup), naming why."""
        errors = self._sink.exceptions
        why = f": {type(errors[-1]).__name__}: {errors[-1]}" if errors else ""
        return ValueError(
            f"{what}: the Playground has no network to train, its setup could not be "
            f"built{why}; fix the setting (set_config, set_activation) and train again"
        )

    def _report(self, exc: BaseException) -> None:
        self.status.value = error_html(exc)
        self._sink.report(exc)

    def _set_status(self, caught: list) -> None:
        status = self._describe()
        messages = list(dict.fromkeys(str(w.message) for w in caught))
        if messages:  # e.g. a backend fallback, and why
            status += (
                '<div style="color:#a60;font-size:90%">'
                + "<br>".join(escape(m) for m in messages)
                + "</div>"
            )
        self.status.value = status

    def _backend_text(self) -> str:
        m = self._model
        running = str(getattr(m, "backend", None) or "-")
        requested = self.backend.value
        builder = self._builder
        if builder is not None and builder.is_alive() and requested != running:
            return f"backend {running} (building {requested}…)"
        return f"backend {running}"

    def _describe(self) -> str:
        n_train = len(self._data.get("X_train", []))
        n_test = len(self._data.get("X_test", []))
        what = self._source.name if self._source is not None else self.dataset.value
        note = self._source.note if self._source is not None else ""
        if note:  # e.g. points where a formula data set is undefined
            note = f'<div style="color:#a60;font-size:90%">{escape(note)}</div>'
        return (
            f'<span class="symnb-backend-status" style="color:#555;font-size:90%">'
            f"{escape(self.problem.value)} on {escape(what)}: {n_train} train / "
            f"{n_test} test points; {escape(self._backend_text())}</span>{note}"
        )

    # ================================================================== training
    def _train_one(self) -> None:
        """One epoch and the losses after it; the caller holds the lock."""
        self._refresh_optimizer()  # one chosen while the last epoch ran
        start = time.perf_counter()
        m, d = self._model, self._data
        reg, rate = self.regularization.value, float(self.regularization_rate.value)
        m.train_epoch(
            d["X_train"],
            d["y_train"],
            optimizer=self._optimizer,
            batch_size=int(self.batch_size.value),
            l1=rate if reg == "L1" else 0.0,
            l2=rate if reg == "L2" else 0.0,
            shuffle=True,
            seed=self._seed * 100003 + self._epoch,
        )
        train = _loss_of(m, d["X_train"], d["y_train"])
        test = (
            _loss_of(m, d["X_test"], d["y_test"]) if len(d["X_test"]) else float("nan")
        )
        self._epoch += 1
        self._history["train"].append(train)
        self._history["test"].append(test)
        self._train_seconds += time.perf_counter() - start

    def _check_open(self, what: str) -> None:
        """A ValueError once the playground is closed: train, step and play went on
        training a network nobody sees (``play()`` in a thread that ran until
        ``pause()``, the CPU busy without a word)."""
        if self._closed:
            raise ValueError(
                f"{what}: this Playground is closed; create a new one "
                "(Playground(config=old.config) keeps its settings)"
            )

    def step(self) -> None:
        """Pause, then train one epoch synchronously and redraw (a ValueError at
        :data:`MAX_EPOCHS` epochs since the last reset)."""
        self._check_open("step")
        _epoch_count(1, "step", 1, self._epoch)
        self.pause()
        self.wait_for_build()
        with self._lock:
            self._rebuild_if_asked()
            if self._model is None:
                self.status.value = error_html("no network to train: see the error")
                return
            try:
                self._train_one()
            except Exception as exc:  # noqa: BLE001 - shown in the widget
                self._training_failed(exc)
        self.render()

    def train(self, epochs: int) -> None:
        """Train ``epochs`` epochs on the calling thread (for scripts and executed
        notebooks: widget state saved by nbclient only holds main-thread updates).

        At most :data:`MAX_EPOCHS` epochs are trained between resets: asking for
        more than are left raises ValueError before training. Ctrl-C (a kernel
        interrupt) stops between epochs."""
        epochs = _epoch_count(epochs, "train", 0, self._epoch)
        self._check_open("train")
        self.pause()
        self.wait_for_build()
        missing = None
        try:
            for _ in range(epochs):
                with self._lock:
                    self._rebuild_if_asked()
                    if self._model is None:
                        # it stopped without a word: a script or an executed
                        # notebook went on as if the epochs were trained (the
                        # widget already shows why the network is missing)
                        missing = self._no_network("train")
                        break
                    self._train_one()
                self._send_frame()
        except Exception as exc:
            # raised to the script, and shown in the widget as Play shows it (the
            # status line kept the last good state, which executed notebooks saved)
            self._training_failed(exc)
            raise
        finally:
            self.render()
        if missing is not None:
            raise missing

    @property
    def is_running(self) -> bool:
        """Whether the training thread is running."""
        t = self._thread
        return t is not None and t.is_alive()

    def play(self, epochs: int | None = None) -> None:
        """Start training in a background thread (``epochs``: stop after that many;
        None: until Pause, or until :data:`MAX_EPOCHS` epochs since the last reset,
        when the status line says so)."""
        if epochs is not None:  # or None: until Pause
            epochs = _epoch_count(epochs, "play", 1, self._epoch)
        self._check_open("play")
        if self.is_running:
            return
        if self._epoch >= MAX_EPOCHS:
            self.status.value = error_html(_EPOCH_LIMIT_TEXT)
            return
        if self._model is None:
            self.status.value = error_html("no network to train: see the error above")
            return
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._loop, args=(epochs,), name="symnb-playground", daemon=True
        )
        self._set_buttons(running=True)
        self._thread.start()

    def pause(self, timeout: float = 30.0) -> bool:
        """Stop training after the current epoch; returns whether it has stopped."""
        timeout = _timeout(timeout, "pause")
        t = getattr(self, "_thread", None)
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
        if t is None or t is threading.current_thread():
            return True
        t.join(timeout)
        return not t.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until training stops (end of ``play(epochs)``, or Pause); True if so."""
        timeout = _timeout(timeout, "wait")
        t = self._thread
        if t is None:
            return True
        t.join(timeout)
        return not t.is_alive()

    def _loop(self, epochs: int | None) -> None:
        done = 0
        due = time.monotonic()
        try:
            while not self._stop.is_set():
                with self._lock:
                    self._rebuild_if_asked()
                    if self._model is None:
                        break
                    self._train_one()
                done += 1
                self._send_frame()
                if epochs is not None and done >= epochs:
                    break
                if self._epoch >= MAX_EPOCHS:
                    self.status.value = error_html(_EPOCH_LIMIT_TEXT)
                    break
                speed = self._speed
                if speed:
                    due += 1.0 / speed
                    late = time.monotonic() - due
                    if late > 0.5:
                        due = time.monotonic()  # do not catch up in a burst
                    elif late < 0:
                        self._stop.wait(min(-late, 1.0 / MIN_SPEED))
                else:
                    time.sleep(0.0005)  # let the kernel's other threads run
        except Exception as exc:  # noqa: BLE001 - shown in the widget
            self._training_failed(exc)
        finally:
            try:
                with self._lock:  # changes asked for during the last epoch
                    self._sink.guard(self._rebuild_if_asked)()
                    self._sink.guard(self._refresh_optimizer)()
                self._sink.guard(self.render)()  # the final state, always
            finally:
                self._set_buttons(running=False)

    def _rebuild_if_asked(self) -> None:
        """Make a rebuild, then the weight edits, asked for during the epoch (the
        caller holds the lock; in the training thread pause() only sets the stop
        flag)."""
        result = self._apply_pending_rebuild()
        if result is not None:
            self._after_rebuild(*result)
        with self._pending_lock:
            edits, self._pending_weights = self._pending_weights, []
        for edit in edits:
            try:
                self._write_weight(*edit)
            except (IndexError, RuntimeError) as exc:  # the network changed since
                self._sink.report(exc)

    def _training_failed(self, exc: BaseException) -> None:
        """An epoch failed: say so in the status line (for a divergence, with what
        to change) and show the traceback in the output."""
        text = f"training paused in epoch {self._epoch + 1}: {exc}"
        try:
            from symnb.nn import TrainingDiverged
        except ImportError:  # pragma: no cover - the core is importable
            TrainingDiverged = ()  # type: ignore[assignment]
        if isinstance(exc, TrainingDiverged):
            reg = self.regularization.value
            text += (
                f"\nthe weights grew too large: lower the learning rate (now "
                f"{float(self.learning_rate.value):g})"
                + (
                    f" or the {reg} rate (now "
                    f"{float(self.regularization_rate.value):g})"
                    if reg != "none"
                    else ""
                )
                + ", then press Reset (the weights reached so far diverge even "
                "with a smaller rate)"
            )
        self.status.value = error_html(text)
        self._sink.report(exc)

    def _set_buttons(self, running: bool) -> None:
        self.play_button.disabled = running
        self.pause_button.disabled = not running

    # ================================================================== drawing
    def snapshot(self) -> Snapshot:
        """The current state, copied under the training lock (never shared)."""
        # a diverging network's maps overflow: the picture saturates, and NumPy's
        # warnings (printed from the training thread) say nothing the status
        # line does not
        with self._lock, np.errstate(all="ignore"):
            m = self._model
            train = np.array(self._history["train"], dtype=np.float32)
            test = np.array(self._history["test"], dtype=np.float32)
            output, neurons, weights = None, np.zeros((0, 0), np.float32), ()
            if m is not None and self._data:
                if self.problem.value == "classification":
                    p = np.asarray(_host(m.predict_proba(self._data["X_grid"])))
                    p = p[:, -1] if p.ndim == 2 else p
                    output = 2.0 * p.reshape(-1) - 1.0
                else:
                    output = np.asarray(_host(m.predict(self._data["X_grid"])))
                output = np.asarray(output, dtype=np.float32).reshape(GRID, GRID)
                hidden = [
                    np.asarray(_host(h))
                    for h in m.hidden_outputs(self._data["X_small"])
                ]
                if hidden:
                    neurons = np.concatenate([h.T for h in hidden]).astype(np.float32)
                weights = tuple(
                    np.array(_host(w), dtype=np.float32) for w in _weights_of(m)
                )
            return Snapshot(
                epoch=self._epoch,
                train=train,
                test=test,
                output=output,
                neurons=neurons,
                weights=weights,
                backend=self._backend_text(),
            )

    def _on_message(self, msg: dict) -> None:
        """Messages from the browser view."""
        kind = msg.get("kind")
        seq = msg.get("seq")
        if kind == "drawn":  # the browser reports frames drawn (batched)
            draws = msg.get("draws", 1)
            self._frames_drawn += draws if isinstance(draws, int) else 1
            self._last_ack = time.monotonic()
            frame = msg.get("frame")
            if isinstance(frame, int):
                self._acked_frame = max(self._acked_frame, frame)
            return
        if kind == "weight":
            self.set_weight(
                *(_message_field(msg, k, int) for k in ("layer", "source", "target")),
                _message_field(msg, "value", float),
            )
            return
        if seq is not None and not isinstance(seq, int):
            seq = _message_field(msg, "seq", int)
        if kind == "activation" and isinstance(seq, int):
            # messages can arrive out of order: an older choice must not win
            key = (str(msg.get("session")), msg.get("layer"), msg.get("neuron"))
            if seq <= self._activation_seq.get(key, 0):
                self._send_structure(ack=seq)
                return
            self._activation_seq[key] = seq
        try:
            if kind in ("neurons", "layers"):
                self._on_size_message(kind, msg)
            elif kind == "activation":
                layer = msg.get("layer")
                neuron = msg.get("neuron")
                self.set_activation(
                    _message_field(msg, "name", str, ""),
                    layer=None if layer is None else _message_field(msg, "layer", int),
                    neuron=(
                        None
                        if neuron is None or _message_field(msg, "neuron", int) < 0
                        else _message_field(msg, "neuron", int)
                    ),
                )
        finally:
            if seq is not None:
                self._send_structure(ack=seq)

    def _on_size_message(self, kind: str, msg: dict) -> None:
        """A "+"/"-" click on neurons or layers; one past a limit (the view had not
        yet disabled the button) is shown in the status line."""
        grow = _message_field(msg, "delta", float, 0) > 0
        layer = _message_field(msg, "layer", int) if kind == "neurons" else None
        try:
            if layer is not None:
                (self.add_neuron if grow else self.remove_neuron)(layer)
            else:
                (self.add_layer if grow else self.remove_layer)()
        except ValueError as exc:
            self.status.value = error_html(exc)

    def _send_frame(self, force: bool = False) -> None:
        """A view update, at most every ``frame_interval`` seconds, no faster than the
        browser reports frames drawn (when it reports them), and spending at most
        about :data:`VIEW_SHARE` of the kernel's time on views (training comes
        first)."""
        now = time.monotonic()
        if not force:
            interval = max(self.frame_interval, self._view_cost / VIEW_SHARE)
            if now - self._last_frame < interval:
                return
            # the browser draws the newest frame only: count frames not yet drawn
            in_flight = self.view.frame - self._acked_frame
            if self._frames_drawn and in_flight > 6 and now - self._last_ack < 1.0:
                return
        start = time.perf_counter()
        self._last_frame = now
        snap = self.snapshot()
        self._show(snap, text=force or now - self._last_text >= self.refresh_interval)
        cost = time.perf_counter() - start
        self._draw_seconds += cost
        self._view_cost = (
            0.8 * self._view_cost + 0.2 * cost if self._view_cost else cost
        )

    def _show(self, snap: Snapshot, text: bool = True) -> None:
        train, step = decimate(snap.train)
        test, _ = decimate(snap.test)
        v = self.view
        with self._send_lock, v.hold_sync():
            v.output_map = f32(snap.output) if snap.output is not None else b""
            v.neuron_maps = f32(snap.neurons)
            v.weights = b"".join(f32(w) for w in snap.weights)
            v.loss_train, v.loss_test, v.loss_step = f32(train), f32(test), step
            v.epoch = snap.epoch
            v.backend_text = snap.backend
            v.frame = v.frame + 1
            self._frames += 1
        if text:
            self._last_text = time.monotonic()
            self._render_text(snap)

    def _render_text(self, snap: Snapshot) -> None:
        self.epoch_label.value = f"Epoch {snap.epoch}"
        if not len(snap.train):
            self.loss_label.value = "Test loss –<br>Training loss –"
        else:
            self.loss_label.value = (
                f"Test loss {snap.test[-1]:.3f}<br>Training loss {snap.train[-1]:.3f}"
            )

    def render(self) -> None:
        """Send the current state to the view now (epoch, losses, maps, weights)."""
        try:
            snap = self.snapshot()
        except Exception as exc:  # noqa: BLE001 - shown in the widget
            self._sink.report(exc)
            return
        self._show(snap)

    def close(self) -> None:
        """Stop training and close the playground and all its parts; training it
        afterwards (train, step, play) is a ValueError."""
        self._closed = True
        self.pause()
        for child in list(getattr(self, "children", ()) or ()):
            close_tree(child)
        super().close()

    def snapshot_png(self) -> bytes:
        """A PNG of the output map with the points and the loss curves (the static
        picture of executed notebooks, nbviewer and GitHub)."""
        snap = self.snapshot()
        values = snap.output if snap.output is not None else np.zeros((GRID, GRID))
        values = np.clip(values, -1, 1)
        d = self._data
        train = (d["points_train"], d["labels_train"]) if d else None
        test = (
            (d["points_test"], d["labels_test"]) if d and self.show_test.value else None
        )
        what = self._source.name if self._source is not None else self.dataset.value
        title = f"{what}, epoch {snap.epoch}"
        if len(snap.train):
            title += f", train loss {snap.train[-1]:.3f}, test loss {snap.test[-1]:.3f}"
        history = {"train": list(snap.train), "test": list(snap.test)}
        return plots.snapshot_png(
            values,
            EXTENT,
            train,
            test,
            history,
            title,
            discretize=self.discretize.value,
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        bundle = super()._repr_mimebundle_(**kwargs)
        try:
            bundle["image/png"] = base64.b64encode(self.snapshot_png()).decode("ascii")
        except Exception:  # noqa: BLE001, S110 - the widget view is still there
            pass
        bundle["text/plain"] = repr(self)
        return bundle

    def __repr__(self) -> str:
        return (
            f"Playground(dataset={self.dataset.value!r}, hidden={self._hidden}, "
            f"epoch={self._epoch})"
        )

    # ================================================================== callbacks
    def _on_optimizer(self, change: dict) -> None:
        """Learning rate or optimizer chosen. Neither waits for the epoch that is
        running (with large data of your own an epoch can take seconds, and the
        kernel could not process a click meanwhile): a new rate is one float the
        optimizer reads at each step; a new optimizer is built now if no epoch
        runs, else by the training thread before its next epoch."""
        if self._silent:
            return
        optimizer = self._optimizer
        if change["owner"] is self.learning_rate and hasattr(optimizer, "lr"):
            optimizer.lr = float(self.learning_rate.value)  # keeps the moments
            return
        self._optimizer_stale = True
        if self._lock.acquire(blocking=False):
            try:
                self._refresh_optimizer()
            finally:
                self._lock.release()

    def _refresh_optimizer(self) -> None:
        """Build the optimizer chosen since the last one (the caller holds the
        lock)."""
        if not self._optimizer_stale or self._model is None:
            return
        self._optimizer_stale = False
        self._optimizer = build_optimizer(
            self.optimizer.value,
            self._model.parameters(),
            float(self.learning_rate.value),
        )

    def _on_global_activation(self, change: dict) -> None:
        if self._silent or not change["new"]:
            return
        self.set_activation(change["new"])

    def _on_problem(self, change: dict) -> None:
        if self._silent:
            return
        choices = (
            data.CLASSIFICATION
            if change["new"] == "classification"
            else data.REGRESSION
        )
        with self._quiet():
            self.dataset.options = choices
            self.dataset.value = choices[0]
        self._source = None
        self.reset()

    def _on_backend(self, change: dict) -> None:
        if self._silent:
            return
        with self._quiet():
            self.device.options = device_choices(change["new"])
        self.reset()

    def _on_speed(self, change: dict) -> None:
        if not self._silent:
            self._speed = change["new"] or None  # 0: as fast as possible

    def _on_presentation(self, change: dict) -> None:
        on = bool(change["new"])
        self.view.presentation = on
        self.body.layout.flex_flow = "column" if on else "row wrap"
        self.data_column.layout.width = "100%" if on else "285px"
        self.data_column.layout.flex_flow = "row wrap" if on else "column"
        self.data_column.layout.display = "flex"

    def _on_data_formula(self, change: dict) -> None:
        if self._silent:
            return
        text = str(change["new"]).strip()
        if not text:
            self._source = None
            self.reset()
            return
        try:
            source = DataSource.from_formula(text)
        except (ValueError, TypeError) as exc:
            self.status.value = error_html(exc)
            return
        self._source = source
        with self._quiet():
            self.problem.value = source.problem
        self.reset()

    def _on_reset_change(self, change: dict) -> None:
        if self._silent:
            return
        if change["owner"] is self.dataset:
            self._source = None
        self.reset()

    def _on_feature(self, change: dict) -> None:
        if self._silent:
            return
        if not any(b.value for b in self.feature_boxes.values()):
            with self._quiet():
                change["owner"].value = True
            self.status.value = error_html("keep at least one input feature")
            return
        self.reset()
        self._send_structure()

    def _on_view(self, change: dict) -> None:
        name = "show_test" if change["owner"] is self.show_test else "discretize"
        setattr(self.view, name, bool(change["new"]))

    # ================================================================== configuration
    @property
    def features(self) -> list[str]:
        """The input features in use."""
        return [n for n, b in self.feature_boxes.items() if b.value]

    @property
    def config(self) -> dict[str, Any]:
        """The whole setup, JSON-able; ``Playground(config=...)`` restores it."""
        found = user_activations()
        acts: list[Any] = []
        used: set[str] = set()
        for i, width in enumerate(self._hidden):
            row = [self._neuron_acts[i][j] or self._layer_acts[i] for j in range(width)]
            used.update(row)
            acts.append(
                self._layer_acts[i]
                if len(set(row)) == 1 and row[0] == self._layer_acts[i]
                else row
            )
        customs = {}
        for name in sorted(used):
            if (
                name in self._custom
                or name in found
                or name in self._seen
                or name in self._custom_specs
            ):
                spec = self._custom_spec(name, found)
                if spec is not None:
                    customs[name] = spec
        source = self._source
        formula = source.formula if source is not None and source.formula else ""
        return {
            "problem": self.problem.value,
            "dataset": "formula" if formula else self.dataset.value,
            "data_formula": formula,
            "noise": int(self.noise.value),
            "train_percent": int(self.train_percent.value),
            "batch_size": int(self.batch_size.value),
            "data_seed": int(self._data_seed),
            "seed": int(self._seed),
            "features": self.features,
            "hidden": list(self._hidden),
            "activations": acts,
            "learning_rate": float(self.learning_rate.value),
            "regularization": self.regularization.value,
            "regularization_rate": float(self.regularization_rate.value),
            "optimizer": self.optimizer.value,
            "backend": self.backend.value,
            "device": self.device.value if self.backend.value == "cuda" else None,
            "show_test": bool(self.show_test.value),
            "discretize": bool(self.discretize.value),
            "speed": self._speed,
            "custom_activations": customs,
        }

    @config.setter
    def config(self, config: dict[str, Any]) -> None:
        self.set_config(config)

    def to_code(self) -> str:
        """A notebook cell that rebuilds this playground (a setup to hand out)."""
        import pprint

        text = pprint.pformat(self.config, indent=1, width=80, sort_dicts=False)
        return (
            "from symnb.widgets import Playground\n\n"
            f"setup = {text}\n"
            "playground = Playground(config=setup)\n"
            "playground"
        )

    def set_config(self, config: dict[str, Any]) -> None:
        """Apply a setup (see :attr:`config`): pauses, rebuilds, resets to epoch 0."""
        self._check_open("set_config")
        cfg = normalize_config(config)
        if cfg["dataset"] == "formula":
            source = DataSource.from_formula(cfg["data_formula"])
            cfg["problem"] = source.problem
            self._source = source
        elif self._source is not None and self._source.formula:
            self._source = None
        if self._source is not None:  # the data decide the problem
            cfg["problem"] = self._source.problem
            if cfg["dataset"] != "formula":
                kinds = data.CLASSIFICATION + data.REGRESSION
                cfg["dataset"] = next(
                    k for k in kinds if data.problem_of(k) == cfg["problem"]
                )
        self.pause()
        notes = []
        self._load_custom(cfg["custom_activations"])
        self._hidden = list(cfg["hidden"])
        self._layer_acts, self._neuron_acts = [], []
        for i, spec in enumerate(cfg["activations"]):
            if isinstance(spec, list):
                layer = max(spec, key=spec.count)  # ties: the first
                self._layer_acts.append(layer)
                self._neuron_acts.append([None if a == layer else a for a in spec])
            else:
                self._layer_acts.append(spec)
                self._neuron_acts.append([None] * self._hidden[i])
        self._data_seed = cfg["data_seed"]
        self._seed = cfg["seed"]
        self._speed = cfg["speed"]
        with self._quiet():
            self.problem.value = cfg["problem"]
            self.dataset.options = (
                data.CLASSIFICATION
                if cfg["problem"] == "classification"
                else data.REGRESSION
            )
            if cfg["dataset"] in self.dataset.options:
                self.dataset.value = cfg["dataset"]
            self.data_formula.value = cfg["data_formula"]
            self.noise.value = cfg["noise"]
            self.train_percent.value = cfg["train_percent"]
            self.batch_size.value = cfg["batch_size"]
            for name, box in self.feature_boxes.items():
                box.value = name in cfg["features"]
            self.learning_rate.options = _options(LEARNING_RATES, cfg["learning_rate"])
            self.learning_rate.value = cfg["learning_rate"]
            self.regularization.value = cfg["regularization"]
            self.regularization_rate.options = _options(
                REGULARIZATION_RATES, cfg["regularization_rate"]
            )
            self.regularization_rate.value = cfg["regularization_rate"]
            self.optimizer.value = cfg["optimizer"]
            self.speed_slider.options = _speed_options(cfg["speed"])
            self.speed_slider.value = cfg["speed"] or 0.0
            backends = [v for _, v in self.backend.options]
            backend = cfg["backend"]
            if backend not in backends:
                notes.append(f"backend {backend!r} is not usable here; using auto")
                backend = "auto"
            self.backend.value = backend
            self.device.options = device_choices(backend)
            devices = [v for _, v in self.device.options]
            if cfg["device"] in devices:
                self.device.value = cfg["device"]
            self.show_test.value = cfg["show_test"]
            self.discretize.value = cfg["discretize"]
        self.view.show_test = cfg["show_test"]
        self.view.discretize = cfg["discretize"]
        self.reset()
        if notes:
            self.status.value = error_html("; ".join(notes))
