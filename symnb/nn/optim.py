"""Parameters and optimizers (SGD with momentum and weight decay, Adam).

A model keeps all its parameters in one flat array (and all gradients in another); each
:class:`Parameter` is a view of its slice. An optimizer given ``model.parameters()``
therefore updates everything with a handful of array operations per step, whatever the
number of layers, and the update is all-or-nothing from Python's point of view (the
trainer defers Ctrl-C to step boundaries). Optimizers also accept any list of
:class:`Parameter` (or of objects with ``.data`` and ``.grad`` arrays) and then loop
over them.

The update rules are PyTorch's ``torch.optim.SGD`` and ``torch.optim.Adam`` (L2 weight
decay added to the gradient; Adam with bias correction).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from symnb.checks import check_flag, check_not_masked, is_list_like

__all__ = ["SGD", "Adam", "Optimizer", "Parameter", "Parameters", "get"]


class Parameter:
    """A named trainable array and its gradient (both views of the model's flat
    buffers).

    Attributes
    ----------
    name:
        e.g. ``"layers.0.weight"``, ``"layers.1.constants"``.
    data, grad:
        arrays (NumPy, or CuPy on the GPU) of the same shape. A model's parameters
        are views of its flat buffers: ``p.data = values`` writes into the view
        (values of its shape, finite), as ``p.data[...] = values`` does.
    """

    __slots__ = ("_data", "_grad", "_views", "kind", "name")

    def __init__(
        self,
        name: str,
        data: Any,
        grad: Any,
        kind: str = "weight",
        *,
        views: bool = False,
    ) -> None:
        self.name = name
        self._views = False
        self.data = data
        self.grad = grad
        self.kind = kind  # "weight" | "bias" | "constant"
        # a model's parameters are views of its flat buffers (what the fused step,
        # get_flat_parameters and the optimizers' pairs read): assigning one of them
        # writes into the view (see _assign)
        self._views = bool(views)

    @property
    def data(self) -> Any:
        return self._data

    @data.setter
    def data(self, value: Any) -> None:
        self._data = self._assign("data", self._data, value) if self._views else value

    @property
    def grad(self) -> Any:
        return self._grad

    @grad.setter
    def grad(self, value: Any) -> None:
        self._grad = self._assign("grad", self._grad, value) if self._views else value

    def _assign(self, what: str, view: Any, value: Any) -> Any:
        """``p.data = values`` on a model's parameter, written into its view. Rebinding
        it detached the layer from the model's flat buffer: another shape broke
        ``predict`` with NumPy's bare "shapes (4,2) and (3,) not aligned", and the
        fused C++ step went on training the old weights while ``predict`` read the
        new array."""
        check_not_masked(value, f"{self.name}.{what}")
        on_gpu = type(value).__module__.startswith("cupy")
        values = np.asarray(value.get() if on_gpu else value)
        if values.dtype.kind not in "iuf":  # booleans too, as set_flat_parameters
            raise TypeError(
                f"{self.name}.{what}: cannot assign values of dtype {values.dtype}; "
                f"pass real numbers of shape {tuple(view.shape)}"
            )
        if values.shape != tuple(view.shape):
            raise ValueError(
                f"{self.name}.{what} has shape {tuple(view.shape)} (a view of the "
                f"model's {what} buffer), got values of shape {values.shape}; assign "
                f"values of its shape (written in place, as p.{what}[...] = values), "
                "or build a new network for another shape"
            )
        with np.errstate(over="ignore", invalid="ignore"):  # 1e39 -> inf, refused
            cast = values.astype(view.dtype)
        if what == "data" and not np.isfinite(cast).all():
            raise ValueError(
                f"{self.name}.data: every value must be finite in the model's "
                f"{view.dtype} (got {values.flat[np.argmin(np.isfinite(cast))].item()!r}); "
                "nothing was written"
            )
        view[...] = cast if isinstance(view, np.ndarray) else _xp_of(view).asarray(cast)
        return view

    @property
    def shape(self) -> tuple[int, ...]:
        # np.shape: a list or number as data (refused by the optimizers, naming
        # it) made repr() and print fail with "'list' object has no attribute"
        return tuple(np.shape(self.data))

    @property
    def size(self) -> int:
        return int(np.size(self.data))

    def numpy(self) -> np.ndarray:
        """A NumPy copy of the values (copied from the GPU if needed)."""
        data = self.data
        if hasattr(data, "get"):
            return data.get()
        return np.array(data)

    def __repr__(self) -> str:
        return f"Parameter({self.name!r}, shape={self.shape}, kind={self.kind!r})"


class Parameters(list):
    """``model.parameters()``: a list of :class:`Parameter` sharing one flat buffer.

    ``flat_data``/``flat_grad`` are the whole buffers; ``n_weights`` is the length of
    the leading part holding the weight matrices (what L1/L2 penalties apply to).
    """

    def __init__(
        self,
        items: Iterable[Parameter],
        flat_data: Any = None,
        flat_grad: Any = None,
        n_weights: int = 0,
    ) -> None:
        super().__init__(items)
        self.flat_data = flat_data
        self.flat_grad = flat_grad
        self.n_weights = n_weights


def check_number(name: str, value: Any, example: str) -> float:
    """``value`` as a float; TypeError naming ``name`` for a bool, a string or
    anything else that is not a real number."""
    real = isinstance(value, numbers.Real) or (
        isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf"
    )
    if isinstance(value, (bool, np.bool_)) or not real:
        raise TypeError(f"{name} must be a number ({example}), got {value!r}")
    return float(value)


class HyperParameter:
    """A float attribute of an optimizer checked whenever it is set (constructor,
    ``fit(weight_decay=...)``, or by hand between steps): a TypeError for what is
    not a number, a ValueError for NaN, infinity or a value outside its range. The
    value is kept as ``_<name>`` (the fused step reads ``optimizer._lr``)."""

    def __init__(self, allowed: str, example: str, ok: Any) -> None:
        self.allowed, self.example, self.ok = allowed, example, ok

    def __set_name__(self, owner: type, name: str) -> None:
        self.name, self.attr = name, "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else getattr(obj, self.attr)

    def __set__(self, obj: Any, value: Any) -> None:
        value = check_number(self.name, value, self.example)
        if not (math.isfinite(value) and self.ok(value)):
            raise ValueError(
                f"{self.name} must be finite and {self.allowed} ({self.example}), "
                f"got {value!r}"
            )
        setattr(obj, self.attr, value)


def _check_params(params: Any, owner: str) -> Sequence[Any]:
    """The parameters as a list (a :class:`Parameters` unchanged); TypeError for
    anything that is not a sequence of objects with ``data`` and ``grad`` arrays."""
    if isinstance(params, Parameters):
        items = params
    else:
        fix = f"build it as symnb.nn.{owner}(model.parameters())"
        if hasattr(params, "parameters") and callable(params.parameters):
            raise TypeError(f"{owner} got the model itself; {fix}")
        if isinstance(params, (str, bytes)) or not is_list_like(params):
            raise TypeError(
                f"{owner} needs the parameters to train, got {params!r}; {fix}"
            )
        items = list(params)
        for i, p in enumerate(items):
            if not (hasattr(p, "data") and hasattr(p, "grad")):
                raise TypeError(
                    f"{owner}: parameter {i} is {p!r}, not a Parameter (an object "
                    f"with data and grad arrays); {fix}"
                )
            _check_arrays(p, i, owner)
        _check_distinct(items, owner)
    if len(items) == 0:
        raise ValueError("the optimizer got no parameters to train")
    return items


def _check_distinct(items: Sequence[Any], owner: str) -> None:
    """A ValueError when two entries update the same weights: ``SGD(params +
    params)`` took every step twice (twice the learning rate, and Adam's moments
    updated twice per step) without a word; PyTorch warns of it."""
    for i, p in enumerate(items):
        j = next((k for k, q in enumerate(items[:i]) if _same_weights(p, q)), i)
        if j != i:
            raise ValueError(
                f"{owner}: parameters {j} and {i} are the same weights "
                f"({getattr(p, 'name', '?')!r}), so each step would update them "
                "twice; pass each parameter once, e.g. model.parameters()"
            )


def _same_weights(p: Any, q: Any) -> bool:
    """Whether two parameters update the same memory (one object twice, or NumPy
    arrays that overlap; GPU arrays by object only)."""
    if p is q or p.data is q.data:
        return True
    a, b = p.data, q.data
    return (
        isinstance(a, np.ndarray)
        and isinstance(b, np.ndarray)
        and bool(np.shares_memory(a, b))
    )


def _check_arrays(p: Any, i: int, owner: str) -> None:
    """A parameter the optimizer can update in place: ``data`` and ``grad`` floating
    arrays of one shape, ``data`` writeable. A list or a number as data was rebound,
    not updated (training silently did nothing); a grad of shape (1,) was broadcast
    over every weight; integer data, a grad of None, another shape or read-only data
    failed inside NumPy ("Cannot cast ufunc 'multiply' output", "output array is
    read-only")."""
    where = f"{owner}: parameter {i} ({getattr(p, 'name', '?')!r})"
    for what in ("data", "grad"):
        a = getattr(p, what)
        if not (isinstance(a, np.ndarray) or type(a).__module__.startswith("cupy")):
            why = (
                "the optimizer updates it in place, and a list or a number never "
                "changes (training would do nothing); "
                if what == "data"
                else ""
            )
            raise TypeError(
                f"{where}: {what} must be a NumPy or CuPy array, got "
                f"{type(a).__name__}; {why}pass np.asarray(..., dtype=np.float64)"
            )
        if a.dtype.kind != "f":
            raise TypeError(
                f"{where}: {what} has dtype {a.dtype}; the optimizer takes "
                "floating-point arrays (e.g. .astype(np.float32))"
            )
    if p.grad.shape != p.data.shape:
        raise ValueError(
            f"{where}: grad has shape {tuple(p.grad.shape)} but data has "
            f"{tuple(p.data.shape)}; give one gradient per value"
        )
    if isinstance(p.data, np.ndarray) and not p.data.flags.writeable:
        raise ValueError(
            f"{where}: data is read-only, but the optimizer updates it in place; "
            "pass a writeable array (data.copy())"
        )


def _xp_of(array: Any) -> Any:
    mod = type(array).__module__
    if mod.startswith("cupy"):
        import cupy

        return cupy
    return np


class Optimizer:
    """Base class: keeps the parameters and the learning rate; subclasses define
    ``step``.

    Parameters
    ----------
    params:
        ``model.parameters()`` (fast flat path) or a sequence of parameters.
    lr:
        learning rate (a positive finite number; may be changed between steps).
    """

    def __init__(self, params: Sequence[Parameter], lr: float) -> None:
        params = _check_params(params, type(self).__name__)
        self.params = params
        self.lr = lr
        self._weight_decay = 0.0
        flat = getattr(params, "flat_data", None)
        if flat is not None:
            self._pairs = [(params.flat_data, params.flat_grad)]
        else:
            self._pairs = [(p.data, p.grad) for p in params]
        self.steps = 0

    lr = HyperParameter(
        "a positive number", "the learning rate, e.g. lr=0.01", lambda v: v > 0
    )
    weight_decay = HyperParameter(
        "a number >= 0", "an L2 factor such as 1e-4, or 0", lambda v: v >= 0
    )

    def zero_grad(self) -> None:
        """Set every gradient to zero (the trainer overwrites gradients anyway)."""
        for _, grad in self._pairs:
            grad.fill(0)

    def step(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """Hyper-parameters (for ``repr`` and saving); buffers are not included."""
        return {"lr": self.lr, "steps": self.steps}

    def __repr__(self) -> str:
        args = ", ".join(
            f"{k}={v!r}" for k, v in self.state_dict().items() if k != "steps"
        )
        return f"{type(self).__name__}({args})"


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, Nesterov and L2 weight decay.

    ``v = momentum * v + (g + weight_decay * w)``; ``w -= lr * v`` (PyTorch's
    convention; with ``nesterov`` the step uses ``g + momentum * v``).
    """

    def __init__(
        self,
        params: Sequence[Parameter],
        lr: float = 0.01,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
    ) -> None:
        super().__init__(params, lr)
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.nesterov = nesterov
        self._velocity = [None] * len(self._pairs)
        self._tmp = [None] * len(self._pairs)

    momentum = HyperParameter(
        "in [0, 1)", "a factor such as 0.9, or 0 for none", lambda v: 0 <= v < 1
    )

    @property
    def nesterov(self) -> bool:
        """Nesterov momentum (checked when set, also between steps: ``opt.nesterov =
        'yes'`` was truthy and turned it on)."""
        return self._nesterov

    @nesterov.setter
    def nesterov(self, value: Any) -> None:
        value = check_flag(value, "nesterov")
        if value and self.momentum == 0:
            raise ValueError("nesterov momentum needs momentum > 0")
        self._nesterov = value

    def step(self) -> None:
        """Apply one update from the current gradients."""
        lr, mom, wd = self.lr, self.momentum, self.weight_decay
        for i, (data, grad) in enumerate(self._pairs):
            xp = _xp_of(data)
            scratch = self._tmp[i]
            if scratch is None:
                scratch = self._tmp[i] = xp.empty_like(data)
            g = grad
            if wd:
                xp.multiply(data, wd, out=scratch)
                scratch += grad
                g = scratch
            if mom:
                v = self._velocity[i]
                if v is None:
                    v = self._velocity[i] = xp.array(g, copy=True)
                else:
                    v *= mom
                    v += g
                if self.nesterov:
                    if g is not scratch:
                        scratch[...] = g
                    scratch += mom * v
                    g = scratch
                else:
                    g = v
            xp.multiply(g, lr, out=scratch)
            data -= scratch
        self.steps += 1

    def state_dict(self) -> dict[str, Any]:
        return {
            "lr": self.lr,
            "momentum": self.momentum,
            "weight_decay": self.weight_decay,
            "nesterov": self.nesterov,
            "steps": self.steps,
        }


class Adam(Optimizer):
    """Adam (Kingma and Ba) with bias correction; ``weight_decay`` is L2 added to the
    gradient as in ``torch.optim.Adam`` (not AdamW)."""

    def __init__(
        self,
        params: Sequence[Parameter],
        lr: float = 0.001,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr)
        self.betas = betas
        self.eps = eps
        self.weight_decay = weight_decay
        self._m = [None] * len(self._pairs)
        self._v = [None] * len(self._pairs)
        self._tmp = [None] * len(self._pairs)

    eps = HyperParameter("a number > 0", "e.g. 1e-8", lambda v: v > 0)

    @property
    def betas(self) -> tuple[float, float]:
        """(beta1, beta2), each in [0, 1); checked when set, also between steps
        (``opt.betas = (1.5, 2.0)`` or ``opt.eps = -1`` was taken and trained on
        without a word, as lr and weight_decay were not)."""
        return self._betas

    @betas.setter
    def betas(self, betas: Any) -> None:
        if isinstance(betas, (str, bytes)) or not is_list_like(betas):
            raise TypeError(
                f"betas must be a pair (beta1, beta2) such as (0.9, 0.999), got "
                f"{betas!r}"
            )
        pair = list(betas)
        if len(pair) != 2:
            raise ValueError(
                f"betas must be a pair (beta1, beta2) such as (0.9, 0.999), got "
                f"{betas!r}"
            )
        b1, b2 = (check_number("betas", b, "a pair such as (0.9, 0.999)") for b in pair)
        if not (0 <= b1 < 1 and 0 <= b2 < 1):
            raise ValueError(f"betas must be in [0, 1), got {betas!r}")
        self._betas = (b1, b2)

    def step(self) -> None:
        """Apply one update from the current gradients."""
        b1, b2 = self.betas
        self.steps += 1
        t = self.steps
        step_size = self.lr / (1 - b1**t)
        root_c2 = math.sqrt(1 - b2**t)
        for i, (data, grad) in enumerate(self._pairs):
            xp = _xp_of(data)
            m, v, tmp = self._m[i], self._v[i], self._tmp[i]
            if m is None:
                m = self._m[i] = xp.zeros_like(data)
                v = self._v[i] = xp.zeros_like(data)
                tmp = self._tmp[i] = xp.empty_like(data)
            g = grad
            if self.weight_decay:
                xp.multiply(data, self.weight_decay, out=tmp)
                tmp += grad
                g = tmp
            m *= b1
            m += (1 - b1) * g
            v *= b2
            xp.multiply(g, g, out=tmp)
            tmp *= 1 - b2
            v += tmp
            # denominator: sqrt(v) / sqrt(1 - b2^t) + eps
            xp.sqrt(v, out=tmp)
            tmp *= 1.0 / root_c2
            tmp += self.eps
            xp.divide(m, tmp, out=tmp)
            tmp *= step_size
            data -= tmp

    def state_dict(self) -> dict[str, Any]:
        return {
            "lr": self.lr,
            "betas": self.betas,
            "eps": self.eps,
            "weight_decay": self.weight_decay,
            "steps": self.steps,
        }


def get(
    spec: str | Optimizer | type | None,
    params: Sequence[Parameter],
    lr: float | None = None,
    **options: Any,
) -> Optimizer:
    """An optimizer from a name (``"sgd"``, ``"adam"``), a class, or an instance."""
    if isinstance(spec, Optimizer):
        if lr is not None:
            spec.lr = lr
        return spec
    if spec is None:
        spec = "adam"
    if isinstance(spec, type) and issubclass(spec, Optimizer):
        cls = spec
    elif isinstance(spec, str) and spec.strip().lower() in ("sgd", "adam"):
        cls = SGD if spec.strip().lower() == "sgd" else Adam
    else:
        raise ValueError(
            f"unknown optimizer {spec!r}; use 'sgd', 'adam' or an instance"
        )
    if cls is not SGD and ("momentum" in options or "nesterov" in options):
        raise ValueError(
            "momentum applies to optimizer='sgd'; Adam has betas=(0.9, 0.999) instead"
        )
    if lr is None:
        lr = 0.01 if cls is SGD else 0.001
    return cls(params, lr=lr, **options)
