"""NaN in, NaN out without the kernels' NaN select (symnb.codegen.nan_flow).

The select is left out where :func:`carries_nan` says the formula passes NaN on by
itself; these tests check the predicate's answers on the cases it must refuse, and that
every compiled entry point still returns NaN for a NaN input across the published
corpus, the library activations and the library losses (cpp, float32 and float64).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symnb
from symnb.codegen.nan_flow import carries_nan
from tests.robust.corpus import ALL

x, c = sp.symbols("x c", real=True)


@pytest.mark.parametrize(
    ("expr", "carries"),
    [
        (x * sp.exp(-x), True),
        ((c + x**5) / (1 + sp.Abs(c * x)), True),
        (sp.sqrt(x), True),
        (c * 0 + 1, False),
        (sp.Max(x, 0), False),  # fmax-like forms are left alone
        (sp.Heaviside(x), False),  # (x > 0 ? 1 : 0) is 0 at NaN
        (sp.floor(x), False),
        (x**c, False),  # pow(NaN, 0) = 1
        (c**x, False),  # pow(1, NaN) = 1
        (sp.Piecewise((0, x > 0), (x, True)), True),  # NaN > 0 is false
        (sp.Piecewise((0, sp.Ne(x, 0)), (x, True)), False),  # NaN != 0 is true
        (sp.Piecewise((x, c > 0), (0, True)), False),  # c > 0 may be false
        (sp.Piecewise((x, c > 0), (2 * x, True)), True),  # either branch carries
        (sp.Piecewise((1, sp.And(c > 0, x > 1)), (x, True)), True),
        (sp.Piecewise((1, sp.Or(c > 0, x > 1)), (x, True)), False),
        (sp.Piecewise((x, x > 0)), True),  # no branch: the printer's NaN
    ],
)
def test_carries_nan(expr, carries):
    assert carries_nan(expr, x) is carries


def _cpp_or_skip():
    st = symnb.backends.status("cpp")
    if not st.usable:
        pytest.skip(f"cpp backend: {st.reason}")


def _activations():
    """The published corpus in float32, the library in both dtypes (the predicate
    reads the formula, not the dtype; the printed helpers differ by dtype)."""
    cases = [
        pytest.param(p.text, p.constants, "float32", id=p.name)
        for p in ALL
        if not p.library
    ]
    cases += [
        pytest.param(name, None, dtype, id=f"library-{name}-{dtype}")
        for name in symnb.library_activations()
        for dtype in ("float32", "float64")
    ]
    return cases


@pytest.mark.parametrize(("text", "constants", "dtype"), _activations())
def test_activation_entry_points_return_nan_for_nan(text, constants, dtype):
    _cpp_or_skip()
    act = (
        symnb.activation(text)
        if constants is None
        else symnb.Activation(text, **constants)
    )
    k = act.compile(backend="cpp", dtype=dtype)
    xs = np.array([np.nan, 0.5, -np.nan, -2.0], dtype=dtype)
    nan = np.isnan(xs)
    with np.errstate(all="ignore"):
        y, dy = k.forward_with_derivative(xs)
        outs = {"f": k.forward(xs), "f'": k.backward(xs, np.ones_like(xs)), "fdf f": y}
        outs["fdf f'"] = dy
        if act.constants:
            for name, g in k.constant_gradient(xs, np.ones_like(xs)).items():
                outs[f"d/d{name}"] = np.atleast_1d(g)
    for what, out in outs.items():
        if out.shape == xs.shape:
            assert np.isnan(out[nan]).all(), (what, out)
        else:  # a constant's gradient summed over the batch
            assert np.isnan(out).all(), (what, out)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", symnb.library_losses())
def test_loss_gradient_is_nan_where_an_input_is_nan(name, dtype):
    _cpp_or_skip()
    k = symnb.loss(name).compile(backend="cpp", dtype=dtype)
    p = np.array([0.3, np.nan, 0.6], dtype=dtype)
    t = np.array([1.0, 0.0, np.nan], dtype=dtype)
    with np.errstate(all="ignore"):
        g = k.gradient(p, t)
    assert np.isnan(g[1:]).all() and np.isfinite(g[0]), g
