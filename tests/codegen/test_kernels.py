"""Kernel text: entry points (the ABI), dialect differences, safety of names, limits."""

from __future__ import annotations

import hashlib
import re

import pytest
import sympy as sp

from symnb.codegen import kernels, printer
from symnb.codegen.kernels import render_program
from symnb.errors import FormulaError
from symnb.formula.internal import InternalForm, X
from tests.codegen.reference_forms import activation_cases, loss_cases, make_form

ACT = activation_cases()
LOSS = loss_cases()


def test_entry_points_follow_the_abi() -> None:
    src = render_program((ACT["swish"].form,), "elementwise")
    assert src.entry_points == {
        "forward": "symnb_forward",
        "backward": "symnb_backward",
        "forward_derivative": "symnb_forward_derivative",
        "forward_backward": "symnb_forward_backward",
        "constant_gradient": "symnb_constant_gradient",
    }
    t = src.text
    assert re.search(
        r"void symnb_forward\(const symnb_real\* SYMNB_RESTRICT x,\s+symnb_real\* "
        r"SYMNB_RESTRICT y, symnb_i64 n, const symnb_real\* SYMNB_RESTRICT c\)",
        t,
    )
    assert "double* SYMNB_RESTRICT out, symnb_i64 n" in t
    layer = render_program((ACT["swish"].form, ACT["relu"].form), "layer")
    assert set(layer.entry_points) == {
        "layer_forward",
        "layer_backward",
        "layer_forward_derivative",
        "layer_constant_gradient",
    }
    assert "const symnb_i32* SYMNB_RESTRICT ids" in layer.text
    loss = render_program((LOSS["mse"].form,), "loss")
    assert set(loss.entry_points) == {"loss_value", "loss_gradient"}
    assert "double scale)" in loss.text and "double* SYMNB_RESTRICT out)" in loss.text


def test_digest_is_sha256_of_text_and_rendering_is_memoised() -> None:
    a = render_program((ACT["mish"].form,), "elementwise", "cpp", "float32")
    b = render_program((ACT["mish"].form,), "elementwise", "cpp", "float32")
    assert a is b
    assert a.digest == hashlib.sha256(a.text.encode()).hexdigest()
    c = render_program((ACT["mish"].form,), "elementwise", "cpp", "float64")
    assert c.digest != a.digest


def test_dialects_share_the_math_and_differ_in_loops() -> None:
    form = ACT["gelu_tanh"].form
    cpp = render_program((form,), "elementwise", "cpp").text
    cuda = render_program((form,), "elementwise", "cuda").text
    # below the thread threshold a plain SIMD loop, without entering libgomp; no
    # scalar prologue for a kernel with math functions (only one bound by memory
    # lines up its output: its arithmetic is the same bits scalar or vector), and the
    # threads take whole blocks
    assert "if (n < SYMNB_PARALLEL_MIN) {\n    #pragma omp simd" in cpp
    assert "const symnb_i64 h = 0;" in cpp
    assert "#pragma omp parallel for schedule(static)\n    for (symnb_i64 b = h;" in cpp
    assert "#pragma omp" not in cuda
    assert "i += SYMNB_STRIDE" in cuda and "__global__" in cuda
    assert "typedef long long symnb_i64;" in cuda and "int64_t symnb_i64" in cpp
    # the per-form device functions are the same text
    start = cpp.index("/* ---- form 0 ---- */")
    end = cpp.index("/* ---- entry points ---- */")
    assert cpp[start:end] in cuda
    assert "declare simd" in cpp and "declare simd" not in cuda


def test_layer_is_one_switch_over_forms() -> None:
    forms = (ACT["swish"].form, ACT["leaky_relu"].form, ACT["softplus"].form)
    text = render_program(forms, "layer").text
    cuda = render_program(forms, "layer", "cuda").text
    # C++: one switch per run of one form in each row helper (forward, backward, pair)
    # and in the constants' gradient over runs; the constants from the table by
    # position and column (contiguous loads), a form without constants reads none
    assert text.count("switch (ids[j0])") == 4
    for key in ("forward", "backward", "pair"):
        assert f"static SYMNB_NOINLINE void symnb_rows_{key}(" in text
    assert "y[i] = symnb_vf0(x[i], ct[0 * cols + j]);" in text
    assert "dx[i] = g[i] * symnb_vdf1(x[i], ct[0 * cols + j]);" in text
    assert "y[i] = symnb_f2(x[i], params, 0);" in text
    assert "symnb_dcv0(x[row + j], ct[0 * cols + j], &d0);" in text
    # column mode (3) + the constants' gradient column by column
    assert text.count("switch (ids[j])") == 4
    for i in range(3):  # column mode: the column's constants at params + offsets[j]
        assert f"y[i] = symnb_f{i}(x[i], params, oj);" in text
    assert "const int oj = offsets[j];" in text
    # plane-wise entry points (C++ only) switch once per plane
    assert text.count("switch (id)") == 3
    for name in ("forward", "backward", "constant_gradient"):
        assert f"symnb_layer_planes_{name}(" in text
        assert f"symnb_layer_planes_{name}(" not in cuda
    # CUDA: one thread per element, gathers through offsets
    assert cuda.count("switch (id)") == 3 and cuda.count("switch (ids[j])") == 1
    assert "symnb_rows_" not in cuda and "ct[" not in cuda


