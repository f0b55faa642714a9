"""PyTorch face: symnb activations as ``torch.nn.Module``s over generic custom operators.

Four operators are registered once (``torch.library.custom_op``): ``symnb::elementwise``,
``symnb::elementwise_backward``, ``symnb::layer`` and ``symnb::layer_backward``. They take
the input, the constants as a tensor and an integer *handle*: the index of a registered
formula (or heterogeneous layer) in this module's registry. Integers are constants to
``torch.compile``, so a compiled model calls the operator without a graph break; the
fake (meta) implementations give shapes only.

* CPU tensors: the cpp backend (numpy if no compiler) runs on the tensor's own memory
  (dense tensors are not copied: contiguous, channels_last, transposed). Outputs and
  gradients keep the input's memory layout, as PyTorch's elementwise ops do.
  Elementwise cpp kernels are called directly on the tensors' addresses
  (:mod:`symnb.interop.native`: entry points bound once, the backward and the
  constants' gradient in one fused pass); the rest goes through the ``Kernel`` API
  on NumPy views (``Tensor.numpy()`` shares the memory).
* CUDA tensors: the cuda backend runs on the tensor's memory through DLPack
  (``cupy.from_dlpack``), on ``torch.cuda.current_stream()``.
* float16/bfloat16 are computed in float32 and returned in their own dtype.
* Backward saves only the input and the constants; the constants' gradients come from
  the kernels' ``constant_gradient`` (sums accumulated in double).

Kernels are compiled per (device, dtype) on first use and cached; modules sharing a
formula share one kernel. Constants are checked like the kernel's ``params`` setter
(finite and representable in the kernel's dtype, else ``FormulaError``): the direct CPU
calls pass each module's constants by address (checked once per distinct vector, no
write into ``params``); the other paths write ``params`` before each call and hold a
lock per formula until the call has read them, so modules may run in several threads
(on CUDA the launch is asynchronous: not checked there).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from symnb.backends.select import check_backend, per_neuron_activations
from symnb.checks import refuse_constant_attribute, warn_caller
from symnb.errors import FormulaError
from symnb.forksafe import instance_lock, module_lock
from symnb.interop import require
from symnb.interop.native import NativeElementwise

torch = require("torch")
from torch import Tensor, nn
from torch.autograd import forward_ad as _forward_ad

_LOCK = module_lock(globals(), "_LOCK", threading.Lock)  # see symnb.forksafe
_CPU = torch.device("cpu")
_ENTRIES: list[_Entry] = []
#: the constants of an activation without any
_NO_CONSTANTS = torch.zeros(0)
_HANDLES: dict[tuple, int] = {}


# ------------------------------------------------------------------ registry


class _Entry:
    """One registered formula (or layer of formulas) and its kernels per device/dtype."""

    def __init__(self, kind: str, activations: list, backend: str) -> None:
        self.kind = kind
        self.activations = activations
        self.backend = backend
        self.n = len(activations)
        self.kernels: dict[tuple, Any] = {}
        self.natives: dict[Any, NativeElementwise | None] = {}
        #: held from writing ``params`` to the end of the call that reads them, on
        #: the paths through the ``Kernel`` API: modules of one formula share its
        #: kernels, and another thread's constants written in between gave this
        #: module's output with them (the direct CPU calls pass constants by
        #: address and need no lock)
        self.call_lock = instance_lock(self, "call_lock", threading.Lock)
        #: f' and df/dc as handles of their own (create_graph); False: not built yet
        self.second: Any = False
        #: a layer's features as elementwise handles (torch.func); None: not built
        self.per_feature: list | None = None

    @property
    def label(self) -> str:
        """How error messages name it: "symnb activation 'swish'" or a layer."""
        if self.kind == "elementwise":
            return f"symnb activation {self.activations[0].name!r}"
        return f"a symnb layer of {self.n} activations"

    def features(self) -> list[tuple[int, int, int]]:
        """For a layer: (elementwise handle, first constant, number of constants) of
        each feature, in the layout of the layer's constant vector."""
        if self.per_feature is None:
            out, start = [], 0
            for act in self.activations:
                count = len(act.internal.param_names)
                out.append((register("elementwise", [act], self.backend), start, count))
                start += count
            self.per_feature = out
        return self.per_feature

    def native(self, dtype: Any) -> NativeElementwise | None:
        """Direct calls into the CPU kernel of ``dtype`` (None: not a cpp
        elementwise kernel; use the ``Kernel`` API)."""
        try:
            return self.natives[dtype]
        except KeyError:
            pass
        kernel = self.kernel(_CPU, dtype)
        native = NativeElementwise.of(kernel) if self.kind == "elementwise" else None
        self.natives[dtype] = native
        return native

    def kernel(self, device: Any, dtype: Any) -> Any:
        """The kernel for tensors on ``device`` of ``dtype`` (compiled on first use)."""
        key = (device.type, device.index, dtype)
        kernel = self.kernels.get(key)
        if kernel is None:
            with _LOCK:
                kernel = self.kernels.get(key)
                if kernel is None:
                    kernel = self.kernels[key] = self._compile(device, dtype)
        return kernel

    def _compile(self, device: Any, dtype: Any) -> Any:
        from symnb.backends.select import compile_layer

        name = str(dtype).replace("torch.", "")
        if device.type == "cpu":
            if self.backend == "cuda":
                raise ValueError(
                    "x is on the CPU but this module was made with backend='cuda'; "
                    "move x to a GPU (x.cuda()) or make the module with "
                    "backend='auto'"
                )
            opts = {
                "backend": "cpp" if self.backend == "auto" else self.backend,
                "device": 0,
                "strict": False,
            }
        elif device.type == "cuda":
            if self.backend not in ("auto", "cuda"):
                raise ValueError(
                    f"x is on {device} but this module was made with backend="
                    f"{self.backend!r}, which runs on the CPU; use backend='auto' or "
                    "'cuda', or move x to the CPU"
                )
            index = device.index if device.index is not None else 0
            opts = {"backend": "cuda", "device": index, "strict": True}
        else:
            raise ValueError(
                f"x is on device {device}; symnb kernels run on CPU and CUDA tensors "
                "(move x with x.cpu() or x.cuda())"
            )
        if self.kind == "elementwise":
            return self.activations[0].compile(dtype=name, **opts)
        return compile_layer(self.activations, dtype=name, **opts)


