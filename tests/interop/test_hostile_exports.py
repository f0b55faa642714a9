"""``MLP.to_torch()``'s module with hostile inputs (a hostile-input probe,
2026-12-06). Before the fix it was a plain ``nn.Sequential`` and PyTorch answered from
inside its first ``nn.Linear``: "mat1 and mat2 shapes cannot be multiplied (4x3 and
2x3)" for the wrong feature count, "mat1 and mat2 must have the same dtype, but got
Double and Float" for a float64 or int batch, "linear(): argument 'input' (position
1) must be Tensor, not numpy.ndarray", "both arguments to linear need to be at least
1D" for a 0-d tensor: none named x or the fix."""

from __future__ import annotations

import copy
import io

import numpy as np
import pytest

import symnb

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def model():
    return symnb.nn.MLP([2, 5, 1], activation="tanh", seed=3)


@pytest.fixture(scope="module")
def net(model):
    return model.to_torch()


@pytest.mark.parametrize(
    ("x", "error", "words"),
    [
        (lambda: torch.ones(4, 3), ValueError, "takes 2 input feature(s)"),
        (
            lambda: torch.ones(4, 2, dtype=torch.float64),
            TypeError,
            "x.to(torch.float32)",
        ),
        (lambda: torch.ones(4, 2, dtype=torch.int64), TypeError, "x.to(torch.float32)"),
        (lambda: np.ones((4, 2)), TypeError, "torch.as_tensor(x"),
        (lambda: [[1.0, 2.0]], TypeError, "torch.as_tensor(x"),
        (lambda: torch.tensor(1.0), ValueError, "0-d tensor"),
    ],
    ids=["features", "float64", "int64", "ndarray", "list", "0-d"],
)
def test_a_wrong_x_is_named_with_the_fix(net, x, error, words) -> None:
    with pytest.raises(error) as info:
        net(x())
    message = str(info.value)
    assert "MLP's torch module" in message and "x" in message
    assert words in message
    assert "mat1" not in message and "linear()" not in message


def test_right_inputs_match_the_model_in_any_batch_shape(model, net) -> None:
    X = np.random.default_rng(0).normal(size=(6, 2)).astype(np.float32)
    want = np.asarray(model(X), dtype=np.float64)
    got = net(torch.from_numpy(X)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # one sample as a 1-d x, a stack as 3-d, and an empty batch: as nn.Linear takes them
    one = net(torch.from_numpy(X[0])).detach().numpy()
    np.testing.assert_allclose(one, want[0], rtol=1e-5, atol=1e-6)
    stacked = net(torch.from_numpy(X.reshape(2, 3, 2))).detach().numpy()
    np.testing.assert_allclose(stacked.reshape(6, 1), want, rtol=1e-5, atol=1e-6)
    assert net(torch.ones(0, 2)).shape == (0, 1)


def test_a_converted_module_takes_its_new_dtype(model) -> None:
    X = np.random.default_rng(1).normal(size=(5, 2))
    net64 = model.to_torch().to(torch.float64)
    got = net64(torch.from_numpy(X)).detach().numpy()
    np.testing.assert_allclose(got, model(X.astype(np.float32)), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match=r"x\.to\(torch\.float64\)"):
        net64(torch.ones(1, 2))


def test_the_module_still_saves_copies_and_traces(net) -> None:
    x = torch.randn(3, 2)
    buffer = io.BytesIO()
    torch.save(net, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=False)
    torch.testing.assert_close(loaded(x), net(x))
    torch.testing.assert_close(copy.deepcopy(net)(x), net(x))
    assert isinstance(net, torch.nn.Sequential)
