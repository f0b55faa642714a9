"""Refuse, before allocating, what cannot fit this machine's memory.

A request far beyond physical memory (``MLP([2, 10**9, 1])``, ``two_moons(10**9)``)
is not refused by NumPy on Linux, which overcommits: the pages are granted, filled,
and the system then kills the process, and a notebook loses its kernel and its work.
Callers estimate their peak and call :func:`check_fits` first.
"""

from __future__ import annotations

import os


def physical_memory() -> int | None:
    """This machine's physical memory in bytes, or None where the platform won't say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def check_fits(need: int, what: str, fix: str) -> None:
    """MemoryError naming ``what``, its estimated ``need`` and the machine's memory
    when ``need`` bytes exceed it; ``fix`` says what to change."""
    have = physical_memory()
    if have is not None and need > have:
        raise MemoryError(
            f"{what} needs about {need / 2**30:.3g} GiB; this machine has "
            f"{have / 2**30:.3g} GiB. {fix}"
        )
