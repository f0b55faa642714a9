"""NVRTC and nvcc compile helpers, usable without a GPU.

NVRTC is what CuPy compiles with, so it is the compiler the CUDA backend uses and the
one CI checks generated kernels against (it is stricter than nvcc: host macros such as
``M_SQRT2`` are rejected). Two ways to reach it, tried in order:

1. ``cupy.cuda.nvrtc`` (the library CuPy itself loads; needs no GPU or driver);
2. ``ctypes`` on the ``nvidia-cuda-nvrtc`` wheel's ``libnvrtc.so.*`` (for machines
   with the wheel but without CuPy). With the 13.0 wheel
   ``libnvrtc-builtins.so.13.0`` must be loaded with ``RTLD_GLOBAL`` first.

Options. CuPy's ``RawModule(code=...)`` compiles with the user's options followed by
``-std=c++17`` (CuPy 14), ``-ftz=true``, ``-arch=sm_XX`` (a cubin for the device,
capped at the newest architecture NVRTC knows) and
``--device-as-default-execution-space`` (see ``cupy/cuda/compiler.py``:
``_compile_with_cache_cuda`` and ``_compile_using_nvrtc_no_warning``). symnb compiles
the same way except that it leaves flush-to-zero off (NVRTC's default): ``-ftz=true``
cannot be undone by a later ``-ftz=false`` (NVRTC warns and takes the last), and flushed
subnormals would make the GPU disagree with the CPU backends. :data:`CUPY_OPTIONS`
holds CuPy's exact flags for checks that want them.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from symnb import config
from symnb.errors import CompileError

#: What ``cupy.RawModule(code=...)`` adds to the caller's options (besides ``-arch``).
CUPY_OPTIONS: tuple[str, ...] = (
    "-std=c++17",
    "-ftz=true",
    "--device-as-default-execution-space",
)

#: What symnb's CUDA backend compiles with (besides ``-arch``): CuPy's, without FTZ.
SYMNB_OPTIONS: tuple[str, ...] = ("-std=c++17", "--device-as-default-execution-space")

#: nvcc flags of the second check: PTX only, warnings are errors.
NVCC_OPTIONS: tuple[str, ...] = ("--ptx", "-Werror", "all-warnings", "-std=c++17")

NVCC_TIMEOUT_SECONDS = 120.0


@dataclass(frozen=True)
class NVRTCResult:
    """What one NVRTC compilation produced."""

    ptx: str
    cubin: bytes | None  # only for ``-arch=sm_XX``
    log: str
    options: tuple[str, ...]
    seconds: float
    version: tuple[int, int]


# --------------------------------------------------------------------------------------
# Two ways to call NVRTC


class _CupyNVRTC:
    name = "cupy.cuda.nvrtc"

    def __init__(self) -> None:
        from cupy.cuda import nvrtc

        self._nvrtc = nvrtc
        self.version = tuple(nvrtc.getVersion())

    def compile(self, source: str, name: str, options: tuple[str, ...]):
        nv = self._nvrtc
        prog = nv.createProgram(source, name, [], [])
        try:
            try:
                nv.compileProgram(prog, list(options))
                ok = True
            except nv.NVRTCError:
                ok = False
            log = _text(nv.getProgramLog(prog))
            if not ok:
                return False, "", None, log
            ptx = _text(nv.getPTX(prog))
            cubin = None
            if any(
                o.startswith(("-arch=sm_", "--gpu-architecture=sm_")) for o in options
            ):
                cubin = bytes(nv.getCUBIN(prog))
            return True, ptx, cubin, log
        finally:
            nv.destroyProgram(prog)


def _wheel_lib_dirs() -> list[Path]:
    """Library folders of installed ``nvidia-cuda-nvrtc`` wheels (13.x, then 12.x)."""
    spec = importlib.util.find_spec("nvidia")
    if spec is None or not spec.submodule_search_locations:
        return []
    dirs = []
    for base in spec.submodule_search_locations:
        for sub in ("cu13/lib", "cuda_nvrtc/lib"):
            d = Path(base) / sub
            if d.is_dir():
                dirs.append(d)
    return dirs


class _CtypesNVRTC:
    name = "ctypes (nvidia-cuda-nvrtc wheel)"

    def __init__(self) -> None:
        lib = None
        errors = []
        for d in _wheel_lib_dirs():
            for builtins in sorted(d.glob("libnvrtc-builtins.so.*")):
                if ".alt." in builtins.name:
                    continue
                try:
                    ctypes.CDLL(str(builtins), mode=ctypes.RTLD_GLOBAL)
                except OSError as exc:
                    errors.append(str(exc))
            for cand in sorted(d.glob("libnvrtc.so.*")):
                try:
                    lib = ctypes.CDLL(str(cand), mode=ctypes.RTLD_GLOBAL)
                    break
                except OSError as exc:
                    errors.append(str(exc))
            if lib is not None:
                break
        if lib is None:
            raise OSError(
                "no libnvrtc found in an nvidia-cuda-nvrtc wheel"
                + (f" ({'; '.join(errors)})" if errors else "")
            )
        self._lib = lib
        c_p = ctypes.c_void_p
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        lib.nvrtcGetErrorString.argtypes = [ctypes.c_int]
        lib.nvrtcVersion.argtypes = [ctypes.POINTER(ctypes.c_int)] * 2
        lib.nvrtcCreateProgram.argtypes = [
            ctypes.POINTER(c_p),
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_char_p),
            ctypes.POINTER(ctypes.c_char_p),
        ]
        lib.nvrtcCompileProgram.argtypes = [
            c_p,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_char_p),
        ]
        for fn in ("nvrtcGetProgramLogSize", "nvrtcGetPTXSize", "nvrtcGetCUBINSize"):
            getattr(lib, fn).argtypes = [c_p, ctypes.POINTER(ctypes.c_size_t)]
        for fn in ("nvrtcGetProgramLog", "nvrtcGetPTX", "nvrtcGetCUBIN"):
            getattr(lib, fn).argtypes = [c_p, ctypes.c_char_p]
        lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(c_p)]
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check(
            lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "version"
        )
        self.version = (major.value, minor.value)

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            msg = self._lib.nvrtcGetErrorString(status)
            raise RuntimeError(f"nvrtc {what}: {msg.decode() if msg else status}")

    def _get(self, prog: ctypes.c_void_p, size_fn: str, get_fn: str) -> bytes:
        size = ctypes.c_size_t()
        self._check(getattr(self._lib, size_fn)(prog, ctypes.byref(size)), size_fn)
        buf = ctypes.create_string_buffer(size.value)
        self._check(getattr(self._lib, get_fn)(prog, buf), get_fn)
        return buf.raw[: size.value]

    def compile(self, source: str, name: str, options: tuple[str, ...]):
        lib = self._lib
        prog = ctypes.c_void_p()
        self._check(
            lib.nvrtcCreateProgram(
                ctypes.byref(prog), source.encode(), name.encode(), 0, None, None
            ),
            "create program",
        )
        try:
            opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
            status = lib.nvrtcCompileProgram(prog, len(options), opts)
            log = _text(self._get(prog, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog"))
            if status != 0:
                return False, "", None, log
            ptx = _text(self._get(prog, "nvrtcGetPTXSize", "nvrtcGetPTX"))
            cubin = None
            if any(
                o.startswith(("-arch=sm_", "--gpu-architecture=sm_")) for o in options
            ):
                cubin = self._get(prog, "nvrtcGetCUBINSize", "nvrtcGetCUBIN")
            return True, ptx, cubin, log
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(prog))


def _text(raw: bytes | str) -> str:
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    return raw.rstrip("\x00")


@functools.lru_cache(maxsize=1)
def _driver() -> tuple[object | None, str]:
    """The NVRTC binding to use and, if there is none, why."""
    reasons = []
    try:
        return _CupyNVRTC(), ""
    except ImportError as exc:
        reasons.append(f"cupy not installed ({exc})")
    except Exception as exc:  # noqa: BLE001 - any loader failure means "not usable"
        reasons.append(f"cupy.cuda.nvrtc failed to load NVRTC ({exc})")
    try:
        return _CtypesNVRTC(), ""
    except Exception as exc:  # noqa: BLE001
        reasons.append(str(exc))
    return None, "; ".join(reasons)


def available() -> tuple[bool, str]:
    """Whether NVRTC can be called here, and how it is reached (or why not)."""
    drv, why = _driver()
    if drv is None:
        return False, (
            f"NVRTC not found: {why}. Fix: pip install 'nvidia-cuda-nvrtc==13.0.*' "
            "(CuPy does not ship NVRTC)"
        )
    return True, f"NVRTC {drv.version[0]}.{drv.version[1]} via {drv.name}"


def version() -> tuple[int, int] | None:
    """NVRTC's (major, minor), or ``None`` without NVRTC."""
    drv, _ = _driver()
    return None if drv is None else drv.version


