"""Activation.to_source: several headers in one translation unit, and defaults that
the dtype cannot hold.

Before: the include guard held only the (identifier-mapped) name, so two different
activations both named 'f' (the default name) shared it and the second header was
skipped by the preprocessor: its f(x) was silently the first activation's. A
constant default of 1e300 in a float32 header was written as SYMNB_INF."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import symnb
from symnb import config

CXX = shutil.which(config.cxx())
needs_cxx = pytest.mark.skipif(CXX is None, reason=f"{config.cxx()} not found on PATH")

MAIN = """#include "a.hpp"
#include "b.hpp"
#include <cstdio>
int main() { std::printf("%.9g\\n", (double)symnb_NS::f(1.0f)); return 0; }
"""


def _compile(tmp_path, first, second, namespace):
    (tmp_path / "a.hpp").write_text(first.to_source("cpp"))
    (tmp_path / "b.hpp").write_text(second.to_source("cpp"))
    (tmp_path / "m.cpp").write_text(MAIN.replace("NS", namespace))
    exe = tmp_path / "m"
    return subprocess.run(
        [CXX, "-std=c++17", str(tmp_path / "m.cpp"), "-o", str(exe)],
        capture_output=True,
        text=True,
        timeout=120,
    ), exe


@needs_cxx
def test_two_different_activations_with_one_name_do_not_silently_share(tmp_path):
    first = symnb.Activation("x*tanh(x)")  # both named 'f'
    second = symnb.Activation("2*x")
    assert first.name == second.name
    result, _ = _compile(tmp_path, first, second, first.name)
    # both are compiled: a clash the compiler reports, not a header skipped
    assert result.returncode != 0, "the second header was skipped by its guard"
    assert "redefinition" in result.stderr


@needs_cxx
def test_the_same_activation_twice_includes_once(tmp_path):
    act = symnb.Activation("x*tanh(x)", name="same")
    result, exe = _compile(tmp_path, act, act, "same")
    assert result.returncode == 0, result.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert abs(float(out.stdout) - 0.761594156) < 1e-6


@needs_cxx
def test_distinct_names_include_together(tmp_path):
    a = symnb.Activation("x*tanh(x)", name="one")
    b = symnb.Activation("2*x", name="two")
    (tmp_path / "a.hpp").write_text(a.to_source("cpp"))
    (tmp_path / "b.hpp").write_text(b.to_source("cpp"))
    (tmp_path / "m.cpp").write_text(
        '#include "a.hpp"\n#include "b.hpp"\n#include <cstdio>\n'
        'int main() { std::printf("%.9g %.9g\\n", (double)symnb_one::f(1.0f), '
        "(double)symnb_two::f(1.0f)); return 0; }\n"
    )
    exe = tmp_path / "m"
    r = subprocess.run(
        [CXX, "-std=c++17", str(tmp_path / "m.cpp"), "-o", str(exe)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    one, two = map(float, out.stdout.split())
    assert abs(one - 0.761594156) < 1e-6 and two == 2.0


def test_default_that_does_not_fit_the_dtype_is_refused():
    act = symnb.Activation("x*tanh(k*x)", name="big", k=1e300)
    with pytest.raises(symnb.FormulaError, match="'k'.*float32"):
        act.to_source("cpp", dtype="float32")
    with pytest.raises(symnb.FormulaError, match="'k'.*float32"):
        act.to_source("cuda", dtype="float32")
    assert "namespace symnb_big_f64" in act.to_source("cpp", dtype="float64")
