"""CUDA kernels without a GPU: NVRTC and nvcc compile checks, the same device code run
on the CPU (g++) against NumPy, and the CUDA backend's pieces up to the launch.

Checks, for every library activation and loss (and a local set of forms that exercises
every printable function, independent of the formula layer), in float32 and float64:

* NVRTC (what CuPy uses, stricter than nvcc) for sm_80 and sm_90 with symnb's options
  (CuPy's, minus flush-to-zero): no log at all (warnings count as failures);
* float32 PTX stays float32: no ``.f64`` in the forward/backward/derivative entry
  points; the reductions may accumulate in double (add/fma/convert/atomic only) and
  ``loss_gradient`` may read its ``double scale`` argument;
* ``nvcc --ptx -arch=sm_90 -Werror all-warnings``;
* the CUDA translation unit built as plain C++ with g++ computes what NumPy computes.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.special
import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p

from symnb import config
from symnb.backends import cuda, nvrtc
from symnb.backends.cache import KernelCache
from symnb.codegen.kernels import render_program
from symnb.errors import BackendUnavailable, CompileError
from symnb.formula.functions import logsigmoid, sigmoid, softplus
from symnb.formula.gamma import digamma, lgamma, tgamma
from symnb.formula.internal import InternalForm, P, T, X, param_symbol
from tests.codegen.reference_forms import HUBER

NVRTC_OK, NVRTC_WHY = nvrtc.available()
needs_nvrtc = pytest.mark.skipif(not NVRTC_OK, reason=NVRTC_WHY)
needs_nvcc = pytest.mark.skipif(
    nvrtc.nvcc_path() is None,
    reason="nvcc not found on PATH (install the CUDA toolkit)",
)
CXX = shutil.which(config.cxx())
needs_cxx = pytest.mark.skipif(CXX is None, reason=f"{config.cxx()} not found on PATH")

DTYPES = ("float32", "float64")
ARCHS = ("sm_80", "sm_90")

# --------------------------------------------------------------------------------------
# Forms: the library's (through the formula layer) and a local set built from SymPy


def _fix_heaviside(e: sp.Expr) -> sp.Expr:
    """PyTorch's kink convention for the local forms: H(0) = 0."""
    return e.replace(
        lambda a: isinstance(a, sp.Heaviside), lambda a: sp.Heaviside(a.args[0], 0)
    )


def _activation(name, f, params=(), values=(), df=None):
    df = _fix_heaviside(sp.diff(f, X)) if df is None else df
    return InternalForm(
        "activation",
        name,
        (X,),
        tuple(params),
        tuple(f"c{k}" for k in range(len(params))),
        tuple(float(v) for v in values),
        f,
        df,
        tuple(_fix_heaviside(sp.diff(f, p)) for p in params),
    )


def _loss(name, f, params=(), values=(), df=None):
    df = _fix_heaviside(sp.diff(f, P)) if df is None else df
    return InternalForm(
        "loss",
        name,
        (P, T),
        tuple(params),
        tuple(f"c{k}" for k in range(len(params))),
        tuple(float(v) for v in values),
        f,
        df,
        tuple(_fix_heaviside(sp.diff(f, p)) for p in params),
    )


c0, c1 = param_symbol(0), param_symbol(1)


@functools.cache
def local_activations() -> dict[str, InternalForm]:
    """Forms that together use every function the contract allows."""
    forms = [
        _activation("relu", sp.Max(0, X), df=sp.Heaviside(X, 0)),
        _activation("leaky", sp.Piecewise((X, X > 0), (c0 * X, True)), (c0,), (0.01,)),
        _activation(
            "elu", sp.Piecewise((X, X > 0), (c0 * expm1(X), True)), (c0,), (1.0,)
        ),
        _activation("gelu", X / 2 * (1 + sp.erf(X / sp.sqrt(2)))),
        _activation(
            "gelu_tanh",
            sp.Rational(1, 2)
            * X
            * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (X + sp.Float("0.044715") * X**3))),
        ),
        _activation("swish", X * sigmoid(c0 * X), (c0,), (1.0,)),
        _activation("mish", X * sp.tanh(softplus(X))),
        _activation(
            "softplus_beta",
            sp.Piecewise((X, c0 * X > c1), (softplus(c0 * X) / c0, True)),
            (c0, c1),
            (1.0, 20.0),
        ),
        _activation("logsigmoid", logsigmoid(X)),
        _activation("softsign", X / (1 + sp.Abs(X))),
        _activation("hardtanh", sp.Min(sp.Max(X, c0), c1), (c0, c1), (-1.0, 1.0)),
        _activation(
            "trig", sp.sin(X) + sp.cos(X) + sp.tan(X / 4) + sp.atan(X) + sp.sinh(X / 3)
        ),
        _activation(
            "inverse",
            sp.asin(sp.tanh(X))
            + sp.acos(sp.tanh(X) / 2)
            + sp.acosh(1 + X**2)
            + sp.atanh(sp.tanh(X) / 2)
            + sp.asinh(X),
        ),
        _activation(
            "special",
            sp.erfc(X)
            + sp.log(1 + X**2)
            + sp.sqrt(1 + X**2)
            + log1p(X**2)
            + sp.exp(-(X**2))
            + sp.cosh(X / 5),
        ),
        _activation(
            "steps",
            sp.floor(X) + sp.ceiling(X) + sp.sign(X) + sp.Heaviside(X, 0),
            df=X / (1 + sp.Abs(X)),
        ),
        _activation(
            "powers", sp.Abs(X) ** c0 + X**7 + X ** sp.Rational(1, 3), (c0,), (1.5,)
        ),
        # the gamma family: libm's lgamma/tgamma, symnb's digamma/trigamma helpers
        # (f' has trigamma; d/dc0 has digamma of the constant)
        _activation(
            "gamma",
            lgamma(X) + tgamma(X / 8) + digamma(X) + lgamma(c0) * X,
            (c0,),
            (2.5,),
        ),
    ]
    return {f.name: f for f in forms}