def register(kind: str, activations: Sequence[Any], backend: str = "auto") -> int:
    """The handle of a formula (``kind="elementwise"``, one activation) or of a layer
    (``kind="layer"``, one activation per feature); the same formulas with the same
    constants share a handle.

    The constants are part of the key: the stable form compiled is chosen for them
    (``symnb.robust``), so pseudo-Huber ``delta**2*(sqrt(1 + (x/delta)**2) - 1)`` made
    with delta = 1e3 after one with delta = 1 ran the latter's form, 0.119 for 0.2048
    at x = 0.64 in float32."""
    backend = check_backend(backend)
    acts = list(activations)
    key = (
        kind,
        backend,
        tuple((a.internal.signature(), a.internal.param_values) for a in acts),
    )
    with _LOCK:
        handle = _HANDLES.get(key)
        if handle is None:
            handle = _HANDLES[key] = len(_ENTRIES)
            _ENTRIES.append(_Entry(kind, acts, backend))
    return handle


def _entry(handle: int) -> _Entry:
    if not 0 <= handle < len(_ENTRIES):
        raise ValueError(
            f"symnb handle {handle} is not registered in this process (make the "
            "module again with Activation.to_torch or symnb.to_torch_layer)"
        )
    return _ENTRIES[handle]


# ------------------------------------------------------------------ memory sharing

_COMPUTE = {
    torch.float32: torch.float32,
    torch.float64: torch.float64,
    torch.float16: torch.float32,
    torch.bfloat16: torch.float32,
}


def _numpy(t: Tensor) -> np.ndarray:
    return t.numpy()


class _CpuArrays:
    """``with _arrays(cpu) as arr``: ``arr = Tensor.numpy`` (no generator overhead on
    the hot CPU path)."""

    def __enter__(self):
        return _numpy

    def __exit__(self, *exc: object) -> None:
        return None


_CPU_ARRAYS = _CpuArrays()


def _arrays(device: Any):
    """A function tensor -> array sharing its memory: NumPy on the CPU, CuPy (DLPack)
    on a GPU, inside PyTorch's current stream and the tensor's device."""
    if device.type == "cpu":
        return _CPU_ARRAYS
    return _cuda_arrays(device)


@contextlib.contextmanager
def _cuda_arrays(device: Any):
    cupy = require("cupy")
    stream = torch.cuda.current_stream(device)
    with (
        cupy.cuda.Device(device.index),
        cupy.cuda.ExternalStream(stream.cuda_stream, device.index),
    ):
        yield cupy.from_dlpack


def _host_constants(constants: Tensor) -> np.ndarray:
    """The constants as float64 host values (checked against the kernel's dtype by
    its ``params`` setter, not rounded to it here)."""
    return constants.detach().to(_CPU, torch.float64).numpy()


def _write_params(kernel: Any, constants: Tensor) -> None:
    """``kernel.params = constants`` through the checked setter: a value that does
    not fit the kernel's dtype is a ``FormulaError`` naming the constant."""
    if constants.numel():
        kernel.params = _host_constants(constants)


def _constant_grad_tensor(grad: Any, like: Tensor) -> Tensor:
    host = np.asarray(
        grad if isinstance(grad, np.ndarray) else list(grad), dtype=np.float64
    )
    return torch.from_numpy(host).to(device=like.device, dtype=like.dtype)


# ------------------------------------------------------------------ implementations
# dim=-1 with handle of kind "elementwise": the whole tensor; otherwise ``dim`` is the
# feature axis of a layer (LayerKernel's ``axis``).


def _in_layout(t: Tensor, like: Tensor) -> Tensor:
    """``t``'s values with ``like``'s dtype and strides: ``t`` itself when it has them
    (only its address is read: no detach, no new tensor object), else a copy (a
    negative view resolved: the kernels read raw memory, and ``z.conj().imag`` gave
    f(-x) for f(x))."""
    if (
        t.dtype == like.dtype
        # both contiguous: the same order (cheaper than comparing stride tuples)
        and (
            (t.is_contiguous() and like.is_contiguous()) or t.stride() == like.stride()
        )
        and not t.is_neg()
    ):
        return t
    return torch.empty_like(like).copy_(t.detach())


def _empty(x: Tensor) -> Tensor:
    """An uninitialised tensor laid out as ``x``, of its kernel dtype."""
    if x.dtype is torch.float32 or x.dtype is torch.float64:
        return torch.empty_like(x)  # without dtype=: 0.4 us less a call
    return torch.empty_like(x, dtype=_COMPUTE[x.dtype])


def _order(t: Tensor) -> list[int] | None:
    """The permutation of ``t``'s dimensions that makes a dense ``t`` C-contiguous
    (None: it is already): largest stride first."""
    if t.is_contiguous():
        return None
    return sorted(range(t.ndim), key=lambda d: -t.stride(d))


def _forward_impl(x: Tensor, constants: Tensor, handle: int, dim: int) -> Tensor:
    # the output is laid out as PyTorch's elementwise ops lay theirs out (empty_like:
    # channels_last stays channels_last, a transposed x keeps its strides, a strided
    # or broadcast one becomes dense in its dimensions' order), and x is read in that
    # layout: it was C-contiguous whatever x was
    entry = _entry(handle)
    y = _empty(x)
    xc = _in_layout(x, y)
    if entry.kind == "elementwise" and x.is_cpu:
        native = entry.native(xc.dtype)
        # elementwise: memory order does not matter; no address where the native
        # library's forms do not hold at these constants (the Kernel API then)
        pc = None if native is None else native.constants_address(constants.tolist())
        if pc is not None:
            if y.numel():
                native.forward(xc.data_ptr(), y.data_ptr(), y.numel(), pc)
            return y if y.dtype == x.dtype else y.to(x.dtype)
    kernel = entry.kernel(xc.device, xc.dtype)
    view, along = _views(y, entry, dim)
    with entry.call_lock, _arrays(xc.device) as arr:
        _write_params(kernel, constants)
        kernel.forward(arr(view(xc.detach())), out=arr(view(y)), **along)
    return y.to(x.dtype)


def _views(like: Tensor, entry: _Entry, dim: int) -> tuple:
    """(view, along): ``view(t)`` is the C-contiguous view of a tensor laid out as
    ``like`` that the ``Kernel`` API reads; ``along`` the layer's feature axis in it."""
    perm = _order(like)
    if perm is None:
        along = {} if entry.kind == "elementwise" else {"axis": dim}
        return (lambda t: t), along
    along = {} if entry.kind == "elementwise" else {"axis": perm.index(dim % like.ndim)}
    return (lambda t: t.permute(perm)), along


