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


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exact_split_wide_trig_matches_mpmath(dtype, tmp_path):
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
    # float32: the float-only path of CUDA kernels, built as C++
    subprocess.run(
        ["g++", "-O2", "-shared", "-fPIC", "-DSYMNB_WIDE_TRIG_FLOAT", str(src)]
        + ["-o", str(lib_path)],
        check=True,
    )
    lib = ctypes.CDLL(str(lib_path))
    a = np.array([p[0] for p in PAIRS[dtype]], dtype)
    b = np.array([p[1] for p in PAIRS[dtype]], dtype)
    with np.errstate(over="ignore"):
        assert np.isinf(a * b).all()
    out = np.zeros((a.size, 3), dtype)
    ptr = ctypes.c_void_p
    lib.run(ptr(a.ctypes.data), ptr(b.ctypes.data), ptr(out.ctypes.data), a.size)
    tol = 2e-5 if dtype == "float32" else 1e-11
    with mp.workprec(1200):
        for i in range(a.size):
            p = mp.mpf(float(a[i])) * mp.mpf(float(b[i]))
            want = [float(getattr(mp, n)(p)) for n in names]
            np.testing.assert_allclose(out[i], want, rtol=tol, atol=tol)
