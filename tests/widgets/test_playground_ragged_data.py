"""Playground(data=(X, y)) with ragged rows raised NumPy's bare "setting an array
element with a sequence ... inhomogeneous shape", naming neither data= nor X; now
a ValueError names the argument and what it must be."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.widgets import Playground
from symnb.widgets.data_source import DataSource


@pytest.mark.parametrize(
    ("X", "y", "name"),
    [
        ([[1.0, 2.0], [3.0]] * 3, [0, 1] * 3, "X"),
        (np.ones((6, 2)), [[0], [1, 1], [0], [1], [0], [1]], "y"),
    ],
)
def test_ragged_rows_name_the_argument(X, y, name) -> None:
    with pytest.raises(ValueError, match=rf"data=\(X, y\)\): {name} must be an array"):
        DataSource.from_arrays(X, y)


def test_the_playground_says_the_same(fake_nn) -> None:
    with pytest.raises(ValueError, match=r"X must be an array of numbers with rows"):
        Playground(data=([[1.0, 2.0], [3.0], [4.0, 5.0], [6.0, 7.0]], [0, 1, 0, 1]))
