"""compile_layer, to_torch_layer and MLP read an activation spec by one rule
(:func:`symnb.formula.formula.as_activation`): library name, formula text in x, or an
Activation; anything else is an error that names the neuron."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError


def _ref(x: np.ndarray) -> np.ndarray:
    """float64 references: column 0 is x*sigmoid(x), column 1 relu, column 2 tanh(2x)."""
    return np.stack(
        [
            x[:, 0] / (1 + np.exp(-x[:, 0])),
            np.maximum(x[:, 1], 0),
            np.tanh(2 * x[:, 2]),
        ],
        axis=1,
    )


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_compile_layer_takes_formula_text(backend):
    x = np.random.default_rng(0).normal(size=(64, 3)) * 4
    layer = symnb.compile_layer(
        ["x*sigmoid(x)", "relu", " tanh(2*x) "], backend=backend, dtype="float64"
    )
    np.testing.assert_allclose(layer.forward(x), _ref(x), rtol=1e-13, atol=1e-300)
    # the derivative of the text column is the formula's: sigmoid(x)(1 + x(1 - sigmoid(x)))
    s = 1 / (1 + np.exp(-x[:, 0]))
    _, dy = layer.forward_with_derivative(x)
    np.testing.assert_allclose(dy[:, 0], s * (1 + x[:, 0] * (1 - s)), rtol=1e-12)


def test_to_torch_layer_takes_formula_text():
    torch = pytest.importorskip("torch", reason="the torch extra is not installed")
    x = torch.randn(32, 3, dtype=torch.float64) * 4
    m = symnb.to_torch_layer(["x*sigmoid(x)", "relu", "tanh(2*x)"])
    np.testing.assert_allclose(m(x).detach().numpy(), _ref(x.numpy()), rtol=1e-13)


@pytest.mark.parametrize(
    "spec, error, match",
    [
        (
            ["relu", "sigmod"],
            FormulaError,
            r"neuron 1: unknown activation 'sigmod': did you mean 'sigmoid'",
        ),
        (
            ["relu", 3],
            TypeError,
            r"neuron 1: expected a symnb.Activation, a library name, a formula text",
        ),
        (
            ["beta"],
            FormulaError,
            r"neuron 0: unknown activation 'beta'.*formula text in x",
        ),
        (["x*sigmoid(beta*x)"], FormulaError, r"beta"),
    ],
)
def test_compile_layer_bad_spec_names_the_neuron(spec, error, match):
    with pytest.raises(error, match=match):
        symnb.compile_layer(spec, backend="numpy")


def test_mlp_formula_text_is_the_activation():
    x = np.random.default_rng(1).normal(size=(16, 2))
    net = symnb.nn.MLP(
        [2, 3, 1], activation="x*sigmoid(x)", seed=0, backend="numpy", dtype="float64"
    )
    (w1, b1), (w2, b2) = [(l.weight.data, l.bias.data) for l in net.layers]
    z = x @ w1 + b1
    ref = ((z / (1 + np.exp(-z))) @ w2 + b2)[:, 0]
    np.testing.assert_allclose(net.predict(x), ref, rtol=1e-12)


@pytest.mark.parametrize(
    ("build", "where"),
    [
        (
            lambda: symnb.compile_layer(["relu", "x*k"], backend="numpy"),
            "neuron 1: ",
        ),
        (
            lambda: symnb.to_torch_layer(["relu", "relu", "x*k"], backend="numpy"),
            "feature 2: ",
        ),
        (
            lambda: symnb.nn.MLP([2, 2, 1], activation=[["relu", "x*k"]]),
            "hidden 0 layer, neuron 1: ",
        ),
        (
            lambda: symnb.nn.MLP([2, 3, 3, 1], activation=["relu", "x*k"]),
            "hidden 1 layer: ",
        ),
        (
            lambda: symnb.nn.compare(
                {"plain": "relu", "mine": "x*k"}, "xor", seeds=(0,), progress=False
            ),
            "activation 'mine': ",
        ),
    ],
    ids=["compile_layer", "to_torch_layer", "mlp_neuron", "mlp_layer", "compare"],
)
def test_a_bad_formula_text_among_many_is_located(build, where):
    """A formula text with an error among a layer's, a network's or a comparison's
    activations said only "unknown symbol 'k' (line 1, column 3)": with a hundred
    neurons, which one? Library names were already named ("neuron 0: unknown
    activation 'relux'"); formula texts now are too."""
    if where.startswith("feature"):
        pytest.importorskip("torch")
    with pytest.raises(FormulaError) as info:
        build()
    message = str(info.value)
    assert message.startswith(f"{where}unknown symbol 'k' (line 1, column 3)")
    assert "hint: declare it as a constant" in message
