"""The public kernel objects check every argument before a backend sees it (GUIDE section 4)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symnb
from symnb.backends import select
from tests.conftest import backend_params

CPU = [p for p in backend_params() if p.id != "cuda"]


@pytest.fixture(params=CPU)
def kernel(request):
    return symnb.Activation("x*sigmoid(beta*x)", beta=1.0).compile(
        backend=request.param, strict=True
    )


def _swish(x, beta=1.0):
    return x / (1 + np.exp(-beta * x))


def test_float64_input_is_converted_with_one_warning(kernel):
    x = np.linspace(-3, 3, 7)
    with pytest.warns(UserWarning, match="float64.*float32"):
        y = kernel.forward(x)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, _swish(x), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kernel.forward(x)  # warned once per kernel


def test_non_contiguous_input_is_copied_not_misread(kernel):
    base = np.arange(20, dtype=np.float32).reshape(4, 5) / 10
    view = base[:, ::2]
    with pytest.warns(UserWarning, match="contiguous"):
        y = kernel.forward(view)
    np.testing.assert_allclose(y, _swish(view.astype(np.float64)), rtol=1e-6)


def test_integer_input_is_converted_and_complex_refused(kernel):
    np.testing.assert_allclose(
        kernel.forward(np.array([1, 2])), _swish(np.array([1.0, 2.0])), rtol=1e-6
    )
    with pytest.raises(TypeError, match="complex"):
        kernel.forward(np.array([1j]))
    with pytest.raises(TypeError):
        kernel.forward(np.array(["a"]))


def test_masked_entries_are_refused_not_computed(kernel):
    # np.asarray drops the mask: forward computed the hidden data under the mask and
    # returned it as an ordinary number in a plain ndarray
    x = np.ma.masked_array(np.array([1.0, 2.0], np.float32), mask=[False, True])
    for call in (
        lambda: kernel.forward(x),
        lambda: kernel.backward(np.ones(2, np.float32), x),
        lambda: kernel.forward_with_derivative(x),
    ):
        with pytest.raises(TypeError, match="masked array.*filled"):
            call()
    unmasked = np.ma.masked_array(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(kernel.forward(unmasked), _swish(unmasked.data), 1e-6)


def test_out_must_match_exactly(kernel):
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="dtype"):
        kernel.forward(x, out=np.empty(4, np.float64))
    with pytest.raises(ValueError, match="shape"):
        kernel.forward(x, out=np.empty(5, np.float32))
    with pytest.raises(ValueError, match="contiguous"):
        kernel.forward(x, out=np.empty(8, np.float32)[::2])
    with pytest.raises(TypeError):
        kernel.forward(x, out=[0.0] * 4)
    out = np.empty(4, np.float32)
    assert kernel.forward(x, out=out) is out


def test_out_may_be_the_input_but_not_overlap_it(kernel):
    x = np.linspace(-2, 2, 8, dtype=np.float32)
    ref = _swish(x.astype(np.float64))
    y = kernel.forward(x, out=x)
    assert y is x
    np.testing.assert_allclose(x, ref, rtol=1e-6)
    buf = np.linspace(-2, 2, 9, dtype=np.float32)
    with pytest.raises(ValueError, match="overlap"):
        kernel.forward(buf[:8], out=buf[1:])


def test_fused_in_place_computes_the_derivative_from_the_original_input(kernel):
    x = np.linspace(-2, 2, 8, dtype=np.float32)
    _, dref = kernel.forward_with_derivative(x.copy())
    dy = np.empty_like(x)
    _, d = kernel.forward_with_derivative(x, out=(x, dy))
    np.testing.assert_allclose(d, dref, rtol=1e-6)
    with pytest.raises(ValueError):
        kernel.forward_with_derivative(x, out=(dy, dy))


def test_size_zero_returns_empty_without_launching(kernel, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("launched on an empty array")

    monkeypatch.setattr(kernel._program, "forward", boom)
    y = kernel.forward(np.empty((0, 3), np.float32))
    assert y.shape == (0, 3) and y.dtype == np.float32


def test_backward_grad_shape_must_match(kernel):
    with pytest.raises(ValueError, match="grad has shape"):
        kernel.backward(np.ones(4, np.float32), np.ones(5, np.float32))


def test_set_constants_changes_values_without_recompiling(kernel, monkeypatch):
    calls = []
    real = select._module

    def counting(name):
        calls.append(name)
        return real(name)

    monkeypatch.setattr(select, "_module", counting)
    x = np.linspace(-3, 3, 13, dtype=np.float32)
    kernel.set_constants(beta=2.5)
    np.testing.assert_allclose(
        kernel.forward(x), _swish(x.astype(float), 2.5), rtol=1e-6
    )
    assert kernel.constants == {"beta": 2.5}
    assert calls == []
    with pytest.raises(symnb.FormulaError, match="no constant 'gamma'"):
        kernel.set_constants(gamma=1.0)
    with pytest.raises(symnb.FormulaError, match="finite"):
        kernel.set_constants(beta=float("inf"))


def test_compiling_again_reuses_the_program():
    a = symnb.Activation("x*tanh(x)")
    k1 = a.compile(backend="numpy")
    k2 = symnb.Activation("x*tanh(x)").compile(backend="numpy")
    assert k1._program is k2._program


def test_constant_gradient_matches_finite_differences(kernel):
    rng = np.random.default_rng(0)
    x = rng.normal(size=50).astype(np.float32)
    g = rng.normal(size=50).astype(np.float32)
    got = kernel.constant_gradient(x, g)["beta"]
    h = 1e-4
    xd = x.astype(np.float64)
    fd = np.sum(g * (_swish(xd, 1 + h) - _swish(xd, 1 - h)) / (2 * h))
    assert abs(got - fd) < 1e-4 * max(1, abs(fd))


@pytest.mark.parametrize("backend", CPU)
def test_layer_matches_per_column_numpy(backend):
    sw = symnb.Activation("x*sigmoid(beta*x)", beta=1.0)
    acts = [
        sw,
        symnb.activation("relu"),
        sw.with_constants(beta=3.0),
        symnb.activation("leaky_relu", alpha=0.2),
        symnb.activation("tanh"),
    ]
    layer = symnb.compile_layer(acts, backend=backend, strict=True)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(64, 5)).astype(np.float32)
    y, dy = layer.forward_with_derivative(x)
    for j, a in enumerate(acts):
        kj = a.compile(backend="numpy", dtype="float64")
        yj, dyj = kj.forward_with_derivative(x[:, j].astype(np.float64))
        np.testing.assert_allclose(y[:, j], yj, rtol=2e-6, atol=1e-7)
        np.testing.assert_allclose(dy[:, j], dyj, rtol=2e-6, atol=1e-7)
    g = rng.normal(size=x.shape).astype(np.float32)
    np.testing.assert_allclose(layer.backward(x, g), g * dy, rtol=2e-6, atol=1e-7)
    cg = layer.constant_gradient(x, g)
    assert cg.shape == layer.params.shape == (3,)  # beta (n0), beta (n2), alpha (n3)
    h = 1e-5
    xd = x[:, 0].astype(np.float64)
    fd = np.sum(g[:, 0] * (_swish(xd, 1 + h) - _swish(xd, 1 - h)) / (2 * h))
    assert abs(cg[layer.offsets[0]] - fd) < 1e-3 * max(1, abs(fd))
    layer.set_constants(neuron=2, beta=0.5)
    np.testing.assert_allclose(
        layer.forward(x)[:, 2], _swish(x[:, 2].astype(float), 0.5), rtol=2e-6, atol=1e-7
    )
    with pytest.raises(ValueError, match=r"\(batch, 5\)"):
        layer.forward(np.ones((3, 4), np.float32))


def test_layer_rejects_non_activations():
    with pytest.raises(TypeError, match="neuron 1"):
        symnb.compile_layer([symnb.activation("relu"), 3.0], backend="numpy")
    with pytest.raises(TypeError, match="list"):
        symnb.compile_layer(symnb.activation("relu"), backend="numpy")


def test_loss_shapes_and_empty():
    k = symnb.loss("mse").compile(backend="numpy")
    with pytest.raises(ValueError, match="must match"):
        k.value(np.ones(3, np.float32), np.ones(4, np.float32))
    with pytest.warns(RuntimeWarning, match="empty"):
        assert np.isnan(k.value(np.empty(0, np.float32), np.empty(0, np.float32)))


def test_bad_dtype_and_device_arguments():
    a = symnb.activation("relu")
    with pytest.raises(ValueError, match="float32"):
        a.compile(backend="numpy", dtype="int8")
    with pytest.raises(ValueError, match="device"):
        a.compile(backend="numpy", device=-1)
    for bad in ("cpux", "cuda:-1", "cuda:x", "gpu", "cuda:\u0661", 1.0, True):
        with pytest.raises(ValueError, match="device"):
            a.compile(backend="numpy", device=bad)
    with pytest.raises(ValueError, match="unknown backend"):
        a.compile(backend="tpu")


@pytest.mark.parametrize(
    "device, index", [(0, 0), (2, 2), ("cuda", 0), ("cuda:1", 1), (" CUDA:3 ", 3)]
)
def test_device_as_pytorch_spells_it(device, index):
    """A GPU index, or PyTorch's 'cuda' / 'cuda:N' / torch.device('cuda', N)."""
    assert select.check_device(device) == index
    relu = symnb.activation("relu")
    if isinstance(device, int):
        # a bare index (0 is every call's default): the CPU backends run on the CPU
        k = relu.compile(backend="numpy", device=device)
        assert k.forward(np.float32([-1.0, 2.0])).tolist() == [0.0, 2.0]
    else:
        # a GPU named as PyTorch names it is not silently dropped
        with pytest.raises(ValueError, match="runs on the CPU"):
            relu.compile(backend="numpy", device=device)