@functools.cache
def local_losses() -> dict[str, InternalForm]:
    forms = [
        _loss("mse", (P - T) ** 2),
        _loss(
            "bce",
            -(T * sp.Max(sp.log(P), -100) + (1 - T) * sp.Max(sp.log(1 - P), -100)),
            df=(P - T) / sp.Max((1 - P) * P, sp.Float("1e-12")),
        ),
        _loss("bce_with_logits", softplus(P) - P * T),
        _loss(
            "huber",
            HUBER,
            (c0,),
            (1.0,),
        ),
        _loss("log_cosh", sp.log(sp.cosh(P - T))),
        _loss("hinge", sp.Max(0, 1 - P * T), df=-T * sp.Heaviside(1 - P * T, 0)),
    ]
    return {f.name: f for f in forms}


def _library_names(kind: str) -> list[str]:
    from symnb.formula import library

    return library.activation_names() if kind == "activation" else library.loss_names()


@functools.cache
def library_form(kind: str, name: str) -> InternalForm:
    """The library's InternalForm."""
    import symnb

    obj = symnb.activation(name) if kind == "activation" else symnb.loss(name)
    return obj.internal


def library_layer_forms() -> tuple[InternalForm, ...]:
    return tuple(library_form("activation", n) for n in _library_names("activation"))


# --------------------------------------------------------------------------------------
# PTX inspection

_FUNC_HEADER = re.compile(
    r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(entry|func)\s+"
    r"(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)",
    re.MULTILINE,
)

#: float32 kernels that must not touch double at all
F32_PURE = {
    "symnb_forward",
    "symnb_backward",
    "symnb_forward_derivative",
    "symnb_layer_forward",
    "symnb_layer_backward",
    "symnb_layer_forward_derivative",
}
#: reductions accumulate in double: these double instructions are expected there
_ACCUMULATE = re.compile(
    r"^\s*(?:@!?%p\d+\s+)?(?:mov|cvt\.f64\.f32|add(?:\.rn)?|fma\.rn|mul(?:\.rn)?|"
    r"atom\.global\.add|red\.global\.add|ld\.global|st\.global|ld\.param|\.reg|\.param)"
    r"[\w.]*\s"
)
#: loss_gradient gets ``double scale`` and converts it once
_SCALE_ONLY = re.compile(
    r"^\s*(?:ld\.param\.f64|cvt\.rn\.f32\.f64|\.reg\s+\.f64|\.param\s+\.f64)"
)
_F64 = re.compile(r"\.f64\b")
#: CUDA's own float32 sinf/cosf/tanf: the slow-path argument reduction for huge |x|
#: (libdevice's Payne-Hanek) converts an integer and multiplies by 2*pi*2^-64 in double.
#: Exactly these shapes are allowed anywhere; real double math needs other instructions.
_LIBDEVICE_TRIG = re.compile(
    r"^\s*(?:\.reg\s+\.f64\s|cvt\.rn\.f64\.s64\s|cvt\.rn\.f32\.f64\s|"
    r"mul(?:\.rn)?\.f64\s+%fd\d+,\s*%fd\d+,\s*0d3BF921FB54442D19;)"
)


def ptx_functions(ptx: str) -> dict[str, str]:
    """Function name -> its PTX text (``.entry`` and ``.func``)."""
    heads = list(_FUNC_HEADER.finditer(ptx))
    out = {}
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(ptx)
        out[m.group(2)] = ptx[m.start() : end]
    return out


def float64_violations(ptx: str) -> list[str]:
    """Lines of float32 PTX that compute in double where they should not."""
    bad = []
    for name, body in ptx_functions(ptx).items():
        for line in body.splitlines():
            if not _F64.search(line) or _LIBDEVICE_TRIG.match(line):
                continue
            if name in F32_PURE or not name.startswith("symnb_"):
                bad.append(f"{name}: {line.strip()}")
            elif name == "symnb_loss_gradient":
                if not _SCALE_ONLY.match(line):
                    bad.append(f"{name}: {line.strip()}")
            elif not _ACCUMULATE.match(line):
                bad.append(f"{name}: {line.strip()}")
    return bad


def test_ptx_checker_flags_double_math():
    ptx = """
.visible .entry symnb_forward(
\t.param .u64 symnb_forward_param_0
)
{
\t.reg .f32 \t%f<64>;
\tld.global.nc.f32 \t%f64, [%rd2];
\tcvt.f64.f32 \t%fd1, %f1;
}
.visible .entry symnb_constant_gradient(
)
{
\t.reg .f64 \t%fd<31>;
\tcvt.f64.f32 \t%fd12, %f32;
\tfma.rn.f64 \t%fd30, %fd12, %fd13, %fd30;
\tatom.global.add.f64 \t%fd20, [%rd60], %fd25;
\tdiv.rn.f64 \t%fd2, %fd1, %fd3;
}
.visible .entry symnb_loss_gradient(
\t.param .f64 symnb_loss_gradient_param_5
)
{
\tld.param.f64 \t%fd1, [symnb_loss_gradient_param_5];
\tcvt.rn.f32.f64 \t%f1, %fd1;
}
"""
    bad = float64_violations(ptx)
    assert len(bad) == 2, bad
    trig = (
        "\tcvt.rn.f64.s64 \t%fd1, %rd42;\n\tmul.f64 \t%fd2, %fd1, 0d3BF921FB54442D19;\n"
    )
    assert (
        float64_violations(".visible .entry symnb_forward(\n)\n{\n" + trig + "}\n")
        == []
    )
    assert bad[0].startswith("symnb_forward: cvt.f64.f32")
    assert bad[1].startswith("symnb_constant_gradient: div.rn.f64")


