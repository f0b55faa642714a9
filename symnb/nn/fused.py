"""The fused training step of the cpp backend: one native call per minibatch.

A small MLP's step on the generic path is ~30 NumPy and kernel calls, each costing
about a microsecond of Python and ctypes overhead, for arithmetic that takes a few
microseconds. :func:`build_spec` describes a model's architecture (sizes, activation
forms and constant layouts, loss, masks) for :mod:`symnb.codegen.train_step`, which
generates one C++ translation unit; :class:`FusedStep` compiles it through the cpp
backend's compile path and disk cache and runs forward, loss, backward, penalties,
finiteness checks and (for ``SGD``/``Adam`` on the model's flat parameters) the
optimizer update in one call; :meth:`FusedStep.epoch_runner` runs a whole epoch (every
minibatch, rows gathered in the shuffled order NumPy computed) in one call, which
``fit`` and ``train_epoch`` use whenever no callback wants to see each step.

``MLP`` uses it automatically on the cpp backend when the configuration is supported
(``MLP(..., fused=False)`` forces the generic path; ``model.fused`` tells which one
trains). Results match the generic path up to floating-point rounding (the matrix
products sum in another order than BLAS).
"""

from __future__ import annotations

import ctypes
import operator
import weakref
from pathlib import Path
from typing import Any

import numpy as np

from symnb.codegen import train_step
from symnb.codegen.train_step import (
    N_SCALARS,
    LayerSpec,
    StepSpec,
    render_train_step,
)
from symnb.errors import FormulaError

from .losses import ElementwiseLoss, SoftmaxCrossEntropy

__all__ = ["AUTO_MAX_LAYER_WEIGHTS", "FusedStep", "build_spec", "unsupported_reason"]

#: ``MLP(fused=None)`` uses the fused step only while every layer has at most this
#: many weights: its loops keep small weight matrices in cache, but large layers
#: (measured: 256-512-512-10, 2-3x slower than the generic path) train faster on
#: BLAS. ``fused=True`` uses it whatever the size.
AUTO_MAX_LAYER_WEIGHTS = 65536


def auto_reason(model: Any) -> str | None:
    """Why ``fused=None`` keeps ``model`` on the generic path (None: it does not)."""
    reason = unsupported_reason(model)
    if reason is not None:
        return reason
    largest = max(a * b for a, b in zip(model.sizes[:-1], model.sizes[1:]))
    if largest > AUTO_MAX_LAYER_WEIGHTS:
        return (
            f"a layer has {largest} weights (> {AUTO_MAX_LAYER_WEIGHTS}): the generic "
            "path (BLAS) is faster for large layers; fused=True forces the fused step"
        )
    return None


def unsupported_reason(model: Any) -> str | None:
    """Why the fused step cannot train ``model`` (None: it can)."""
    if model.backend != "cpp" or model.xp is not np:
        return (
            f"the fused step is for the cpp backend (this model uses {model.backend})"
        )
    loss = model._loss
    if type(loss) is SoftmaxCrossEntropy:
        pass
    elif type(loss) is ElementwiseLoss:
        kernel = getattr(loss, "kernel", None)
        if getattr(kernel, "backend", None) != "cpp" or not hasattr(
            getattr(kernel, "loss", None), "internal"
        ):
            return "the loss kernel is not a cpp kernel"
    else:
        return f"the loss {type(loss).__name__} has no fused form"
    for i, layer in enumerate(model.layers):
        la = layer.activation
        if la is None:
            continue
        kernel = la.kernel
        if getattr(kernel, "backend", None) != "cpp":
            return f"layer {i}'s activation kernel is not a cpp kernel"
        if la.elementwise:
            if not hasattr(getattr(kernel, "activation", None), "internal"):
                return f"layer {i}'s kernel has no formula"
        elif not hasattr(kernel, "forms"):
            return f"layer {i}'s kernel has no per-neuron forms"
        if la.n_learnable and not la._params_inplace:
            return f"layer {i}'s constants are not writable in place"
    return None


def _kernel_programs(model: Any) -> list:
    """The programs the model's kernels run now, after following their constants
    (changed in place by the step: ``Kernel._call_params``)."""
    kernels = [layer.activation.kernel for layer in model.layers if layer.activation]
    loss_kernel = getattr(model._loss, "kernel", None)
    if loss_kernel is not None:
        kernels.append(loss_kernel)
    out = []
    for kernel in kernels:
        try:
            kernel._call_params()
        except FormulaError:  # not finite: fit reports the divergence itself
            pass
        out.append(kernel._program)
    return out


