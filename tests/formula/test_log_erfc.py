"""log(erfc(u)) and the log of the normal CDF are exact and finite for every real u.

Before symnb.formula.log_erfc, ``log(ndtr(x))`` (read as ``log(erfc(-x/sqrt(2))/2)``)
was -inf from x = -38 in float64 (-14 in float32) with f' NaN (0/0), and near
ndtr(x) = 1 the log of a rounded number near 1: 4% off at x = 5 in float32, 0 instead
of -7.6e-24 at x = 10 in float64. Values and derivatives are judged here against
mpmath at 50 digits, on NumPy and g++, float32 and float64, from -1e4 to 1e4.
"""

from __future__ import annotations

import functools

import mpmath
import numpy as np
import pytest
import sympy as sp

import symnb
from symnb.formula.functions import erfc
from symnb.formula.log_erfc import TAIL, stable_log_erfc
from symnb.formula.stability import stabilize

with mpmath.workdps(50):
    SQRT2 = mpmath.sqrt(2)


@pytest.fixture(autouse=True)
def _fifty_digits():
    """The references at 50 digits for every test: a module-level ``mp.dps = 50`` was
    overwritten by other test modules imported later into the same worker."""
    with mpmath.workdps(50):
        yield


#: formula -> (c, u = k*x): the formula is log(c*erfc(k*x))
FORMS = {
    "log(ndtr(x))": (mpmath.mpf(1) / 2, -1 / SQRT2),
    "log(erfc(x))": (mpmath.mpf(1), mpmath.mpf(1)),
}
SPELLED = {  # other spellings of the same functions (NumPy, float64 only)
    "torch.special.log_ndtr(x)": "log(ndtr(x))",
    "log(1 + erf(x/sqrt(2))) - log(2)": "log(ndtr(x))",
    "log(0.5*erfc(-x/sqrt(2)))": "log(ndtr(x))",
    "log(1 - 0.5*erfc(x/sqrt(2)))": "log(ndtr(x))",
    "log(1 - erf(x))": "log(erfc(x))",
    "log1p(-erf(x))": "log(erfc(x))",
}
_POS = np.logspace(-30, 4, 240)
XS = np.concatenate(
    [-_POS[::-1], [0.0], _POS, [-1e4, -300.0, -40.0, -37.5, 5.0, 10.0, 30.0, 37.5]]
)
BACKENDS = ("numpy", "cpp")
DTYPES = ("float32", "float64")


def _exact(c, k, x: float) -> tuple[float, float, float]:
    """(log(c*erfc(u)), its derivative in x, u) at u = k*x, x exactly the float."""
    u = k * mpmath.mpf(x)
    if u < 0:  # log(c*(2 - erfc(-u))), without mpmath's own cancellation
        value = mpmath.log(2 * c) + mpmath.log1p(-mpmath.erfc(-u) / 2)
    else:
        value = mpmath.log(c * mpmath.erfc(u))
    slope = -2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-u * u) / mpmath.erfc(u) * k
    return float(value), float(slope), float(u)


@functools.cache
def _references(text: str, dtype: str):
    c, k = FORMS[text]
    xs = XS.astype(dtype)
    rows = np.array([_exact(c, k, float(x)) for x in xs])
    return xs, rows[:, 0], rows[:, 1], rows[:, 2]


@functools.cache
def _kernel(text: str, backend: str, dtype: str):
    return symnb.Activation(text).compile(backend=backend, dtype=dtype, strict=True)


