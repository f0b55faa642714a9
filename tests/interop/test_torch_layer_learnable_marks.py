"""to_torch_layer / MLP.to_torch: only the constants marked learnable become
parameters, feature by feature.

Before: the learnable names of all features were pooled, so a per-neuron layer
[tanh(beta*x) with beta=learnable(1.0), tanh(beta*x) with beta=2.0] gave both betas
to the optimizer: further PyTorch training changed a constant symnb kept fixed."""

from __future__ import annotations

import numpy as np
import pytest

import symnb

torch = pytest.importorskip("torch", reason="needs the torch extra (symnb[torch])")


def _pair():
    mark = symnb.learnable(1.0)
    learned = symnb.Activation("tanh(beta*x)", name="t_learn", beta=mark)
    fixed = symnb.Activation("tanh(beta*x)", name="t_fixed", beta=2.0)
    return learned, fixed


def test_layer_marks_are_per_feature():
    learned, fixed = _pair()
    layer = symnb.to_torch_layer([learned, fixed])
    assert layer.learnable_values.tolist() == [1.0]
    assert layer.fixed_values.tolist() == [2.0]
    x = torch.randn(5, 2)
    layer(x).sum().backward()
    assert layer.learnable_values.grad.shape == (1,)
    # an explicit list still applies to every feature with that constant
    both = symnb.to_torch_layer([learned, fixed], learnable=["beta"])
    assert both.learnable_values.tolist() == [1.0, 2.0]


def test_mlp_to_torch_keeps_fixed_constants_fixed():
    learned, fixed = _pair()
    model = symnb.nn.MLP([2, 2, 1], activation=[[learned, fixed]], backend="numpy")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2)).astype(np.float32)
    model.fit(X, X.sum(1), epochs=3, lr=0.1)
    net = model.to_torch()
    trained = model.learned_constants()[0]["beta"]
    assert net[1].learnable_values.tolist() == pytest.approx([trained])
    assert net[1].fixed_values.tolist() == [2.0]
    out = net(torch.from_numpy(X)).detach().numpy()
    np.testing.assert_allclose(out, model.decision_function(X), atol=1e-6)


def test_per_layer_marks_share_one_parameter_as_in_symnb_layers():
    """symnb.learnable(v) (per="layer") is one value for the whole layer in symnb.nn;
    MLP.to_torch gave each neuron its own copy, which PyTorch training then pulled
    apart. per="neuron" keeps one per feature."""
    learned, fixed = _pair()
    own = symnb.Activation(
        "x*sigmoid(beta*x)", name="s_own", beta=symnb.learnable(0.5, per="neuron")
    )
    acts = [learned, fixed, learned, own, own]
    layer = symnb.to_torch_layer(acts)
    assert layer.learnable_values.tolist() == [1.0, 0.5, 0.5]
    assert [layer.constants(j)["beta"] for j in range(5)] == [1.0, 2.0, 1.0, 0.5, 0.5]
    x = torch.randn(6, 5, dtype=torch.float64)
    layer.double()(x).sum().backward()
    t = torch.tanh(x[:, [0, 2]])
    want = ((1 - t * t) * x[:, [0, 2]]).sum()  # both features feed the one beta
    torch.testing.assert_close(layer.learnable_values.grad[0], want)
    model = symnb.nn.MLP([2, 5, 1], activation=[acts], backend="numpy")
    X = np.random.default_rng(1).normal(size=(20, 2)).astype(np.float32)
    model.fit(X, X.sum(1), epochs=3, lr=0.1)
    net = model.to_torch()
    assert net[1].learnable_values.shape == (3,)
    out = net(torch.from_numpy(X)).detach().numpy()
    np.testing.assert_allclose(out, model.decision_function(X), atol=1e-6)
