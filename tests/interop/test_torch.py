"""symnb activations as PyTorch modules: values and gradients against composite PyTorch
and symnb's own kernels, float64 gradcheck, memory sharing, saved tensors, state_dict,
learning a constant, MLP.to_torch, torch.compile, and the errors."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

import symnb

torch = pytest.importorskip("torch")
F = torch.nn.functional

from symnb.interop import torch as ti

CUDA_REASON = "no CUDA GPU here (the CUDA path runs only on a machine with a GPU)"


def swish(beta=1.0):
    return symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=beta)


def prelu_like(a=0.1):
    return symnb.Activation("Max(0, x) + a*Min(0, x)", name="prelu", a=a)


# composite PyTorch references (independent of symnb)
REFERENCES = {
    "swish": (lambda: swish(1.7), lambda x: x * torch.sigmoid(1.7 * x)),
    "mish": (lambda: symnb.activation("mish"), lambda x: x * torch.tanh(F.softplus(x))),
    "elu": (lambda: symnb.activation("elu", alpha=0.7), lambda x: F.elu(x, 0.7)),
    "leaky_relu": (
        lambda: symnb.activation("leaky_relu", alpha=0.2),
        lambda x: F.leaky_relu(x, 0.2),
    ),
    "relu": (lambda: symnb.activation("relu"), F.relu),
    "gelu": (lambda: symnb.activation("gelu"), F.gelu),
}


def _points(dtype, shape=(3, 4, 7)):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(*shape, generator=g, dtype=torch.float64) * 4
    x.view(-1)[:4] = torch.tensor([0.0, -30.0, 30.0, 1e-3], dtype=torch.float64)
    return x.to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_values_and_gradients_match_composite_pytorch(name, dtype):
    make, ref = REFERENCES[name]
    module = make().to_torch().to(dtype)  # constants in the input's precision
    x = _points(dtype).requires_grad_()
    xr = x.detach().clone().requires_grad_()
    y, yr = module(x), ref(xr)
    g = torch.linspace(-1, 1, x.numel(), dtype=dtype).view_as(x)
    y.backward(g)
    yr.backward(g)
    tol = (
        {"rtol": 1e-5, "atol": 1e-6}
        if dtype == torch.float32
        else {"rtol": 1e-12, "atol": 1e-12}
    )
    assert y.dtype == dtype and y.shape == x.shape
    torch.testing.assert_close(y, yr, **tol)
    torch.testing.assert_close(x.grad, xr.grad, **tol)


@pytest.mark.parametrize("name", ["swish", "mish", "elu", "step"])
def test_matches_symnb_kernels(name):
    act = swish(1.3) if name == "swish" else symnb.activation(name)
    x = _points(torch.float64)
    module = act.to_torch().double()
    y = module(x)
    xr = x.clone().requires_grad_()
    module(xr).sum().backward()
    ref_y, ref_dy = act.compile(
        backend="numpy", dtype="float64"
    ).forward_with_derivative(x.numpy())
    np.testing.assert_allclose(y.numpy(), ref_y, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(xr.grad.numpy(), ref_dy, rtol=1e-12, atol=1e-14)


def test_kink_conventions_follow_pytorch():
    x = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    symnb.activation("relu").to_torch()(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    x.grad = None
    symnb.activation("leaky_relu", alpha=0.2).to_torch()(x).sum().backward()
    assert x.grad.tolist() == [0.2, 0.2, 0.2]


def test_gradcheck_single_activation_and_learnable_constants():
    act = swish(1.5)
    x = _points(torch.float64, (4, 5)).requires_grad_()
    assert torch.autograd.gradcheck(act.to_torch(), (x,))
    handle = ti.register("elementwise", [act])
    beta = torch.tensor([1.5], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda x, c: ti.elementwise(x, c, handle), (x, beta)
    )
    rational = symnb.Activation(
        "(a + b*x + c*x**2)/(1 + Abs(d*x))", a=0.1, b=1.0, c=0.3, d=0.5
    )
    h2 = ti.register("elementwise", [rational])
    coeffs = torch.tensor([0.1, 1.0, 0.3, 0.5], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, c: ti.elementwise(x, c, h2), (x, coeffs))


def test_modules_of_one_formula_with_other_constants_get_their_own_forms():
    """The stable form is chosen for the constants' values: a module made with
    delta = 1e3 after one with delta = 1 ran the latter's form (0.119 for 0.2048)."""
    text = "delta**2*(sqrt(1 + (x/delta)**2) - 1)"
    x = torch.tensor([0.64, 5.0, -0.01], dtype=torch.float32)
    xd = x.double()
    for delta in (1.0, 1e3):
        module = symnb.Activation(text, delta=delta).to_torch()
        # float64 reference without cancellation: x^2/(sqrt(1 + (x/delta)^2) + 1)
        expected = xd**2 / (torch.sqrt(1 + (xd / delta) ** 2) + 1)
        # the corpus rule in float32: 2e-5 relative + 1e-6 max(1, |x|, |x f'|)
        slack = 1e-6 * torch.clamp(xd.abs() ** 2, min=1.0)
        assert ((module(x).double() - expected).abs() <= 2e-5 * expected + slack).all()


