"""The normal hazard (inverse Mills ratio) is finite at the float32 maximum.

phi(x)/(1 - Phi(x)), typed ``exp(-x**2/2)/sqrt(2*pi)/(erfc(x/sqrt(2))/2)``, is about
x + 1/x: 3.4e38 at the float32 maximum. Its erfcx continued fraction multiplied x by
sqrt(2 pi) before dividing (inf there), and the analysis that splits that product ran
out of its 4 s: the references of the large form took 2.2 s of them, and f' went on
searching near the fraction's edge, so the form was compiled unanalysed. Now the
references have their own allowance and the search stops at its deadline keeping the
rewrites found (f's), and such an analysis is not stored on disk.

Judged against the Mills ratio's asymptotic series (mpmath) at the float32 maximum
and at points below it, under issue 8's rule.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from symnb.robust import engine, measure

HAZARD = "exp(-x**2/2)/sqrt(2*pi)/(erfc(x/sqrt(2))/2)"

POINTS = (1e30, 1e37, 1e38, 2e38, float(np.finfo(np.float32).max))


def _reference(xs) -> list[tuple[float, float]]:
    """h(x) and h'(x) from the Mills ratio's asymptotic series (Abramowitz & Stegun
    26.2.12): h = x + 1/x - 2/x^3 + ..., h' = 1 - 1/x^2 + 6/x^4 - ..., in mpmath
    (mpmath's erfc at x/sqrt(2) = 7e29 is not accurate enough to divide by)."""
    out = []
    with mpmath.workdps(40):
        for v in xs:
            x = mpmath.mpf(float(v))
            out.append((float(x + 1 / x - 2 / x**3), float(1 - 1 / x**2 + 6 / x**4)))
    return out


@pytest.mark.parametrize("order", ["numpy", "cse"])
def test_normal_hazard_is_finite_up_to_the_float32_maximum(order):
    """The engine's float32 form of the normal hazard (8 s for the search: under
    pytest's warning capture the default 4 s ends before f's rewrite is found; see
    the report), evaluated as the NumPy and the C kernels compute it."""
    form = symnb.Activation(HAZARD).internal
    new, report = engine.analyse(form, "float32", budget=8.0)
    assert report.analysed, report.reason
    xs = np.asarray(POINTS, dtype=np.float32).astype(np.float64)
    args = (form.inputs, form.params, form.param_values, (xs,), "float32")
    y = measure.evaluate(new.f, *args, order=order)
    dy = measure.evaluate(new.df, *args, order=order)
    if y is None:  # that order is NumPy's
        return
    for xv, got_f, got_df, (f, df) in zip(xs, y, dy, _reference(xs)):
        where = (order, xv, float(got_f), f, float(got_df), df)
        assert np.isfinite(got_f) and np.isfinite(got_df), where
        assert abs(float(got_f) - f) <= 2e-5 * abs(f) + 1e-6 * abs(xv), where
        assert abs(float(got_df) - df) <= 2e-5 * abs(df) + 1e-6 * max(1.0, xv), where


def test_a_search_stopped_before_it_found_anything_is_not_analysed():
    # references ready, then a deadline that passes at once: nothing is searched, the
    # form is compiled as typed and the report says why (as before the search kept
    # what it found)
    form = symnb.Activation("log(1 + exp(x))").internal
    engine.clear_memory_cache()
    engine._references(form, 60.0)
    new, report = engine.analyse(form, "float32", budget=1e-6)
    assert new is form
    assert not report.analysed and "time budget" in report.reason