# --------------------------------------------------------------------------------------
# NVRTC


def _modules(source) -> tuple[str, ...]:
    """The module texts of a CUDA source (a layer of many forms has several)."""
    return source.units or (source.text,)


def _nvrtc_check(source, dtype: str) -> None:
    for arch, text in ((a, t) for a in ARCHS for t in _modules(source)):
        ptx, log = nvrtc.compile_check(text, arch)
        assert log == "", f"NVRTC {arch} warnings:\n{log}"
        assert ".entry" in ptx
        for symbol in source.entry_points.values():
            assert symbol in ptx, f"{symbol} missing from the PTX"
        if dtype == "float32":
            bad = float64_violations(ptx)
            assert not bad, "double precision in float32 kernels:\n" + "\n".join(
                bad[:20]
            )


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(local_activations()))
def test_nvrtc_local_activation(name, dtype):
    form = local_activations()[name]
    _nvrtc_check(
        render_program((form,), "elementwise", dialect="cuda", dtype=dtype), dtype
    )


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(local_losses()))
def test_nvrtc_local_loss(name, dtype):
    form = local_losses()[name]
    _nvrtc_check(render_program((form,), "loss", dialect="cuda", dtype=dtype), dtype)


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES)
def test_nvrtc_local_layer(dtype):
    forms = tuple(local_activations().values())
    _nvrtc_check(render_program(forms, "layer", dialect="cuda", dtype=dtype), dtype)


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", _library_names("activation"))
def test_nvrtc_library_activation(name, dtype):
    form = library_form("activation", name)
    _nvrtc_check(
        render_program((form,), "elementwise", dialect="cuda", dtype=dtype), dtype
    )


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", _library_names("loss"))
def test_nvrtc_library_loss(name, dtype):
    form = library_form("loss", name)
    _nvrtc_check(render_program((form,), "loss", dialect="cuda", dtype=dtype), dtype)


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES)
def test_nvrtc_library_layer(dtype):
    forms = library_layer_forms()
    _nvrtc_check(render_program(forms, "layer", dialect="cuda", dtype=dtype), dtype)


@needs_nvrtc
def test_nvrtc_error_keeps_log_and_source():
    bad = 'extern "C" __global__ void k(float* y) { y[0] = M_SQRT2; }'
    with pytest.raises(CompileError) as info:
        nvrtc.compile_check(bad, "sm_90")
    err = info.value
    assert "M_SQRT2" in err.log and err.source == bad
    assert any(o == "-arch=sm_90" for o in err.command)
    assert "1  extern" in err.dump()


# --------------------------------------------------------------------------------------
# nvcc (second opinion; 1-2 s a kernel, so one translation unit per kind and dtype)


def _nvcc(source) -> None:
    for text in _modules(source):
        ptx, log = nvrtc.nvcc_check(text, "sm_90")
        assert ".entry" in ptx
        assert "warning" not in log.lower(), log


def _forms_for_nvcc(kind: str) -> tuple[InternalForm, ...]:
    if kind == "activation":
        return library_layer_forms()
    return tuple(library_form("loss", n) for n in _library_names("loss"))


@needs_nvcc
@pytest.mark.parametrize("dtype", DTYPES)
def test_nvcc_layer_and_elementwise(dtype):
    forms = _forms_for_nvcc("activation")
    _nvcc(render_program(forms, "layer", dialect="cuda", dtype=dtype))
    with_params = next(f for f in forms if f.params)
    _nvcc(render_program((with_params,), "elementwise", dialect="cuda", dtype=dtype))
    without = next(f for f in forms if not f.params)
    _nvcc(render_program((without,), "elementwise", dialect="cuda", dtype=dtype))


@needs_nvcc
@pytest.mark.parametrize("dtype", DTYPES)
def test_nvcc_losses(dtype):
    for form in _forms_for_nvcc("loss"):
        _nvcc(render_program((form,), "loss", dialect="cuda", dtype=dtype))


@needs_nvcc
def test_nvcc_rejects_warnings():
    src = "__device__ float f(float a) { int unused; return a; }\n"
    with pytest.raises(CompileError, match="unused"):
        nvrtc.nvcc_check(src)


# --------------------------------------------------------------------------------------
# The CUDA text built as plain C++ and compared with NumPy


def _np_sigmoid(u):
    return np.where(
        u >= 0,
        1 / (1 + np.exp(-np.abs(u))),
        np.exp(-np.abs(u)) / (1 + np.exp(-np.abs(u))),
    )


def _np_softplus(u):
    return np.maximum(u, 0) + np.log1p(np.exp(-np.abs(u)))


def _np_logsigmoid(u):
    return np.minimum(u, 0) - np.log1p(np.exp(-np.abs(u)))


_MODULES = [
    {
        "sigmoid": _np_sigmoid,
        "softplus": _np_softplus,
        "logsigmoid": _np_logsigmoid,
        # the gamma family: SciPy's (symnb's C is libm's and its own digamma)
        "lgamma": scipy.special.gammaln,
        "tgamma": scipy.special.gamma,
        "digamma": scipy.special.psi,
        "trigamma": lambda u: scipy.special.polygamma(1, u),
    },
    "scipy",
    "numpy",
]