def test_gradcheck_heterogeneous_layer_last_dim_and_channels():
    acts = [
        swish(1.5),
        symnb.activation("tanh"),
        swish(0.5),
        symnb.activation("elu", alpha=0.8),
    ]
    layer = symnb.to_torch_layer(acts, learnable=True).double()
    x = _points(torch.float64, (5, 4)).requires_grad_()
    assert torch.autograd.gradcheck(layer, (x,))
    params = layer.constant_vector().detach().clone().requires_grad_()
    assert params.tolist() == [1.5, 0.5, 0.8]
    assert torch.autograd.gradcheck(
        lambda x, p: ti.layer(x, p, layer.handle, 1), (x, params)
    )
    x4 = _points(torch.float64, (2, 4, 3, 3)).requires_grad_()
    assert torch.autograd.gradcheck(
        lambda x, p: ti.layer(x, p, layer.handle, 1), (x4, params)
    )


def test_per_channel_layer_matches_composite():
    betas = [0.5, 1.0, 2.0]
    layer = symnb.to_torch_layer([swish(b) for b in betas], dim=1)
    x = _points(torch.float32, (2, 3, 4, 5)).requires_grad_()
    xr = x.detach().clone().requires_grad_()
    b = torch.tensor(betas).view(1, 3, 1, 1)
    y, yr = layer(x), xr * torch.sigmoid(b * xr)
    torch.testing.assert_close(y, yr)
    y.sum().backward()
    yr.sum().backward()
    torch.testing.assert_close(x.grad, xr.grad)
    assert layer.constants(2) == {"beta": 2.0}


def test_learnable_constant_gradient_matches_composite():
    module = swish(1.2).to_torch(learnable=["beta"])
    x = _points(torch.float32)
    module(x).pow(2).sum().backward()
    beta = torch.tensor(1.2, requires_grad=True)
    (x * torch.sigmoid(beta * x)).pow(2).sum().backward()
    torch.testing.assert_close(
        module.constants.beta.grad.float(), beta.grad, rtol=1e-5, atol=0
    )


def test_half_precision_computed_in_float32():
    module = symnb.activation("mish").to_torch()
    x32 = _points(torch.float32)
    for dt in (torch.float16, torch.bfloat16):
        x = x32.to(dt).requires_grad_()
        y = module(x)
        assert y.dtype == dt
        torch.testing.assert_close(y.float(), module(x.detach().float()).to(dt).float())
        y.sum().backward()
        assert x.grad.dtype == dt


def test_non_contiguous_and_empty_inputs():
    module = swish(1.0).to_torch()
    x = _points(torch.float32, (6, 5)).t()
    assert not x.is_contiguous()
    torch.testing.assert_close(module(x), x * torch.sigmoid(x))
    empty = torch.empty(0, 3)
    assert module(empty).shape == (0, 3)


class _Spy:
    """Records the addresses a native entry point receives, then calls it."""

    def __init__(self, fn):
        self.fn, self.seen = fn, []

    def __call__(self, *args):
        self.seen.append(args)
        return self.fn(*args)


def test_cpu_kernel_runs_on_the_tensors_own_memory(monkeypatch):
    act = symnb.Activation("x*sigmoid(beta*x) + 0*x", name="spy", beta=1.0)
    module = act.to_torch(learnable=True)
    x = _points(torch.float32).requires_grad_()
    module(x)  # compile
    native = ti._entry(module.handle).native(torch.float32)
    if native is None:
        pytest.skip("no C++ compiler here: the numpy backend runs instead")
    assert native.fused_variants  # bound on the first backward: bind them to spy
    forward, fused = _Spy(native._forward), _Spy(native._fused)
    monkeypatch.setattr(native, "_forward", forward)
    monkeypatch.setattr(native, "_fused", fused)
    y = module(x)
    assert [a[:2] for a in forward.seen] == [(x.data_ptr(), y.data_ptr())]
    g = torch.randn_like(y)
    y.backward(g)
    # one fused pass: x, the gradient, dx, and the constants' sums
    assert len(fused.seen) == 1
    assert fused.seen[0][:2] == (x.data_ptr(), g.data_ptr())
    assert fused.seen[0][2] == x.grad.data_ptr()


