"""``MLP``: a multi-layer perceptron whose activations are compiled symnb kernels.

>>> import symnb
>>> from symnb import datasets
>>> X, y = datasets.two_moons(400, noise=0.1, seed=0)
>>> swish = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.0)
>>> model = symnb.nn.MLP([2, 16, 16, 1], activation=swish, loss="bce_with_logits")
>>> history = model.fit(X, y, epochs=50, lr=0.01)          # doctest: +SKIP
>>> model.evaluate(X, y)["accuracy"]                       # doctest: +SKIP

The activation's backend is the backend that trains: activations (forward and
derivative, fused) run in the compiled kernels, matrix products in NumPy (CuPy on the
GPU).
"""

from __future__ import annotations

import copy
import errno
import functools
import itertools
import math
import os
import secrets
import stat
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from symnb.backends.select import check_device, check_dtype
from symnb.checks import (
    check_flag,
    check_no_booleans,
    check_no_nul,
    check_not_masked,
    check_seed,
    masked_entries,
    warn_caller,
)
from symnb.datasets import rng_from_seed
from symnb.memory import check_fits

from . import init as init_mod
from . import metrics as metrics_mod
from .layers import Dense, LayerActivation, resolve_activation
from .losses import SoftmaxCrossEntropy, TrainingLoss, resolve_loss
from .optim import Parameter, Parameters
from .train import (
    History,
    TrainingDiverged,
    _Diverged,
    _domain_guarded,
    _left_domain,
    check_optimizer,
    check_penalty,
    deferred_interrupts,
    epoch_order,
    run_epoch,
)
from .train import fit as _fit

__all__ = ["MLP", "load"]

FORMAT_VERSION = 1
_FORMAT_TAG = "symnb.nn.MLP"


def _refuse_unused_activation(activation: Any, sizes: list[int]) -> None:
    """A ``ValueError`` for an activation given to a network without hidden layers:
    ``activation`` applies to hidden layers only, so ``MLP([2, 1],
    activation="tanh")`` built a linear model without a word (``compare`` refuses
    ``hidden=()`` for the same reason). The default ("relu"), None and an empty
    list (what ``repr`` and ``load`` write for such a network) name no activation
    and are kept."""
    if activation is None or (isinstance(activation, str) and activation == "relu"):
        return
    if isinstance(activation, (list, tuple)) and len(activation) == 0:
        return
    shown = getattr(activation, "name", None) or activation
    raise ValueError(
        f"activation={shown!r:.60} is used by no layer: sizes {sizes} has no hidden "
        "layer, and activation applies to hidden layers only; add a hidden layer "
        f"(e.g. sizes [{sizes[0]}, 16, {sizes[-1]}]), give the output's activation "
        "as output=... (e.g. output='sigmoid'), or leave activation out for a "
        "linear model"
    )


def _is_atom(spec: Any) -> bool:
    """One activation (not a list of them): None, a name or formula text, an
    Activation, or a function/module object (``nn.SiLU()``, ``my_swish``)."""
    from symnb.formula.from_object import is_code_object

    return (
        spec is None
        or isinstance(spec, str)
        or hasattr(spec, "expr")
        or is_code_object(spec)
    )


def _to_host(array: Any) -> np.ndarray:
    """A NumPy array of ``array``: a CuPy array is copied from the GPU; anything else
    (NumPy, lists, pandas Series/DataFrame, which also have a ``get`` method) goes
    through ``np.asarray``."""
    if type(array).__module__.startswith("cupy"):
        return array.get()
    return np.asarray(array)


#: Inference runs in blocks of rows whose layer buffers hold about this many bytes.
_INFER_BYTES = 1 << 26


def _warn_flushed(Xh: np.ndarray, Xd: np.ndarray, what: str, dtype: np.dtype) -> None:
    """Warn (at the caller's line) where a nonzero value of X became 0 in the
    network's dtype: float64 data below float32's smallest magnitude (1e-310 in a
    float32 MLP) was silently zero, where a value too large is refused."""
    flushed = (Xd == 0) & (Xh != 0)
    count = int(np.count_nonzero(flushed))
    if count:
        r, c = (int(v) for v in np.argwhere(flushed)[0])
        warn_caller(
            f"{what}: {count} nonzero value(s) of X became 0 in the network's "
            f"{dtype.name} (smallest magnitude {float(np.finfo(dtype).smallest_subnormal):.3g}),"
            f" e.g. X[{r}, {c}] = {Xh[r, c].item()!r}; scale the data (e.g. "
            "standardise each column) or build the network with dtype='float64'"
        )


def _refuse_masked(array: Any, name: str, what: str) -> None:
    """A masked array with masked entries: ``np.asarray`` drops the mask, so the
    hidden values under it would be trained on (or predicted) as ordinary data."""
    masked = masked_entries(array)
    if masked:
        raise ValueError(
            f"{what + ': ' if what else ''}{name} is a masked array with "
            f"{masked[0]} masked "
            f"entries (the first at [{masked[1]}]); their hidden values would be used "
            f"as data: fill them ({name.rsplit(': ', 1)[-1]}.filled(value)) or drop "
            "those rows first"
        )


def _numbers_from_objects(array: np.ndarray, what: str) -> np.ndarray:
    """An object array of numbers (a pandas frame of nullable ``Float64``/``Int64``
    columns, a mixed-type frame) as float64; a cell that is no number (``pd.NA``,
    ``None``, a string) is named by its position."""
    try:
        return array.astype(np.float64)
    except (TypeError, ValueError):
        pass
    for index, value in np.ndenumerate(array):
        try:
            float(value)
        except (TypeError, ValueError):
            where = ", ".join(str(i) for i in index)
            raise ValueError(
                f"{what}: X[{where}] is {value!r:.40}, not a number; fill or drop "
                "missing values and encode text columns as numbers first"
            ) from None
    return array.astype(np.float64)


def _exclusive(nests: bool) -> Any:
    """One training call at a time per model. ``fit`` (or ``train_epoch``) called
    from a callback of ``fit`` ran inside it: both advanced the same weights,
    ``epochs_trained`` counted 3 of 5 epochs and ``model.history`` became the inner
    run's; two threads training one model mixed their steps in the same buffers
    (torn gradients, 22 of 40 epochs counted) without a word. A call that ``nests``
    (``train_step``, ``loss_and_gradient``) may run from a callback of the running
    call on its thread, between its steps, as before."""

    def decorate(method: Any) -> Any:
        name = method.__name__

        @functools.wraps(method)
        def exclusive(self: MLP, *args: Any, **kwargs: Any) -> Any:
            me = threading.get_ident()
            running, owner = self._training_call
            if owner == me:
                if nests:
                    return method(self, *args, **kwargs)
                raise RuntimeError(
                    f"{name}: this model is inside its own {running} (called from "
                    "a callback?); a callback can stop training (return True, or "
                    "set model.stop_training = True) and train again after it "
                    "returns"
                )
            if not self._training_lock.acquire(blocking=False):
                running = self._training_call[0]
                raise RuntimeError(
                    f"{name}: this model is running {running} in another thread; "
                    "wait for it to end, or train a copy (copy.deepcopy(model))"
                )
            try:
                self._training_call = (name, me)
                return method(self, *args, **kwargs)
            finally:
                self._training_call = ("", None)
                self._training_lock.release()

        return exclusive

    return decorate


class _Buffers:
    """Preallocated arrays of one batch size (reused every step: no fresh pages) and the
    per-layer plans of the forward and backward passes (array views bound once).

    Three arrays per layer: ``z`` (pre-activation), ``a`` (output) and ``da`` (f'(z)).
    The backward pass reuses them: ``g * f'(z)`` overwrites ``da``, and the gradient
    with respect to a layer's input overwrites that input's ``a`` once the weight
    gradient (the last reader of ``a``) has been computed. Fewer arrays, fewer cache
    misses.
    """

    __slots__ = ("a", "bwd", "da", "fwd", "gout", "ones", "z")

    def __init__(self, model: MLP, n: int) -> None:
        xp, dtype, sizes = model.xp, model.dtype, model.sizes
        flags = model._act_flags
        outs = sizes[1:]
        # z, a and da per layer, the output gradient and a row of ones: each below
        # the memory, together above it, they were granted and the process killed
        # when filled (fit(X, y, batch_size=None) on millions of rows)
        active = sum(w for w, f in zip(outs, flags) if f)
        check_fits(
            n * dtype.itemsize * (sum(outs) + 2 * active + outs[-1] + 1),
            f"the training buffers for batches of {n:,} rows (network {sizes})",
            "Use a smaller batch_size (batch_size=None trains on every row at once).",
        )
        self.z = [xp.empty((n, w), dtype) for w in outs]
        self.a = [xp.empty((n, w), dtype) if f else None for w, f in zip(outs, flags)]
        self.da = [xp.empty((n, w), dtype) if f else None for w, f in zip(outs, flags)]
        self.gout = xp.empty((n, outs[-1]), dtype)
        self.ones = xp.ones((1, n), dtype)
        # forward plan: (W, b, forward_with_derivative or None, z, (a, da))
        self.fwd = []
        for i, layer in enumerate(model.layers):
            act = layer.activation
            method = None if act is None else act.kernel.forward_with_derivative
            self.fwd.append(
                (
                    layer.weight.data,
                    layer.bias.data,
                    method,
                    self.z[i],
                    None if act is None else (self.a[i], self.da[i]),
                )
            )
        # backward plan, last layer first:
        # (i, da (becomes delta), a_prev or None (= the input), dW, db (1, k), W.T,
        #  gin (= a_prev's buffer), mask, learnable (LayerActivation, z, grad) or None)
        self.bwd = []
        for i in range(len(model.layers) - 1, -1, -1):
            layer = model.layers[i]
            a_prev = None
            if i > 0:
                a_prev = self.a[i - 1] if flags[i - 1] else self.z[i - 1]
            learn = None
            if layer.constants is not None:
                learn = (layer.activation, self.z[i], layer.constants.grad)
            self.bwd.append(
                (
                    i,
                    self.da[i],
                    a_prev,
                    layer.weight.grad,
                    layer.bias.grad.reshape(1, -1),
                    layer.weight.data.T,
                    a_prev,
                    layer.mask,
                    learn,
                )
            )