def build_spec(model: Any) -> StepSpec:
    """The :class:`StepSpec` of ``model`` (see :func:`unsupported_reason` first)."""
    from symnb.robust import lower_all  # the forms as the kernels compile them

    layers = []
    sizes = model.sizes
    n_w = model._n_weights
    w_off, b_off, c_off = 0, n_w, n_w + sum(sizes[1:])
    for i, layer in enumerate(model.layers):
        fi, fo = sizes[i], sizes[i + 1]
        la = layer.activation
        kw: dict[str, Any] = {}
        if la is not None:
            kernel = la.kernel
            # the forms as the kernel's program now runs them: lowered for its
            # constants' signs (backends.constant_assumptions); ``stale`` sees
            # the kernel move to another program
            forms, run_ids = kernel._lowered_forms()
            if la.elementwise:
                ids = (0,) * fo
                offsets = (0,) * fo
                n_params = int(kernel.params.size)
            else:
                ids = run_ids
                offsets = tuple(int(v) for v in kernel.offsets)
                n_params = int(kernel.params.size)
            forms = lower_all(forms, model.dtype.name)  # numerical robustness
            kw = {"forms": forms, "ids": ids, "offsets": offsets, "n_params": n_params}
            if la.n_learnable:
                kw["learn_positions"] = tuple(int(v) for v in np.asarray(la._positions))
                kw["learn_entries"] = tuple(
                    int(v) for v in np.asarray(la._entry_of_position)
                )
                kw["n_learnable"] = int(la.n_learnable)
        layers.append(
            LayerSpec(
                fan_in=fi,
                fan_out=fo,
                masked=layer.mask is not None,
                w_off=w_off,
                b_off=b_off,
                c_off=c_off,
                **kw,
            )
        )
        w_off += fi * fo
        b_off += fo
        c_off += kw.get("n_learnable", 0)
    loss = model._loss
    if isinstance(loss, SoftmaxCrossEntropy):
        loss_kind, loss_form, eps = "softmax", None, loss.label_smoothing
    else:
        loss_form = loss.kernel._lowered_forms()[0][0]
        loss_kind, eps = "elementwise", 0.0
        loss_form = lower_all((loss_form,), model.dtype.name)[0]
    return StepSpec(
        chunk_rows=int(train_step.CHUNK_ROWS),
        layers=tuple(layers),
        loss=loss_kind,
        loss_form=loss_form,
        label_smoothing=float(eps),
        n_total=int(model._flat.size),
        n_weights=int(n_w),
        dtype=model.dtype.name,
    )


_STATUS_WHAT = {1: "loss", 2: "gradient", 3: "parameters"}