def _backward_impl(
    x: Tensor,
    grad: Tensor,
    constants: Tensor,
    handle: int,
    dim: int,
    constants_grad: bool,
) -> tuple[Tensor, Tensor]:
    entry = _entry(handle)
    # dx in the forward output's layout; x and grad read in it (autograd may hand a
    # contiguous grad for a channels_last x)
    dx = _empty(x)
    xc = _in_layout(x, dx)
    gc = _in_layout(grad, dx)
    if entry.kind == "elementwise" and x.is_cpu:
        native = entry.native(xc.dtype)
        pc = None if native is None else native.constants_address(constants.tolist())
        if pc is not None:
            return _native_backward(native, x, xc, gc, dx, constants, constants_grad)
    kernel = entry.kernel(xc.device, xc.dtype)
    # a layer's feature axis ``dim`` is read in place (C++: plane by plane)
    view, along = _views(dx, entry, dim)
    xv, gv = view(xc.detach()), view(gc.detach())
    with entry.call_lock, _arrays(xc.device) as arr:
        _write_params(kernel, constants)
        kernel.backward(arr(xv), arr(gv), out=arr(view(dx)), **along)
        if constants_grad and constants.numel():
            sums = kernel.constant_gradient(arr(xv), arr(gv), **along)
            if isinstance(sums, dict):
                sums = list(sums.values())
            dc = _constant_grad_tensor(sums, constants)
        else:
            dc = torch.zeros_like(constants)
    return dx.to(x.dtype), dc


def _native_backward(
    native: NativeElementwise,
    x: Tensor,
    xc: Tensor,
    gc: Tensor,
    dx: Tensor,
    constants: Tensor,
    constants_grad: bool,
) -> tuple[Tensor, Tensor]:
    pc = native.constants_address(constants.tolist())
    n = dx.numel()
    if constants_grad and native.n_constants and n:
        sums = torch.zeros(native.n_constants, dtype=torch.float64)
        native.add_backward_with_constants(
            xc.data_ptr(), gc.data_ptr(), dx.data_ptr(), sums.data_ptr(), n, pc
        )
        same = constants.dtype is torch.float64 and constants.is_cpu
        dc = sums if same else sums.to(device=constants.device, dtype=constants.dtype)
    else:
        if n:
            native.backward(xc.data_ptr(), gc.data_ptr(), dx.data_ptr(), n, pc)
        dc = torch.zeros_like(constants)
    return (dx if dx.dtype == x.dtype else dx.to(x.dtype)), dc


def _fake_pair(x: Tensor, constants: Tensor) -> tuple[Tensor, Tensor]:
    return (
        torch.empty_like(x),
        torch.empty_like(constants),
    )


# ------------------------------------------------------------------ custom operators


def _check_op(
    x: Tensor, constants: Tensor, handle: int, dim: int, grad: Tensor | None = None
) -> None:
    """The operators are public (torch.ops.symnb.*): arguments the modules would
    never pass are refused here, naming them. Called directly, an integer x was a
    KeyError, a 2-D constants tensor "unhashable type: 'list'", a layer dim out of
    range an IndexError, and a grad of another shape read past x's length."""
    entry = _entry(handle)
    if x.dtype not in _COMPUTE:
        raise TypeError(
            f"{entry.label} needs a floating-point x (float32, float64, float16 or "
            f"bfloat16), got {x.dtype}; convert it, e.g. x.float()"
        )
    if constants.ndim != 1:
        raise ValueError(
            f"the constants of {entry.label} must be a 1-D tensor (one value per "
            f"constant), got shape {tuple(constants.shape)}"
        )
    if grad is not None and grad.shape != x.shape:
        raise ValueError(
            f"grad has shape {tuple(grad.shape)} but x has {tuple(x.shape)}; the "
            "backward operator takes the gradient of the output, shaped like x"
        )
    if entry.kind != "elementwise":
        if x.ndim == 0 or not -x.ndim <= dim < x.ndim:
            raise ValueError(
                f"x has shape {tuple(x.shape)}; it has no dimension {dim} for "
                f"{entry.label}"
            )
        if x.shape[dim] != entry.n:
            raise ValueError(
                f"x has shape {tuple(x.shape)}: dimension {dim} has {x.shape[dim]} "
                f"entries, but {entry.label} has {entry.n} features"
            )


@torch.library.custom_op("symnb::elementwise", mutates_args=())
def elementwise(x: Tensor, constants: Tensor, handle: int) -> Tensor:
    """f(x) elementwise with the formula ``handle`` and its constants."""
    _check_op(x, constants, handle, -1)
    return _forward_impl(x, constants, handle, -1)


@elementwise.register_fake
def _(x: Tensor, constants: Tensor, handle: int) -> Tensor:
    return torch.empty_like(x)


@torch.library.custom_op("symnb::elementwise_backward", mutates_args=())
def elementwise_backward(
    x: Tensor, grad: Tensor, constants: Tensor, handle: int, constants_grad: bool
) -> tuple[Tensor, Tensor]:
    """(grad * f'(x), sum(grad * df/dc)) for the formula ``handle``."""
    _check_op(x, constants, handle, -1, grad)
    return _backward_impl(x, grad, constants, handle, -1, constants_grad)


@elementwise_backward.register_fake
def _(x, grad, constants, handle, constants_grad):
    return _fake_pair(x, constants)


def _elementwise_setup(ctx, inputs, output) -> None:
    x, constants, handle = inputs
    ctx.save_for_backward(x, constants)
    ctx.handle = handle


def _elementwise_grad(ctx, grad: Tensor):
    x, constants = ctx.saved_tensors
    need_x, need_c = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    dx, dc = elementwise_backward(x, grad, constants, ctx.handle, need_c)
    return (dx if need_x else None), (dc if need_c else None), None


elementwise.register_autograd(_elementwise_grad, setup_context=_elementwise_setup)


@torch.library.custom_op("symnb::layer", mutates_args=())
def layer(x: Tensor, params: Tensor, handle: int, dim: int) -> Tensor:
    """Feature j along ``dim`` uses activation j of the layer ``handle``."""
    _check_op(x, params, handle, dim)
    return _forward_impl(x, params, handle, dim)


@layer.register_fake
def _(x: Tensor, params: Tensor, handle: int, dim: int) -> Tensor:
    return torch.empty_like(x)


@torch.library.custom_op("symnb::layer_backward", mutates_args=())
def layer_backward(
    x: Tensor,
    grad: Tensor,
    params: Tensor,
    handle: int,
    dim: int,
    constants_grad: bool,
) -> tuple[Tensor, Tensor]:
    """(grad * f_j'(x), per-neuron sums of grad * df_j/dc) for the layer ``handle``."""
    _check_op(x, params, handle, dim, grad)
    return _backward_impl(x, grad, params, handle, dim, constants_grad)


@layer_backward.register_fake
def _(x, grad, params, handle, dim, constants_grad):
    return _fake_pair(x, params)


