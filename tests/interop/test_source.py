"""Activation.to_source: the header compiled with g++ (C++ and CUDA dialects, run on the
CPU against NumPy float64 kernels) and with NVRTC (sm_80/sm_90, no warnings, no double
math in float32)."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

import symnb
from symnb import config
from symnb.backends import nvrtc
from tests.backends.test_cuda_compile import ARCHS, float64_violations

CXX = shutil.which(config.cxx())
needs_cxx = pytest.mark.skipif(CXX is None, reason=f"{config.cxx()} not found on PATH")
NVRTC_OK, NVRTC_WHY = nvrtc.available()
needs_nvrtc = pytest.mark.skipif(not NVRTC_OK, reason=NVRTC_WHY)

ACTIVATIONS = {
    "swish": lambda: symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.5),
    "mish": lambda: symnb.activation("mish"),
    "elu": lambda: symnb.activation("elu", alpha=0.7),
    "step": lambda: symnb.activation("step"),
    "rational": lambda: symnb.Activation(
        "(a + b*x + c*x**2)/(1 + Abs(d*x) + Abs(e*x**2))",
        name="rational-2/2",
        a=0.1,
        b=1.0,
        c=0.3,
        d=0.5,
        e=0.2,
    ),
}
TOLERANCE = {
    "float32": {"rtol": 2e-6, "atol": 2e-6},
    "float64": {"rtol": 1e-12, "atol": 1e-13},
}
X = np.concatenate([np.linspace(-8, 8, 161), [0.0, -60.0, 60.0, np.nan]])


def _namespace(act, dtype: str) -> str:
    name = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in act.name)
    return f"symnb_{name}" + ("_f64" if dtype == "float64" else "")


def _driver(act, header: str, dtype: str) -> str:
    """Exported C functions calling every API function of the header."""
    ns = _namespace(act, dtype)
    ct = "float" if dtype == "float32" else "double"
    k = len(act.internal.params)
    cs = "".join(f", c[{q}]" for q in range(k))
    dc = f"{ns}::dconstants(x[i]{cs}, d + i * {k});" if k else ""
    return f"""{header}
extern "C" void run({ct}* x, {ct}* y, {ct}* dy, {ct}* y2, {ct}* dy2, {ct}* yb,
                    {ct}* d, long n, const {ct}* c) {{
    for (long i = 0; i < n; ++i) {{
        y[i] = {ns}::f(x[i]{cs});
        dy[i] = {ns}::df(x[i]{cs});
        {ns}::fdf(x[i]{cs}, &y2[i], &dy2[i]);
        yb[i] = {ns}::f(x[i]);
        {dc}
    }}
}}
"""


def _build(text: str, tmp_path, name: str) -> ctypes.CDLL:
    src = tmp_path / f"{name}.cpp"
    lib = tmp_path / f"{name}.so"
    src.write_text(text)
    flags = ["-O1", "-std=c++17", "-Wall", "-Werror", "-shared", "-fPIC", "-x", "c++"]
    cmd = [CXX, *flags, str(src), "-o", str(lib)]
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return ctypes.CDLL(str(lib))


# every activation in C++ float32; both dtypes and the CUDA dialect for a few (each
# case is one g++ run)
GXX_CASES = [(name, "float32", "cpp") for name in sorted(ACTIVATIONS)] + [
    ("swish", "float64", "cpp"),
    ("rational", "float64", "cpp"),
    ("swish", "float32", "cuda"),
    ("mish", "float64", "cuda"),
    ("step", "float32", "cuda"),
]


@needs_cxx
@pytest.mark.parametrize(("name", "dtype", "dialect"), GXX_CASES)
def test_header_compiles_with_gxx_and_matches_numpy(name, dtype, dialect, tmp_path):
    act = ACTIVATIONS[name]()
    header = act.to_source(dialect, dtype)
    lib = _build(_driver(act, header, dtype), tmp_path, f"{name}_{dtype}_{dialect}")
    npt = np.dtype(dtype)
    k = len(act.internal.params)
    x = X.astype(npt)
    outs = [np.empty_like(x) for _ in range(5)]
    d = np.zeros(max(k, 1) * x.size, dtype=npt)
    c = np.array(act.internal.param_values or [0.0], dtype=npt)
    ptrs = [a.ctypes.data_as(ctypes.c_void_p) for a in (x, *outs, d)]
    lib.run(*ptrs, ctypes.c_long(x.size), c.ctypes.data_as(ctypes.c_void_p))
    y, dy, y2, dy2, yb = outs
    kernel = act.compile(backend="numpy", dtype="float64")
    y_ref, dy_ref = kernel.forward_with_derivative(x.astype(np.float64))
    tol = TOLERANCE[dtype]
    pairs = ((y, y_ref), (dy, dy_ref), (y2, y_ref), (dy2, dy_ref), (yb, y_ref))
    for got, ref in pairs:
        np.testing.assert_allclose(got, ref, **tol)  # NaN positions must match too
    if k:
        finite = x[:-1].astype(np.float64)  # the last point is NaN
        for i in range(0, finite.size, 7):
            g = np.zeros_like(finite)
            g[i] = 1
            expect = kernel.constant_gradient(finite, g)
            got = d.reshape(x.size, k)[i]
            np.testing.assert_allclose(got, list(expect.values()), **tol)
        assert np.isnan(d.reshape(x.size, k)[-1]).all()


@needs_cxx
def test_two_headers_in_one_translation_unit(tmp_path):
    swish = ACTIVATIONS["swish"]()
    mish = ACTIVATIONS["mish"]()
    text = (
        swish.to_source("cpp")
        + mish.to_source("cpp")
        + mish.to_source("cpp", "float64")
        + 'extern "C" float both(float x) '
        "{ return symnb_swish::f(x) + symnb_mish::f(x) + 0 * symnb_mish_f64::f(x); }\n"
    )
    lib = _build(text, tmp_path, "both")
    lib.both.restype = ctypes.c_float
    lib.both.argtypes = [ctypes.c_float]
    x = 0.75
    expect = x / (1 + np.exp(-1.5 * x)) + x * np.tanh(np.log1p(np.exp(x)))
    assert lib.both(x) == pytest.approx(expect, rel=1e-6)


def test_user_text_never_reaches_the_source():
    act = symnb.Activation("x*sigmoid(k*x)", name='evil*/ #include "x"', k=1.0)
    text = act.to_source("cuda")
    assert "evil*/" not in text and '#include "x"' not in text
    assert "namespace symnb_evil___" in text
    with pytest.raises(ValueError, match="dialect"):
        act.to_source("opencl")


@needs_nvrtc
@pytest.mark.parametrize(
    ("name", "dtype"),
    [(name, "float32") for name in sorted(ACTIVATIONS)]
    + [("swish", "float64"), ("rational", "float64")],
)
def test_cuda_header_compiles_with_nvrtc(name, dtype):
    act = ACTIVATIONS[name]()
    ns = _namespace(act, dtype)
    ct = "float" if dtype == "float32" else "double"
    k = len(act.internal.params)
    cs = "".join(f", c[{q}]" for q in range(k))
    dc = f"{ns}::dconstants(x[i]{cs}, d + i * {k});" if k else ""
    src = (
        act.to_source("cuda", dtype)
        + f"""
