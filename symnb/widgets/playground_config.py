"""The Playground's setup as a plain dict: defaults, and the checks that turn a wrong
value into one clear error naming the setting.

A handed-out setup with a typo must fail loudly and name what to fix, never become
another setup or surface as an OverflowError, a widget TraitError or an AttributeError
from deep inside training.
"""

from __future__ import annotations

import copy
import math
import numbers
from typing import Any

import numpy as np

from symnb.notebook.state import BACKEND_CHOICES

from . import data

LEARNING_RATES = (0.00001, 0.0001, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
REGULARIZATIONS = ("none", "L1", "L2")
REGULARIZATION_RATES = (0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
OPTIMIZERS = ("sgd", "momentum", "adam")
PROBLEMS = ("classification", "regression")
MAX_LAYERS = 6
MAX_NEURONS = 8
MAX_SEED = 2**32 - 1
#: Largest learning rate accepted (the Playground's menu stops at 10).
MAX_LEARNING_RATE = 100.0
#: Slowest speed accepted, in epochs per second (one epoch every 100 s).
MIN_SPEED = 0.01
#: Deepest nesting of lists and dicts in a setup (per-neuron activations: 2).
MAX_NESTING = 6

DEFAULT_CONFIG: dict[str, Any] = {
    "problem": "classification",
    "dataset": "circle",
    "data_formula": "",
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
    "speed": None,
    "custom_activations": {},
}


class PlaygroundConfigError(ValueError, TypeError):
    """A playground setting has a wrong value or type (the message names it).

    Both a ``ValueError`` and a ``TypeError``, so code catching either sees it.
    """


def _bad(key: str, value: Any, why: str) -> PlaygroundConfigError:
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return PlaygroundConfigError(f"playground setting {key!r}={shown}: {why}")


def _number(key: str, value: Any) -> float:
    """A finite real number (bools and text are refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _bad(key, value, "must be a number")
    try:
        out = float(value)
    except (OverflowError, ValueError, TypeError):
        raise _bad(key, value, "must be a finite number") from None
    if not math.isfinite(out):
        raise _bad(key, value, "must be a finite number")
    return out


def _integer(key: str, value: Any, lo: int, hi: int) -> int:
    """An integer in [lo, hi] (a float with an integer value is accepted)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        out = int(value)
    else:
        number = _number(key, value)
        if not number.is_integer():
            raise _bad(key, value, "must be a whole number")
        out = int(number)
    if not lo <= out <= hi:
        raise _bad(key, value, f"must be between {lo} and {hi}")
    return out


def _choice(key: str, value: Any, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise _bad(key, value, f"choose one of {list(choices)}")
    return value


def _activation_name(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _bad(key, value, "an activation is given by its name, e.g. 'tanh'")
    return value


def _activations(spec: Any, hidden: list[int]) -> list[Any]:
    key = "activations"
    if isinstance(spec, str):
        spec = [spec] * len(hidden)
    if not isinstance(spec, (list, tuple)):
        raise _bad(key, spec, "a name, or a list with one entry per hidden layer")
    acts = list(spec)[: len(hidden)]
    while len(acts) < len(hidden):
        acts.append(acts[-1] if acts else "tanh")
    for i, entry in enumerate(acts):
        if isinstance(entry, (list, tuple)):
            names = [_activation_name(key, a) for a in entry]
            if len(names) != hidden[i]:
                raise PlaygroundConfigError(
                    f"playground setting 'activations': layer {i + 1} has "
                    f"{hidden[i]} neurons but {len(names)} activations are listed"
                )
            acts[i] = names[0] if len(set(names)) == 1 else names
        else:
            acts[i] = _activation_name(key, entry)
    return acts


def _custom_activations(customs: Any) -> dict[str, dict]:
    key = "custom_activations"
    if customs is None:
        return {}
    if not isinstance(customs, dict):
        raise _bad(key, customs, "a dict name -> {'formula': text, 'constants': {...}}")
    out: dict[str, dict] = {}
    for name, spec in customs.items():
        where = f"custom activation {name!r}"
        if not isinstance(name, str) or not name:
            raise _bad(key, name, "activation names are non-empty text")
        if not isinstance(spec, dict) or not isinstance(spec.get("formula"), str):
            raise PlaygroundConfigError(
                f"{where}: give {{'formula': text, 'constants': {{...}}}}"
            )
        unknown = sorted(set(spec) - {"formula", "constants", "learnable"})
        if unknown:
            raise PlaygroundConfigError(f"{where}: unknown key(s) {unknown}")
        consts = spec.get("constants", {}) or {}
        if not isinstance(consts, dict):
            raise PlaygroundConfigError(f"{where}: 'constants' must be a dict")
        checked = {}
        for cname, value in consts.items():
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise PlaygroundConfigError(
                    f"{where}: constant {cname!r}={value!r} must be a number"
                )
            if not math.isfinite(float(value)):
                raise PlaygroundConfigError(
                    f"{where}: constant {cname!r}={value!r} must be a finite number"
                )
            with np.errstate(over="ignore", under="ignore"):
                stored = float(np.float32(value))
            if not math.isfinite(stored) or (value != 0 and stored == 0):
                # was kept, and every build then failed ("does not fit the
                # kernel's float32") with the network gone
                info = np.finfo(np.float32)
                raise PlaygroundConfigError(
                    f"{where}: constant {cname!r}={value!r} does not fit the "
                    f"network's float32: give a magnitude from "
                    f"{info.smallest_subnormal:.3g} to {info.max:.4g}, or 0"
                )
            checked[str(cname)] = float(value)
        learn = spec.get("learnable", {}) or {}
        if not isinstance(learn, dict) or any(
            v not in ("layer", "neuron") or k not in checked for k, v in learn.items()
        ):
            raise PlaygroundConfigError(
                f"{where}: 'learnable' maps a constant to 'layer' or 'neuron'"
            )
        clean: dict[str, Any] = {"formula": spec["formula"], "constants": checked}
        if learn:
            clean["learnable"] = dict(learn)
        out[name] = clean
    return out


def normalize_config(config: Any) -> dict[str, Any]:
    """A complete, checked copy of ``config`` (missing keys take the defaults).

    Raises :class:`PlaygroundConfigError` (a ``ValueError`` and ``TypeError``) naming
    the setting for anything of the wrong type or out of range.
    """
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise PlaygroundConfigError(
            f"a playground config is a dict of settings (see Playground().config), "
            f"got {type(config).__name__}"
        )
    for key, value in config.items():  # before deepcopy, which recursed without end
        _check_nesting(str(key), value)
    cfg = copy.deepcopy(DEFAULT_CONFIG)
    given = dict(config)
    bad_keys = [k for k in given if not isinstance(k, str)]
    unknown = sorted(
        str(k) for k in set(given) - set(DEFAULT_CONFIG) - {"epoch"} | set(bad_keys)
    )
    if unknown:
        raise PlaygroundConfigError(
            f"unknown playground setting(s) {unknown}; known: {sorted(DEFAULT_CONFIG)}"
        )
    datasets = (*data.DATASETS, "formula")
    if "dataset" in given:
        _choice("dataset", given["dataset"], datasets)
    if "problem" in given:
        _choice("problem", given["problem"], PROBLEMS)
    if "dataset" in given and "problem" not in given and given["dataset"] != "formula":
        given["problem"] = data.problem_of(given["dataset"])
    if "problem" in given and "dataset" not in given:
        given["dataset"] = (
            data.CLASSIFICATION
            if given["problem"] == "classification"
            else data.REGRESSION
        )[0]
    cfg.update({k: copy.deepcopy(v) for k, v in given.items() if k != "epoch"})

    formula = cfg["data_formula"]
    if formula is None:
        formula = ""
    if not isinstance(formula, str):
        raise _bad("data_formula", formula, "a formula in x1 and x2, as text")
    cfg["data_formula"] = formula
    if cfg["dataset"] == "formula":
        if not formula.strip():
            raise _bad("data_formula", formula, "dataset 'formula' needs a formula")
    elif data.problem_of(cfg["dataset"]) != cfg["problem"]:
        raise _bad("dataset", cfg["dataset"], f"is not a {cfg['problem']} data set")
    cfg["noise"] = _integer("noise", cfg["noise"], 0, 50)
    cfg["train_percent"] = _integer("train_percent", cfg["train_percent"], 10, 90)
    cfg["batch_size"] = _integer("batch_size", cfg["batch_size"], 1, 30)
    cfg["data_seed"] = _integer("data_seed", cfg["data_seed"], 0, MAX_SEED)
    cfg["seed"] = _integer("seed", cfg["seed"], 0, MAX_SEED)

    feats = cfg["features"]
    if (
        not isinstance(feats, (list, tuple))
        or not feats
        or any(not isinstance(f, str) or f not in data.FEATURES for f in feats)
    ):
        raise _bad("features", feats, f"a non-empty list from {list(data.FEATURES)}")
    cfg["features"] = [f for f in data.FEATURES if f in feats]

    hidden = cfg["hidden"]
    if not isinstance(hidden, (list, tuple)):
        raise _bad("hidden", hidden, "a list of layer widths, e.g. [4, 2]")
    if len(hidden) > MAX_LAYERS:
        raise _bad("hidden", hidden, f"at most {MAX_LAYERS} hidden layers")
    cfg["hidden"] = [_integer("hidden", n, 1, MAX_NEURONS) for n in hidden]
    cfg["activations"] = _activations(cfg["activations"], cfg["hidden"])

    rate = _number("learning_rate", cfg["learning_rate"])
    if not 0 < rate <= MAX_LEARNING_RATE:
        raise _bad("learning_rate", rate, f"must be > 0 and <= {MAX_LEARNING_RATE:g}")
    cfg["learning_rate"] = rate
    if cfg["regularization"] in (None, "None", "NONE"):
        cfg["regularization"] = "none"
    _choice("regularization", cfg["regularization"], REGULARIZATIONS)
    reg_rate = _number("regularization_rate", cfg["regularization_rate"])
    if reg_rate < 0:
        raise _bad("regularization_rate", reg_rate, "must be >= 0")
    cfg["regularization_rate"] = reg_rate
    _choice("optimizer", cfg["optimizer"], OPTIMIZERS)
    # a known backend that this machine lacks (a config saved on a GPU machine) is
    # replaced by auto with a note when applied; an unknown name is a mistake
    _choice("backend", cfg["backend"], BACKEND_CHOICES)
    device = cfg["device"]
    if device is not None:
        cfg["device"] = _integer("device", device, 0, 1023)
    for key in ("show_test", "discretize"):
        if not isinstance(cfg[key], bool):
            raise _bad(key, cfg[key], "must be True or False")
    cfg["speed"] = check_speed(cfg["speed"])
    cfg["custom_activations"] = _custom_activations(cfg["custom_activations"])
    return cfg


def check_speed(value: Any) -> float | None:
    """Epochs per second: ``None`` (as fast as possible) or a finite number of at
    least :data:`MIN_SPEED` (1e-300 made the training thread wait 1e300 s: an
    OverflowError from ``threading``)."""
    if value is None:
        return None
    speed = _number("speed", value)
    if speed < MIN_SPEED:
        raise _bad(
            "speed",
            value,
            f"epochs per second > 0 (at least {MIN_SPEED:g}), or None for full speed",
        )
    return speed


def _check_nesting(key: str, value: Any) -> None:
    """Refuse lists and dicts nested deeper than :data:`MAX_NESTING` (no setting
    nests more than two levels; ``copy.deepcopy`` raised RecursionError from about
    300 levels of a crafted setup), without recursing."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple, dict)):
            if depth > MAX_NESTING:
                raise PlaygroundConfigError(
                    f"playground setting {key!r}: lists and dicts nested more than "
                    f"{MAX_NESTING} deep; see Playground().config for the shape"
                )
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