def _layer_setup(ctx, inputs, output) -> None:
    x, params, handle, dim = inputs
    ctx.save_for_backward(x, params)
    ctx.handle, ctx.dim = handle, dim


def _layer_grad(ctx, grad: Tensor):
    x, params = ctx.saved_tensors
    need_x, need_c = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    dx, dc = layer_backward(x, grad, params, ctx.handle, ctx.dim, need_c)
    return (dx if need_x else None), (dc if need_c else None), None, None


layer.register_autograd(_layer_grad, setup_context=_layer_setup)


# ------------------------------------------------------------------ eager fast path


class _Eager(torch.autograd.Function):
    """The same implementations without the dispatcher round trips of a custom op
    (about 50 us per call on the CPU); used in eager mode only, the custom operators
    whenever torch.compile, export or fake tensors trace the model."""

    @staticmethod
    def forward(ctx, x: Tensor, constants: Tensor, handle: int, dim: int) -> Tensor:
        ctx.save_for_backward(x, constants)
        ctx.handle, ctx.dim = handle, dim
        return _forward_impl(x, constants, handle, dim)

    @staticmethod
    def backward(ctx, grad: Tensor):
        x, constants = ctx.saved_tensors
        if torch.is_grad_enabled():
            # create_graph=True (a PINN's loss on du/dx, a gradient penalty): this
            # gradient will be differentiated again, so it is built from ops that
            # have derivatives of their own (once_differentiable returned it without
            # a graph, and such a loss trained silently without that term)
            return _differentiable_backward(ctx, x, constants, grad)
        need_x, need_c = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        dx, dc = _backward_impl(x, grad, constants, ctx.handle, ctx.dim, need_c)
        return (dx if need_x else None), (dc if need_c else None), None, None


class _EagerValues(torch.autograd.Function):
    """An activation module's eager call with its constants as separate 0-d tensors
    (its parameters and buffers): the vector the kernels read is stacked inside
    ``forward``, where no graph is recorded, so the module's call needs no
    ``no_grad`` block and no ``torch.stack`` node joins the graph (on a small
    tensor, such per-call Python costs as much as the kernels)."""

    @staticmethod
    def forward(ctx, x: Tensor, handle: int, label: str, *values: Tensor):
        constants = torch.stack(values) if values else _NO_CONSTANTS
        _check_device(x, constants, label)
        # the values of this call (a copy): an optimiser may change the parameters
        # in place before this graph's backward, which then uses these
        ctx.save_for_backward(x, constants)
        ctx.values, ctx.handle, ctx.dim = values, handle, -1
        return _forward_impl(x, constants, handle, -1)

    @staticmethod
    def backward(ctx, grad: Tensor):
        x, constants = ctx.saved_tensors
        need_x, needs_c = ctx.needs_input_grad[0], ctx.needs_input_grad[3:]
        need_c = any(needs_c)
        if torch.is_grad_enabled():  # create_graph: see _Eager.backward
            if ctx.values:  # this call's values, differentiable w.r.t. the parameters
                now = torch.stack(ctx.values)
                constants = constants + (now - now.detach())
            dx, dc, _, _ = _differentiable_backward(
                ctx, x, constants, grad, (need_x, need_c)
            )
        else:
            dx, dc = _backward_impl(x, grad, constants, ctx.handle, -1, need_c)
        if not need_x:
            dx = None
        if not need_c:
            return (dx, None, None, *[None] * len(needs_c))
        if all(needs_c):
            return (dx, None, None, *dc.unbind())
        return (dx, None, None, *(d if n else None for d, n in zip(dc, needs_c)))


def _eager_values(x: Tensor, values: Sequence[Tensor]) -> bool:
    """Whether :class:`_EagerValues` may run the call: what :func:`apply` sends to
    :class:`_Eager` (plain tensors in eager mode, a gradient wanted)."""
    return (
        not torch.compiler.is_compiling()
        and torch.is_grad_enabled()
        and (x.requires_grad or any(v.requires_grad for v in values))
        and _plain(x)
        and all(_plain(v) for v in values)
        and not torch._C._are_functorch_transforms_active()
        and _forward_ad._current_level < 0
        and not torch.jit.is_tracing()
    )


def _differentiable_backward(
    ctx, x: Tensor, constants: Tensor, grad: Tensor, needs: tuple | None = None
):
    """grad * f'(x) and the sums of grad * df/dc with f' and each df/dc applied as
    symnb activations of their own (:func:`_second_order`): differentiable in x, the
    constants and grad, their derivatives from their own kernels. A heterogeneous
    layer does the same feature by feature (it had first derivatives only).
    ``needs``: (x's gradient?, the constants'?), by default ``needs_input_grad``."""
    need_x, need_c = ctx.needs_input_grad[:2] if needs is None else needs
    entry = _entry(ctx.handle)
    if entry.kind == "elementwise":
        parts = [(x, grad, constants, ctx.handle)]
    else:
        dim = ctx.dim % x.ndim
        parts = [
            (x.select(dim, j), grad.select(dim, j), constants[s : s + k], h)
            for j, (h, s, k) in enumerate(entry.features())
        ]
    dxs, sums = [], []
    for xj, gj, cj, h in parts:
        (h_df, idx_df), dcs = _second_order_or_raise(
            h, "second-order (create_graph=True, double backward)"
        )
        if need_x:
            dxs.append(gj * apply(xj, cj[idx_df], h_df))
        if need_c:  # one sum per constant, in the order of the module's vector
            sums += [(gj * apply(xj, cj[idx], hk)).sum() for hk, idx in dcs]
    dx = None
    if need_x:
        elementwise = entry.kind == "elementwise"
        dx = dxs[0] if elementwise else torch.stack(dxs, ctx.dim % x.ndim)
    dc = None
    if need_c:
        dc = torch.zeros_like(constants)
        if sums:
            dc = torch.stack(sums).to(constants.dtype)
    return dx, dc, None, None