def test_modules_sharing_a_kernel_keep_their_own_constants():
    """Two modules of one formula made with the same constants share a kernel; once
    training moved one's constants, interleaved forward and backward passes each use
    their own (passed by address, not via params)."""
    a, b = swish(0.5).to_torch(learnable=True), swish(0.5).to_torch(learnable=True)
    assert a.handle == b.handle
    with torch.no_grad():
        b.constants.beta.fill_(2.0)  # as an optimiser step would
    x = _points(torch.float32).requires_grad_()
    ya, yb = a(x), b(x)  # both forwards before either backward
    g = torch.linspace(-1, 1, x.numel()).view_as(x)
    grads = {
        "b": torch.autograd.grad(yb, (x, b.constants.beta), g),
        "a": torch.autograd.grad(ya, (x, a.constants.beta), g),
    }
    for key, beta, y in (("a", 0.5, ya), ("b", 2.0, yb)):
        xr = x.detach().double().requires_grad_()
        br = torch.tensor(beta, dtype=torch.float64, requires_grad=True)
        yr = xr * torch.sigmoid(br * xr)
        torch.testing.assert_close(y, yr.float())
        gx_ref, gb_ref = torch.autograd.grad(yr, (xr, br), g.double())
        gx, gb = grads[key]
        torch.testing.assert_close(gx, gx_ref.float())
        torch.testing.assert_close(gb, gb_ref, rtol=1e-5, atol=1e-5)


def test_backward_saves_only_the_input_and_constants():
    module = swish(1.0).to_torch(learnable=True)
    x = torch.randn(64, 32, requires_grad=True)
    saved = []

    def pack(t):
        saved.append(t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = module(x * 1.0)
    big = [t for t in saved if t.numel() == x.numel()]
    assert len(big) == 1
    assert sum(t.numel() for t in saved) == x.numel() + 1
    y.sum().backward()
    assert module.constants.beta.grad is not None


def test_state_dict_round_trip():
    module = symnb.Activation("a*x + b*tanh(x)", name="mix", a=0.5, b=2.0).to_torch(
        learnable=["a"]
    )
    with torch.no_grad():
        module.constants.a.fill_(0.25)
        module.constants.b.fill_(3.0)  # a buffer: kept in the state_dict too
    state = module.state_dict()
    assert set(state) == {"constants.a", "constants.b"}
    fresh = symnb.Activation("a*x + b*tanh(x)", name="mix", a=0.5, b=2.0).to_torch(
        learnable=["a"]
    )
    fresh.load_state_dict(state)
    x = _points(torch.float32)
    torch.testing.assert_close(fresh(x), 0.25 * x + 3.0 * torch.tanh(x))
    assert [n for n, _ in fresh.named_parameters()] == ["constants.a"]
    layer = symnb.to_torch_layer([swish(1.0), swish(2.0)], learnable=True)
    with torch.no_grad():
        layer.learnable_values.add_(1.0)
    other = symnb.to_torch_layer([swish(1.0), swish(2.0)], learnable=True)
    other.load_state_dict(layer.state_dict())
    assert other.constants(1) == {"beta": 3.0}


def test_whole_module_pickles():
    module = swish(1.5).to_torch(learnable=True)
    buf = io.BytesIO()
    torch.save(module, buf)
    buf.seek(0)
    loaded = torch.load(buf, weights_only=False)
    x = _points(torch.float32)
    torch.testing.assert_close(loaded(x), module(x))


def test_learnable_slope_converges_to_the_generating_slope():
    torch.manual_seed(0)
    module = prelu_like(0.05).to_torch(learnable=["a"])
    x = torch.randn(4096) * 3
    target = torch.where(x > 0, x, 0.3 * x)
    opt = torch.optim.Adam(module.parameters(), lr=0.05)
    for _ in range(200):
        opt.zero_grad()
        loss = (module(x) - target).pow(2).mean()
        loss.backward()
        opt.step()
    assert abs(module.constants.a.item() - 0.3) < 1e-3


@pytest.mark.slow
def test_mlp_to_torch_same_predictions_and_trainable():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 3)).astype(np.float32)
    y = (X[:, 0] * X[:, 1] > 0).astype(np.int64)
    sw = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=symnb.learnable(1.0))
    model = symnb.nn.MLP(
        [3, 8, 4, 1],
        activation=[sw, [sw, "relu", "tanh", "elu"]],
        loss="bce_with_logits",
        seed=1,
    )
    model.fit(X, y, epochs=3, batch_size=16)
    net = model.to_torch()
    assert isinstance(net, torch.nn.Sequential)
    out = net(torch.from_numpy(X)).detach().numpy()
    np.testing.assert_allclose(out, model(X), rtol=1e-5, atol=1e-5)
    names = dict(net.named_parameters())
    assert "1.constants.beta" in names and "3.learnable_values" in names
    assert names["1.constants.beta"].item() == pytest.approx(
        model.learned_constants()[0]["beta"], rel=1e-6
    )
    net(torch.from_numpy(X)).sum().backward()
    assert names["1.constants.beta"].grad is not None


