"""Kernel side of the JupyterLab status-bar item ("symnb: cpp · cpu").

The lab extension (``labextension/src/statusitem.ts``) sends, after each cell it
sees executed, a *silent* ``execute_request`` whose ``user_expressions`` hold::

    __import__('sys').modules.get('symnb') is not None and
    __import__('symnb.notebook.labstatus', fromlist=['status_json']).status_json()

so nothing is imported unless the kernel has already imported symnb, nothing
is printed, and the execution counter does not move. The result is shown in
the status bar; the item is hidden when the expression gives ``False`` (symnb
not loaded) or fails.

Everything here is cheap and never raises: no backend is probed (probing CUDA
can take seconds), only what the session already knows is reported.
"""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["status_json", "status_payload"]


def _state_snapshot() -> dict[str, Any]:
    """The notebook session defaults, or ``{}`` when they cannot be read."""
    try:
        from symnb.notebook import state
    except Exception:  # noqa: BLE001 - the status bar must never break a kernel
        return {}
    try:
        snapshot = state.snapshot()
    except Exception:  # noqa: BLE001
        snapshot = None
    if isinstance(snapshot, dict):
        return dict(snapshot)
    values = {}
    for name in ("backend", "device", "loaded", "last_compile"):
        if hasattr(state, name):
            values[name] = getattr(state, name)
    return values


def _device_label(backend: str, device: Any) -> str:
    """``"cuda:N"`` for the CUDA backend, ``"cpu"`` for CPU backends."""
    if backend == "cuda":
        try:
            return f"cuda:{int(device)}"
        except (TypeError, ValueError):
            return "cuda:0"
    if backend in ("cpp", "numpy"):
        return "cpu"
    return "auto"


def _resolved_auto() -> str | None:
    """What ``"auto"`` resolves to, if the backends were already probed; else ``None``.

    Reads the availability reports ``symnb.backends.select`` cached; never probes.
    """
    select = sys.modules.get("symnb.backends.select")
    cache = getattr(select, "_status", None)
    if not isinstance(cache, dict):
        return None
    order = tuple(getattr(select, "AUTO_ORDER", ("cuda", "cpp", "numpy")))
    try:
        from symnb import config

        preferred = config.preferred_backend()
    except Exception:  # noqa: BLE001
        preferred = None
    if preferred:
        order = (preferred, *order)
    for name in order:
        report = cache.get(name)
        if report is None:
            return None
        if getattr(report, "usable", False):
            return name
    return "numpy"


def status_payload() -> dict[str, Any]:
    """What the status-bar item shows, as a JSON-serialisable dict.

    Returns
    -------
    dict
        ``loaded`` (bool: symnb's extension or package is loaded in this kernel),
        ``backend`` (the session's default backend, or the backend of the last
        compiled kernel when the default is ``"auto"``), ``device`` (``"cpu"``,
        ``"cuda:N"``), ``version``, ``magics`` (whether ``%load_ext symnb`` ran) and
        ``detail`` (one line for the tooltip).
    """
    try:
        import symnb

        version = str(getattr(symnb, "__version__", ""))
    except Exception:  # noqa: BLE001
        version = ""
    snap = _state_snapshot()
    default = str(snap.get("backend") or "auto")
    device = snap.get("device", 0)
    last = (
        snap.get("last_compile") if isinstance(snap.get("last_compile"), dict) else None
    )
    backend = default
    detail = f"default backend: {default}"
    if default == "auto":
        resolved = _resolved_auto()
        if resolved:
            backend = resolved
            detail += f" (resolves to {resolved})"
    if last:
        used = last.get("backend")
        if default == "auto" and isinstance(used, str) and used:
            backend = used
            if last.get("device") is not None:
                device = last.get("device")
        name = last.get("name")
        if name:
            seconds = last.get("seconds")
            timing = f" in {seconds:.2f} s" if isinstance(seconds, (int, float)) else ""
            hit = " (cache hit)" if last.get("cache_hit") else ""
            detail += f"; last kernel: {name} on {used}{timing}{hit}"
    return {
        "loaded": True,
        "magics": bool(snap.get("loaded", False)),
        "backend": backend,
        "device": _device_label(backend, device),
        "version": version,
        "detail": detail,
    }


class _StatusJSON:
    """A payload that IPython formats as ``application/json`` and JSON text."""

    def __init__(self, payload: dict[str, Any]) -> None:
        self.payload = payload

    def _repr_json_(self) -> dict[str, Any]:
        return self.payload

    def __repr__(self) -> str:
        return json.dumps(self.payload, default=str)


def status_json() -> _StatusJSON:
    """:func:`status_payload`, wrapped for a ``user_expressions`` reply.

    IPython formats the value of a user expression with its display formatter:
    the reply then carries the payload as ``application/json`` and as JSON in
    ``text/plain`` (the frontend reads either).
    """
    try:
        payload = status_payload()
    except Exception as exc:  # noqa: BLE001
        payload = {
            "loaded": "symnb" in sys.modules,
            "backend": "unknown",
            "device": "unknown",
            "detail": f"status unavailable: {exc}",
        }
    return _StatusJSON(payload)
