"""A named constant at 0.0 in front of an exponential: ``a*exp(x) + (1 - a)*x`` (a
mixing weight) at a = 0 is x, yet the kernel gave NaN (0*inf) from x = 89 in float32
(710 in float64): the analysis never ran, because building its sample points took
log(|a|) of the constant (SymPy's ``Float(0.0) == 0`` is False, so the zero test
missed it) and failed with "math domain error". The grid now skips a zero constant.

Reference: the published definition at a = 0, evaluated by mpmath (the term a*e^x is
exactly 0 for every finite x), under issue 8's rule.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus_reference import RULE

CASES = (
    # text, constants, f as an mpmath function of x at those constants
    ("a*torch.exp(x) + (1 - a)*x", {"a": 0.0}, lambda x: 0 * mpmath.exp(x) + x),
    ("x + w*np.exp(-x)", {"w": 0.0}, lambda x: x + 0 * mpmath.exp(-x)),
)

XS = {
    "float32": [-1e30, -100.0, -89.0, -1.0, 0.5, 89.0, 100.0, 1e3, 1e30],
    "float64": [-1e300, -1e3, -710.0, -1.0, 0.5, 710.0, 1e3, 1e300],
}


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_zero_constant_before_an_exponential_gives_the_value(case, backend, dtype):
    text, constants, f_of = CASES[case]
    act = symnb.Activation(text, **constants)
    xs = np.array(XS[dtype], dtype=dtype)
    with np.errstate(all="ignore"):
        f, df = act.compile(backend=backend, dtype=dtype).forward_with_derivative(xs)
    rel, absolute = RULE[dtype]
    for x, got, got_d in zip(xs, f, df, strict=True):
        mx = mpmath.mpf(float(x))
        want, want_d = f_of(mx), mpmath.diff(f_of, mx)
        scale = max(1.0, abs(float(x)))
        assert abs(got - want) <= rel * abs(want) + absolute * scale, (x, got, want)
        assert abs(got_d - want_d) <= rel * abs(want_d) + absolute * scale, (x, got_d)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_the_form_is_analysed(case):
    text, constants, _ = CASES[case]
    report = symnb.Activation(text, **constants).accuracy(dtypes=("float32",))
    assert "not analysed" not in str(report), str(report)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_constant_divisor_at_zero_does_not_stop_the_analysis(dtype):
    """``(exp(a*x) - 1)/a`` at a = 0: the factor in front of ``exp`` is 1/a, SymPy's
    complex infinity there, and taking its float ("Cannot convert complex to float")
    stopped the whole analysis, so the constant's gradient lost its Taylor branch in
    a*x and was NaN (0/0) where the limit is x**2/2."""
    from symnb.robust import engine

    act = symnb.Activation("(exp(a*x) - 1)/a", a=0.0)
    _, report = engine.lower_with_report(act.internal, dtype)
    assert report.analysed, report.reason
    kernel = act.compile("numpy", dtype=dtype)
    x = np.array([-3.0, 0.5, 2.0], dtype=dtype)
    got = [
        float(kernel.constant_gradient(x[i : i + 1], np.ones(1, dtype))["a"])
        for i in range(3)
    ]
    np.testing.assert_allclose(got, x.astype(np.float64) ** 2 / 2, rtol=1e-6)