def _second_order(handle: int) -> tuple | str:
    """For the activation ``handle``: ``((handle of f', constant indices), [(handle of
    df/dc_k, constant indices), ...])``, f' and df/dc_k registered as activations of
    their own with the same constants (indices: where each of their constants sits in
    this activation's vector). Steps in f' get a zero derivative (``surrogate="zero"``,
    as PyTorch's double backward of relu). When a derivative is not a formula symnb
    compiles, the reason (a string), remembered."""
    entry = _entry(handle)
    if entry.second is not False:
        return entry.second
    import warnings

    from symnb.formula.formula import Activation

    act = entry.activations[0]
    names = list(act.internal.param_names)
    values = dict(zip(names, act.internal.param_values))

    def register_form(expr: Any, label: str) -> tuple:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "will not learn" of surrogate="zero"
            used = {str(s) for s in expr.free_symbols}
            consts = {n: v for n, v in values.items() if n in used}
            d = Activation(expr, name=label, surrogate="zero", **consts)
        idx = [names.index(n) for n in d.internal.param_names]
        return register("elementwise", [d], entry.backend), idx

    try:
        first = register_form(act.derivative, f"{act.name}_prime")
        dcs = [
            register_form(expr, f"{act.name}_d_{n}")
            for n, expr in act.constant_derivatives.items()
        ]
        entry.second = (first, dcs)
    except Exception as exc:  # noqa: BLE001 - any formula the compiler refuses
        entry.second = (
            f"its derivative could not be compiled as a formula of its own ({exc}); "
            "use to_jax, whose derivative differentiates again"
        )
    return entry.second


def _plain(t: Tensor) -> bool:
    # is_cpu/is_cuda: t.device.type made a device object each call (0.7 us)
    return type(t) in (Tensor, nn.Parameter) and (t.is_cpu or t.is_cuda)


def apply(x: Tensor, constants: Tensor, handle: int, dim: int = -1) -> Tensor:
    """Run the formula or layer ``handle`` on ``x``: the custom operator under
    torch.compile/export and for tensor subclasses, :class:`_Functorch` under
    torch.func transforms, a plain autograd.Function in eager mode (same kernels, same
    saved tensors)."""
    if torch._C._are_functorch_transforms_active() or _forward_ad._current_level >= 0:
        return _under_transforms(x, constants, handle, dim)
    if (
        torch.compiler.is_compiling()
        or torch.jit.is_tracing()
        or not (_plain(x) and _plain(constants))
    ):
        # the operators, which graphs record: torch.jit.trace (also ONNX export's
        # TorchScript route) does not see the ctypes call of the eager path, and
        # its graph returned uninitialised memory (empty_like) for new inputs
        if _entry(handle).kind == "elementwise":
            return elementwise(x, constants, handle)
        return layer(x, constants, handle, dim)
    if not (torch.is_grad_enabled() and (x.requires_grad or constants.requires_grad)):
        # nothing to differentiate (inference, no_grad): the implementation itself;
        # an autograd.Function costs ~5 us a call, a quarter of a small tensor's
        return _forward_impl(x, constants, handle, dim)
    return _Eager.apply(x, constants, handle, dim)


# ------------------------------------------------------------------ torch.func


@torch.compiler.disable(
    reason="symnb activations under torch.func transforms (and forward-mode AD) run "
    "eagerly: traced by dynamo, jacfwd gave zeros and jacrev failed"
)
def _under_transforms(x: Tensor, constants: Tensor, handle: int, dim: int) -> Tensor:
    """torch.func transforms and forward-mode AD: :class:`_Functorch` (a layer
    feature by feature). Run eagerly even inside torch.compile (a graph break; with
    fullgraph=True, dynamo's error naming this reason): traced by dynamo, the jvp
    rule was dropped (jacfwd gave zeros) and jacrev failed in fake tensors."""
    _refuse_nested_forward_mode(handle)
    if _entry(handle).kind == "elementwise":
        return _Functorch.apply(x, constants, handle, dim)
    return _layer_by_feature(x, constants, handle, dim)


class _Functorch(torch.autograd.Function):
    """One activation under torch.func transforms (grad, jacrev, jvp, jacfwd, hessian,
    vmap). The custom operator is not used there: torch.func.jvp/jacfwd through it
    returned a zero tangent without a word (a custom op has no forward-mode formula),
    and grad/jacrev through it failed inside PyTorch ("must override the
    setup_context staticmethod"). Backward and jvp are built from f' and df/dc applied
    as activations of their own (:func:`_second_order`), so every order
    differentiates again; vmap runs the kernel once on the whole batch."""

    @staticmethod
    def forward(x: Tensor, constants: Tensor, handle: int, dim: int) -> Tensor:
        # the custom operator: traceable when torch.compile meets a transform
        return elementwise(x, constants, handle)

    @staticmethod
    def setup_context(ctx, inputs, output) -> None:
        x, constants, handle, dim = inputs
        ctx.save_for_backward(x, constants)
        ctx.save_for_forward(x, constants)
        ctx.handle, ctx.dim = handle, dim

    @staticmethod
    def backward(ctx, grad: Tensor):
        x, constants = ctx.saved_tensors
        return _differentiable_backward(ctx, x, constants, grad)

    @staticmethod
    def jvp(ctx, x_tangent, constants_tangent, *_):
        x, constants = ctx.saved_tensors
        (h_df, idx_df), dcs = _second_order_or_raise(ctx.handle, "forward-mode")
        out = torch.zeros_like(x)
        if x_tangent is not None:
            out = out + x_tangent * apply(x, constants[idx_df], h_df)
        if constants_tangent is not None:
            for k, (h, idx) in enumerate(dcs):
                out = out + constants_tangent[k] * apply(x, constants[idx], h)
        return out

    @staticmethod
    def vmap(info, in_dims, x, constants, handle, dim):
        x_dim, c_dim = in_dims[0], in_dims[1]
        if c_dim is None:  # elementwise: the batch is more elements
            return apply(x.movedim(x_dim, 0), constants, handle, dim), 0
        # constants batched (vmap over a module's parameters): one call per entry
        cs = constants.movedim(c_dim, 0)
        xs = None if x_dim is None else x.movedim(x_dim, 0)
        outs = [
            apply(x if xs is None else xs[i], cs[i], handle, dim)
            for i in range(info.batch_size)
        ]
        return torch.stack(outs), 0


def _refuse_nested_forward_mode(handle: int) -> None:
    """Forward mode over forward mode (jacfwd(jacfwd(f)), jvp of a jvp): PyTorch does
    not differentiate a custom autograd.Function's jvp rule again; the outer tangent
    came back as zeros without a word (also for Functions made of torch ops only)."""
    try:
        from torch._C._functorch import TransformType
        from torch._functorch.pyfunctorch import retrieve_all_functorch_interpreters

        levels = [i.key() for i in retrieve_all_functorch_interpreters()]
    except Exception:  # noqa: BLE001 - private API moved: nothing to check
        return
    if levels.count(TransformType.Jvp) > 1:
        raise RuntimeError(
            f"forward mode over forward mode (jacfwd of jacfwd, jvp of a jvp) "
            f"through {_entry(handle).label} is not supported: PyTorch does not "
            "differentiate a custom function's jvp again (the result would be "
            "zeros); make one of the two reverse mode, e.g. "
            "torch.func.jacfwd(torch.func.jacrev(f)) as torch.func.hessian does"
        )


