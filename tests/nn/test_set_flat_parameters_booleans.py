"""``MLP.set_flat_parameters`` took booleans as weights: ``[True] * n`` (or a bool
array, or ``[1.0, ..., True]``) set every parameter to 1.0 without a word, as
``Kernel.params`` did. Both now share ``symnb.checks.check_no_booleans``."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLP


@pytest.fixture
def model():
    return MLP([2, 3, 1], backend="numpy", seed=0)


def _booleans(n: int) -> list:
    return [np.ones(n, bool), [True] * n, [0.5] * (n - 1) + [False]]


@pytest.mark.parametrize("which", range(3))
def test_booleans_are_refused(model, which) -> None:
    before = model.get_flat_parameters()
    values = _booleans(before.size)[which]
    with pytest.raises(
        TypeError, match="values holds booleans.*parameters are numbers"
    ):
        model.set_flat_parameters(values)
    np.testing.assert_array_equal(model.get_flat_parameters(), before)


def test_numbers_are_taken(model) -> None:
    n = model.get_flat_parameters().size
    model.set_flat_parameters([1] * n)
    np.testing.assert_array_equal(model.get_flat_parameters(), np.ones(n))
    model.set_flat_parameters(np.full(n, 0.5, np.float16))
    np.testing.assert_array_equal(model.get_flat_parameters(), np.full(n, 0.5))
