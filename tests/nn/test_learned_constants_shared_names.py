"""MLP.learned_constants when one constant name is learned per layer by some neurons
and per neuron by others.

Before: the per-neuron array overwrote the per-layer value under the same name, so
the shared value (1.0 below) was missing from the report without a word."""

from __future__ import annotations

import numpy as np

import symnb
from symnb.nn import MLP, load


def _model():
    shared = symnb.Activation("tanh(beta*x)", name="t_sh", beta=symnb.learnable(1.0))
    own = symnb.Activation(
        "x*sigmoid(beta*x)", name="s_own", beta=symnb.learnable(0.5, per="neuron")
    )
    fixed = symnb.Activation("tanh(beta*x)", name="t_fix", beta=2.0)
    acts = [shared, fixed, shared, own, own]
    return MLP([2, 5, 1], activation=[acts], backend="numpy")


def test_shared_value_is_reported_at_the_neurons_that_share_it():
    beta = _model().learned_constants()[0]["beta"]
    np.testing.assert_array_equal(beta, [1.0, np.nan, 1.0, 0.5, 0.5])


def test_after_training_and_a_save_load_round_trip(tmp_path):
    model = _model()
    X = np.random.default_rng(0).normal(size=(20, 2)).astype(np.float32)
    model.fit(X, X.sum(1), epochs=3, lr=0.1)
    beta = model.learned_constants()[0]["beta"]
    assert beta[0] == beta[2] and np.isnan(beta[1]) and beta[0] != 1.0
    model.save(tmp_path / "m.npz")
    again = load(tmp_path / "m.npz").learned_constants()[0]["beta"]
    np.testing.assert_array_equal(again, beta)