def _layer_by_feature(x: Tensor, params: Tensor, handle: int, dim: int) -> Tensor:
    """A heterogeneous layer under torch.func transforms: feature j along ``dim`` is
    activation j applied as a formula of its own (:class:`_Functorch`), so jvp, grad
    and their compositions see only operations with forward and backward formulas."""
    entry = _entry(handle)
    dim = dim % x.ndim
    features = entry.features()
    if x.shape[dim] != len(features):
        raise ValueError(
            f"x has shape {tuple(x.shape)}: dimension {dim} has {x.shape[dim]} "
            f"entries, but the layer has {len(features)} activations"
        )
    parts = [
        apply(x.select(dim, j), params[start : start + count], h)
        for j, (h, start, count) in enumerate(features)
    ]
    return torch.stack(parts, dim)


def _second_order_or_raise(handle: int, what: str) -> tuple:
    second = _second_order(handle)
    if isinstance(second, str):
        raise RuntimeError(  # noqa: TRY004 - an unsupported operation, not a type
            f"{what} derivatives through {_entry(handle).label} are not supported: "
            f"{second}"
        )
    return second


# ------------------------------------------------------------------ modules


def _check_input(x: Any, what: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what} expects a torch.Tensor, got {type(x).__name__}")
    if x.is_nested:
        # PyTorch's own words: "Internal error: NestedTensorImpl doesn't support
        # sizes. Please file an issue"
        raise TypeError(
            f"{what} takes dense tensors only, got a nested tensor; apply it to "
            "x.values() (jagged layout) or to torch.nested.to_padded_tensor(x, 0.0)"
        )
    if x.layout != torch.strided:
        raise TypeError(
            f"{what} takes dense tensors only, got a tensor with layout {x.layout}; "
            "pass x.to_dense()"
        )
    if x.dtype not in _COMPUTE:
        raise TypeError(
            f"{what} needs a floating-point tensor (float32, float64, float16 or "
            f"bfloat16), got {x.dtype}; convert it, e.g. x.float()"
        )


def _check_device(x: Tensor, values: Tensor, what: str) -> None:
    # the device first: numel() of a traced tensor warned "Converting a tensor to a
    # Python boolean might cause the trace to be incorrect" under torch.jit.trace
    if values.is_cpu and x.is_cpu:  # the common case without device objects
        return
    if values.device != x.device and values.numel():
        raise ValueError(
            f"x is on {x.device} but the constants of {what} are on "
            f"{values.device}; move the module with module.to({str(x.device)!r})"
        )


def _resolve(act: Any, where: str = "activation") -> Any:
    from symnb.formula.formula import as_activation

    return as_activation(act, where)


def _learnable_names(acts: list, learnable: Any) -> set[str]:
    """The constant names to train: None -> those marked with symnb.learnable."""
    known: list[str] = []
    for a in acts:
        known += [n for n in a.internal.param_names if n not in known]
    owner = (
        f"activation {acts[0].name!r}"
        if len(acts) == 1
        else f"the layer of {len(acts)} activations"
    )
    if learnable is None:
        return {n for a in acts for n in a.learnable}
    if isinstance(learnable, (bool, np.bool_)):
        if learnable and not known:
            # the module came back without parameters: an optimizer over it
            # raised "optimizer got an empty parameter list", far from the cause
            formula = f" ({acts[0].text!r:.60})" if len(acts) == 1 else ""
            warn_caller(
                f"learnable=True, but {owner}{formula} has no constants: there is "
                "nothing to learn (the module has no parameter values); give the "
                "formula a constant to train, e.g. symnb.Activation('x*sigmoid(b*x)',"
                " b=symnb.learnable(1.0))"
            )
        return set(known) if learnable else set()
    if isinstance(learnable, str):
        learnable = [learnable]
    if isinstance(learnable, (bytes, dict)):
        # bytes iterated as integers ("got 98"); a dict's values (True/False per
        # name) were ignored: {"beta": False} made beta learnable
        raise TypeError(
            "learnable must be True, False, None, a constant's name or a list of "
            f"names, got {learnable!r}; e.g. learnable=['beta']"
        )
    try:
        names = list(learnable)
    except TypeError:
        raise TypeError(
            "learnable must be True, False, None, a constant's name or a list of "
            f"names, got {learnable!r}"
        ) from None
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"learnable names must be strings, got {n!r}")
        if n not in known:
            raise FormulaError.unknown_constant(owner, n, known)
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        # most likely a slip for another constant (["a", "a"] meant ["a", "b"])
        raise ValueError(
            f"learnable lists {', '.join(map(repr, twice))} more than once "
            f"({names!r:.80}); list each constant once (the constants of "
            f"{owner} are: {', '.join(known)})"
        )
    # an empty list is a choice: no constant is learnable (as learnable=False)
    return set(names)


def _refuse_script(self: nn.Module):
    """``torch.jit.script`` compiles a module's Python into TorchScript, which cannot
    call symnb's kernels (ctypes, DLPack); it failed with "Don't support conversion in
    JoinedStr" pointing into symnb's source. The supported graph routes are named."""
    raise RuntimeError(
        f"{type(self).__name__} cannot be compiled by torch.jit.script (TorchScript "
        "cannot call symnb's kernels); use torch.compile(model), torch.export.export"
        "(model, args) or torch.jit.trace(model, example), which record the symnb "
        "operator"
    )


