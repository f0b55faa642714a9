"""Backend names are taken in any case by every face, as compile and MLP take them.

Before, ``compile(backend='CPP')`` and ``MLP(..., backend=' CPP ')`` used the cpp
backend while ``to_torch(backend='CPP')``, ``to_torch_layer(..., backend='NumPy')`` and
``symnb.nn.load(path, backend='CPP')`` refused the same names ("backend must be one of
('auto', 'cpp', 'numpy', 'cuda'), got 'CPP'"). Expected: the backend compile would
use; names that are no backend are refused the same way everywhere.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import nn

torch = pytest.importorskip("torch")

NAMES = {
    "upper": ("CPP", "cpp"),
    "mixed": ("NumPy", "numpy"),
    "spaces": (" auto ", "auto"),
}


@pytest.mark.parametrize("case", list(NAMES))
def test_torch_faces_take_the_names_compile_takes(case):
    given, name = NAMES[case]
    x = torch.linspace(-2, 2, 9)
    module = symnb.activation("tanh").to_torch(backend=given)
    assert module.backend == name
    torch.testing.assert_close(module(x), torch.tanh(x))
    layer = symnb.to_torch_layer(["relu", "tanh"], backend=given)
    assert layer.backend == name
    xy = torch.stack([x, x], dim=1)
    torch.testing.assert_close(
        layer(xy), torch.stack([torch.relu(x), torch.tanh(x)], 1)
    )


@pytest.mark.parametrize("case", list(NAMES))
def test_load_takes_the_names_mlp_takes(case, tmp_path):
    given = NAMES[case][0]
    model = nn.MLP([2, 3, 1], backend="numpy")
    path = tmp_path / "model.npz"
    model.save(path)
    back = nn.load(path, backend=given)
    assert back.backend == nn.MLP([2, 3, 1], backend=given).backend
    X = np.random.default_rng(0).normal(size=(5, 2))
    np.testing.assert_allclose(back.predict(X), model.predict(X), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("bad", ["tpu", "", "c pp"])
def test_names_that_are_no_backend_are_refused_alike(bad, tmp_path):
    act = symnb.activation("tanh")
    path = tmp_path / "model.npz"
    nn.MLP([2, 3, 1], backend="numpy").save(path)
    for call in (
        lambda: act.to_torch(backend=bad),
        lambda: symnb.to_torch_layer(["relu"], backend=bad),
        lambda: nn.load(path, backend=bad),
    ):
        with pytest.raises(
            ValueError, match=r"unknown backend .*must be one of 'auto'"
        ):
            call()
    with pytest.raises(TypeError, match="backend must be a string"):
        act.to_torch(backend=3)