def _reference(expr: sp.Expr, form: InternalForm):
    """float64 NumPy function of (*inputs, *params)."""
    fn = sp.lambdify(list(form.inputs) + list(form.params), expr, modules=_MODULES)

    def call(*args):
        with np.errstate(all="ignore"):
            full = np.broadcast_arrays(*[np.asarray(a, dtype=np.float64) for a in args])
            out = fn(*[np.array(a) for a in full])
        return np.broadcast_to(np.asarray(out, dtype=np.float64), np.shape(args[0]))

    return call


_PTR = ctypes.c_void_p
_I64 = ctypes.c_int64


def _ptr(a: np.ndarray) -> ctypes.c_void_p:
    return a.ctypes.data_as(_PTR)


@functools.cache
def _host_library(text: str, workdir: str) -> ctypes.CDLL:
    import hashlib

    name = hashlib.sha256(text.encode()).hexdigest()[:24]
    src = Path(workdir) / f"{name}.cpp"
    lib = Path(workdir) / f"{name}.so"
    src.write_text(text)
    cmd = [
        CXX,
        "-O1",
        "-std=c++17",
        "-Wall",
        "-Werror",
        "-shared",
        "-fPIC",
        "-x",
        "c++",
        str(src),
        "-o",
        str(lib),
    ]
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return ctypes.CDLL(str(lib))


@pytest.fixture(scope="module")
def host_dir(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("cuda_host"))


def _tol(dtype: str) -> dict:
    return (
        {"rtol": 2e-5, "atol": 2e-6}
        if dtype == "float32"
        else {"rtol": 1e-11, "atol": 1e-13}
    )


def _grid(rows: int) -> np.ndarray:
    # avoids the kinks at 0, +-0.5, +-1, +-3, +-6 and integer steps
    return np.linspace(-5.9, 5.9, rows) + 0.01371


def _layer_setup(forms, dtype):
    """Two columns per form (the second with constants scaled by 1.25)."""
    m = len(forms)
    cols = 2 * m
    ids = np.array([j % m for j in range(cols)], dtype=np.int32)
    offsets, params, col_values = [], [], []
    for j in range(cols):
        form = forms[ids[j]]
        values = [v * (1.25 if j >= m else 1.0) for v in form.param_values]
        offsets.append(len(params))
        params.extend(values)
        col_values.append(values)
    return (
        ids,
        np.array(offsets, dtype=np.int32),
        np.array(params, dtype=dtype),
        col_values,
    )


class _Modules:
    """Calls an entry point of every module in turn (as CudaProgram launches them)."""

    def __init__(self, libs: list) -> None:
        self.libs = libs

    def __getattr__(self, name: str):
        fns = [getattr(lib, name) for lib in self.libs]
        return lambda *args: [fn(*args) for fn in fns]


def _check_layer_on_host(forms, dtype, workdir) -> None:
    source = render_program(tuple(forms), "layer", dialect="cuda", dtype=dtype)
    lib = _Modules([_host_library(text, workdir) for text in _modules(source)])
    ids, offsets, params, col_values = _layer_setup(forms, dtype)
    rows, cols = 97, len(ids)
    x = np.ascontiguousarray(np.repeat(_grid(rows)[:, None], cols, axis=1), dtype=dtype)
    rng = np.random.default_rng(0)
    g = rng.standard_normal((rows, cols)).astype(dtype)
    y, dy, dx = (np.zeros_like(x) for _ in range(3))
    y2 = np.zeros_like(x)
    out = np.zeros(max(len(params), 1), dtype=np.float64)
    pp = _ptr(params) if params.size else None
    args = (_I64(rows), _I64(cols), _ptr(ids), _ptr(offsets), pp)
    lib.symnb_layer_forward(_ptr(x), _ptr(y), *args)
    lib.symnb_layer_forward_derivative(_ptr(x), _ptr(y2), _ptr(dy), *args)
    lib.symnb_layer_backward(_ptr(x), _ptr(g), _ptr(dx), *args)
    lib.symnb_layer_constant_gradient(_ptr(x), _ptr(g), _ptr(out), *args)
    xd = x.astype(np.float64)
    for j in range(cols):
        form = forms[ids[j]]
        cv = col_values[j]
        ref_f = _reference(form.f, form)(xd[:, j], *cv)
        ref_df = _reference(form.df, form)(xd[:, j], *cv)
        what = f"column {j} ({form.name}, {dtype})"
        np.testing.assert_allclose(y[:, j], ref_f, **_tol(dtype), err_msg=what + " f")
        # the fused f/f' shares subexpressions with f': equal up to rounding
        np.testing.assert_allclose(
            y2[:, j], y[:, j], **_tol(dtype), err_msg=what + " fused"
        )
        np.testing.assert_allclose(
            dy[:, j], ref_df, **_tol(dtype), err_msg=what + " f'"
        )
        np.testing.assert_allclose(
            dx[:, j],
            g[:, j].astype(np.float64) * ref_df,
            **_tol(dtype),
            err_msg=what + " backward",
        )
        for k, dp in enumerate(form.dparams):
            terms = g[:, j].astype(np.float64) * _reference(dp, form)(xd[:, j], *cv)
            scale = float(np.sum(np.abs(terms))) + 1e-30
            got = out[offsets[j] + k]
            assert (
                abs(got - terms.sum())
                <= (2e-5 if dtype == "float32" else 1e-10) * scale
            ), (
                what,
                k,
                got,
                terms.sum(),
            )
    # NaN in, NaN out (every column, f and f')
    xn = np.full((3, cols), np.nan, dtype=dtype)
    yn, dyn = np.zeros_like(xn), np.zeros_like(xn)
    lib.symnb_layer_forward_derivative(
        _ptr(xn), _ptr(yn), _ptr(dyn), _I64(3), _I64(cols), _ptr(ids), _ptr(offsets), pp
    )
    assert np.isnan(yn).all() and np.isnan(dyn).all()


