"""The CUDA-dialect kernel text, built as plain C++ by g++, computes the same as NumPy.

Without ``__CUDACC__`` the CUDA text drops its qualifiers and runs the grid-stride loop as
one thread, so the formulas (not GPU rounding) are checked on any machine with g++. The
same text is also compiled with NVRTC when it is installed (no GPU needed): the log must be
empty, and float32 kernels must not compute in double outside the double reductions.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from symnb.codegen.kernels import render_program
from tests.codegen.reference_forms import (
    activation_cases,
    assert_close,
    loss_cases,
    sample_points,
    tolerance,
)

ACT = activation_cases()
LOSS = loss_cases()
GXX = shutil.which("g++")


def _build_host(tmp_path: Path, forms: tuple, kind: str, dtype: str):
    from symnb.backends.cpp import CppProgram

    src = render_program(forms, kind, "cuda", dtype)
    cu = tmp_path / f"{src.digest[:16]}.cpp"
    cu.write_text(src.text)
    so = cu.with_suffix(".so")
    proc = subprocess.run(
        [GXX, "-O1", "-shared", "-fPIC", "-x", "c++", str(cu), "-o", str(so)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return CppProgram(src, so, False, 0.0, [])


needs_gxx = pytest.mark.skipif(GXX is None, reason="g++ not installed")


@needs_gxx
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "name", ["swish", "mish", "gelu_tanh", "elu", "relu", "scaled_tanh"]
)
def test_cuda_elementwise_text_on_cpu(tmp_path: Path, name: str, dtype: str) -> None:
    case = ACT[name]
    prog = _build_host(tmp_path, (case.form,), "elementwise", dtype)
    x = sample_points(dtype, n=1001)
    x[5] = np.nan
    c = np.array(case.form.param_values, dtype=dtype)
    xd, cd = x.astype(np.float64), c.astype(np.float64)
    rtol, atol = tolerance(dtype)
    with np.errstate(all="ignore"):
        ef, ed = case.f(xd, cd), case.df(xd, cd)
    ef[np.isnan(xd)] = np.nan
    ed[np.isnan(xd)] = np.nan
    y, dy, dx = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    prog.forward_derivative(x, y, dy, c)
    g = np.full_like(x, 0.5)
    prog.backward(x, g, dx, c)
    assert_close(y, ef, rtol, atol, f"{name} f", xd)
    assert_close(dy, ed, rtol, atol, f"{name} f'", xd)
    assert_close(dx, 0.5 * ed, rtol, atol, f"{name} g*f'", xd)
    assert np.isnan(y[5]) and np.isnan(dy[5])
    if case.dc:
        ok = ~np.isnan(x)
        got = prog.constant_gradient(x[ok].copy(), g[ok].copy(), c)
        for k, dck in enumerate(case.dc):
            want = np.sum(0.5 * dck(xd[ok], cd))
            assert abs(got[k] - want) <= 1e-5 * (
                np.sum(np.abs(0.5 * dck(xd[ok], cd))) + 1
            )


@needs_gxx
def test_cuda_layer_text_on_cpu(tmp_path: Path) -> None:
    names = ["swish", "leaky_relu", "softplus"]
    prog = _build_host(tmp_path, tuple(ACT[n].form for n in names), "layer", "float32")
    rows, cols = 50, 5
    ids = np.array([0, 1, 2, 1, 0], dtype=np.int32)
    offsets = np.array([0, 1, 2, 2, 3], dtype=np.int32)  # softplus has no constant
    params = np.array([1.0, 0.1, 0.3, 2.0], dtype=np.float32)
    x = np.random.default_rng(0).uniform(-5, 5, (rows, cols)).astype(np.float32)
    g = np.ones_like(x)
    y, dx = np.empty_like(x), np.empty_like(x)
    prog.layer_forward(x, y, ids, offsets, params)
    prog.layer_backward(x, g, dx, ids, offsets, params)
    cg = prog.layer_constant_gradient(x, g, ids, offsets, params)
    rtol, atol = tolerance(np.float32)
    for j in range(cols):
        case = ACT[names[ids[j]]]
        c = params[offsets[j] : offsets[j] + len(case.form.params)].astype(np.float64)
        col = x[:, j].astype(np.float64)
        assert_close(y[:, j], case.f(col, c), rtol, atol, f"col {j}", col)
        assert_close(dx[:, j], case.df(col, c), rtol, atol, f"col {j}'", col)
        if case.dc:
            want = np.sum(case.dc[0](col, c))
            assert abs(cg[offsets[j]] - want) <= 1e-4 * (abs(want) + 1)


@needs_gxx
@pytest.mark.parametrize("name", list(LOSS))
def test_cuda_loss_text_on_cpu(tmp_path: Path, name: str) -> None:
    case = LOSS[name]
    prog = _build_host(tmp_path, (case.form,), "loss", "float32")
    rng = np.random.default_rng(1)
    p = rng.normal(0, 3, 1000).astype(np.float32)
    t = (rng.uniform(size=1000) > 0.5).astype(np.float32)
    c = np.array(case.form.param_values, dtype=np.float32)
    pd, td, cd = p.astype(float), t.astype(float), c.astype(float)
    assert abs(prog.loss_value(p, t, c) - np.sum(case.f(pd, td, cd))) < 1e-3
    g = np.empty_like(p)
    prog.loss_gradient(p, t, g, c, 0.5)
    assert_close(g, 0.5 * case.df(pd, td, cd), 1e-5, 5e-7, name, pd)


# ------------------------------------------------------------------------------------
# NVRTC (what CuPy compiles with); no GPU needed
# ------------------------------------------------------------------------------------


def _nvrtc():
    try:
        from symnb.backends import nvrtc
    except Exception as exc:  # noqa: BLE001 - module missing or broken: skip
        pytest.skip(f"symnb.backends.nvrtc unavailable: {exc}")
    ok, why = nvrtc.available()
    if not ok:
        pytest.skip(why)
    return nvrtc


_REDUCTIONS = (
    "symnb_constant_gradient",
    "symnb_layer_constant_gradient",
    "symnb_loss_value",
)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "kind, names",
    [
        ("elementwise", ("gelu",)),
        ("elementwise", ("mish",)),
        ("elementwise", ("elu",)),
        ("layer", ("swish", "relu", "gelu_tanh", "scaled_tanh")),
        ("loss", ("bce_with_logits",)),
        ("loss", ("huber",)),
    ],
)
def test_cuda_text_compiles_with_nvrtc(kind: str, names: tuple, dtype: str) -> None:
    nvrtc = _nvrtc()
    cases = LOSS if kind == "loss" else ACT
    src = render_program(tuple(cases[n].form for n in names), kind, "cuda", dtype)
    ptx, log = nvrtc.compile_check(src.text, "sm_80")
    assert log == "", log
    entries = re.split(r"\.visible \.entry ", ptx)[1:]
    assert {e.split("(")[0] for e in entries} == set(src.entry_points.values())
    if dtype == "float32":
        for entry in entries:
            name = entry.split("(")[0]
            if name in _REDUCTIONS:
                continue
            # the only double allowed: loss_gradient's `double scale`, converted once
            f64 = [
                line
                for line in entry.splitlines()
                if ".f64" in line
                and not re.search(
                    r"\.param \.f64|ld\.param\.f64|cvt\.rn\.f32\.f64", line
                )
                and not re.match(r"\s*\.reg \.f64", line)
            ]
            assert not f64, f"{name} computes in double: {f64[:3]}"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rational_with_split_quotient_compiles_with_nvrtc(dtype: str) -> None:
    """A PAU 5/4 (Horner in |x|, the guarded asymptote as one select, f' as
    (P/Q)*(Q'/Q), the constants' gradient with a shared reciprocal) as CUDA text:
    NVRTC compiles every entry point without a warning."""
    import symnb
    from tests.reference import PAU_CONSTANTS, PAU_TEXT

    nvrtc = _nvrtc()
    form = symnb.Activation(PAU_TEXT, name="pau_cuda", **PAU_CONSTANTS).internal
    src = render_program((form,), "elementwise", "cuda", dtype)
    ptx, log = nvrtc.compile_check(src.text, "sm_80")
    assert log == "", log
    entries = re.split(r"\.visible \.entry ", ptx)[1:]
    assert {e.split("(")[0] for e in entries} == set(src.entry_points.values())
