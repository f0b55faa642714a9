"""The save format of ``MLP.save`` / ``symnb.nn.load``: one ``.npz`` file, no pickle.

Contents: ``meta`` (a JSON text: format tag and version, sizes, dtype, task, backend,
the activation formulas as text with their constants and learnable markers, the loss),
the flat ``parameters`` array (weights, biases, learned constants), and ``mask_<i>`` for
masked layers. Loading parses the formulas again (through the safe parser) and
recompiles the kernels. A formula that calls named activations (``gelu(x) + my_act(x)``)
stores each of them under ``uses`` (text, constant values, derivative, surrogate), so it
loads in a fresh process with the same functions and derivatives; loading reads no
session name and registers none.

A file is not trusted: every field is checked, array sizes are compared with the
declared network from the ``.npy`` headers before anything is decompressed or allocated
(:mod:`symnb.nn.safe_npz`), members that are not needed are never read, and every
problem is one :class:`symnb.errors.ModelFileError` (a ``ValueError``) naming the file.
A formula that no longer parses is an error, never replaced by a library activation.
"""

from __future__ import annotations

import errno
import io
import itertools
import json
import math
import os
import re
import stat
from contextlib import closing
from typing import Any, NoReturn

import numpy as np

from symnb.backends.select import check_backend, check_device
from symnb.errors import ModelFileError
from symnb.formula.formula import Learnable

from .safe_npz import NpzMembers

FORMAT_TAG = "symnb.nn.MLP"
#: 2: activation entries may list the named activations they call (``uses``); a file
#: with such entries is written as version 2, so that an older symnb, which would read
#: the names with the library's meaning, refuses it. Other files stay version 1.
FORMAT_VERSION = 2


def _symnb():
    import symnb

    return symnb


def _activation_entry(act: Any) -> dict[str, Any]:
    learn = dict(getattr(act, "learnable", None) or {})
    return {
        "text": getattr(act, "text", None) or str(act.expr),
        "name": getattr(act, "name", None),
        "constants": {k: float(v) for k, v in (act.constants or {}).items()},
        "learnable": {k: getattr(v, "per", "layer") for k, v in learn.items()},
        "learnable_values": {
            k: float(getattr(v, "value", act.constants.get(k, 0.0)))
            for k, v in learn.items()
        },
        "derivative": getattr(act, "derivative_text", None),
        "surrogate": getattr(act, "surrogate", None),
        "uses": _uses_entries(act),
    }


def _uses_entries(act: Any) -> dict[str, Any]:
    """The named activations ``act`` calls (``gelu(x) + my_act(x)``), each saved with
    its own text, constant values, derivative and surrogate (and what it calls in
    turn): the file then reads back in a fresh process, without the session's names,
    and a name that replaced a library activation keeps the user's meaning."""
    uses: dict[str, Any] = {}
    for name, dep in (getattr(act, "_users", None) or {}).items():
        form = dep.internal  # the values it was composed with (learnables fixed)
        uses[name] = {
            "text": dep.text,
            "name": dep.name,
            "constants": {
                k: float(v) for k, v in zip(form.param_names, form.param_values)
            },
            "derivative": dep.derivative_text,
            "surrogate": dep.surrogate,
            "uses": _uses_entries(dep),
        }
    return uses


def model_to_arrays(model: Any) -> dict[str, np.ndarray]:
    import symnb

    table: list[dict[str, Any]] = []
    index: dict[int, int] = {}
    layers: list[list[int] | None] = []
    for layer in model.layers:
        if layer.activation is None:
            layers.append(None)
            continue
        ids = []
        for act in layer.activation.activations:
            if id(act) not in index:
                index[id(act)] = len(table)
                table.append(_activation_entry(act))
            ids.append(index[id(act)])
        layers.append(ids)
    meta = {
        "format": FORMAT_TAG,
        "version": 2 if any(entry["uses"] for entry in table) else 1,
        "symnb_version": getattr(symnb, "__version__", "?"),
        "sizes": model.sizes,
        "dtype": model.dtype.name,
        "seed": model.seed,
        "task": model.task,
        "backend": model.backend,
        "activations": table,
        "layers": layers,
        "loss": model.loss.describe(),
        "epochs_trained": model.epochs_trained,
        "shuffle": shuffle_state(model._shuffle),
        "parameter_labels": [p.name for p in model.parameters()],
    }
    arrays = {
        "meta": np.array(json.dumps(meta)),
        "parameters": model.get_flat_parameters(),
    }
    for i, layer in enumerate(model.layers):
        if layer.mask_host is not None:
            arrays[f"mask_{i}"] = layer.mask_host.astype(np.float64)
    return arrays