class TorchActivation(nn.Module):
    """A symnb activation applied elementwise (any shape) through ``symnb::elementwise``.

    Constants live in the submodule ``constants``: learnable ones as ``nn.Parameter``,
    the others as buffers, so ``state_dict`` keeps all of them. They are created in
    float64 (exact for any input dtype; the kernel reads them in its own dtype) and
    follow ``module.to(dtype)`` like any parameter.
    """

    def __init__(
        self, activation: Any, learnable: Any = None, backend: str = "auto"
    ) -> None:
        super().__init__()
        self.activation = _resolve(activation)
        form = self.activation.internal
        self.constant_names = tuple(form.param_names)
        # checked before the loop: inside it, an activation without constants
        # never checked learnable (relu.to_torch(learnable=["a"]) passed silently)
        chosen = _learnable_names([self.activation], learnable)
        self.learnable_names = tuple(n for n in self.constant_names if n in chosen)
        self.backend = check_backend(backend)  # 'CPP' as compile takes it
        self.handle = register("elementwise", [self.activation], self.backend)
        self.constants = nn.Module()
        for name, value in zip(form.param_names, form.param_values):
            if hasattr(self.constants, name):
                raise ValueError(
                    f"constant name {name!r} clashes with an nn.Module attribute; "
                    "rename the constant"
                )
            t = torch.tensor(float(value), dtype=torch.float64)
            if name in self.learnable_names:
                self.constants.register_parameter(name, nn.Parameter(t))
            else:
                self.constants.register_buffer(name, t)

    def __setattr__(self, name: str, value: Any) -> None:
        built = "constants" in self.__dict__.get("_modules", {})
        if built and name in self.constant_names:
            refuse_constant_attribute(
                self,
                name,
                self.constant_names,
                f"activation {self.activation.name!r}",
                f"it lives in .constants: set it with torch.no_grad(): "
                f"module.constants.{name}.fill_(value) (assigning module.{name} "
                "would not reach the kernel)",
            )
        super().__setattr__(name, value)

    def constant_vector(self) -> Tensor:
        """The constants as one 1-D tensor (differentiable w.r.t. the learnable ones)."""
        if not self.constant_names:
            return torch.zeros(0)
        return torch.stack(self._values())

    def _values(self) -> list[Tensor]:
        """The constants as 0-d tensors, in order: the submodule's parameters and
        buffers read from its dicts (``nn.Module.__getattr__`` cost ~2 us a name)."""
        held = self._modules["constants"]
        found = {**held._buffers, **held._parameters}
        values = [found.get(n) for n in self.constant_names]
        if any(v is None or v.ndim for v in values):
            # replaced by hand (load_state_dict checks shapes)
            values = [
                self._one_number(n, getattr(held, n)) for n in self.constant_names
            ]
        return values

    def _one_number(self, name: str, value: Tensor) -> Tensor:
        """A constant assigned by hand as a tensor of one element, as a 0-d one; of
        more, a ValueError naming it (was "unhashable type: 'list'")."""
        if value.numel() == 1:
            return value.reshape(())
        raise ValueError(
            f"constant {name!r} of activation {self.activation.name!r} has shape "
            f"{tuple(value.shape)}; it must be one number (a 0-d tensor); for one "
            "value per channel use symnb.to_torch_layer([...] * channels, dim=1)"
        )

    def forward(self, x: Tensor) -> Tensor:
        _check_input(x, f"symnb activation {self.activation.name!r}")
        values = self._values() if self.constant_names else ()
        label = f"activation {self.activation.name!r}"
        if _eager_values(x, values):  # no stack node in the graph
            return _EagerValues.apply(x, self.handle, label, *values)
        c = torch.stack(values) if values else _NO_CONSTANTS
        _check_device(x, c, label)
        return apply(x, c.to(device=x.device), self.handle)

    __prepare_scriptable__ = _refuse_script

    def __setstate__(self, state: dict) -> None:  # unpickled in another process
        super().__setstate__(state)
        self.handle = register("elementwise", [self.activation], self.backend)

    def extra_repr(self) -> str:
        consts = ", ".join(
            f"{n}={float(getattr(self.constants, n).detach()):g}"
            for n in self.constant_names
        )
        learn = (
            f", learnable={list(self.learnable_names)}" if self.learnable_names else ""
        )
        return f"{self.activation.name!r}{', ' if consts else ''}{consts}{learn}"


#: Bound of ``TorchLayer(dim=...)``: a C int, as CUDA and ATen number dimensions (a
#: tensor with 2**31 dimensions would need 32 GiB for its sizes and strides alone).
MAX_DIM = 2**31


class TorchLayer(nn.Module):
    """A heterogeneous layer: feature j along ``dim`` uses ``activations[j]``.

    ``learnable_values`` (an ``nn.Parameter``) and ``fixed_values`` (a buffer) hold
    the constants; ``constant_vector()`` lays them out as ``symnb.LayerKernel.params``
    (``offsets[j]`` is feature j's first constant). With ``learnable=None`` the
    activations' own marks decide, feature by feature: ``symnb.learnable(v)``
    (per="layer") gives one parameter per name shared by the features that mark it,
    as in ``symnb.nn`` layers; per="neuron" one per feature. An explicit
    ``learnable`` (True or names) gives each feature its own.
    """

    def __init__(
        self,
        activations: Sequence[Any],
        dim: int = -1,
        learnable: Any = None,
        backend: str = "auto",
    ) -> None:
        super().__init__()
        if isinstance(activations, str) or not isinstance(activations, Sequence):
            raise TypeError(
                "to_torch_layer expects a list with one activation per feature, e.g. "
                "[relu, swish, swish]"
            )
        if isinstance(dim, (bool, np.bool_)) or not isinstance(dim, (int, np.integer)):
            raise TypeError(f"dim must be an int, got {dim!r}")
        dim = int(dim)  # an index taken from a NumPy shape too
        if not -MAX_DIM <= dim < MAX_DIM:
            # dim=10**30 was kept and failed only at the first forward
            raise ValueError(
                f"dim={dim} is beyond the dimensions any tensor has; dim is the "
                "axis of the features, e.g. dim=-1 (the last) or dim=1 (channels)"
            )
        # ['relu'] * 10**5 parsed 'relu' once per feature (about 100 s)
        acts = per_neuron_activations(activations, "feature")
        if not acts:
            raise ValueError("to_torch_layer needs at least one activation")
        self.activations = acts
        self.n = len(acts)
        self.dim = dim
        self.backend = check_backend(backend)  # 'CPP' as compile takes it
        chosen = _learnable_names(acts, learnable)
        counts = [len(a.internal.param_names) for a in acts]
        self.offsets = tuple(
            int(o) for o in np.concatenate([[0], np.cumsum(counts)])[:-1]
        )
        learned: list[float] = []  # the entries of learnable_values
        fixed: list[float] = []
        where: list[tuple[bool, int]] = []  # each constant: (learned?, entry)
        shared: dict[str, int] = {}  # per="layer" marks: name -> learned entry
        labels = []
        for j, a in enumerate(acts):
            marks = a.learnable
            for name, v in zip(a.internal.param_names, a.internal.param_values):
                labels.append(f"{name}[{j}]")
                # learnable=None: each feature's own marks (symnb.learnable); a
                # fixed beta of feature 1 was made learnable because feature 0's
                # beta was marked. per="layer" marks share one entry per name, as
                # in symnb's layers (per="neuron": one per feature)
                if learnable is None and name in marks:
                    if marks[name].per == "layer" and name in shared:
                        where.append((True, shared[name]))
                        continue
                    if marks[name].per == "layer":
                        shared[name] = len(learned)
                elif learnable is None or name not in chosen:
                    where.append((False, len(fixed)))
                    fixed.append(float(v))
                    continue
                where.append((True, len(learned)))
                learned.append(float(v))
        self.labels = tuple(labels)
        self.learnable_values = nn.Parameter(torch.tensor(learned, dtype=torch.float64))
        self.register_buffer("fixed_values", torch.tensor(fixed, dtype=torch.float64))
        order = torch.tensor(
            [k if is_learned else len(learned) + k for is_learned, k in where],
            dtype=torch.long,
        )
        self.register_buffer("order", order, persistent=False)
        self.handle = register("layer", acts, self.backend)
        #: the lengths of learnable_values and fixed_values
        self.sizes = (len(learned), len(fixed))

    def constant_vector(self) -> Tensor:
        """All constants in ``offsets`` layout (differentiable w.r.t. the learnable)."""
        sizes = getattr(self, "sizes", None)  # absent in modules pickled before
        # not while tracing: the comparison of traced sizes warned (TracerWarning),
        # and a trace records the vectors' shapes as they are
        if sizes is not None and not torch.jit.is_tracing():
            for name, size in zip(("learnable_values", "fixed_values"), sizes):
                found = tuple(getattr(self, name).shape)
                if found != (size,):
                    # assigned by hand (load_state_dict checks shapes): a longer
                    # vector's extra entries were ignored without a word
                    raise ValueError(
                        f"{name} has shape {found}; this layer expects ({size},): "
                        f"one entry per constant of its features ({self.labels})"
                    )
        return torch.cat([self.learnable_values, self.fixed_values])[self.order]

    def constants(self, feature: int) -> dict[str, float]:
        """Current constants of feature ``feature`` (an index in ``range(n)``)."""
        if isinstance(feature, bool) or not isinstance(feature, (int, np.integer)):
            raise TypeError(
                f"constants(feature): feature must be an int index in "
                f"range(0, {self.n}), got {feature!r:.60}"
            )
        if not 0 <= int(feature) < self.n:  # was "list index out of range"
            raise IndexError(
                f"constants(feature): feature {feature} is out of range: this layer "
                f"has {self.n} features, indices 0 to {self.n - 1}"
            )
        feature = int(feature)
        names = self.activations[feature].internal.param_names
        flat = self.constant_vector().detach()
        start = self.offsets[feature]
        return {n: float(flat[start + k]) for k, n in enumerate(names)}

    def forward(self, x: Tensor) -> Tensor:
        _check_input(x, "symnb layer")
        if x.ndim == 0 or not -x.ndim <= self.dim < x.ndim:
            raise ValueError(
                f"x has shape {tuple(x.shape)}; it has no dimension {self.dim} for the "
                f"layer's {self.n} features"
            )
        dim = self.dim % x.ndim
        # while tracing the operator checks the length itself (comparing the traced
        # size here warned: TracerWarning), as it does for each input of the trace
        if not torch.jit.is_tracing() and x.shape[dim] != self.n:
            raise ValueError(
                f"x has shape {tuple(x.shape)}: dimension {self.dim} has "
                f"{x.shape[dim]} entries, but the layer has {self.n} activations"
            )
        c = self.constant_vector()
        _check_device(x, c, "this layer")
        return apply(x, c.to(device=x.device), self.handle, dim)

    __prepare_scriptable__ = _refuse_script

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self.handle = register("layer", self.activations, self.backend)

    def extra_repr(self) -> str:
        names = [a.name for a in self.activations]
        return f"n={self.n}, dim={self.dim}, activations={sorted(set(names))}"