def test_device_from_torch():
    torch = pytest.importorskip("torch", reason="torch (the torch extra) not installed")
    assert select.check_device(torch.device("cuda", 1)) == 1
    assert select.check_device(torch.device("cuda")) == 0
    with pytest.raises(ValueError, match="not a GPU"):
        select.check_device(torch.device("cpu"))


def test_fallback_warns_and_strict_raises():
    a = symnb.activation("relu")
    with pytest.warns(select.FallbackWarning, match="'cuda' is not usable"):
        k = a.compile(backend="cuda")
    assert k.backend in ("cpp", "numpy")
    with pytest.raises(symnb.BackendUnavailable, match="cuda"):
        a.compile(backend="cuda", strict=True)


def test_available_reports_every_backend_with_reasons():
    rep = symnb.backends.available()
    assert set(rep) == {"cuda", "cpp", "numpy"}
    assert rep["numpy"].usable
    for st in rep.values():
        assert st.usable or st.reason


def test_auto_picks_a_usable_backend_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k = symnb.activation("relu").compile()
    assert symnb.backends.available()[k.backend].usable


def test_subnormals_survive_loading_every_kernel():
    for name in symnb.library_activations():
        for b in ("numpy", "cpp"):
            if symnb.backends.available()[b].usable:
                symnb.activation(name).compile(backend=b)
    tiny = np.float32(1e-40)
    assert tiny * np.float32(1.0) != 0
    assert np.array([1e-40], np.float32)[0] * np.float32(1) == np.float32(1e-40)


