"""Weight initialisation: He, Xavier (Glorot), LeCun, orthogonal, zeros, constant.

Every initialiser is a function ``init(shape, rng, gain=1.0) -> float64 array`` for a
weight matrix of shape ``(fan_in, fan_out)`` (symnb's layers compute ``x @ W + b``). The
formulas are PyTorch's (``torch.nn.init``): with ``fan_in``/``fan_out`` the matrix's two
sizes,

============== ==========================================================
``he_uniform``     U(-b, b), b = gain * sqrt(6 / fan_in)     (gain sqrt(2) relu)
``he_normal``      N(0, s), s = gain * sqrt(2 / fan_in)
``xavier_uniform`` U(-b, b), b = gain * sqrt(6 / (fan_in + fan_out))
``xavier_normal``  N(0, s), s = gain * sqrt(2 / (fan_in + fan_out))
``lecun_uniform``  U(-b, b), b = gain * sqrt(3 / fan_in)
``lecun_normal``   N(0, s), s = gain * sqrt(1 / fan_in)
``orthogonal``     a (semi-)orthogonal matrix from a QR decomposition, times gain
``zeros``, ``ones``, ``constant(v)``
============== ==========================================================

(``he_*`` already include relu's factor 2; ``gain`` multiplies on top.)
:func:`default_for` picks one from the activation's name: He for the relu family, LeCun
for selu, Xavier for everything else (tanh, sigmoid, smooth user formulas).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from symnb.checks import check_hook
from symnb.memory import check_fits

Initializer = Callable[..., np.ndarray]
InitSpec = "str | float | int | Initializer"

__all__ = [
    "constant",
    "default_for",
    "get",
    "he_normal",
    "he_uniform",
    "lecun_normal",
    "lecun_uniform",
    "ones",
    "orthogonal",
    "xavier_normal",
    "xavier_uniform",
    "zeros",
]


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) == 1:
        return shape[0], shape[0]
    return shape[0], shape[1]


def _checked(shape: Any, gain: Any, what: str) -> tuple[tuple[int, ...], float]:
    """``shape`` (1 or 2 positive sizes) and ``gain`` (a finite number >= 0) of the
    initialiser ``what``, or an error naming them: called directly, gain=nan raised
    NumPy's "high - low range exceeds valid bounds", a negative size "math domain
    error", and a negative gain NumPy's "scale < 0" from the normal ones."""
    sizes = (shape,) if isinstance(shape, (int, np.integer)) else shape
    if (
        not isinstance(sizes, (tuple, list))
        or len(sizes) not in (1, 2)
        or any(
            isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer))
            for n in sizes
        )
        or min(sizes) < 1
    ):
        raise ValueError(
            f"{what}: shape must be (fan_in, fan_out) with whole sizes >= 1, got "
            f"{shape!r:.60}"
        )
    if (
        isinstance(gain, (bool, np.bool_))
        or not isinstance(gain, numbers.Real)
        or not math.isfinite(gain)
        or gain < 0
    ):
        raise ValueError(
            f"{what}: gain must be a finite number >= 0 (e.g. gain=1.0), got "
            f"{gain!r:.60}"
        )
    sizes = tuple(int(n) for n in sizes)
    # float64 values and about as much again in temporaries (orthogonal's QR
    # more): init.zeros((10**6, 10**6)) was NumPy's bare "Unable to allocate
    # 7.28 TiB", and sizes that just fit were granted, filled, then killed
    check_fits(
        3 * 8 * math.prod(sizes),
        f"{what}: a {' x '.join(map(str, sizes))} array",
        "Use smaller sizes.",
    )
    return sizes, float(gain)


def _checked_rng(rng: Any, what: str) -> Any:
    """``rng`` as a NumPy generator (``RandomState`` too), or a TypeError naming
    ``what``: called with None or a seed, the initialiser failed with "'NoneType'
    object has no attribute 'uniform'"."""
    if isinstance(rng, (np.random.Generator, np.random.RandomState)):
        return rng
    raise TypeError(
        f"{what}: rng must be a NumPy random generator, got {rng!r:.60}; pass "
        "np.random.default_rng(seed), e.g. np.random.default_rng(0)"
    )


