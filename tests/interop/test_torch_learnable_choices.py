"""``to_torch(learnable=...)`` where there is nothing, or something twice, to learn.

``relu.to_torch(learnable=True)`` returned a module without parameters and without a
word: ``torch.optim.SGD(module.parameters())`` then failed with "optimizer got an
empty parameter list", far from the cause. Now it warns (UserWarning, pointed at the
caller's line) naming the activation and its formula and saying there is nothing to
learn; ``to_torch_layer`` does the same when no feature has a constant. Decided:
``learnable=[]`` is an explicit choice of no constant (as ``False``: no warning);
a name listed twice is refused (``ValueError`` naming it), being most likely a slip
for another constant."""

from __future__ import annotations

import warnings

import pytest

import symnb

torch = pytest.importorskip("torch", reason="needs the torch extra (symnb[torch])")

SWISH = "x*sigmoid(beta*x)"


def test_learnable_true_without_constants_warns_at_the_callers_line() -> None:
    relu = symnb.activation("relu")
    with pytest.warns(
        UserWarning,
        match=r"activation 'relu' \('max\(0, x\)'\) has no "
        r"constants: there is nothing to learn",
    ) as caught:
        module = relu.to_torch(learnable=True, backend="numpy")
    assert list(module.parameters()) == []
    assert caught[0].filename == __file__  # the user's line, not symnb's


def test_the_interop_function_warns_at_the_callers_line_too() -> None:
    from symnb.interop.torch import to_torch

    with pytest.warns(UserWarning, match="nothing to learn") as caught:
        to_torch(symnb.Activation("tanh(x)"), learnable=True, backend="numpy")
    assert caught[0].filename == __file__


def test_a_layer_without_any_constant_warns() -> None:
    with pytest.warns(
        UserWarning, match=r"the layer of 2 activations has no constants"
    ):
        layer = symnb.to_torch_layer(["relu", "tanh"], learnable=True, backend="numpy")
    assert sum(p.numel() for p in layer.parameters()) == 0


def test_a_layer_with_some_constants_does_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        layer = symnb.to_torch_layer(
            ["relu", symnb.Activation(SWISH, beta=1.0)], learnable=True, backend="numpy"
        )
    assert sum(p.numel() for p in layer.parameters()) == 1


@pytest.mark.parametrize("learnable", [[], (), False])
def test_an_empty_list_learns_nothing_without_a_warning(learnable) -> None:
    act = symnb.Activation(SWISH, beta=1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module = act.to_torch(learnable=learnable, backend="numpy")
    assert list(module.parameters()) == []
    assert float(module.constants.beta) == 1.5  # kept as a buffer


@pytest.mark.parametrize("learnable", [["beta", "beta"], ("beta", "gamma", "beta")])
def test_a_name_listed_twice_is_refused(learnable) -> None:
    act = symnb.Activation("x*sigmoid(beta*x) + gamma", beta=1.0, gamma=0.0)
    with pytest.raises(
        ValueError,
        match=r"learnable lists 'beta' more than once.*"
        r"constants of activation 'f' are: beta, gamma",
    ):
        act.to_torch(learnable=learnable, backend="numpy")


def test_a_name_listed_once_is_learned() -> None:
    act = symnb.Activation("x*sigmoid(beta*x) + gamma", beta=1.0, gamma=0.0)
    module = act.to_torch(learnable=["gamma"], backend="numpy")
    assert [n for n, _ in module.named_parameters()] == ["constants.gamma"]
    x = torch.tensor([0.5, -1.0], dtype=torch.float64)
    module(x).sum().backward()
    assert float(module.constants.gamma.grad) == 2.0  # d/dgamma sums 1 per element


def test_a_generator_of_names_is_shown_as_its_names() -> None:
    act = symnb.Activation(SWISH, beta=1.0)
    with pytest.raises(ValueError, match=r"\(\['beta', 'beta'\]\)"):
        act.to_torch(learnable=(n for n in ["beta", "beta"]), backend="numpy")
