"""Eighteenth boundary probe of the core API (helper h123).

A process forked while another of its threads holds one of symnb's locks (a
compile in a background thread) must not hang in the child.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from symnb.backends import select
from symnb.backends.cache import KernelCache
from tests.fork_helpers import fork_while_held, in_child

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def test_fork_while_a_thread_builds_a_cache_entry(tmp_path):
    """Use: a thread building a cache entry (a g++ compile) while the main thread
    forks (multiprocessing's fork start method); the child then compiles. Before:
    the child waited for ever on the cache's lock (SIGALRM after 10 s); after:
    it builds its own entry."""
    cache = KernelCache(tmp_path / "cache")
    started, release = threading.Event(), threading.Event()

    def slow(tmp):
        started.set()
        release.wait(30)
        tmp.write_bytes(b"parent")

    stamp = str(time.time_ns())
    worker = threading.Thread(
        target=cache.get_or_build, args=({"parent": stamp}, ".bin", slow)
    )
    worker.start()
    started.wait(30)
    try:
        status = in_child(
            lambda: cache.get_or_build(
                {"child": stamp}, ".bin", lambda tmp: tmp.write_bytes(b"child")
            )
        )
    finally:
        release.set()
        worker.join()
    assert status == 0


def test_fork_while_a_thread_holds_the_backend_selection_lock():
    """The same for the lock a compile holds while it picks its backend
    (``select.status``, where a cpp compile's forked child hung)."""
    assert fork_while_held(select._lock, lambda: select.status("numpy")) == 0


@pytest.mark.parametrize(
    "make", [np.random.default_rng, np.random.RandomState, np.random.SeedSequence]
)
def test_a_numpy_generator_as_seed_names_the_fix(make):
    """Use: MLP(..., seed=np.random.default_rng(0)). Before: "seed must be a
    non-negative integer or None, got Generator(PCG64) at 0x..." with no way
    forward; after: the message says to draw an integer from it."""
    from symnb.nn import MLP

    with pytest.raises(TypeError, match=r"seed=int\(rng\.integers"):
        MLP([2, 3, 1], "tanh", backend="numpy", seed=make(0))
