"""Mills-ratio formulas compile within the analysis budget, and stay exact.

The normal pdf over the normal cdf (Mills' ratio and its inverse, the Gaussian
hazard, x*phi(x)/Phi(x) activations) is rewritten as erfcx(u) = exp(u^2)*erfc(u).
Before ENGINE 110 erfcx was a Piecewise holding a degree-12 continued fraction: the
analysis of f, f' and f'' of such a form took 7-8 CPU seconds per compile and ran out
of its float32 budget (the report's STOPPED reason: the form analysed only partly).
Now erfcx is one primitive with its own derivative -2*ierfcx(u) (ierfcx(u) = 1/sqrt(pi)
- u*erfcx(u), written without that cancellation past u = 4) and kernels (SciPy, g++,
CUDA's erfcx/erfcxf).

Judged against mpmath: the primitives in ulps (out to 1e30), and the typed formulas by
the corpus's rule against mpmath (the normal cdf as erfc(-x/sqrt(2))/2, f' by
mpmath.diff), out to |x| = 1e6, far past where erfc underflows and
exp(x^2) overflows (|x| = 14 in float32, 38 in float64).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from symnb.robust.engine import STOPPED
from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.corpus_reference import ulps, violations
from tests.robust.test_corpus import assert_lowered_cuda_compiles


def _phi(x):
    """The standard normal pdf (mpmath)."""
    return mpmath.exp(-(x**2) / 2) / mpmath.sqrt(2 * mpmath.pi)


def _cdf(x):
    """The standard normal cdf, erfc(-x/sqrt(2))/2 (no 1 + erf(x) cancelling to 0)."""
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


#: name -> (text as typed, the same function in mpmath): pdf/cdf ratios of the
#: standard normal
MILLS = {
    "mills_activation": (
        "x*exp(-x**2/2)/(sqrt(2*pi)*(1+erf(x/sqrt(2)))/2)",
        lambda x: x * _phi(x) / _cdf(x),
    ),
    "inverse_mills": (
        "exp(-x**2/2)/sqrt(2*pi)/(erfc(x/sqrt(2))/2)",
        lambda x: _phi(x) / _cdf(-x),
    ),
    "pdf_over_cdf": (
        "exp(-x**2/2)/(sqrt(2*pi)*(1+erf(x/sqrt(2)))/2)",
        lambda x: _phi(x) / _cdf(x),
    ),
    "scaled_mills": (
        "2*x*exp(-2*x**2)/sqrt(2*pi)/((1+erf(2*x/sqrt(2)))/2)",
        lambda x: 2 * x * _phi(2 * x) / _cdf(2 * x),
    ),
}


@pytest.mark.parametrize("name", MILLS)
def test_mills_ratio_analysis_finishes_within_its_budget(name):
    report = symnb.Activation(MILLS[name][0]).accuracy(("float32", "float64"))
    reasons = {(r.dtype, r.reason) for r in report.forms}
    assert report.analysed, reasons
    assert all(r.reason != STOPPED for r in report.forms), reasons
    assert report.passes, report.rows()


_SIDE = np.geomspace(1e-3, 1e6, 60)
RULE_XS = np.concatenate([-_SIDE[::-1], [0.0], _SIDE, np.arange(-45.0, 45.0, 1.25)])


def _references(fn, xs: np.ndarray) -> np.ndarray:
    """(f, f', scale) at each x: fn and its numerical derivative (mpmath.diff), at 60
    digits (more than the float64 range of erfc and exp needs)."""
    out = []
    with mpmath.workdps(60):
        for v in xs:
            xm = mpmath.mpf(float(v))
            y, dy = float(fn(xm)), float(mpmath.diff(fn, xm))
            out.append((y, dy, max(1.0, abs(float(v)), min(abs(float(v) * dy), 1e308))))
    return np.array(out)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", MILLS)
def test_mills_ratio_meets_the_rule(name, dtype, backend):
    typed, reference = MILLS[name]
    kernel = symnb.Activation(typed).compile(backend, dtype=dtype, strict=True)
    xs = RULE_XS.astype(dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(xs)
    ref = _references(reference, xs)
    ones = np.maximum(1.0, np.abs(xs.astype(np.float64)))
    bad_f = violations(y, ref[:, 0], ref[:, 2], dtype)
    bad_df = violations(dy, ref[:, 1], ones, dtype)
    assert not bad_f.any(), list(zip(xs[bad_f], y[bad_f], ref[bad_f, 0]))[:6]
    assert not bad_df.any(), list(zip(xs[bad_df], dy[bad_df], ref[bad_df, 1]))[:6]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mills_ratio_cuda_source_compiles(dtype):
    entries = [Published(name, text, "test") for name, (text, _) in MILLS.items()]
    assert_lowered_cuda_compiles(entries, dtype)


def _erfcx_and_slope(x: float) -> tuple[float, float]:
    """(erfcx(x), erfcx'(x)) with mpmath, 40 digits beyond the cancellation of
    erfcx' = 2x erfcx(x) - 2/sqrt(pi) (which loses about log10(2x^2) digits)."""
    digits = 40 + 2 * int(abs(mpmath.log10(abs(mpmath.mpf(x)) + 1)))
    with mpmath.workdps(digits):
        u = mpmath.mpf(x)
        e = mpmath.exp(u**2) * mpmath.erfc(u)
        return float(e), float(2 * u * e - 2 / mpmath.sqrt(mpmath.pi))


_POS = np.geomspace(1e-6, 1e30, 160)
XS = np.concatenate(
    [np.linspace(-26.5, 30.0, 1201), _POS, -_POS[:40], [1e300, 1.7e308]]
)
#: Most ulps allowed: f in float32 and float64; f' beyond [0, 4.5] (the continued
#: fraction past 4, no cancellation below 0) and inside it, where 1/sqrt(pi) -
#: u*erfcx(u) loses up to 5 bits (the typed 2u exp(u^2) erfc(u) - 2/sqrt(pi) as well).
MAX_ULPS = {"float32": (1.0, 2.0, 2.0), "float64": (6.0, 6.0, 80.0)}


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfcx_kernel_in_ulps(dtype, backend):
    act = symnb.Activation("exp(x**2)*erfc(x)")
    assert "erfcx" in str(act.internal.f), act.internal.f
    kernel = act.compile(backend, dtype=dtype, strict=True)
    with np.errstate(over="ignore"):
        xs = XS.astype(dtype)
    xs = xs[np.isfinite(xs)]  # 1e300 and 1.7e308 in float64 (erfcx subnormal there)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(xs)
    ref = np.array([_erfcx_and_slope(float(v)) for v in xs])
    f_max, df_max, df_inner = MAX_ULPS[dtype]
    uf, udf = ulps(y, ref[:, 0], dtype), ulps(dy, ref[:, 1], dtype)
    inner = (xs >= 0) & (xs <= 4.5)
    assert uf.max() <= f_max, (xs[uf.argmax()], uf.max())
    assert udf[~inner].max() <= df_max, (xs[~inner][udf[~inner].argmax()], udf.max())
    assert udf[inner].max() <= df_inner, (xs[inner][udf[inner].argmax()], udf.max())
