"""Layers of many distinct formulas: split into translation units compiled in parallel,
refused upfront beyond a limit, and a compile timeout is raised, never replaced by a
fallback (issue 8, "compile_layer with 256 distinct activations")."""

from __future__ import annotations

import math
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import symnb
from symnb.backends import cache as cache_mod
from symnb.backends import cpp, select
from symnb.codegen import kernels

pytestmark = pytest.mark.skipif(
    not cpp.probe().usable, reason="cpp backend: no usable C++ compiler here"
)

# Distinct structures (and constants) so that every one is its own form.
TEMPLATES = [
    ("x*sigmoid(beta*x) + {a}*sin(x)", {"beta": 1.5}),
    ("tanh({a}*x)*x", {}),
    ("x/(1 + abs(alpha*x)) + {a}*exp(-x**2)", {"alpha": 0.7}),
    ("softplus({a}*x) - atan(x)", {}),
    ("Max(0, x) + k*sin({a}*x) + m*x", {"k": 0.3, "m": -0.2}),
    ("log1p({a}*x**2)", {}),
    ("x*erf({a}*x)", {}),
]


def _activations(n: int, tag: float) -> list:
    acts = []
    for i in range(n):
        text, consts = TEMPLATES[i % len(TEMPLATES)]
        a = round(tag + 0.25 * (i // len(TEMPLATES)) + 0.01 * i, 4)
        acts.append(symnb.Activation(text.format(a=a), **consts))
    return acts


def _check_against_numpy(acts: list, rows: int) -> None:
    layer = symnb.compile_layer(acts, backend="cpp", strict=True)
    ref = symnb.compile_layer(acts, backend="numpy", strict=True)
    rng = np.random.default_rng(rows)
    x = rng.uniform(-4, 4, size=(rows, len(acts))).astype(np.float32)
    g = rng.normal(size=x.shape).astype(np.float32)
    tol = {"rtol": 2e-5, "atol": 2e-6}
    np.testing.assert_allclose(layer.forward(x), ref.forward(x), **tol)
    np.testing.assert_allclose(layer.backward(x, g), ref.backward(x, g), **tol)
    for got, want in zip(
        layer.forward_with_derivative(x), ref.forward_with_derivative(x)
    ):
        np.testing.assert_allclose(got, want, **tol)
    np.testing.assert_allclose(
        layer.constant_gradient(x, g),
        ref.constant_gradient(x, g),
        rtol=1e-4,
        atol=1e-4,
    )
    inplace = x.copy()  # in place, through the tables, too
    np.testing.assert_allclose(
        layer.forward(inplace, out=inplace), ref.forward(x), **tol
    )


@pytest.fixture
def own_cache(monkeypatch, tmp_path):
    """A cache of this test's own: with the shared one warm from an earlier run,
    the layer was loaded from disk and no compiler run was counted (calls == [])."""
    monkeypatch.setenv("SYMNB_CACHE_DIR", str(tmp_path / "cache"))
    cache_mod._reset_default_cache()
    yield
    monkeypatch.undo()
    cache_mod._reset_default_cache()


def test_many_forms_compile_as_parallel_units_and_match_numpy(monkeypatch, own_cache):
    monkeypatch.setattr(kernels, "LAYER_SPLIT_FORMS", 3)
    monkeypatch.setattr(kernels, "LAYER_UNIT_FORMS", 2)
    # the compiler's probe (version, OpenMP: one command each) runs first if an
    # earlier test reset it; only the layer's own compiler runs are counted
    assert cpp.probe().usable
    calls = []
    real = cpp.run_compilers

    def spy(commands, *args, **kwargs):
        # the precompiled prelude header is built once per cache, by whichever test
        # compiles C++ first (alone, this one): not the layer's own compiler runs
        if not any("c++-header" in command for command in commands):
            calls.append(len(commands))
        return real(commands, *args, **kwargs)

    monkeypatch.setattr(cpp, "run_compilers", spy)
    acts = _activations(7, tag=1.37)
    acts += [acts[0].with_constants(beta=-0.4), acts[4].with_constants(k=2.0)]
    layer = symnb.compile_layer(acts, backend="cpp", strict=True)
    units = layer._program.kernel_source.units
    assert len(layer.forms) == 7
    assert len(units) == math.ceil(7 / 2) + 1  # four groups of forms + the tables
    assert calls == [5, 1]  # the four groups and the tables at once, then the link
    for rows in (1, 5, 130):  # 130 rows: more than one block of 64
        _check_against_numpy(acts, rows)


def test_few_forms_keep_the_single_unit():
    acts = _activations(3, tag=2.11)
    layer = symnb.compile_layer(acts, backend="cpp", strict=True)
    assert layer._program.kernel_source.units == ()


def test_too_many_forms_are_refused_upfront(monkeypatch):
    monkeypatch.setattr(kernels, "MAX_LAYER_FORMS", 3)
    acts = _activations(4, tag=3.3)
    with pytest.raises(symnb.FormulaError, match="4 distinct formulas.*limit is 3"):
        symnb.compile_layer(acts, backend="cpp")


def test_compile_timeout_is_raised_not_replaced_by_a_fallback(monkeypatch, tmp_path):
    status = cpp.probe()
    fake = tmp_path / "slow-cxx"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("SYMNB_CXX", str(fake))
    monkeypatch.setattr(cpp, "probe", lambda: status)
    monkeypatch.setattr(cpp, "COMPILE_TIMEOUT", 1.0)
    monkeypatch.setattr(cpp, "DEADLINE_GRACE", 0.5)
    act = symnb.Activation("x*tanh(x) + 0.5173*x")
    with warnings.catch_warnings():
        warnings.simplefilter("error", select.FallbackWarning)
        with pytest.raises(symnb.CompileError, match="took more than 1 s") as info:
            act.compile(backend="cpp", strict=False)
    assert "backend='numpy'" in str(info.value)


@pytest.mark.slow
def test_forty_distinct_forms_with_the_default_split():
    acts = _activations(40, tag=0.61)
    layer = symnb.compile_layer(acts, backend="cpp", strict=True)
    per_unit = kernels.LAYER_UNIT_FORMS
    assert len(layer._program.kernel_source.units) == math.ceil(40 / per_unit) + 1
    _check_against_numpy(acts, rows=70)


def test_a_failing_unit_is_reported_with_its_own_source(tmp_path):
    with pytest.raises(symnb.CompileError, match="compilation failed") as info:
        cpp.compile_units(
            ["int symnb_ok = 1;", "this is not C++;"], tmp_path / "out.so"
        )
    err = info.value
    assert err.source == "this is not C++;"
    assert err.source_path.endswith("unit1.cpp") and "-c" in err.command
    assert not (tmp_path / "out.so").exists()
    shutil.rmtree(Path(err.source_path).parent)  # kept for the report; tidy up here
