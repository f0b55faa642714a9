"""The C++ backend: kernels vs NumPy float64 references, NaN, faults, cache, subnormals."""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from symnb.backends import cpp
from symnb.codegen.kernels import KernelSource, render_program
from symnb.errors import BackendUnavailable, CompileError
from tests.codegen.reference_forms import (
    activation_cases,
    assert_close,
    loss_cases,
    sample_points,
    tolerance,
)

pytestmark = pytest.mark.skipif(
    not cpp.probe().usable, reason=f"cpp backend: {cpp.probe().reason}"
)

ACT = activation_cases()
LOSS = loss_cases()
DTYPES = [np.float32, np.float64]


@pytest.fixture(scope="module")
def programs():
    cache: dict = {}

    def get(name: str, kind: str, dtype) -> cpp.CppProgram:
        key = (name, kind, np.dtype(dtype).name)
        if key not in cache:
            case = (LOSS if kind == "loss" else ACT)[name]
            cache[key] = cpp.build((case.form,), kind, np.dtype(dtype).name)
        return cache[key]

    return get


def _params(case, dtype) -> np.ndarray:
    return np.array(case.form.param_values, dtype=dtype)


# ------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(ACT))
def test_elementwise_matches_numpy(programs, name: str, dtype) -> None:
    case = ACT[name]
    prog = programs(name, "elementwise", dtype)
    x = sample_points(dtype)
    c = _params(case, dtype)
    xd, cd = x.astype(np.float64), c.astype(np.float64)
    rng = np.random.default_rng(0)
    g = rng.uniform(-2, 2, x.size).astype(dtype)
    rtol, atol = tolerance(dtype)
    with np.errstate(all="ignore"):
        ef, ed = case.f(xd, cd), case.df(xd, cd)

    y = np.empty_like(x)
    prog.forward(x, y, c)
    assert np.isfinite(y).all()
    assert_close(y, ef, rtol, atol, f"{name} forward", xd)

    dx = np.empty_like(x)
    prog.backward(x, g, dx, c)
    assert np.isfinite(dx).all()
    assert_close(dx, g.astype(np.float64) * ed, rtol, atol * 2, f"{name} backward", xd)

    y2, dy = np.empty_like(x), np.empty_like(x)
    prog.forward_derivative(x, y2, dy, c)
    assert_close(y2, ef, rtol, atol, f"{name} fused f", xd)
    assert_close(dy, ed, rtol, atol, f"{name} fused f'", xd)

    got = prog.constant_gradient(x, g, c)
    assert got.dtype == np.float64 and got.shape == (len(case.dc),)
    for k, dck in enumerate(case.dc):
        want = np.sum(g.astype(np.float64) * dck(xd, cd))
        scale = np.sum(np.abs(g.astype(np.float64) * dck(xd, cd))) + 1.0
        assert abs(got[k] - want) <= 1e-5 * scale, (name, k, got[k], want)


LAYOUTS = {
    "interleaved": [0, 1, 2, 0, 1, 2, 0],
    "grouped": [0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0],
    "long_runs": [0] * 40 + [1] * 45 + [2] * 50,  # row-run code path (runs >= 32)
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_heterogeneous_layer(dtype, layout: str) -> None:
    names = ["swish", "leaky_relu", "elu"]
    forms = tuple(ACT[n].form for n in names)
    prog = cpp.build(forms, "layer", np.dtype(dtype).name)
    ids = np.array(LAYOUTS[layout], dtype=np.int32)
    rows, cols = 301, ids.size
    rng = np.random.default_rng(7)
    consts = {q: list(rng.uniform(0.1, 2.0, cols)) for q in range(3)}
    per_col, offsets, params = [], [], []
    used = {0: 0, 1: 0, 2: 0}
    for j in range(cols):
        v = consts[ids[j]][used[ids[j]]]
        used[ids[j]] += 1
        offsets.append(len(params))
        params.append(v)
        per_col.append(np.array([v]))
    offsets = np.array(offsets, dtype=np.int32)
    params = np.array(params, dtype=dtype)
    rng = np.random.default_rng(1)
    x = rng.uniform(-6, 6, (rows, cols)).astype(dtype)
    g = rng.uniform(-1, 1, (rows, cols)).astype(dtype)
    xd, gd = x.astype(np.float64), g.astype(np.float64)
    rtol, atol = tolerance(dtype)

    y, dx = np.empty_like(x), np.empty_like(x)
    y2, dy = np.empty_like(x), np.empty_like(x)
    prog.layer_forward(x, y, ids, offsets, params)
    prog.layer_backward(x, g, dx, ids, offsets, params)
    prog.layer_forward_derivative(x, y2, dy, ids, offsets, params)
    cg = prog.layer_constant_gradient(x, g, ids, offsets, params)
    assert cg.shape == params.shape and cg.dtype == np.float64
    for j in range(cols):
        case = ACT[names[ids[j]]]
        c = per_col[j].astype(dtype).astype(np.float64)
        col = xd[:, j]
        assert_close(y[:, j], case.f(col, c), rtol, atol, f"col {j} f", col)
        assert_close(y2[:, j], case.f(col, c), rtol, atol, f"col {j} fused f", col)
        assert_close(dy[:, j], case.df(col, c), rtol, atol, f"col {j} f'", col)
        assert_close(
            dx[:, j], gd[:, j] * case.df(col, c), rtol, 2 * atol, f"col {j} g*f'", col
        )
        want = np.sum(gd[:, j] * case.dc[0](col, c))
        assert abs(cg[offsets[j]] - want) <= 1e-5 * (np.sum(np.abs(gd[:, j])) * 6 + 1)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(LOSS))