def test_mlp_to_torch_float64_keeps_weights_exact():
    # the nn.Linear layers were made in float32 and the float64 weights copied into
    # them (rounded to float32) before the module was converted to float64
    rng = np.random.default_rng(0)
    X = rng.normal(size=(32, 4))
    model = symnb.nn.MLP([4, 5, 1], activation="tanh", dtype="float64", seed=0)
    net = model.to_torch()
    w = model.layers[0].weight.numpy()
    lin = net[0]
    assert lin.weight.dtype == torch.float64
    np.testing.assert_array_equal(lin.weight.detach().numpy().T, w)
    np.testing.assert_array_equal(
        lin.bias.detach().numpy(), model.layers[0].bias.numpy()
    )
    out = net(torch.from_numpy(X)).detach().numpy().reshape(-1)
    np.testing.assert_allclose(out, np.asarray(model(X)).reshape(-1), rtol=1e-12)


@pytest.mark.slow
def test_torch_compile_fullgraph_matches_eager():
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(6, 4),
        swish(1.5).to_torch(learnable=True),
        symnb.to_torch_layer(
            [
                swish(0.5),
                symnb.activation("tanh"),
                swish(2.0),
                symnb.activation("mish"),
            ],
            learnable=True,
        ),
    )
    x = torch.randn(8, 6)
    # aot_eager: dynamo (fullgraph: no graph break) and AOTAutograd (fake and autograd
    # registrations) without inductor's C++ build of the surrounding ops, which costs
    # 20-40 s here; the default backend runs the same custom operators
    compiled = torch.compile(net, fullgraph=True, backend="aot_eager")
    y = compiled(x)
    y.pow(2).sum().backward()
    grads = [p.grad.clone() for p in net.parameters()]
    net.zero_grad()
    y_eager = net(x)
    y_eager.pow(2).sum().backward()
    torch.testing.assert_close(y, y_eager)
    for g, p in zip(grads, net.parameters()):
        torch.testing.assert_close(g, p.grad)


def test_fake_tensors_give_shapes_only():
    from torch._subclasses.fake_tensor import FakeTensorMode

    module = swish(1.0).to_torch(learnable=True)
    with FakeTensorMode() as mode:
        x = mode.from_tensor(torch.randn(3, 5))
        c = mode.from_tensor(torch.ones(1))
        y = ti.elementwise(x, c, module.handle)
        assert y.shape == (3, 5) and y.dtype == torch.float32


def test_vmap_goes_through_the_custom_operator():
    module = swish(1.5).to_torch()
    x = _points(torch.float32, (3, 4))
    torch.testing.assert_close(torch.func.vmap(module)(x), x * torch.sigmoid(1.5 * x))


# ------------------------------------------------------------------ errors


def test_integer_tensor_is_refused():
    with pytest.raises(TypeError, match="floating-point tensor.*x.float()"):
        swish().to_torch()(torch.arange(5))