@needs_cxx
@pytest.mark.parametrize("dtype", DTYPES)
def test_host_build_local_layer_matches_numpy(dtype, host_dir):
    _check_layer_on_host(tuple(local_activations().values()), dtype, host_dir)


@needs_cxx
@pytest.mark.parametrize("dtype", DTYPES)
def test_host_build_library_layer_matches_numpy(dtype, host_dir):
    _check_layer_on_host(library_layer_forms(), dtype, host_dir)


def _check_elementwise_on_host(form, dtype, workdir) -> None:
    source = render_program((form,), "elementwise", dialect="cuda", dtype=dtype)
    lib = _host_library(source.text, workdir)
    x = _grid(101).astype(dtype)
    n = _I64(x.size)
    c = np.array(form.param_values, dtype=dtype)
    cp = _ptr(c) if c.size else None
    g = np.random.default_rng(1).standard_normal(x.size).astype(dtype)
    y, y2, dy, dx = (np.zeros_like(x) for _ in range(4))
    lib.symnb_forward(_ptr(x), _ptr(y), n, cp)
    lib.symnb_forward_derivative(_ptr(x), _ptr(y2), _ptr(dy), n, cp)
    lib.symnb_backward(_ptr(x), _ptr(g), _ptr(dx), n, cp)
    xd = x.astype(np.float64)
    ref_df = _reference(form.df, form)(xd, *form.param_values)
    np.testing.assert_allclose(
        y, _reference(form.f, form)(xd, *form.param_values), **_tol(dtype)
    )
    np.testing.assert_allclose(y2, y, **_tol(dtype))
    np.testing.assert_allclose(dy, ref_df, **_tol(dtype))
    np.testing.assert_allclose(dx, g.astype(np.float64) * ref_df, **_tol(dtype))
    if form.params:
        out = np.zeros(len(form.params), dtype=np.float64)
        lib.symnb_constant_gradient(_ptr(x), _ptr(g), _ptr(out), n, cp)
        for k, dp in enumerate(form.dparams):
            terms = g.astype(np.float64) * _reference(dp, form)(xd, *form.param_values)
            tol = (2e-5 if dtype == "float32" else 1e-10) * (
                np.abs(terms).sum() + 1e-30
            )
            assert abs(out[k] - terms.sum()) <= tol


@needs_cxx
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["swish", "softplus_beta", "gelu"])
def test_host_build_elementwise_matches_numpy(name, dtype, host_dir):
    _check_elementwise_on_host(local_activations()[name], dtype, host_dir)


def _check_loss_on_host(form, dtype, workdir) -> None:
    source = render_program((form,), "loss", dialect="cuda", dtype=dtype)
    lib = _host_library(source.text, workdir)
    rng = np.random.default_rng(2)
    n = 257
    p = rng.uniform(0.02, 0.98, n).astype(dtype)
    t = rng.uniform(0.0, 1.0, n).astype(dtype)
    c = np.array(form.param_values, dtype=dtype)
    cp = _ptr(c) if c.size else None
    out = np.zeros(1, dtype=np.float64)
    lib.symnb_loss_value(_ptr(p), _ptr(t), _I64(n), cp, _ptr(out))
    g = np.zeros_like(p)
    lib.symnb_loss_gradient.argtypes = [_PTR, _PTR, _PTR, _I64, _PTR, ctypes.c_double]
    lib.symnb_loss_gradient(_ptr(p), _ptr(t), _ptr(g), n, cp, 1.0 / n)
    pd, td = p.astype(np.float64), t.astype(np.float64)
    ref = _reference(form.f, form)(pd, td, *form.param_values)
    tol = 2e-5 if dtype == "float32" else 1e-11
    assert abs(out[0] - ref.sum()) <= tol * (np.abs(ref).sum() + 1e-30), (
        out[0],
        ref.sum(),
    )
    ref_g = _reference(form.df, form)(pd, td, *form.param_values) / n
    np.testing.assert_allclose(
        g, ref_g, rtol=_tol(dtype)["rtol"], atol=_tol(dtype)["atol"] / n
    )
    pn = np.full(4, np.nan, dtype=dtype)
    gn = np.zeros_like(pn)
    lib.symnb_loss_gradient(_ptr(pn), _ptr(t), _ptr(gn), 4, cp, 1.0)
    assert np.isnan(gn).all()


@needs_cxx
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(local_losses()))
def test_host_build_local_loss_matches_numpy(name, dtype, host_dir):
    _check_loss_on_host(local_losses()[name], dtype, host_dir)


@needs_cxx
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", _library_names("loss"))
def test_host_build_library_loss_matches_numpy(name, dtype, host_dir):
    _check_loss_on_host(library_form("loss", name), dtype, host_dir)


# --------------------------------------------------------------------------------------
# The CUDA backend up to the launch


def test_probe_says_why():
    status = cuda.probe()
    assert status.name == "cuda"
    assert isinstance(status.usable, bool)
    if not status.usable:
        assert status.reason and status.fix
    else:
        assert status.details["devices"]
        assert all("compute_capability" in d for d in status.details["devices"])


def test_probe_is_cached():
    assert cuda.probe() is cuda.probe()