def test_float32_text_has_no_double_math_outside_reductions() -> None:
    forms = (ACT["gelu"].form, ACT["elu"].form, ACT["mish"].form)
    text = render_program(forms, "layer", "cuda", "float32").text
    body = text[: text.index("/* ---- entry points ---- */")]
    # the helpers' CPU-only branches (double cores, rounded once) are not CUDA code
    body = re.sub(
        r"#ifndef __CUDACC__\n.*?#endif|#else\n.*?#endif", "", body, flags=re.S
    )
    assert "M_PI" not in text and "M_SQRT" not in text
    lits = re.findall(r"(?<![\w.])(\d+\.\d*(?:[eE][-+]?\d+)?)([fF]?)", body)
    assert lits and all(s == "F" for _, s in lits), lits


def test_user_names_never_reach_the_source() -> None:
    evil = 'a;system("touch /tmp/pwned");//'
    form = make_form(
        'x*/ system("rm -rf /"); /*',
        X * ACT["swish"].form.params[0],
        ACT["swish"].form.params,
        (1.0,),
        param_names=(evil,),
    )
    for dialect in ("cpp", "cuda"):
        text = render_program((form,), "elementwise", dialect).text
        assert "system" not in text and "rm -rf" not in text and "pwned" not in text


def test_nan_guard_where_the_formula_does_not_pass_nan_on() -> None:
    # relu's Max is not proven to pass NaN on: every form function selects it
    text = render_program((ACT["relu"].form,), "elementwise").text
    assert text.count("(a0 != a0)") >= 3
    # (y_pred - y_true)^2 is NaN for either NaN by itself: the select compiles away
    loss = render_program((LOSS["mse"].form,), "loss").text
    assert "a0 != a0" not in loss and "return false ?" in loss


def test_only_used_helpers_are_emitted() -> None:
    text = render_program((ACT["relu"].form,), "elementwise").text
    assert "symnb_max(" in text
    assert "symnb_sigmoid(" not in text and "symnb_tanh_softplus(" not in text


def test_formula_too_large_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(printer, "MAX_OPERATIONS", 5)
    with pytest.raises(FormulaError, match="too large to compile"):
        render_program((ACT["gelu_tanh"].form,), "elementwise")


def test_unprintable_form_is_refused() -> None:
    f = sp.Function("mystery")(X)
    form = InternalForm("activation", "m", (X,), (), (), (), f, sp.Integer(0), ())
    with pytest.raises(FormulaError, match="mystery"):
        render_program((form,), "elementwise")


def test_bad_arguments() -> None:
    form = ACT["relu"].form
    with pytest.raises(ValueError):
        render_program((form,), "nonsense")
    with pytest.raises(ValueError):
        render_program((form,), "elementwise", dialect="opencl")
    with pytest.raises(ValueError):
        render_program((form, form), "elementwise")
    with pytest.raises(FormulaError):
        render_program((form,), "loss")


def test_64bit_indices() -> None:
    for dialect in ("cpp", "cuda"):
        text = render_program((ACT["relu"].form,), "elementwise", dialect).text
        assert "for (symnb_i64 i" in text
        assert "int i " not in text


def test_parallel_threshold_constant() -> None:
    assert kernels.PARALLEL_MIN >= 16384


def test_thread_threshold_depends_on_kernel_cost() -> None:
    def threshold(name: str) -> int:
        text = render_program((ACT[name].form,), "elementwise").text
        return int(re.search(r"#define SYMNB_PARALLEL_MIN (\d+)", text).group(1))

    assert threshold("relu") == kernels.PARALLEL_MIN_CHEAP
    assert threshold("leaky_relu") == kernels.PARALLEL_MIN_CHEAP
    assert threshold("gelu") == kernels.PARALLEL_MIN
    assert threshold("mish") == kernels.PARALLEL_MIN
    assert kernels.PARALLEL_MIN < kernels.PARALLEL_MIN_CHEAP
