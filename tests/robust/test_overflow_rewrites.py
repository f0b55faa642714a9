"""Rewrites for intermediates that overflow or underflow although the result does not.

Each test checks one mechanism of ``symnb.robust`` against mpmath at the points where the
direct evaluation goes wrong: factored lowest powers in sign/abs (subnormal x), trig of a
product evaluated wide (|x| near the float maximum), exp-of-log forms of ratios (exp(x)
overflows, the quotient does not), constant products grouped before CSE can split them.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from symnb.formula.functions import expm1
from symnb.robust import codec, measure, regimes, rewrite
from symnb.robust.widen import wide_call, wide_cos, wide_sin, widen_trig

x = sp.Symbol("x", real=True)
c0, c1 = sp.symbols("c0 c1", real=True)
F32_MAX = float(np.finfo(np.float32).max)
F64_MAX = float(np.finfo(np.float64).max)


def _eval(expr, pts, dtype, params=(), values=(), order="numpy"):
    cols = (np.asarray(pts, dtype=np.float64),)
    return measure.evaluate(expr, (x,), params, values, cols, dtype, order)


def test_sign_of_a_polynomial_keeps_its_sign_at_subnormal_x():
    p = sp.Float(1.7e-5) * x + sp.Float(2.49) * x**2
    e = sp.sign(p) * (1 + sp.Abs(p))
    new = rewrite.factor_lowest_power(e, x)
    assert new != e
    tiny = np.array([-1e-320, -5e-324, 5e-324, 1e-320])
    assert (_eval(e, tiny, "float64") == 0).all()  # b1*x underflows: sign 0
    np.testing.assert_array_equal(_eval(new, tiny, "float64"), np.sign(tiny))
    # an identity at ordinary points too (mpmath of the original)
    for v in (-3.0, -0.2, 0.0, 1e-3, 2.5):
        ref = float(e.subs(x, sp.Float(v, 30)).evalf(30))
        assert _eval(new, [v], "float64")[0] == pytest.approx(ref, rel=1e-15)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trig_of_a_product_is_computed_wide_where_the_product_overflows(dtype):
    big = F32_MAX if dtype == "float32" else F64_MAX
    t = np.dtype(dtype).type
    xs = np.array([-big, -1.5, 0.25, big], dtype=dtype)
    with np.errstate(all="ignore"):
        assert np.isnan(np.sin(t(30.0) * xs[[0, 3]])).all()  # the direct form
        got = wide_call("sin", t(30.0), xs)
    assert got.dtype == np.dtype(dtype)
    for xi, gi in zip(xs.tolist(), got.tolist()):
        with mpmath.workdps(400):
            ref = float(mpmath.sin(30 * mpmath.mpf(xi)))
        assert gi == pytest.approx(ref, abs=2e-6 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_cpp_kernel_computes_the_overflowing_trig_argument_accurately(dtype):
    from symnb.backends import status

    if not status("cpp").usable:
        pytest.skip(f"cpp backend: {status('cpp').reason}")
    import symnb

    big = F32_MAX if dtype == "float32" else F64_MAX
    kernel = symnb.Activation("sin(w0*x)", w0=30.0).compile(backend="cpp", dtype=dtype)
    xs = np.array([-big, -big / 3, 0.5, big / 7, big], dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(xs)
    for xi, yi, di in zip(xs.tolist(), y.tolist(), dy.tolist()):
        with mpmath.workdps(400):
            arg = 30 * mpmath.mpf(xi)
            ref, dref = float(mpmath.sin(arg)), float(30 * mpmath.cos(arg))
        # float64: 16 angle doublings cost about 2**16 ulps
        tol = 2e-6 if dtype == "float32" else 1e-10
        assert yi == pytest.approx(ref, abs=tol)
        assert di == pytest.approx(dref, abs=30 * tol)


def test_wide_trig_is_an_exact_rewrite_with_its_derivative_and_codec():
    e = sp.sin(c0 * x) + x * sp.cos(c0 * x)
    new = widen_trig(e, x)
    assert new.has(wide_sin) and new.has(wide_cos)
    for v in (-2.0, 0.3, 5.0):
        at = {x: sp.Float(v), c0: sp.Float(3.0)}
        for k in (0, 1, 2):
            got = float(sp.diff(new, x, k).xreplace(at))
            assert got == pytest.approx(float(sp.diff(e, x, k).xreplace(at)), 1e-12)
    syms = {"x": x, "c0": c0}
    assert codec.decode(codec.encode(new), syms) == new


def test_cse_order_is_measured_and_grouped_constants_avoid_its_overflow():
    f = sp.Piecewise((c0 * x / c1, x >= 0), (c0 * expm1(x / c1), True))
    vals = (float(np.sqrt(0.1)), float(np.sqrt(0.1)))
    pts = [F32_MAX, 1.0, -2.0]
    with np.errstate(all="ignore"):
        cse = _eval(f, pts, "float32", (c0, c1), vals, order="cse")
    assert np.isinf(cse[0])  # x/c1 is shared with expm1(x/c1) and overflows
    grouped = rewrite.group_constant_factors(f, x)
    # nothing is shared any more: the C order is NumPy's
    assert _eval(grouped, pts, "float32", (c0, c1), vals, order="cse") is None
    got = _eval(grouped, pts, "float32", (c0, c1), vals)
    np.testing.assert_allclose(got[:2], [F32_MAX, 1.0], rtol=1e-6)
    assert got[2] == pytest.approx(vals[0] * np.expm1(-2.0 / vals[1]), rel=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exp_of_log_form_where_a_ratio_overflows_in_between(dtype):
    f = expm1(x) / x
    df = sp.exp(x) / x - expm1(x) / x**2
    cols = (measure.sample_points([f], x),)
    for expr, d in ((f, df), (df, sp.diff(df, x))):
        problem = measure.make_problem(expr, d, (x,), (), (), cols)
        m = problem.measure(expr, dtype)
        assert m.bad[problem.x > 80].any()  # exp(x) overflows first

        def ok_at(e, pts, expr=expr, d=d):
            p = measure.make_problem(
                expr, d, (x,), (), (), (np.asarray(pts, dtype=np.float64),)
            )
            mm = p.measure(e, dtype)
            return mm.ok | ~mm.defined

        cands = regimes.log_form_candidates(
            expr, x, (), (), problem.x, m.bad, ok_at, float("inf")
        )
        assert cands and cands[0][0] == "log_form"
        mc = problem.measure(cands[0][2], dtype)
        assert mc.n_bad < m.n_bad
        assert not (mc.bad & ~m.bad).any()
        assert not mc.bad[problem.x > 1].any()


def test_rule_rejects_inf_where_the_value_is_finite_even_if_the_scale_overflows():
    ref = np.array([2.5e305])
    ok, _, _ = measure.within_rule(
        np.array([np.inf]), ref, np.zeros(1), np.array([np.inf]), "float64"
    )
    assert not ok[0]
    ok, _, _ = measure.within_rule(
        np.array([2.5e305]), ref, np.zeros(1), np.array([np.inf]), "float64"
    )
    assert ok[0]


@pytest.mark.parametrize(
    "text, ref",
    [
        # x**3 overflowed first: inf instead of 1e38 at x = 1e13 in float32
        ("x + 0.1*x**3", lambda v: v + mpmath.mpf("0.1") * v**3),
        # -inf instead of -3.3e38 at x = -1e13 (float32), and inf - inf = NaN at
        # x = -1e20 where the polynomial is -inf
        ("x^2 + x^3/3", lambda v: v**2 + v**3 / 3),
    ],
)
def test_polynomials_in_horner_form_do_not_overflow_before_their_value(text, ref):
    import symnb

    act = symnb.Activation(text)
    xs = np.array([-1e13, -2.5, 0.5, 3.0, 1e13], dtype="float32")
    with mpmath.workdps(60):
        want = np.array([float(ref(mpmath.mpf(float(v)))) for v in xs])
        dwant = np.array([float(mpmath.diff(ref, mpmath.mpf(float(v)))) for v in xs])
    assert (np.abs(want) < F32_MAX).all()
    for backend in ("numpy", "cpp"):
        k = act.compile(backend, dtype="float32")
        y, dy = k.forward_with_derivative(xs)
        np.testing.assert_allclose(y, want, rtol=2e-6)
        np.testing.assert_allclose(dy, dwant, rtol=2e-6)
    # past the float range the value is +-inf with the polynomial's sign, never NaN
    for dtype, big in (("float32", 1e20), ("float64", 1e200)):
        huge = np.array([-big, big], dtype=dtype)
        with mpmath.workdps(30):
            signs = [float(mpmath.sign(ref(mpmath.mpf(float(v))))) for v in huge]
        for backend in ("numpy", "cpp"):
            y, _ = act.compile(backend, dtype=dtype).forward_with_derivative(huge)
            np.testing.assert_array_equal(y, np.array(signs) * np.inf)
