"""Sixteenth boundary probe of the interop faces: what a user's own build settings
do to them.

* ``to_jax`` in float32: f' of x*sigmoid(x), gelu, x*erf(x), sqrt(x*x + 1) - 1 ...
  carried regime bounds beyond float32's range (-2.85e45 = -FLT_MAX*2**23), and
  NumPy warned "overflow encountered in cast" at every trace: a RuntimeWarning in
  user code, an error under ``-W error`` or pytest's ``filterwarnings = error``.
  Such a bound is now written as the infinity it casts to (the same comparison).
* ``to_source("cpp")`` built with ``-ffast-math`` (or ``-funsafe-math-
  optimizations``): the reassociation folds the helpers' error-free steps away and
  x*sigmoid(1.5*x) at x = -1 was -0.2 (true -0.1824), 10% off without a word; the
  header now stops with an ``#error`` that names the flag and the fix.
* ``to_numba`` functions called with an array inside ``njit`` code: numba's
  "No implementation of function abs(array(float64, 1d, C))" from deep inside the
  body; the call is now refused where it is typed, naming the function, the
  argument and the per-element loop (or numba.vectorize) to write instead.
"""

from __future__ import annotations

import shutil
import subprocess
import warnings

import numpy as np
import pytest

import symnb
from symnb import config

CXX = shutil.which(config.cxx())


# ------------------------------------------------------------ to_jax in float32


def _references(jnp, jax):
    return {
        "x*sigmoid(x)": lambda x: x * jax.nn.sigmoid(x),
        "x*erf(x)": lambda x: x * jax.scipy.special.erf(x),
        "sqrt(x*x+1)-1": lambda x: jnp.sqrt(x * x + 1) - 1,
        "x*exp(-x*x)": lambda x: x * jnp.exp(-x * x),
        "exp(-exp(-x))": lambda x: jnp.exp(-jnp.exp(-x)),
    }