def _arch_option(arch: str) -> str:
    arch = arch.strip()
    if arch.startswith(("sm_", "compute_")):
        return f"-arch={arch}"
    if arch.isdigit():
        return f"-arch=sm_{arch}"
    raise ValueError(f"arch must look like 'sm_80', 'compute_80' or '80', got {arch!r}")


def compile(
    source: str,
    arch: str = "sm_80",
    options: tuple[str, ...] | list[str] = (),
    *,
    name: str = "symnb_kernel.cu",
    base_options: tuple[str, ...] = SYMNB_OPTIONS,
) -> NVRTCResult:
    """Compile ``source`` with NVRTC; :class:`CompileError` (with the log) on failure.

    ``arch='sm_XX'`` also produces a cubin (what the CUDA backend loads); ``compute_XX``
    gives PTX only.
    """
    drv, why = _driver()
    if drv is None:
        raise CompileError(
            f"NVRTC is not available ({why})", compiler="nvrtc", source=source
        )
    opts = tuple(base_options) + tuple(options) + (_arch_option(arch),)
    start = time.perf_counter()
    ok, ptx, cubin, log = drv.compile(source, name, opts)
    seconds = time.perf_counter() - start
    if not ok:
        raise CompileError(
            "compilation failed",
            compiler=f"nvrtc {drv.version[0]}.{drv.version[1]}",
            command=["nvrtc", *opts],
            log=log,
            source=source,
        )
    return NVRTCResult(ptx, cubin, log.strip(), opts, seconds, drv.version)