# ------------------------------------------------------------------ reading
# Everything read from a file is checked before it is used: the JSON fields by type
# and range, the arrays by their .npy headers against the sizes in the JSON, before
# any array is decompressed or any network is allocated.

NOT_OURS = "not a model saved by symnb.nn (MLP.save)"
MAX_META_BYTES = 16 << 20
_MASK_MEMBER = re.compile(r"mask_(0|[1-9][0-9]{0,8})")
_BACKENDS = ("auto", "numpy", "cpp", "cuda")
_TASKS = (None, "regression", "binary", "multiclass")
_MISSING = object()


class _Fields:
    """Typed access to one JSON object of a model file; a wrong field is one
    ``ModelFileError`` naming the file and the field."""

    def __init__(self, path: str, where: str, value: Any) -> None:
        self.path, self.where = path, where
        if not isinstance(value, dict):
            self.fail(f"must be a JSON object, not {type(value).__name__}")
        self.value = value

    def fail(self, problem: str, key: str | None = None) -> NoReturn:
        field = self.where if key is None else f"{self.where}{key!r}"
        raise ModelFileError(self.path, f"{field} {problem}")

    def get(self, key: str, types: tuple[type, ...], default: Any = _MISSING) -> Any:
        if key not in self.value:
            if default is _MISSING:
                self.fail("is missing", key)
            return default
        value = self.value[key]
        ok = isinstance(value, types) and not (
            isinstance(value, bool) and bool not in types
        )
        if not ok:
            names = " or ".join(
                "null" if t is type(None) else t.__name__ for t in types
            )
            self.fail(f"must be {names}, not {value!r:.80}", key)
        return value

    def integer(self, key: str, low: int, default: Any = _MISSING) -> int:
        value = self.get(key, (int,), default)
        if value < low:
            self.fail(f"must be an integer >= {low}, not {value}", key)
        return value

    def number_map(self, key: str) -> dict[str, float]:
        table = self.get(key, (dict,), {})
        for name, value in table.items():
            number_ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not number_ok or not math.isfinite(value):
                self.fail(f"[{name!r}] must be a finite number, not {value!r:.80}", key)
        return {name: float(v) for name, v in table.items()}

    def text(self, key: str, optional: bool = True) -> str | None:
        if optional:
            value = self.get(key, (str, type(None)), None)
        else:
            value = self.get(key, (str,))
        if value is not None and not value.strip():
            self.fail("is an empty text", key)
        return value


def _read_meta(members: NpzMembers) -> _Fields:
    path = members.path
    if not members.has("meta") or not members.has("parameters"):
        raise ModelFileError(path, f"{NOT_OURS}: no meta/parameters arrays")
    raw = members.read("meta", "U", shape=(), max_bytes=MAX_META_BYTES)
    try:
        meta = json.loads(str(raw[()]))
    except (ValueError, RecursionError) as exc:
        raise ModelFileError(path, f"its meta is not valid JSON ({exc})") from None
    fields = _Fields(path, "meta ", meta)
    if meta.get("format") != FORMAT_TAG:
        raise ModelFileError(path, f"{NOT_OURS}: format {meta.get('format')!r:.80}")
    version = fields.integer("version", 1)
    if version > FORMAT_VERSION:
        raise ModelFileError(
            path, f"written by a newer symnb (format {version}); upgrade symnb"
        )
    return fields


MAX_USES_DEPTH = 8
MAX_USES = 64


def _read_uses(fields: _Fields, budget: list[int], depth: int = 0) -> dict[str, Any]:
    """The named activations an entry calls, rebuilt (not registered) from the file
    alone; a broken one is a ``ModelFileError``, never a library substitute."""
    table = fields.get("uses", (dict,), {})
    if table and depth >= MAX_USES_DEPTH:
        fields.fail(f"nests named activations deeper than {MAX_USES_DEPTH}", "uses")
    uses: dict[str, Any] = {}
    for name, entry in table.items():
        budget[0] -= 1
        if budget[0] < 0:
            fields.fail(f"lists more than {MAX_USES} named activations", "uses")
        if not (name.isascii() and name.isidentifier()):
            fields.fail(f"names {name!r:.40}, not an activation name", "uses")
        sub = _Fields(fields.path, f"{fields.where}uses[{name!r}] ", entry)
        text = sub.text("text", optional=False)
        kwargs: dict[str, Any] = {}
        for key in ("derivative", "surrogate"):
            value = sub.text(key)
            if value is not None:
                kwargs[key] = value
        constants = sub.number_map("constants")
        if any(k in ("name", "derivative", "surrogate") for k in constants):
            sub.fail("has a reserved constant name", "constants")
        inner = _read_uses(sub, budget, depth + 1)
        try:
            uses[name] = _symnb().Activation(
                text, **kwargs, name=name, _register=False, _users=inner, **constants
            )
        except (ValueError, TypeError) as exc:
            sub.fail(f"cannot be rebuilt: {exc}")
    return uses


