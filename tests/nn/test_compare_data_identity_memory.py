"""compare's data set identity (the store key of a run's data) hashed a whole copy of
each array and then its bytes: twice the data set's memory at once, and a zero-stride
view (np.broadcast_to, a few bytes) became its full size twice. It now hashes row
blocks, with the same digest as before (stores keep finding their runs)."""

from __future__ import annotations

import hashlib
import tracemalloc

import numpy as np
import pytest

from symnb.nn.compare import _data_identity


def _whole_copy_digest(arrays) -> dict[str, str]:
    """The digest as it was computed before: sha256 over each array's dtype, shape
    and C-order bytes."""
    digest = hashlib.sha256()
    X, y, val = arrays
    for a in (X, y, *(val or ())):
        a = np.ascontiguousarray(a)
        digest.update(f"{a.dtype.str}{a.shape}".encode())
        digest.update(a.tobytes())
    return {"sha256": digest.hexdigest()}


rng = np.random.default_rng(0)
CASES = {
    "plain": (rng.random((1000, 3)), rng.integers(0, 2, 1000), None),
    "strided, with validation": (
        rng.random((200_000, 6))[::-1, ::2],
        np.arange(200_000) % 3,
        (rng.random((7, 3)), np.arange(7)),
    ),
    "fortran, 0-d y": (np.asfortranarray(rng.random((50, 4))), np.float64(3), None),
    "empty": (np.zeros((0, 2)), np.zeros(0), None),
    "broadcast": (np.broadcast_to(1.0, (300_000, 2)), np.zeros((300_000, 1)), None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_digest_is_unchanged(name) -> None:
    arrays = CASES[name]
    assert _data_identity(None, arrays) == _whole_copy_digest(arrays)


def test_a_broadcast_view_is_hashed_in_little_memory() -> None:
    X = np.broadcast_to(np.float64(0.5), (10**7, 2))  # 160 MB when copied
    y = np.broadcast_to(np.int64(1), (10**7,))
    tracemalloc.start()
    try:
        _data_identity(None, (X, y, None))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20
