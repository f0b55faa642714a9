"""``write_params`` with a position given twice kept the last value without a word
(``positions=[0, 0]`` with values ``[2, 3]`` wrote 3): it is a ValueError naming the
position, and nothing is written (fifteenth boundary probe)."""

from __future__ import annotations

import numpy as np
import pytest

import symnb


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_a_position_given_twice_is_refused(backend):
    kernel = symnb.Activation("a*x + b", a=1.0, b=0.5).compile(backend=backend)
    with pytest.raises(ValueError, match="positions holds 0 more than once"):
        kernel.write_params([2.0, 3.0], positions=[0, 0])
    np.testing.assert_array_equal(kernel.params, np.float32([1.0, 0.5]))
    x = np.float32([-1.0, 2.0])
    np.testing.assert_allclose(kernel.forward(x), 1.0 * x + 0.5)
    kernel.write_params([2.0, 3.0], positions=[1, 0])  # distinct positions still write
    np.testing.assert_allclose(kernel.forward(x), 3.0 * x + 2.0)