def _activation_kwargs(path: str, index: int, entry: Any) -> dict[str, Any]:
    """Arguments of ``symnb.Activation`` for entry ``index`` of the activation table.

    The entry is rebuilt with the named activations the file lists (``_users``), never
    the session's, and is not registered: loading changes no name of the session."""
    symnb = _symnb()
    fields = _Fields(path, f"activation {index} ", entry)
    # the formula text under a key no constant can have (names starting with '_'
    # are refused): the text is Activation's positional-only first argument
    kwargs: dict[str, Any] = {"_text": fields.text("text", optional=False)}
    kwargs["_users"] = _read_uses(fields, [MAX_USES])
    kwargs["_register"] = False
    for key in ("name", "derivative", "surrogate"):
        value = fields.text(key)
        if value is not None:
            kwargs[key] = value
    constants: dict[str, Any] = fields.number_map("constants")
    learned = fields.number_map("learnable_values")
    for name, per in fields.get("learnable", (dict,), {}).items():
        if per not in ("layer", "neuron"):
            fields.fail(
                f"[{name!r}] must be 'layer' or 'neuron', not {per!r:.80}", "learnable"
            )
        constants[name] = symnb.learnable(
            learned.get(name, constants.get(name, 0.0)), per=per
        )
    for name in constants:
        if name in ("name", "derivative", "surrogate") or name[:1] == "_":
            fields.fail(f"has a constant named {name!r}", "constants")
    return {**kwargs, **constants}


def _rebuild_activation(path: str, index: int, kwargs: dict[str, Any]) -> Any:
    kwargs = dict(kwargs)
    text = kwargs.pop("_text")
    try:
        return _symnb().Activation(text, **kwargs)
    except (ValueError, TypeError) as exc:  # FormulaError is a ValueError
        raise ModelFileError(
            path,
            f"activation {index} ({kwargs.get('name', text)!r:.80}) "
            f"cannot be rebuilt: {exc}",
        ) from None


def _rebuild_loss(path: str, desc: Any) -> Any:
    from .losses import ElementwiseLoss, SoftmaxCrossEntropy

    symnb = _symnb()
    fields = _Fields(path, "loss ", desc)
    kind = fields.get("type", (str,))
    try:
        if kind == "softmax_cross_entropy":
            smoothing = fields.get("label_smoothing", (int, float), 0.0)
            return SoftmaxCrossEntropy(label_smoothing=smoothing)
        if kind != "elementwise":
            fields.fail(
                f"is {kind!r:.80}; expected 'elementwise' or 'softmax_cross_entropy'",
                "type",
            )
        constants = fields.number_map("constants")
        library = fields.text("library")
        task = fields.get("task", (str,), "regression")
        if task not in _TASKS:
            fields.fail(f"is {task!r:.80}", "task")
        if library:
            loss = symnb.loss(library, **constants)
        else:
            kwargs = {"name": fields.text("name")}
            derivative = fields.text("derivative")
            if derivative is not None:
                kwargs["derivative"] = derivative
            loss = symnb.Loss(fields.text("text", False), **kwargs, **constants)
        result = ElementwiseLoss(
            loss, task=task, logits=fields.get("logits", (bool,), True)
        )
    except (ValueError, TypeError) as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(path, f"its loss cannot be rebuilt: {exc}") from None
    result.library_name = library
    return result


def _layer_table(
    meta: _Fields, sizes: list[int], n_activations: int
) -> list[list[int] | None]:
    """The activation ids of every layer: one list per layer, one id per neuron."""
    layers = meta.get("layers", (list,))
    if len(layers) != len(sizes) - 1:
        meta.fail(f"has {len(layers)} entries for {len(sizes) - 1} layers", "layers")
    if n_activations > sum(sizes[1:]):  # each entry is parsed and compiled
        meta.fail(
            f"lists {n_activations} formulas for {sum(sizes[1:])} neurons",
            "activations",
        )
    for i, ids in enumerate(layers):
        if ids is None:
            continue
        if not isinstance(ids, list) or len(ids) != sizes[i + 1]:
            meta.fail(
                f"[{i}] must list one activation per neuron ({sizes[i + 1]})", "layers"
            )
        for k in ids:
            if (
                isinstance(k, bool)
                or not isinstance(k, int)
                or not 0 <= k < n_activations
            ):
                meta.fail(
                    f"[{i}] holds {k!r:.40}, not an activation index "
                    f"0..{n_activations - 1}",
                    "layers",
                )
    return layers


