"""An activation module's eager graph: one node for the activation, its constants'
gradients straight into their parameters (no ``torch.stack`` node, whose forward and
backward cost about as much as the kernels on a small tensor), and the constants of
the forward pass used by backward, also when the gradient is differentiated again."""

from __future__ import annotations

import pytest

import symnb

torch = pytest.importorskip("torch")

ACT = symnb.Activation("x*sigmoid(beta*x) + a*x**2", name="swa", beta=1.3, a=0.2)


def _graph_names(y):
    seen, todo = [], [y.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None:
            continue
        seen.append(type(fn).__name__)
        todo += [nxt for nxt, _ in fn.next_functions]
    return seen


def test_no_stack_node_between_the_activation_and_its_parameters():
    module = ACT.to_torch(learnable=True).double()
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    names = _graph_names(module(x))
    assert not any("Stack" in n for n in names), names
    assert names.count("AccumulateGrad") == 3  # x, beta, a


def _reference(x, beta, a):
    return x * torch.sigmoid(beta * x) + a * x**2


@pytest.mark.parametrize("create_graph", [False, True])
def test_backward_uses_the_forward_pass_constants(create_graph):
    """An optimiser step between forward and backward (in place) does not change
    this graph's gradients: first and second derivatives against composite PyTorch
    at the forward pass's constants."""
    module = ACT.to_torch(learnable=["beta"]).double()
    beta = module.constants.beta
    x = torch.randn(6, dtype=torch.float64, requires_grad=True)
    y = module(x)
    with torch.no_grad():
        beta.add_(0.5)
    gx, gb = torch.autograd.grad(y.sum(), (x, beta), create_graph=create_graph)

    xr = x.detach().requires_grad_()
    br = torch.tensor(1.3, dtype=torch.float64, requires_grad=True)
    gxr, gbr = torch.autograd.grad(
        _reference(xr, br, 0.2).sum(), (xr, br), create_graph=create_graph
    )
    torch.testing.assert_close(gx, gxr, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(gb, gbr, rtol=1e-12, atol=1e-12)
    if create_graph:  # d/dx and d/dbeta of (sum gx + gb), as composite ops give
        h = torch.autograd.grad(gx.sum() + gb, (x, beta))
        hr = torch.autograd.grad(gxr.sum() + gbr, (xr, br))
        for got, want in zip(h, hr):
            torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-12)


def test_fixed_constants_get_no_gradient_and_learnable_ones_do():
    module = ACT.to_torch(learnable=["a"]).double()
    x = torch.randn(5, dtype=torch.float64)  # x needs no gradient
    module(x).sum().backward()
    assert module.constants.beta.grad is None
    torch.testing.assert_close(module.constants.a.grad, (x**2).sum())
