"""Fork while another thread holds a lock, and run work in the child (the probes
of symnb.forksafe)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from typing import Any

#: the child's limit: a lock inherited held made it wait for ever (SIGALRM)
CHILD_SECONDS = 10


def in_child(work: Callable[[], Any]) -> int:
    """Run ``work()`` in a forked child; its exit status (0: it returned a truthy
    value or None; 3: it raised or returned False; else killed, e.g. SIGALRM)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        signal.alarm(CHILD_SECONDS)
        try:
            ok = work()
        except BaseException:  # noqa: BLE001
            os._exit(3)
        os._exit(3 if ok is False else 0)
    _, status = os.waitpid(pid, 0)
    return status


def fork_while_held(lock: Any, work: Callable[[], Any]) -> int:
    """:func:`in_child` while another thread holds ``lock``."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with lock:
            held.set()
            release.wait(30)

    worker = threading.Thread(target=hold)
    worker.start()
    held.wait(30)
    try:
        return in_child(work)
    finally:
        release.set()
        worker.join()
