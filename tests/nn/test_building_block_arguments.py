"""The exported building blocks of ``symnb.nn`` took arguments that failed far
from the call or silently: ``LayerActivation('relu')`` and
``LayerActivation(['relu'])`` raised "'str' object has no attribute 'constants'"
from inside; ``ElementwiseLoss(3)`` and ``ElementwiseLoss(loss, task='nope')``
were accepted (failing at the first compile or step), ``logits='no'`` was
truthy; ``SoftmaxCrossEntropy(label_smoothing='0.1')`` raised "'<=' not supported
between instances of 'int' and 'str'". Each is now checked when built;
LayerActivation reads names and formula texts as compile_layer does."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.nn import ElementwiseLoss, LayerActivation, SoftmaxCrossEntropy


@pytest.mark.parametrize(
    ("activations", "error", "match"),
    [
        ("relu", TypeError, "LayerActivation expects a list"),
        ([None], TypeError, "neuron 0: expected a symnb.Activation"),
        (["relux"], symnb.FormulaError, "neuron 0: unknown activation 'relux'"),
    ],
)
def test_layer_activation_refuses(activations, error, match) -> None:
    with pytest.raises(error, match=match):
        LayerActivation(activations, backend="numpy")


def test_layer_activation_reads_names_and_texts() -> None:
    layer = LayerActivation(["relu", "x*sigmoid(x)", "relu"], backend="numpy")
    assert [a.name for a in layer.activations] == ["relu", "x*sigmoid(x)", "relu"]
    x = np.array([[-1.0, 1.0, 2.0]], dtype=np.float32)
    y = layer.kernel.forward(x)
    np.testing.assert_allclose(y, [[0.0, 1 / (1 + np.exp(-1.0)), 2.0]], rtol=1e-6)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((3,), TypeError, "ElementwiseLoss takes a symnb.Loss"),
        (("mse",), TypeError, "ElementwiseLoss takes a symnb.Loss"),
        ((symnb.loss("mse"), "nope"), ValueError, "task must be 'regression' or"),
        ((symnb.loss("mse"), "binary", "no"), TypeError, "logits must be True or"),
    ],
)
def test_elementwise_loss_refuses(args, error, match) -> None:
    with pytest.raises(error, match=match):
        ElementwiseLoss(*args)


@pytest.mark.parametrize(
    ("value", "error"), [("0.1", TypeError), (True, TypeError), (1.0, ValueError)]
)
def test_label_smoothing_is_checked(value, error) -> None:
    with pytest.raises(error, match="label_smoothing must be"):
        SoftmaxCrossEntropy(label_smoothing=value)


def test_good_building_blocks_train() -> None:
    X = np.random.RandomState(0).randn(30, 2)
    y = (X[:, 0] > 0).astype(float)
    loss = ElementwiseLoss(symnb.loss("bce_with_logits"), task="binary")
    model = symnb.nn.MLP([2, 3, 1], backend="numpy", loss=loss)
    assert len(model.fit(X, y, epochs=2)) == 2
    assert SoftmaxCrossEntropy(np.float32(0.1)).label_smoothing == pytest.approx(0.1)


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_constant_gradient_without_learnable_constants_writes_nothing(backend) -> None:
    # raised AttributeError: '_gather' (a layer of fixed constants has no entries)
    layer = LayerActivation(
        [symnb.Activation("x*sigmoid(b*x)", b=1.5), "relu"], backend=backend
    )
    assert layer.n_learnable == 0
    z = np.array([[-1.0, 2.0], [0.5, -3.0]], dtype=np.float32)
    out = np.zeros(0)
    layer.constant_gradient(z, np.ones_like(z), out)
    assert out.shape == (0,)


@pytest.mark.parametrize(
    "build",
    [
        lambda loss: symnb.nn.MLP([1, 3, 1], loss=loss, backend="numpy"),
        lambda loss: ElementwiseLoss(loss),
    ],
    ids=["mlp", "elementwise_loss"],
)
def test_a_loss_with_learnable_constants_is_refused(build) -> None:
    """Loss('w*(y_pred - y_true)**2', w=learnable(2.0)) trained with w fixed at 2.0
    and learned_constants() without it: the mark was dropped without a word."""
    loss = symnb.Loss("w*(y_pred - y_true)**2", w=symnb.learnable(2.0))
    with pytest.raises(ValueError) as info:
        build(loss)
    message = str(info.value)
    assert "marks w learnable" in message and "e.g. w=2.0" in message
    fixed = symnb.Loss("w*(y_pred - y_true)**2", w=2.0)
    assert build(fixed) is not None
