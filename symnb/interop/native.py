"""Direct calls into a compiled C++ elementwise kernel on raw data pointers.

Frameworks' tensors (PyTorch on the CPU) hand symnb their memory as addresses. Going
through :class:`symnb.Kernel` costs NumPy views and argument checks on every call,
which in a training step is paid once per activation and pass; here the entry points
are bound once (``argtypes`` set, the constants' address cached) and called with
integers. The caller guarantees what ``Kernel`` would check: C-contiguous memory of
the kernel's dtype, ``n`` elements, outputs not overlapping inputs.

Constants are passed per call as the address of a buffer of the kernel's dtype
(:meth:`NativeElementwise.constants_address`), checked like the ``Kernel.params`` setter
(finite values that fit the kernel's dtype) once per distinct vector and cached, so
modules sharing a kernel with different constants need no rewrite of ``params`` (about
10 µs warm, over 100 µs with caches cold after a training step's matrix products).
``set_constants`` still writes ``params``, the default of every call. The fused backward
(dx and the constants' gradient in one pass) comes in two variants whose speed depends
on what g++ made of the formula; the faster is picked by timing both once.
"""

from __future__ import annotations

import array
import ctypes
import math
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from symnb.codegen.kernels import FUSED_BACKWARD, FUSED_BACKWARD_JOINT
from symnb.forksafe import instance_lock

_P = ctypes.c_void_p
_I64 = ctypes.c_int64

#: Elements per native call: longer arrays go in pieces, so Ctrl-C is seen between
#: them (the same bound as the cpp backend's own calls).
CHUNK = 1 << 24
#: Elements of the one-off timing that picks the fused backward variant.
CALIBRATION = 8192
#: Checked constant vectors kept per kernel (the oldest is dropped beyond): a training
#: step cycles through a few modules' values, each optimiser step makes new ones.
CONSTANT_BUFFERS = 64


def _bind(lib: ctypes.CDLL, symbol: str, argtypes: list) -> Any:
    fn = getattr(lib, symbol)
    fn.argtypes = argtypes
    fn.restype = None
    return fn


