"""The CUDA backend on a real GPU: values against float64 NumPy, caching, subnormals,
NaN.

Skipped (with the reason) where there is no usable CUDA GPU; see test_cuda_compile.py
for what is checked without one.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symnb.backends import cuda
from symnb.backends.cache import KernelCache
from symnb.formula.functions import sigmoid, softplus
from symnb.formula.internal import InternalForm, P, T, X, param_symbol
from tests.codegen.reference_forms import HUBER

_STATUS = cuda.probe()
pytestmark = pytest.mark.skipif(
    not _STATUS.usable, reason=f"no CUDA GPU: {_STATUS.reason}"
)

c0, c1 = param_symbol(0), param_symbol(1)


def _heaviside0(e: sp.Expr) -> sp.Expr:
    return e.replace(
        lambda a: isinstance(a, sp.Heaviside), lambda a: sp.Heaviside(a.args[0], 0)
    )


def _act(name, f, params=(), values=()):
    return InternalForm(
        "activation",
        name,
        (X,),
        tuple(params),
        tuple(str(p) for p in params),
        tuple(values),
        f,
        _heaviside0(sp.diff(f, X)),
        tuple(_heaviside0(sp.diff(f, p)) for p in params),
    )


def _loss(name, f, params=(), values=()):
    return InternalForm(
        "loss",
        name,
        (P, T),
        tuple(params),
        tuple(str(p) for p in params),
        tuple(values),
        f,
        _heaviside0(sp.diff(f, P)),
        tuple(_heaviside0(sp.diff(f, p)) for p in params),
    )


FORMS = {
    "identity": _act("identity", X),
    "scale": _act("scale", X * c0, (c0,), (1.0,)),
    "relu": _act("relu", sp.Max(0, X)),
    "swish": _act("swish", X * sigmoid(c0 * X), (c0,), (1.0,)),
    "gelu": _act("gelu", X / 2 * (1 + sp.erf(X / sp.sqrt(2)))),
    "mish": _act("mish", X * sp.tanh(softplus(X))),
    "hardtanh": _act("hardtanh", sp.Min(sp.Max(X, c0), c1), (c0, c1), (-1.0, 1.0)),
}
LOSSES = {
    "mse": _loss("mse", (P - T) ** 2),
    "huber": _loss(
        "huber",
        HUBER,
        (c0,),
        (1.0,),
    ),
}

_MODULES = [
    {
        "sigmoid": lambda u: 1 / (1 + np.exp(-u)),
        "softplus": lambda u: np.maximum(u, 0) + np.log1p(np.exp(-np.abs(u))),
    },
    "scipy",
    "numpy",
]


def _ref(expr, form, *args):
    fn = sp.lambdify(list(form.inputs) + list(form.params), expr, modules=_MODULES)
    full = np.broadcast_arrays(*[np.asarray(a, dtype=np.float64) for a in args])
    with np.errstate(all="ignore"):
        return np.broadcast_to(
            np.asarray(fn(*[np.array(a) for a in full]), float), full[0].shape
        )


def _tol(dtype: str) -> dict:
    return (
        {"rtol": 1e-5, "atol": 1e-6}
        if dtype == "float32"
        else {"rtol": 1e-12, "atol": 1e-14}
    )


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> KernelCache:
    return KernelCache(tmp_path_factory.mktemp("cuda_cache"))


@pytest.fixture(scope="module")
def cp():
    return pytest.importorskip("cupy")


def _points() -> np.ndarray:
    base = np.array([0.0, 1e-8, -1e-8, 1, -1, 20, -20, 88, -88, 100, -100, 1e4, -1e4])
    return np.concatenate([base, np.linspace(-7.3, 7.3, 1001)])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(FORMS))
def test_elementwise_matches_numpy(name, dtype, cache, cp):
    form = FORMS[name]
    prog = cuda.build((form,), "elementwise", dtype, 0, cache=cache)
    x_host = _points().astype(dtype)
    x = cp.asarray(x_host)
    c = cp.asarray(np.array(form.param_values, dtype=dtype))
    g = cp.asarray(np.random.default_rng(0).standard_normal(x.size).astype(dtype))
    y, dy, dx = cp.empty_like(x), cp.empty_like(x), cp.empty_like(x)
    prog.forward(x, y, c)
    xd = x_host.astype(np.float64)
    ref_f = _ref(form.f, form, xd, *form.param_values)
    ref_df = _ref(form.df, form, xd, *form.param_values)
    finite = np.isfinite(ref_f)
    np.testing.assert_allclose(y.get()[finite], ref_f[finite], **_tol(dtype))
    y2 = cp.empty_like(x)
    prog.forward_derivative(x, y2, dy, c)
    np.testing.assert_allclose(y2.get()[finite], ref_f[finite], **_tol(dtype))
    ok = np.isfinite(ref_df) & (np.abs(xd) > 1e-6)  # kinks at 0
    np.testing.assert_allclose(dy.get()[ok], ref_df[ok], **_tol(dtype))
    prog.backward(x, g, dx, c)
    np.testing.assert_allclose(dx.get()[ok], (g.get() * ref_df)[ok], **_tol(dtype))
    if form.params:
        xs = cp.asarray(np.linspace(-3.1, 3.1, 4097).astype(dtype))
        gs = cp.ones_like(xs)
        got = prog.constant_gradient(xs, gs, c).get()
        for k, dp in enumerate(form.dparams):
            ref = _ref(dp, form, xs.get().astype(np.float64), *form.param_values)
            assert got[k] == pytest.approx(ref.sum(), rel=1e-4, abs=1e-4)


def test_cache_hit_on_second_build(cache):
    form = FORMS["swish"]
    first = cuda.build((form,), "elementwise", "float32", 0, cache=cache)
    second = cuda.build((form,), "elementwise", "float32", 0, cache=cache)
    assert second.cache_hit
    assert second.artifact == first.artifact
    assert first.source == second.source and "symnb_forward" in first.source


def test_subnormals_survive_float32(cache, cp):
    # x * c with c = 1: a multiplication, which flush-to-zero would turn into 0
    prog = cuda.build((FORMS["scale"],), "elementwise", "float32", 0, cache=cache)
    x = cp.asarray(np.array([1e-40, -3e-42, 1.0], dtype=np.float32))
    y = cp.empty_like(x)
    prog.forward(x, y, cp.ones(1, cp.float32))
    np.testing.assert_array_equal(y.get(), x.get())  # no flush-to-zero


@pytest.mark.parametrize("name", sorted(FORMS))
def test_nan_in_nan_out(name, cache, cp):
    form = FORMS[name]
    prog = cuda.build((form,), "elementwise", "float32", 0, cache=cache)
    x = cp.full(5, cp.nan, dtype=cp.float32)
    y, dy = cp.empty_like(x), cp.empty_like(x)
    prog.forward_derivative(
        x, y, dy, cp.asarray(np.array(form.param_values, np.float32))
    )
    assert bool(cp.isnan(y).all()) and bool(cp.isnan(dy).all())


def test_grid_stride_covers_large_arrays(cache, cp):
    prog = cuda.build((FORMS["relu"],), "elementwise", "float32", 0, cache=cache)
    n = 2**25 + 7  # more elements than threads in the capped grid
    x = cp.arange(n, dtype=cp.float32) - n // 2
    y = cp.empty_like(x)
    prog.forward(x, y, cp.zeros(0, cp.float32))
    assert float(y[-1]) == float(x[-1]) and float(y[0]) == 0.0
    assert bool((y == cp.maximum(x, 0)).all())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_matches_numpy(dtype, cache, cp):
    forms = tuple(FORMS.values())
    prog = cuda.build(forms, "layer", dtype, 0, cache=cache)
    m = len(forms)
    ids = np.arange(m, dtype=np.int32)
    offsets, params = [], []
    for f in forms:
        offsets.append(len(params))
        params.extend(f.param_values)
    rows = 513
    x_host = np.repeat(np.linspace(-4.3, 4.3, rows)[:, None], m, axis=1).astype(dtype)
    x = cp.asarray(x_host)
    y, dy = cp.empty_like(x), cp.empty_like(x)
    d_ids, d_off = cp.asarray(ids), cp.asarray(np.array(offsets, np.int32))
    d_par = cp.asarray(np.array(params, dtype=dtype))
    prog.layer_forward_derivative(x, y, dy, d_ids, d_off, d_par)
    g = cp.ones_like(x)
    out = prog.layer_constant_gradient(x, g, d_ids, d_off, d_par).get()
    for j, form in enumerate(forms):
        xd = x_host[:, j].astype(np.float64)
        np.testing.assert_allclose(
            y.get()[:, j], _ref(form.f, form, xd, *form.param_values), **_tol(dtype)
        )
        np.testing.assert_allclose(
            dy.get()[:, j], _ref(form.df, form, xd, *form.param_values), **_tol(dtype)
        )
        for k, dp in enumerate(form.dparams):
            ref = _ref(dp, form, xd, *form.param_values).sum()
            assert out[offsets[j] + k] == pytest.approx(ref, rel=1e-4, abs=1e-4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_matches_numpy(name, dtype, cache, cp):
    form = LOSSES[name]
    prog = cuda.build((form,), "loss", dtype, 0, cache=cache)
    rng = np.random.default_rng(3)
    n = 100_003
    p_host = rng.standard_normal(n).astype(dtype)
    t_host = rng.standard_normal(n).astype(dtype)
    p, t = cp.asarray(p_host), cp.asarray(t_host)
    c = cp.asarray(np.array(form.param_values, dtype=dtype))
    pd, td = p_host.astype(np.float64), t_host.astype(np.float64)
    ref = _ref(form.f, form, pd, td, *form.param_values)
    assert prog.loss_value(p, t, c) == pytest.approx(ref.sum(), rel=1e-5)
    g = cp.empty_like(p)
    prog.loss_gradient(p, t, g, c, 1.0 / n)
    ref_g = _ref(form.df, form, pd, td, *form.param_values) / n
    np.testing.assert_allclose(g.get(), ref_g, rtol=_tol(dtype)["rtol"], atol=1e-6 / n)


def test_public_api_compiles_for_cuda():
    import symnb

    act = symnb.activation("swish")
    kernel = act.compile(backend="cuda", device=0, dtype="float32", strict=True)
    import cupy as cp

    x = cp.linspace(-5, 5, 1001, dtype=cp.float32)
    y = kernel.forward(x)
    ref = x.get() / (1 + np.exp(-x.get().astype(np.float64)))
    np.testing.assert_allclose(cp.asnumpy(y), ref, rtol=1e-5, atol=1e-6)
