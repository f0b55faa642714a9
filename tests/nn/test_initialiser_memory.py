"""An initialiser called directly with sizes far beyond this machine's memory,
``init.zeros((10**6, 10**6))``, raised NumPy's bare "Unable to allocate 7.28 TiB"
(and sizes that just fit were granted, filled, then killed by the system); now a
MemoryError names the initialiser, the sizes and the fix before allocating."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import init


@pytest.mark.parametrize(
    "fn",
    [init.zeros, init.ones, init.he_normal, init.orthogonal],
    ids=lambda f: f.__name__,
)
def test_sizes_beyond_memory_are_refused_by_name(fn) -> None:
    name = fn.__name__
    with pytest.raises(MemoryError, match=rf"{name}: a 1000000 x 1000000 array"):
        fn((10**6, 10**6), np.random.default_rng(0))


def test_small_sizes_still_give_the_values() -> None:
    np.testing.assert_array_equal(init.ones((2, 3)), np.ones((2, 3)))