# ------------------------------------------------------------------ public functions


def to_torch(activation: Any, learnable: Any = None, backend: str = "auto"):
    """``Activation.to_torch``: a :class:`TorchActivation` module.

    ``learnable``: ``None`` (the constants marked with ``symnb.learnable``), ``False``,
    ``True`` (all), or a list of constant names. ``backend``: ``"auto"`` (cpp on the
    CPU, cuda on GPUs), ``"cpp"``, ``"numpy"`` or ``"cuda"``.
    """
    return TorchActivation(activation, learnable=learnable, backend=backend)


def to_torch_layer(
    activations: Sequence[Any],
    dim: int = -1,
    learnable: Any = None,
    backend: str = "auto",
) -> TorchLayer:
    """Feature j along ``dim`` uses ``activations[j]`` (``dim=1``: per-channel in a CNN)."""
    return TorchLayer(activations, dim=dim, learnable=learnable, backend=backend)


def _host(a: Any) -> np.ndarray:
    return np.asarray(a.get() if hasattr(a, "get") else a)


def _learnable_mark(value: float, per: str) -> Any:
    from symnb.formula.formula import learnable

    return learnable(value, per)


def _current_activations(la: Any) -> list:
    """The layer's activations with the constant values its kernel has now."""
    params = _host(la.kernel.params).astype(np.float64)
    offsets = None if la.elementwise else _host(la.kernel.offsets)
    out = []
    for j, act in enumerate(la.activations):
        base = 0 if offsets is None else int(offsets[j])
        names = act.internal.param_names
        marks = act.learnable  # kept: with_constants(beta=0.7) would fix beta
        values = {
            n: (
                _learnable_mark(float(params[base + k]), marks[n].per)
                if n in marks
                else float(params[base + k])
            )
            for k, n in enumerate(names)
        }
        out.append(act.with_constants(**values) if values else act)
    return out


def mlp_to_torch(model: Any, backend: str = "auto") -> Any:
    """``MLP.to_torch``: ``nn.Sequential`` (``MLPSequential``, which names a wrong
    input) of ``nn.Linear`` and symnb activation modules with the model's current weights and constants (learnable constants stay
    learnable). Connection masks are applied to the weights but not enforced during
    further PyTorch training."""
    dtype = torch.float64 if np.dtype(model.dtype) == np.float64 else torch.float32
    mods: list[nn.Module] = []
    for dense in model.layers:
        # made in the model's dtype: a float32 nn.Linear rounded a float64 model's
        # weights to float32 before the final .to(dtype) (predictions off by 3e-8)
        lin = nn.Linear(dense.fan_in, dense.fan_out, dtype=dtype)
        with torch.no_grad():
            w = dense.weight.numpy().astype(np.float64)
            lin.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
            lin.bias.copy_(torch.from_numpy(dense.bias.numpy().astype(np.float64)))
        mods.append(lin)
        la = dense.activation
        if la is None:
            continue
        # learnable=None: each activation's own marks (kept by
        # _current_activations), so a neuron's fixed constant stays fixed
        acts = _current_activations(la)
        if la.elementwise:
            mods.append(TorchActivation(acts[0], learnable=None, backend=backend))
        else:
            mods.append(TorchLayer(acts, dim=-1, learnable=None, backend=backend))
    from symnb.interop.torch_mlp import MLPSequential

    return MLPSequential(*mods).to(dtype)
