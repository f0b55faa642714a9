"""sin/cos/tan of an overflowing float32 product, without double in CUDA.

Where ``w*x`` overflows float32 (|x| near the float maximum) the engine evaluates
``sin(w*x)`` wide (:mod:`symnb.robust.widen`). C++ did that in double, and so did the
float32 CUDA kernels, which broke the check that float32 PTX holds no double
(``tests/backends/test_cuda_compile.py``). The float32 CUDA path now splits the smaller
factor as m*2**e, takes sin/cos of the exact float product m*b = h + l and doubles the
angle e times. Checked here: NVRTC's PTX of such kernels has no double, and that float
path (built with g++ under ``SYMNB_WIDE_TRIG_FLOAT``) against mpmath.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import mpmath as mp
import numpy as np
import pytest

import symnb
from symnb.codegen.kernels import render_program
from symnb.codegen.printer import prelude
from symnb.robust import engine
from tests.backends.test_cuda_compile import _nvrtc_check, needs_nvrtc
from tests.conftest import backend_params
from tests.robust.text_judge import rule_problems_of

FORMULAS = ["sin(3.0*x)", "x*cos(2*x)", "tan(2.5*x) + x"]


@needs_nvrtc
@pytest.mark.parametrize("text", FORMULAS)
def test_float32_cuda_wide_trig_has_no_double(text):
    form = engine.lower(symnb.Activation(text).internal, "float32")
    assert "wide_" in str(form.f), form.f  # the case under test: widened
    source = render_program((form,), "elementwise", dialect="cuda", dtype="float32")
    _nvrtc_check(source, "float32")


# the product a*b overflows the type in every pair
PAIRS = {
    "float32": [
        (3.0, 3e38),
        (2.0, -3.4e38),
        (1.5, 3.4e38),
        (1.25, 3.3e38),
        (-3.0, 2e38),
        (100.0, 1e37),
        (3e38, 7.0),
    ],
    "float64": [
        (3.0, 1.7e308),
        (2.0, -1.7e308),
        (1.5, 1.5e308),
        (-7.0, 1e308),
        (1000.0, 1e306),
    ],
}


def _built_wide_trig(dtype, tmp_path):
    """run(a, b) -> (n, 3) array of symnb_wide_sin/cos/tan(a, b), the prelude's C
    built with g++ (float32: the float-only path of CUDA kernels)."""
    names = ("sin", "cos", "tan")
    text = prelude(dtype, frozenset(f"symnb_wide_{n}" for n in names))
    ctype = "float" if dtype == "float32" else "double"
    calls = " ".join(
        f"o[3*i+{k}] = symnb_wide_{n}(a[i], b[i]);" for k, n in enumerate(names)
    )
    src = tmp_path / "wide.cpp"
    src.write_text(
        f"#include <math.h>\n#define SYMNB_FN static inline\n"
        f'typedef {ctype} symnb_real;\n{text}\nextern "C" void run(const '
        f"symnb_real* a, const symnb_real* b, symnb_real* o, int n) {{ for (int i = 0;"
        f" i < n; ++i) {{ {calls} }} }}\n"
    )
    lib_path = tmp_path / "wide.so"
    subprocess.run(
        ["g++", "-O2", "-shared", "-fPIC", "-DSYMNB_WIDE_TRIG_FLOAT", str(src)]
        + ["-o", str(lib_path)],
        check=True,
    )
    lib = ctypes.CDLL(str(lib_path))

    def run(pairs):
        a = np.array([p[0] for p in pairs], dtype)
        b = np.array([p[1] for p in pairs], dtype)
        with np.errstate(over="ignore"):
            assert np.isinf(a * b).all()
        out = np.zeros((a.size, 3), dtype)
        ptr = ctypes.c_void_p
        lib.run(ptr(a.ctypes.data), ptr(b.ctypes.data), ptr(out.ctypes.data), a.size)
        return a, b, out

    return run


needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")


@needs_gxx
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exact_split_wide_trig_matches_mpmath(dtype, tmp_path):
    a, b, out = _built_wide_trig(dtype, tmp_path)(PAIRS[dtype])
    tol = 2e-5 if dtype == "float32" else 1e-11
    with mp.workprec(1200):
        for i in range(a.size):
            p = mp.mpf(float(a[i])) * mp.mpf(float(b[i]))
            want = [float(getattr(mp, n)(p)) for n in ("sin", "cos", "tan")]
            np.testing.assert_allclose(out[i], want, rtol=tol, atol=tol)


#: both factors far from 1: e (the smaller factor's exponent) is 67 to 997 doublings
FAR_PAIRS = {
    "float32": [(1e20, 1e20), (-3e19, 3e38), (1e30, 1e30), (2e19, -2e19)],
    "float64": [(1e30, 1e300), (-1e30, 1.7e308), (1e200, 1e200), (1e300, -1e300)],
}


@needs_gxx
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_wide_trig_of_two_large_factors_stays_on_the_unit_circle(dtype, tmp_path):
    """Snake's sin(a*x)**2/a with a = 1e30 at x = 1e300 was NaN in float64: each angle
    doubling squares s^2 + c^2 and its rounding error grew to overflow. sin and cos of
    such a product are numbers in [-1, 1] with sin^2 + cos^2 = 1 (the doublings' error
    leaves their value unknown, but it is one)."""
    _, _, out = _built_wide_trig(dtype, tmp_path)(FAR_PAIRS[dtype])
    s, c = out[:, 0].astype(np.float64), out[:, 1].astype(np.float64)
    assert np.isfinite(out[:, :2]).all(), out
    np.testing.assert_allclose(s * s + c * c, 1.0, rtol=1e-5)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("a", [1e30, 1e-30])
def test_snake_with_an_extreme_frequency_meets_the_rule(a, dtype, backend):
    """Snake (Ziyin et al. 2020), x + sin(a x)^2/a, against mpmath over the whole float
    range (C++ float64 was NaN from |x| = 1e288 with a = 1e30)."""
    problems = rule_problems_of("x + sin(a*x)**2/a", backend, dtype, {"a": a})
    assert not problems, "\n".join(problems)