@pytest.mark.parametrize(
    "text",
    ["x*sigmoid(x)", "x*erf(x)", "sqrt(x*x+1)-1", "x*exp(-x*x)", "exp(-exp(-x))"],
)
def test_jax_float32_gradients_trace_without_overflow_warnings(text):
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    f = symnb.Activation(text).to_jax()
    xs = jnp.asarray(np.linspace(-5, 5, 21, dtype=np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = jax.grad(lambda x: f(x).sum())(xs)
        jitted = jax.jit(jax.vmap(jax.grad(f)))(xs)
    ref = _references(jnp, jax)[text]
    want = jax.vmap(jax.grad(ref))(xs)
    assert got.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(
        np.asarray(jitted), np.asarray(want), rtol=2e-5, atol=2e-6
    )


def test_jax_float32_swish_slope_at_the_range_ends_is_kept():
    # the bounds written as infinities compare the same: swish' -> 1 at +FLT_MAX,
    # 0 at -FLT_MAX, the true limits (x*sigmoid(x)*(1 - sigmoid(x)) -> 0)
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    f = symnb.Activation("x*sigmoid(beta*x)", beta=1.5).to_jax()
    big = float(np.finfo(np.float32).max)
    xs = jnp.asarray(np.float32([-big, -1e30, -200.0, 200.0, 1e30, big]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = np.asarray(jax.vmap(jax.grad(f))(xs))
    np.testing.assert_array_equal(got, np.float32([0, 0, 0, 1, 1, 1]))


# ------------------------------------------------------ to_source and -ffast-math

_MAIN = r"""
#include "sw.h"
#include <cstdio>
float other(float x);
int main() {
  const float xs[] = {-4.0f, -1.0f, 0.5f, 3.0f};
  for (float x : xs) {
    std::printf("%.9g %.9g %.9g\n", static_cast<double>(symnb_sw::f(x)),
                static_cast<double>(symnb_sw::df(x)), static_cast<double>(other(x)));
  }
  return 0;
}
"""

_OTHER = r"""
#include "sw.h"
float other(float x) { return symnb_sw::f(x, 2.0f); }
"""


def _build(tmp_path, flags):
    swish = symnb.Activation("x*sigmoid(beta*x)", beta=1.5, name="sw")
    (tmp_path / "sw.h").write_text(swish.to_source("cpp"))
    (tmp_path / "main.cpp").write_text(_MAIN)
    (tmp_path / "other.cpp").write_text(_OTHER)
    exe = tmp_path / "prog"
    return subprocess.run(
        [CXX, "-std=c++17", *flags, "main.cpp", "other.cpp", "-o", str(exe)],
        cwd=tmp_path,
        check=False,
        capture_output=True,
        text=True,
        timeout=240,
    ), exe


def _swish(x, beta):
    return x / (1 + np.exp(-beta * x))


@pytest.mark.skipif(CXX is None, reason=f"{config.cxx()} not found on PATH")
@pytest.mark.parametrize(
    "flag", ["-ffast-math", "-funsafe-math-optimizations", "-Ofast"]
)
def test_header_refuses_fast_math_naming_the_fix(tmp_path, flag):
    proc, _ = _build(tmp_path, ["-O2", flag] if flag != "-Ofast" else [flag])
    assert proc.returncode != 0, "a -ffast-math build gave wrong values silently"
    assert "-ffast-math" in proc.stderr
    assert "-fno-fast-math" in proc.stderr
    assert "SYMNB_ALLOW_FAST_MATH" in proc.stderr


@pytest.mark.skipif(CXX is None, reason=f"{config.cxx()} not found on PATH")
def test_header_in_two_units_under_strict_warnings_matches_numpy(tmp_path):
    # -pedantic, two translation units linked (inline functions: no duplicate
    # symbols); -fno-fast-math after -ffast-math restores IEEE arithmetic
    for flags in (
        ["-O2", "-Wall", "-Wextra", "-Werror", "-pedantic"],
        ["-O2", "-ffast-math", "-fno-fast-math"],
    ):
        proc, exe = _build(tmp_path, flags)
        assert proc.returncode == 0, proc.stderr
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True)
        got = np.array(
            [
                [float(v) for v in line.split()]
                for line in out.stdout.split("\n")
                if line
            ]
        )
        xs = np.array([-4.0, -1.0, 0.5, 3.0])
        h = 1e-6
        slope = (_swish(xs + h, 1.5) - _swish(xs - h, 1.5)) / (2 * h)
        np.testing.assert_allclose(got[:, 0], _swish(xs, 1.5), rtol=2e-6, atol=1e-7)
        np.testing.assert_allclose(got[:, 1], slope, rtol=2e-6, atol=1e-6)
        np.testing.assert_allclose(got[:, 2], _swish(xs, 2.0), rtol=2e-6, atol=1e-7)


@pytest.mark.skipif(CXX is None, reason=f"{config.cxx()} not found on PATH")
def test_header_fast_math_accepted_on_request(tmp_path):
    proc, _ = _build(tmp_path, ["-O1", "-ffast-math", "-DSYMNB_ALLOW_FAST_MATH"])
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------------------ to_numba inside njit code


@pytest.fixture(scope="module")
def swish_numba():
    pytest.importorskip("numba")
    return symnb.Activation("x*sigmoid(beta*x)", beta=1.5, name="sw").to_numba()


def test_numba_array_argument_inside_njit_is_named(swish_numba):
    numba = pytest.importorskip("numba")
    f = swish_numba.f

    @numba.njit
    def whole(x):
        return f(x)

    @numba.njit
    def constant_array(x, b):
        return f(x, b)

    xs = np.linspace(-1.0, 1.0, 3)
    with pytest.raises(numba.core.errors.TypingError) as info:
        whole(xs)
    text = str(info.value)
    assert "f of activation 'sw': x is array(float64, 1d, C)" in text
    assert "one real number per argument" in text and "numba.vectorize" in text
    with pytest.raises(numba.core.errors.TypingError, match="beta is array"):
        constant_array(0.5, xs)


def test_numba_in_vectorize_and_prange_matches_numpy(swish_numba):
    numba = pytest.importorskip("numba")
    f, df = swish_numba.f, swish_numba.df

    @numba.vectorize(["float64(float64, float64)"])
    def vf(x, b):
        return f(x, b)

    @numba.njit(parallel=True)
    def slopes(x):
        out = np.empty_like(x)
        for i in numba.prange(x.shape[0]):
            out[i] = df(x[i])
        return out

    xs = np.linspace(-6.0, 6.0, 41)
    np.testing.assert_allclose(vf(xs, 2.0), _swish(xs, 2.0), rtol=1e-14, atol=1e-300)
    h = 1e-6
    fd = (_swish(xs + h, 1.5) - _swish(xs - h, 1.5)) / (2 * h)
    np.testing.assert_allclose(slopes(xs), fd, rtol=1e-8, atol=1e-9)