def _variance_scaled(
    shape,
    rng: np.random.Generator,
    gain: float,
    numerator: float,
    fans: str,
    dist: str,
    what: str = "initialiser",
) -> np.ndarray:
    """``gain * sqrt(numerator / fan)`` as the bound of a uniform (``dist="uniform"``)
    or the standard deviation of a normal centred on 0; ``fan`` is fan_in
    (``fans="in"``) or fan_in + fan_out (``fans="sum"``)."""
    shape, gain = _checked(shape, gain, what)
    rng = _checked_rng(rng, what)
    fan_in, fan_out = _fans(shape)
    fan = fan_in if fans == "in" else fan_in + fan_out
    scale = gain * math.sqrt(numerator / fan)
    if dist == "uniform":
        return rng.uniform(-scale, scale, shape)
    return rng.normal(0.0, scale, shape)


def he_uniform(shape, rng: np.random.Generator, gain: float = 1.0) -> np.ndarray:
    """Kaiming/He uniform for relu-like activations (fan_in mode)."""
    return _variance_scaled(shape, rng, gain, 6.0, "in", "uniform", "he_uniform")


def he_normal(shape, rng: np.random.Generator, gain: float = 1.0) -> np.ndarray:
    """Kaiming/He normal for relu-like activations (fan_in mode)."""
    return _variance_scaled(shape, rng, gain, 2.0, "in", "normal", "he_normal")


def xavier_uniform(shape, rng: np.random.Generator, gain: float = 1.0) -> np.ndarray:
    """Glorot/Xavier uniform for tanh, sigmoid and other symmetric smooth activations."""
    return _variance_scaled(shape, rng, gain, 6.0, "sum", "uniform", "xavier_uniform")


def xavier_normal(shape, rng: np.random.Generator, gain: float = 1.0) -> np.ndarray:
    """Glorot/Xavier normal."""
    return _variance_scaled(shape, rng, gain, 2.0, "sum", "normal", "xavier_normal")


def lecun_uniform(shape, rng: np.random.Generator, gain: float = 1.0) -> np.ndarray:
    """LeCun uniform (variance 1/fan_in)."""
    return _variance_scaled(shape, rng, gain, 3.0, "in", "uniform", "lecun_uniform")


def lecun_normal(shape, rng: np.random.Generator, gain: float = 1.0) -> np.ndarray:
    """LeCun normal (variance 1/fan_in), the one selu is designed for."""
    return _variance_scaled(shape, rng, gain, 1.0, "in", "normal", "lecun_normal")


def orthogonal(shape, rng: np.random.Generator, gain: float = 1.0) -> np.ndarray:
    """A (semi-)orthogonal matrix (Saxe et al.), as ``torch.nn.init.orthogonal_``."""
    shape, gain = _checked(shape, gain, "orthogonal")
    rng = _checked_rng(rng, "orthogonal")
    rows, cols = _fans(shape)
    flat = rng.normal(0.0, 1.0, (max(rows, cols), min(rows, cols)))
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))  # make the decomposition unique
    if rows < cols:
        q = q.T
    return gain * q[:rows, :cols].reshape(shape)


def zeros(
    shape, rng: np.random.Generator | None = None, gain: float = 1.0
) -> np.ndarray:
    """All zeros (the default for biases)."""
    return np.zeros(_checked(shape, gain, "zeros")[0])


def ones(
    shape, rng: np.random.Generator | None = None, gain: float = 1.0
) -> np.ndarray:
    """All ones."""
    return np.ones(_checked(shape, gain, "ones")[0])


