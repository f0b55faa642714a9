"""``Playground``: TensorFlow Playground inside the notebook, with formula activations.

The controls follow TensorFlow Playground (data set, noise, train/test ratio, batch
size, regenerate; input features; hidden layers and neurons; activation, learning rate,
regularisation and its rate; Play, Pause, Step, Reset and the epoch counter; train and
test loss, the output map with the points, small maps of every hidden neuron). Beyond
it: any activation of the library or defined in the notebook (``%%symact``,
``symnb.Activation``, an :class:`~symnb.widgets.ActivationEditor`) can be chosen per
layer and per neuron, and the optimizer, the backend and the device are choices too.

Training runs in a background thread (widget events are not processed while a cell runs
on the main thread, so Pause could not work otherwise). A lock around every epoch keeps
Pause, Reset and configuration changes from tearing the model: they take effect between
epochs. Text updates are sent at most every ``refresh_interval`` seconds and pictures at
most every ``plot_interval`` seconds; the final state is always sent when training
stops.

``playground.config`` is a JSON-able dict of the whole setup; ``Playground(config=...)``
restores it (a teacher hands out a setup; activations defined by formulas travel in
``config["custom_activations"]``).
"""

from __future__ import annotations

import base64
import contextlib
import copy
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import ipywidgets as W
import numpy as np

from . import data, plots
from ._common import (
    ErrorSink,
    backend_choices,
    close_tree,
    constant_value,
    device_argument,
    device_choices,
    error_html,
    escape,
    user_activations,
)