def _check_memory(sizes: list[int], dtype: np.dtype) -> None:
    """MemoryError, before anything is allocated, for a network that cannot fit this
    machine's memory (``MLP([2, 10**9, 1])`` was killed by the system, the notebook's
    kernel with it). Counted: a float64 host copy of the weights and biases, then
    weights, gradient and two optimiser moments in ``dtype``, and the per-neuron
    bookkeeping of each layer."""
    params = sum(a * b + b for a, b in itertools.pairwise(sizes))
    check_fits(
        params * (8 + 4 * dtype.itemsize) + sum(sizes[1:]) * 64,
        f"a network of sizes {sizes} ({params:.3g} weights and biases)",
        "Use narrower or fewer layers.",
    )


#: Attributes that describe the network as built; assigning one is refused.
_BUILT_FIELDS = frozenset(
    {"sizes", "dtype", "task", "backend", "device", "strict", "xp", "layers"}
)


class MLP:
    """A fully connected network ``sizes[0] -> sizes[1] -> ... -> sizes[-1]``.

    Parameters
    ----------
    sizes:
        layer widths, input first, e.g. ``[2, 16, 16, 1]``.
    activation:
        of the hidden layers: one ``Activation`` (or library name, or formula text) for
        all; a list with one entry per hidden layer; and an entry may itself be a list
        with one activation per neuron (a heterogeneous layer, compiled into one layer
        kernel).
    output:
        activation of the output layer (default none: linear outputs, i.e. logits for
        the classification losses). ``loss="bce"`` implies a sigmoid output.
    loss:
        ``"mse"`` (default), ``"bce_with_logits"``, ``"cross_entropy"`` (softmax,
        multi-class), any library loss name, or any ``symnb.Loss`` (user formulas).
    backend, device, dtype, strict:
        passed to the kernels' compile (``"auto"``, ``"numpy"``, ``"cpp"``, ``"cuda"``).
    seed:
        seeds the weights (and the default shuffling): the same seed gives the same
        weights and, on the same backend, the same training curve.
    init, bias_init:
        weight/bias initialisers: a name (``"he_uniform"``, ``"he_normal"``,
        ``"xavier_uniform"``, ``"xavier_normal"``, ``"lecun_uniform"``,
        ``"lecun_normal"``, ``"orthogonal"``, ``"zeros"``), a number (constant), a
        function ``(shape, rng)``, or a list with one per layer. Default: chosen from
        each layer's activation (:func:`symnb.nn.init.default_for`), biases zero.
    masks:
        optional fixed 0/1 connection masks, a list with one ``(fan_in, fan_out)`` array
        (or ``None``) per layer, or a dict layer index -> array; masked weights stay
        zero.
    task:
        ``"regression"``, ``"binary"`` or ``"multiclass"``; by default decided by the
        loss.
    fused:
        the cpp backend trains with one generated native call per minibatch
        (forward, loss, backward and the SGD/Adam update; :mod:`symnb.nn.fused`)
        whenever the configuration allows (default ``None``); ``False`` forces the
        generic path (NumPy matrix products around the activation kernels), ``True``
        raises if the fused step cannot be used. ``None`` keeps layers with more than
        :data:`symnb.nn.fused.AUTO_MAX_LAYER_WEIGHTS` weights on the generic path
        (BLAS is faster there). ``model.fused`` tells which path trains,
        ``model.fused_reason`` why not.
    """

    def __init__(
        self,
        sizes: Sequence[int],
        activation: Any = "relu",
        output: Any = None,
        loss: Any = "mse",
        backend: str = "auto",
        device: int | None = 0,
        seed: int | None = 0,
        dtype: str = "float32",
        init: Any = None,
        bias_init: Any = "zeros",
        masks: Any = None,
        task: str | None = None,
        strict: bool = False,
        fused: bool | None = None,
    ) -> None:
        self._training_lock = threading.Lock()
        self._training_call: tuple[str, int | None] = ("", None)
        # held while a step (or the whole-epoch native call) writes the parameters
        # and while a snapshot (save, pickle, copy) reads them: a snapshot sees the
        # model between steps, never half of one
        self._state_lock = threading.RLock()
        sizes = self._check_sizes(sizes)
        self.sizes = sizes
        if dtype is None:  # np.dtype(None) is float64, not the default float32
            raise TypeError(
                "dtype must be 'float32' (the default) or 'float64', got None"
            )
        try:  # the dtypes compile takes ('FLOAT64', 'f8', np.float64)
            self.dtype = np.dtype(check_dtype(dtype))
        except ValueError:
            try:
                np.dtype(dtype)
            except TypeError:
                raise TypeError(
                    f"dtype must be 'float32' or 'float64', got {dtype!r:.80}"
                ) from None
            raise ValueError(
                f"dtype must be 'float32' or 'float64', got {dtype!r:.80}"
            ) from None
        _check_memory(sizes, self.dtype)
        if task not in (None, "regression", "binary", "multiclass"):
            raise ValueError(
                f"task must be 'regression', 'binary' or 'multiclass', got {task!r}"
            )
        self.seed = seed = check_seed(seed)
        self.requested_backend = backend
        if device is not None:
            device = check_device(device)  # an index, 'cuda' or 'cuda:N'
        self.device = device
        if not isinstance(strict, (bool, np.bool_)):
            raise TypeError(
                f"strict must be True or False, got {strict!r} (True: raise instead "
                "of falling back to another backend)"
            )
        self.strict = bool(strict)
        n_layers = len(sizes) - 1

        hidden = self._hidden_specs(activation, sizes)
        bce = ("bce", "binary_cross_entropy")
        if output is None and isinstance(loss, str) and loss.strip().lower() in bce:
            output = "sigmoid"  # bce takes probabilities
        out_acts = self._layer_list(output, sizes[-1], "output")
        per_layer = hidden + [out_acts]
        self._loss: TrainingLoss = resolve_loss(
            loss, task, has_output_activation=any(a is not None for a in out_acts)
        )
        self.task = self._loss.task if task is None else task
        _refuse_sigmoid_before_logits(out_acts, self._loss)
        if self.task == "multiclass" and sizes[-1] < 2:
            raise ValueError(
                "multi-class classification needs one output per class "
                "(sizes[-1] >= 2); "
                "for two classes use sizes[-1] = 1 with loss='bce_with_logits'"
            )
        if self.task == "binary" and sizes[-1] != 1:
            raise ValueError(
                f"loss {self._loss.name!r} is binary: the last size must be 1, "
                f"got {sizes[-1]}"
            )

        # compile: the first kernel resolves "auto"; every other kernel uses that
        # backend
        layer_acts: list[LayerActivation | None] = []
        resolved = backend
        for acts in per_layer:
            if all(a is None for a in acts):
                layer_acts.append(None)
                continue
            if any(a is None for a in acts):
                symnb = _symnb()
                acts = [
                    a if a is not None else symnb.Activation("x", name="identity")
                    for a in acts
                ]
            la = LayerActivation(
                acts,
                backend=resolved,
                device=device,
                dtype=self.dtype.name,
                strict=strict,
            )
            resolved = la.backend
            layer_acts.append(la)
        self._loss.compile(resolved, device, self.dtype.name, strict)
        if resolved == "auto":
            resolved = getattr(getattr(self._loss, "kernel", None), "backend", "numpy")
        self.backend = resolved
        xp = np
        for la in layer_acts:
            if la is not None:
                xp = la.xp
                break
        else:
            kernel_xp = getattr(getattr(self._loss, "kernel", None), "xp", None)
            if kernel_xp is not None:
                xp = kernel_xp
            elif resolved == "cuda":
                import cupy

                xp = cupy
        self.xp = xp
        if isinstance(self._loss, SoftmaxCrossEntropy):
            self._loss.xp = xp
        self._check_probability_output(layer_acts[-1])

        # parameters: one flat buffer (weights, then biases, then learnable constants)
        masks_list = self._check_masks(masks, sizes)
        n_w = sum(sizes[i] * sizes[i + 1] for i in range(n_layers))
        n_b = sum(sizes[1:])
        n_c = sum(la.n_learnable for la in layer_acts if la is not None)
        total = n_w + n_b + n_c
        host = np.zeros(total, dtype=np.float64)
        rng = np.random.default_rng(seed)
        inits = self._per_layer(init, n_layers, "init")
        binits = self._per_layer(bias_init, n_layers, "bias_init")
        w_off, b_off, c_off = 0, n_w, n_w + n_b
        slices = []
        for i in range(n_layers):
            fi, fo = sizes[i], sizes[i + 1]
            la = layer_acts[i]
            names = la.names() if la is not None else ["identity"]
            spec = inits[i] if inits[i] is not None else init_mod.default_for(names)
            W = init_mod.initial_array(
                init_mod.get(spec), (fi, fo), rng, f"the initialiser of layer {i}"
            )
            if masks_list[i] is not None:
                W = W * masks_list[i]
            b = init_mod.initial_array(
                init_mod.get(binits[i] if binits[i] is not None else "zeros"),
                (fo,),
                rng,
                f"the bias initialiser of layer {i}",
            )
            host[w_off : w_off + fi * fo] = W.ravel()
            host[b_off : b_off + fo] = b
            k = la.n_learnable if la is not None else 0
            if k:
                host[c_off : c_off + k] = la.initial_values
            slices.append(((w_off, fi, fo), (b_off, fo), (c_off, k)))
            w_off += fi * fo
            b_off += fo
            c_off += k
        self._flat = xp.asarray(self._stored_initial(host, slices))
        self._flat_grad = xp.zeros(total, dtype=self.dtype)
        self._backup = xp.empty_like(self._flat)
        # sum of all entries as one dot product: NaN/inf anywhere makes it NaN/inf
        self._ones_flat = xp.ones_like(self._flat)
        self._n_weights = n_w
        self.layers: list[Dense] = []
        params: list[Parameter] = []
        for i, ((wo, fi, fo), (bo, _), (co, k)) in enumerate(slices):
            W = Parameter(
                f"layers.{i}.weight",
                self._flat[wo : wo + fi * fo].reshape(fi, fo),
                self._flat_grad[wo : wo + fi * fo].reshape(fi, fo),
                "weight",
                views=True,
            )
            b = Parameter(
                f"layers.{i}.bias",
                self._flat[bo : bo + fo],
                self._flat_grad[bo : bo + fo],
                "bias",
                views=True,
            )
            c = None
            if k:
                c = Parameter(
                    f"layers.{i}.constants",
                    self._flat[co : co + k],
                    self._flat_grad[co : co + k],
                    "constant",
                    views=True,
                )
            mask_host = masks_list[i]
            mask = (
                None if mask_host is None else xp.asarray(mask_host.astype(self.dtype))
            )
            layer = Dense(fi, fo, layer_acts[i], W, b, c, mask, mask_host)
            self.layers.append(layer)
            params.extend(p for p in (W, b, c) if p is not None)
            if c is not None:
                layer_acts[i].set_values(c.data)
        self._params = Parameters(params, self._flat, self._flat_grad, n_w)
        self._act_flags = [la is not None for la in layer_acts]
        self._learnable_layers = [
            layer for layer in self.layers if layer.constants is not None
        ]
        self._masked_layers = [layer for layer in self.layers if layer.mask is not None]
        self._buffers: dict[int, _Buffers] = {}
        self._shuffle_buffers: Any = None
        # inference has its own buffers: a widget may predict while a thread trains
        self._infer_buffers: dict[int, tuple[list[Any], list[Any]]] = {}
        self._scratch_w = None
        self._shuffle = np.random.default_rng(
            None if seed is None else [int(seed), 7919]
        )
        self.history: History | None = None
        self.epochs_trained = 0
        self.stop_training = False
        self._config = {
            "sizes": list(sizes),
            "activation": per_layer,
            "loss": self._loss,
            "dtype": self.dtype.name,
            "seed": seed,
            "task": task,
            "backend": backend,
        }
        self._fused_impl: Any = None
        if fused is not None and not isinstance(fused, bool):
            raise TypeError(f"fused must be True, False or None, got {fused!r}")
        self._fused_option = fused
        if fused is False:
            self._fused_reason: str | None = "disabled (fused=False)"
        else:
            from .fused import auto_reason, unsupported_reason

            if fused:
                self._fused_reason = unsupported_reason(self)
                if self._fused_reason is not None:
                    raise ValueError(f"fused=True: {self._fused_reason}")
            else:
                self._fused_reason = auto_reason(self)
            # built now, like the activation kernels (not inside the first fit)
            self._fused_step()
        self._built = True  # from here on, see __setattr__

    def __setattr__(self, name: str, value: Any) -> None:
        # m.sizes = [2, 5, 1] was kept and the next fit failed inside NumPy ("output
        # array has wrong dimensions"); m.dtype = "float16" with "'str' object has
        # no attribute 'itemsize'": these describe the network built, not settings
        if name in _BUILT_FIELDS and self.__dict__.get("_built"):
            shown = repr(self.__dict__.get(name))
            example = (
                "symnb.nn.MLP([2, 16, 1], ...)"
                if name == "sizes"
                else f"symnb.nn.MLP(sizes, ..., {name}=...)"
            )
            raise AttributeError(
                f"MLP.{name} is fixed when the network is built ({name}="
                f"{shown if len(shown) <= 60 else shown[:57] + '...'}); build a new "
                f"network for another one, e.g. {example}"
            )
        super().__setattr__(name, value)

    # ------------------------------------------------ construction
    def _stored_initial(self, host: np.ndarray, slices: list) -> np.ndarray:
        """The initial parameters in the network's dtype; a ValueError naming the
        layer when one does not fit it (init=1e300 or bias_init=1e39 became inf in
        float32, init=1e-50 became 0, without a word)."""
        with np.errstate(over="ignore", under="ignore"):
            stored = host.astype(self.dtype)
        bad = ~np.isfinite(stored) | ((host != 0) & (stored == 0))
        if not bad.any():
            return stored
        j = int(np.flatnonzero(bad)[0])
        where = "a parameter"
        for i, ((w_off, fi, fo), (b_off, nb), (c_off, k)) in enumerate(slices):
            if w_off <= j < w_off + fi * fo:
                where = f"the initial weights of layer {i} (init)"
            elif b_off <= j < b_off + nb:
                where = f"the initial biases of layer {i} (bias_init)"
            elif c_off <= j < c_off + k:
                where = f"the initial learnable constants of layer {i}"
        info = np.finfo(self.dtype)
        raise ValueError(
            f"{where} hold {float(host[j])!r}, which {self.dtype.name} cannot hold "
            f"(finite values from {info.smallest_subnormal:.3g} to {info.max:.4g} in "
            "magnitude, or 0); use initial values in that range or dtype='float64'"
        )

    def _check_probability_output(self, out: LayerActivation | None) -> None:
        """``loss="bce"`` takes probabilities: an output layer that can leave [0, 1]
        (linear, relu, tanh...) is refused here, on every path (the fused step would
        only report a NaN loss), with the way out."""
        if getattr(self._loss, "library_name", None) != "bce":
            return
        fix = (
            "use output='sigmoid' (the default with loss='bce') or "
            "loss='bce_with_logits'"
        )
        if out is None:
            raise ValueError(
                f"loss='bce' takes probabilities in [0, 1], but the output layer is "
                f"linear; {fix}"
            )
        xp = self.xp
        grid = np.concatenate([np.linspace(-60, 60, 241), [-1e4, -1e3, 1e3, 1e4]])
        z = np.repeat(grid[:, None], self.sizes[-1], axis=1).astype(self.dtype)
        values = _to_host(out.kernel.forward(xp.ascontiguousarray(xp.asarray(z))))
        outside = np.isfinite(values) & ((values < 0) | (values > 1))
        if outside.any():
            row = int(np.argwhere(outside)[0][0])
            raise ValueError(
                f"loss='bce' takes probabilities in [0, 1], but the output activation "
                f"{out.describe()} gives {float(values[outside][0]):.4g} at "
                f"z = {float(grid[row]):.4g}; {fix}"
            )

    @staticmethod
    def _check_sizes(sizes: Any) -> list[int]:
        if isinstance(sizes, (str, bytes, set, frozenset, dict)):
            # a set or dict iterates in its own order ({2, 3, 1} became [1, 2, 3]),
            # a string by characters
            raise TypeError(
                "sizes must be an ordered list of layer widths such as [2, 16, 1], "
                f"got a {type(sizes).__name__}: {sizes!r:.80}"
            )
        try:
            sizes = [s for s in sizes]
        except TypeError:
            raise TypeError(
                f"sizes must be a list of layer widths, got {sizes!r}"
            ) from None
        if len(sizes) < 2:
            raise ValueError(
                f"sizes needs at least an input and an output size, got {sizes!r}"
            )
        for s in sizes:
            if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1:
                raise ValueError(
                    f"every size must be a positive integer, got {sizes!r}"
                )
        return [int(s) for s in sizes]

    def _layer_list(self, spec: Any, width: int, where: str) -> list[Any]:
        if _is_atom(spec):
            act = resolve_activation(spec)
            return [act] * width
        spec = _as_list(spec, "output" if where == "output" else "activation")
        if len(spec) != width:
            raise ValueError(
                f"the per-neuron activation list of the {where} layer has {len(spec)} "
                f"entries, but the layer has {width} neurons"
            )
        cache: dict[int, Any] = {}
        result = []
        for j, s in enumerate(spec):
            if not _is_atom(s):
                raise TypeError(f"a per-neuron entry must be one activation, got {s!r}")
            if id(s) not in cache:  # a bad text says which neuron it is
                cache[id(s)] = resolve_activation(s, f"{where} layer, neuron {j}")
            result.append(cache[id(s)])
        return result

    def _hidden_specs(self, activation: Any, sizes: list[int]) -> list[list[Any]]:
        widths = sizes[1:-1]
        if not widths:
            _refuse_unused_activation(activation, sizes)
            return []
        if _is_atom(activation):
            return [
                self._layer_list(activation, w, f"hidden {i}")
                for i, w in enumerate(widths)
            ]
        spec = _as_list(activation, "activation")
        if len(spec) == len(widths):
            for i, s in enumerate(spec):  # a bad text says which layer it is
                if _is_atom(s):
                    resolve_activation(s, f"hidden {i} layer")
            return [
                self._layer_list(s, w, f"hidden {i}")
                for i, (s, w) in enumerate(zip(spec, widths))
            ]
        if (
            len(widths) == 1
            and len(spec) == widths[0]
            and all(_is_atom(s) for s in spec)
        ):
            return [self._layer_list(spec, widths[0], "hidden 0")]
        raise ValueError(
            f"activation is a list of {len(spec)} entries, but the network has "
            f"{len(widths)} hidden layers (sizes {sizes}); give one entry per "
            "hidden layer "
            "(an entry may be a per-neuron list)"
        )

    @staticmethod
    def _per_layer(spec: Any, n_layers: int, what: str) -> list[Any]:
        if isinstance(spec, (list, tuple)):
            if len(spec) != n_layers:
                raise ValueError(
                    f"{what} has {len(spec)} entries but the network has "
                    f"{n_layers} layers"
                )
            return list(spec)
        return [spec] * n_layers

    @staticmethod
    def _check_masks(masks: Any, sizes: list[int]) -> list[np.ndarray | None]:
        n_layers = len(sizes) - 1
        if masks is None:
            return [None] * n_layers
        if isinstance(masks, dict):
            listed: list[Any] = [None] * n_layers
            for k, v in masks.items():
                if not isinstance(k, (int, np.integer)) or not 0 <= k < n_layers:
                    raise ValueError(
                        f"mask key {k!r} is not a layer index 0..{n_layers - 1}"
                    )
                listed[int(k)] = v
            masks = listed
        if not isinstance(masks, (list, tuple)):
            # list(3) raised "'int' object is not iterable", a string gave one mask
            # per character, and one array one mask per row ("masks has 2 entries")
            example = ", ".join(["None"] * n_layers)
            raise TypeError(
                f"masks must be a list with one 0/1 array (or None) per layer, or a "
                f"dict layer index -> array; got {type(masks).__name__}, e.g. "
                f"masks=[{example}] with an array of shape (fan_in, fan_out) in place "
                "of a None"
            )
        masks = list(masks)
        if len(masks) != n_layers:
            raise ValueError(
                f"masks has {len(masks)} entries but the network has {n_layers} layers"
            )
        result = []
        for i, m in enumerate(masks):
            if m is None:
                result.append(None)
                continue
            try:
                arr = np.asarray(_to_host(m), dtype=np.float64)
            except (TypeError, ValueError) as exc:  # "could not convert string"
                raise TypeError(
                    f"the mask of layer {i} must be an array of 0 and 1, got "
                    f"{m!r:.60} ({exc})"
                ) from None
            shape = (sizes[i], sizes[i + 1])
            if arr.shape != shape:
                raise ValueError(
                    f"the mask of layer {i} has shape {arr.shape}, expected {shape}"
                )
            if not np.all((arr == 0) | (arr == 1)):
                raise ValueError(f"the mask of layer {i} must contain only 0 and 1")
            result.append(arr)
        return result

    # ------------------------------------------------ parameters
    def parameters(self) -> Parameters:
        """All trainable parameters (weights, biases, learnable constants), as views of
        one flat buffer; pass to ``symnb.nn.SGD``/``Adam``."""
        return self._params

    @property
    def n_parameters(self) -> int:
        return int(self._flat.size)

    def get_flat_parameters(self) -> np.ndarray:
        """A NumPy copy of every parameter (the flat layout of ``parameters()``),
        taken between training steps when ``fit`` runs in another thread."""
        with self._state_lock:
            return _to_host(self._flat).copy()

    @_exclusive(nests=True)
    def set_flat_parameters(self, values: Any) -> None:
        """Overwrite every parameter from a flat array (as returned by
        :meth:`get_flat_parameters`)."""
        check_not_masked(values, "set_flat_parameters: values")
        raw = np.asarray(_to_host(values))
        check_no_booleans(values, raw, "set_flat_parameters: values", "parameters")
        if raw.dtype.kind not in "biuf":
            raise TypeError(
                f"set_flat_parameters: values have dtype {raw.dtype}; pass real numbers "
                "(the array get_flat_parameters returns; for complex values, .real)"
            )
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            values = raw.astype(self.dtype, copy=False)
        if values.shape != self._flat.shape:
            raise ValueError(
                f"set_flat_parameters: expected {self._flat.size} values (shape "
                f"({self._flat.size},)), got shape {values.shape}"
            )
        bad = ~np.isfinite(values)
        if bad.any():
            # 1e300 was "parameters must be finite" though finite: it overflowed
            # float32 (values below its range become 0, as NumPy rounds them)
            i = int(np.flatnonzero(bad)[0])
            given = raw[i].item()
            why = (
                "parameters must be finite"
                if not np.isfinite(given)
                else f"it is beyond the network's {self.dtype.name} (largest "
                f"{np.finfo(self.dtype).max:.4g}); scale it or build the network with "
                "dtype='float64'"
            )
            raise ValueError(
                f"set_flat_parameters: values[{i}] is {given!r}: {why} "
                f"({int(bad.sum())} such values)"
            )
        self._refuse_lost_constant(raw, values)
        with self._state_lock:
            previous = self._flat.copy()
            self._flat[...] = self.xp.asarray(values)
            try:
                self._sync_constants()
            except ValueError:  # a FormulaError from a checked write
                self._flat[...] = previous
                self._sync_constants()
                raise
            # the constants' kernels take these writes unchecked (the trainer's
            # path); a softplus beta of 0 or a hardtanh min_val above max_val then
            # gave inf or a constant network without a word
            problem = _left_domain(self, _domain_guarded(self), previous)
        if problem is not None:
            raise ValueError(
                f"set_flat_parameters: a learnable constant would leave its domain "
                f"({problem}); nothing was changed"
            )

    def _refuse_lost_constant(self, raw: np.ndarray, stored: np.ndarray) -> None:
        """A ValueError naming the constant when a nonzero learnable constant of
        ``raw`` became 0 in the network's dtype (1e-50 in float32): weights that
        small are rounded as NumPy rounds them, but a constant of 0 changes the
        formula (x/c, softplus's 1/beta)."""
        start = self._flat.size - sum(
            layer.constants.data.size for layer in self._learnable_layers
        )
        lost = np.flatnonzero((raw[start:] != 0) & (stored[start:] == 0))
        if not lost.size:
            return
        i = start + int(lost[0])
        offset = start
        for index, layer in enumerate(self.layers):
            k = 0 if layer.constants is None else layer.constants.data.size
            if offset <= i < offset + k:
                label = layer.activation.labels[i - offset]
                info = np.finfo(self.dtype)
                raise ValueError(
                    f"set_flat_parameters: values[{i}] (learnable constant "
                    f"{label!r} of layer {index}) is {raw[i].item()!r}, which the "
                    f"network's {self.dtype.name} holds as 0 (nonzero values from "
                    f"{info.smallest_subnormal:.3g} in magnitude); use a value in "
                    "that range, or 0, or build the network with dtype='float64'"
                )
            offset += k

    def _sync_constants(self) -> None:
        for layer in self._learnable_layers:
            layer.activation.set_values(layer.constants.data)

    def learned_constants(self) -> list[dict[str, Any]]:
        """For each layer, its learnable constants' current values (see
        :meth:`Dense.learned_constants`), all of one step boundary when ``fit`` runs
        in another thread (read layer by layer, they mixed two steps)."""
        with self._state_lock:
            return [layer.learned_constants() for layer in self.layers]

    # ------------------------------------------------ data
    def _prepare(self, X: Any, y: Any, what: str = "data") -> tuple[Any, Any, int]:
        """Check and convert once: X (n, sizes[0]) finite; targets to the loss's layout."""
        Xd, n = self._prepare_X(X, what)
        if y is None:
            raise ValueError(f"{what}: y is missing")
        _refuse_masked(y, "y", what)
        try:
            yh = np.asarray(_to_host(y))
        except (TypeError, ValueError, RuntimeError) as exc:  # ragged, grad tensors
            raise ValueError(
                f"{what}: y must be an array of numbers, one per row of X; NumPy "
                f"could not convert it: {exc}"
            ) from None
        if yh.ndim == 0:
            raise ValueError(f"{what}: y must be an array with one entry per row of X")
        if yh.dtype.kind == "O":  # e.g. a pandas object column of numbers
            try:
                yh = yh.astype(np.float64)
            except (TypeError, ValueError):
                pass
        if yh.dtype.kind not in "iubf":
            example = np.unique(yh.ravel()[:1000]).tolist()[:3] if yh.size else []
            raise ValueError(
                f"{what}: y must hold numbers, got dtype {yh.dtype} (values such as "
                f"{example}); encode the labels as integers first (e.g. "
                "np.unique(y, return_inverse=True)[1]), or use "
                "symnb.nn.MLPClassifier, which takes any labels"
            )
        if yh.shape[0] != n:
            raise ValueError(f"{what}: X has {n} rows but y has {yh.shape[0]}")
        k = self.sizes[-1]
        if not yh.flags.c_contiguous:
            # a broadcast or strided y takes no memory, its readings do (float64,
            # then the network's dtype) beside X's copy: a broadcast y of 2**31 rows
            # passed X's check and then got the process killed
            check_fits(
                int(getattr(Xd, "nbytes", 0))
                + int(yh.size) * (8 + self.dtype.itemsize)
                + (n * k * self.dtype.itemsize if self.task == "multiclass" else 0),
                f"{what}: y of shape {yh.shape} ({yh.dtype}, a view) read as float64 "
                f"beside X's {self.dtype.name} copy",
                "Pass fewer rows at a time.",
            )
        if self.task == "multiclass":
            if yh.ndim == 2 and yh.shape[1] == 1:
                yh = yh[:, 0]
            if yh.ndim != 1:
                raise ValueError(
                    f"{what}: multi-class targets are class labels of shape (n,), "
                    f"got shape {yh.shape}"
                )
            integral = yh.dtype.kind in "iub" or (
                yh.dtype.kind == "f"
                and np.all(np.isfinite(yh))
                and np.all(yh == np.round(yh))
            )
            if not integral:
                raise ValueError(f"{what}: class labels must be integers 0..{k - 1}")
            labels = yh.astype(np.int64)
            bad = np.flatnonzero((labels < 0) | (labels >= k))
            if bad.size:
                raise ValueError(
                    f"{what}: label {yh[bad[0]].item()!r} at row {bad[0]} is out of "
                    "range: the network "
                    f"has {k} outputs, so labels must be 0..{k - 1}"
                )
            if isinstance(self._loss, SoftmaxCrossEntropy):
                return Xd, self.xp.asarray(labels), n
            onehot = np.zeros((n, k), dtype=self.dtype)
            onehot[np.arange(n), labels] = 1
            return Xd, self.xp.asarray(onehot), n
        if self.task == "binary":
            flat = yh.reshape(n, -1) if yh.ndim > 1 else yh.reshape(n, 1)
            if flat.shape[1] != 1:
                raise ValueError(
                    f"{what}: binary targets must have shape (n,) or (n, 1), "
                    f"got {yh.shape}"
                )
            vals = flat.astype(np.float64)
            bad = np.flatnonzero(~((vals == 0) | (vals == 1)))
            if bad.size:
                raise ValueError(
                    f"{what}: binary labels must be 0 or 1; row {bad[0]} has "
                    f"{flat[bad[0], 0].item()!r}"
                )
            return Xd, self.xp.asarray(np.ascontiguousarray(vals, dtype=self.dtype)), n
        # regression
        if yh.dtype.kind not in "iubf":
            raise ValueError(
                f"{what}: regression targets must be numbers, got {yh.dtype}"
            )
        t = yh.reshape(n, -1) if yh.ndim > 1 else yh.reshape(n, 1)
        if t.shape[1] != k:
            raise ValueError(
                f"{what}: the network has {k} outputs but y has shape {yh.shape}"
            )
        t = t.astype(np.float64)
        bad = np.argwhere(~np.isfinite(t))
        if bad.size:
            raise ValueError(f"{what}: y is not finite at row {bad[0][0]}")
        big = float(np.finfo(self.dtype).max)
        bad = np.argwhere(np.abs(t) > big)
        if bad.size:  # would become inf in self.dtype: every loss then inf/NaN
            r, c = (int(v) for v in bad[0])
            raise ValueError(
                f"{what}: y at row {r} is {float(t[r, c])!r}, too large for the "
                f"network's {self.dtype.name} (largest {big:.4g}); scale the "
                "targets or build "
                "the network with dtype='float64'"
            )
        self._loss.check_targets(t, what)
        return Xd, self.xp.asarray(np.ascontiguousarray(t, dtype=self.dtype)), n

    def _prepare_X(self, X: Any, what: str = "data") -> tuple[Any, int]:
        if X is None:
            raise ValueError(f"{what}: X is missing")
        on_device = self.xp is not np and type(X).__module__.startswith("cupy")
        _refuse_masked(X, "X", what)
        try:
            Xh = X if on_device else np.asarray(X)
        except (TypeError, ValueError, RuntimeError) as exc:
            # ragged lists, odd objects; a torch tensor that requires grad raises
            # RuntimeError ("Can't call numpy() on Tensor that requires grad")
            raise ValueError(
                f"{what}: X must be a 2-D array of numbers (samples, "
                f"{self.sizes[0]} features); NumPy could not convert it: {exc}"
            ) from None
        refuse_wrapped(X, Xh, f"{what}: X", f"(samples, {self.sizes[0]} features)")
        if Xh.dtype.kind == "O" and not on_device:
            # pandas nullable columns (Float64, Int64) arrive as objects: they
            # were refused as "dtype object" even when every cell is a number
            Xh = _numbers_from_objects(Xh, what)
        if Xh.dtype.kind not in "iubf":
            raise ValueError(f"{what}: X must hold numbers, got dtype {Xh.dtype}")
        if Xh.ndim == 1 and self.sizes[0] == 1:
            Xh = Xh.reshape(-1, 1)
        if Xh.ndim != 2:
            raise ValueError(
                f"{what}: X must be 2-D (samples, {self.sizes[0]} features), "
                f"got shape {Xh.shape}"
            )
        n = int(Xh.shape[0])
        if n == 0:
            raise ValueError(f"{what}: X is empty (0 samples)")
        if Xh.shape[1] != self.sizes[0]:
            raise ValueError(
                f"{what}: X has {Xh.shape[1]} features per sample but the "
                "network's input size "
                f"is {self.sizes[0]}"
            )
        xp = self.xp
        if not on_device and not (Xh.flags.c_contiguous and Xh.dtype == self.dtype):
            # a broadcast or strided view of billions of rows takes no memory, its
            # copy does: NumPy's bare "Unable to allocate 745. GiB" at best, and
            # the process killed where the copy and the training buffers together
            # passed the memory
            check_fits(
                int(Xh.size) * self.dtype.itemsize,
                f"{what}: X of shape {Xh.shape} ({Xh.dtype}) as a contiguous "
                f"{self.dtype.name} array",
                "Pass fewer rows at a time (e.g. predict in chunks).",
            )
        with np.errstate(over="ignore"):  # too large for self.dtype: named below
            Xd = xp.ascontiguousarray(xp.asarray(Xh), dtype=self.dtype)
        finite = xp.isfinite(Xd)
        if not bool(finite.all()):
            r, c = (int(v) for v in _to_host(xp.argwhere(~finite)[0]))
            value = Xh[r, c].item()
            if math.isfinite(value):  # finite as given, too large for self.dtype
                raise ValueError(
                    f"{what}: X[{r}, {c}] = {value!r} does not fit the network's "
                    f"{self.dtype.name} (largest {float(np.finfo(self.dtype).max):.4g})"
                    "; scale the data (e.g. standardise each column) or build the "
                    "network with dtype='float64'"
                )
            raise ValueError(
                f"{what}: X contains NaN or infinity at row {r}, column {c}; "
                "clean or impute the data first"
            )
        if not on_device and Xh.dtype.kind == "f" and Xh.dtype != self.dtype:
            _warn_flushed(Xh, Xd, what, self.dtype)
        return Xd, n

    # ------------------------------------------------ forward/backward
    def _bufs(self, n: int) -> _Buffers:
        b = self._buffers.get(n)
        if b is None:
            if len(self._buffers) > 4:
                self._buffers.clear()
            b = self._buffers[n] = _Buffers(self, n)
        return b

    def _shuffled(self, X: Any, T: Any, order: np.ndarray) -> tuple[Any, Any]:
        """X[order], T[order] written into buffers kept between epochs."""
        xp = self.xp
        key = (X.shape, X.dtype.str, T.shape, T.dtype.str)
        cached = self._shuffle_buffers
        if cached is None or cached[0] != key:
            self._shuffle_buffers = None  # the old pair goes before the new one
            check_fits(
                2 * (int(X.nbytes) + int(T.nbytes)),
                f"the training data ({X.shape[0]:,} rows) and its shuffled copy",
                "Train on fewer rows, or pass shuffle=False (no copy).",
            )
            cached = self._shuffle_buffers = (key, xp.empty_like(X), xp.empty_like(T))
        _, Xs, Ts = cached
        if (
            xp is np
        ):  # mode="clip" avoids NumPy's internal copy for out= (indices valid)
            np.take(X, order, axis=0, out=Xs, mode="clip")
            np.take(T, order, axis=0, out=Ts, mode="clip")
        else:
            idx = xp.asarray(order)
            xp.take(X, idx, axis=0, out=Xs)
            xp.take(T, idx, axis=0, out=Ts)
        return Xs, Ts

    def _forward_train(self, x: Any, bufs: _Buffers) -> Any:
        matmul = self.xp.dot  # 2-D dot: less call overhead than matmul
        a = x
        for W, b, forward_with_derivative, z, out in bufs.fwd:
            matmul(a, W, out=z)
            z += b
            if forward_with_derivative is None:
                a = z
            else:
                forward_with_derivative(z, out=out)
                a = out[0]
        return a

    def _backward(self, x: Any, bufs: _Buffers) -> None:
        xp = self.xp
        matmul, multiply = xp.dot, xp.multiply
        ones = bufs.ones
        g = bufs.gout
        for i, da, a_prev, dW, db, WT, gin, mask, learn in bufs.bwd:
            if da is not None:
                if learn is not None:
                    learn[0].constant_gradient(learn[1], g, learn[2])
                multiply(g, da, out=da)  # delta = g * f'(z), in place
                d = da
            else:
                d = g
            matmul((x if a_prev is None else a_prev).T, d, out=dW)
            if mask is not None:
                dW *= mask
            matmul(ones, d, out=db)  # column sums: faster than sum(axis=0) when small
            if i > 0:
                matmul(d, WT, out=gin)
                g = gin

    # ------------------------------------------------ fused native step (cpp)
    @property
    def fused(self) -> bool:
        """Whether training runs the fused native step (see ``MLP(fused=...)``)."""
        return self._fused_reason is None

    @property
    def fused_reason(self) -> str | None:
        """Why the generic path trains (None when the fused step does)."""
        return self._fused_reason

    def _fused_step(self) -> Any:
        """The compiled fused step (built on first use), or None."""
        if self._fused_reason is not None:
            return None
        impl = self._fused_impl
        if impl is not None and impl.stale(self):
            impl = self._fused_impl = None
        if impl is None:
            from symnb.errors import BackendUnavailable, CompileError, FormulaError

            from .fused import FusedStep

            try:
                impl = self._fused_impl = FusedStep(self)
            except (BackendUnavailable, CompileError, FormulaError, OSError) as exc:
                import warnings

                self._fused_reason = f"the fused step could not be built: {exc}"
                warnings.warn(
                    f"cpp backend: {self._fused_reason}; training on the generic path",
                    RuntimeWarning,
                    stacklevel=3,
                )
                return None
        return impl

    def _fused_arrays_ok(self, X: Any, T: Any) -> bool:
        if not (
            isinstance(X, np.ndarray)
            and isinstance(T, np.ndarray)
            and X.dtype == self.dtype
            and X.flags.c_contiguous
            and T.flags.c_contiguous
        ):
            return False
        if isinstance(self._loss, SoftmaxCrossEntropy):
            return T.dtype == np.int64 and T.ndim == 1
        return T.dtype == self.dtype and T.shape == (X.shape[0], self.sizes[-1])

    def _fused_runner(
        self, X: Any, T: Any, optimizer: Any, l1: float, l2: float, batch_size: int
    ) -> Any:
        """``step(start, stop) -> loss`` on rows of (X, T) with the fused step, or None
        (generic path)."""
        if self._fused_reason is not None or not self._fused_arrays_ok(X, T):
            return None
        impl = self._fused_step()
        if impl is None:
            return None
        return impl.runner(self, X, T, optimizer, l1, l2, batch_size)

    def _train_step_arrays(
        self, xb: Any, tb: Any, optimizer: Any, l1: float, l2: float
    ) -> float:
        """One step on prepared device arrays (the hot path; no validation)."""
        if self._fused_reason is None:
            n = int(xb.shape[0])
            step = self._fused_runner(xb, tb, optimizer, l1, l2, n)
            if step is not None:
                return step(0, n)
        bufs = self._bufs(xb.shape[0])
        out = self._forward_train(xb, bufs)
        loss = self._loss.value_and_gradient(out, tb, bufs.gout)
        if not math.isfinite(loss):
            raise _Diverged("loss")
        self._backward(xb, bufs)
        if l1 or l2:
            self._penalty_gradient(l1, l2)
        dot = self.xp.dot
        if not math.isfinite(dot(self._flat_grad, self._ones_flat)):
            raise _Diverged("gradient")
        self._backup[...] = self._flat
        optimizer.step()
        if not math.isfinite(dot(self._flat, self._ones_flat)):
            self._flat[...] = self._backup
            raise _Diverged("parameters")
        if self._learnable_layers:
            self._sync_constants()
        return loss

    @_exclusive(nests=True)
    def loss_and_gradient(
        self, X: Any, y: Any, l1: float = 0.0, l2: float = 0.0
    ) -> tuple[float, np.ndarray]:
        """The training loss on (X, y) and its gradient with respect to every parameter
        (a NumPy array in the flat layout of :meth:`get_flat_parameters`), without
        updating anything: what one step would use. For checking gradients and for
        research. The loss is the data loss alone (as ``fit`` reports it); the
        gradient includes the penalties' ``l1*sign(w) + l2*w``, so a finite-difference
        check of it with ``l1``/``l2`` adds ``l1*sum|w| + l2/2*sum w**2`` (weights
        only, not biases) to the loss first."""
        # unchecked, l1=nan gave an all-NaN gradient and l1=-1 a wrong one, while
        # train_step and train_epoch refused them
        l1, l2 = check_penalty("l1", l1), check_penalty("l2", l2)
        Xd, Td, n = self._prepare(X, y, "data")
        if self._fused_reason is None and self._fused_arrays_ok(Xd, Td):
            impl = self._fused_step()
            if impl is not None:
                with np.errstate(all="ignore"):
                    loss, _ = impl.gradient(self, Xd, Td, float(l1), float(l2))
                return float(loss), _to_host(self._flat_grad).copy()
        bufs = self._bufs(n)
        out = self._forward_train(Xd, bufs)
        loss = self._loss.value_and_gradient(out, Td, bufs.gout)
        self._backward(Xd, bufs)
        if l1 or l2:
            self._penalty_gradient(l1, l2)
        return loss, _to_host(self._flat_grad).copy()

    def _penalty_gradient(self, l1: float, l2: float) -> None:
        xp = self.xp
        w = self._flat[: self._n_weights]
        gw = self._flat_grad[: self._n_weights]
        if self._scratch_w is None:
            self._scratch_w = xp.empty_like(w)
        s = self._scratch_w
        if l2:
            xp.multiply(w, l2, out=s)
            gw += s
        if l1:
            xp.sign(w, out=s)
            s *= l1
            gw += s
        for layer in self._masked_layers:
            layer.weight.grad *= layer.mask

    def _outputs(self, x: Any) -> Any:
        """The last layer's outputs for every row of ``x`` (an array of its own, not
        a reused buffer), computed in blocks of rows: a full-batch pass allocates one
        (n, width) buffer per layer (3e8 rows through a width-16 layer: 18 GiB, beyond
        this machine's memory, for an input of 2.4 GiB)."""
        n = int(x.shape[0])
        rows = max(1024, _INFER_BYTES // (self.dtype.itemsize * sum(self.sizes[1:])))
        with self._state_lock:  # see _forward_infer
            if n <= rows:
                out, _ = self._forward_infer(x)
                return out.copy()
            result = self.xp.empty((n, self.sizes[-1]), dtype=self.dtype)
            for start in range(0, n, rows):
                block, _ = self._forward_infer(x[start : start + rows])
                result[start : start + rows] = block
            return result

    def _forward_infer(
        self, x: Any, keep_hidden: bool = False
    ) -> tuple[Any, list[Any]]:
        """Forward pass without derivatives into reused buffers of this batch size (not
        the training ones): the arrays returned are overwritten by the next pass of the
        same size (callers copy, holding ``_state_lock`` from the pass to the copy:
        two threads predicting at once wrote into the same buffers, and a pass
        during a step of ``fit`` in another thread read two steps' weights)."""
        n = x.shape[0]
        bufs = self._infer_buffers.get(n)
        if bufs is None:
            if len(self._infer_buffers) > 4:
                self._infer_buffers.clear()
            xp, dt = self.xp, self.dtype
            bufs = (
                [xp.empty((n, w), dt) for w in self.sizes[1:]],
                [
                    xp.empty((n, w), dt) if f else None
                    for w, f in zip(self.sizes[1:], self._act_flags)
                ],
            )
            self._infer_buffers[n] = bufs
        zs, outs = bufs
        matmul = self.xp.dot
        a = x
        hidden = []
        for i, layer in enumerate(self.layers):
            z = zs[i]
            # overflow to inf/NaN is reported by the callers (predict, the metrics)
            # rather than as NumPy's "invalid value encountered in dot"
            with np.errstate(all="ignore"):
                matmul(a, layer.weight.data, out=z)
                z += layer.bias.data
            if layer.activation is not None:
                a = layer.activation.kernel.forward(z, out=outs[i])
            else:
                a = z
            if keep_hidden:
                hidden.append(a)
        return a, hidden

    # ------------------------------------------------ public training API
    @_exclusive(nests=False)
    def fit(
        self,
        X: Any,
        y: Any,
        epochs: int = 10,
        batch_size: int | None = 32,
        lr: float | None = None,
        optimizer: Any = "adam",
        validation_data: tuple[Any, Any] | None = None,
        callbacks: Any = None,
        shuffle: bool = True,
        seed: int | None = None,
        metrics: Any = None,
        l1: float = 0.0,
        l2: float = 0.0,
        live: bool = False,
        verbose: bool = False,
        step_rate: float = 10.0,
        momentum: float | None = None,
        weight_decay: float | None = None,
    ) -> History:
        """Train and return a :class:`~symnb.nn.History` (also kept as
        ``model.history``).

        Parameters
        ----------
        X, y:
            training data (validated once: shapes, labels, finiteness).
        epochs, batch_size:
            passes over the data and minibatch size (``None``: full batch).
        lr, optimizer, momentum, weight_decay:
            ``"adam"`` (default, lr 0.001), ``"sgd"`` (lr 0.01), or an optimizer
            instance.
        validation_data:
            ``(X_val, y_val)``, evaluated after every epoch (``val_loss``,
            ``val_accuracy``).
        callbacks:
            :class:`~symnb.nn.Callback` objects or functions ``f(epoch, logs)``;
            returning True stops training.
        shuffle, seed:
            reshuffle every epoch; ``seed`` fixes the order (default: the model's seed).
        metrics:
            names of per-epoch metrics (default accuracy for classification, none for
            regression); the loss is always recorded.
        l1, l2:
            penalties on the weights (not biases): gradient ``l1*sign(w) + l2*w``.
        live, verbose:
            live loss plot and progress bar in a notebook; a plain progress bar.

        Ctrl-C stops at a step boundary (``history.stop_reason == "interrupted"``); a
        NaN/inf loss stops with a warning naming the epoch and step and keeps the last
        finite parameters (``"diverged"``).
        """
        return _fit(
            self,
            X,
            y,
            epochs=epochs,
            batch_size=batch_size,
            lr=lr,
            optimizer=optimizer,
            validation_data=validation_data,
            callbacks=callbacks,
            shuffle=shuffle,
            seed=seed,
            metrics=metrics,
            l1=l1,
            l2=l2,
            live=live,
            verbose=verbose,
            step_rate=step_rate,
            momentum=momentum,
            weight_decay=weight_decay,
        )

    def _shuffle_rng(self, seed: int | None) -> np.random.Generator:
        return self._shuffle if seed is None else rng_from_seed(seed)

    @_exclusive(nests=False)
    def train_epoch(
        self,
        X: Any,
        y: Any,
        optimizer: Any,
        batch_size: int = 10,
        l1: float = 0.0,
        l2: float = 0.0,
        shuffle: bool = True,
        seed: int | None = None,
    ) -> float:
        """One pass over (X, y) in minibatches; returns the mean training loss of the
        epoch.

        Raises :class:`~symnb.nn.TrainingDiverged` on a NaN/inf (parameters unchanged by
        the bad step) and ``KeyboardInterrupt`` after the step during which Ctrl-C came.
        """
        check_flag(shuffle, "shuffle")
        Xd, Td, n = self._prepare(X, y, "training data")
        check_optimizer(self, optimizer, "train_epoch")
        l1, l2 = check_penalty("l1", l1), check_penalty("l2", l2)
        if (
            isinstance(batch_size, bool)
            or not isinstance(batch_size, (int, np.integer))
            or batch_size < 1
        ):
            raise ValueError(
                f"batch_size must be a positive integer, got {batch_size!r}"
            )
        order = epoch_order(self._shuffle_rng(seed), n, batch_size, shuffle)
        guarded = _domain_guarded(self)
        start = self._flat.copy() if guarded else None
        with deferred_interrupts() as interrupts:
            loss, steps, stop = run_epoch(
                self,
                Xd,
                Td,
                optimizer,
                int(min(batch_size, n)),
                order,
                float(l1),
                float(l2),
                interrupts,
                self.epochs_trained + 1,
            )
        self._raise_if_left_domain(guarded, start, self.epochs_trained + 1, steps)
        if stop == "interrupted":
            if steps == -(-n // int(min(batch_size, n))):  # (whole epoch in one call)
                with self._state_lock:
                    self.epochs_trained += 1
            raise KeyboardInterrupt("training interrupted at a step boundary")
        with self._state_lock:
            self.epochs_trained += 1
        return loss

    @_exclusive(nests=True)
    def train_step(
        self, X: Any, y: Any, optimizer: Any, l1: float = 0.0, l2: float = 0.0
    ) -> float:
        """One optimizer step on the minibatch (X, y); returns its loss."""
        Xd, Td, _ = self._prepare(X, y, "minibatch")
        check_optimizer(self, optimizer, "train_step")
        l1, l2 = check_penalty("l1", l1), check_penalty("l2", l2)
        guarded = _domain_guarded(self)
        start = self._flat.copy() if guarded else None
        with deferred_interrupts() as interrupts, np.errstate(all="ignore"):
            try:
                with self._state_lock:
                    loss = self._train_step_arrays(
                        Xd, Td, optimizer, float(l1), float(l2)
                    )
            except _Diverged as exc:
                raise TrainingDiverged(
                    f"the {exc.what} became NaN or infinite in this step; the "
                    "parameters are "
                    "those before it",
                    self.epochs_trained + 1,
                    1,
                    exc.what,
                ) from None
        self._raise_if_left_domain(guarded, start, self.epochs_trained + 1, 1)
        if interrupts.requested:
            raise KeyboardInterrupt("training interrupted at a step boundary")
        return loss

    def _raise_if_left_domain(
        self, guarded: list[Any], start: Any, epoch: int, step: int
    ) -> None:
        """A TrainingDiverged, with the parameters put back to ``start``, when a
        learnable library constant left its domain (as ``fit`` stops there)."""
        problem = _left_domain(self, guarded, start)
        if problem is not None:
            raise TrainingDiverged(
                f"a learnable constant left its domain ({problem}); the parameters "
                "are those before this call",
                epoch,
                step,
                "constants",
            )

    # ------------------------------------------------ inference
    def __call__(self, X: Any) -> np.ndarray:
        """Raw network outputs (logits for the classification losses), shape (n,
        sizes[-1])."""
        return self.decision_function(X)

    def decision_function(self, X: Any) -> np.ndarray:
        """Raw outputs of the last layer, shape (n, sizes[-1])."""
        Xd, _ = self._prepare_X(X, "X")
        return _to_host(self._outputs(Xd))

    def _outputs_to_predictions(self, out: np.ndarray) -> np.ndarray:
        if self.task == "multiclass":
            return np.argmax(out, axis=1)
        if self.task == "binary":
            threshold = 0.0 if self._loss.logits else 0.5
            return (out[:, 0] > threshold).astype(np.int64)
        return out[:, 0].copy() if out.shape[1] == 1 else out.copy()

    def _undecided_rows(self, out: np.ndarray) -> np.ndarray:
        """Rows of classification outputs from which no class can be read: a NaN
        logit (``NaN > 0`` is False: label 0), or a non-finite multi-class row
        (argmax of inf/NaN picks a column by position)."""
        if self.task == "binary":
            return np.isnan(out[:, 0])
        return ~np.isfinite(out).all(axis=1)

    def _outputs_not_finite(self, out: np.ndarray, rows: np.ndarray) -> str:
        r = int(np.flatnonzero(rows)[0])
        shown = np.array2string(out[r], precision=4, threshold=6)
        why = (
            "training diverged (history.stop_reason 'diverged'); "
            if getattr(getattr(self, "history", None), "stop_reason", None)
            == "diverged"
            else ""
        )
        head = (
            f"the network's outputs are not finite for {int(rows.sum())} of "
            f"{len(rows)} rows (the first, row {r}: {shown}): {why}"
        )
        for param in self.parameters():  # a NaN written in is no size problem
            values = param.numpy()
            bad = np.argwhere(~np.isfinite(values))
            if bad.size:
                at = ", ".join(str(int(i)) for i in bad[0])
                return (
                    f"{head}its parameters are not finite: {param.name}[{at}] is "
                    f"{values[tuple(bad[0])].item()!r} ({len(bad)} such values in "
                    f"{param.name}). Set finite values (set_flat_parameters) or "
                    "retrain"
                )
        return (
            f"{head}its parameters are too large for these inputs. Retrain with a "
            "smaller lr, or scale the inputs as in training"
        )

    def predict(self, X: Any) -> np.ndarray:
        """Class labels (classification: int64, shape (n,)) or values (regression: (n,)
        for one output, else (n, k)).

        Classification outputs that are NaN (a network whose parameters blew up) are
        a ``ValueError``, not label 0 (regression returns the NaN values as they are).
        """
        Xd, _ = self._prepare_X(X, "X")
        out = self._outputs(Xd)
        host = _to_host(out)
        if self.task != "regression":
            bad = self._undecided_rows(host)
            if bad.any():
                raise ValueError(
                    "predict: no class can be read: "
                    + self._outputs_not_finite(host, bad)
                )
        return self._outputs_to_predictions(host)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, shape (n, classes): (n, 2) = [P(0), P(1)] for binary."""
        if self.task == "regression":
            raise ValueError(
                "predict_proba is for classification models (task is regression)"
            )
        Xd, _ = self._prepare_X(X, "X")
        out = self._outputs(Xd)
        out = _to_host(out).astype(np.float64)
        if self.task == "binary":
            if self._loss.logits:
                p = np.where(
                    out[:, 0] >= 0,
                    1 / (1 + np.exp(-np.abs(out[:, 0]))),
                    1 - 1 / (1 + np.exp(-np.abs(out[:, 0]))),
                )
            else:
                p = np.clip(out[:, 0], 0.0, 1.0)
            return np.stack([1 - p, p], axis=1)
        if self._loss.logits:
            z = out - out.max(axis=1, keepdims=True)
            e = np.exp(z)
            return e / e.sum(axis=1, keepdims=True)
        return out / out.sum(axis=1, keepdims=True)

    def hidden_outputs(self, X: Any) -> list[np.ndarray]:
        """Post-activation outputs of each hidden layer: a list of (n, width) arrays."""
        Xd, _ = self._prepare_X(X, "X")
        with self._state_lock:  # see _forward_infer
            _, hidden = self._forward_infer(Xd, keep_hidden=True)
            return [_to_host(h).copy() for h in hidden[:-1]]

    def _metric_names(self, metrics: Any) -> list[str]:
        if metrics is None:
            return ["accuracy"] if self.task != "regression" else []
        if isinstance(metrics, str):
            metrics = [metrics]
        try:
            metrics = list(metrics)
        except TypeError:  # metrics=3 was "'int' object is not iterable"
            raise TypeError(
                "metrics must be a metric name or a list of names such as "
                f"['accuracy', 'f1'], got {metrics!r:.80}"
            ) from None
        names = []
        for m in metrics:
            name, _, kind = metrics_mod.get(m)
            if kind == "classification" and self.task == "regression":
                raise ValueError(
                    f"metric {m!r} is for classification; this model regresses"
                )
            if kind == "regression" and self.task != "regression":
                raise ValueError(
                    f"metric {m!r} is for regression; this model classifies"
                )
            names.append(name)
        return names

    def _metrics_on(
        self, Xd: Any, Td: Any, names: list[str], skip_loss: bool = False
    ) -> dict[str, float]:
        if skip_loss and not names:
            return {}
        out = self._outputs(Xd)
        result: dict[str, float] = {}
        if not skip_loss:
            with np.errstate(all="ignore"):  # inf logits: the loss is NaN, reported
                result["loss"] = self._loss.value(out, Td)
        if names:
            host = _to_host(out)
            t = _to_host(Td)
            undecided = False
            if self.task == "regression":
                pred = host
            else:
                # a NaN logit would count as class 0: the metrics are NaN instead
                undecided = bool(self._undecided_rows(host).any())
                pred = self._outputs_to_predictions(host)
                if self.task == "binary":
                    t = t.reshape(-1).astype(np.int64)
                elif t.ndim == 2:
                    t = np.argmax(t, axis=1)
            for name in names:
                result[name] = (
                    math.nan if undecided else metrics_mod.get(name)[1](t, pred)
                )
        return result

    def evaluate(self, X: Any, y: Any, metrics: Any = None) -> dict[str, float]:
        """``{"loss": ..., "accuracy": ...}`` for classification; for regression the
        loss, MSE, MAE and R^2 (or the ``metrics`` named)."""
        Xd, Td, _ = self._prepare(X, y, "evaluation data")
        if metrics is None and self.task == "regression":
            metrics = ["mse", "mae", "r2"]
        return self._metrics_on(Xd, Td, self._metric_names(metrics))

    def score(self, X: Any, y: Any) -> float:
        """Accuracy (classification) or R^2 (regression)."""
        return self.evaluate(
            X, y, metrics=["r2"] if self.task == "regression" else ["accuracy"]
        )["r2" if self.task == "regression" else "accuracy"]

    # ------------------------------------------------ save / load
    def save(self, path: str | os.PathLike) -> None:
        """Write weights and formulas (text and constants) to ``path`` (one .npz file,
        no pickle). :func:`symnb.nn.load` rebuilds the model and predicts the same
        numbers."""
        path = check_file_path(path, "save")
        data = self._snapshot_bytes()
        if os.path.isdir(path):
            raise IsADirectoryError(
                f"cannot save the model as {path!r}: it is a directory; give a file "
                f"name, e.g. {os.path.join(path, 'model.npz')!r}"
            )
        # a symbolic link is written through (its target is replaced, the link
        # stays); anything else that is not a regular file (a FIFO, a device, a
        # socket) is refused rather than replaced by a file
        target = os.path.realpath(path)
        try:
            mode = os.stat(target).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as exc:  # a name too long, a file as a folder, no access
            raise path_error(exc, f"cannot save the model as {path!r}") from None
        if mode is not None and not stat.S_ISREG(mode):
            shown = path if target == os.path.abspath(path) else f"{path} -> {target}"
            raise ValueError(
                f"cannot save the model as {shown!r}: it is {file_kind(mode)}; "
                "give the name of a new or existing .npz file"
            )
        # written next to the target, then renamed over it (a reader never sees half
        # a file); created with mode 0o666 so the umask applies, as to any document
        directory, name = os.path.split(target)
        if not os.path.isdir(directory):
            raise FileNotFoundError(
                f"cannot save the model as {path!r}: the folder {directory!r} does not "
                "exist; create it first"
            )
        tmp = os.path.join(directory, f".{name}.{secrets.token_hex(8)}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(tmp, flags, 0o666)
        except OSError as exc:  # e.g. a read-only folder: name the user's path
            raise type(exc)(
                exc.errno,
                f"cannot save the model as {path!r}: cannot create a file in the "
                f"folder {directory!r} ({exc.strerror}); choose a writable folder",
            ) from exc
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        except BaseException as exc:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            if isinstance(exc, OSError) and exc.errno is not None:
                # a full disk or a refused rename: name the user's path (the bare
                # "[Errno 28] No space left on device" said nothing of it)
                kept = "the file there is unchanged" if mode else "nothing was written"
                raise type(exc)(
                    exc.errno,
                    f"cannot save the model as {path!r}: {exc.strerror} "
                    f"({len(data)} bytes to write); {kept}. Free space "
                    "or choose another folder",
                ) from exc
            raise

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling, ``copy.copy`` and ``copy.deepcopy`` go through the save format
        (the compiled kernels hold ctypes pointers, which cannot be pickled): the copy
        is rebuilt from the formulas with the same weights, backend, history,
        ``epochs_trained`` and shuffling state, independent of this model."""
        with self._state_lock:  # weights, history and counts of one moment
            data = self._snapshot_bytes()
            state = {
                "requested_backend": self.requested_backend,
                "history": copy.deepcopy(self.history),
                "stop_training": self.stop_training,
                "shuffle": self._shuffle.bit_generator.state,
            }
        options = {"strict": self.strict, "fused": self._fused_option}
        return (_from_pickle, (data, self.backend, self.device, options, state))

    def _snapshot_bytes(self) -> bytes:
        """The save format's bytes, taken between training steps: ``fit`` running in
        another thread writes the parameters while a snapshot read them (a pickle
        taken during a fused epoch mixed two steps' weights)."""
        from .serialize import model_to_bytes

        with self._state_lock:
            return model_to_bytes(self)

    def to_torch(self) -> Any:
        """A ``torch.nn.Sequential`` (Linear + symnb activation modules) with this
        model's weights and constants (``symnb.interop.torch.mlp_to_torch``)."""
        from symnb.interop.torch import mlp_to_torch

        with self._state_lock:  # the weights of one step boundary (see save)
            return mlp_to_torch(self)

    # ------------------------------------------------ display
    def __repr__(self) -> str:
        hidden = [
            layer.activation.describe() if layer.activation is not None else "linear"
            for layer in self.layers[:-1]
        ]
        out = self.layers[-1].activation
        return (
            f"MLP({self.sizes}, activation={hidden}, output="
            f"{out.describe() if out is not None else 'linear'}, "
            f"loss={self._loss.name}, backend={self.backend}, "
            f"dtype={self.dtype.name}, parameters={self.n_parameters}"
            + (", fused=True" if self.fused else "")
            + ")"
        )

    @property
    def loss(self) -> TrainingLoss:
        """The training loss object."""
        return self._loss


def _from_pickle(
    data: bytes,
    backend: str,
    device: Any,
    options: dict[str, Any],
    state: dict[str, Any],
) -> MLP:
    """The model :meth:`MLP.__reduce__` describes."""
    from .serialize import model_from_bytes

    model = model_from_bytes(data, backend=backend, device=device, **options)
    model.requested_backend = state["requested_backend"]
    model.history = state["history"]
    model.stop_training = state["stop_training"]
    model._shuffle.bit_generator.state = state["shuffle"]
    return model


def _symnb():
    import symnb

    return symnb


def _refuse_sigmoid_before_logits(out_acts: list[Any], loss: Any) -> None:
    """A ``ValueError`` for a sigmoid output layer under a loss that takes logits:
    ``output='sigmoid', loss='bce_with_logits'`` applied the sigmoid twice, so every
    probability stayed in (0.5, 0.73), every prediction was class 1 and two_moons
    trained to accuracy 0.5 without a word; under softmax cross-entropy no class
    probability could pass e / (e + C - 1)."""
    task = getattr(loss, "task", "")
    if not (getattr(loss, "logits", False) and task in ("binary", "multiclass")):
        return
    sigmoid = _symnb().activation("sigmoid").internal.signature()
    if not any(a is not None and a.internal.signature() == sigmoid for a in out_acts):
        return
    if task == "multiclass":
        # softmax of values in (0, 1): no class probability could pass
        # e / (e + C - 1), 0.58 for three classes, however well it trained
        classes = len(out_acts)
        cap = math.e / (math.e + classes - 1)
        raise ValueError(
            f"output='sigmoid' with loss={loss.name!r} squashes the logits into "
            f"(0, 1) before the softmax, so no probability of the {classes} classes "
            f"can exceed e/(e + {classes - 1}) = {cap:.2f}: leave output out (a "
            "linear output layer); the loss applies the softmax itself"
        )
    raise ValueError(
        f"output='sigmoid' with loss={loss.name!r} applies the sigmoid twice "
        "(the loss takes logits and applies its own): leave output out (a "
        "linear output layer) with loss='bce_with_logits', or use loss='bce', "
        "which takes the sigmoid's probabilities"
    )


def refuse_wrapped(given: Any, array: np.ndarray, name: str, shape: str) -> None:
    """A TypeError for an object NumPy wrapped whole into a 0-d object array: a
    generator, a dict, a set, a SciPy sparse matrix ("X[] is <generator object
    ...>, not a number", or "got shape ()")."""
    if array.ndim == 0 and array.dtype.kind == "O":
        fix = (
            "X.toarray() (a dense copy)"
            if hasattr(given, "toarray")
            else "an array or a list of rows (e.g. np.array(list(rows)))"
        )
        raise TypeError(
            f"{name} must be a 2-D array of numbers {shape}, got a "
            f"{type(given).__name__}; pass {fix}"
        )


def check_file_path(path: Any, what: str) -> str:
    """``path`` (str, bytes or path-like) as a str; TypeError naming ``what``.

    A leading ``~`` is the home folder, as ``RunStore``, the kernel cache, pandas and
    the shell read it (``save('~/model.npz')`` looked for a folder named '~' in the
    working directory)."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise TypeError(
            f"{what}: path must be a file name (str or os.PathLike), got {path!r}"
        ) from None
    path = os.fsdecode(path)
    if not path:
        raise ValueError(f"{what}: path is empty; give a file name such as 'model.npz'")
    check_no_nul(path, f"{what}: path")
    return os.path.expanduser(path)


#: What to do about an OSError of a path (by errno), for path_error.
_PATH_FIXES = {
    errno.ENAMETOOLONG: "choose a shorter name (at most 255 bytes per folder or file "
    "name on most file systems)",
    errno.ENOTDIR: "a part of the path is a file, not a folder; check the path",
    errno.EACCES: "you may not open that folder; choose one you can use",
    errno.ELOOP: "the path has a loop of symbolic links; check the links",
}


def path_error(exc: OSError, what: str) -> OSError:
    """``exc`` again (same type and errno) with ``what`` and the fix: the bare
    "[Errno 36] File name too long: ..." or "[Errno 20] Not a directory" named no
    action and no way out."""
    fix = _PATH_FIXES.get(exc.errno, "check the path")
    return type(exc)(exc.errno, f"{what}: {exc.strerror}; {fix}")


def file_kind(mode: int) -> str:
    """What a ``st_mode`` that is not a regular file is, for error messages."""
    kinds = {
        stat.S_IFDIR: "a directory",
        stat.S_IFIFO: "a FIFO",
        stat.S_IFSOCK: "a socket",
        stat.S_IFCHR: "a device",
        stat.S_IFBLK: "a device",
    }
    return kinds.get(stat.S_IFMT(mode), "not a regular file") + ", not a regular file"


def _as_list(spec: Any, name: str) -> list[Any]:
    """An activation list argument as a list; TypeError naming ``name`` otherwise.
    A set or dict is refused: a set of names assigned layers (or neurons) in its own
    order, which string hashing changes from one process to the next (the same
    script built relu-tanh or tanh-relu), and a dict gave its keys ("unknown
    activation 'a'")."""
    if isinstance(spec, (set, frozenset, dict)):
        raise TypeError(
            f"{name} must be an ordered list with one activation per layer (or per "
            f"neuron), got a {type(spec).__name__}: {spec!r:.80}; e.g. "
            f"{name}=['relu', 'tanh']"
        )
    try:
        return list(spec)
    except TypeError:
        raise TypeError(
            f"{name} must be a symnb.Activation, a library name, a formula text or "
            f"a list of them (one per layer or per neuron), got {spec!r}"
        ) from None


def load(
    path: str | os.PathLike, backend: str | None = None, device: int | None = None
) -> MLP:
    """Rebuild a model written by :meth:`MLP.save` (formulas recompiled, weights
    restored).

    ``backend``/``device`` override the saved choice (default: the backend the model was
    trained on; the same backend reproduces the same predictions).
    """
    from .serialize import model_from_file

    return model_from_file(path, backend=backend, device=device)