def test_loss_matches_numpy(programs, name: str, dtype) -> None:
    case = LOSS[name]
    prog = programs(name, "loss", dtype)
    rng = np.random.default_rng(2)
    n = 50_001
    p = rng.normal(0, 5, n).astype(dtype)
    p[:3] = [100.0, -100.0, 0.0]
    t = (rng.uniform(0, 1, n) > 0.5).astype(dtype)
    c = _params(case, dtype)
    pd, td, cd = p.astype(np.float64), t.astype(np.float64), c.astype(np.float64)
    value = prog.loss_value(p, t, c)
    want = np.sum(case.f(pd, td, cd))
    assert isinstance(value, float)
    assert abs(value - want) <= 1e-6 * np.sum(np.abs(case.f(pd, td, cd))) + 1e-9
    g = np.empty_like(p)
    prog.loss_gradient(p, t, g, c, 1.0 / n)
    rtol, atol = tolerance(dtype)
    assert_close(g, case.df(pd, td, cd) / n, rtol, atol / n, f"{name} gradient", pd)


# ------------------------------------------------------------------------------------
# Semantics: NaN, kinks, domains
# ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(ACT))
def test_nan_in_nan_out(programs, name: str) -> None:
    case = ACT[name]
    prog = programs(name, "elementwise", np.float32)
    x = np.array([np.nan, 1.0, -np.nan, 0.0, np.nan], dtype=np.float32)
    c = _params(case, np.float32)
    y, dx, y2, dy = (np.zeros_like(x) for _ in range(4))
    prog.forward(x, y, c)
    prog.backward(x, np.ones_like(x), dx, c)
    prog.forward_derivative(x, y2, dy, c)
    nan = np.isnan(x)
    for arr in (y, dx, y2, dy):
        assert np.isnan(arr[nan]).all() and np.isfinite(arr[~nan]).all()
    if case.dc:
        assert np.isnan(prog.constant_gradient(x, np.ones_like(x), c)).all()


@pytest.mark.parametrize("name", list(LOSS))
def test_loss_nan_in_nan_out(programs, name: str) -> None:
    case = LOSS[name]
    prog = programs(name, "loss", np.float32)
    c = _params(case, np.float32)
    p = np.array([0.5, np.nan, 0.1], dtype=np.float32)
    t = np.array([1.0, 0.0, np.nan], dtype=np.float32)
    assert np.isnan(prog.loss_value(p, t, c))
    g = np.zeros_like(p)
    prog.loss_gradient(p, t, g, c, 1.0)
    assert np.isfinite(g[0]) and np.isnan(g[1:]).all()


def test_kink_conventions_follow_pytorch(programs) -> None:
    x = np.array([0.0, -0.0, 1e-30, -1e-30], dtype=np.float32)
    relu = programs("relu", "elementwise", np.float32)
    dx = np.empty_like(x)
    relu.backward(x, np.ones_like(x), dx, np.zeros(0, np.float32))
    assert dx.tolist() == [0.0, 0.0, 1.0, 0.0]
    leaky = programs("leaky_relu", "elementwise", np.float32)
    leaky.backward(x, np.ones_like(x), dx, np.array([0.01], np.float32))
    assert np.allclose(dx, [0.01, 0.01, 1.0, 0.01])