@pytest.mark.parametrize("neuron", [9, -1, "a"])
def test_layer_constant_names_checks_the_neuron(neuron):
    """constant_names(9) was a bare 'list index out of range'; -1 read the last."""
    layer = symnb.compile_layer(["relu", "elu"], backend="numpy")
    assert layer.constant_names(1) == ("alpha",)
    error = TypeError if isinstance(neuron, str) else IndexError
    with pytest.raises(error, match=rf"range\(0, 2\).*got|neuron {neuron} is out"):
        layer.constant_names(neuron)


@pytest.mark.parametrize("device", ["cuda", "cuda:0", " CUDA:1 "])
@pytest.mark.parametrize("backend", ["cpp", "numpy", " CPP"])
def test_cpu_backend_with_a_named_gpu_is_refused(backend, device):
    """compile(backend='cpp', device='cuda:0') ran on the CPU and dropped the device."""
    act = symnb.activation("tanh")
    with pytest.raises(ValueError, match=r"runs on the CPU.*asks for a GPU.*'cuda'"):
        act.compile(backend=backend, device=device)
    with pytest.raises(ValueError, match=r"runs on the CPU"):
        symnb.compile_layer([act, "relu"], backend=backend, device=device)
    assert act.compile(backend="numpy", device=0).backend == "numpy"


@pytest.mark.parametrize("device", [2**31, 99999999999999999999, "cuda:2147483648"])
def test_device_index_beyond_what_cuda_numbers_is_refused(device):
    with pytest.raises(ValueError, match=r"is no GPU index.*2147483647"):
        select.check_device(device)
    assert select.check_device(2**31 - 1) == 2**31 - 1


