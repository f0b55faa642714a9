"""Rare far-|x| branches (``symnb.codegen.rare``): computed only where needed.

The engine's large-|x| form of a rational function with its constants as symbols
(``regimes.symbolic_rational_tail``, PAU) is a rare branch: the C++ SIMD loops compute
the near form (0 where a far condition holds) and OR a flag, and only a flagged call
computes the whole form for its far elements; CUDA branches per thread. Checked here:
which branches count as rare, the split's near expressions, the kernels' values (every
entry point, in place or not, elementwise and per-neuron layers, with far elements,
inf and NaN mixed in) against NumPy's whole expression, and the CUDA text with NVRTC
and nvcc. The values at the moved constants against mpmath are
``tests/robust/test_rational_constants_moved.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symnb
from symnb.backends import status
from symnb.codegen import kernels
from symnb.codegen.kernels import render_program
from symnb.codegen.rare import RARE_MIN_MAGNITUDE, split_rare
from symnb.formula.internal import X
from symnb.robust import lower_all
from tests.reference import PAU_CONSTANTS, PAU_TEXT

needs_cpp = pytest.mark.skipif(not status("cpp").usable, reason="cpp not usable")
MOVED = {"a5": -0.3, "a4": 0.0, "b2": 2.0}  # PAU 5/4 as training may move it

# a far form: Horner in 1/x (nine operations or more)
FAR = (2 + 3 / X + 4 / X**2 + 5 / X**3) / (1 + 1 / X)
NEAR = (2 * X**3 + 3 * X**2 + 4 * X + 5) / (X**3 + X**2)


def test_split_takes_out_the_far_branches():
    e = sp.Piecewise(
        (FAR, X >= 1e8), (sp.Piecewise((-FAR, X <= -1e8), (NEAR, True)), True)
    )
    near, conditions = split_rare((e, sp.sin(X) + 2 * e), X)
    assert near == (NEAR, sp.sin(X) + 2 * NEAR)
    assert set(conditions) == {X >= 1e8, X <= -1e8}


@pytest.mark.parametrize(
    "e",
    [
        sp.Piecewise((X + 2, X >= 1e8), (NEAR, True)),  # an asymptote: cheap
        sp.Piecewise((FAR, X >= 4), (NEAR, True)),  # not far
        sp.Piecewise((FAR, X <= 1e8), (NEAR, True)),  # the near side
        sp.Piecewise((FAR, sp.Abs(X - 1) >= 1e8), (NEAR, True)),  # not x alone
        NEAR,
    ],
)
def test_other_branches_stay_selects(e):
    assert RARE_MIN_MAGNITUDE <= 1e8
    assert split_rare((e,), X) is None


def test_near_equals_the_whole_where_no_condition_holds():
    e = sp.Piecewise((FAR, X > 1e6), (NEAR, X < 0.5), (NEAR + 1, True))
    (near,), conditions = split_rare((e,), X)
    assert conditions == (X > 1e6,)
    for v in (-3.0, 0.25, 0.5, 7.0, 1e6):
        assert float(near.subs(X, v)) == float(e.subs(X, v))


def _pau(dtype: str):
    act = symnb.Activation(PAU_TEXT, name="pau_rare", **PAU_CONSTANTS)
    return act, lower_all((act.internal,), dtype)[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pau_far_forms_are_rare_and_left_out_of_the_simd_loops(dtype):
    _, form = _pau(dtype)
    assert split_rare((form.f, form.df), form.inputs[0]) is not None
    text = render_program((form,), "elementwise", "cpp", dtype).text
    forward = text[text.index("void symnb_forward(") :]
    forward = forward[: forward.index("SYMNB_KERNEL")]
    simd = forward[forward.rindex("int far = 0;") : forward.index("if (far)")]
    assert "symnb_nf0(" in simd and "symnb_f0(" not in simd
    # still a cheap kernel
    assert f"#define SYMNB_PARALLEL_MIN {kernels.PARALLEL_MIN_CHEAP}" in text


def _inputs(dtype: str) -> np.ndarray:
    big = np.finfo(dtype).max
    x = np.random.default_rng(1).normal(0, 3, 4099).astype(dtype)
    far = [1e9, -1e9, 1e20, -1e20, big, -big, np.inf, -np.inf, np.nan, 7e7, -7e7]
    at = np.random.default_rng(2).choice(x.size, len(far), replace=False)
    x[at] = np.array(far, dtype=dtype)
    return x


def _close(got, want, dtype):
    tol = (
        {"rtol": 4e-5, "atol": 2e-6}
        if dtype == "float32"
        else {"rtol": 1e-9, "atol": 1e-12}
    )
    np.testing.assert_allclose(got, want, equal_nan=True, **tol)


def _kernels(dtype: str):
    act, _ = _pau(dtype)
    cpp = act.compile("cpp", dtype=dtype)
    ref = act.compile("numpy", dtype=dtype)
    for k in (cpp, ref):
        k.set_constants(**MOVED)
    return cpp, ref


@needs_cpp
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_elementwise_entry_points_match_the_whole_expression(dtype):
    cpp, ref = _kernels(dtype)
    x = _inputs(dtype)
    g = np.random.default_rng(3).normal(0, 1, x.size).astype(dtype)
    y_ref, dy_ref = ref.forward_with_derivative(x)
    assert np.isfinite(y_ref[np.isfinite(x)]).all()  # the far form at work
    _close(cpp.forward(x), y_ref, dtype)
    _close(cpp.backward(x, g), g * dy_ref, dtype)
    for got, want in zip(cpp.forward_with_derivative(x), (y_ref, dy_ref)):
        _close(got, want, dtype)
    for got, want in zip(cpp.forward_and_backward(x, g), (y_ref, g * dy_ref)):
        _close(got, want, dtype)
    # in place: the far elements' inputs must survive the first pass
    xc = x.copy()
    _close(cpp.forward(xc, out=xc), y_ref, dtype)
    xc, gc = x.copy(), g.copy()
    got = cpp.forward_and_backward(xc, gc, out=(gc, xc))
    _close(got[0], y_ref, dtype)
    _close(got[1], g * dy_ref, dtype)
    xc = x.copy()
    _close(cpp.backward(xc, g, out=xc), g * dy_ref, dtype)
    xc = x.copy()
    got = cpp.forward_with_derivative(xc, out=(np.empty_like(x), xc))
    _close(got[0], y_ref, dtype)
    _close(got[1], dy_ref, dtype)
    # only near elements (no second pass) and a single far one
    near = np.where(np.abs(x) < 1e3, x, 1).astype(dtype)
    _close(cpp.forward(near), ref.forward(near), dtype)
    one = np.array([3e30], dtype=dtype)
    _close(cpp.forward(one), ref.forward(one), dtype)


@needs_cpp
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_backward_with_constants_matches(dtype):
    from symnb.interop.native import NativeElementwise

    cpp, ref = _kernels(dtype)
    x = _inputs(dtype)
    x = np.where(np.isfinite(x), x, 2).astype(dtype)
    g = np.random.default_rng(4).normal(0, 1, x.size).astype(dtype)
    native = NativeElementwise.of(cpp)
    want_dx = ref.backward(x, g)
    near = np.abs(x) < 1e3
    want_dc = ref.constant_gradient(x[near], g[near])

    def run(fn, xa, ga):
        """(dx, the constants' gradient sums) of one fused variant."""
        dx = np.empty_like(xa)
        sums = np.zeros(len(want_dc))
        arrays = (xa, ga, dx, sums)
        fn(*(v.ctypes.data for v in arrays), xa.size, cpp.params.ctypes.data)
        return dx, sums

    for fn in native.fused_variants:
        _close(run(fn, x, g)[0], want_dx, dtype)
        # the constants' gradient has no far form (NaN past |x| ~ 1e7 in float32,
        # as before): summed over the near elements
        xn, gn = np.ascontiguousarray(x[near]), np.ascontiguousarray(g[near])
        sums = run(fn, xn, gn)[1]
        np.testing.assert_allclose(sums, list(want_dc.values()), rtol=1e-4)


@needs_cpp
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["runs", "alternating", "split"])
def test_layer_matches_the_elementwise_kernel(dtype, layout):
    act, _ = _pau(dtype)
    moved = act.with_constants(**MOVED)
    relu = symnb.activation("relu")
    acts = {
        "runs": [act] * 12 + [moved] * 12 + [relu] * 8,
        "alternating": [act, relu, moved, relu] * 8,
        # 17 distinct formulas: a layer of several translation units
        "split": [symnb.Activation(f"{k + 2}*tanh(x)") for k in range(16)]
        + [act, moved] * 7,
    }[layout]
    layer = symnb.compile_layer(acts, backend="cpp", dtype=dtype)
    if layout == "split":  # the column functions of the PAU form test first
        assert "symnb_magnitude16(x[r]);" in layer.source
    cols = len(acts)
    x = _inputs(dtype)[: 64 * cols].reshape(64, cols)
    g = np.random.default_rng(5).normal(0, 1, x.shape).astype(dtype)
    want_y = np.empty_like(x)
    want_dx = np.empty_like(x)
    for j, a in enumerate(acts):
        k = a.compile("numpy", dtype=dtype)
        want_y[:, j], dy = k.forward_with_derivative(np.ascontiguousarray(x[:, j]))
        want_dx[:, j] = g[:, j] * dy
    _close(layer.forward(x), want_y, dtype)
    _close(layer.backward(x, g), want_dx, dtype)
    # NumPy's layer: the far form over the far elements, per-column constants
    numpy_layer = symnb.compile_layer(acts, backend="numpy", dtype=dtype)
    _close(numpy_layer.forward(x), want_y, dtype)
    _close(numpy_layer.backward(x, g), want_dx, dtype)
    y, dx = layer.forward_and_backward(x, g)
    _close(y, want_y, dtype)
    _close(dx, want_dx, dtype)
    xc = x.copy()
    _close(layer.forward(xc, out=xc), want_y, dtype)
    # a feature axis that is not the last (planes)
    xt = np.ascontiguousarray(np.broadcast_to(x.T[None], (2, cols, 64)))
    _close(layer.forward(xt, axis=1), np.broadcast_to(want_y.T[None], xt.shape), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_text_compiles_with_nvrtc_and_nvcc(dtype):
    from symnb.backends import nvrtc
    from tests.backends.test_cuda_compile import _nvcc, _nvrtc_check

    ok, why = nvrtc.available()
    if not ok:
        pytest.skip(why)
    _, form = _pau(dtype)
    relu = symnb.activation("relu").internal
    sources = [
        render_program((form,), "elementwise", "cuda", dtype),
        render_program((form, relu), "layer", "cuda", dtype),
    ]
    split = [symnb.Activation(f"{k + 2}*tanh(x)").internal for k in range(16)] + [form]
    sources.append(render_program(tuple(split), "layer", "cuda", dtype))
    for src in sources:
        assert "if (!symnb_far" in src.text
        _nvrtc_check(src, dtype)
        if nvrtc.nvcc_path() is not None:
            _nvcc(src)


@needs_cpp
@pytest.mark.parametrize("layout", ["uniform", "per-neuron"])
@pytest.mark.parametrize("learn", [False, True], ids=["fixed", "learnable"])
def test_fused_training_step_matches_the_generic_path(layout, learn):
    """With learnable coefficients the step's constants' gradient loops (uniform
    blocks, per-neuron runs) sum the near forms and add the far elements' whole ones
    in a second pass; the gradients equal the generic path's."""
    from symnb import nn

    constants = dict(PAU_CONSTANTS)
    if learn:
        per = "neuron" if layout == "per-neuron" else "layer"
        constants = {k: symnb.learnable(v, per=per) for k, v in constants.items()}
    pau = symnb.Activation(PAU_TEXT, name="pau_step", **constants)
    moved = pau.with_constants(**MOVED)
    activation = pau if layout == "uniform" else [[pau, "relu", moved, pau, "tanh"]]
    kwargs = {"activation": activation, "loss": "mse", "dtype": "float64", "seed": 3}
    fused = nn.MLP([2, 5, 1], backend="cpp", fused=True, **kwargs)
    generic = nn.MLP([2, 5, 1], backend="cpp", fused=False, **kwargs)
    assert fused.fused and not generic.fused
    rng = np.random.default_rng(6)
    X = rng.normal(0, 2, (40, 2))
    y = rng.normal(0, 1, (40, 1))
    # rows whose first-layer inputs are past the far thresholds (1e61 in float64)
    X[3] = [1e70, -2e70]
    X[17] = [-3e80, 1e79]
    lf, gf = fused.loss_and_gradient(X, y)
    lg, gg = generic.loss_and_gradient(X, y)
    if learn:  # the split loops ran
        assert "far_dc |= symnb_fardc" in fused._fused_step().source.text
    assert np.isfinite(lf) and np.isfinite(gf).all()
    assert lf == pytest.approx(lg, rel=1e-10)
    np.testing.assert_allclose(gf, gg, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("branch", [True, False], ids=["branch", "select"])
def test_cuda_text_on_the_cpu_with_and_without_the_branch(tmp_path, dtype, branch):
    """The CUDA text built by g++: with SYMNB_RARE_BRANCH (what the GPU compiles: an
    if per thread) and without (one select), both equal NumPy's whole expression."""
    import shutil
    import subprocess

    from symnb.backends.cpp import CppProgram

    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not installed")
    _, form = _pau(dtype)
    src = render_program((form,), "elementwise", "cuda", dtype)
    cu = tmp_path / "rare.cpp"
    cu.write_text(src.text)
    so = tmp_path / "rare.so"
    flags = ["-DSYMNB_RARE_BRANCH"] if branch else []
    proc = subprocess.run(
        [gxx, "-O1", "-shared", "-fPIC", *flags, "-x", "c++", str(cu), "-o", str(so)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    prog = CppProgram(src, so, False, 0.0, [])
    _, ref = _kernels(dtype)
    x = _inputs(dtype)
    g = np.random.default_rng(7).normal(0, 1, x.size).astype(dtype)
    y, dy, dx = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    prog.forward_derivative(x, y, dy, ref.params)
    prog.backward(x, g, dx, ref.params)
    want_y, want_dy = ref.forward_with_derivative(x)
    _close(y, want_y, dtype)
    _close(dy, want_dy, dtype)
    _close(dx, g * want_dy, dtype)


@needs_cpp
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_constants_gradient_computes_far_forms_only_for_far_elements(dtype):
    """PAU 5/4's d/da_k and d/db_k have large-|x| forms too; computed as selects in the
    SIMD loop (their divisions for every element) the constants' gradient took ~10 ms
    at 262,144 elements, 10x the near forms. Now the loop sums the near forms and a
    second pass adds the whole ones of a block's far elements: the same sums as
    NumPy's whole expressions (float64 reference), with far elements mixed in."""
    from symnb.interop.native import NativeElementwise

    act, form = _pau(dtype)
    text = render_program((form,), "elementwise", "cpp", dtype).text
    kernel = text[text.index("void symnb_constant_gradient(") :]
    kernel = kernel[: kernel.index("SYMNB_KERNEL")]
    simd = kernel[kernel.index("#pragma omp simd") : kernel.index("if (far_dc)")]
    assert "symnb_ndcs0(" in simd and "symnb_dcs0(" not in simd
    cpp = act.compile("cpp", dtype=dtype)
    ref = act.compile("numpy", dtype="float64")
    for k in (cpp, ref):
        k.set_constants(**MOVED)
    x = np.random.default_rng(5).normal(0, 3, 6000)
    at = np.random.default_rng(6).choice(x.size, 6, replace=False)
    x[at] = [1e9, -1e9, 1e20, -1e20, 7e7, -7e7]
    x = x.astype(dtype)
    g = np.random.default_rng(7).normal(0, 1, x.size).astype(dtype)
    want = ref.constant_gradient(x.astype(np.float64), g.astype(np.float64))
    got = cpp.constant_gradient(x, g)
    rtol = 2e-4 if dtype == "float32" else 1e-9
    for name, value in want.items():
        assert got[name] == pytest.approx(value, rel=rtol, abs=rtol), name
    # the fused backward's variants (dx and the sums in one call)
    native = NativeElementwise.of(cpp)
    for fn in native.fused_variants:
        dx = np.empty_like(x)
        sums = np.zeros(len(want))
        fn(*(v.ctypes.data for v in (x, g, dx, sums)), x.size, cpp.params.ctypes.data)
        np.testing.assert_allclose(sums, list(want.values()), rtol=rtol, atol=rtol)


@needs_cpp
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis", [-1, 1])
def test_layer_constants_gradient_computes_far_forms_only_for_far_elements(dtype, axis):
    """The layers' constants' gradient loops (runs of columns sharing a form, and
    planes for a feature axis that is not the last) computed PAU's far forms, with
    their divisions, for every element: a per-channel PAU layer took 166 ms where the
    elementwise kernel's split took 11 ms. Now they sum the near forms and add the
    whole ones of the far elements in a second pass: the same sums as the float64
    NumPy layer, far elements mixed in, per-neuron constants (two PAUs, one moved)."""
    act, form = _pau(dtype)
    moved = act.with_constants(**MOVED)
    acts = [act] * 8 + [moved] * 8
    text = render_program((form,), "layer", "cpp", dtype).text
    for head in ("symnb_layer_gradient_runs(", "symnb_plane_gradient("):
        kernel = text[text.index(head) :]
        kernel = kernel[: kernel.index("if (far_dc)")]
        simd = kernel[kernel.rindex("#pragma omp simd") :]
        assert "symnb_ndcv0(" in simd and "symnb_dcv0(" not in simd, head
    layer = symnb.compile_layer(acts, backend="cpp", dtype=dtype)
    ref = symnb.compile_layer(acts, backend="numpy", dtype="float64")
    rows = 512  # at least SYMNB_GRAD_ROWS: the runs path
    x = np.random.default_rng(5).normal(0, 3, (rows, len(acts)))
    at = np.random.default_rng(6).choice(x.size, 8, replace=False)
    x.flat[at] = [1e9, -1e9, 1e20, -1e20, 7e7, -7e7, 3e8, -3e8]
    x = x.astype(dtype)
    g = np.random.default_rng(7).normal(0, 1, x.shape).astype(dtype)
    if axis == 1:  # (batch, features, spatial): planes
        x = np.ascontiguousarray(x.reshape(8, 64, len(acts)).transpose(0, 2, 1))
        g = np.ascontiguousarray(g.reshape(8, 64, len(acts)).transpose(0, 2, 1))
    want = ref.constant_gradient(x.astype(np.float64), g.astype(np.float64), axis=axis)
    got = layer.constant_gradient(x, g, axis=axis)
    rtol = 2e-4 if dtype == "float32" else 1e-9
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