class NativeElementwise:
    """The entry points of one cpp elementwise ``kernel``, called on addresses.

    ``NativeElementwise.of(kernel)`` returns ``None`` for kernels of other backends
    (numpy, cuda), which the caller then runs through the ``Kernel`` API.
    """

    def __init__(self, kernel: Any, library_path: str) -> None:
        self.kernel = kernel
        self.itemsize = kernel.dtype.itemsize
        self.n_constants = int(kernel.params.size)
        # a reference of our own to the library: it stays mapped while we hold it
        self._lib = ctypes.CDLL(library_path, mode=os.RTLD_LOCAL)
        self._forward = _bind(self._lib, "symnb_forward", [_P, _P, _I64, _P])
        self._backward = _bind(self._lib, "symnb_backward", [_P, _P, _P, _I64, _P])
        self._params = kernel.params  # written in place by the checked setter
        # what the library's forms assume of the constants (a sign, a float32
        # part that does not cancel): vectors that break it go through the Kernel
        # API, which runs a program built for them (constants_address gives None)
        self._assumptions = getattr(kernel._program, "assumptions", None)
        self._params_address = self._params.__array_interface__["data"][0]
        # a library formula with domain tests on its constants (softplus's beta
        # != 0): every new vector is tested as the checked setter tests it (the
        # quick test in constants_address only sees values the dtype cannot hold)
        self._domain_tested = bool(kernel._domain_slots())
        self._last: list[float] | None = None
        self._typecode = "f" if self.itemsize == 4 else "d"
        self._buffers: dict[tuple, tuple[array.array, int]] = {}
        # the cache is shared by threads: changed under a lock, and each thread
        # holds the last vector it asked for, so that another thread's new vectors
        # cannot evict (free) it before this thread's call has read it
        self._buffers_lock = instance_lock(self, "_buffers_lock", threading.Lock)
        self._held = threading.local()
        #: held while ``params`` is written and read by one call (the fallback of
        #: add_backward_with_constants, _refused)
        self._params_lock = instance_lock(self, "_params_lock", threading.Lock)
        # the fused backward lives in the whole library, built on first use (a
        # kernel with constants is built first without the constants' gradients)
        self._fused_lock = instance_lock(self, "_fused_lock", threading.Lock)
        self._fused_loaded = not self.n_constants
        self._variants: tuple = ()
        self._fused = None

    @property
    def fused_variants(self) -> tuple:
        """The fused backward's variants (empty without constants)."""
        self._load_fused()
        return self._variants

    def _load_fused(self) -> None:
        """Bind the fused backward variants from the kernel's whole library (built or
        fetched from the cache the first time) and pick the faster."""
        if self._fused_loaded:
            return
        with self._fused_lock:
            if self._fused_loaded:
                return
            program = self.kernel._program
            path = str(getattr(program, "whole_library_path", program.library_path))
            self._whole = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
            fused = [
                _bind(self._whole, name, [_P, _P, _P, _P, _I64, _P])
                for name in (FUSED_BACKWARD, FUSED_BACKWARD_JOINT)
                if hasattr(self._whole, name)
            ]
            self._variants = tuple(fused)
            self._fused = self._faster(fused) if fused else None
            self._fused_loaded = True

    def _faster(self, candidates: list) -> Any:
        """The faster of the fused backward variants, timed once on a few thousand
        elements (whether g++ vectorised a variant's loop decides it: 1.4x for
        swish, 10x for PAU 5/4, either way)."""
        if len(candidates) == 1:
            return candidates[0]
        dtype = self.kernel.dtype
        x = np.linspace(-4.0, 4.0, CALIBRATION, dtype=dtype)
        g = np.ones_like(x)
        dx = np.empty_like(x)
        out = np.zeros(self.n_constants, dtype=np.float64)
        args = [a.__array_interface__["data"][0] for a in (x, g, dx, out)]
        best = []
        for fn in candidates:
            fn(*args, x.size, self._params_address)  # warm-up
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                fn(*args, x.size, self._params_address)
                times.append(time.perf_counter() - t0)
            best.append(min(times))
        return candidates[best.index(min(best))]

    @classmethod
    def of(cls, kernel: Any) -> NativeElementwise | None:
        program = getattr(kernel, "_program", None)
        path = getattr(program, "library_path", None)
        if path is None or getattr(kernel, "backend", None) != "cpp":
            return None
        if getattr(program, "kind", "elementwise") != "elementwise":
            return None
        if getattr(program, "constant_parts", None):
            # the program reads the constants' parts after the constants
            # (codegen.constant_parts), which a caller's buffer of the constants
            # lacks, and adds their (zero) gradients past ``n_constants``: the
            # Kernel API passes them
            return None
        return cls(kernel, str(path))

    def set_constants(self, values: np.ndarray) -> None:
        """Write the constants (float64 host values) through the kernel's checked
        ``params`` setter, unless they are the ones written last."""
        if not self.n_constants:
            return
        listed = values.tolist()
        if listed != self._last:
            self.kernel.params = values  # refuses non-finite / not representable
            self._last = listed

    def constants_address(self, values: Sequence[float]) -> int | None:
        """The address of ``values`` (one float per constant, in ``params`` order)
        stored in the kernel's dtype: the ``constants`` argument of the calls below.

        Checked like the ``params`` setter (a value that is not finite, not
        representable in the kernel's dtype or outside a library formula's domain
        is a ``FormulaError`` naming the constant, and ``params`` is left as it
        was). None where the library's forms do not hold at ``values``
        (:mod:`symnb.backends.constant_assumptions`: a constant moved to 0 or
        across it): call the ``Kernel`` API then. Buffers are cached by value, so a
        module's forward and backward check once; an address stays valid until
        :data:`CONSTANT_BUFFERS` other vectors have been asked for, and in any case
        until the calling thread asks for another vector."""
        key = tuple(values)
        hit = self._buffers.get(key)
        if hit is not None:
            self._held.buffer = hit[0]
            return hit[1]
        if len(key) != self.n_constants:
            raise ValueError(
                f"got {len(key)} constants for a kernel with {self.n_constants}; pass "
                "one value per constant, in the order of the kernel's params"
            )
        if not key:
            return self._params_address
        stored = array.array(self._typecode, key)
        for s, v in zip(stored, key):
            if not math.isfinite(s) or (s == 0.0 and v != 0.0):
                stored = self._refused(key)
                break
        if self._domain_tested:  # the setter's test, on the values as stored
            held = np.frombuffer(stored, dtype=self.kernel.dtype).astype(np.float64)
            self.kernel._check_domain(held, "params")
        address = stored.buffer_info()[0]
        if self._assumptions is not None and self._assumptions.broken(key):
            stored, address = None, None  # (checked: refused values raised above)
        with self._buffers_lock:
            while len(self._buffers) >= CONSTANT_BUFFERS:
                del self._buffers[next(iter(self._buffers))]
            self._buffers[key] = (stored, address)
        self._held.buffer = stored
        return address

    def _refused(self, key: tuple) -> array.array:
        """The checked setter's verdict on ``key``: its ``FormulaError`` (naming the
        constant), ``params`` restored; or, should it accept them, its stored values."""
        with self._params_lock:
            before = self._params.copy()
            try:
                self.kernel.params = np.asarray(key, dtype=np.float64)  # may raise
                return array.array(self._typecode, self._params.tolist())
            finally:
                self._params[...] = before

    def forward(self, x: int, y: int, n: int, constants: int | None = None) -> None:
        """y = f(x) on ``n`` elements at addresses ``x``, ``y``; ``constants``: an
        address from :meth:`constants_address` (default: the kernel's ``params``)."""
        b = self.itemsize
        pc = self._params_address if constants is None else constants
        for s in range(0, n, CHUNK):
            self._forward(x + s * b, y + s * b, min(CHUNK, n - s), pc)

    def backward(
        self, x: int, g: int, dx: int, n: int, constants: int | None = None
    ) -> None:
        """dx = g * f'(x)."""
        b = self.itemsize
        pc = self._params_address if constants is None else constants
        for s in range(0, n, CHUNK):
            self._backward(x + s * b, g + s * b, dx + s * b, min(CHUNK, n - s), pc)

    def backward_with_constants(
        self, x: int, g: int, dx: int, n: int, constants: int | None = None
    ) -> np.ndarray:
        """dx = g * f'(x) and the sums of g * df/dc (float64), reading x and g once
        (the fused kernel; two calls where the library has none)."""
        out = np.zeros(self.n_constants, dtype=np.float64)
        self.add_backward_with_constants(
            x, g, dx, out.__array_interface__["data"][0], n, constants
        )
        return out

    def add_backward_with_constants(
        self, x: int, g: int, dx: int, out: int, n: int, constants: int | None = None
    ) -> None:
        """``backward_with_constants`` adding the sums into the ``n_constants``
        float64 values at address ``out`` (a framework's own zeroed tensor)."""
        b = self.itemsize
        pc = self._params_address if constants is None else constants
        self._load_fused()
        if self._fused is None:
            self.backward(x, g, dx, n, pc)
            xs = _view(x, n, self.kernel.dtype)
            gs = _view(g, n, self.kernel.dtype)
            with self._params_lock:
                if pc != self._params_address:  # constant_gradient reads params
                    self.kernel.params = _view(pc, self.n_constants, self.kernel.dtype)
                    self._last = None
                sums = self.kernel.constant_gradient(xs, gs)
            _view(out, self.n_constants, np.dtype(np.float64))[...] += np.fromiter(
                sums.values(), dtype=np.float64, count=len(sums)
            )
            return
        for s in range(0, n, CHUNK):  # the kernel adds into out
            m = min(CHUNK, n - s)
            self._fused(x + s * b, g + s * b, dx + s * b, out, m, pc)


def _view(address: int, n: int, dtype: np.dtype) -> np.ndarray:
    """A NumPy array over ``n`` elements at ``address`` (no copy)."""
    ctype = ctypes.c_float if dtype == np.float32 else ctypes.c_double
    buf = (ctype * n).from_address(address)
    return np.frombuffer(buf, dtype=dtype, count=n)
