"""torch.func transforms through symnb modules (jvp, jacfwd, jacrev, grad, hessian,
vmap), against composite PyTorch in float64.

Before: torch.func.jvp/jacfwd went through the custom operator, which has no
forward-mode formula, and returned a zero tangent without a word (jacfwd of swish was
the zero matrix); torch.func.grad/jacrev/hessian failed inside PyTorch ("must override
the setup_context staticmethod")."""

from __future__ import annotations

import pytest

import symnb

torch = pytest.importorskip("torch", reason="needs the torch extra (symnb[torch])")
func = torch.func


def _swish(beta=1.3):
    return symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=beta)


def _ref(t, beta=1.3):
    return t * torch.sigmoid(beta * t)


X = torch.tensor([-2.5, -0.7, 0.0, 0.3, 1.9], dtype=torch.float64)


def test_jvp_and_jacfwd_give_the_derivative_not_zeros():
    module = _swish().to_torch()
    y, t = func.jvp(module, (X,), (torch.ones_like(X),))
    y_ref, t_ref = func.jvp(_ref, (X,), (torch.ones_like(X),))
    torch.testing.assert_close(y, y_ref)
    torch.testing.assert_close(t, t_ref)
    torch.testing.assert_close(func.jacfwd(module)(X), func.jacfwd(_ref)(X))


def test_jacrev_grad_and_hessian():
    module = _swish().to_torch()
    torch.testing.assert_close(func.jacrev(module)(X), func.jacrev(_ref)(X))
    torch.testing.assert_close(
        func.grad(lambda t: module(t).sum())(X), func.grad(lambda t: _ref(t).sum())(X)
    )
    want = func.hessian(lambda t: _ref(t).sum())(X)
    torch.testing.assert_close(func.hessian(lambda t: module(t).sum())(X), want)
    torch.testing.assert_close(
        func.jacrev(func.jacrev(lambda t: module(t).sum()))(X), want
    )


def test_derivatives_with_respect_to_learnable_constants():
    module = _swish().to_torch(learnable=True).double()
    params = dict(module.named_parameters())

    def run(p):
        return func.functional_call(module, p, (X,))

    beta = torch.tensor(1.3, dtype=torch.float64)
    g = func.grad(lambda p: run(p).sum())(params)["constants.beta"]
    torch.testing.assert_close(g, func.grad(lambda b: _ref(X, b).sum())(beta))
    j = func.jacfwd(run)(params)["constants.beta"]
    torch.testing.assert_close(j, func.jacfwd(lambda b: _ref(X, b))(beta))
    betas = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)
    y = func.vmap(lambda b: func.functional_call(module, {"constants.beta": b}, (X,)))(
        betas
    )
    torch.testing.assert_close(y, torch.stack([_ref(X, b) for b in betas]))


def test_heterogeneous_layer_under_transforms():
    layer = symnb.to_torch_layer([_swish(), "tanh", "relu"], dim=1).double()
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, 4, dtype=torch.float64, generator=gen)

    def ref(t):
        return torch.stack([_ref(t[:, 0]), torch.tanh(t[:, 1]), torch.relu(t[:, 2])], 1)

    torch.testing.assert_close(func.jacfwd(layer)(x), func.jacfwd(ref)(x))
    torch.testing.assert_close(func.jacrev(layer)(x), func.jacrev(ref)(x))
    want = func.hessian(lambda t: ref(t).sum())(x)
    torch.testing.assert_close(func.hessian(lambda t: layer(t).sum())(x), want)
    torch.testing.assert_close(
        func.vmap(layer, in_dims=2)(x.unsqueeze(2)), ref(x).unsqueeze(0)
    )


def test_forward_over_forward_is_refused_not_zeros():
    """PyTorch does not differentiate a custom Function's jvp rule again (the outer
    tangent came back as zeros, also for Functions of plain torch ops): refused with the
    way out."""
    module = _swish().to_torch()
    with pytest.raises(RuntimeError, match="forward mode over forward mode.*jacrev"):
        func.jacfwd(func.jacfwd(lambda t: module(t).sum()))(X)


def test_eager_forward_mode_dual_numbers():
    """torch.autograd.forward_ad: NotImplementedError ("You must implement the jvp
    function") before."""
    fw = torch.autograd.forward_ad
    module = _swish().to_torch()
    layer = symnb.to_torch_layer([_swish(), "tanh"])
    x2 = torch.stack([X, X + 0.5], 1)
    with fw.dual_level():
        t = fw.unpack_dual(module(fw.make_dual(X, torch.ones_like(X)))).tangent
        t2 = fw.unpack_dual(layer(fw.make_dual(x2, torch.ones_like(x2)))).tangent
    torch.testing.assert_close(t, func.jacfwd(_ref)(X).diagonal())
    torch.testing.assert_close(t2[:, 0], t)
    torch.testing.assert_close(t2[:, 1], 1 - torch.tanh(X + 0.5) ** 2)


def test_transforms_inside_torch_compile_run_eagerly():
    """Traced by dynamo, jacfwd through the module gave zeros without a word and
    jacrev failed in fake tensors; the transformed call now runs eagerly (a graph
    break; with fullgraph=True, dynamo's error names the reason)."""
    module = _swish().to_torch()
    x = X.float()
    torch._dynamo.reset()
    jf = torch.compile(lambda t: func.jacfwd(module)(t))(x)
    torch.testing.assert_close(jf, func.jacfwd(_ref)(x))
    jr = torch.compile(lambda t: func.jacrev(module)(t))(x)
    torch.testing.assert_close(jr, func.jacrev(_ref)(x))
    torch._dynamo.reset()
    with pytest.raises(Exception, match="torch.func transforms"):
        torch.compile(lambda t: func.jacfwd(module)(t), fullgraph=True)(x)
