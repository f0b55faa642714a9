"""Settings, in one place: the only module that reads the environment.

``SYMNB_CACHE_DIR``  where compiled kernels live (default ``$XDG_CACHE_HOME/symnb``)
``SYMNB_BACKEND``    the backend ``"auto"`` resolves to first (cuda, cpp or numpy)
``SYMNB_CXX``        the C++ compiler (default ``g++``)
"""

from __future__ import annotations

import os
from pathlib import Path

BACKENDS = ("cuda", "cpp", "numpy")


#: each relative setting as first resolved, against the working directory then
_ABSOLUTE: dict[str, Path] = {}


def _absolute(setting: str) -> Path:
    """``setting`` (a path) with ``~`` expanded, made absolute once: a relative
    ``SYMNB_CACHE_DIR=cache`` followed the working directory, so a notebook that
    changed it (``os.chdir``, ``%cd``) read and wrote another cache."""
    path = Path(setting).expanduser()
    if path.is_absolute():
        return path
    if setting not in _ABSOLUTE:
        _ABSOLUTE[setting] = Path.cwd() / path
    return _ABSOLUTE[setting]


def cache_dir() -> Path:
    """Directory of the on-disk kernel cache (always an absolute path)."""
    explicit = os.environ.get("SYMNB_CACHE_DIR")
    # blank is unset, as for SYMNB_CXX ('   ' made a cache folder named '   ')
    if explicit and explicit.strip():
        return _absolute(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache"
    )
    return _absolute(base) / "symnb"


def preferred_backend() -> str | None:
    """The backend named by ``SYMNB_BACKEND``, or ``None``; unknown names are refused."""
    name = os.environ.get("SYMNB_BACKEND", "").strip().lower()
    if not name or name == "auto":
        return None
    if name not in BACKENDS:
        raise ValueError(
            f"SYMNB_BACKEND={name!r} is not a backend; use one of {', '.join(BACKENDS)}"
        )
    return name


def cxx() -> str:
    """The C++ compiler command."""
    return os.environ.get("SYMNB_CXX", "").strip() or "g++"


def cxx_is_set() -> bool:
    """Whether ``SYMNB_CXX`` names a compiler (blank counts as unset)."""
    return bool(os.environ.get("SYMNB_CXX", "").strip())


def cuda_homes() -> list[str]:
    """CUDA installation folders named by ``CUDA_HOME`` / ``CUDA_PATH`` (set ones, in order)."""
    return [v for v in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")) if v]


def set_default_omp_wait_policy(policy: str) -> None:
    """Set ``OMP_WAIT_POLICY`` for libgomp unless the user set it themselves."""
    os.environ.setdefault("OMP_WAIT_POLICY", policy)