def _read_sizes(meta: _Fields) -> list[int]:
    sizes = meta.get("sizes", (list,))
    if len(sizes) < 2 or not all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in sizes
    ):
        meta.fail(
            f"must be a list of at least 2 positive integers, not {sizes!r:.80}",
            "sizes",
        )
    return sizes


def _parameter_bounds(
    sizes: list[int], layers: list[list[int] | None], table: list[dict[str, Any]]
) -> tuple[int, int]:
    """Fewest and most parameters a network of this description can have (learnable
    constants count once per neuron at most)."""
    low = sum(a * b + b for a, b in itertools.pairwise(sizes))
    learnable = [sum(isinstance(v, Learnable) for v in kw.values()) for kw in table]
    return low, low + sum(learnable[k] for ids in layers for k in ids or ())


def _read_arrays(
    members: NpzMembers, sizes: list[int], bounds: tuple[int, int]
) -> tuple[np.ndarray, list[np.ndarray | None]]:
    """The flat parameters (their count within ``bounds``, checked from the .npy
    header before reading) and the mask of each layer (None: no mask)."""
    path = members.path
    low, high = bounds
    shape, _ = members.header("parameters")
    if len(shape) != 1 or not low <= shape[0] <= high:
        expected = f"{low}" if low == high else f"{low} to {high}"
        raise ModelFileError(
            path,
            f"the sizes {sizes} need {expected} parameters but the file stores "
            f"an array of shape {tuple(shape)}",
        )
    parameters = members.read("parameters", "f", shape=shape)
    masks: list[np.ndarray | None] = [None] * (len(sizes) - 1)
    for name in members.names():
        if not name.startswith("mask_"):
            continue  # other members are never read
        found = _MASK_MEMBER.fullmatch(name)
        if found is None or int(found.group(1)) >= len(masks):
            raise ModelFileError(
                path, f"the array {name!r} names no layer 0..{len(masks) - 1}"
            )
        i = int(found.group(1))
        masks[i] = members.read(name, "fiub", shape=(sizes[i], sizes[i + 1]))
    return parameters, masks


def _settings(meta: _Fields) -> dict[str, Any]:
    """dtype, backend, task, seed and epochs_trained of the saved model, checked."""
    dtype = meta.get("dtype", (str,))
    if dtype not in ("float32", "float64"):
        meta.fail(f"must be 'float32' or 'float64', not {dtype!r:.80}", "dtype")
    backend = meta.get("backend", (str,), "auto")
    if backend not in _BACKENDS:
        meta.fail(f"is {backend!r:.80}", "backend")
    task = meta.get("task", (str, type(None)), None)
    if task not in _TASKS:
        meta.fail(f"is {task!r:.80}", "task")
    seed = meta.get("seed", (int, type(None)), None)
    if seed is not None and seed < 0:
        meta.fail(f"must be an integer >= 0 or null, not {seed}", "seed")
    epochs = meta.integer("epochs_trained", 0, 0)
    shuffle = meta.get("shuffle", (list,), None)  # files before it: the seed's order
    if shuffle is not None and not _shuffle_ok(shuffle):
        meta.fail(
            "must be the four integers of a PCG64 state (state and increment "
            f"below 2**128, a 0/1 flag, a 32-bit value), not {shuffle!r:.80}",
            "shuffle",
        )
    return {
        "dtype": dtype,
        "backend": backend,
        "task": task,
        "seed": seed,
        "epochs_trained": epochs,
        "shuffle": shuffle,
    }


def shuffle_state(generator: np.random.Generator) -> list[int] | None:
    """The minibatch order's generator state as four integers (JSON): ``fit``
    continued after ``load`` shuffled from the seed's start again, not where the
    saved model's next epoch would have, so its weights left the uninterrupted
    run's (Adam: 1.8e-3 after two epochs); ``None`` for a generator not PCG64."""
    state = generator.bit_generator.state
    if state.get("bit_generator") != "PCG64":
        return None
    inner = state["state"]
    return [
        int(inner["state"]),
        int(inner["inc"]),
        int(state["has_uint32"]),
        int(state["uinteger"]),
    ]


