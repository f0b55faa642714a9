"""The C++ backend: g++ -O3 (OpenMP threads, SIMD math), loaded with ctypes.

Chain: :func:`symnb.codegen.kernels.render_program` -> source -> ``g++`` (in its own process
group, with a timeout) -> shared object in the content-addressed disk cache -> ``ctypes`` ->
:class:`CppProgram`.

Speed without ``-ffast-math``: exp, expm1, log, log1p and tanh are symnb's own inline vector
math (:mod:`symnb.codegen.vecmath`), other functions glibc's vector variants (libmvec,
declared in the source); the loops are OpenMP ``simd`` loops (on several threads above a
size threshold, starting on a 64-byte line: see
:func:`symnb.codegen.kernels._render_cpp_elementwise`) and flags
``-fno-math-errno -fno-trapping-math`` let g++ vectorise them. ``-ffast-math`` is never used
(it drops NaN checks and, linked into a shared object, sets flush-to-zero for the whole
process).

Instruction set, chosen at run time per machine (per-ISA builds): on x86-64 the probe picks
the best of ``-march=x86-64-v4`` (AVX-512), ``x86-64-v3`` (AVX2 + FMA) and ``x86-64-v2``
that both the CPU (``/proc/cpuinfo`` flags) and the compiler support, else the portable
default. The level is in the flags, hence in the cache key, so a shared cache directory
serves each machine the build for its own ISA (measured: v4 as fast as ``-march=native`` on
the 2-core AMD EPYC dev machine; no ``-march`` was 5x slower). Elsewhere ``-march=native`` is
used, with the CPU's feature flags in the cache key. Loops run on several threads only from
:data:`symnb.codegen.kernels.PARALLEL_MIN` elements, so small calls stay serial and do not
fight BLAS threads.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import symnb
from symnb import config
from symnb.backends import prelude
from symnb.backends.base import BackendStatus, Program
from symnb.codegen.kernels import PLANE_ENTRY_POINTS, KernelSource, render_program
from symnb.errors import BackendUnavailable, CompileError
from symnb.forksafe import instance_lock, module_lock

NAME = "cpp"

#: Seconds a compiler run may take before it is killed (with its whole process group).
COMPILE_TIMEOUT = 120.0

#: Extra seconds of compile timeout per additional translation unit and core.
UNIT_TIMEOUT = 10.0

#: Seconds the probe's small test compiles may take.
PROBE_TIMEOUT = 30.0

#: Loaded libraries no Program uses any more that stay open (beyond that: dlclose).
MAX_IDLE_LIBRARIES = 32

_BASE_FLAGS = (
    "-O3",
    "-shared",
    "-fPIC",
    "-fno-math-errno",
    "-fno-trapping-math",
    "-fvisibility=hidden",
    "-w",
)

_OPENMP_TEST = r"""
#include <omp.h>
extern "C" __attribute__((visibility("default"))) int symnb_probe(void) {
    int s = 0;
    #pragma omp parallel for reduction(+: s)
    for (int i = 0; i < 100; ++i) s += i;
    return s + 0 * omp_get_max_threads();
}
"""

_LIBMVEC_TEST = r"""
#include <math.h>
extern "C" {
#pragma omp declare simd notinbranch
float expf(float) __THROW;
}
extern "C" __attribute__((visibility("default")))
void symnb_probe(const float* __restrict__ x, float* __restrict__ y, long n) {
    #pragma omp simd
    for (long i = 0; i < n; ++i) y[i] = expf(x[i]);
}
"""

_PLAIN_TEST = r"""
#include <math.h>
extern "C" __attribute__((visibility("default"))) double symnb_probe(double x) {
    return exp(x);
}
"""


# ------------------------------------------------------------------------------------
# Running the compiler
# ------------------------------------------------------------------------------------


def _compiler_command() -> list[str]:
    return shlex.split(config.cxx())


#: Seconds the compiler's own deadline (see :func:`deadline_prefix`) runs past the
#: timeout this process enforces, so that the friendlier in-process timeout fires first.
DEADLINE_GRACE = 5.0


def deadline_prefix(seconds: float) -> list[str]:
    """A command prefix that kills the compiler after ``seconds`` by itself.

    The in-process timeout dies with this process (a SIGKILLed Python, a killed
    notebook kernel); the prefix does not: coreutils ``timeout`` (or, where it is
    missing, a small Python watchdog) runs the compiler in the compiler's process group
    and kills that whole group (driver, ``cc1plus``, ``as``, ``ld``) at the deadline.
    """
    limit = f"{max(seconds, 0.1):.1f}"
    exe = shutil.which("timeout")
    if exe is not None:
        return [exe, "--signal=KILL", limit + "s"]
    return [sys.executable, "-c", _WATCHDOG, limit]


_WATCHDOG = """
import os, signal, subprocess, sys
proc = subprocess.Popen(sys.argv[2:])
try:
    sys.exit(proc.wait(timeout=float(sys.argv[1])))
except subprocess.TimeoutExpired:
    os.killpg(0, signal.SIGKILL)
