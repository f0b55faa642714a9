"""``to_jax``'s function called with a constant as a second positional argument.

``f(x, 2.0)`` raised Python's bare "__call__() takes 2 positional arguments but 3
were given", which named neither the function nor its constants. Now a TypeError
names the function, says constants are keywords, and shows the call to write."""

from __future__ import annotations

import numpy as np
import pytest

import symnb

jax = pytest.importorskip("jax", reason="needs the jax extra (symnb[jax])")


def test_a_positional_constant_is_refused_with_the_keyword_call() -> None:
    swish = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.0).to_jax()
    with pytest.raises(TypeError) as info:
        swish(1.0, 2.0)
    message = str(info.value)
    assert "swish takes one positional argument, x, and got 2" in message
    assert "swish(x, beta=2.0)" in message and "its constants: beta" in message
    with pytest.raises(TypeError, match=r"swish_derivative takes one positional"):
        swish.derivative(1.0, 2.0)
    # the keyword call computes x*sigmoid(2x) at x = 1
    assert float(swish(1.0, beta=2.0)) == pytest.approx(1 / (1 + np.exp(-2.0)))


def test_a_formula_without_constants_says_so() -> None:
    f = symnb.Activation("tanh(x)", name="t").to_jax()
    with pytest.raises(TypeError, match=r"its constants: none"):
        f(1.0, 2.0)