def _check(got, ref, u, dtype, what, ulps=8.0, scaled=True):
    """Within ``ulps`` ulps of the exact value, times u^2 where ``scaled``: exp(-u^2)
    and erfc(u) of a rounded u*u carry u^2 ulps (also in SciPy's log_ndtr)."""
    eps, tiny = np.finfo(dtype).eps, np.finfo(dtype).tiny
    bound = ulps * eps * np.abs(ref) * (np.maximum(1.0, u * u) if scaled else 1.0)
    err = np.abs(got.astype(np.float64) - ref)
    bad = ~(err <= bound + tiny)
    assert not bad.any(), f"{what}: {bad.sum()} points off, e.g. " + ", ".join(
        f"x={x:.6g}: {g!r} (exact {r!r})"
        for x, g, r in list(zip(XS[bad], got[bad], ref[bad]))[:4]
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", list(FORMS))
def test_value_and_derivative_match_mpmath(text, backend, dtype):
    xs, f_ref, d_ref, u = _references(text, dtype)
    f, d = _kernel(text, backend, dtype).forward_with_derivative(xs)
    assert np.isfinite(f[u < 1e4]).all() and np.isfinite(d).all()
    _check(f, f_ref, u, dtype, f"{text} {backend} {dtype}")
    _check(d, d_ref, u, dtype, f"{text}' {backend} {dtype}")
    # the tail (u > 4, where erfc underflows) is within a few ulps, unscaled
    tail = u > TAIL
    _check(f[tail], f_ref[tail], u[tail], dtype, "tail f", ulps=4, scaled=False)
    _check(d[tail], d_ref[tail], u[tail], dtype, "tail f'", ulps=4, scaled=False)


@pytest.mark.parametrize("text", list(SPELLED))
def test_other_spellings_get_the_stable_form(text):
    same = SPELLED[text]
    xs, f_ref, d_ref, u = _references(same, "float64")
    f, d = _kernel(text, "numpy", "float64").forward_with_derivative(xs)
    _check(f, f_ref, u, "float64", text)
    _check(d, d_ref, u, "float64", text + "'")


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_reported_failures(backend):
    c, k = FORMS["log(ndtr(x))"]
    exact = [_exact(c, k, x)[:2] for x in (-40.0, -300.0, 10.0, 5.0)]
    k64 = _kernel("log(ndtr(x))", backend, "float64")
    f, d = k64.forward_with_derivative(np.array([-40.0, -300.0, 10.0]))
    # were -inf, -inf (f' NaN, NaN) and 0; -804.608 and -45006.6, f' about -x
    np.testing.assert_allclose(f, [e[0] for e in exact[:3]], 1e-14)
    np.testing.assert_allclose(d[:2], [e[1] for e in exact[:2]], 1e-14)
    assert abs(d[0] - 40.025) < 1e-3
    k32 = _kernel("log(ndtr(x))", backend, "float32")
    f, d = k32.forward_with_derivative(np.array([5.0, -40.0], dtype=np.float32))
    # was -2.98e-7 (4% off, the log of a float32 near 1), then -inf with f' NaN
    np.testing.assert_allclose(f, [exact[3][0], exact[0][0]], 2e-7)
    np.testing.assert_allclose(d[1], exact[0][1], 2e-7)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_infinities_and_nan(backend, dtype):
    big = np.finfo(dtype).max / 4
    x = np.array([-np.inf, np.inf, np.nan, -big, big, -1e19, 1e19], dtype=dtype)
    f, d = _kernel("log(ndtr(x))", backend, dtype).forward_with_derivative(x)
    # f = -x^2/2 overflows where the true value does (x = -1e19 in float32); f' is
    # about -x, finite: no inf - inf, inf/inf in the tail form
    assert f[0] == -np.inf and d[0] == np.inf and f[1] == 0 and d[1] == 0
    assert np.isnan(f[2]) and np.isnan(d[2])
    assert f[3] == -np.inf and f[4] == 0 and d[4] == 0
    np.testing.assert_allclose(d[[3, 5]], [big, 1e19], rtol=1e-6)
    assert f[6] == 0 and d[6] == 0
    if dtype == "float64":
        np.testing.assert_allclose(f[5], -5e37, rtol=1e-12)


def test_the_probit_loss_gets_the_rewrite():
    loss = symnb.Loss("-y_true*log(ndtr(y_pred)) - (1 - y_true)*log(ndtr(-y_pred))")
    assert any("log(erfc(u))" in n for n in loss.notes)
    k = loss.compile(backend="numpy", dtype="float64")
    p = np.array([-40.0, 40.0, 3.0])
    t = np.array([1.0, 0.0, 1.0])
    values = [k.value(p[i : i + 1], t[i : i + 1]) for i in range(3)]
    grads = [float(k.gradient(p[i : i + 1], t[i : i + 1])[0]) for i in range(3)]
    # -log(ndtr(-40)) = 804.608 (was inf) for label 1 at -40 and label 0 at 40;
    # gradients -pdf/cdf and pdf/cdf of -p (were NaN)
    c, k = FORMS["log(ndtr(x))"]
    (f40, d40), (f3, _) = (_exact(c, k, x)[:2] for x in (-40.0, 3.0))
    np.testing.assert_allclose(values, [-f40, -f40, -f3], 1e-14)
    np.testing.assert_allclose(grads[:2], [-d40, d40], 1e-14)


X = sp.Symbol("x", real=True)
U = sp.Symbol("u", real=True)


@pytest.mark.parametrize("c", [sp.S.One, sp.S.Half, sp.Integer(3)])
def test_the_rewrite_is_an_identity_at_50_digits(c):
    """Each piece against log(c*erfc(u)) and its derivative (the tail's erfcx and
    ierfcx as their definitions in mpmath; their kernels are measured in
    tests/robust/test_compile_latency15.py)."""
    form = stable_log_erfc(c, U)
    scaled = {
        "erfcx": lambda u: mpmath.erfc(u) * mpmath.exp(u * u),
        "ierfcx": lambda u: (
            1 / mpmath.sqrt(mpmath.pi) - u * mpmath.erfc(u) * mpmath.exp(u * u)
        ),
    }
    f = sp.lambdify(U, form, modules=[scaled, "mpmath"])
    df = sp.lambdify(U, sp.diff(form, U), modules=[scaled, "mpmath"])
    points = ["-1e4", "-30", "-3", "-0.5", "-1e-30", "0", "1e-30", "0.3", "0.5"]
    points += ["2", "4", "4.0000001", "5", "8", "27", "300", "1e4", "1e30"]
    for p in points:
        u = mpmath.mpf(p)
        if u < 0:  # log(c*(2 - erfc(-u))) without cancellation
            value = mpmath.log(2 * c) + mpmath.log1p(-mpmath.erfc(-u) / 2)
        else:
            value = mpmath.log(c * mpmath.erfc(u))
        slope = -2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-u * u) / mpmath.erfc(u)
        for got, want in ((f(u), value), (df(u), slope)):
            assert abs(got - want) <= mpmath.mpf(2) ** -60 * abs(want) + 1e-300, p