"""


def run_compiler(
    command: list[str], timeout: float, cwd: str | None = None
) -> tuple[int, str]:
    """Run ``command`` in its own process group; kill the whole group on timeout.

    Returns ``(returncode, output)``; raises :class:`subprocess.TimeoutExpired` after
    killing the group (the driver's children, ``cc1plus`` and ``as``, die with it).
    The command also carries its own deadline (:func:`deadline_prefix`), which holds
    even when this process is killed.
    """
    return run_compilers([command], timeout, cwd=cwd, jobs=1)[0]


def run_compilers(
    commands: list[list[str]],
    timeout: float,
    cwd: str | None = None,
    jobs: int | None = None,
) -> list[tuple[int, str]]:
    """Run several compiler commands, at most ``jobs`` at once, within ``timeout``
    seconds in all; return ``(returncode, output)`` of each, in order.

    Each runs in its own process group under its own deadline. On a timeout, Ctrl-C or
    any other exception every running group is killed before the exception propagates.
    """
    jobs = max(1, int(jobs or os.cpu_count() or 1))
    deadline = time.monotonic() + timeout
    pending = list(enumerate(commands))
    running: dict[int, tuple[subprocess.Popen, Any]] = {}
    results: list[tuple[int, str]] = [(0, "")] * len(commands)
    try:
        while pending or running:
            while pending and len(running) < jobs:
                index, command = pending.pop(0)
                running[index] = _start(command, deadline - time.monotonic(), cwd)
            for index, (proc, log) in list(running.items()):
                if proc.poll() is not None:
                    del running[index]
                    results[index] = (proc.returncode, _read_log(log))
            remaining = deadline - time.monotonic()
            if running and remaining <= 0:
                raise subprocess.TimeoutExpired(commands[min(running)], timeout)
            if running:
                first = next(iter(running.values()))[0]
                try:
                    first.wait(timeout=min(0.05, remaining))
                except subprocess.TimeoutExpired:
                    pass
    except BaseException:  # timeout, KeyboardInterrupt: kill every group, re-raise
        for proc, log in running.values():
            _kill_group(proc)
            log.close()
        raise
    return results


def _start(command: list[str], seconds: float, cwd: str | None):
    prefix = deadline_prefix(seconds + DEADLINE_GRACE)
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by _read_log/the caller
    try:
        proc = subprocess.Popen(
            [*prefix, *command],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
            start_new_session=True,
        )
    except BaseException:
        log.close()
        raise
    return proc, log


def _read_log(log) -> str:
    try:
        log.seek(0)
        return log.read().decode("utf-8", "replace")
    finally:
        log.close()


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except (subprocess.TimeoutExpired, OSError):  # pragma: no cover
        proc.kill()  # already dead


# ------------------------------------------------------------------------------------
# OpenMP runtime settings
# ------------------------------------------------------------------------------------

#: libgomp's wait policy used unless the user set ``OMP_WAIT_POLICY`` themselves.
#: Measured on a shared 2-core VM: with the default (spinning) policy a 1e6-element mish
#: forward took 16 ms (median) instead of 0.3 ms, because idle OpenMP threads spin
#: against other threads (BLAS, PyTorch's own OpenMP pool, other processes); GUIDE
#: section 5 saw the same 8 ms stalls between NumPy matrix products. Passive waiting
#: costs a few microseconds per parallel region, which the size threshold keeps rare.
OPENMP_WAIT_POLICY = "PASSIVE"

_openmp_configured = False


def configure_openmp() -> None:
    """Set libgomp's wait policy before its first load in this process (see above).

    libgomp reads ``OMP_WAIT_POLICY`` once, when it is loaded, so this runs before the
    probe and before the first kernel library is opened. A value the user set is kept.
    """
    global _openmp_configured, _libgomp
    if _openmp_configured:
        return
    _openmp_configured = True
    config.set_default_omp_wait_policy(OPENMP_WAIT_POLICY)
    # Keep libgomp loaded for the life of the process: closing the last kernel library
    # must not unmap the OpenMP runtime under its parked worker threads.
    name = ctypes.util.find_library("gomp")
    if name:
        try:
            _libgomp = ctypes.CDLL(name)
        except OSError:  # pragma: no cover - broken installation; kernels will say so
            _libgomp = None
    if _libgomp is not None and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_serial_after_fork)


_libgomp: ctypes.CDLL | None = None


def _serial_after_fork() -> None:
    """Run the forking thread's kernels on one thread in a forked child.

    libgomp's thread pool does not survive ``fork``: the child holds the parent's pool
    of the forking thread without its threads, and the first parallel region there
    waits for them forever (a kernel compiled and run above ``PARALLEL_MIN`` elements,
    then ``multiprocessing``'s default fork on Linux, hung in the child's first large
    forward). One thread per region never touches that pool; threads the child starts
    itself get pools of their own and stay parallel.
    """
    if _libgomp is not None:
        _libgomp.omp_set_num_threads(1)


# ------------------------------------------------------------------------------------
# Probe
# ------------------------------------------------------------------------------------

_probe_lock = module_lock(globals(), "_probe_lock", threading.Lock)  # forksafe
_probe_cache: dict[str, BackendStatus] = {}


def _cpu_features() -> str:
    """Text identifying the CPU's instruction set: ``machine|model|sorted flags`` (the
    ISA levels come from the flags; the cache key of ``-march=native`` uses it all)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return ""
    model = flags = ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and not model:
            model = value.strip()
        elif key == "flags" and not flags:
            flags = " ".join(sorted(value.split()))
        if model and flags:
            break
    if not flags:
        return ""
    return f"{platform.machine()}|{model}|{flags}"