def test_probe_without_cupy(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_cupy(name, *args, **kwargs):
        if name == "cupy" or name.startswith("cupy."):
            raise ImportError("No module named 'cupy'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cupy)
    status = cuda._probe_uncached()
    assert not status.usable and "cupy is not installed" in status.reason
    assert "cupy-cuda13x" in status.fix


def test_probe_without_nvrtc(monkeypatch):
    pytest.importorskip("cupy")
    monkeypatch.setattr(nvrtc, "available", lambda: (False, "NVRTC not found: test"))
    status = cuda._probe_uncached()
    assert not status.usable and "NVRTC" in status.reason
    assert "nvidia-cuda-nvrtc" in status.fix


def test_build_without_gpu_raises_backend_unavailable():
    status = cuda.probe()
    if status.usable:
        pytest.skip(
            "a CUDA GPU is present; tests/backends/test_cuda_runtime.py covers it"
        )
    with pytest.raises(BackendUnavailable, match="not available"):
        cuda.build((local_activations()["swish"],), "elementwise", "float32", 0)


def test_choose_arch():
    assert cuda.choose_arch("90", (13, 0)) == "sm_90"
    assert cuda.choose_arch(80, (12, 4)) == "sm_80"
    assert cuda.choose_arch(120, (12, 4)) == "compute_90"  # newer GPU than NVRTC: PTX
    assert cuda.choose_arch(130, (13, 0)) == "compute_121"


def test_launch_config():
    assert cuda.launch_config(1, 132) == ((1,), (256,))
    assert cuda.launch_config(257, 132) == ((2,), (256,))
    grid, block = cuda.launch_config(10**9, 132)
    assert block == (256,) and grid == (132 * cuda.BLOCKS_PER_SM,)
    assert cuda.launch_config(3 * 2**31, 4)[0] == (4 * cuda.BLOCKS_PER_SM,)
    with pytest.raises(ValueError):
        cuda.launch_config(0, 132)


@needs_nvrtc
def test_compile_source_caches_cubin(tmp_path):
    cache = KernelCache(tmp_path / "cache")
    source = render_program(
        (local_activations()["swish"],), "elementwise", dialect="cuda", dtype="float32"
    )
    first = cuda.compile_source(source, "sm_90", cache=cache)
    assert not first.cache_hit and first.path.suffix == ".cubin"
    assert first.path.read_bytes()[:4] == b"\x7fELF"
    assert "-ftz=true" not in first.options and "-arch=sm_90" in first.options
    second = cuda.compile_source(source, "sm_90", cache=cache)
    assert second.cache_hit and second.path == first.path
    other = cuda.compile_source(source, "sm_80", cache=cache)
    assert other.path != first.path
    ptx = cuda.compile_source(source, "compute_90", cache=cache)
    assert ptx.path.suffix == ".ptx" and ".entry symnb_forward" in ptx.path.read_text()


@needs_nvrtc
def test_compile_source_error_has_log(tmp_path):
    class Bad:
        text = 'extern "C" __global__ void k(float* y) { y[0] = undefined_thing; }'
        digest = "bad"

    with pytest.raises(CompileError) as info:
        cuda.compile_source(Bad(), "sm_90", cache=KernelCache(tmp_path / "c"))
    assert "undefined_thing" in info.value.log
    assert not any(p.suffix == ".cubin" for p in (tmp_path / "c").iterdir())


class _Recorder:
    def __init__(self, name: str, calls: list) -> None:
        self.name, self.calls = name, calls

    def __call__(self, grid, block, args) -> None:
        self.calls.append((self.name, grid, block, args))


def _fake_program(kind: str, calls: list) -> cuda.CudaProgram:
    return cuda.CudaProgram(
        kind=kind,
        dtype="float32",
        device=0,
        functions={n: _Recorder(n, calls) for n in cuda.ENTRY_POINTS[kind]},
        source="// text",
        cache_hit=False,
        compile_seconds=0.1,
        multiprocessors=2,
        xp=np,
    )


def test_program_argument_lists_match_the_abi():
    calls: list = []
    prog = _fake_program("elementwise", calls)
    x = np.ones(1000, np.float32)
    y, dy = np.empty_like(x), np.empty_like(x)
    c = np.ones(2, np.float32)
    prog.forward(x, y, c)
    prog.backward(x, x, dy, c)
    prog.forward_derivative(x, y, dy, c)
    prog.forward_backward(x, x, y, dy, c)
    out = prog.constant_gradient(x, x, c)
    assert out.dtype == np.float64 and out.shape == (2,) and not out.any()
    names = [c_[0] for c_ in calls]
    assert names == [
        "forward",
        "backward",
        "forward_derivative",
        "forward_backward",
        "constant_gradient",
    ]
    _, grid, block, args = calls[0]
    assert grid == (4,) and block == (256,)
    assert args[2] == 1000 and isinstance(args[2], np.int64)
    assert calls[3][3][:4] == (x, x, y, dy) and calls[3][3][4] == 1000
    assert calls[4][3][2] is out  # the zeroed double accumulator
    prog.constant_gradient(x, x, np.zeros(0, np.float32))  # k = 0: no launch
    assert len(calls) == 5


def test_program_layer_and_loss_arguments():
    calls: list = []
    prog = _fake_program("layer", calls)
    x = np.ones((8, 3), np.float32)
    ids = offsets = np.zeros(3, np.int32)
    params = np.ones(3, np.float32)
    prog.layer_forward(x, x, ids, offsets, params)
    out = prog.layer_constant_gradient(x, x, ids, offsets, params)
    assert out.shape == (3,) and out.dtype == np.float64
    rows, cols = calls[0][3][2:4]
    assert (rows, cols) == (8, 3) and isinstance(rows, np.int64)

    calls.clear()
    loss = _fake_program("loss", calls)
    p = np.ones(10, np.float32)
    assert loss.loss_value(p, p, np.zeros(0, np.float32)) == 0.0
    loss.loss_gradient(p, p, p, np.zeros(0, np.float32), 0.1)
    scale = calls[1][3][5]
    assert isinstance(scale, np.float64) and scale == 0.1
    with pytest.raises(AttributeError):
        loss.forward(p, p, p)  # a loss program has no elementwise entry points


def _pretend_gpu(monkeypatch, tmp_path):
    """A usable H200-like status and a loader that records instead of loading."""
    from symnb.backends.base import BackendStatus

    status = BackendStatus(
        "cuda",
        True,
        "1 device(s)",
        "",
        {
            "devices": [
                {
                    "id": 0,
                    "name": "fake",
                    "compute_capability": "90",
                    "multiprocessors": 132,
                }
            ]
        },
    )
    monkeypatch.setattr(cuda, "probe", lambda refresh=False: status)
    loaded: list = []

    def fake_load(path, device, symbols):
        loaded.append((path, device, dict(symbols)))
        calls: list = []
        return object(), {n: _Recorder(n, calls) for n in symbols}

    monkeypatch.setattr(cuda, "_load_functions", fake_load)
    monkeypatch.setattr(cuda, "_array_module", lambda: np)
    monkeypatch.setattr(
        cuda, "_device_context", lambda device: contextlib.nullcontext()
    )
    return KernelCache(tmp_path / "cache"), loaded


@needs_nvrtc
@pytest.mark.parametrize("kind", ["elementwise", "layer", "loss"])
def test_build_up_to_the_launch(kind, monkeypatch, tmp_path):
    cache, loaded = _pretend_gpu(monkeypatch, tmp_path)
    if kind == "loss":
        forms = (local_losses()["huber"],)
    elif kind == "layer":
        forms = (local_activations()["swish"], local_activations()["relu"])
    else:
        forms = (local_activations()["swish"],)
    prog = cuda.build(forms, kind, "float32", 0, cache=cache)
    assert not prog.cache_hit and prog.compile_seconds > 0
    assert prog.arch == "sm_90" and prog.artifact.suffix == ".cubin"
    path, device, symbols = loaded[0]
    assert path == prog.artifact and device == 0
    assert set(symbols) == set(cuda.ENTRY_POINTS[kind])
    assert all(sym in prog.source for sym in symbols.values())
    again = cuda.build(forms, kind, "float32", 0, cache=cache)
    assert again.cache_hit and again.artifact == prog.artifact
    with pytest.raises(BackendUnavailable, match="no CUDA device 3"):
        cuda.build(forms, kind, "float32", 3, cache=cache)
    # the launches go through the recorded functions with the ABI's arguments
    if kind == "elementwise":
        x = np.ones(10, np.float32)
        prog.forward(x, x.copy(), np.ones(1, np.float32))


def test_ctypes_route_matches_cupy_route():
    """The wheel-via-ctypes binding (used without CuPy) compiles like cupy.cuda.nvrtc."""
    try:
        direct = nvrtc._CtypesNVRTC()
    except OSError as exc:
        pytest.skip(f"no nvidia-cuda-nvrtc wheel to load with ctypes: {exc}")
    source = render_program(
        (local_activations()["gelu"],), "elementwise", dialect="cuda", dtype="float32"
    )
    opts = (*nvrtc.SYMNB_OPTIONS, "-arch=sm_90")
    ok, ptx, cubin, log = direct.compile(source.text, "k.cu", opts)
    assert ok and log.strip() == "" and cubin[:4] == b"\x7fELF"
    if NVRTC_OK:
        ref_ptx, _ = nvrtc.compile_check(source.text, "sm_90")
        body = ptx[ptx.index(".visible .entry") :]
        assert body == ref_ptx[ref_ptx.index(".visible .entry") :]
    ok, _, _, log = direct.compile("int x = ;", "bad.cu", opts)
    assert not ok and "error" in log


class _HostRawKernel:
    """RawKernel's calling convention over the host (g++) build of the CUDA text."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, grid, block, args) -> None:
        assert len(grid) == 1 and len(block) == 1 and grid[0] >= 1
        conv = []
        for a in args:
            if isinstance(a, np.ndarray):
                conv.append(_ptr(a) if a.size else None)
            elif isinstance(a, np.int64):
                conv.append(_I64(int(a)))
            elif isinstance(a, np.float64):
                conv.append(ctypes.c_double(float(a)))
            else:
                raise TypeError(f"unexpected kernel argument {type(a).__name__}")
        self.fn(*conv)


def _run_on_host(monkeypatch, host_dir) -> tuple[list, list]:
    """Make cuda.build load host (g++) builds of the modules it compiled, in order:
    returns the rendered sources and the loaded paths of the last build."""
    sources: list = []
    loads: list = []
    real_render = cuda.render

    def recording_render(forms, kind, dt):
        src = real_render(forms, kind, dt)
        sources.append(src)
        loads.clear()
        return src

    def host_load(path, device, symbols):
        lib = _host_library(_modules(sources[-1])[len(loads)], host_dir)
        loads.append(path)
        return lib, {n: _HostRawKernel(getattr(lib, s)) for n, s in symbols.items()}

    monkeypatch.setattr(cuda, "render", recording_render)
    monkeypatch.setattr(cuda, "_load_functions", host_load)
    return sources, loads


@needs_nvrtc
@needs_cxx
@pytest.mark.parametrize("dtype", DTYPES)
def test_program_calls_run_the_kernels(dtype, monkeypatch, tmp_path, host_dir):
    """CudaProgram's argument lists drive the real kernel code (built for the host)."""
    cache, _ = _pretend_gpu(monkeypatch, tmp_path)
    _run_on_host(monkeypatch, host_dir)
    tol = _tol(dtype)
    rng = np.random.default_rng(5)

    swish = local_activations()["swish"]
    prog = cuda.build((swish,), "elementwise", dtype, 0, cache=cache)
    x = _grid(77).astype(dtype)
    g = rng.standard_normal(x.size).astype(dtype)
    c = np.array([1.5], dtype=dtype)
    y, dy, dx = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    prog.forward(x, y, c)
    prog.forward_derivative(x, y, dy, c)
    prog.backward(x, g, dx, c)
    xd = x.astype(np.float64)
    ref_df = _reference(swish.df, swish)(xd, 1.5)
    np.testing.assert_allclose(y, _reference(swish.f, swish)(xd, 1.5), **tol)
    np.testing.assert_allclose(dy, ref_df, **tol)
    np.testing.assert_allclose(dx, g * ref_df, **tol)
    cg = prog.constant_gradient(x, g, c)
    want = float(np.sum(g * _reference(swish.dparams[0], swish)(xd, 1.5)))
    assert cg[0] == pytest.approx(want, rel=1e-4)

    forms = (local_activations()["hardtanh"], local_activations()["relu"], swish)
    layer = cuda.build(forms, "layer", dtype, 0, cache=cache)
    ids = np.array([0, 1, 2], np.int32)
    offsets = np.array([0, 2, 2], np.int32)
    params = np.array([-0.5, 0.75, 2.0], dtype=dtype)
    xl = np.ascontiguousarray(np.repeat(x[:, None], 3, axis=1))
    gl = np.ascontiguousarray(rng.standard_normal(xl.shape).astype(dtype))
    yl, dyl = np.empty_like(xl), np.empty_like(xl)
    layer.layer_forward_derivative(xl, yl, dyl, ids, offsets, params)
    np.testing.assert_allclose(yl[:, 0], np.clip(xd, -0.5, 0.75), **tol)
    np.testing.assert_allclose(yl[:, 1], np.maximum(xd, 0), **tol)
    np.testing.assert_allclose(yl[:, 2], _reference(swish.f, swish)(xd, 2.0), **tol)
    out = layer.layer_constant_gradient(xl, gl, ids, offsets, params)
    assert out.shape == (3,) and out.dtype == np.float64
    want = float(np.sum(gl[:, 2] * _reference(swish.dparams[0], swish)(xd, 2.0)))
    assert out[2] == pytest.approx(want, rel=1e-4)
    assert out[0] == pytest.approx(float(np.sum(gl[:, 0] * (xd <= -0.5))), rel=1e-5)

    huber = local_losses()["huber"]
    loss = cuda.build((huber,), "loss", dtype, 0, cache=cache)
    p = rng.standard_normal(50).astype(dtype)
    t = rng.standard_normal(50).astype(dtype)
    c = np.array([0.7], dtype=dtype)
    pd, td = p.astype(np.float64), t.astype(np.float64)
    want = float(np.sum(_reference(huber.f, huber)(pd, td, 0.7)))
    assert loss.loss_value(p, t, c) == pytest.approx(want, rel=1e-5)
    gp = np.empty_like(p)
    loss.loss_gradient(p, t, gp, c, 0.02)
    np.testing.assert_allclose(
        gp, 0.02 * _reference(huber.df, huber)(pd, td, 0.7), **tol
    )


@needs_nvrtc
@needs_cxx
def test_layer_of_many_forms_runs_one_module_per_group(monkeypatch, tmp_path, host_dir):
    """A layer with more forms than LAYER_SPLIT_FORMS becomes several NVRTC modules;
    the Program launches each in turn and together they give every column."""
    from symnb.codegen import kernels

    monkeypatch.setattr(kernels, "LAYER_SPLIT_FORMS", 2)
    monkeypatch.setattr(kernels, "LAYER_UNIT_FORMS", 2)
    cache, _ = _pretend_gpu(monkeypatch, tmp_path)
    sources, loads = _run_on_host(monkeypatch, host_dir)
    acts = local_activations()
    forms = (acts["hardtanh"], acts["relu"], acts["swish"])
    layer = cuda.build(forms, "layer", "float32", 0, cache=cache)
    assert len(sources[-1].units) == 2 and len(set(loads)) == 2  # two cubins
    ids = np.array([2, 0, 1, 2, 7], np.int32)  # 7: no such form -> NaN
    offsets = np.array([0, 1, 3, 3, 4], np.int32)
    params = np.array([2.0, -0.5, 0.75, 0.5, 0.0], np.float32)
    x = np.ascontiguousarray(np.repeat(_grid(41)[:, None], 5, axis=1).astype("float32"))
    g = np.random.default_rng(3).standard_normal(x.shape).astype(np.float32)
    y, dy, dx = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    layer.layer_forward_derivative(x, y, dy, ids, offsets, params)
    layer.layer_backward(x, g, dx, ids, offsets, params)
    xd = x[:, 0].astype(np.float64)
    swish = forms[2]
    tol = _tol("float32")
    for j, beta in ((0, 2.0), (3, 0.5)):
        np.testing.assert_allclose(y[:, j], _reference(swish.f, swish)(xd, beta), **tol)
        ref_df = _reference(swish.df, swish)(xd, beta)
        np.testing.assert_allclose(dy[:, j], ref_df, **tol)
        np.testing.assert_allclose(dx[:, j], g[:, j] * ref_df, **tol)
    np.testing.assert_allclose(y[:, 1], np.clip(xd, -0.5, 0.75), **tol)
    np.testing.assert_allclose(y[:, 2], np.maximum(xd, 0), **tol)
    assert np.isnan(y[:, 4]).all() and np.isnan(dx[:, 4]).all()
    out = layer.layer_constant_gradient(x, g, ids, offsets, params)
    want = float(np.sum(g[:, 0] * _reference(swish.dparams[0], swish)(xd, 2.0)))
    assert out[0] == pytest.approx(want, rel=1e-4)
    assert out[1] == pytest.approx(float(np.sum(g[:, 1] * (xd <= -0.5))), rel=1e-5)
