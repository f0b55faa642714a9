"""Session defaults of the notebook faces (magics, status bar).

Plain module attributes, read by ``symnb.notebook.labstatus`` and the magics:

``backend``  the backend later ``%%symact`` cells use unless they say ``--backend``
             (``"auto"``, ``"numpy"``, ``"cpp"`` or ``"cuda"``)
``device``   the CUDA device index later cells use unless they say ``--device``
``loaded``   whether ``%load_ext symnb`` registered the magics in this kernel
``last_compile``  a dict describing the last kernel ``%%symact`` compiled (name,
             backend, device, seconds, cache_hit), or ``None``

Change them with :func:`set_backend` / :func:`set_device` (which validate) or
``%symnb backend NAME`` / ``%symnb device N``.
"""

from __future__ import annotations

BACKEND_CHOICES = ("auto", "numpy", "cpp", "cuda")

backend: str = "auto"
device: int = 0
loaded: bool = False
last_compile: dict | None = None


def backend_name(name: str) -> str:
    """``name`` normalised (stripped, lower case); ``ValueError`` for an unknown one."""
    value = str(name).strip().lower()
    if value not in BACKEND_CHOICES:
        raise ValueError(
            f"unknown backend {name!r}; choose one of {', '.join(BACKEND_CHOICES)}"
        )
    return value


def set_backend(name: str) -> str:
    """Set the default backend; raises ``ValueError`` for an unknown name."""
    global backend
    backend = backend_name(name)
    return backend


def device_index(index: int | str) -> int:
    """``index`` (an int, its text, ``'cuda'`` or ``'cuda:N'``) as a GPU index;
    ``ValueError`` otherwise (``symnb.backends.select.device_from_text``)."""
    from symnb.backends.select import device_from_text

    return device_from_text(index)


def set_device(index: int | str) -> int:
    """Set the default CUDA device; ``ValueError`` unless it is an integer >= 0
    (see :func:`device_index`)."""
    global device
    device = device_index(index)
    return device


def snapshot() -> dict:
    """The current defaults as a dict (for status displays)."""
    return {
        "backend": backend,
        "device": device,
        "loaded": loaded,
        "last_compile": dict(last_compile) if last_compile else None,
    }


def reset() -> None:
    """Back to the defaults of a fresh kernel (used by ``%unload_ext`` and tests)."""
    global backend, device, loaded, last_compile
    backend = "auto"
    device = 0
    loaded = False
    last_compile = None