@pytest.mark.parametrize("backend", ["auto", "numpy"])
def test_learned_constant_that_does_not_fit_float32_is_refused(backend):
    """A float64 parameter of 1e300 would be inf in a float32 kernel: refused, naming
    the constant, for single activations and layers, forward and backward."""
    module = swish(1.0).to_torch(learnable=True, backend=backend)
    layer = symnb.to_torch_layer([swish(1.0), "tanh"], learnable=True, backend=backend)
    x = torch.randn(4, 2, requires_grad=True)
    y = module(x)  # compiled; then an optimizer "diverges"
    with torch.no_grad():
        module.constants.beta.fill_(1e300)
        layer.learnable_values.fill_(1e300)
    with pytest.raises(symnb.FormulaError, match=r"'beta'.*does not fit.*float32"):
        module(x)
    y.sum().backward()  # the graph saved the constants of its forward pass
    assert torch.isfinite(x.grad).all()
    with pytest.raises(symnb.FormulaError, match=r"'beta'.*neuron 0.*float32"):
        layer(x)
    # float64 inputs get float64 kernels, which hold the value
    assert torch.isfinite(module(x.double().clamp(-1e-300, 1e-300))).all()


def test_unknown_learnable_name():
    with pytest.raises(symnb.FormulaError, match="gamma"):
        swish().to_torch(learnable=["gamma"])
    with pytest.raises(symnb.FormulaError, match="gamma"):
        symnb.to_torch_layer([swish()], learnable=["gamma"])
    # not a name or a list of names: the argument is named (was "'int' object is not
    # iterable")
    with pytest.raises(TypeError, match="learnable must be True, False, None"):
        swish().to_torch(learnable=1)
    with pytest.raises(TypeError, match="learnable names must be strings"):
        swish().to_torch(learnable=[1.0])
    assert swish().to_torch(learnable="beta").learnable_names == ("beta",)


def test_constants_on_another_device():
    module = swish().to_torch().to("meta")
    with pytest.raises(ValueError, match="module.to"):
        module(torch.ones(3))


def test_backend_not_usable_on_that_device():
    module = swish().to_torch(backend="cuda")
    with pytest.raises(ValueError, match="backend='cuda'.*x.cuda()"):
        module(torch.ones(3))
    with pytest.raises(ValueError, match="backend must be one of"):
        swish().to_torch(backend="tpu")


def test_layer_shape_errors():
    layer = symnb.to_torch_layer([swish(), "relu", "tanh"], dim=1)
    with pytest.raises(ValueError, match="dimension 1 has 4 entries.*3 activations"):
        layer(torch.ones(2, 4))
    with pytest.raises(ValueError, match="no dimension"):
        layer(torch.ones(3))
    with pytest.raises(TypeError, match="one activation per feature"):
        symnb.to_torch_layer(swish())


def test_missing_torch_names_the_extra(monkeypatch):
    from symnb.interop import require

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match=r"pip install symnb\[torch\]"):
        require("torch")


@pytest.mark.skipif(not torch.cuda.is_available(), reason=CUDA_REASON)
def test_cuda_tensor_matches_cpu():
    module = swish(1.5).to_torch(learnable=True)
    x = _points(torch.float32)
    y_cpu = module(x)
    gpu = swish(1.5).to_torch(learnable=True).cuda()
    xg = x.cuda().requires_grad_()
    y = gpu(xg)
    torch.testing.assert_close(y.cpu(), y_cpu)
    y.sum().backward()
    assert xg.grad.is_cuda and gpu.constants.beta.grad.is_cuda


def test_second_derivatives_through_create_graph():
    """create_graph=True (a PINN's loss on du/dx, gradient penalties): the gradient is
    built from f' and df/dc applied as symnb activations of their own, so it is
    differentiated again (gradgradcheck in float64). Before, once_differentiable
    returned it without a graph, and a loss mixing it with other terms trained without
    it, silently."""
    x = torch.tensor(
        [-2.5, -0.7, 0.2, 0.9, 3.0], dtype=torch.float64, requires_grad=True
    )
    for act in (symnb.activation("tanh"), swish(1.3), symnb.activation("gelu_tanh")):
        module = act.to_torch()
        assert torch.autograd.gradgradcheck(lambda t: module(t), (x,))
    # tanh'' = -2 tanh (1 - tanh^2), against the closed form
    tanh = symnb.activation("tanh").to_torch()
    (g,) = torch.autograd.grad(tanh(x).sum(), x, create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), x)
    t = torch.tanh(x.detach())
    torch.testing.assert_close(g2, -2 * t * (1 - t * t))
    # a learnable constant gets the gradient of a loss on du/dx: d/dbeta sum f'(x; beta)
    module = swish(1.3).to_torch(learnable=True)
    (du,) = torch.autograd.grad(module(x).sum(), x, create_graph=True)
    du.sum().backward()

    def fprime_sum(beta):
        xd = x.detach()
        s = torch.sigmoid(beta * xd)
        return (s + beta * xd * s * (1 - s)).sum()

    h = 1e-6
    want = (fprime_sum(1.3 + h) - fprime_sum(1.3 - h)) / (2 * h)
    torch.testing.assert_close(
        module.constants.beta.grad, want.to(torch.float64), rtol=1e-6, atol=1e-9
    )


