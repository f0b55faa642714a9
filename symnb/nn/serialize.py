"""The save format of ``MLP.save`` / ``symnb.nn.load``: one ``.npz`` file, no pickle.

Contents: ``meta`` (a JSON text: format tag and version, sizes, dtype, task, backend,
the activation formulas as text with their constants and learnable markers, the loss),
the flat ``parameters`` array (weights, biases, learned constants), and ``mask_<i>`` for
masked layers. Loading parses the formulas again (through the safe parser) and
recompiles the kernels.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

FORMAT_TAG = "symnb.nn.MLP"
FORMAT_VERSION = 1


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
    }


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
        "version": FORMAT_VERSION,
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


def _rebuild_activation(entry: dict[str, Any]) -> Any:
    symnb = _symnb()
    constants: dict[str, Any] = dict(entry.get("constants", {}))
    for name, per in entry.get("learnable", {}).items():
        value = entry.get("learnable_values", {}).get(name, constants.get(name, 0.0))
        constants[name] = symnb.learnable(value, per=per)
    kwargs: dict[str, Any] = {"name": entry["name"]} if entry.get("name") else {}
    for key in ("derivative", "surrogate"):
        if entry.get(key):
            kwargs[key] = entry[key]
    try:
        return symnb.Activation(entry["text"], **kwargs, **constants)
    except Exception as first:  # noqa: BLE001 - fall back on the library by name
        try:
            return symnb.activation(entry["name"], **constants)
        except Exception:  # noqa: BLE001
            raise ValueError(
                f"cannot rebuild activation {entry.get('name')!r} from "
                f"{entry['text']!r}: "
                f"{first}"
            ) from first


def _rebuild_loss(desc: dict[str, Any]) -> Any:
    from .losses import ElementwiseLoss, SoftmaxCrossEntropy

    symnb = _symnb()
    if desc["type"] == "softmax_cross_entropy":
        return SoftmaxCrossEntropy(label_smoothing=desc.get("label_smoothing", 0.0))
    constants = desc.get("constants", {})
    if desc.get("library"):
        loss = symnb.loss(desc["library"], **constants)
    else:
        kwargs: dict[str, Any] = {"name": desc["name"]} if desc.get("name") else {}
        if desc.get("derivative"):
            kwargs["derivative"] = desc["derivative"]
        loss = symnb.Loss(desc["text"], **kwargs, **constants)
    result = ElementwiseLoss(
        loss, task=desc.get("task", "regression"), logits=desc.get("logits", True)
    )
    result.library_name = desc.get("library")
    return result


def model_from_file(
    path: str | os.PathLike, backend: str | None = None, device: int | None = None
) -> Any:
    from .model import MLP

    path = os.fspath(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"{path} is not a model saved by symnb.nn (MLP.save): {exc}"
        ) from exc
    if "meta" not in arrays or "parameters" not in arrays:
        raise ValueError(
            f"{path} is not a model saved by symnb.nn (no meta/parameters)"
        )
    meta = json.loads(str(arrays["meta"]))
    if meta.get("format") != FORMAT_TAG:
        raise ValueError(f"{path}: unknown format {meta.get('format')!r}")
    if int(meta.get("version", 0)) > FORMAT_VERSION:
        raise ValueError(
            f"{path} was written by a newer symnb (format {meta['version']}); "
            "upgrade symnb"
        )
    table = [_rebuild_activation(e) for e in meta["activations"]]
    sizes = meta["sizes"]
    per_layer = []
    for ids in meta["layers"]:
        per_layer.append(None if ids is None else [table[i] for i in ids])
    hidden = [p if p is not None else "identity" for p in per_layer[:-1]]
    output = per_layer[-1]
    masks = [arrays.get(f"mask_{i}") for i in range(len(sizes) - 1)]
    model = MLP(
        sizes,
        activation=hidden,
        output=output,
        loss=_rebuild_loss(meta["loss"]),
        backend=backend or meta.get("backend", "auto"),
        device=0 if device is None else device,
        seed=meta.get("seed"),
        dtype=meta["dtype"],
        task=meta.get("task"),
        masks=masks if any(m is not None for m in masks) else None,
    )
    model.set_flat_parameters(arrays["parameters"])
    model.epochs_trained = int(meta.get("epochs_trained", 0))
    return model
