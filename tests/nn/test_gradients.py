"""Backpropagated gradients of whole networks against central finite differences
(float64).

Each case builds a small network, takes the analytic gradient of the training loss with
respect to every parameter (weights, biases, learnable constants) from
``MLP.loss_and_gradient`` and compares it with (L(p + h e_i) - L(p - h e_i)) / 2h
computed through ``MLP.evaluate`` (an independent forward-only path).
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import nn
from tests.conftest import backend_params
from tests.nn.gradcheck import finite_differences


def _check(model, X, y, rtol=1e-5, atol=1e-7, **penalties):
    loss, grad = model.loss_and_gradient(X, y, **penalties)
    assert np.isfinite(loss)
    fd = finite_differences(model, X, y, **penalties)
    scale = max(1.0, float(np.max(np.abs(fd))))
    np.testing.assert_allclose(grad, fd, rtol=rtol, atol=atol * scale)


def _data(n=12, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d))


SWISH = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.3)
USER = symnb.Activation("x*tanh(softplus(x)) + a*sin(x)", name="user", a=0.25)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize(
    "activation",
    [
        pytest.param("tanh", id="tanh"),
        pytest.param(SWISH, id="swish-beta"),
        pytest.param(USER, id="user-formula"),
        pytest.param("gelu", id="gelu"),
        pytest.param(
            [[SWISH, "tanh", USER, "sigmoid", "elu"], "softsign"], id="heterogeneous"
        ),
    ],
)
def test_mse_network_gradient(backend, activation):
    X = _data()
    y = np.random.default_rng(1).normal(size=(12, 2))
    model = nn.MLP(
        [3, 5, 4, 2],
        activation=activation,
        loss="mse",
        backend=backend,
        dtype="float64",
        seed=3,
    )
    _check(model, X, y)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize(
    ("sizes", "activation", "loss", "labels", "seed"),
    [
        pytest.param(
            [3, 6, 1],
            SWISH,
            "bce_with_logits",
            lambda X: (X[:, 0] > 0).astype(int),
            1,
            id="bce_with_logits",
        ),
        pytest.param(
            [3, 6, 4],
            [[USER, "tanh"] * 3],
            "cross_entropy",
            lambda X: np.arange(len(X)) % 4,
            2,
            id="softmax-cross-entropy",
        ),
    ],
)
def test_classification_loss_gradient(backend, sizes, activation, loss, labels, seed):
    X = _data(n=15)
    model = nn.MLP(
        sizes,
        activation=activation,
        loss=loss,
        backend=backend,
        dtype="float64",
        seed=seed,
    )
    _check(model, X, labels(X))


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize(
    "loss",
    [
        pytest.param(
            symnb.Loss("log(cosh(y_pred - y_true))", name="logcosh"), id="user-logcosh"
        ),
        pytest.param(symnb.loss("huber", delta=0.3), id="huber"),
        pytest.param(
            symnb.Loss(
                "(y_pred - y_true)**2 * (1 + w*y_true**2)", name="weighted", w=0.5
            ),
            id="user-weighted",
        ),
    ],
)
def test_user_and_library_losses_gradient(backend, loss):
    X = _data()
    y = np.random.default_rng(4).normal(size=12)
    model = nn.MLP(
        [3, 5, 1],
        activation="tanh",
        loss=loss,
        backend=backend,
        dtype="float64",
        seed=5,
    )
    _check(model, X, y)


def test_bce_with_sigmoid_output_gradient():
    X = _data()
    y = (X[:, 1] > 0).astype(int)
    model = nn.MLP(
        [3, 4, 1],
        activation="tanh",
        loss="bce",
        backend="numpy",
        dtype="float64",
        seed=0,
    )
    assert model.layers[-1].activation is not None  # bce implies a sigmoid output
    _check(model, X, y)


@pytest.mark.parametrize("backend", backend_params())
def test_learnable_constants_gradient(backend):
    per_layer = symnb.Activation(
        "x*sigmoid(beta*x)", name="swish_l", beta=symnb.learnable(0.8)
    )
    per_neuron = symnb.Activation(
        "x*sigmoid(beta*x)", name="swish_n", beta=symnb.learnable(1.2, per="neuron")
    )
    mixed = [per_neuron, "tanh", per_neuron, USER]
    X = _data()
    y = np.random.default_rng(2).normal(size=(12, 1))
    model = nn.MLP(
        [3, 4, 4, 1],
        activation=[per_layer, mixed],
        loss="mse",
        backend=backend,
        dtype="float64",
        seed=7,
    )
    assert model.layers[0].constants.size == 1
    assert model.layers[1].constants.size == 2
    _check(model, X, y)


def test_masked_network_gradient_and_penalties():
    X = _data()
    y = np.random.default_rng(3).normal(size=12)
    mask = np.ones((3, 5))
    mask[0, :3] = 0
    model = nn.MLP(
        [3, 5, 1],
        activation="tanh",
        loss="mse",
        backend="numpy",
        dtype="float64",
        seed=1,
        masks=[mask, None],
    )
    _loss, grad = model.loss_and_gradient(X, y)
    w = model.layers[0].weight
    assert np.all(w.numpy()[mask == 0] == 0)
    # gradients of masked weights are zero; the others match finite differences
    g0 = grad[:15].reshape(3, 5)
    assert np.all(g0[mask == 0] == 0)
    fd = finite_differences(model, X, y)
    keep = np.ones_like(grad, dtype=bool)
    keep[:15] = (mask == 1).ravel()
    np.testing.assert_allclose(grad[keep], fd[keep], rtol=1e-5, atol=1e-8)
    # L1/L2 penalties act on weights only (the unmasked ones)
    X2, y2 = _data(seed=5), np.random.default_rng(6).normal(size=12)
    plain = nn.MLP(
        [3, 4, 1],
        activation="tanh",
        loss="mse",
        backend="numpy",
        dtype="float64",
        seed=2,
    )
    _check(plain, X2, y2, l1=0.01, l2=0.1)