def constant(value: float) -> Initializer:
    """An initialiser filling with ``value``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        # constant(True) filled with 1.0; constant('a') was float()'s ValueError
        raise TypeError(f"constant initialiser needs a real number, got {value!r:.60}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"constant initialiser needs a finite value, got {value!r}")

    def init(shape, rng: np.random.Generator | None = None, gain: float = 1.0):
        return np.full(_checked(shape, gain, init.__name__)[0], value)

    init.__name__ = f"constant({value!r})"
    return init


_NAMED: dict[str, Initializer] = {
    "he_uniform": he_uniform,
    "kaiming_uniform": he_uniform,
    "he_normal": he_normal,
    "kaiming_normal": he_normal,
    "he": he_normal,
    "xavier_uniform": xavier_uniform,
    "glorot_uniform": xavier_uniform,
    "xavier_normal": xavier_normal,
    "glorot_normal": xavier_normal,
    "xavier": xavier_uniform,
    "glorot": xavier_uniform,
    "lecun_uniform": lecun_uniform,
    "lecun_normal": lecun_normal,
    "lecun": lecun_normal,
    "orthogonal": orthogonal,
    "zeros": zeros,
    "zero": zeros,
    "ones": ones,
}

_RELU_FAMILY = (
    "relu",
    "leaky",
    "prelu",
    "rrelu",
    "elu",
    "celu",
    "gelu",
    "swish",
    "silu",
    "mish",
    "softplus",
    "hardswish",
    "relu6",
)


def names() -> list[str]:
    """Names :func:`get` accepts (besides numbers, for constants, and callables)."""
    return sorted(_NAMED)


def get(spec: InitSpec) -> Initializer:
    """An initialiser from a name, a number (constant fill) or a callable (returned as
    is)."""
    if callable(spec):
        return spec
    if isinstance(spec, bool):
        raise TypeError("an initialiser is a name, a number or a function, not a bool")
    if isinstance(spec, (int, float)):
        return constant(spec)
    if isinstance(spec, str):
        key = spec.strip().lower()
        if key.startswith("constant(") and key.endswith(")"):
            try:
                number = float(key[len("constant(") : -1])
            except ValueError:
                raise ValueError(
                    f"initialiser {spec!r}: constant(...) needs a number, e.g. "
                    "'constant(0.1)'"
                ) from None
            return constant(number)
        if key in _NAMED:
            return _NAMED[key]
        raise ValueError(
            f"unknown initialiser {spec!r}; choose one of {', '.join(names())}, "
            "a number, or a function (shape, rng) -> array"
        )
    raise TypeError(f"an initialiser is a name, a number or a function, not {spec!r}")


def initial_array(
    fn: Initializer, shape: tuple[int, ...], rng: np.random.Generator, what: str
) -> np.ndarray:
    """``fn(shape, rng)`` as a finite float64 array of ``shape``, or an error naming
    ``what``: booleans and complex numbers were taken as 1.0 and their real parts,
    text failed in float() without saying which initialiser gave it; a function of
    other arguments than (shape, rng) failed with Python's bare "<lambda>() takes 1
    positional argument but 2 were given"."""
    check_hook(fn, what, ("shape", "rng"), "a function (shape, rng) -> array")
    values = np.asarray(fn(shape, rng))
    if values.dtype.kind not in "iuf":
        raise TypeError(
            f"{what} gave an array of dtype {values.dtype}; an initialiser returns "
            f"real numbers of shape {shape} (a function (shape, rng) -> array)"
        )
    values = values.astype(np.float64)
    if values.shape != shape:  # said only "no finite (2, 3) array" of a (1, 1) one
        raise ValueError(
            f"{what} gave no finite {shape} array: it gave shape {values.shape}; "
            "return an array of the shape it is called with"
        )
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        where = ", ".join(str(int(i)) for i in bad[0])
        raise ValueError(
            f"{what} gave no finite {shape} array: [{where}] is "
            f"{values[tuple(bad[0])].item()!r} ({len(bad)} such values)"
        )
    return values


def default_for(activation_names: list[str]) -> str:
    """The initialiser suited to a layer's activations (by their names).

    He normal for the relu family (relu, leaky relu, elu, gelu, swish/silu, mish, ...),
    LeCun normal for selu, Xavier uniform otherwise (tanh, sigmoid, identity, user
    formulas). A heterogeneous layer takes the most common choice among its neurons.
    """
    votes: dict[str, int] = {}
    for raw in activation_names:
        name = (raw or "").lower()
        if "selu" in name:
            choice = "lecun_normal"
        elif any(key in name for key in _RELU_FAMILY):
            choice = "he_normal"
        else:
            choice = "xavier_uniform"
        votes[choice] = votes.get(choice, 0) + 1
    if not votes:
        return "xavier_uniform"
    return max(sorted(votes), key=lambda k: votes[k])