def test_second_derivative_of_a_layer_against_composite():
    """A per-neuron layer was first-order only (create_graph=True raised); its
    gradient is now built feature by feature from f_j' and df_j/dc as activations of
    their own: gradgradcheck in x and the constants, and a gradient penalty against
    composite PyTorch."""
    layer = symnb.to_torch_layer(
        [swish(1.3), symnb.activation("tanh"), symnb.Activation("tanh(a*x)", a=0.5)],
        dim=1,
        learnable=True,
    ).double()
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(3, 3, 4, dtype=torch.float64, generator=gen, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda t: layer(t), (x,))
    (g,) = torch.autograd.grad(layer(x).pow(2).sum(), x, create_graph=True)
    (g * g).sum().backward()
    x2 = x.detach().clone().requires_grad_()
    p = torch.tensor([1.3, 0.5], dtype=torch.float64, requires_grad=True)

    def ref(t):
        return torch.stack(
            [
                t[:, 0] * torch.sigmoid(p[0] * t[:, 0]),
                torch.tanh(t[:, 1]),
                torch.tanh(p[1] * t[:, 2]),
            ],
            1,
        )

    (g2,) = torch.autograd.grad(ref(x2).pow(2).sum(), x2, create_graph=True)
    (g2 * g2).sum().backward()
    torch.testing.assert_close(x.grad, x2.grad)
    torch.testing.assert_close(layer.learnable_values.grad, p.grad)


def test_second_derivative_that_cannot_compile_says_why(monkeypatch):
    """When f' cannot be compiled as a formula of its own, create_graph=True raises with
    the compiler's reason and the way out (to_jax), not a bare failure."""
    import symnb.formula.formula as formula_module

    def refuse(*args, **kwargs):
        raise symnb.FormulaError("injected: no compiled form")

    module = symnb.Activation("x*tanh(2.5*x)", name="never_seen").to_torch()
    monkeypatch.setattr(formula_module, "Activation", refuse)
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"injected: no compiled form.*use to_jax"):
        torch.autograd.grad(module(x).sum(), x, create_graph=True)


@pytest.mark.parametrize("layout", ["to_sparse", "to_sparse_csr"])
def test_sparse_tensor_is_refused_with_the_fix(layout):
    """A sparse tensor failed deep in .contiguous() with PyTorch's 'unsupported memory
    format option Contiguous'."""
    x = getattr(torch.tensor([[0.0, 1.0], [2.0, 0.0]]), layout)()
    with pytest.raises(TypeError, match=r"dense tensors only.*x\.to_dense\(\)"):
        swish().to_torch()(x)
    with pytest.raises(TypeError, match=r"symnb layer takes dense tensors only"):
        symnb.to_torch_layer([swish(), "tanh"])(x)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_no_grad_path_gives_the_values_of_the_graph_path(dtype):
    """Without anything to differentiate (no_grad, inference_mode, inputs and
    constants without requires_grad) the module runs its implementation directly: the
    same values as with a graph, no graph, and the constants still checked."""
    module = swish(1.5).to_torch(learnable=True)
    layer = symnb.to_torch_layer([swish(1.0), "tanh"], learnable=True, dim=1)
    x = (torch.randn(64, 2, dtype=torch.float64) * 8).to(dtype)
    for mod in (module, layer):
        with_graph = mod(x.clone().requires_grad_())
        assert with_graph.requires_grad
        with torch.no_grad():
            plain = mod(x.clone().requires_grad_())
        with torch.inference_mode():
            inferred = mod(x)
        for y in (plain, inferred):
            assert not y.requires_grad and y.dtype == dtype
            torch.testing.assert_close(y, with_graph.detach(), rtol=0, atol=0)
    beta = module.constants.beta.detach().double()
    xd = x.double()
    reference = xd * torch.sigmoid(beta * xd)
    with torch.no_grad():
        tol = {"rtol": 1e-2, "atol": 1e-2} if dtype == torch.bfloat16 else {}
        torch.testing.assert_close(module(x).double(), reference, **tol)
        module.constants.beta.fill_(1e300)
        with pytest.raises(symnb.FormulaError, match=r"'beta'.*does not fit"):
            module(x.float())
