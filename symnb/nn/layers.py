"""Layers: a dense (fully connected) layer whose activation is a compiled symnb kernel.

A :class:`Dense` layer computes ``a = f(x @ W + b)`` where ``f`` is one activation for
the whole layer or one per neuron (a heterogeneous layer, one compiled layer kernel).
The forward pass calls the kernel's fused ``forward_with_derivative`` once, keeping
``f'(z)`` for the backward pass, so backpropagation through the activation is a single
multiplication. Matrix products are NumPy's (CuPy's on the GPU: the kernel's ``.xp``).

Learnable constants (``symnb.learnable(1.0, per="layer"|"neuron")``) are parameters of
the layer; their gradients come from the kernel's ``constant_gradient`` (the symbolic
derivative with respect to each constant).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["Dense", "LayerActivation", "activation_key", "resolve_activation"]


def _symnb():
    import symnb

    return symnb


def _did_you_mean(word: str, names: Sequence[str]) -> str:
    """``"did you mean 'x'? "`` for the closest of ``names``, or ``""``."""
    from symnb.formula.formula import did_you_mean

    return did_you_mean(word, list(names))


def resolve_activation(spec: Any, where: str = "activation") -> Any:
    """An ``Activation`` from an ``Activation``, a library name or a formula text.

    ``None``, ``"linear"`` and ``"identity"`` give ``None`` (no activation). ``where``
    (e.g. ``"hidden 0 layer, neuron 3"``) starts the message of a bad text.
    """
    if spec is None:
        return None
    if isinstance(spec, str) and spec.strip().lower() in (
        "linear",
        "identity",
        "none",
        "",
    ):
        return None
    from symnb.formula.formula import Loss, as_activation

    if isinstance(spec, Loss):
        # it has expr and compile too, and failed only at fit (no forward_with_derivative)
        raise TypeError(
            f"activation: got the loss {spec.name!r}, a symnb.Loss of y_pred and "
            "y_true; an activation is a function of x (a symnb.Activation, a library "
            "name or a formula text in x); give losses as loss=..."
        )
    if hasattr(spec, "expr") and hasattr(spec, "compile"):
        return spec

    return as_activation(spec, where)


def _learnable_of(act: Any) -> dict[str, Any]:
    return dict(getattr(act, "learnable", None) or {})


def _constant_names(act: Any) -> list[str]:
    internal = getattr(act, "internal", None)
    if internal is not None:
        return list(internal.param_names)
    return list((getattr(act, "constants", None) or {}).keys())


def activation_key(act: Any) -> tuple:
    """What makes two activations interchangeable in a kernel (formula and constants)."""
    if act is None:
        return (None,)
    learn = tuple(
        sorted((k, getattr(v, "per", "layer")) for k, v in _learnable_of(act).items())
    )
    consts = tuple(sorted((k, float(v)) for k, v in (act.constants or {}).items()))
    internal = getattr(act, "internal", None)
    formula = internal.signature() if internal is not None else str(act.expr)
    return (formula, consts, learn)


def _layer_activations(activations: Any) -> list[Any]:
    """One ``Activation`` per neuron, as ``compile_layer`` reads them (names and
    formula texts parsed once): LayerActivation('relu') and LayerActivation(['relu'])
    failed deep inside with "'str' object has no attribute 'constants'"."""
    from symnb.backends.select import per_neuron_activations
    from symnb.formula.formula import Activation

    if isinstance(activations, (str, Activation)) or not isinstance(
        activations, Sequence
    ):
        raise TypeError(
            "LayerActivation expects a list with one activation per neuron, e.g. "
            f"['relu', 'relu', swish], got {activations!r:.80}"
        )
    return per_neuron_activations(activations)


class LayerActivation:
    """The compiled activation of one layer, one ``Activation`` per neuron.

    A homogeneous layer without per-neuron learnable constants uses the elementwise
    kernel (``Activation.compile``); anything else uses one layer kernel
    (``symnb.compile_layer``).

    Learnable constants form a vector ``values`` (length ``n_learnable``): one entry per
    (layer, constant name) for ``per="layer"`` and one per neuron for ``per="neuron"``.
    ``labels`` names each entry (``"beta"`` or ``"beta[3]"``).
    """

    def __init__(
        self,
        activations: Sequence[Any],
        backend: str = "auto",
        device: int | None = 0,
        dtype: str = "float32",
        strict: bool = False,
    ) -> None:
        symnb = _symnb()
        self.activations = _layer_activations(activations)
        width = len(self.activations)
        keys = [activation_key(a) for a in self.activations]
        per_neuron = any(
            getattr(v, "per", "layer") == "neuron"
            for a in self.activations
            for v in _learnable_of(a).values()
        )
        self.homogeneous = len(set(keys)) == 1
        self.elementwise = self.homogeneous and not per_neuron
        if self.elementwise:
            self.kernel = self.activations[0].compile(
                backend=backend, device=device, dtype=dtype, strict=strict
            )
        else:
            self.kernel = symnb.compile_layer(
                self.activations,
                backend=backend,
                device=device,
                dtype=dtype,
                strict=strict,
            )
        self.xp = getattr(self.kernel, "xp", np)
        self.backend = getattr(self.kernel, "backend", backend)

        # learnable constants: entries of `values`, and where each lives in
        # kernel.params
        labels: list[str] = []
        initial: list[float] = []
        groups: dict[str, int] = {}  # per="layer": name -> entry
        #: entry -> the neurons that use it
        self.entry_neurons: dict[int, list[int]] = {}
        self._names: list[str] = []  # elementwise path: entry -> constant name
        positions: list[int] = []  # position in kernel.params
        entry_of_position: list[int] = []
        offsets = None if self.elementwise else _to_numpy(self.kernel.offsets)
        for j, act in enumerate(self.activations):
            learn = _learnable_of(act)
            if not learn:
                continue
            names = _constant_names(act)
            for name, spec in learn.items():
                per = getattr(spec, "per", "layer")
                value = float(getattr(spec, "value", act.constants.get(name, 0.0)))
                if per == "neuron":
                    entry = len(labels)
                    labels.append(f"{name}[{j}]")
                    initial.append(value)
                elif name in groups:
                    entry = groups[name]
                else:
                    entry = groups[name] = len(labels)
                    labels.append(name)
                    initial.append(value)
                    self._names.append(name)
                self.entry_neurons.setdefault(entry, []).append(j)
                base = 0 if self.elementwise else int(offsets[j])
                if self.elementwise and j > 0:
                    continue  # one kernel-wide value
                positions.append(base + names.index(name))
                entry_of_position.append(entry)
        self.labels = labels
        self.n_learnable = len(labels)
        self.initial_values = np.asarray(initial, dtype=np.float64)
        self.width = width
        if self.n_learnable:
            xp = self.xp
            self._positions = xp.asarray(np.asarray(positions, dtype=np.int64))
            gather = np.zeros((self.n_learnable, len(positions)), dtype=np.float64)
            gather[np.asarray(entry_of_position), np.arange(len(positions))] = 1.0
            self._gather = xp.asarray(gather)  # constant gradients -> entries
            self._entry_of_position = xp.asarray(
                np.asarray(entry_of_position, np.int64)
            )
            self._params_inplace = self._probe_inplace()

    # -- learnable constants
    # ------------------------------------------------------------
    def _probe_inplace(self) -> bool:
        """Whether ``kernel.params`` is the array the kernel reads (writable in place)."""
        try:
            params = self.kernel.params
            return (
                params is self.kernel.params
                and bool(params.flags.writeable)
                and params.dtype.kind == "f"
            )
        except Exception:  # noqa: BLE001 - anything odd: go through set_constants
            return False

    def set_values(self, values: Any) -> None:
        """Write the learnable entries ``values`` (an array of length n_learnable)."""
        if not self.n_learnable:
            return
        if self._params_inplace:  # checked: a value the dtype cannot hold is refused
            # the domains are tested by fit at each epoch's end (see write_params)
            self.kernel.write_params(
                values[self._entry_of_position], self._positions, domain=False
            )
            return
        host = _to_numpy(values)
        if self.elementwise:
            self.kernel.set_constants(
                **{name: float(host[i]) for i, name in enumerate(self._names)}
            )
            return
        for j, act in enumerate(self.activations):
            learn = _learnable_of(act)
            if not learn:
                continue
            updates = {}
            for name in learn:
                label = f"{name}[{j}]"
                idx = self.labels.index(label if label in self.labels else name)
                updates[name] = float(host[idx])
            self.kernel.set_constants(neuron=j, **updates)

    def constant_gradient(self, z: Any, grad: Any, out: Any) -> None:
        """Write d loss / d entries into ``out`` (length n_learnable), given dL/da;
        nothing to write when no constant is learnable (out is empty)."""
        xp = self.xp
        if not self.n_learnable:
            return
        if self.elementwise:
            grads = self.kernel.constant_gradient(z, grad)
            host = np.array([grads[name] for name in self._names], dtype=np.float64)
            out[...] = xp.asarray(host.astype(out.dtype))
            return
        full = xp.asarray(self.kernel.constant_gradient(z, grad), dtype=xp.float64)
        out[...] = self._gather @ full[self._positions]

    # -- evaluation
    # ---------------------------------------------------------------------
    def forward(self, z: Any, out: Any = None) -> Any:
        return self.kernel.forward(z, out=out)

    def forward_with_derivative(self, z: Any, out: tuple[Any, Any]) -> Any:
        return self.kernel.forward_with_derivative(z, out=out)

    def names(self) -> list[str]:
        return [getattr(a, "name", "?") for a in self.activations]

    def describe(self) -> str:
        names = self.names()
        if self.homogeneous:
            return names[0]
        counts: dict[str, int] = {}
        for n in names:
            counts[n] = counts.get(n, 0) + 1
        return (
            "["
            + ", ".join(f"{n} x{c}" if c > 1 else n for n, c in counts.items())
            + "]"
        )


def _to_numpy(array: Any) -> np.ndarray:
    if hasattr(array, "get"):
        return array.get()
    return np.asarray(array)


#: what a Dense layer is built from: read-only afterwards (Dense.__setattr__)
_DENSE_FIELDS = frozenset(
    {
        "fan_in",
        "fan_out",
        "activation",
        "weight",
        "bias",
        "constants",
        "mask",
        "mask_host",
    }
)


class Dense:
    """One fully connected layer ``f(x @ W + b)`` of an :class:`~symnb.nn.MLP`.

    Attributes
    ----------
    weight, bias:
        :class:`~symnb.nn.optim.Parameter` of shapes ``(fan_in, fan_out)`` and
        ``(fan_out,)``.
    constants:
        a Parameter of the learnable constants, or ``None``.
    activation:
        the :class:`LayerActivation`, or ``None`` for a linear layer.
    mask:
        the fixed 0/1 connection mask ``(fan_in, fan_out)`` or ``None``; masked weights
        are zero and stay zero (their gradients are masked).
    """

    def __init__(
        self,
        fan_in: int,
        fan_out: int,
        activation: LayerActivation | None,
        weight: Any,
        bias: Any,
        constants: Any = None,
        mask: Any = None,
        mask_host: np.ndarray | None = None,
    ) -> None:
        self.fan_in = fan_in
        self.fan_out = fan_out
        self.activation = activation
        self.weight = weight
        self.bias = bias
        self.constants = constants
        self.mask = mask
        self.mask_host = mask_host
        self._built = True  # from here on, see __setattr__

    def __setattr__(self, name: str, value: Any) -> None:
        # layer.weight = array was kept and predict failed inside NumPy ("output
        # array is not acceptable"); layer.activation = None or layer.mask = ...
        # changed predict (or nothing) while the fused step and the saved file
        # kept the network built: these describe the layer, not settings
        if name in _DENSE_FIELDS and self.__dict__.get("_built"):
            fix = (
                "write the values in place instead: "
                f"layer.{name}.data = values (or model.set_flat_parameters)"
                if name in ("weight", "bias", "constants")
                else "build a new network for another layer, e.g. "
                "symnb.nn.MLP(sizes, activation=..., masks=...)"
            )
            raise AttributeError(
                f"Dense.{name} is fixed when the network is built; {fix}"
            )
        super().__setattr__(name, value)

    @property
    def activations(self) -> list[Any]:
        """One Activation per neuron (empty for a linear layer)."""
        return [] if self.activation is None else list(self.activation.activations)

    def learned_constants(self) -> dict[str, Any]:
        """The current values of the learnable constants: name -> float (per layer) or
        name -> array with one value per neuron (NaN where a neuron lacks it; when
        some neurons share the name per layer and others own it per neuron, the
        array holds the shared value at the sharing neurons)."""
        if self.constants is None:
            return {}
        values = self.constants.numpy().astype(np.float64)
        result: dict[str, Any] = {}
        per_neuron: dict[str, np.ndarray] = {}
        for i, label in enumerate(self.activation.labels):
            if "[" in label:
                name, idx = label[:-1].split("[")
                arr = per_neuron.setdefault(name, np.full(self.fan_out, np.nan))
                arr[int(idx)] = values[i]
            else:
                result[label] = float(values[i])
        for name, arr in per_neuron.items():
            if name in result:
                # the same name learned per layer by some neurons and per neuron by
                # others: the per-layer value was overwritten (lost); it goes to
                # the neurons that share it
                entry = self.activation.labels.index(name)
                arr[self.activation.entry_neurons.get(entry, [])] = result[name]
        result.update(per_neuron)
        return result

    def __repr__(self) -> str:
        act = "linear" if self.activation is None else self.activation.describe()
        extra = ", masked" if self.mask is not None else ""
        if self.constants is not None:
            extra += f", learnable={self.activation.labels}"
        return f"Dense({self.fan_in} -> {self.fan_out}, {act}{extra})"