#: x86-64 micro-architecture levels (best first) and the /proc/cpuinfo flags each needs
#: (psABI levels; lahf_lm, cx16 and the like of v2 are left to the compiler test).
ISA_LEVELS = (
    (
        "x86-64-v4",
        frozenset({"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}),
    ),
    (
        "x86-64-v3",
        frozenset({"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave"}),
    ),
    ("x86-64-v2", frozenset({"sse4_1", "sse4_2", "ssse3", "popcnt", "cx16"})),
)


def _isa_levels(cpu: str) -> list[str]:
    """The ISA levels this CPU supports, best first (empty off x86-64)."""
    if platform.machine() not in ("x86_64", "AMD64") or not cpu:
        return []
    flags = set(cpu.rsplit("|", 1)[-1].split())
    out, have = [], True
    for level, needs in reversed(ISA_LEVELS):  # each level includes the one below
        have = have and needs <= flags
        if have:
            out.append(level)
    return out[::-1]


def _libmvec_flags() -> list[str]:
    """Flags that let the generated code call glibc's SIMD math (glibc >= 2.35, x86-64)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return []
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError):
        return []
    parts = libc.split()
    if len(parts) != 2 or parts[0] != "glibc":
        return []
    try:
        major, minor = (int(v) for v in parts[1].split(".")[:2])
    except ValueError:
        return []
    if (major, minor) < (2, 35) or not ctypes.util.find_library("mvec"):
        return []
    return ["-DSYMNB_LIBMVEC"]


def _try_compile(
    cxx: list[str], flags: list[str], source: str, libs: tuple[str, ...] = ()
) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory(prefix="symnb-probe-") as tmp:
        src = Path(tmp) / "probe.cpp"
        src.write_text(source)
        out = Path(tmp) / "probe.so"
        cmd = [*cxx, *flags, str(src), "-o", str(out), *libs]
        try:
            rc, log = run_compiler(cmd, PROBE_TIMEOUT, cwd=tmp)
        except subprocess.TimeoutExpired:
            return False, f"the test compile took more than {PROBE_TIMEOUT:.0f} s"
        except OSError as exc:
            return False, str(exc)
        if rc != 0 or not out.exists():
            return False, log.strip() or f"exit status {rc}"
        try:  # ctypes loads with RTLD_NOW: missing symbols show up here
            lib = ctypes.CDLL(str(out))
        except OSError as exc:
            return False, f"cannot load the test library: {exc}"
        try:
            if "-fopenmp" in flags:
                lib.symnb_probe.restype = ctypes.c_int
                if lib.symnb_probe() != 4950:
                    return False, "the OpenMP test program computed a wrong result"
        finally:
            _dlclose_handle(lib._handle)
        return True, log


def _dlclose_handle(handle: int) -> None:
    try:
        import _ctypes

        _ctypes.dlclose(handle)
    except (ImportError, AttributeError, OSError):  # pragma: no cover - no dlclose
        return


def probe() -> BackendStatus:
    """Is g++ (or ``SYMNB_CXX``) here, which version, does OpenMP work? Cached per compiler."""
    configure_openmp()
    key = config.cxx()
    with _probe_lock:
        cached = _probe_cache.get(key)
        if cached is not None:
            return cached
        status = _probe_uncached()
        _probe_cache[key] = status
        return status


def _reset_probe() -> None:
    """Forget probe results (tests)."""
    with _probe_lock:
        _probe_cache.clear()


def _probe_uncached() -> BackendStatus:
    fix = "install g++ (Debian/Ubuntu: apt-get install g++) or set SYMNB_CXX"
    try:
        cxx = _compiler_command()
    except ValueError as exc:
        return BackendStatus(NAME, False, f"SYMNB_CXX cannot be parsed: {exc}", fix)
    if not cxx:
        return BackendStatus(NAME, False, "no C++ compiler configured", fix)
    exe = shutil.which(cxx[0])
    if exe is None:
        return BackendStatus(NAME, False, f"C++ compiler {cxx[0]!r} not found", fix)
    try:
        rc, out = run_compiler([*cxx, "--version"], PROBE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return BackendStatus(NAME, False, f"{cxx[0]} --version failed: {exc}", fix)
    if rc != 0:  # its first line says what it is (false: a page of licence text)
        said = out.strip().splitlines()[0][:200] if out.strip() else "no output"
        return BackendStatus(
            NAME, False, f"{cxx[0]} --version failed (exit status {rc}): {said}", fix
        )
    version = out.strip().splitlines()[0] if out.strip() else "unknown"
    cpu = _cpu_features()
    # Common case first (one compile): OpenMP and the best instruction set both work.
    arches = _isa_levels(cpu) or (["native"] if cpu else [])
    attempts = [(True, a) for a in arches] + [(True, ""), (False, "")]
    openmp, march = False, ""
    omp_log = ""
    for want_omp, want_arch in attempts:
        flags = [*_BASE_FLAGS]
        if want_omp:
            flags.append("-fopenmp")
        if want_arch:
            flags.append("-march=" + want_arch)
        ok, log = _try_compile(cxx, flags, _OPENMP_TEST if want_omp else _PLAIN_TEST)
        if ok:
            openmp, march = want_omp, want_arch
            break
        if want_omp:
            omp_log = log
    else:
        first = "\n".join(log.splitlines()[:5])
        return BackendStatus(
            NAME,
            False,
            f"{cxx[0]} cannot build a shared library: {first}",
            fix,
            {"compiler": exe, "version": version},
        )
    mvec = _libmvec_flags()
    if mvec:  # the vector math library must also link
        flags = [*_BASE_FLAGS, "-fopenmp-simd", *([f"-march={march}"] if march else [])]
        ok, _ = _try_compile(cxx, flags, _LIBMVEC_TEST, ("-lmvec", "-lm"))
        if not ok:
            mvec = []
    details: dict[str, Any] = {
        "compiler": exe,
        "version": version,
        "openmp": openmp,
        "march_native": march == "native",
        "march": march,
        "libmvec": bool(mvec),
        "threads": os.cpu_count() or 1,
    }
    if not openmp:
        details["openmp_error"] = "\n".join(omp_log.splitlines()[:5])
    return BackendStatus(NAME, True, "", "", details)


def _flags(status: BackendStatus) -> list[str]:
    d = status.details
    flags = list(_BASE_FLAGS)
    flags.append("-fopenmp" if d.get("openmp") else "-fopenmp-simd")
    if d.get("march"):
        flags.append("-march=" + d["march"])
    if d.get("libmvec"):
        flags.append("-DSYMNB_LIBMVEC")
    return flags


def _libraries(status: BackendStatus) -> list[str]:
    return ["-lmvec", "-lm"] if status.details.get("libmvec") else ["-lm"]


# ------------------------------------------------------------------------------------
# Cache (the shared disk cache)
# ------------------------------------------------------------------------------------


def _get_or_build(key_parts: dict[str, str], build) -> tuple[Path, bool]:
    from symnb.backends.cache import default_cache

    cache = default_cache()
    path = cache.get_or_build(key_parts, ".so", build)
    return Path(path), cache.last_hit


# ------------------------------------------------------------------------------------
# Loaded libraries: one CDLL per path, reference counted, idle ones closed (LRU)
# ------------------------------------------------------------------------------------


class _Library:
    def __init__(self, path: Path) -> None:
        configure_openmp()
        self.path = path
        self.cdll = ctypes.CDLL(str(path), mode=os.RTLD_LOCAL)
        self.users = 0


_libs_lock = module_lock(globals(), "_libs_lock", threading.Lock)  # forksafe
_libs: dict[str, _Library] = {}
_idle: OrderedDict[str, _Library] = OrderedDict()


def _acquire(path: Path) -> _Library:
    key = str(path)
    with _libs_lock:
        lib = _libs.get(key)
        if lib is None:
            lib = _Library(path)
            _libs[key] = lib
        lib.users += 1
        _idle.pop(key, None)
        return lib


def _release(key: str) -> None:
    with _libs_lock:
        lib = _libs.get(key)
        if lib is None:
            return
        lib.users -= 1
        if lib.users > 0:
            return
        _idle[key] = lib
        while len(_idle) > MAX_IDLE_LIBRARIES:
            old_key, old = _idle.popitem(last=False)
            _libs.pop(old_key, None)
            _dlclose(old)


def _dlclose(lib: _Library) -> None:
    _dlclose_handle(lib.cdll._handle)


def loaded_libraries() -> int:
    """Number of kernel libraries currently open in this process."""
    with _libs_lock:
        return len(_libs)


# ------------------------------------------------------------------------------------
# Program
# ------------------------------------------------------------------------------------

_P = ctypes.c_void_p
_I64 = ctypes.c_int64
_F64 = ctypes.c_double

_ARGTYPES = {
    "forward": [_P, _P, _I64, _P],
    "backward": [_P, _P, _P, _I64, _P],
    "forward_derivative": [_P, _P, _P, _I64, _P],
    "forward_backward": [_P, _P, _P, _P, _I64, _P],
    "constant_gradient": [_P, _P, _P, _I64, _P],
    "layer_forward": [_P, _P, _I64, _I64, _P, _P, _P],
    "layer_backward": [_P, _P, _P, _I64, _I64, _P, _P, _P],
    "layer_forward_derivative": [_P, _P, _P, _I64, _I64, _P, _P, _P],
    "layer_constant_gradient": [_P, _P, _P, _I64, _I64, _P, _P, _P],
    "loss_value": [_P, _P, _I64, _P, _P],
    "loss_gradient": [_P, _P, _P, _I64, _P, _F64],
}

#: ``(x, [g,] y | dx | out, planes, cols, inner, [total,] ids, offsets, params)``
_PLANE_ARGTYPES = {
    "layer_planes_forward": [_P, _P, _I64, _I64, _I64, _P, _P, _P],
    "layer_planes_backward": [_P, _P, _P, _I64, _I64, _I64, _P, _P, _P],
    "layer_planes_constant_gradient": [_P, _P, _P, _I64, _I64, _I64, _I64, _P, _P, _P],
}


class _PointerCache:
    """Data pointers of the arrays last seen in each argument slot.

    Keyed by a weak reference (the cache keeps no array alive) plus the size (an in-place
    ``ndarray.resize`` moves the data and changes the size). One tuple per slot, replaced
    in one assignment, so concurrent callers never see a half-updated entry.
    """

    __slots__ = ("slots",)

    def __init__(self, size: int = 8) -> None:
        self.slots: list[tuple[Any, int, int]] = [(None, 0, -1)] * size

    def __call__(self, slot: int, arr: np.ndarray) -> int:
        ref, ptr, size = self.slots[slot]
        if ref is not None and ref() is arr and arr.size == size:
            return ptr
        ptr = arr.__array_interface__["data"][0]
        try:
            self.slots[slot] = (weakref.ref(arr), ptr, arr.size)
        except TypeError:  # pragma: no cover - an object without weakref support
            pass
        return ptr


#: Elements per native call: longer arrays are processed in pieces so each call stays
#: short (Ctrl-C is seen between pieces; ctypes releases the GIL during each).
CALL_CHUNK = 1 << 24


def _chunks(n: int):
    if n <= CALL_CHUNK:
        yield 0, n
        return
    for start in range(0, n, CALL_CHUNK):
        yield start, min(CALL_CHUNK, n - start)


class CppProgram(Program):
    """Raw compiled entry points of one generated C++ library.

    The methods assume checked arguments (dtype, C-contiguity, shapes); the public kernel
    objects in :mod:`symnb.backends.kernel` do the checks. References to every array are
    kept for the duration of a call (and to the last few, to reuse their pointers).
    """

    backend = NAME

    def __init__(
        self,
        kernel_source: KernelSource,
        library_path: Path,
        cache_hit: bool,
        compile_seconds: float,
        flags: list[str],
        whole: Callable[[], KernelSource] | None = None,
    ) -> None:
        self.kernel_source = kernel_source
        #: the whole source's maker, where the constants' gradients are lowered only
        #: when first asked for (``kernel_source`` then holds them as derived)
        self._whole_maker = whole
        self._whole_source: KernelSource | None = None
        self.kind = kernel_source.kind
        self.dtype = kernel_source.dtype
        self.cache_hit = cache_hit
        self.compile_seconds = compile_seconds
        self.device = None
        self.library_path = Path(library_path)
        self.flags = list(flags)
        try:
            self._lib = _acquire(self.library_path)
        except OSError as exc:
            raise CompileError(
                f"the compiled library cannot be loaded: {exc}",
                compiler=" ".join(_compiler_command()[:1]) or "c++",
                log=str(exc),
                source=self._first_text,
            ) from None
        self._finalizer = weakref.finalize(self, _release, str(self.library_path))
        self._ptr = _PointerCache()
        #: the whole library, once a constant's gradient was asked for (forward_text)
        self._whole_lock = instance_lock(self, "_whole_lock", threading.Lock)
        self._whole_path: Path | None = None
        self._c_constant_gradient = None  # bound from the whole library if lazy
        later = ("constant_gradient",) if kernel_source.forward_text else ()
        for logical, symbol in kernel_source.entry_points.items():
            if logical not in later:
                setattr(self, "_c_" + logical, self._bind(self._lib, logical, symbol))
        # optional: the plane-wise layer entry points (one-unit C++ layers only)
        self.has_planes = False
        if self.kind == "layer":
            fns = {}
            for logical, symbol in PLANE_ENTRY_POINTS.items():
                fn = getattr(self._lib.cdll, symbol, None)
                if fn is None:
                    break
                fn.argtypes = _PLANE_ARGTYPES[logical]
                fn.restype = ctypes.c_int if logical.endswith("gradient") else None
                fns["_c_" + logical] = fn
            else:
                self.__dict__.update(fns)
                self.has_planes = True

    def _bind(self, lib: _Library, logical: str, symbol: str):
        try:
            fn = getattr(lib.cdll, symbol)
        except AttributeError:
            raise CompileError(
                f"the compiled library has no entry point {symbol!r}",
                compiler=" ".join(_compiler_command()[:1]) or "c++",
                source=self._first_text,
            ) from None
        fn.argtypes = _ARGTYPES[logical]
        fn.restype = None
        return fn

    @property
    def _first_text(self) -> str:
        """The text of the library built first."""
        return self.kernel_source.forward_text or self.kernel_source.text

    @property
    def whole_source(self) -> KernelSource:
        """The source with every entry point, the constants' gradients as lowered for
        them (made on first use where the program was built with ``whole``)."""
        if not self.kernel_source.forward_text or self._whole_maker is None:
            return self.kernel_source
        with self._whole_lock:
            if self._whole_source is None:
                self._whole_source = self._whole_maker()
            return self._whole_source

    @property
    def source(self) -> str:
        """The whole C++ source (what ``whole_library_path`` compiles)."""
        return self.whole_source.text

    @property
    def whole_library_path(self) -> Path:
        """The library with every entry point, the constants' gradients included.

        Elementwise kernels with constants are built first without them (most are
        never learned); the first use builds (or fetches from the cache) the whole
        source, loads it and binds the constants' gradient from it.
        """
        if not self.kernel_source.forward_text:
            return self.library_path
        whole = self.whole_source
        with self._whole_lock:
            if self._whole_path is None:
                path = whole_library(whole)
                lib = _acquire(path)
                weakref.finalize(self, _release, str(path))
                symbol = whole.entry_points["constant_gradient"]
                self._c_constant_gradient = self._bind(lib, "constant_gradient", symbol)
                self._whole_path = path
            return self._whole_path

    def _whole_constant_gradient(self):
        """The constants' gradient entry point, from the whole library (built or
        fetched from the cache on first use)."""
        _ = self.whole_library_path  # builds the whole library and binds the entry
        return self._c_constant_gradient

    def __repr__(self) -> str:
        hit = (
            "cached" if self.cache_hit else f"compiled in {self.compile_seconds:.2f} s"
        )
        return f"<CppProgram {self.kind} {self.dtype} {self.library_path.name} ({hit})>"

    # -- elementwise ----------------------------------------------------------------
    def forward(self, x: np.ndarray, y: np.ndarray, params: np.ndarray) -> None:
        p, n, fn = self._ptr, x.size, self._c_forward
        px, py, pc = p(0, x), p(1, y), p(4, params)
        if n <= CALL_CHUNK:
            fn(px, py, n, pc)
            return
        b = x.itemsize
        for s, m in _chunks(n):
            fn(px + s * b, py + s * b, m, pc)

    def backward(
        self, x: np.ndarray, g: np.ndarray, dx: np.ndarray, params: np.ndarray
    ) -> None:
        p, n, fn = self._ptr, x.size, self._c_backward
        px, pg, pd, pc = p(0, x), p(2, g), p(3, dx), p(4, params)
        if n <= CALL_CHUNK:
            fn(px, pg, pd, n, pc)
            return
        b = x.itemsize
        for s, m in _chunks(n):
            fn(px + s * b, pg + s * b, pd + s * b, m, pc)

    def forward_derivative(
        self, x: np.ndarray, y: np.ndarray, dy: np.ndarray, params: np.ndarray
    ) -> None:
        p, n, fn = self._ptr, x.size, self._c_forward_derivative
        px, py, pd, pc = p(0, x), p(1, y), p(3, dy), p(4, params)
        b = x.itemsize
        for s, m in _chunks(n):
            fn(px + s * b, py + s * b, pd + s * b, m, pc)

    def forward_backward(
        self,
        x: np.ndarray,
        g: np.ndarray,
        y: np.ndarray,
        dx: np.ndarray,
        params: np.ndarray,
    ) -> None:
        p, n, fn = self._ptr, x.size, self._c_forward_backward
        px, py, pg, pd, pc = p(0, x), p(1, y), p(2, g), p(3, dx), p(4, params)
        b = x.itemsize
        for s, m in _chunks(n):
            fn(px + s * b, pg + s * b, py + s * b, pd + s * b, m, pc)

    def constant_gradient(
        self, x: np.ndarray, g: np.ndarray, params: np.ndarray
    ) -> np.ndarray:
        out = np.zeros(params.size, dtype=np.float64)
        if out.size:
            p, b = self._ptr, x.itemsize
            px, pg, pc = p(0, x), p(2, g), p(4, params)
            po = out.__array_interface__["data"][0]
            fn = self._c_constant_gradient or self._whole_constant_gradient()
            for s, m in _chunks(x.size):  # the kernel adds into out
                fn(px + s * b, pg + s * b, po, m, pc)
        return out

    # -- layer ----------------------------------------------------------------------
    def _layer_tail(
        self,
        x: np.ndarray,
        ids: np.ndarray,
        offsets: np.ndarray,
        params: np.ndarray,
    ) -> tuple[int, int, int, int, int]:
        """The arguments every layer entry point ends with:
        ``rows, cols, ids, offsets, params``."""
        p = self._ptr
        rows, cols = x.shape
        return rows, cols, p(5, ids), p(6, offsets), p(4, params)

    def layer_forward(
        self,
        x: np.ndarray,
        y: np.ndarray,
        ids: np.ndarray,
        offsets: np.ndarray,
        params: np.ndarray,
    ) -> None:
        p = self._ptr
        self._c_layer_forward(
            p(0, x), p(1, y), *self._layer_tail(x, ids, offsets, params)
        )

    def layer_backward(
        self,
        x: np.ndarray,
        g: np.ndarray,
        dx: np.ndarray,
        ids: np.ndarray,
        offsets: np.ndarray,
        params: np.ndarray,
    ) -> None:
        p = self._ptr
        self._c_layer_backward(
            p(0, x), p(2, g), p(3, dx), *self._layer_tail(x, ids, offsets, params)
        )

    def layer_forward_derivative(
        self,
        x: np.ndarray,
        y: np.ndarray,
        dy: np.ndarray,
        ids: np.ndarray,
        offsets: np.ndarray,
        params: np.ndarray,
    ) -> None:
        p = self._ptr
        self._c_layer_forward_derivative(
            p(0, x), p(1, y), p(3, dy), *self._layer_tail(x, ids, offsets, params)
        )

    def layer_constant_gradient(
        self,
        x: np.ndarray,
        g: np.ndarray,
        ids: np.ndarray,
        offsets: np.ndarray,
        params: np.ndarray,
    ) -> np.ndarray:
        out = np.zeros(params.size, dtype=np.float64)
        if out.size:
            p = self._ptr
            self._c_layer_constant_gradient(
                p(0, x),
                p(2, g),
                out.__array_interface__["data"][0],
                *self._layer_tail(x, ids, offsets, params),
            )
        return out

    # -- layer along an inner axis (has_planes) --------------------------------------
    def _planes_tail(self, ids, offsets, params) -> tuple[int, int, int]:
        """``ids, offsets, params`` addresses, the last arguments of each planes entry."""
        p = self._ptr
        return p(5, ids), p(6, offsets), p(4, params)

    def layer_planes_forward(self, x, y, planes, inner, ids, offsets, params) -> None:
        """Feature ``p % cols`` for each of ``planes`` contiguous runs of ``inner``
        elements (a C-contiguous array whose feature axis is followed by ``inner``
        elements per entry)."""
        p, tail = self._ptr, self._planes_tail(ids, offsets, params)
        self._c_layer_planes_forward(p(0, x), p(1, y), planes, ids.size, inner, *tail)

    def layer_planes_backward(self, x, g, dx, planes, inner, ids, offsets, params):
        p, tail = self._ptr, self._planes_tail(ids, offsets, params)
        self._c_layer_planes_backward(
            p(0, x), p(2, g), p(3, dx), planes, ids.size, inner, *tail
        )

    def layer_planes_constant_gradient(self, x, g, planes, inner, ids, offsets, params):
        """The constants' sums in ``params``' layout, or None when the kernel could
        not allocate its per-thread sums (the caller takes the row path)."""
        out = np.zeros(params.size, dtype=np.float64)
        if out.size:
            p, tail = self._ptr, self._planes_tail(ids, offsets, params)
            po = out.__array_interface__["data"][0]
            ok = self._c_layer_planes_constant_gradient(
                p(0, x), p(2, g), po, planes, ids.size, inner, params.size, *tail
            )
            if not ok:
                return None
        return out

    # -- loss -----------------------------------------------------------------------
    def loss_value(self, p_: np.ndarray, t: np.ndarray, params: np.ndarray) -> float:
        out = np.zeros(1, dtype=np.float64)
        p, b = self._ptr, p_.itemsize
        pp, pt, pc = p(0, p_), p(1, t), p(4, params)
        po = out.__array_interface__["data"][0]
        for s, m in _chunks(p_.size):  # the kernel adds into out
            self._c_loss_value(pp + s * b, pt + s * b, m, pc, po)
        return float(out[0])

    def loss_gradient(
        self,
        p_: np.ndarray,
        t: np.ndarray,
        g: np.ndarray,
        params: np.ndarray,
        scale: float,
    ) -> None:
        p, b = self._ptr, p_.itemsize
        pp, pt, pg, pc = p(0, p_), p(1, t), p(2, g), p(4, params)
        for s, m in _chunks(p_.size):
            self._c_loss_gradient(pp + s * b, pt + s * b, pg + s * b, m, pc, scale)


# ------------------------------------------------------------------------------------
# Build
# ------------------------------------------------------------------------------------

_warned_serial = False


def _warn_serial(status: BackendStatus) -> None:
    global _warned_serial
    if not _warned_serial:
        _warned_serial = True
        warnings.warn(
            f"cpp backend: {status.details.get('compiler')} has no working OpenMP "
            "(-fopenmp); kernels are built serial (single-threaded). "
            "Fix: install libgomp (apt-get install libgomp1 g++)",
            RuntimeWarning,
            stacklevel=3,
        )


def compile_source(
    text: str,
    output: Path,
    status: BackendStatus | None = None,
    timeout: float | None = None,
) -> list[str]:
    """Compile ``text`` into the shared object ``output``; return the command used.

    Raises :class:`CompileError` with the compiler's log, the command and the saved source
    when the compiler fails or runs past ``timeout`` seconds.
    """
    return compile_units([text], output, status, timeout)


def compile_units(
    units: list[str],
    output: Path,
    status: BackendStatus | None = None,
    timeout: float | None = None,
) -> list[str]:
    """Compile translation units (in parallel, one compiler per core) and link them
    into the shared object ``output``; return the last command used.

    The compiler writes into a private ``symnb-cpp-*`` directory; the finished library
    is then copied to ``output`` with :func:`symnb.backends.cache.write_artifact`, so a
    full cache disk is reported as such (and the cache can move to a temporary
    directory) rather than as a linker error. The directory is removed on success and
    on Ctrl-C; after a compiler error it is kept, with the source, for the error report.
    """
    from symnb.backends.cache import write_artifact

    status = status or probe()
    if timeout is None:  # more units (a layer of many forms): proportionally longer
        jobs = os.cpu_count() or 1
        timeout = COMPILE_TIMEOUT + UNIT_TIMEOUT * (len(units) - 1) / jobs
    workdir = Path(tempfile.mkdtemp(prefix="symnb-cpp-"))
    try:
        library, command = _compile_in(workdir, list(units), status, timeout)
        write_artifact(Path(output), library)
    except CompileError:
        raise  # the saved source stays for the report
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    shutil.rmtree(workdir, ignore_errors=True)
    return command


def _compile_in(
    workdir: Path, units: list[str], status: BackendStatus, timeout: float
) -> tuple[Path, list[str]]:
    """Compile (and link) ``units`` in ``workdir``: the library and the last command."""
    cxx = _compiler_command()
    flags, libs = _flags(status), _libraries(status)
    deadline = time.monotonic() + timeout
    library = workdir / "kernel.so"
    pre = prelude.include_flags(cxx, flags, units)  # the precompiled <math.h>
    if len(units) == 1:
        sources = [workdir / "kernel.cpp"]
        steps = [[[*cxx, *flags, *pre, str(sources[0]), "-o", str(library), *libs]]]
    else:
        sources = [workdir / f"unit{k}.cpp" for k in range(len(units))]
        objects = [str(src.with_suffix(".o")) for src in sources]
        steps = [
            [
                [*cxx, *flags, *pre, "-c", str(src), "-o", obj]
                for src, obj in zip(sources, objects)
            ],
            [[*cxx, *flags, *objects, "-o", str(library), *libs]],
        ]
    for src, text in zip(sources, units):
        src.write_text(text)
    for commands in steps:
        try:
            results = run_compilers(
                commands, deadline - time.monotonic(), cwd=str(workdir)
            )
        except subprocess.TimeoutExpired:
            raise _compile_error(
                f"compilation took more than {timeout:g} s and was stopped "
                f"({len(units)} translation unit(s)); nothing was built. Use "
                "backend='numpy', or fewer distinct formulas in one layer",
                cxx,
                commands[0],
                "",
                units,
                sources,
                0,
                timed_out=True,
            ) from None
        except OSError as exc:
            raise _compile_error(
                f"could not run the compiler: {exc}",
                cxx,
                commands[0],
                str(exc),
                units,
                sources,
                0,
            ) from None
        for k, (rc, log) in enumerate(results):
            if rc != 0:
                raise _compile_error(
                    f"compilation failed (exit status {rc})",
                    cxx,
                    commands[k],
                    log,
                    units,
                    sources,
                    k,
                )
    return library, steps[-1][-1]


def _compile_error(
    message: str,
    cxx: list[str],
    command: list[str],
    log: str,
    units: list[str],
    sources: list[Path],
    index: int,
    timed_out: bool = False,
) -> CompileError:
    index = min(index, len(units) - 1)
    error = CompileError(
        message,
        compiler=cxx[0],
        command=command,
        log=log,
        source=units[index],
        source_path=str(sources[index]),
    )
    # A timeout is not a reason to fall back to another backend silently: the
    # selection in symnb.backends.select re-raises errors marked like this.
    error.timed_out = timed_out
    return error


def key_parts(
    kernel_source: KernelSource, status: BackendStatus, first: bool = False
) -> dict[str, str]:
    """Everything that changes the shared object (the disk cache key); ``first``: of
    the library built first (``forward_text`` where the source has one)."""
    flags = _flags(status)
    parts = {
        "backend": NAME,
        "source": kernel_source.forward_digest if first else kernel_source.digest,
        "compiler": str(status.details.get("compiler", "")),
        "compiler_version": str(status.details.get("version", "")),
        "flags": " ".join(flags + _libraries(status)),
        "symnb": symnb.__version__,
        "machine": platform.machine(),
    }
    if "-march=native" in flags:
        parts["cpu"] = hashlib.sha256(_cpu_features().encode()).hexdigest()
    return parts


def build(
    forms,
    kind: str,
    dtype: str = "float32",
    device: Any = None,
    whole: Callable[[], tuple] | None = None,
) -> CppProgram:
    """Generate, compile (or fetch from the cache) and load the kernels for ``forms``.

    ``whole``: the forms with the constants' gradients lowered, made when one is first
    asked for (``forms`` then hold them as derived; only their f and f' are compiled
    first).

    Raises
    ------
    BackendUnavailable
        No usable compiler (see :func:`probe`).
    FormulaError
        The formula cannot be printed or is too large.
    CompileError
        The compiler failed (message, log, command, saved source).
    """
    status = probe()
    if not status.usable:
        raise BackendUnavailable(NAME, status.reason, status.fix)
    if not status.details.get("openmp"):
        _warn_serial(status)
    ks = render_program(forms, kind, "cpp", dtype)
    started = time.perf_counter()
    units = list(ks.units) or [ks.forward_text or ks.text]
    path, hit = _library(ks, units, status, first=True)
    seconds = 0.0 if hit else time.perf_counter() - started
    maker = None
    if whole is not None and ks.forward_text:

        def maker() -> KernelSource:
            return render_program(whole(), kind, "cpp", dtype)

    return CppProgram(ks, path, hit, seconds, _flags(status), maker)


def whole_library(kernel_source: KernelSource) -> Path:
    """The library of the whole ``kernel_source.text`` (compiled or fetched from the
    cache): with the constants' gradient entry points that ``forward_text`` leaves out."""
    return _library(kernel_source, [kernel_source.text], probe(), first=False)[0]


def _library(
    kernel_source: KernelSource,
    units: list[str],
    status: BackendStatus,
    first: bool,
) -> tuple[Path, bool]:
    """(path, cache hit) of the shared object of ``units``, compiled or fetched from
    the disk cache under ``key_parts(kernel_source, status, first)``."""

    def _build(tmp_path: Path) -> None:
        compile_units(units, Path(tmp_path), status)

    return _get_or_build(key_parts(kernel_source, status, first=first), _build)


__all__ = [
    "COMPILE_TIMEOUT",
    "CppProgram",
    "build",
    "compile_source",
    "key_parts",
    "loaded_libraries",
    "probe",
    "run_compiler",
    "whole_library",
]
