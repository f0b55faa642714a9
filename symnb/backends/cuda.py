"""CUDA backend: generated kernels compiled by NVRTC, cached on disk, run through CuPy.

Chain: ``render_program(..., dialect="cuda")`` -> NVRTC (CuPy's options, see
:mod:`symnb.backends.nvrtc`) -> a cubin in the
:class:`~symnb.backends.cache.KernelCache` -> ``cupy.RawModule(path=...)`` on the
chosen device -> grid-stride launches.

symnb compiles the cubin itself instead of ``cupy.RawModule(code=...)`` for three
reasons: CuPy appends ``-ftz=true`` (flush-to-zero of float32 subnormals, which a later
``-ftz=false`` cannot undo), symnb's cache then knows whether a build was a hit and how
long it took, and exactly the bytes CI compile-checks are the bytes that run.

Everything up to the launch (probe, architecture choice, compile, cache, launch
configuration, argument lists) runs without a GPU; only :func:`build`'s final module
load and the Program's calls need one.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from symnb.backends import nvrtc
from symnb.backends.base import BackendStatus, Program
from symnb.backends.cache import KernelCache, default_cache, write_artifact
from symnb.codegen.kernels import ENTRY_POINTS
from symnb.errors import BackendUnavailable

NAME = "cuda"

#: Threads per block of every launch (the templates' reductions assume at most this).
THREADS_PER_BLOCK = 256
#: Grid cap: blocks per multiprocessor (the grid-stride loop covers the rest).
BLOCKS_PER_SM = 32
#: Grid cap of the reductions (every thread ends with one atomicAdd per sum).
REDUCTION_BLOCKS_PER_SM = 8
#: Lowest compute capability: reductions use atomicAdd on double (sm_60+).
MIN_COMPUTE_CAPABILITY = 60

FIX_CUPY = "pip install 'symnb[cuda13]'  (cupy-cuda13x and nvidia-cuda-nvrtc==13.0.*)"
FIX_NVRTC = "pip install 'nvidia-cuda-nvrtc==13.0.*'  (CuPy does not ship NVRTC)"
FIX_DRIVER = "install or update the NVIDIA driver (CUDA 13 needs driver 580 or newer)"
FIX_DEVICE = "run on a machine with an NVIDIA GPU, or use backend='cpp' or 'numpy'"

_REDUCTIONS = frozenset({"constant_gradient", "loss_value"})

_CUDA_ERROR_NAMES = {
    35: "cudaErrorInsufficientDriver",
    100: "cudaErrorNoDevice",
    3: "cudaErrorInitializationError",
    999: "cudaErrorUnknown",
}


# --------------------------------------------------------------------------------------
# Availability


def _runtime_error_text(exc: BaseException) -> tuple[int | None, str]:
    status = getattr(exc, "status", None)
    text = str(exc).strip()
    name = _CUDA_ERROR_NAMES.get(status) if isinstance(status, int) else None
    if name and name not in text:
        text = f"{name}: {text}"
    return status, text


def _probe_uncached() -> BackendStatus:
    try:
        import cupy
        from cupy.cuda import runtime
    except ImportError as exc:
        return BackendStatus(
            NAME, False, f"cupy is not installed ({exc})", FIX_CUPY, {}
        )
    except Exception as exc:  # noqa: BLE001 - a broken install: "not usable"
        return BackendStatus(
            NAME, False, f"cupy failed to import: {exc!r}", FIX_CUPY, {}
        )
    details: dict[str, Any] = {"cupy": getattr(cupy, "__version__", "?")}

    ok, nv_reason = nvrtc.available()
    if not ok:
        return BackendStatus(NAME, False, nv_reason, FIX_NVRTC, details)
    details["nvrtc"] = ".".join(map(str, nvrtc.version() or ()))

    try:
        details["runtime_version"] = runtime.runtimeGetVersion()
    except Exception:  # noqa: BLE001, S110 - informational only
        pass
    try:
        details["driver_version"] = runtime.driverGetVersion()
    except Exception:  # noqa: BLE001, S110
        pass

    try:
        count = runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001 - CUDARuntimeError and loader errors
        status, text = _runtime_error_text(exc)
        if status == 35 or "InsufficientDriver" in text:
            what = (
                "no NVIDIA driver found"
                if details.get("driver_version") == 0
                else f"the NVIDIA driver (version {details.get('driver_version')}) is "
                "too old for this CuPy"
            )
            return BackendStatus(NAME, False, f"{what} ({text})", FIX_DRIVER, details)
        if status == 100 or "NoDevice" in text:
            return BackendStatus(
                NAME, False, f"no CUDA device ({text})", FIX_DEVICE, details
            )
        return BackendStatus(
            NAME, False, f"CUDA runtime error ({text})", FIX_DRIVER, details
        )
    if count == 0:
        return BackendStatus(
            NAME, False, "no CUDA device (device count is 0)", FIX_DEVICE, details
        )

    devices = []
    for i in range(count):
        info: dict[str, Any] = {"id": i}
        try:
            props = runtime.getDeviceProperties(i)
            name = props.get("name", b"?")
            info["name"] = name.decode() if isinstance(name, bytes) else str(name)
            info["compute_capability"] = f"{props['major']}{props['minor']}"
            info["multiprocessors"] = int(props.get("multiProcessorCount", 0))
            info["memory_bytes"] = int(props.get("totalGlobalMem", 0))
        except Exception as exc:  # noqa: BLE001
            info["error"] = str(exc)
        devices.append(info)
    details["devices"] = devices
    good = [
        d
        for d in devices
        if int(d.get("compute_capability", "0")) >= MIN_COMPUTE_CAPABILITY
    ]
    if not good:
        return BackendStatus(
            NAME,
            False,
            "no CUDA device with compute capability 6.0 or newer "
            f"(found {', '.join(str(d.get('compute_capability')) for d in devices)})",
            FIX_DEVICE,
            details,
        )
    names = ", ".join(
        f"{d['id']}: {d.get('name')} (sm_{d.get('compute_capability')})"
        for d in devices
    )
    return BackendStatus(NAME, True, f"{count} device(s): {names}", "", details)


_probe_lock = threading.Lock()
_probe_result: BackendStatus | None = None


def probe(refresh: bool = False) -> BackendStatus:
    """Whether the CUDA backend can run here; cheap and cached (``refresh`` re-probes).

    Checks, in order: CuPy importable, NVRTC loadable, a driver, a device of compute
    capability >= 6.0. ``details`` holds versions and, per device, its name and compute
    capability.
    """
    global _probe_result
    with _probe_lock:
        if _probe_result is None or refresh:
            _probe_result = _probe_uncached()
        return _probe_result


# --------------------------------------------------------------------------------------
# Compilation (no GPU needed)


def max_nvrtc_arch(version: tuple[int, int] | None) -> int:
    """The newest ``sm_XX`` NVRTC ``version`` emits a cubin for (as CuPy decides)."""
    if version is None:
        return 90
    major, minor = version
    if major >= 13 or (major == 12 and minor >= 9):
        return 121
    if major == 12 and minor >= 8:
        return 120
    if major == 12:
        return 90
    return 87 if (major, minor) >= (11, 8) else 80


def choose_arch(compute_capability: str | int, version: tuple[int, int] | None) -> str:
    """``sm_XX`` for a cubin when NVRTC knows the device, else ``compute_YY`` PTX that
    the driver compiles for the newer device (as ``cupy/cuda/compiler.py`` does)."""
    cc = int(compute_capability)
    top = max_nvrtc_arch(version)
    return f"sm_{cc}" if cc <= top else f"compute_{top}"


@dataclass(frozen=True)
class CompiledModule:
    """A compiled, cached module: where it is and how it was made."""

    path: Path
    arch: str
    options: tuple[str, ...]
    cache_hit: bool
    compile_seconds: float
    log: str


def compile_source(
    source: Any,
    arch: str,
    *,
    cache: KernelCache | None = None,
    options: Sequence[str] = (),
    precompiled: Any = None,
) -> CompiledModule:
    """Compile a ``KernelSource`` (``.text``, ``.digest``) for ``arch``, cached.

    ``arch`` ``sm_XX`` stores a cubin, ``compute_XX`` a PTX file. Raises
    :class:`~symnb.errors.CompileError` with NVRTC's log on failure. ``precompiled``
    (an NVRTC result for this text) is stored instead of compiling again.
    """
    cache = cache or default_cache()
    opts = tuple(nvrtc.SYMNB_OPTIONS) + tuple(options)
    key, suffix = _module_key(source, arch, opts)
    text = source.text
    logs: list[str] = []

    def build(tmp: Path) -> None:
        result = precompiled or nvrtc.compile(text, arch, options)
        logs.append(result.log)
        if suffix == ".cubin":
            if not result.cubin:
                raise RuntimeError(f"NVRTC produced no cubin for {arch}")
            write_artifact(tmp, bytes(result.cubin))
        else:
            write_artifact(tmp, result.ptx.encode())

    start = time.perf_counter()
    path = cache.get_or_build(key, suffix, build)
    seconds = time.perf_counter() - start
    return CompiledModule(
        path,
        arch,
        opts + (f"-arch={arch}",),
        cache.last_hit,
        seconds,
        logs[0] if logs else "",
    )


def _module_key(source: Any, arch: str, opts: tuple) -> tuple[dict[str, str], str]:
    """The cache key parts and file suffix of one module."""
    key = {
        "artifact": "cuda-module",
        "source_sha256": getattr(source, "digest", None) or _sha256(source.text),
        "arch": arch,
        "options": " ".join(opts),
        "nvrtc": ".".join(map(str, nvrtc.version() or ())),
    }
    return key, ".cubin" if arch.startswith("sm_") else ".ptx"


def compile_sources(
    sources: Sequence[Any], arch: str, *, cache: KernelCache | None = None
) -> list[CompiledModule]:
    """:func:`compile_source` for several modules (a layer of many forms): the ones
    not in the cache are compiled in parallel threads first (NVRTC is thread-safe and
    runs without the GIL; the cache serialises its own writes), then stored."""
    cache = cache or default_cache()
    if len(sources) > 1:
        opts = tuple(nvrtc.SYMNB_OPTIONS)
        missing = [s for s in sources if not cache.has(*_module_key(s, arch, opts))]
        jobs = min(len(missing), os.cpu_count() or 1)
        if jobs > 1:
            with ThreadPoolExecutor(jobs) as pool:
                results = list(
                    pool.map(lambda s: nvrtc.compile(s.text, arch, ()), missing)
                )
            done = {id(s): r for s, r in zip(missing, results)}
            return [
                compile_source(s, arch, cache=cache, precompiled=done.get(id(s)))
                for s in sources
            ]
    return [compile_source(s, arch, cache=cache) for s in sources]


def _sha256(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def launch_config(
    n: int,
    multiprocessors: int,
    threads: int = THREADS_PER_BLOCK,
    blocks_per_sm: int = BLOCKS_PER_SM,
) -> tuple[tuple[int], tuple[int]]:
    """``(grid, block)`` for ``n`` elements: enough blocks to cover ``n``, capped at
    ``blocks_per_sm`` per multiprocessor (the kernels loop grid-stride over the
    rest)."""
    if n <= 0:
        raise ValueError("size-0 arrays never reach a launch")
    cap = max(1, multiprocessors) * blocks_per_sm
    blocks = min(-(-n // threads), cap)
    return (max(1, blocks),), (threads,)


# --------------------------------------------------------------------------------------
# The Program


class CudaProgram(Program):
    """Raw CUDA calls over one loaded module (see docs/CONTRACTS.md section 3).

    ``functions`` maps the logical names of the ABI (``"forward"``, ``"loss_value"``,
    ...) to callables with ``RawKernel``'s signature ``fn(grid, block, args)``.
    Arguments are CuPy arrays already checked by ``symnb.backends.kernel``; integers
    and the loss scale are passed as NumPy scalars of the ABI's C types.
    """

    backend = NAME

    def __init__(
        self,
        *,
        kind: str,
        dtype: str,
        device: int,
        functions: dict[str, Callable[..., Any]] | list[dict[str, Callable[..., Any]]],
        source: str,
        cache_hit: bool,
        compile_seconds: float,
        multiprocessors: int,
        xp: Any = None,
        device_context: Callable[[], Any] | None = None,
        module: Any = None,
        artifact: Path | None = None,
        arch: str = "",
        n_params: int = 0,
    ) -> None:
        self.kind = kind
        self.dtype = dtype
        self.device = device
        self.source = source
        self.cache_hit = cache_hit
        self.compile_seconds = compile_seconds
        self.multiprocessors = multiprocessors
        self.artifact = artifact
        self.arch = arch
        self.n_params = n_params
        # A layer of many forms has one function set per module, launched in turn.
        self._function_sets = functions if isinstance(functions, list) else [functions]
        self._functions = self._function_sets[0]
        self._module = module  # keeps the loaded module alive as long as the Program
        if xp is None:
            import cupy as xp
        self._xp = xp
        self._device_context = device_context

    # -- helpers --------------------------------------------------------------------

    def _launch(self, name: str, n: int, args: tuple) -> None:
        fns = [f.get(name) for f in self._function_sets]
        if None in fns:
            raise AttributeError(
                f"this {self.kind} program has no {name!r} entry point"
            )
        per_sm = REDUCTION_BLOCKS_PER_SM if name in _REDUCTIONS else BLOCKS_PER_SM
        grid, block = launch_config(n, self.multiprocessors, blocks_per_sm=per_sm)
        with self._device_context() if self._device_context else nullcontext():
            for fn in fns:  # same stream: each module sees the previous one's writes
                fn(grid, block, args)

    def _zeros(self, k: int):
        if self._device_context is None:
            return self._xp.zeros(k, dtype=self._xp.float64)
        with self._device_context():
            return self._xp.zeros(k, dtype=self._xp.float64)

    # -- elementwise ------------------------------------------------------------------

    def forward(self, x, y, params) -> None:
        self._launch("forward", x.size, (x, y, np.int64(x.size), params))

    def backward(self, x, g, dx, params) -> None:
        self._launch("backward", x.size, (x, g, dx, np.int64(x.size), params))

    def forward_derivative(self, x, y, dy, params) -> None:
        self._launch("forward_derivative", x.size, (x, y, dy, np.int64(x.size), params))

    def forward_backward(self, x, g, y, dx, params) -> None:
        self._launch(
            "forward_backward", x.size, (x, g, y, dx, np.int64(x.size), params)
        )

    def constant_gradient(self, x, g, params):
        """Sum over elements of ``g * df/dc_k``: a float64 CuPy array of length k."""
        out = self._zeros(int(params.size))
        if params.size:
            self._launch(
                "constant_gradient", x.size, (x, g, out, np.int64(x.size), params)
            )
        return out

    # -- layer ----------------------------------------------------------------------

    @staticmethod
    def _shape(x) -> tuple[np.int64, np.int64]:
        rows, cols = x.shape
        return np.int64(rows), np.int64(cols)

    def layer_forward(self, x, y, ids, offsets, params) -> None:
        rows, cols = self._shape(x)
        self._launch("layer_forward", x.size, (x, y, rows, cols, ids, offsets, params))

    def layer_backward(self, x, g, dx, ids, offsets, params) -> None:
        rows, cols = self._shape(x)
        self._launch(
            "layer_backward", x.size, (x, g, dx, rows, cols, ids, offsets, params)
        )

    def layer_forward_derivative(self, x, y, dy, ids, offsets, params) -> None:
        rows, cols = self._shape(x)
        self._launch(
            "layer_forward_derivative",
            x.size,
            (x, y, dy, rows, cols, ids, offsets, params),
        )

    def layer_constant_gradient(self, x, g, ids, offsets, params):
        """Per-neuron constant gradients: a float64 CuPy array shaped like params."""
        out = self._zeros(int(params.size))
        if params.size:
            rows, cols = self._shape(x)
            # one thread per column (each sums over its rows): launch for cols, not n
            self._launch(
                "layer_constant_gradient",
                int(cols),
                (x, g, out, rows, cols, ids, offsets, params),
            )
        return out

    # -- loss -------------------------------------------------------------------------

    def loss_value(self, p, t, params) -> float:
        """The SUM of the elementwise loss (accumulated in double on the device)."""
        out = self._zeros(1)
        self._launch("loss_value", p.size, (p, t, np.int64(p.size), params, out))
        host = out.get() if hasattr(out, "get") else out
        return float(host[0])

    def loss_gradient(self, p, t, g, params, scale) -> None:
        self._launch(
            "loss_gradient",
            p.size,
            (p, t, g, np.int64(p.size), params, np.float64(scale)),
        )

    def __repr__(self) -> str:
        hit = (
            "cache hit"
            if self.cache_hit
            else f"compiled in {self.compile_seconds:.2f} s"
        )
        return (
            f"<CudaProgram {self.kind} {self.dtype} device {self.device} "
            f"{self.arch} ({hit})>"
        )


# --------------------------------------------------------------------------------------
# build


def render(forms: Sequence[Any], kind: str, dtype: str) -> Any:
    """The CUDA ``KernelSource`` of ``forms`` (a thin call into ``symnb.codegen``)."""
    from symnb.codegen.kernels import render_program

    return render_program(tuple(forms), kind, dialect="cuda", dtype=dtype)


_modules_lock = threading.Lock()
# (artifact path, device) -> loaded RawModule: loading a module is per device context.
_modules: dict[tuple[str, int], Any] = {}


def _device_context(device: int) -> Any:
    """``with _device_context(d):`` makes device ``d`` current (CuPy's Device)."""
    import cupy

    return cupy.cuda.Device(device)


def _load_functions(
    path: Path, device: int, symbols: dict[str, str]
) -> tuple[Any, dict[str, Any]]:
    """Load the cubin/PTX at ``path`` on ``device`` (once per process) and fetch the
    kernels: logical name -> ``cupy.RawKernel``. The only step that needs a GPU."""
    import cupy

    key = (str(path), device)
    with _modules_lock, _device_context(device):
        mod = _modules.get(key)
        if mod is None:
            mod = cupy.RawModule(path=str(path))
            _modules[key] = mod
        return mod, {logical: mod.get_function(sym) for logical, sym in symbols.items()}


class _Unit:
    """One module's text of a split layer, shaped like a ``KernelSource``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.digest = _sha256(text)


def _array_module() -> Any:
    import cupy

    return cupy


def build(
    forms: Sequence[Any],
    kind: str,
    dtype: str = "float32",
    device: int | None = None,
    *,
    cache: KernelCache | None = None,
) -> CudaProgram:
    """Render, compile (cached) and load the CUDA program of ``forms`` on ``device``.

    Raises :class:`~symnb.errors.BackendUnavailable` when there is no usable GPU,
    :class:`~symnb.errors.FormulaError` from code generation and
    :class:`~symnb.errors.CompileError` (with NVRTC's log and the source) from NVRTC.
    """
    if kind not in ENTRY_POINTS:
        raise ValueError(f"kind must be one of {sorted(ENTRY_POINTS)}, got {kind!r}")
    status = probe()
    if not status.usable:
        raise BackendUnavailable(NAME, status.reason, status.fix)
    devices = {d["id"]: d for d in status.details.get("devices", [])}
    if device is None:
        import cupy

        device = int(cupy.cuda.runtime.getDevice())
    if device not in devices:
        raise BackendUnavailable(
            NAME,
            f"there is no CUDA device {device} (devices: {sorted(devices)})",
            f"pass device=0 .. {max(devices)}" if devices else FIX_DEVICE,
        )
    info = devices[device]
    cc = int(info.get("compute_capability", "0"))
    if cc < MIN_COMPUTE_CAPABILITY:
        raise BackendUnavailable(
            NAME,
            f"device {device} ({info.get('name')}) has compute capability {cc}; "
            "symnb needs 6.0 or newer (atomicAdd on double)",
            FIX_DEVICE,
        )

    start = time.perf_counter()
    source = render(forms, kind, dtype)
    arch = choose_arch(cc, nvrtc.version())
    # A layer of many forms comes as several modules (one per group of forms).
    parts = [_Unit(u) for u in source.units] or [source]
    modules = compile_sources(parts, arch, cache=cache)
    compiled = modules[0]
    entry = dict(source.entry_points)
    symbols = {}
    for logical in ENTRY_POINTS[kind]:
        symbol = entry.get(logical) or entry.get("symnb_" + logical)
        if symbol is None:
            raise RuntimeError(
                f"generated {kind} source has no {logical!r} entry point "
                f"(entry points: {sorted(entry)})"
            )
        symbols[logical] = symbol
    loaded = [_load_functions(m.path, device, symbols) for m in modules]
    module, functions = loaded[0]
    seconds = time.perf_counter() - start
    return CudaProgram(
        kind=kind,
        dtype=dtype,
        device=device,
        functions=functions if len(loaded) == 1 else [f for _, f in loaded],
        source=source.text,
        cache_hit=all(m.cache_hit for m in modules),
        compile_seconds=seconds,
        multiprocessors=int(info.get("multiprocessors") or 1),
        xp=_array_module(),
        device_context=functools.partial(_device_context, device),
        module=module if len(loaded) == 1 else [m for m, _ in loaded],
        artifact=compiled.path,
        arch=compiled.arch,
        n_params=sum(len(getattr(f, "params", ())) for f in forms),
    )


__all__ = [
    "NAME",
    "CompiledModule",
    "CudaProgram",
    "build",
    "choose_arch",
    "compile_source",
    "compile_sources",
    "launch_config",
    "probe",
    "render",
]
