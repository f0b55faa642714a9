"""Differences of lgamma at arguments a constant apart: ``lgamma(x**2 + 3/2) -
lgamma(x**2 + 1)`` (log Gamma(z + 1/2)/Gamma(z), the normaliser of a Student-t or
chi likelihood) was NaN (inf - inf) from |x| = 1.8e19 in float32 (1.3e154 in float64)
where it is about log|x|, and cancelled to 4e3 ulps from |x| = 57 in float32.
``symnb.robust.gamma_differences`` computes such a pair (and digamma's, in its
derivative) from the asymptotic series of log Gamma(z + d)/Gamma(z) where z is large.

References: mpmath's loggamma at 40 digits beyond lgamma's size, under issue 8's rule
(``tests/robust/corpus_reference.py``); f'' for the rule's scale from mpmath too.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus_reference import RULE

CASES = (
    # text, z(x), shift d
    ("torch.lgamma(x**2 + 1.5) - torch.lgamma(x**2 + 1)", lambda x: x**2 + 1, 0.5),
    (
        "scipy.special.gammaln(F.softplus(x) + 3) - scipy.special.gammaln(F.softplus(x) + 0.5)",
        lambda x: mpmath.log1p(mpmath.exp(x)) + mpmath.mpf(1) / 2,
        2.5,
    ),
)

XS = {
    "float32": [0.5, 3.0, 20.0, 57.0, 100.0, 1e3, 1e5, 1e10, 2e19, 1e30, 3.4e38],
    "float64": [0.5, 3.0, 20.0, 57.0, 1e3, 1e8, 1e20, 1e100, 2e154, 1e300, 1.7e308],
}


def _g(z_of, d, x):
    z = z_of(x)
    return mpmath.loggamma(z + d) - mpmath.loggamma(z)


def _check(got, want, scale, xs, dtype, what):
    rel, absolute = RULE[dtype]
    bad = [
        f"x={x:.3g} got {g:.9g} want {float(w):.9g}"
        for x, g, w, s in zip(xs, got, want, scale, strict=True)
        if not abs(g - float(w)) <= rel * abs(float(w)) + absolute * s
    ]
    assert not bad, f"{what} {dtype}: " + "; ".join(bad)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_lgamma_difference_is_accurate_at_large_arguments(case, backend, dtype):
    text, z_of, d = CASES[case]
    xs = np.array([s * v for v in XS[dtype] for s in (1, -1)], dtype=dtype)
    kernel = symnb.Activation(text).compile(backend=backend, dtype=dtype)
    with np.errstate(all="ignore"):
        f, df = kernel.forward_with_derivative(xs)
    want_f, want_df, scale_f, scale_df = [], [], [], []
    for x in xs:
        # lgamma(z) ~ z log z: digits enough that d log z survives the difference
        with mpmath.workdps(40 + 2 * int(np.log10(abs(float(x)) + 1))):
            mx = mpmath.mpf(float(x))
            want_f.append(_g(z_of, d, mx))
            g1 = mpmath.diff(lambda t: _g(z_of, d, t), mx)
            g2 = mpmath.diff(lambda t: _g(z_of, d, t), mx, 2)
            want_df.append(g1)
            ax = abs(float(x))
            scale_f.append(max(1.0, ax, ax * abs(float(g1))))
            scale_df.append(max(1.0, ax, ax * abs(float(g2))))
    _check(f, want_f, scale_f, xs, dtype, "f")
    _check(df, want_df, scale_df, xs, dtype, "f'")