def _shuffle_ok(value: list) -> bool:
    limits = (2**128, 2**128, 2, 2**32)
    return len(value) == 4 and all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v < top
        for v, top in zip(value, limits)
    )


def restore_shuffle(generator: np.random.Generator, value: list | None) -> None:
    """Put back a state :func:`shuffle_state` wrote (nothing for ``None``)."""
    if value is None:
        return
    state, inc, has_uint32, uinteger = value
    generator.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": state, "inc": inc},
        "has_uint32": has_uint32,
        "uinteger": uinteger,
    }


def model_from_file(
    path: str | os.PathLike, backend: str | None = None, device: int | None = None
) -> Any:
    """Rebuild the model saved at ``path``; ``ModelFileError`` for any broken file."""
    from .model import check_file_path, file_kind, path_error

    path = check_file_path(path, "load")
    if os.path.isdir(path):
        raise IsADirectoryError(
            f"cannot load a model from {path!r}: it is a directory; give the .npz "
            f"file MLP.save wrote, e.g. {os.path.join(path, 'model.npz')!r}"
        )
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(
            errno.ENOENT,
            f"cannot load a model from {path!r}: no such file; give the .npz file "
            "MLP.save wrote",
        ) from None
    except OSError as exc:  # a name too long, a file as a folder, no access
        raise path_error(exc, f"cannot load a model from {path!r}") from None
    if not stat.S_ISREG(mode):
        # reading a FIFO blocks until a writer comes (load hung); a device never ends
        raise ValueError(
            f"cannot load a model from {path!r}: it is {file_kind(mode)}; give "
            "the .npz file MLP.save wrote"
        )
    # the caller's arguments are checked here, so that the file is not blamed for them
    if backend is not None:
        backend = check_backend(backend)
    if device is not None:
        device = check_device(device)  # an index, 'cuda' or 'cuda:N'
    with closing(NpzMembers(path, NOT_OURS)) as members:
        return _model_from_members(members, path, backend, device)


def model_to_bytes(model: Any) -> bytes:
    """The bytes of the file :meth:`MLP.save` writes (used to pickle a model)."""
    buf = io.BytesIO()
    np.savez(buf, **model_to_arrays(model))
    return buf.getvalue()


def model_from_bytes(
    data: bytes, backend: str | None = None, device: int | None = None, **options: Any
) -> Any:
    """Rebuild a model from :func:`model_to_bytes`'s bytes, checked as a file is
    (``ModelFileError`` naming "a pickled symnb.nn.MLP"); ``options`` are further
    ``MLP`` arguments (``strict``, ``fused``)."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(
            f"a pickled symnb.nn.MLP holds bytes, got {type(data).__name__}"
        )
    label = "<a pickled symnb.nn.MLP>"
    with closing(NpzMembers(io.BytesIO(data), NOT_OURS, label=label)) as members:
        return _model_from_members(members, label, backend, device, **options)


def _model_from_members(
    members: NpzMembers,
    path: str,
    backend: str | None,
    device: int | None,
    **options: Any,
) -> Any:
    """The model in the open ``members`` (``path`` names them in messages)."""
    from .model import MLP

    meta = _read_meta(members)
    sizes = _read_sizes(meta)
    table = [
        _activation_kwargs(path, i, entry)
        for i, entry in enumerate(meta.get("activations", (list,)))
    ]
    layers = _layer_table(meta, sizes, len(table))
    parameters, masks = _read_arrays(
        members, sizes, _parameter_bounds(sizes, layers, table)
    )
    settings = _settings(meta)

    activations = [_rebuild_activation(path, i, kw) for i, kw in enumerate(table)]
    per_layer = [
        None if ids is None else [activations[i] for i in ids] for ids in layers
    ]
    loss = _rebuild_loss(path, meta.get("loss", (dict,)))
    try:
        model = MLP(
            sizes,
            activation=[p if p is not None else "identity" for p in per_layer[:-1]],
            output=per_layer[-1],
            loss=loss,
            backend=backend or settings["backend"],
            device=0 if device is None else device,
            seed=settings["seed"],
            dtype=settings["dtype"],
            task=settings["task"],
            masks=masks if any(m is not None for m in masks) else None,
            **options,
        )
        model.set_flat_parameters(parameters)
    except (ValueError, TypeError) as exc:
        raise ModelFileError(
            path, f"the saved network cannot be rebuilt: {exc}"
        ) from None
    model.epochs_trained = settings["epochs_trained"]
    if isinstance(model._shuffle.bit_generator, np.random.PCG64):
        restore_shuffle(model._shuffle, settings["shuffle"])
    return model