def test_domain_conventions() -> None:
    import sympy as sp

    from symnb.formula.internal import X
    from tests.codegen.reference_forms import make_form

    x = np.array([-8.0, -1.0, 0.0, 8.0], dtype=np.float32)
    with np.errstate(invalid="ignore"):
        cases = [
            (sp.sqrt(X), np.sqrt(x.astype(np.float64))),
            (X ** sp.Rational(1, 3), np.power(x.astype(np.float64), 1 / 3)),
            (sp.sign(X), np.sign(x)),
            (sp.Max(X, 0) + sp.Min(X, 0), x.astype(np.float64)),
            (sp.Mod(X, 3), np.mod(x.astype(np.float64), 3)),
        ]
    for f, want in cases:
        with np.errstate(invalid="ignore"):
            prog = cpp.build(
                (make_form("t", f, df=sp.Integer(0)),), "elementwise", "float32"
            )
            y = np.empty_like(x)
            prog.forward(x, y, np.zeros(0, np.float32))
        np.testing.assert_allclose(y, want, rtol=1e-6, equal_nan=True)
        assert np.array_equal(np.isnan(y), np.isnan(want))


def test_large_inputs_are_finite(programs) -> None:
    x = np.linspace(-1e4, 1e4, 200_001).astype(np.float32)
    for name, case in ACT.items():
        prog = programs(name, "elementwise", np.float32)
        c = _params(case, np.float32)
        y, dy = np.empty_like(x), np.empty_like(x)
        prog.forward_derivative(x, y, dy, c)
        assert np.isfinite(y).all() and np.isfinite(dy).all(), name


def test_parallel_and_serial_paths_agree(programs) -> None:
    prog = programs("mish", "elementwise", np.float32)
    c = np.zeros(0, np.float32)
    x = np.random.default_rng(3).normal(0, 4, 1_000_003).astype(np.float32)
    y = np.empty_like(x)
    prog.forward(x, y, c)  # threaded (n >= threshold)
    small = np.empty(1000, np.float32)
    prog.forward(x[:1000].copy(), small, c)  # serial
    assert np.array_equal(small, y[:1000])


# ------------------------------------------------------------------------------------
# Loading, caching, sharing
# ------------------------------------------------------------------------------------


def test_same_source_shares_one_library() -> None:
    a = cpp.build((ACT["softplus"].form,), "elementwise", "float32")
    b = cpp.build((ACT["softplus"].form,), "elementwise", "float32")
    assert a._lib is b._lib
    assert b.cache_hit
    assert b.source == a.source and "symnb_forward" in b.source


def test_cache_key_covers_compiler_flags_and_cpu() -> None:
    ks = render_program((ACT["relu"].form,), "elementwise", "cpp", "float32")
    status = cpp.probe()
    parts = cpp.key_parts(ks, status)
    assert parts["source"] == ks.digest
    assert "-O3" in parts["flags"] and "-ffast-math" not in parts["flags"]
    assert parts["compiler_version"]
    if "-march=native" in parts["flags"]:
        assert parts["cpu"]
    march = status.details["march"]
    if march.startswith("x86-64"):  # the ISA level is in the flags, so in the key
        assert f"-march={march}" in parts["flags"] and "cpu" not in parts


AVX512 = "avx512f avx512bw avx512cd avx512dq avx512vl"
V3 = "avx avx2 bmi1 bmi2 f16c fma movbe xsave"
V2 = "sse4_1 sse4_2 ssse3 popcnt cx16"


@pytest.mark.parametrize(
    ("flags", "levels"),
    [
        (f"{V2} {V3} {AVX512}", ["x86-64-v4", "x86-64-v3", "x86-64-v2"]),
        (f"{V2} {V3}", ["x86-64-v3", "x86-64-v2"]),
        (f"{V2} {V3.replace('fma', '')} {AVX512}", ["x86-64-v2"]),  # no FMA: no v3/v4
        ("sse sse2", []),
    ],
)
def test_isa_levels_follow_the_cpu_flags(
    flags: str, levels: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cpp.platform, "machine", lambda: "x86_64")
    assert cpp._isa_levels(f"x86_64|Some CPU|{flags}") == levels
    monkeypatch.setattr(cpp.platform, "machine", lambda: "aarch64")
    assert cpp._isa_levels(f"aarch64|Some CPU|{flags}") == []