def test_ordinary_formulas_are_unchanged_and_the_rewrite_is_idempotent():
    for e in (
        sp.log(sp.erf(X)),
        sp.log(1 + X**2) * erfc(X),
        sp.erfc(X) + sp.log(X**2 + 1),
        sp.log(-erfc(X) + 3),
    ):
        out, notes = stabilize(e)
        assert not out.has(sp.Piecewise), e
    once, notes = stabilize(sp.log(erfc(-X / sp.sqrt(2)) / 2))
    assert once.has(sp.Piecewise) and len(notes) == 1
    assert stabilize(once) == (once, [])
    # the derivative of the tail is rational in u: no exp(-u^2)/erfc(u) ratio
    tail = once.args[-1].expr
    assert not sp.diff(tail, X).has(sp.exp, sp.erfc, sp.erf)


def test_the_cuda_kernels_compile():
    from symnb.backends import nvrtc
    from symnb.codegen.kernels import render_program

    ok, why = nvrtc.available()
    if not ok:
        pytest.skip(why)
    act = symnb.Activation("log(ndtr(x))")
    loss = symnb.Loss("-y_true*log(ndtr(y_pred)) - (1 - y_true)*log(ndtr(-y_pred))")
    for dtype in DTYPES:
        for form, kind in ((act.internal, "elementwise"), (loss.internal, "loss")):
            source = render_program((form,), kind, dialect="cuda", dtype=dtype)
            for text in source.units or (source.text,):
                ptx, log = nvrtc.compile_check(text, "sm_80")
                assert log == "" and ".entry" in ptx
