"""The C++ prelude's precompiled header (symnb.backends.prelude).

g++ must really use it (``-H`` marks a used ``.gch`` with ``!``), kernels built with it
must compute what kernels built from the text compute, and where it cannot be built or
its header is gone, kernels still build.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

import symnb
from symnb.backends import cpp, prelude, status

pytestmark = pytest.mark.skipif(not status("cpp").usable, reason="cpp not usable")

FORMULA = "x*sigmoid(b*x) + log1p(exp(-abs(x)))"


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """A cold kernel cache in tmp_path, and no header known to this process."""
    from symnb.backends import cache as cache_mod

    monkeypatch.setenv("SYMNB_CACHE_DIR", str(tmp_path))
    cache_mod._reset_default_cache()
    prelude._forget()
    yield tmp_path
    monkeypatch.delenv("SYMNB_CACHE_DIR")
    cache_mod._reset_default_cache()
    prelude._forget()


def _unit() -> str:
    from symnb.codegen.kernels import render_program

    act = symnb.Activation(FORMULA, b=1.5)
    ks = render_program((act.internal,), "elementwise", "cpp", "float32")
    return (list(ks.units) or [ks.text])[0]


def _compiler():
    st = cpp.probe()
    return cpp._compiler_command(), cpp._flags(st)


def _values(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    x = np.array(
        [-np.inf, -1e30, -88.0, -3.5, -1e-30, 0.0, 2.0, 40.0, 1e30, np.inf, np.nan],
        dtype=dtype,
    )
    kernel = symnb.Activation(FORMULA, b=1.5).compile(backend="cpp", dtype=dtype)
    with np.errstate(all="ignore"):
        return kernel.forward_with_derivative(x)


def test_generated_units_start_with_the_prelude():
    assert _unit().startswith(prelude.UNIT_START)


def test_gpp_uses_the_precompiled_header(fresh_cache):
    cxx, flags = _compiler()
    unit = _unit()
    pre = prelude.include_flags(cxx, flags, [unit])
    assert pre[0] == "-include" and (fresh_cache / (pre[1] + ".gch")).exists()
    src = fresh_cache / "unit.cpp"
    src.write_text(unit)
    run = subprocess.run(
        [*cxx, *flags, *pre, "-H", "-fsyntax-only", str(src)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"! {pre[1]}.gch" in run.stderr.splitlines()


def test_only_units_of_the_prelude_get_it(fresh_cache):
    cxx, flags = _compiler()
    assert prelude.include_flags(cxx, flags, ["#include <math.h>\nint f();\n"]) == []
    assert prelude.include_flags(cxx, flags, []) == []


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kernels_with_and_without_it_compute_the_same(dtype, fresh_cache, monkeypatch):
    with_pch = _values(dtype)
    from symnb.backends import cache as cache_mod

    monkeypatch.setenv("SYMNB_CACHE_DIR", str(fresh_cache / "plain"))
    cache_mod._reset_default_cache()
    monkeypatch.setattr(prelude, "include_flags", lambda *a: [])
    plain = _values(dtype)
    for a, b in zip(with_pch, plain):
        np.testing.assert_array_equal(a, b)


def test_a_removed_header_is_written_again(fresh_cache):
    cxx, flags = _compiler()
    pre = prelude.include_flags(cxx, flags, [_unit()])
    header = fresh_cache / pre[1]
    header.unlink()
    assert prelude.include_flags(cxx, flags, [_unit()]) == pre
    assert header.read_text() == prelude.PRELUDE
    y, _ = _values("float32")
    assert y[5] == pytest.approx(np.log(2.0))


def test_a_header_that_cannot_be_built_is_left_out(fresh_cache, monkeypatch):
    real = cpp.run_compiler

    def failing(command, timeout, cwd=None):
        if "c++-header" in command:
            return 1, "error: no precompiled headers here"
        return real(command, timeout, cwd)

    monkeypatch.setattr(cpp, "run_compiler", failing)
    cxx, flags = _compiler()
    assert prelude.include_flags(cxx, flags, [_unit()]) == []
    assert not list(fresh_cache.glob("*.gch"))
    y, dy = _values("float64")
    s3 = 1 / (1 + np.exp(-3.0))  # at x = 2: sigmoid(1.5 x), and exp(-x)/(1 + exp(-x))
    assert y[6] == pytest.approx(2 * s3 + np.log1p(np.exp(-2.0)), rel=1e-14)
    assert dy[6] == pytest.approx(s3 + 3 * s3 * (1 - s3) - 1 / (1 + np.exp(2.0)))