def test_probe_falls_back_when_the_compiler_rejects_the_isa(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An ISA level the compiler does not know: the next one, else portable code."""
    monkeypatch.setattr(cpp, "_isa_levels", lambda cpu: ["x86-64-v99"])
    cpp._reset_probe()
    try:
        status = cpp.probe()
        assert status.usable and status.details["march"] == ""
        assert not any(f.startswith("-march") for f in cpp._flags(status))
    finally:
        cpp._reset_probe()


def test_corrupt_cache_entry_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from symnb.backends import cache as cache_mod

    monkeypatch.setenv("SYMNB_CACHE_DIR", str(tmp_path / "cache"))
    cache_mod._reset_default_cache()
    try:
        form = ACT["gelu"].form
        first = cpp.build((form,), "elementwise", "float64")
        path = first.library_path
        good = hashlib.sha256(path.read_bytes()).hexdigest()
        # replace (new inode: the loaded mapping stays intact) with a truncated copy
        data = path.read_bytes()
        bad = path.with_name("bad.tmp")
        bad.write_bytes(data[: len(data) // 2])
        os.replace(bad, path)
        second = cpp.build((form,), "elementwise", "float64")
        assert not second.cache_hit
        assert hashlib.sha256(second.library_path.read_bytes()).hexdigest() == good
        x = np.array([0.5, -1.0])
        y = np.empty_like(x)
        second.forward(x, y, np.zeros(0))
        assert np.all(np.isfinite(y))
    finally:
        cache_mod._reset_default_cache()


def test_idle_libraries_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    import sympy as sp

    from symnb.formula.internal import X
    from tests.codegen.reference_forms import make_form

    monkeypatch.setattr(cpp, "MAX_IDLE_LIBRARIES", 2)
    for k in range(5):
        prog = cpp.build(
            (make_form("s", X * (k + 3) + sp.Integer(k)),), "elementwise", "float32"
        )
        x = np.ones(
            600_000, np.float32
        )  # above the thread threshold: OpenMP threads run
        y = np.empty_like(x)
        prog.forward(x, y, np.zeros(0, np.float32))
        assert y[0] == 2 * k + 3 and y[-1] == 2 * k + 3
        del prog
        gc.collect()
    assert len(cpp._idle) <= 2
    # closing libraries did not take the OpenMP runtime away from its threads
    prog = cpp.build((make_form("s", X * 2),), "elementwise", "float32")
    x = np.ones(600_000, np.float32)
    y = np.empty_like(x)
    prog.forward(x, y, np.zeros(0, np.float32))
    assert (y == 2).all()


# ------------------------------------------------------------------------------------
# Faults: compiler missing, failing, hanging
# ------------------------------------------------------------------------------------


@pytest.fixture
def fresh_probe():
    cpp._reset_probe()
    yield
    cpp._reset_probe()


def test_missing_compiler_is_unavailable(monkeypatch, fresh_probe) -> None:
    monkeypatch.setenv("SYMNB_CXX", "/nonexistent/g++-99")
    status = cpp.probe()
    assert not status.usable
    assert "g++-99" in status.reason and "SYMNB_CXX" in status.fix
    with pytest.raises(BackendUnavailable, match="not found"):
        cpp.build((ACT["relu"].form,), "elementwise", "float32")


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_failing_compiler_is_unavailable(tmp_path, monkeypatch, fresh_probe) -> None:
    fake = _script(
        tmp_path / "badcxx",
        """
        if [ "$1" = "--version" ]; then echo "badcxx 1.0"; exit 0; fi
        echo "badcxx: fatal error: out of cheese" >&2
        exit 3
        """,
    )
    monkeypatch.setenv("SYMNB_CXX", str(fake))
    status = cpp.probe()
    assert not status.usable and "out of cheese" in status.reason
    with pytest.raises(BackendUnavailable, match="out of cheese"):
        cpp.build((ACT["relu"].form,), "elementwise", "float32")


def test_compile_error_keeps_log_command_and_source(monkeypatch) -> None:
    good = render_program((ACT["relu"].form,), "elementwise", "cpp", "float32")
    broken = KernelSource(
        good.text + "\nthis is not C++;\n",
        good.entry_points,
        "0" * 64,
        "cpp",
        "float32",
    )
    monkeypatch.setattr(cpp, "render_program", lambda *a, **k: broken)
    with pytest.raises(CompileError) as info:
        cpp.build((ACT["relu"].form,), "elementwise", "float32")
    err = info.value
    assert "error" in err.log
    assert err.command[0].endswith(("g++", "c++")) or "g++" in " ".join(err.command)
    assert err.source_path and Path(err.source_path).read_text() == broken.text
    assert "source saved at" in str(err)
    assert "this is not C++" in err.dump()


def test_compiler_timeout_kills_the_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    fake = _script(
        tmp_path / "slowcxx",
        f"""
        sleep 300 &
        echo $! > {pidfile}
        wait
        """,
    )
    start = time.monotonic()
    with pytest.raises(CompileError, match="took more than"):
        _compile_with(fake, tmp_path)
    assert time.monotonic() - start < 30
    child = int(pidfile.read_text())
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child), "the compiler's child survived the timeout"


def _compile_with(fake: Path, tmp_path: Path) -> None:
    status = cpp.probe()  # the real compiler's flags
    old = os.environ.get("SYMNB_CXX")
    os.environ["SYMNB_CXX"] = str(fake)
    try:
        cpp.compile_source("int x;", tmp_path / "out.so", status, timeout=1.0)
    finally:
        if old is None:
            del os.environ["SYMNB_CXX"]
        else:
            os.environ["SYMNB_CXX"] = old


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


# ------------------------------------------------------------------------------------
# Process state after loading kernels
# ------------------------------------------------------------------------------------


def test_subnormals_survive_loading_every_kernel(programs) -> None:
    for name in ACT:
        for dtype in DTYPES:
            programs(name, "elementwise", dtype)
    for name in LOSS:
        programs(name, "loss", np.float32)
    cpp.build(tuple(ACT[n].form for n in ("swish", "elu", "mish")), "layer", "float32")
    tiny32 = np.float32(1e-40)
    assert tiny32 * np.float32(1) != 0
    tiny = np.finfo(np.float64).smallest_subnormal
    assert tiny * 1.0 != 0
    assert np.finfo(np.float32).smallest_subnormal * np.float32(3) != 0
    # and inside the kernels too: a subnormal input passes through relu unchanged
    relu = programs("relu", "elementwise", np.float32)
    x = np.array([1e-40, 1e-44], dtype=np.float32)
    y = np.empty_like(x)
    relu.forward(x, y, np.zeros(0, np.float32))
    assert np.array_equal(x, y)


def test_probe_reports_details() -> None:
    status = cpp.probe()
    assert status.name == "cpp" and status.usable
    for key in ("compiler", "version", "openmp", "march_native", "march", "libmvec"):
        assert key in status.details
    assert cpp.probe() is status  # cached


@pytest.mark.skipif(
    sys.platform != "linux", reason="per-call overhead measured on Linux"
)
def test_per_call_overhead_is_small(programs) -> None:
    prog = programs("relu", "elementwise", np.float32)
    x = np.ones(16, np.float32)
    y = np.empty_like(x)
    c = np.zeros(0, np.float32)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(2000):
            prog.forward(x, y, c)
        best = min(best, (time.perf_counter() - t0) / 2000)
    assert (
        best < 50e-6
    )  # generous: a loaded shared machine; the benchmark measures ~2 us


def test_long_arrays_are_processed_in_pieces(programs, monkeypatch) -> None:
    case = ACT["swish"]
    prog = programs("swish", "elementwise", np.float32)
    c = _params(case, np.float32)
    x = np.random.default_rng(4).normal(0, 3, 4567).astype(np.float32)
    g = np.random.default_rng(5).normal(0, 1, x.size).astype(np.float32)
    whole = [np.empty_like(x) for _ in range(4)]
    prog.forward(x, whole[0], c)
    prog.backward(x, g, whole[1], c)
    prog.forward_derivative(x, whole[2], whole[3], c)
    cg = prog.constant_gradient(x, g, c)
    loss = programs("bce_with_logits", "loss", np.float32)
    t = (g > 0).astype(np.float32)
    lv = loss.loss_value(x, t, np.zeros(0, np.float32))
    lg = np.empty_like(x)
    loss.loss_gradient(x, t, lg, np.zeros(0, np.float32), 0.25)

    monkeypatch.setattr(cpp, "CALL_CHUNK", 1000)
    parts = [np.empty_like(x) for _ in range(4)]
    prog.forward(x, parts[0], c)
    prog.backward(x, g, parts[1], c)
    prog.forward_derivative(x, parts[2], parts[3], c)
    for a, b in zip(whole, parts):  # vector body vs scalar remainder: within an ulp
        np.testing.assert_allclose(a, b, rtol=3e-7, atol=1e-37)
    np.testing.assert_allclose(prog.constant_gradient(x, g, c), cg, rtol=1e-6)
    assert abs(loss.loss_value(x, t, np.zeros(0, np.float32)) - lv) < 1e-9 * abs(lv)
    lg2 = np.empty_like(x)
    loss.loss_gradient(x, t, lg2, np.zeros(0, np.float32), 0.25)
    assert np.array_equal(lg, lg2)


def test_pointer_cache_follows_the_arrays(programs) -> None:
    prog = programs("relu", "elementwise", np.float32)
    c = np.zeros(0, np.float32)
    x = np.array([-1.0, 2.0, 3.0], np.float32)
    y = np.empty_like(x)
    prog.forward(x, y, c)
    assert y.tolist() == [0.0, 2.0, 3.0]
    x[:] = [4.0, -5.0, 6.0]  # same array, new values
    prog.forward(x, y, c)
    assert y.tolist() == [4.0, 0.0, 6.0]
    x2 = np.array([7.0, -8.0, 9.0, 10.0], np.float32)  # another array in the slot
    y2 = np.empty_like(x2)
    prog.forward(x2, y2, c)
    assert y2.tolist() == [7.0, 0.0, 9.0, 10.0]
    del x2, y2
    x3 = np.array([-1.0, 11.0, -2.0, 12.0], np.float32)
    y3 = np.empty_like(x3)
    prog.forward(x3, y3, c)
    assert y3.tolist() == [0.0, 11.0, 0.0, 12.0]
    try:  # NumPy refuses to resize an array with weak references (the cache's) ...
        x3.resize(200_000, refcheck=True)
    except ValueError:
        return
    x3[:] = -1.0  # ... and if it ever allows it, the size check catches the move
    x3[-1] = 5.0
    y4 = np.empty_like(x3)
    prog.forward(x3, y4, c)
    assert y4[-1] == 5.0 and y4[0] == 0.0


def test_unloadable_library_is_a_compile_error(tmp_path: Path) -> None:
    ks = render_program((ACT["relu"].form,), "elementwise", "cpp", "float32")
    bogus = tmp_path / "not-a-library.so"
    bogus.write_bytes(b"\x7fELF garbage")
    with pytest.raises(CompileError, match="cannot be loaded"):
        cpp.CppProgram(ks, bogus, False, 0.0, [])


def test_constants_gradient_library_is_built_on_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kernel with constants is built first without the constants' gradient entry
    points (most constants are never learned); the first gradient call builds the
    whole source, and its sums match a float64 finite difference in the constant."""
    import ctypes

    import symnb
    from symnb.backends import cache as cache_mod

    monkeypatch.setenv("SYMNB_CACHE_DIR", str(tmp_path / "cache"))
    cache_mod._reset_default_cache()
    try:
        act = symnb.Activation("x*sigmoid(beta*x)", beta=1.3)
        kernel = act.compile(backend="cpp", dtype="float64")
        program = kernel._program
        first = ctypes.CDLL(str(program.library_path))
        assert hasattr(first, "symnb_forward")
        assert not hasattr(first, "symnb_constant_gradient")
        assert len(list((tmp_path / "cache").rglob("*.so"))) == 1
        x = np.linspace(-6.0, 6.0, 1001)
        g = np.cos(x)
        sums = kernel.constant_gradient(x, g)
        whole = ctypes.CDLL(str(program.whole_library_path))
        assert hasattr(whole, "symnb_constant_gradient")
        assert len(list((tmp_path / "cache").rglob("*.so"))) == 2

        def swish(beta: float) -> np.ndarray:
            return x / (1.0 + np.exp(-beta * x))

        h = 1e-6
        expected = float(np.sum(g * (swish(1.3 + h) - swish(1.3 - h)) / (2 * h)))
        assert sums["beta"] == pytest.approx(expected, rel=1e-8)
        # f and f' of the first library are those of the whole one
        y, dy = kernel.forward_with_derivative(x)
        s = 1.0 / (1.0 + np.exp(-1.3 * x))
        np.testing.assert_allclose(y, x * s, rtol=1e-14)
        np.testing.assert_allclose(
            dy, s + 1.3 * x * s * (1 - s), rtol=1e-13, atol=1e-15
        )
    finally:
        cache_mod._reset_default_cache()