extern "C" __global__ void use(const {ct}* x, {ct}* y, {ct}* dy, {ct}* d,
                               const {ct}* c, long long n) {{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {{
        {ct} a, b;
        {ns}::fdf(x[i]{cs}, &a, &b);
        y[i] = {ns}::f(x[i]{cs}) + a + {ns}::f(x[i]);
        dy[i] = {ns}::df(x[i]{cs}) + b;
        {dc}
    }}
}}
"""
    )
    for arch in ARCHS:
        ptx, log = nvrtc.compile_check(src, arch)
        assert log == "", f"NVRTC {arch} warnings:\n{log}"
        if dtype == "float32":
            assert not float64_violations(ptx)


@needs_cxx
@pytest.mark.parametrize("a", [0.5, -0.25, 1e-30, 1e30])
def test_header_uses_the_kernels_rewritten_form_at_large_x(a, tmp_path):
    # the header printed the plain x/sqrt(1 + a*x**2): in float32 x**2 overflowed,
    # f(1e20) was 0 and df NaN, where the kernels (and float64 NumPy) give 1/sqrt(a).
    # Other constants' values: the same numbers as the kernels (the rewrites are
    # guarded by the values they were made for)
    act = symnb.Activation("x/sqrt(1 + a*x**2)", name="isru", a=0.5)
    header = act.to_source("cpp", "float32")
    lib = _build(_driver(act, header, "float32"), tmp_path, "isru_large")
    x = np.array([1e20, -1e30, 3e38, -3e38, 1e5, -2.0, 0.0, 1e-30, np.nan], np.float32)
    outs = [np.empty_like(x) for _ in range(5)]
    d = np.zeros(x.size, np.float32)
    c = np.array([a], np.float32)
    ptrs = [arr.ctypes.data_as(ctypes.c_void_p) for arr in (x, *outs, d)]
    lib.run(*ptrs, ctypes.c_long(x.size), c.ctypes.data_as(ctypes.c_void_p))
    kernel = act.compile(backend="cpp", dtype="float32")
    kernel.params = [a]
    y_k, dy_k = kernel.forward_with_derivative(x)
    np.testing.assert_allclose(outs[0], y_k, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(outs[1], dy_k, rtol=1e-6, atol=1e-12)
    if a == 0.5:  # against float64 NumPy of the plain formula
        x64 = x.astype(np.float64)
        y_ref = x64 / np.sqrt(1 + a * x64**2)
        for y in (outs[0], outs[4]):  # f(x, a) and f(x) with the default
            np.testing.assert_allclose(y, y_ref, rtol=4e-6, atol=1e-37)
        assert np.isfinite(outs[1][:-1]).all()
