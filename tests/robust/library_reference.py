"""The library's activations as PyTorch documents them, for accuracy comparisons.

Shared by ``tests/formula/test_library_accuracy.py`` and ``benchmarks/bench_accuracy.py``.
Each library name has a reference text written here from PyTorch's documentation (or the
textbook definition where PyTorch has no such function), not symnb's library text, so a
wrong library formula shows up as a large error. References are SymPy + mpmath
(``corpus_reference``) at the sample points of the corpus tests, plus points around:

* kinks (f' is not checked exactly there: conventions are tested elsewhere);
* ``extra`` points: zeros of f' (hardswish' at -1.5, where x/3 + 1/2 cancels) and the
  regime switches of symnb's own forms (tanhshrink's series at |x| = 0.5, hardsigmoid's
  at -1.5), where a relative error shows cancellation.
"""

from __future__ import annotations

import functools

import numpy as np

from tests.robust import corpus_reference as R
from tests.robust.corpus import Published

_SELU_SCALE = "1.0507009873554804934193349852946"
_SELU_ALPHA = "1.6732632423543772848170429916717"

#: name -> (reference text, kinks, extra points)
DEFINITIONS: dict[str, tuple[str, tuple[float, ...], tuple[float, ...]]] = {
    "identity": ("x", (), ()),
    "relu": ("max(0, x)", (0.0,), ()),
    "relu6": ("min(max(0, x), 6)", (0.0, 6.0), ()),
    "leaky_relu": ("max(0, x) + 0.01*min(0, x)", (0.0,), ()),
    "elu": ("max(0, x) + min(0, exp(x) - 1)", (0.0,), ()),
    "selu": (
        f"{_SELU_SCALE}*(max(0, x) + min(0, {_SELU_ALPHA}*(exp(x) - 1)))",
        (0.0,),
        (),
    ),
    "celu": ("max(0, x) + min(0, exp(x) - 1)", (0.0,), ()),
    "gelu": ("x/2*(1 + erf(x/sqrt(2)))", (), ()),
    "gelu_tanh": ("0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x**3)))", (), ()),
    "silu": ("x/(1 + exp(-x))", (), ()),
    "swish": ("x/(1 + exp(-x))", (), ()),
    "mish": ("x*tanh(log(1 + exp(x)))", (), ()),
    "softplus": ("where(x > 20, x, log(1 + exp(x)))", (20.0,), ()),
    "sigmoid": ("1/(1 + exp(-x))", (), ()),
    "tanh": ("tanh(x)", (), ()),
    "softsign": ("x/(1 + abs(x))", (0.0,), ()),
    "hardtanh": ("min(max(x, -1), 1)", (-1.0, 1.0), ()),
    "hardsigmoid": ("min(max(x + 3, 0), 6)/6", (-3.0, 3.0), (-1.5,)),
    "hardswish": ("x*min(max(x + 3, 0), 6)/6", (-3.0, 3.0), (-1.5,)),
    "logsigmoid": ("log(1/(1 + exp(-x)))", (), ()),
    "tanhshrink": ("x - tanh(x)", (), (-0.5, 0.5)),
    "softshrink": (
        "where(x > 0.5, x - 0.5, where(x < -0.5, x + 0.5, 0))",
        (-0.5, 0.5),
        (),
    ),
    "sin": ("sin(x)", (), ()),
    "gaussian": ("exp(-x**2)", (), ()),
    "penalized_tanh": ("where(x > 0, tanh(x), 0.25*tanh(x))", (0.0,), ()),
    "step": ("heaviside(x)", (0.0,), ()),
}

#: library names whose f jumps (f' is the ATan surrogate)
JUMPS = frozenset({"step"})


def torch_functions() -> dict:
    """name -> float32 torch function of a tensor (library and corpus names).

    Raises ImportError without PyTorch.
    """
    import torch
    import torch.nn.functional as F

    return {
        "relu": F.relu,
        "relu6": F.relu6,
        "leaky_relu": lambda t: F.leaky_relu(t, 0.01),
        "prelu": lambda t: F.leaky_relu(t, 0.25),
        "rrelu_eval": lambda t: F.rrelu(t, 0.125, 1 / 3, training=False),
        "elu": F.elu,
        "selu": F.selu,
        "celu": F.celu,
        "gelu": F.gelu,
        "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
        "silu": F.silu,
        "swish": F.silu,
        "mish": F.mish,
        "softplus": F.softplus,
        "softplus_beta": lambda t: F.softplus(t, beta=2.0),
        "sigmoid": torch.sigmoid,
        "tanh": torch.tanh,
        "tanh_exponentials": torch.tanh,
        "softsign": F.softsign,
        "hardtanh": F.hardtanh,
        "hard_tanh": F.hardtanh,
        "hardsigmoid": F.hardsigmoid,
        "hardswish": F.hardswish,
        "hard_swish": F.hardswish,
        "logsigmoid": F.logsigmoid,
        "tanhshrink": F.tanhshrink,
        "softshrink": F.softshrink,
        "hardshrink": F.hardshrink,
        "sin": torch.sin,
        "arctan": torch.atan,
        "normalized_sinc": torch.sinc,
    }


def torch_eval(fn, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float32 f and f' (autograd) of a torch function at xs."""
    import torch

    t = torch.tensor(np.asarray(xs, dtype=np.float32), requires_grad=True)
    y = fn(t)
    (g,) = torch.autograd.grad(y.sum(), t)
    return y.detach().numpy(), g.numpy()


def entry(name: str) -> Published:
    """The reference entry of a library activation (no constants: defaults written in)."""
    text, kinks, _ = DEFINITIONS[name]
    return Published(name, text, "PyTorch docs", kinks=kinks, jumps=name in JUMPS)


def sample(name: str, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """(points, mask of points where f' is checked): the corpus sample of the entry plus
    the neighbourhoods of its extra points."""
    xs, mask = R.sample_points(entry(name), dtype)
    pts = []
    for p in DEFINITIONS[name][2]:
        pts += R._ulp_neighbours(p, dtype)
        s = max(1.0, abs(p))
        pts += [p + d * s for d in (1e-6, 1e-4, 1e-2)]
        pts += [p - d * s for d in (1e-6, 1e-4, 1e-2)]
    extra = np.array(pts, dtype=dtype)
    both = np.concatenate([xs, extra])
    keep = np.concatenate([mask, np.ones(extra.size, dtype=bool)])
    both, first = np.unique(both, return_index=True)
    return both, keep[first]


@functools.cache
def reference(name: str, dtypes: tuple[str, ...] = ("float32", "float64")) -> dict:
    """dtype -> (points, f'-check mask, Reference), once per session per name."""
    per = {dt: sample(name, dt) for dt in dtypes}
    union = np.unique(np.concatenate([per[dt][0].astype(np.float64) for dt in per]))
    ref = R.reference(entry(name), union)
    return {
        dt: (xs, mask, ref.take(np.searchsorted(union, xs.astype(np.float64))))
        for dt, (xs, mask) in per.items()
    }
