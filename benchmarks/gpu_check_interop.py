"""GPU checks of symnb's interop faces, called by ``benchmarks/gpu_check.py``.

* ``Activation.to_torch`` / ``symnb.to_torch_layer`` on CUDA tensors: values and
  gradients (input and learnable constants) equal the CPU modules', float64 gradcheck on
  the GPU, the work runs on ``torch.cuda.current_stream()`` (a side stream gives the same
  result);
* ``Activation.to_source("cuda")``: the header inside a CuPy RawKernel gives what the
  cuda backend's kernels give;
* ``Activation.to_numba(target="cuda")``: device functions inside a ``numba.cuda`` kernel
  (when numba-cuda is installed).

Each check raises on failure; a missing optional library (torch with CUDA, numba-cuda)
is reported as a skip by the caller through :class:`Skip`.
"""

from __future__ import annotations

import numpy as np


class Skip(Exception):
    """An optional library for this check is missing (not a failure)."""


def _torch_cuda():
    try:
        import torch
    except ImportError as exc:
        raise Skip(f"torch is not installed ({exc})") from None
    if not torch.cuda.is_available():
        raise Skip("this torch build sees no CUDA GPU")
    return torch


def check_torch(symnb) -> None:
    """to_torch and to_torch_layer on CUDA tensors against the CPU modules."""
    torch = _torch_cuda()
    swish = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.5)
    for act in (swish, symnb.activation("mish"), symnb.activation("elu")):
        cpu = act.to_torch(learnable=True)
        gpu = act.to_torch(learnable=True).cuda()
        x = torch.randn(257, 129) * 5
        xc, xg = x.clone().requires_grad_(), x.cuda().requires_grad_()
        y_cpu, y_gpu = cpu(xc), gpu(xg)
        torch.testing.assert_close(y_gpu.cpu(), y_cpu, rtol=2e-5, atol=2e-6)
        y_cpu.pow(2).sum().backward()
        y_gpu.pow(2).sum().backward()
        torch.testing.assert_close(xg.grad.cpu(), xc.grad, rtol=2e-5, atol=2e-6)
        for pc, pg in zip(cpu.parameters(), gpu.parameters()):
            torch.testing.assert_close(pg.grad.cpu(), pc.grad, rtol=1e-4, atol=1e-5)
        xd = torch.randn(6, 5, dtype=torch.float64, device="cuda", requires_grad=True)
        assert torch.autograd.gradcheck(gpu.double(), (xd,))
    # a side stream: the op must run on the current stream, not the default one
    module = swish.to_torch().cuda()
    x = torch.randn(1 << 20, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        y_side = module(x * 2)
    stream.synchronize()
    torch.testing.assert_close(y_side, module(x * 2))
    # per-channel layer in NCHW
    acts = [swish.with_constants(beta=b) for b in (0.5, 1.0, 2.0)]
    layer_cpu = symnb.to_torch_layer(acts, dim=1, learnable=True)
    layer_gpu = symnb.to_torch_layer(acts, dim=1, learnable=True).cuda()
    x = torch.randn(4, 3, 16, 16)
    torch.testing.assert_close(
        layer_gpu(x.cuda()).cpu(), layer_cpu(x), rtol=2e-5, atol=2e-6
    )
    # channels_last in, channels_last out (as F.silu), values and gradients as on the
    # CPU: the cuda kernels read such tensors through a permuted, contiguous view
    cl = torch.channels_last
    act_cpu, act_gpu = swish.to_torch(learnable=True), swish.to_torch(learnable=True)
    act_gpu = act_gpu.cuda()
    for mod_cpu, mod_gpu in ((act_cpu, act_gpu), (layer_cpu, layer_gpu)):
        xc = x.to(memory_format=cl).requires_grad_()
        xg = x.cuda().to(memory_format=cl).requires_grad_()
        y_cpu, y_gpu = mod_cpu(xc), mod_gpu(xg)
        assert y_gpu.is_contiguous(memory_format=cl), y_gpu.stride()
        torch.testing.assert_close(y_gpu.cpu(), y_cpu, rtol=2e-5, atol=2e-6)
        y_cpu.pow(2).sum().backward()
        y_gpu.pow(2).sum().backward()
        torch.testing.assert_close(xg.grad.cpu(), xc.grad, rtol=2e-5, atol=2e-6)


def check_cuda_header(symnb, cp) -> None:
    """to_source('cuda') in a RawKernel against the cuda backend's forward/derivative."""
    for act in (
        symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.5),
        symnb.activation("mish"),
        symnb.activation("gelu_tanh"),
    ):
        ns = "symnb_" + "".join(c if c.isalnum() or c == "_" else "_" for c in act.name)
        src = (
            act.to_source("cuda")
            + f"""
extern "C" __global__ void use(const float* x, float* y, float* dy, long long n) {{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{ y[i] = {ns}::f(x[i]); dy[i] = {ns}::df(x[i]); }}
}}
"""
        )
        kernel = cp.RawKernel(src, "use")
        x = cp.linspace(-30, 30, 100001, dtype=cp.float32)
        y, dy = cp.empty_like(x), cp.empty_like(x)
        kernel(((x.size + 255) // 256,), (256,), (x, y, dy, np.int64(x.size)))
        ref_y, ref_dy = act.compile(backend="cuda").forward_with_derivative(x)
        cp.testing.assert_allclose(y, ref_y, rtol=1e-6, atol=1e-7)
        cp.testing.assert_allclose(dy, ref_dy, rtol=1e-6, atol=1e-7)


def check_numba_cuda(symnb) -> None:
    """to_numba(target='cuda') device functions in a numba.cuda kernel."""
    try:
        from numba import cuda
    except ImportError as exc:
        raise Skip(f"numba is not installed ({exc})") from None
    if not cuda.is_available():
        raise Skip("numba.cuda sees no GPU (install numba-cuda)")
    act = symnb.activation("mish")
    fns = act.to_numba(target="cuda").bind()
    f, df = fns.f, fns.df

    @cuda.jit
    def run(x, y, dy):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = f(x[i])
            dy[i] = df(x[i])

    x = np.linspace(-20, 20, 10001)
    y, dy = np.empty_like(x), np.empty_like(x)
    run[(x.size + 127) // 128, 128](x, y, dy)
    ref_y, ref_dy = act.compile(
        backend="numpy", dtype="float64"
    ).forward_with_derivative(x)
    np.testing.assert_allclose(y, ref_y, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dy, ref_dy, rtol=1e-12, atol=1e-14)


def run_all(check, record, symnb, cp) -> None:
    """Run every check through gpu_check's ``check``/``record`` (passes and failures
    counted there); a missing optional library is printed as a skip."""
    checks = (
        ("torch interop on CUDA tensors", check_torch, (symnb,)),
        ("to_source cuda header in a RawKernel", check_cuda_header, (symnb, cp)),
        ("to_numba cuda device functions", check_numba_cuda, (symnb,)),
    )
    for label, fn, args in checks:

        def guarded(fn=fn, args=args, label=label) -> None:
            try:
                fn(*args)
            except Skip as why:
                print(f"  [SKIP] {label}: {why}")
                return
            record(label, True)

        check(label)(guarded)
