"""``module.beta = 2.0`` on a ``TorchActivation`` made a plain attribute that the
kernel never reads: the output kept beta=1 without a word. It is now an
AttributeError saying where the constants live and how to set one."""

from __future__ import annotations

import copy
import pickle

import pytest

torch = pytest.importorskip("torch")

import symnb


@pytest.fixture
def swish():
    return symnb.Activation("x*sigmoid(beta*x)", name="sw", beta=1.0).to_torch(
        backend="numpy"
    )


def test_assigning_a_constant_as_an_attribute_is_refused(swish) -> None:
    with pytest.raises(AttributeError) as info:
        swish.beta = 2.0
    message = str(info.value)
    assert "'beta' is a constant of activation 'sw'" in message
    assert "module.constants.beta.fill_(value)" in message
    assert "beta" not in swish.__dict__


def test_the_way_the_message_gives_reaches_the_kernel(swish) -> None:
    with torch.no_grad():
        swish.constants.beta.fill_(2.0)
    x = torch.tensor([-1.5, 0.5, 3.0], dtype=torch.float64)
    expected = x * torch.sigmoid(2.0 * x)
    torch.testing.assert_close(swish(x), expected, rtol=1e-12, atol=1e-12)


def test_other_attributes_and_copies_still_work(swish) -> None:
    swish.note = "kept"  # any other attribute, as on every nn.Module
    swish.train(False)
    x = torch.tensor([0.25, -2.0])
    for clone in (copy.deepcopy(swish), pickle.loads(pickle.dumps(swish))):
        torch.testing.assert_close(clone(x), swish(x))


def test_constants_named_like_module_attributes() -> None:
    act = symnb.Activation("x*handle + backend", handle=2.0, backend=0.5)
    module = act.to_torch(backend="numpy")
    x = torch.tensor([1.0, -3.0], dtype=torch.float64)
    torch.testing.assert_close(module(x), 2.0 * x + 0.5)
    again = pickle.loads(pickle.dumps(module))
    torch.testing.assert_close(again(x), 2.0 * x + 0.5)
