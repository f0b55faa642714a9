"""A constant the formula never reads was accepted without a word:
``Activation("x*sigmoid(x)", beta=2.0)`` computed x*sigmoid(x), and
``Activation("swb(x)", beta=3.0)`` (swb a named activation with its own beta=1.0)
computed swb with beta=1.0, a silent wrong number for whoever meant beta=3. Each
such constant now gives a UserWarning naming it (and the named activation that keeps
its own value); constants read by the formula or by derivative=... warn about
nothing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symnb
from symnb.formula import compose


def test_an_unused_constant_warns_by_name() -> None:
    with pytest.warns(UserWarning, match="does not depend on constant 'beta'"):
        act = symnb.Activation("x*sigmoid(x)", beta=2.0)
    x = np.array([-1.0, 0.0, 2.0], np.float32)
    want = x / (1 + np.exp(-x.astype(np.float64)))
    np.testing.assert_allclose(act.compile(backend="numpy").forward(x), want, rtol=1e-6)


def test_a_constant_shadowed_by_a_named_activation_says_whose_value_counts() -> None:
    symnb.Activation("x*sigmoid(beta*x)", name="swb_unused_test", beta=1.0)
    try:
        with pytest.warns(UserWarning) as caught:
            symnb.Activation("swb_unused_test(x)*2", beta=3.0)
    finally:
        compose.unregister("swb_unused_test")
    messages = [str(w.message) for w in caught]
    assert any(
        "'beta'" in m and "swb_unused_test keeps the beta=1" in m for m in messages
    )


def test_used_constants_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        symnb.Activation("x*sigmoid(beta*x)", beta=2.0)
        symnb.Activation("heaviside(x)", derivative="k*exp(-x**2)", k=1.0)
        symnb.Loss("delta*(y_pred - y_true)**2", delta=0.5)
        for name in symnb.library_activations():
            symnb.activation(name)