LEARNING_RATES = (0.00001, 0.0001, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
REGULARIZATIONS = ("none", "L1", "L2")
REGULARIZATION_RATES = (0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
OPTIMIZERS = ("sgd", "momentum", "adam")
PROBLEMS = ("classification", "regression")
MAX_LAYERS = 6
MAX_NEURONS = 8
#: The input plane shown in the maps (the data lie in about [-6, 6]^2).
EXTENT = (-6.0, 6.0, -6.0, 6.0)
GRID = 50

DEFAULT_CONFIG: dict[str, Any] = {
    "problem": "classification",
    "dataset": "circle",
    "noise": 0,
    "train_percent": 50,
    "batch_size": 10,
    "data_seed": 0,
    "seed": 0,
    "features": ["x1", "x2"],
    "hidden": [4, 2],
    "activations": ["tanh", "tanh"],
    "learning_rate": 0.03,
    "regularization": "none",
    "regularization_rate": 0.0,
    "optimizer": "sgd",
    "backend": "auto",
    "device": None,
    "show_test": False,
    "discretize": False,
    "custom_activations": {},
}


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


# ------------------------------------------------------------------------------------
# Configuration
# ------------------------------------------------------------------------------------


def normalize_config(config: dict[str, Any] | None) -> dict[str, Any]:
    """A complete, checked copy of ``config`` (missing keys take the defaults).

    Raises ``ValueError`` naming the key for anything out of range, so a handed-out
    setup with a typo fails loudly instead of silently becoming another setup.
    """
    cfg = copy.deepcopy(DEFAULT_CONFIG)
    given = dict(config or {})
    unknown = sorted(set(given) - set(DEFAULT_CONFIG) - {"epoch"})
    if unknown:
        raise ValueError(
            f"unknown playground setting(s) {unknown}; known: {sorted(DEFAULT_CONFIG)}"
        )
    if "dataset" in given and given["dataset"] not in data.DATASETS:
        raise ValueError(
            f"playground setting 'dataset'={given['dataset']!r}: choose one "
            f"of {data.DATASETS}"
        )
    if "dataset" in given and "problem" not in given:
        given["problem"] = data.problem_of(str(given["dataset"]))
    if "problem" in given and "dataset" not in given:
        given["dataset"] = (
            data.CLASSIFICATION
            if given["problem"] == "classification"
            else data.REGRESSION
        )[0]
    cfg.update({k: copy.deepcopy(v) for k, v in given.items() if k != "epoch"})

    def bad(key: str, why: str) -> ValueError:
        return ValueError(f"playground setting {key!r}={cfg[key]!r}: {why}")

    if cfg["problem"] not in PROBLEMS:
        raise bad("problem", f"choose one of {PROBLEMS}")
    if cfg["dataset"] not in data.DATASETS:
        raise bad("dataset", f"choose one of {data.DATASETS}")
    if data.problem_of(cfg["dataset"]) != cfg["problem"]:
        raise bad("dataset", f"is not a {cfg['problem']} data set")
    for key, lo, hi in (
        ("noise", 0, 50),
        ("train_percent", 10, 90),
        ("batch_size", 1, 30),
    ):
        try:
            cfg[key] = int(cfg[key])
        except (TypeError, ValueError):
            raise bad(key, "must be an integer") from None
        if not lo <= cfg[key] <= hi:
            raise bad(key, f"must be between {lo} and {hi}")
    for key in ("data_seed", "seed"):
        cfg[key] = int(cfg[key])
    feats = list(cfg["features"])
    if not feats or any(f not in data.FEATURES for f in feats):
        raise bad("features", f"a non-empty list from {list(data.FEATURES)}")
    cfg["features"] = [f for f in data.FEATURES if f in feats]
    hidden = [int(n) for n in cfg["hidden"]]
    if len(hidden) > MAX_LAYERS or any(not 1 <= n <= MAX_NEURONS for n in hidden):
        raise bad(
            "hidden", f"at most {MAX_LAYERS} layers of 1 to {MAX_NEURONS} neurons"
        )
    cfg["hidden"] = hidden
    acts = cfg["activations"]
    if isinstance(acts, str):
        acts = [acts] * len(hidden)
    acts = list(acts)[: len(hidden)]
    while len(acts) < len(hidden):
        acts.append(acts[-1] if acts else "tanh")
    for i, spec in enumerate(acts):
        if isinstance(spec, (list, tuple)):
            names = [str(a) for a in spec]
            if len(names) != hidden[i]:
                raise ValueError(
                    f"playground setting 'activations': layer {i + 1} has "
                    f"{hidden[i]} neurons but {len(names)} activations are listed"
                )
            acts[i] = names[0] if len(set(names)) == 1 else names
        else:
            acts[i] = str(spec)
    cfg["activations"] = acts
    cfg["learning_rate"] = float(cfg["learning_rate"])
    if not cfg["learning_rate"] > 0:
        raise bad("learning_rate", "must be > 0")
    if cfg["regularization"] in (None, "None", "NONE"):
        cfg["regularization"] = "none"
    if cfg["regularization"] not in REGULARIZATIONS:
        raise bad("regularization", f"choose one of {REGULARIZATIONS}")
    cfg["regularization_rate"] = float(cfg["regularization_rate"])
    if cfg["regularization_rate"] < 0:
        raise bad("regularization_rate", "must be >= 0")
    if cfg["optimizer"] not in OPTIMIZERS:
        raise bad("optimizer", f"choose one of {OPTIMIZERS}")
    cfg["show_test"] = bool(cfg["show_test"])
    cfg["discretize"] = bool(cfg["discretize"])
    customs = dict(cfg["custom_activations"] or {})
    for name, spec in customs.items():
        if not isinstance(spec, dict) or "formula" not in spec:
            raise ValueError(
                f"custom activation {name!r}: give "
                "{'formula': text, 'constants': {...}}"
            )
    cfg["custom_activations"] = customs
    return cfg


def _options(values: tuple[float, ...], current: float) -> list[tuple[str, float]]:
    vals = sorted(set(values) | {float(current)})
    return [(f"{v:g}", v) for v in vals]


class Playground(W.VBox):
    """A live trainer of small networks on 2-D data, like TensorFlow Playground.

    Parameters
    ----------
    config:
        A setup as returned by :attr:`config` (missing keys take the defaults).
    activations:
        Extra activations to offer, by name (``symnb.Activation`` objects); activations
        defined in the notebook and in editors are found by themselves.
    refresh_interval:
        Minimum seconds between two updates of the epoch counter and loss numbers.
    plot_interval:
        Minimum seconds between two redraws of the pictures while training runs.

    Attributes
    ----------
    epoch : int
        Epochs trained since the last reset.
    history : dict
        ``{"train": [...], "test": [...]}``: the losses after each epoch.
    play_button, pause_button, step_button, reset_button, epoch_label, loss_label,
    loss_plot, boundary, neuron_maps, ... :
        The child widgets (DOM classes ``symnb-play``, ``symnb-pause``, ``symnb-step``,
        ``symnb-reset``, ``symnb-epoch``, ``symnb-loss``, ``symnb-loss-plot``,
        ``symnb-boundary``, ``symnb-neuron``, ...).
    """

    def __init__(
        self,
        config: dict[str, Any] | None = None,
        activations: dict[str, Any] | None = None,
        refresh_interval: float = 0.25,
        plot_interval: float = 0.5,
        **kwargs: Any,
    ) -> None:
        cfg = normalize_config(config)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._silent = 0
        self.refresh_interval = float(refresh_interval)
        self.plot_interval = float(plot_interval)
        self._custom: dict[str, Any] = dict(activations or {})
        self._custom_specs: dict[str, dict] = {}
        self._model: Any = None
        self._optimizer: Any = None
        self._data: dict[str, np.ndarray] = {}
        self.epoch = 0
        self.history: dict[str, list[float]] = {"train": [], "test": []}
        self._hidden: list[int] = []
        self._layer_acts: list[str] = []
        self._neuron_acts: list[list[str | None]] = []
        self._data_seed = 0
        self._seed = 0
        self._build_widgets(cfg)
        super().__init__(self._layout(), **kwargs)
        self.add_class("symnb-playground")
        self.set_config(cfg)

    # ================================================================== widgets
    def _build_widgets(self, cfg: dict[str, Any]) -> None:
        self.output = W.Output(layout=W.Layout(max_height="200px", overflow="auto"))
        self.output.add_class("symnb-output")
        self.errors = ErrorSink(self.output)
        g = self.errors.guard

        def cls(widget: W.Widget, name: str) -> W.Widget:
            widget.add_class(name)
            return widget

        small = W.Layout(width="auto")

        def button(name: str, **kwargs: Any) -> W.Button:
            kwargs.setdefault("layout", small)
            return cls(W.Button(**kwargs), name)

        self.reset_button = button(
            "symnb-reset",
            description="Reset",
            icon="undo",
            tooltip="new weights, epoch 0",
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
            "symnb-step",
            description="Step",
            icon="step-forward",
            tooltip="train one epoch",
        )
        self.epoch_label = cls(
            W.Label(value="Epoch 0", layout=W.Layout(width="110px")), "symnb-epoch"
        )
        wide = {"style": {"description_width": "initial"}}
        self.learning_rate = cls(
            W.Dropdown(
                description="Learning rate", layout=W.Layout(width="170px"), **wide
            ),
            "symnb-learning-rate",
        )
        self.activation = cls(
            W.Dropdown(
                description="Activation", layout=W.Layout(width="190px"), **wide
            ),
            "symnb-activation",
        )
        self.regularization = cls(
            W.Dropdown(
                options=REGULARIZATIONS,
                description="Regularization",
                layout=W.Layout(width="170px"),
                **wide,
            ),
            "symnb-regularization",
        )
        self.regularization_rate = cls(
            W.Dropdown(description="Reg. rate", layout=W.Layout(width="140px"), **wide),
            "symnb-regularization-rate",
        )
        self.problem = cls(
            W.Dropdown(
                options=[
                    ("Classification", "classification"),
                    ("Regression", "regression"),
                ],
                description="Problem",
                layout=W.Layout(width="190px"),
                **wide,
            ),
            "symnb-problem",
        )
        self.optimizer = cls(
            W.Dropdown(
                options=[
                    ("SGD", "sgd"),
                    ("SGD + momentum", "momentum"),
                    ("Adam", "adam"),
                ],
                description="Optimizer",
                layout=W.Layout(width="200px"),
                **wide,
            ),
            "symnb-optimizer",
        )
        options, note = backend_choices()
        self.backend = cls(
            W.Dropdown(
                options=options,
                description="Backend",
                layout=W.Layout(width="150px"),
                **wide,
            ),
            "symnb-backend",
        )
        self.device = cls(
            W.Dropdown(
                options=device_choices("auto"),
                description="Device",
                layout=W.Layout(width="170px"),
                **wide,
            ),
            "symnb-device",
        )
        self.backend_note = cls(W.HTML(value=note), "symnb-backend-note")

        self.dataset = cls(
            W.ToggleButtons(
                options=data.CLASSIFICATION,
                layout=W.Layout(width="280px"),
                style={"button_width": "128px"},
            ),
            "symnb-dataset",
        )

        def slider(
            name: str, description: str, value: int, low: int, high: int, step: int = 1
        ) -> W.IntSlider:
            return cls(
                W.IntSlider(
                    value=value,
                    min=low,
                    max=high,
                    step=step,
                    description=description,
                    continuous_update=False,
                    layout=W.Layout(width="275px"),
                ),
                name,
            )

        self.train_percent = slider("symnb-ratio", "Train %", 50, 10, 90, step=10)
        self.noise = slider("symnb-noise", "Noise", 0, 0, 50, step=5)
        self.batch_size = slider("symnb-batch", "Batch", 10, 1, 30)
        self.regenerate_button = button(
            "symnb-regenerate", description="Regenerate", icon="refresh"
        )
        self.feature_boxes: dict[str, W.Checkbox] = {}
        self.feature_maps: dict[str, W.Image] = {}
        grid = self._grid_points()
        for name in data.FEATURES:
            box = cls(
                W.Checkbox(
                    value=False,
                    description=data.FEATURE_LABELS[name],
                    indent=False,
                    layout=W.Layout(width="90px"),
                ),
                "symnb-feature",
            )
            self.feature_boxes[name] = box
            img = data.features(grid, [name])[:, 0].reshape(GRID, GRID)
            self.feature_maps[name] = cls(
                W.Image(
                    value=plots.heatmap_png(img),
                    format="png",
                    layout=W.Layout(width="32px", height="32px"),
                ),
                "symnb-feature-map",
            )

        layer_button = W.Layout(width="36px", padding="0")
        self.add_layer_button = button(
            "symnb-add-layer",
            icon="plus",
            layout=layer_button,
            tooltip="add a hidden layer",
        )
        self.remove_layer_button = button(
            "symnb-remove-layer",
            icon="minus",
            layout=layer_button,
            tooltip="remove a hidden layer",
        )
        self.layers_label = cls(W.Label(value=""), "symnb-layers")
        self.network_box = W.HBox(
            [], layout=W.Layout(align_items="flex-start", flex="0 0 auto")
        )
        self.layer_activation: list[W.Dropdown] = []
        self.neuron_maps: list[list[W.Image]] = []
        self.neuron_activation: list[list[W.Dropdown]] = []
        self.add_neuron_buttons: list[W.Button] = []
        self.remove_neuron_buttons: list[W.Button] = []

        self.loss_label = cls(W.HTML(value=""), "symnb-loss")
        self.loss_plot = cls(
            W.Image(format="png", layout=W.Layout(width="290px")), "symnb-loss-plot"
        )
        self.boundary = cls(
            W.Image(format="png", layout=W.Layout(width="290px")), "symnb-boundary"
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

        self.play_button.on_click(g(lambda _b: self.play()))
        self.pause_button.on_click(g(lambda _b: self.pause()))
        self.step_button.on_click(g(lambda _b: self.step()))
        self.reset_button.on_click(g(lambda _b: self.reset()))
        self.regenerate_button.on_click(g(lambda _b: self.regenerate()))
        self.add_layer_button.on_click(g(lambda _b: self._change_layers(+1)))
        self.remove_layer_button.on_click(g(lambda _b: self._change_layers(-1)))
        self.learning_rate.observe(g(self._on_optimizer), names="value")
        self.optimizer.observe(g(self._on_optimizer), names="value")
        self.activation.observe(g(self._on_global_activation), names="value")
        self.problem.observe(g(self._on_problem), names="value")
        self.backend.observe(g(self._on_backend), names="value")
        for w in (self.dataset, self.train_percent, self.noise, self.device):
            w.observe(g(self._on_reset_change), names="value")
        for box in self.feature_boxes.values():
            box.observe(g(self._on_feature), names="value")
        for w in (self.show_test, self.discretize):
            w.observe(g(self._on_view), names="value")

    def _layout(self) -> list[W.Widget]:
        top = W.HBox(
            [
                self.reset_button,
                self.play_button,
                self.pause_button,
                self.step_button,
                self.epoch_label,
                self.learning_rate,
                self.activation,
                self.regularization,
                self.regularization_rate,
                self.problem,
            ],
            layout=W.Layout(flex_flow="row wrap", align_items="center"),
        )
        top2 = W.HBox(
            [self.optimizer, self.backend, self.device, self.backend_note],
            layout=W.Layout(flex_flow="row wrap", align_items="center"),
        )
        features = W.VBox(
            [W.HTML("<b>FEATURES</b>")]
            + [
                W.HBox(
                    [self.feature_maps[n], self.feature_boxes[n]],
                    layout=W.Layout(align_items="center"),
                )
                for n in data.FEATURES
            ]
        )
        data_col = W.VBox(
            [
                W.HTML("<b>DATA</b>"),
                self.dataset,
                self.train_percent,
                self.noise,
                self.batch_size,
                self.regenerate_button,
                features,
            ],
            layout=W.Layout(width="280px", flex="0 0 auto"),
        )
        net_col = W.VBox(
            [
                W.HBox(
                    [
                        self.add_layer_button,
                        self.remove_layer_button,
                        self.layers_label,
                    ],
                    layout=W.Layout(align_items="center"),
                ),
                self.network_box,
            ],
            layout=W.Layout(margin="0 8px", flex="0 0 auto"),
        )
        out_col = W.VBox(
            [
                W.HTML("<b>OUTPUT</b>"),
                self.loss_label,
                self.loss_plot,
                self.boundary,
                W.HBox([self.show_test, self.discretize]),
            ],
            layout=W.Layout(flex="0 0 auto"),
        )
        body = W.HBox(
            [data_col, net_col, out_col],
            layout=W.Layout(align_items="flex-start", flex_flow="row wrap"),
        )
        return [top, top2, body, self.status, self.output]

    @contextlib.contextmanager
    def _quiet(self) -> Iterator[None]:
        """Set widget values without their callbacks running."""
        self._silent += 1
        try:
            yield
        finally:
            self._silent -= 1

    @staticmethod
    def _grid_points() -> np.ndarray:
        xs = np.linspace(EXTENT[0], EXTENT[1], GRID)
        ys = np.linspace(EXTENT[2], EXTENT[3], GRID)
        gx, gy = np.meshgrid(xs, ys)
        return np.stack([gx.ravel(), gy.ravel()], 1)

    # ================================================================== activations
    def activation_names(self) -> list[str]:
        """What the activation dropdowns offer: the library, then user activations."""
        try:
            import symnb

            lib = list(symnb.library_activations())
        except Exception:  # noqa: BLE001 - the core is not importable
            lib = ["relu", "tanh", "sigmoid"]
        # TensorFlow Playground's four first, then the rest of the library
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
        key = str(name or getattr(activation, "name", None) or "custom")
        self._custom[key] = activation
        self._refresh_activation_options()
        return key

    def _resolve(self, name: str, found: dict[str, Any]) -> Any:
        if name in self._custom:
            return self._custom[name]
        if name in found:
            return found[name]
        return name  # a library name: symnb.nn resolves it ("linear" is no activation)

    def _custom_spec(self, name: str, found: dict[str, Any]) -> dict | None:
        obj = self._custom.get(name, found.get(name))
        if obj is None:
            return self._custom_specs.get(name)
        text = getattr(obj, "text", None)
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
                consts[k] = (
                    symnb.learnable(float(v), per=learn[k]) if k in learn else float(v)
                )
            self._custom[name] = symnb.Activation(spec["formula"], name=name, **consts)
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
            for dd, layer in zip(self.layer_activation, self._layer_acts):
                with dd.hold_sync():
                    dd.options = names
                    dd.value = layer
            for row, specs in zip(self.neuron_activation, self._neuron_acts):
                for dd, spec in zip(row, specs):
                    with dd.hold_sync():
                        dd.options = [("= layer", "")] + [(n, n) for n in names]
                        dd.value = spec or ""

    # ================================================================== network widgets
    def _rebuild_network_widgets(self) -> None:
        names = self.activation_names()
        g = self.errors.guard
        columns = []
        self.layer_activation, self.neuron_maps, self.neuron_activation = [], [], []
        self.add_neuron_buttons, self.remove_neuron_buttons = [], []
        for i, width in enumerate(self._hidden):
            tiny = {"width": "34px", "padding": "0"}
            plus = W.Button(
                icon="plus", layout=W.Layout(**tiny), tooltip="add a neuron"
            )
            minus = W.Button(
                icon="minus", layout=W.Layout(**tiny), tooltip="remove a neuron"
            )
            self.add_neuron_buttons.append(plus)
            self.remove_neuron_buttons.append(minus)
            plus.add_class("symnb-add-neuron")
            minus.add_class("symnb-remove-neuron")
            plus.on_click(g(lambda _b, i=i: self._change_neurons(i, +1)))
            minus.on_click(g(lambda _b, i=i: self._change_neurons(i, -1)))
            dd = W.Dropdown(
                options=names, value=self._layer_acts[i], layout=W.Layout(width="110px")
            )
            dd.add_class("symnb-layer-activation")
            dd.observe(
                g(lambda ch, i=i: self._on_layer_activation(i, ch)), names="value"
            )
            self.layer_activation.append(dd)
            maps, dds, tiles = [], [], []
            for j in range(width):
                img = W.Image(
                    format="png", layout=W.Layout(width="52px", height="52px")
                )
                img.add_class("symnb-neuron")
                nd = W.Dropdown(
                    options=[("= layer", "")] + [(n, n) for n in names],
                    value=self._neuron_acts[i][j] or "",
                    layout=W.Layout(width="92px"),
                )
                nd.add_class("symnb-neuron-activation")
                nd.observe(
                    g(lambda ch, i=i, j=j: self._on_neuron_activation(i, j, ch)),
                    names="value",
                )
                maps.append(img)
                dds.append(nd)
                tiles.append(W.HBox([img, nd], layout=W.Layout(align_items="center")))
            self.neuron_maps.append(maps)
            self.neuron_activation.append(dds)
            head = W.HBox([plus, minus])
            count = W.Label(f"{width} neuron" + ("s" if width > 1 else ""))
            col = W.VBox(
                [W.HTML(f"<b>layer {i + 1}</b>"), head, count, dd, *tiles],
                layout=W.Layout(
                    margin="0 4px", align_items="flex-start", min_width="148px"
                ),
            )
            col.add_class("symnb-layer")
            columns.append(col)
        old = self.network_box.children
        self.network_box.children = tuple(columns)
        for col in old:
            close_tree(col)
        n = len(self._hidden)
        self.layers_label.value = f"{n} HIDDEN LAYER" + ("S" if n != 1 else "")
        self.add_layer_button.disabled = n >= MAX_LAYERS
        self.remove_layer_button.disabled = n == 0

    def _change_layers(self, delta: int) -> None:
        n = len(self._hidden)
        if delta > 0 and n < MAX_LAYERS:
            self._hidden.append(2)
            self._layer_acts.append(
                self._layer_acts[-1]
                if self._layer_acts
                else self.activation.value or "tanh"
            )
            self._neuron_acts.append([None, None])
        elif delta < 0 and n > 0:
            self._hidden.pop()
            self._layer_acts.pop()
            self._neuron_acts.pop()
        else:
            return
        self.pause()
        self._rebuild_network_widgets()
        self.reset()

    def _change_neurons(self, layer: int, delta: int) -> None:
        width = self._hidden[layer] + delta
        if not 1 <= width <= MAX_NEURONS:
            return
        self._hidden[layer] = width
        row = self._neuron_acts[layer]
        if delta > 0:
            row.append(None)
        else:
            row.pop()
        self.pause()
        self._rebuild_network_widgets()
        self.reset()

    # ================================================================== callbacks
    def _on_optimizer(self, change: dict) -> None:
        if self._silent:
            return
        with self._lock:
            if self._model is None:
                return
            lr = float(self.learning_rate.value)
            if change["owner"] is self.learning_rate and hasattr(self._optimizer, "lr"):
                self._optimizer.lr = (
                    lr  # keeps momentum / Adam moments, as the original
                )
            else:
                self._optimizer = build_optimizer(
                    self.optimizer.value, self._model.parameters(), lr
                )

    def _on_global_activation(self, change: dict) -> None:
        if self._silent or not change["new"]:
            return
        self._layer_acts = [change["new"]] * len(self._hidden)
        self._neuron_acts = [[None] * n for n in self._hidden]
        self._refresh_activation_options()
        self.reset()

    def _on_layer_activation(self, layer: int, change: dict) -> None:
        if self._silent or not change["new"]:
            return
        self._layer_acts[layer] = change["new"]
        self._neuron_acts[layer] = [None] * self._hidden[layer]
        self._refresh_activation_options()
        self.reset()

    def _on_neuron_activation(self, layer: int, neuron: int, change: dict) -> None:
        if self._silent:
            return
        value = change["new"] or None
        if value == self._layer_acts[layer]:
            value = None
        self._neuron_acts[layer][neuron] = value
        self.reset()

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
        self.reset()

    def _on_backend(self, change: dict) -> None:
        if self._silent:
            return
        with self._quiet():
            self.device.options = device_choices(change["new"])
        self.reset()

    def _on_reset_change(self, change: dict) -> None:
        if not self._silent:
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

    def _on_view(self, change: dict) -> None:
        if not self._silent:
            self.render()

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
            if name in self._custom or name in found or name in self._custom_specs:
                spec = self._custom_spec(name, found)
                if spec is not None:
                    customs[name] = spec
        return {
            "problem": self.problem.value,
            "dataset": self.dataset.value,
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
            "custom_activations": customs,
        }

    @config.setter
    def config(self, config: dict[str, Any]) -> None:
        self.set_config(config)

    def set_config(self, config: dict[str, Any]) -> None:
        """Apply a setup (see :attr:`config`): pauses, rebuilds, resets to epoch 0."""
        cfg = normalize_config(config)
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
        with self._quiet():
            self.problem.value = cfg["problem"]
            self.dataset.options = (
                data.CLASSIFICATION
                if cfg["problem"] == "classification"
                else data.REGRESSION
            )
            self.dataset.value = cfg["dataset"]
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
        self._rebuild_network_widgets()
        self._refresh_activation_options()
        self.reset()
        if notes:
            self.status.value = error_html("; ".join(notes))

    # ================================================================== data and model
    def _make_data(self) -> None:
        problem = self.problem.value
        X, y = data.generate(self.dataset.value, self.noise.value, seed=self._data_seed)
        Xtr, ytr, Xte, yte = data.split(
            X, y, self.train_percent.value, seed=self._data_seed
        )
        feats = self.features
        grid = self._grid_points()

        def target(labels: np.ndarray) -> np.ndarray:
            t = (
                (labels > 0).astype(np.float32)
                if problem == "classification"
                else labels
            )
            return np.ascontiguousarray(t.reshape(-1, 1), dtype=np.float32)

        self._data = {
            "points_train": Xtr,
            "labels_train": ytr,
            "points_test": Xte,
            "labels_test": yte,
            "X_train": data.features(Xtr, feats),
            "y_train": target(ytr),
            "X_test": data.features(Xte, feats),
            "y_test": target(yte),
            "X_grid": data.features(grid, feats),
        }

    def _build(self) -> None:
        found = user_activations()
        layers: list[Any] = []
        for i, width in enumerate(self._hidden):
            row = [self._neuron_acts[i][j] or self._layer_acts[i] for j in range(width)]
            if len(set(row)) == 1:
                layers.append(self._resolve(row[0], found))
            else:
                layers.append([self._resolve(a, found) for a in row])
        sizes = [len(self.features), *self._hidden, 1]
        loss = "bce_with_logits" if self.problem.value == "classification" else "mse"
        backend = self.backend.value
        self._model = None
        self._optimizer = None
        model = build_model(
            sizes,
            layers,
            loss,
            backend,
            self._seed,
            **device_argument(backend, self.device.value),
        )
        self._model = model
        self._optimizer = build_optimizer(
            self.optimizer.value, model.parameters(), float(self.learning_rate.value)
        )

    @property
    def model(self) -> Any:
        """The ``symnb.nn.MLP`` being trained (``None`` when it could not be built)."""
        return self._model

    def regenerate(self) -> None:
        """New random points (next data seed), then reset."""
        self._data_seed += 1
        self.reset()

    def reset(self) -> None:
        """Pause, new data for the current settings, fresh weights, epoch 0."""
        self.pause()
        self._refresh_activation_options()  # activations defined since are offered
        with self._lock:
            self.epoch = 0
            self.history = {"train": [], "test": []}
            self._make_data()
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    self._build()
            except Exception as exc:  # noqa: BLE001 - shown in the widget
                self.status.value = error_html(exc)
                self.errors.report(exc)
            else:
                status = self._describe()
                messages = list(dict.fromkeys(str(w.message) for w in caught))
                if messages:  # e.g. a backend fallback, and why
                    status += (
                        '<div style="color:#a60;font-size:90%">'
                        + "<br>".join(escape(m) for m in messages)
                        + "</div>"
                    )
                self.status.value = status
        self.render()

    def _describe(self) -> str:
        m = self._model
        backend = getattr(m, "backend", None) or self.backend.value
        n_train = len(self._data.get("X_train", []))
        n_test = len(self._data.get("X_test", []))
        return (
            f'<span style="color:#555;font-size:90%">{escape(self.problem.value)} on '
            f"{escape(self.dataset.value)}: {n_train} train / {n_test} test points; "
            f"backend {escape(backend)}</span>"
        )

    # ================================================================== training
    def _train_one(self) -> None:
        """One epoch and the losses after it; the caller holds the lock."""
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
            seed=self._seed * 100003 + self.epoch,
        )
        train = _loss_of(m, d["X_train"], d["y_train"])
        test = (
            _loss_of(m, d["X_test"], d["y_test"]) if len(d["X_test"]) else float("nan")
        )
        self.epoch += 1
        self.history["train"].append(train)
        self.history["test"].append(test)

    def step(self) -> None:
        """Pause, then train one epoch synchronously and redraw."""
        self.pause()
        with self._lock:
            if self._model is None:
                self.status.value = error_html(
                    "no network to train: see the error above"
                )
                return
            try:
                self._train_one()
            except Exception as exc:  # noqa: BLE001 - shown in the widget
                self.status.value = error_html(exc)
                self.errors.report(exc)
        self.render()

    def train(self, epochs: int) -> None:
        """Train ``epochs`` epochs on the calling thread (for scripts and executed
        notebooks: widget state saved by nbclient only holds main-thread updates)."""
        self.pause()
        last = time.monotonic()
        for _ in range(int(epochs)):
            with self._lock:
                if self._model is None:
                    break
                self._train_one()
            if time.monotonic() - last >= self.plot_interval:
                self.render()
                last = time.monotonic()
        self.render()

    @property
    def is_running(self) -> bool:
        """Whether the training thread is running."""
        t = self._thread
        return t is not None and t.is_alive()

    def play(self, epochs: int | None = None) -> None:
        """Start training in a background thread (``epochs``: stop after that many)."""
        if self.is_running:
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
        t = self._thread
        self._stop.set()
        if t is None or t is threading.current_thread():
            return True
        t.join(timeout)
        return not t.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until training stops (end of ``play(epochs)``, or Pause); True if so."""
        t = self._thread
        if t is None:
            return True
        t.join(timeout)
        return not t.is_alive()

    def _loop(self, epochs: int | None) -> None:
        done = 0
        last_text = last_plot = time.monotonic()
        try:
            while not self._stop.is_set():
                with self._lock:
                    if self._model is None:
                        break
                    self._train_one()
                done += 1
                now = time.monotonic()
                if now - last_plot >= self.plot_interval:
                    self.render()
                    last_plot = last_text = time.monotonic()
                elif now - last_text >= self.refresh_interval:
                    self._render_text()
                    last_text = now
                if epochs is not None and done >= epochs:
                    break
                time.sleep(0.001)  # let the kernel's other threads run
        except Exception as exc:  # noqa: BLE001 - shown in the widget
            self.status.value = error_html(
                f"training paused in epoch {self.epoch + 1}: {exc}"
            )
            self.errors.report(exc)
        finally:
            try:
                self.errors.guard(self.render)()  # the final state, always
            finally:
                self._set_buttons(running=False)

    def _set_buttons(self, running: bool) -> None:
        self.play_button.disabled = running
        self.pause_button.disabled = not running

    # ================================================================== drawing
    def _render_text(self) -> None:
        self.epoch_label.value = f"Epoch {self.epoch}"
        tr = self.history["train"][-1] if self.history["train"] else None
        te = self.history["test"][-1] if self.history["test"] else None
        if tr is None:
            self.loss_label.value = "Test loss –<br>Training loss –"
        else:
            self.loss_label.value = f"Test loss {te:.3f}<br>Training loss {tr:.3f}"

    def _map_values(self) -> tuple[np.ndarray | None, list[np.ndarray]]:
        """The output over the grid in [-1, 1] and the hidden outputs (locked)."""
        with self._lock:
            m = self._model
            if m is None:
                return None, []
            Xg = self._data["X_grid"]
            if self.problem.value == "classification":
                p = np.asarray(_host(m.predict_proba(Xg)), dtype=float)
                if p.ndim == 2:
                    p = p[:, -1]  # binary: columns [P(0), P(1)]
                values = 2 * p.reshape(-1) - 1
            else:
                values = np.clip(
                    np.asarray(_host(m.predict(Xg)), dtype=float).reshape(-1), -1, 1
                )
            hidden = [np.asarray(_host(h), dtype=float) for h in m.hidden_outputs(Xg)]
        return values.reshape(GRID, GRID), hidden

    def _points(self) -> tuple[tuple, tuple | None]:
        d = self._data
        train = (d["points_train"], d["labels_train"])
        test = (d["points_test"], d["labels_test"]) if self.show_test.value else None
        return train, test

    def render(self) -> None:
        """Redraw everything (epoch, losses, loss curves, output map, neuron maps)."""
        try:
            values, hidden = self._map_values()
        except Exception as exc:  # noqa: BLE001 - shown in the widget
            self.errors.report(exc)
            values, hidden = None, []
        self._render_text()
        self.loss_plot.value = plots.loss_png(
            self.history["train"], self.history["test"]
        )
        if values is not None:
            train, test = self._points()
            self.boundary.value = plots.boundary_png(
                values, EXTENT, train, test, discretize=self.discretize.value
            )
        for i, maps in enumerate(self.neuron_maps):
            if i >= len(hidden):
                break
            for j, img in enumerate(maps):
                if j < hidden[i].shape[1]:
                    img.value = plots.heatmap_png(hidden[i][:, j].reshape(GRID, GRID))

    def close(self) -> None:
        """Stop training and close the playground and all its parts."""
        self.pause()
        for child in list(self.children):
            close_tree(child)
        super().close()

    def snapshot_png(self) -> bytes:
        """A PNG of the output map with the points and the loss curves."""
        values, _ = self._map_values()
        if values is None:
            values = np.zeros((GRID, GRID))
        train, test = self._points()
        title = f"{self.dataset.value}, epoch {self.epoch}"
        if self.history["train"]:
            title += (
                f", train loss {self.history['train'][-1]:.3f}, "
                f"test loss {self.history['test'][-1]:.3f}"
            )
        return plots.snapshot_png(
            values,
            EXTENT,
            train,
            test,
            self.history,
            title,
            discretize=self.discretize.value,
        )

    def snapshot(self) -> Any:
        """The picture of :meth:`snapshot_png` as an ``IPython.display.Image``."""
        from IPython.display import Image

        return Image(data=self.snapshot_png(), format="png")

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
            f"epoch={self.epoch})"
        )


def _loss_of(model: Any, X: np.ndarray, y: np.ndarray) -> float:
    """The model's loss on (X, y), without computing metrics the widget does not show."""
    try:
        result = model.evaluate(X, y, metrics=[])
    except TypeError:  # an evaluate without the metrics option
        result = model.evaluate(X, y)
    return float(result["loss"])


def _host(a: Any) -> Any:
    """A NumPy array from a NumPy or CuPy array."""
    get = getattr(a, "get", None)
    return get() if callable(get) else a
