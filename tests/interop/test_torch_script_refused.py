"""``torch.jit.script`` of a symnb module: a clear error naming the routes that work.

TorchScript compiles a module's Python into its own language, which cannot call
symnb's kernels; it failed with PyTorch's "Don't support conversion in JoinedStr"
pointing into symnb's source. Each module now says what it is and names
torch.compile, torch.export and torch.jit.trace; the trace named there works (its
output equals the eager module's).
"""

from __future__ import annotations

import warnings

import pytest

import symnb

torch = pytest.importorskip("torch")


def _modules():
    act = symnb.Activation("x*sigmoid(beta*x)", beta=symnb.learnable(1.5), name="sw_js")
    net = symnb.nn.MLP([3, 4, 2], activation="swish", seed=0)
    return [
        ("activation", act.to_torch(learnable=True)),
        ("layer", symnb.to_torch_layer(["relu", act])),
        ("mlp", net.to_torch()),
    ]


@pytest.mark.parametrize("index", range(3), ids=["activation", "layer", "mlp"])
def test_script_names_the_module_and_the_routes_that_work(index):
    name, module = _modules()[index]
    with pytest.raises(RuntimeError) as info:
        torch.jit.script(module)
    msg = str(info.value)
    assert "torch.jit.script" in msg and "JoinedStr" not in msg
    assert "Torch" in msg  # TorchActivation / TorchLayer
    for route in ("torch.compile", "torch.export", "torch.jit.trace"):
        assert route in msg
    x = torch.randn(5, 2 if name == "layer" else (3 if name == "mlp" else 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TracerWarnings of PyTorch's own
        traced = torch.jit.trace(module, x)
    x2 = torch.randn(*x.shape)
    torch.testing.assert_close(traced(x2), module(x2))