class FusedStep:
    """The compiled fused step of one model (built by :meth:`MLP._fused_step`)."""

    def __init__(self, model: Any) -> None:
        from symnb.backends import cpp

        self._programs = _kernel_programs(model)  # (before: follows the constants)
        self.spec = build_spec(model)
        self.source = render_train_step(self.spec)
        status = cpp.probe()
        if not status.usable:
            from symnb.errors import BackendUnavailable

            raise BackendUnavailable("cpp", status.reason, status.fix)
        built: list[bool] = []

        def _build(tmp_path: Path) -> None:
            cpp.compile_source(self.source.text, Path(tmp_path), status)
            built.append(True)

        path, _ = cpp._get_or_build(cpp.key_parts(self.source, status), _build)
        self.library_path = path
        self.compiled = bool(built)
        self._lib = cpp._acquire(path)
        self._finalizer = weakref.finalize(self, cpp._release, str(path))
        fn = self._lib.cdll.symnb_mlp_step
        fn.argtypes = [
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_int64,
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_void_p,
        ]
        fn.restype = ctypes.c_double
        self._fn = fn
        efn = self._lib.cdll.symnb_mlp_epoch
        efn.argtypes = [
            ctypes.c_void_p,  # X
            ctypes.c_void_p,  # Y
            ctypes.c_int64,  # n
            ctypes.c_void_p,  # order (NULL: rows in order)
            ctypes.c_int64,  # batch
            ctypes.c_void_p,  # xbuf
            ctypes.c_void_p,  # ybuf
            ctypes.c_void_p,  # pointers
            ctypes.c_void_p,  # scalars
            ctypes.c_void_p,  # status
        ]
        efn.restype = ctypes.c_double
        self._epoch_fn = efn
        self._gather: tuple = ((), None, None)
        self._model = weakref.ref(model)
        self.pointers = np.zeros(self.spec.n_pointers, dtype=np.int64)
        self.scalars = np.zeros(N_SCALARS, dtype=np.float64)
        self.status = np.zeros(2, dtype=np.int64)
        self._pp = self.pointers.ctypes.data
        self._sp = self.scalars.ctypes.data
        self._stp = self.status.ctypes.data
        self._work = np.empty(0, dtype=model.dtype)
        self._work_rows = 0
        # array id -> (array, address); the array is held so its id stays its own
        self._addresses: dict[int, tuple[np.ndarray, int]] = {}
        # bumped whenever the pointer block or the scalars are rewritten, so that a
        # cached epoch function knows whether they still hold what it configured
        self._version = 0
        # (objects, values, version, epoch function, [X, T, addresses], native
        # function) of the last epoch_runner call
        self._epoch_cache: tuple | None = None

    def _address(self, array: np.ndarray) -> int:
        """``array.ctypes.data``, remembered per array object (that attribute costs
        microseconds, and bind() needs a dozen of them before every epoch)."""
        entry = self._addresses.get(id(array))
        if entry is not None and entry[0] is array:
            return entry[1]
        if len(self._addresses) > 64:
            self._addresses.clear()
        address = array.ctypes.data
        self._addresses[id(array)] = (array, address)
        return address

    def stale(self, model: Any) -> bool:
        """Whether something baked into the code changed since it was generated."""
        loss = model._loss
        smoothing = getattr(loss, "label_smoothing", None)
        if isinstance(loss, SoftmaxCrossEntropy) and smoothing != (
            self.spec.label_smoothing
        ):
            return True
        # a learnable constant that crossed 0 (or made a float32 part cancel)
        # moved its kernel to forms lowered for it: the step follows
        return _kernel_programs(model) != self._programs

    # -- set up ------------------------------------------------------------------
    def _ensure_rows(self, rows: int) -> None:
        if rows > self._work_rows:
            model = self._model()
            self._work = np.zeros(self.spec.work_size(rows), dtype=model.dtype)
            self._work_rows = rows
            self.pointers[3] = self._address(self._work)

    def bind(self, model: Any, rows: int) -> None:
        """Point the block at the model's current arrays (cheap; before each epoch)."""
        self._version += 1
        self._ensure_rows(rows)
        p = self.pointers
        p[0] = self._address(model._flat)
        p[1] = self._address(model._flat_grad)
        p[2] = self._address(model._backup)
        p[3] = self._address(self._work)
        p[4] = p[5] = p[0]
        loss = model._loss
        kernel = getattr(loss, "kernel", None)
        p[6] = self._address(kernel.params) if kernel is not None else p[0]
        for i, layer in enumerate(model.layers):
            cslot, mslot = self.spec.layer_pointer_slots(i)
            la = layer.activation
            p[cslot] = self._address(la.kernel.params) if la is not None else p[0]
            p[mslot] = self._address(layer.mask) if layer.mask is not None else p[0]

    def configure_optimizer(self, model: Any, optimizer: Any, l1: float, l2: float):
        """Write the optimizer's hyper-parameters; returns ``"sgd"``, ``"adam"`` or
        ``None`` (not fused: the caller runs ``optimizer.step()`` itself)."""
        from .optim import SGD, Adam

        self._version += 1
        s, p = self.scalars, self.pointers
        s[:] = 0.0
        s[7], s[8] = l1, l2
        kind = None
        pairs = getattr(optimizer, "_pairs", None)
        flat_pairs = (
            pairs is not None
            and len(pairs) == 1
            and pairs[0][0] is model._flat
            and pairs[0][1] is model._flat_grad
        )
        if flat_pairs and type(optimizer) is SGD:
            kind = "sgd"
            s[0] = 1
            s[2] = optimizer.momentum
            s[3] = optimizer.weight_decay
            s[4] = 1.0 if optimizer.nesterov else 0.0
            if optimizer.momentum:
                if optimizer._velocity[0] is None:
                    optimizer._velocity[0] = np.zeros_like(model._flat)
                p[4] = self._address(optimizer._velocity[0])
        elif flat_pairs and type(optimizer) is Adam:
            kind = "adam"
            s[0] = 2
            s[2], s[4] = optimizer.betas
            s[3] = optimizer.weight_decay
            s[5] = optimizer.eps
            if optimizer._m[0] is None:
                optimizer._m[0] = np.zeros_like(model._flat)
                optimizer._v[0] = np.zeros_like(model._flat)
                optimizer._tmp[0] = np.empty_like(model._flat)
            p[4] = self._address(optimizer._m[0])
            p[5] = self._address(optimizer._v[0])
        return kind

    # -- running -------------------------------------------------------------------
    def gradient(self, model: Any, X: np.ndarray, T: np.ndarray, l1: float, l2: float):
        """Loss and gradient (into ``model._flat_grad``), no update; -> (loss, status)."""
        rows = int(X.shape[0])
        self.bind(model, rows)  # bumps the version: the scalars change below too
        self.scalars[:] = 0.0
        self.scalars[7], self.scalars[8] = l1, l2
        loss = self._fn(
            X.ctypes.data, T.ctypes.data, rows, self._pp, self._sp, self._stp
        )
        return loss, int(self.status[0])

    def runner(
        self,
        model: Any,
        X: np.ndarray,
        T: np.ndarray,
        optimizer: Any,
        l1: float,
        l2: float,
        max_rows: int,
    ):
        """A function ``step(start, stop) -> loss`` training on rows [start, stop) of
        (X, T); raises the trainer's ``_Diverged`` on NaN/inf like the generic step."""
        from .train import _Diverged as Diverged

        self.bind(model, max_rows)
        kind = self.configure_optimizer(model, optimizer, l1, l2)
        fn, pp, sp, stp = self._fn, self._pp, self._sp, self._stp
        scalars, status = self.scalars, self.status
        x0 = X.ctypes.data
        t0 = T.ctypes.data
        x_row = X.strides[0]
        t_row = T.strides[0]
        sync = model._sync_constants if model._learnable_layers else None

        if kind is not None:

            def step(start: int, stop: int) -> float:
                optimizer.steps += 1
                scalars[1] = optimizer._lr
                scalars[6] = optimizer.steps
                loss = fn(
                    x0 + start * x_row, t0 + start * t_row, stop - start, pp, sp, stp
                )
                if loss - loss != 0.0:  # NaN or inf
                    what = int(status[0])
                    if what != 3:
                        optimizer.steps -= 1
                    if sync is not None:
                        sync()
                    raise Diverged(_STATUS_WHAT.get(what, "loss"))
                if sync is not None:
                    sync()
                return loss

            return step

        flat, backup, ones = model._flat, model._backup, model._ones_flat

        def step_generic_optimizer(start: int, stop: int) -> float:
            loss = fn(x0 + start * x_row, t0 + start * t_row, stop - start, pp, sp, stp)
            what = int(status[0])
            if what:
                raise Diverged(_STATUS_WHAT.get(what, "loss"))
            backup[...] = flat
            optimizer.step()
            if not np.isfinite(np.dot(flat, ones)):
                flat[...] = backup
                raise Diverged("parameters")
            if sync is not None:
                sync()
            return loss

        return step_generic_optimizer

    def epoch_runner(
        self,
        model: Any,
        X: np.ndarray,
        T: np.ndarray,
        optimizer: Any,
        l1: float,
        l2: float,
        batch_size: int,
    ):
        """A function ``epoch(order) -> (loss sum, steps)`` running every minibatch of
        one epoch in one native call (rows ``order`` of (X, T), or in order for None),
        or None when the optimizer's update is not fused (the per-step path then runs
        ``optimizer.step()`` in Python). Raises the trainer's ``_Diverged`` (with the
        completed steps) on NaN/inf like the per-step path."""
        objects, values = _epoch_signature(model, optimizer, X, T, l1, l2, batch_size)
        cached = self._epoch_cache
        if (
            cached is not None
            and cached[2] == self._version
            and cached[5] is self._epoch_fn
            and cached[1] == values
            and len(cached[0]) == len(objects)
            and all(map(operator.is_, cached[0], objects))
        ):
            data = cached[4]
            if data[0] is not X or data[1] is not T:
                # new data of the same shape (each fit converts X and y anew)
                data[:] = [X, T, X.ctypes.data, T.ctypes.data]
            return cached[3]
        self._epoch_cache = None
        data = [X, T, X.ctypes.data, T.ctypes.data]
        epoch = self._new_epoch_runner(model, data, optimizer, l1, l2, batch_size)
        if epoch is not None:
            # the optimizer's state arrays exist now (configure_optimizer made them)
            objects, values = _epoch_signature(
                model, optimizer, X, T, l1, l2, batch_size
            )
            self._epoch_cache = (
                objects,
                values,
                self._version,
                epoch,
                data,
                self._epoch_fn,
            )
        return epoch

    def _new_epoch_runner(self, model, data, optimizer, l1, l2, batch_size):
        """epoch_runner without the cache: bind, configure, build the closure, which
        reads X's and T's addresses from ``data`` ([X, T, X address, T address])."""
        from .train import _Diverged as Diverged

        self.bind(model, batch_size)
        kind = self.configure_optimizer(model, optimizer, l1, l2)
        if kind is None:
            return None
        X, T = data[0], data[1]
        key = (batch_size, X.shape[1:], X.dtype.str, T.shape[1:], T.dtype.str)
        if self._gather[0] != key:
            self._gather = (
                key,
                np.empty((batch_size, *X.shape[1:]), dtype=X.dtype),
                np.empty((batch_size, *T.shape[1:]), dtype=T.dtype),
            )
        _, xbuf, ybuf = self._gather
        fn, pp, sp, stp = self._epoch_fn, self._pp, self._sp, self._stp
        scalars, status = self.scalars, self.status
        n = int(X.shape[0])
        xb, yb = self._address(xbuf), self._address(ybuf)
        alive = (model, optimizer, xbuf, ybuf)  # raw addresses stay valid (and data)
        del X, T  # only through data, which epoch_runner repoints at new arrays

        def epoch(order: np.ndarray | None) -> tuple[float, int]:
            assert alive
            _, _, x0, t0 = data
            op = None
            if order is not None:
                order = np.ascontiguousarray(order, dtype=np.int64)
                if order.shape != (n,):
                    raise ValueError(f"order must hold {n} row indices")
                op = order.ctypes.data
            scalars[1] = optimizer._lr
            scalars[6] = optimizer.steps
            total = fn(x0, t0, n, op, batch_size, xb, yb, pp, sp, stp)
            done, what = int(status[1]), int(status[0])
            # a step whose update made the parameters non-finite still counts (as on
            # the per-step path: Adam's moments moved)
            optimizer.steps += done + (what == 3)
            if what:
                raise Diverged(_STATUS_WHAT.get(what, "loss"), done, total)
            return total, done

        return epoch


