"""Locks a forked child gets back unlocked.

A process forked while another of its threads held one of symnb's locks (a kernel
compiling in a background thread, a notebook's training thread) gave the child a
lock held by a thread that does not exist there: its first compile waited forever
(``select._lock`` in ``status``, the cache's lock in ``get_or_build``). As the
``logging`` module does for its handlers, each registered lock is replaced by a
new one in the child (``os.register_at_fork``); the child is single-threaded then,
and what the vanished thread was building it builds again (the disk cache's file
lock and atomic renames keep the parent's half-built entry out of its way).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from typing import Any

_modules: list[tuple[dict, str, Callable[[], Any]]] = []
_instances: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_registry_lock = threading.Lock()


def module_lock(namespace: dict, name: str, factory: Callable[[], Any]) -> Any:
    """``namespace[name] = factory()``, renewed in every forked child; returns it.
    Use as ``_lock = module_lock(globals(), "_lock", threading.RLock)``; the code
    must look the lock up by its global name at each use (``with _lock:``)."""
    lock = namespace[name] = factory()
    with _registry_lock:
        _modules.append((namespace, name, factory))
    return lock


def instance_lock(owner: Any, name: str, factory: Callable[[], Any]) -> Any:
    """``owner.<name> = factory()``, renewed in every forked child while ``owner``
    lives; returns it."""
    lock = factory()
    object.__setattr__(owner, name, lock)
    with _registry_lock:
        _instances.setdefault(owner, {})[name] = factory
    return lock


def _after_fork_in_child() -> None:
    global _registry_lock
    _registry_lock = threading.Lock()
    for namespace, name, factory in _modules:
        namespace[name] = factory()
    for owner, names in list(_instances.items()):
        for name, factory in names.items():
            object.__setattr__(owner, name, factory())


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