def compile_check(
    source: str, arch: str = "sm_80", options: tuple[str, ...] | list[str] = ()
) -> tuple[str, str]:
    """Compile with NVRTC and return ``(ptx, log)``; :class:`CompileError` on failure.

    A non-empty log on success means warnings; callers that want a clean build check it.
    """
    result = compile(source, arch, options)
    return result.ptx, result.log


def nvcc_path() -> str | None:
    """The ``nvcc`` on PATH (or in ``$CUDA_HOME/bin``), or ``None``."""
    found = shutil.which("nvcc")
    if found:
        return found
    for home in config.cuda_homes():
        if os.access(os.path.join(home, "bin", "nvcc"), os.X_OK):
            return os.path.join(home, "bin", "nvcc")
    return None


def nvcc_check(
    source: str,
    arch: str = "sm_90",
    options: tuple[str, ...] | list[str] = (),
    timeout: float = NVCC_TIMEOUT_SECONDS,
) -> tuple[str, str]:
    """Compile with ``nvcc --ptx -arch=<arch> -Werror all-warnings`` in a temp dir.

    Returns ``(ptx, log)``. Raises :class:`CompileError` on failure or timeout (the
    compiler runs in its own process group, killed as a group: killing the driver alone
    leaves ``cicc``/``cudafe++`` running).
    """
    nvcc = nvcc_path()
    if nvcc is None:
        raise CompileError("nvcc not found on PATH", compiler="nvcc", source=source)
    with tempfile.TemporaryDirectory(prefix="symnb-nvcc-") as tmp:
        cu = Path(tmp) / "kernel.cu"
        out = Path(tmp) / "kernel.ptx"
        cu.write_text(source)
        cmd = [nvcc, *NVCC_OPTIONS, f"-arch={arch}", *options, str(cu), "-o", str(out)]
        proc = subprocess.Popen(
            cmd,
            cwd=tmp,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            output, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            output, _ = proc.communicate()
            raise CompileError(
                f"nvcc did not finish within {timeout:.0f} s (killed)",
                compiler="nvcc",
                command=cmd,
                log=_text(output or b""),
                source=source,
            ) from None
        except BaseException:
            _kill_group(proc)
            proc.wait()
            raise
        log = _text(output or b"").strip()
        if proc.returncode != 0:
            raise CompileError(
                f"exit status {proc.returncode}",
                compiler="nvcc",
                command=cmd,
                log=log,
                source=source,
            )
        return out.read_text(), log


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


__all__ = [
    "CUPY_OPTIONS",
    "NVCC_OPTIONS",
    "SYMNB_OPTIONS",
    "NVRTCResult",
    "available",
    "compile",
    "compile_check",
    "nvcc_check",
    "nvcc_path",
    "version",
]