def _epoch_signature(
    model: Any, optimizer: Any, X: Any, T: Any, l1: float, l2: float, batch_size: int
) -> tuple[tuple, tuple]:
    """What a configured epoch function depends on: the objects whose addresses it
    holds (compared by identity; holding them keeps their ids unique) and the values
    written into its scalars. Any change (new parameter or optimizer-state arrays, a
    new activation kernel or mask, changed hyper-parameters) rebuilds it."""
    loss_kernel = getattr(model._loss, "kernel", None)
    objects = [
        model,
        optimizer,
        model._flat,
        model._flat_grad,
        model._backup,
        None if loss_kernel is None else loss_kernel.params,
    ]
    for layer in model.layers:
        la = layer.activation
        objects.append(None if la is None else la.kernel.params)
        objects.append(layer.mask)
    pairs = getattr(optimizer, "_pairs", None)
    # X and T by shape and dtype only: the epoch function reads their addresses from
    # a list that epoch_runner repoints at new arrays of the same layout
    values: tuple = (
        batch_size,
        l1,
        l2,
        type(optimizer),
        X.shape,
        T.shape,
        X.dtype,
        T.dtype,
    )
    if pairs:
        objects.extend(pairs[0])
        values += (len(pairs),)
    for name in ("_velocity", "_m", "_v"):
        state = getattr(optimizer, name, None)
        if state:
            objects.append(state[0])
    for name in ("momentum", "weight_decay", "nesterov", "betas", "eps"):
        values += (getattr(optimizer, name, None),)
    return tuple(objects), values