def test_device_cpu_as_pytorch_spells_it_picks_a_cpu_backend():
    """compile(device='cpu') was 'not a GPU'; as in PyTorch it now means the CPU: auto
    picks cpp (numpy without a compiler), a CPU backend is kept, cuda is refused. The
    kernel computes tanh."""
    torch = pytest.importorskip("torch")
    act = symnb.activation("tanh")
    want = "cpp" if select.status("cpp").usable else "numpy"
    for device in ("cpu", " CPU", torch.device("cpu")):
        k = act.compile(device=device)
        assert k.backend == want and k.device is None
        x = np.linspace(-3, 3, 7, dtype=np.float32)
        np.testing.assert_allclose(k.forward(x), np.tanh(x), rtol=2e-6)
        assert act.compile(backend="numpy", device=device).backend == "numpy"
    with pytest.raises(ValueError, match=r"runs on a GPU.*asks for the CPU"):
        act.compile(backend="cuda", device="cpu")


def test_auto_with_a_named_gpu_that_is_not_usable_warns(monkeypatch):
    """compile(device='cuda:0') (backend 'auto') on a machine without a usable GPU ran
    on the CPU without a word; now a FallbackWarning names the device and the reason
    (a bare index such as the default 0 stays silent)."""
    from symnb.backends.base import BackendStatus

    monkeypatch.setitem(
        select._status, "cuda", BackendStatus("cuda", False, reason="no GPU (test)")
    )
    act = symnb.activation("tanh")
    with pytest.warns(select.FallbackWarning, match=r"'cuda:0'.*no GPU \(test\)"):
        k = act.compile(device="cuda:0")
    assert k.backend in ("cpp", "numpy") and k.device is None
    with pytest.warns(select.FallbackWarning, match=r"device='cuda'"):
        symnb.compile_layer([act, "relu"], device="cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        act.compile(device=0)


def test_dtype_none_is_refused_not_float64():
    """dtype=None went through np.dtype(None), which is float64: a silent switch away
    from the float32 default."""
    with pytest.raises(ValueError, match=r"dtype=None.*'float32' \(the default\)"):
        symnb.activation("tanh").compile(backend="numpy", dtype=None)
    with pytest.raises(ValueError, match=r"dtype=None"):
        symnb.compile_layer(["tanh", "relu"], backend="numpy", dtype=None)


@pytest.mark.parametrize("name", ["compile", "compile_activation", "compile_loss"])
def test_a_top_level_compile_points_at_the_method(name):
    """symnb.compile(...) (what the docs of other libraries teach) was a bare
    "module 'symnb' has no attribute 'compile'"; now the message shows the method."""
    with pytest.raises(AttributeError, match=r"Activation\('x\*tanh\(x\)'\)\.compile"):
        getattr(symnb, name)
    with pytest.raises(AttributeError, match=r"no attribute 'nope'$"):
        symnb.nope  # noqa: B018
    assert not hasattr(symnb, "compile")


@pytest.mark.parametrize("strict", ["no", "false", 0, None])
def test_strict_must_be_a_bool(strict):
    """compile(strict='no') took the truthy string as strict=True (and 0 or None as
    False); MLP already refused a strict that is not a bool."""
    with pytest.raises(TypeError, match=r"strict must be True or False, got"):
        symnb.activation("tanh").compile(backend="numpy", strict=strict)
    with pytest.raises(TypeError, match=r"strict must be True or False"):
        symnb.compile_layer(["tanh", "relu"], backend="numpy", strict=strict)
    assert symnb.activation("tanh").compile(backend="numpy", strict=np.True_)


@pytest.mark.parametrize("spelling", ["FLOAT64", "Float64", " float64 ", "f8"])
def test_dtype_names_in_any_case_as_every_face_takes_them(spelling):
    """compile(dtype='FLOAT64') was refused while %%symact --dtype FLOAT64 (and
    backend='NUMPY') was taken: one check (select.check_dtype) now serves compile,
    to_source, MLP, the magic and the CLI."""
    from symnb.nn import MLP

    act = symnb.activation("tanh")
    assert act.compile(backend="numpy", dtype=spelling).dtype == np.float64
    assert "double" in act.to_source(dtype=spelling)
    assert MLP([2, 3, 1], dtype=spelling).dtype == np.float64
    assert (
        select.check_dtype(spelling.replace("64", "32").replace("8", "4")) == "float32"
    )
