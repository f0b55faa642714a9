"""Three formulas of the seventh probe that overflowed or underflowed before their value.

* ``x**2/sqrt(x**2 + c**2)`` with c = 1e12: the C++ float32 f' was NaN for |x| in
  1e13..1.8e19. The C printer wrote x*(2c^2 + x^2)*(x^2 + c^2)**-1.5 as one quotient
  x*(2c^2 + x^2)/(sqrt(t)*t) (inf/inf) where NumPy multiplies by t**-1.5 (finite): the
  printer now divides step by step in NumPy's factor order.
* Barron's loss at alpha = 1.99: f = k*expm1(a/2*log1p(x**2/k')) was inf from
  |x| = 1.8e18 in float32 (x**2 overflows) where the loss is 3e37: the exp-of-log
  regime now takes the leading power out of a log of a polynomial inside it.
* ``x**2/(x**2 + s**2)`` with s = 1e-20: s**2 and x**2 are subnormal in float32, 5e-4
  off at x = 1e-21; the analysis now samples around the constant's scale, and computes
  such a rational function in x/s.

Each is judged at the corpus's sample points and at the exact inputs of the report,
against SymPy + mpmath references under issue 8's rule (``corpus_reference``).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import symnb
from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.corpus_reference import references_by_dtype
from tests.robust.test_corpus import assert_lowered_cuda_compiles, rule_problems

_BARRON = "abs(a - 2)/a*(((x/c)**2/abs(a - 2) + 1)**(a/2) - 1)"

#: (entry, the inputs of the report)
CASES = (
    (
        Published(
            "square_over_root_c_1e12",
            "x**2/sqrt(x**2 + c**2)",
            "probe 7",
            {"c": 1e12},
        ),
        (1e13, 3e14, 1e16, 1e18, 1.8e19, -1e15),
    ),
    (
        Published("barron_alpha_1_99", _BARRON, "Barron 2019", {"a": 1.99, "c": 1.0}),
        (1e18, 3e18, 1e19, 2e19, 3e19, -1e19),
    ),
    (
        Published(
            "subnormal_squares_ratio",
            "x**2/(x**2 + s**2)",
            "probe 7",
            {"s": 1e-20},
        ),
        (1e-22, 3e-22, 1e-21, 3e-21, 1e-20, 3e-20, -1e-21),
    ),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0].name)
def test_meets_the_rule(case, dtype, backend):
    entry, _ = case
    xs, check_df, ref = references_by_dtype(entry)[dtype]
    act = symnb.Activation(entry.text, **entry.constants)
    kernel = act.compile(backend=backend, dtype=dtype)
    problems = rule_problems(kernel, xs, check_df, ref, dtype)
    assert not problems, f"{entry.text} on {backend} {dtype}:\n" + "\n".join(problems)


def _mpmath_values(entry: Published, xs: np.ndarray) -> list[tuple[float, float]]:
    """f and f' of the typed formula (SymPy's own functions) at xs with mpmath."""
    x = sp.Symbol("x", real=True)
    consts = {k: sp.Float(v) for k, v in entry.constants.items()}
    text = entry.text.replace("abs(", "Abs(")
    f = sp.sympify(text, locals={"x": x, **{k: sp.Symbol(k) for k in consts}})
    f = f.subs(consts)
    fns = [sp.lambdify(x, e, modules="mpmath") for e in (f, sp.diff(f, x))]
    with mpmath.workdps(60):
        return [tuple(float(fn(mpmath.mpf(float(v)))) for fn in fns) for v in xs]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0].name)
def test_reported_inputs_in_float32(case, backend):
    """At the report's inputs: f and f' finite where the value is, f within the rule
    (2e-5 |f| + 1e-6 max(1, |x|, |x f'|))."""
    entry, points = case
    xs = np.asarray(points, dtype=np.float32)
    act = symnb.Activation(entry.text, **entry.constants)
    kernel = act.compile(backend=backend, dtype="float32")
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(xs)
    big = float(np.finfo(np.float32).max)
    for xv, got_f, got_df, (f, df) in zip(
        xs.astype(np.float64), y, dy, _mpmath_values(entry, xs)
    ):
        where = (entry.name, backend, xv, float(got_f), f, float(got_df), df)
        if abs(df) <= big:
            assert np.isfinite(got_df), where
        if abs(f) > big:
            continue
        assert np.isfinite(got_f), where
        scale = max(1.0, abs(xv), abs(xv * df))
        assert abs(float(got_f) - f) <= 2e-5 * abs(f) + 1e-6 * scale, where


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_kernels_compile(dtype):
    assert_lowered_cuda_compiles([c[0] for c in CASES], dtype)
