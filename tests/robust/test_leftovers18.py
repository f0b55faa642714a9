"""Formula defects the eighteenth probe found, judged as the corpora are.

Each formula is compiled (NumPy and C++ backends, both dtypes) and held to issue 8's
rule against SymPy + mpmath references (``corpus_reference.reference``) at the
corpus sample points plus the points where the probe saw it fail:

- an inverse pair, ``logit(expit(k x))/k`` at k = 1e-8: read as ``logsigmoid(u) -
  logsigmoid(-u)``, both about -log 2, the difference lost (0 for x = 0.1 in float32,
  5e-9 relative off in float64); the odd part of a softplus pair is now u exactly
  (``softplus_difference``);
- a chirp, ``cos(2x - (1e6 x)**2)``: f' NaN from x = 1e15 in float32 and 1.3e154 in
  float64 (the sine of an overflowed argument) where the rule allows any finite
  value; the analysis refused them, its rule stricter than the rule beyond the range
  and its scale taken as |x| where f'' is NaN in float64 (``measure``);
- a quotient of a cancelling difference, ``(cos(x) - 1 + x**2/2)/x**4``: f' 8
  digits off for |x| < 0.048 in float64 (-3.016e-6 for -2.778e-6 at x = 1e-3); its
  Taylor branch was measured against a wrong reference at x = 1e-320 (1,500 working
  digits where 2,500 cancel) and dropped (``measure.MAX_DIGITS`` is 3,000);
- a removable quotient of |x|, ``log1p(|x|)/|x|``: f' 0 for -0.5 at x = 1e-8 in
  float32, 5e-6 relative off at 1e-10 in float64 (a kink at 0: the Taylor series is
  one polynomial per side, ``regimes._two_sided_series``);
- a removable quotient at a typed scale, ``expm1(1e8*x)/(1e8*x)``: f' 0 for 5e7 at
  x = 1e-12 in float32 (the series in x has 1e8**k coefficients; now in u = 1e8*x,
  ``literal_scale``), 2.5e-4 relative off at x = 1e-20 in float64 (the analysis'
  reference read the folded 1e-8 as the double next to it, 13 digits cancel there:
  ``measure._decimal_numbers``);
- a shifted cube less its constant, ``(u + 1e6)**3 - 1e18``: 3.0237e12 for 3.000003e12
  in float32 with u = cosh(1e-8 x/(1 + x**2)) (``power_difference``);
- a softplus pair of a logit, ``log(1 + exp(logit(p))) - log(1 + exp(-logit(p)))``
  with p = sigmoid(x), read as log1p(sigmoid(x)/sigmoid(-x)) - ...: -0 for -0.00113 in
  ``erf(x/(1 + (...)**2))`` at x = -1000 in float32 (``softplus_difference``).
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.robust import engine
from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.corpus_reference import reference, sample_points
from tests.robust.test_corpus import rule_problems

_FAR = (-3.4e38, -1e31, -1e30, -1e20, -1e15, 1e15, 1e20, 1e27, 1e30, 1e31, 3.4e38)
_FAR64 = (-1e300, -1e200, -1.3e154, 1.3e154, 1e155, 1e200, 1e300, 1.7e308)
_SMALL = (1e-30, 1e-20, 1e-10, 1e-8, 1e-6, 1e-4, 1e-3, 0.01, 0.03, 0.047, 0.1)
_SMALL = tuple(s * x for x in _SMALL for s in (1, -1))

#: (name, text as typed, the same function for the reference, constants, points,
#: kinks and removable points)
CASES = (
    (
        "logit_of_expit",
        "logit(expit(k*x))/k",
        "(log(sigmoid(k*x)) - log(sigmoid(-k*x)))/k",  # 1 - expit(u) = expit(-u)
        {"k": 1e-8},
        (1e-3, 0.1, 1.0, 3.0, 100.0, 1e6, -5.0, -0.1),
        (),
    ),
    ("chirp", "cos(c*x - (1e6*x)**2)", None, {"c": 2.0}, _FAR + _FAR64, ()),
    (
        "quartic_cosine_remainder",
        "(cos(x) - 1 + x**2/2)/x**4",
        None,
        {},
        _SMALL,
        (0.0,),
    ),
    ("log1p_abs_over_abs", "log1p(abs(x))/abs(x)", None, {}, _SMALL, (0.0,)),
    (
        "removable_at_a_typed_scale",
        "expm1(1e8*x)/(1e8*x)",
        None,
        {},
        (1e-20, 1e-12, 1e-10, 1e-9, -1e-9, 1e-8, -1e-8, 1e-6, 1e-3),
        (0.0,),
    ),
    (
        "shifted_cube_less_its_constant",
        "(cosh(c*x/(1 + x**2)) + 1e6)**3 - 1e18",
        None,
        {"c": 1e-8},
        (-1e15, -1e11, -1.0, 0.5, 3.0, 1e6),
        (),
    ),
    (
        "sigmoid_times_shifted_cube",
        "sigmoid(x)*((x + 1e6)**3 - 1e18 + 2*x)",
        None,
        {},
        (-30.0, -21.5, -20.0, -1.0, 1e-3, 2.0, 1e6),
        (),
    ),
    (
        "softplus_pair_of_a_logit",
        "erf(x/(1 + (log(1 + exp(logit(sigmoid(x)))) - log(1 + exp(-logit(sigmoid(x)))))**2))",
        "erf(x/(1 + x**2))",  # log(1 + e^u) - log(1 + e^-u) = u, logit(sigmoid(x)) = x
        {},
        (-1000.0, -750.0, -745.0, -30.0, 2.0, 100.0, 1e6),
        (),
    ),
)


#: Cases whose float32 analysis takes most of the 4 s budget on an idle machine
#: (2.9 s CPU for the sigmoid's cube); under a full parallel test run it ran out and f'
#: was NaN at x = 1e15 and 1e19 (a budget cut short is not stored on disk, so a later
#: compile analyses again). Judged here with room, as the form is what they check.
_NEAR_THE_BUDGET = {"sigmoid_times_shifted_cube"}


def _points(entry: Published, extra, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    xs, check = sample_points(entry, dtype)
    with np.errstate(all="ignore"):
        more = np.array(extra, dtype=dtype)
    more = more[np.isfinite(more)]
    pts = np.unique(np.concatenate([xs, more]))
    return pts, ~np.isin(pts, xs[~check])


@pytest.mark.parametrize("backend", backend_params()[:2])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "name,text,ref_text,constants,extra,kinks", CASES, ids=[c[0] for c in CASES]
)
def test_meets_the_rule_where_the_probe_failed(
    name, text, ref_text, constants, extra, kinks, dtype, backend, monkeypatch
):
    if name in _NEAR_THE_BUDGET:
        monkeypatch.setattr(engine, "BUDGET_SECONDS", 30.0)
    entry = Published(
        name, ref_text or text, "leftovers 18", constants, kinks=kinks, removable=kinks
    )
    xs, check_df = _points(entry, extra, dtype)
    ref = reference(entry, xs.astype(np.float64))
    kernel = symnb.Activation(text, **constants).compile(backend=backend, dtype=dtype)
    problems = rule_problems(kernel, xs, check_df, ref, dtype)
    assert not problems, f"{name} {backend} {dtype}:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "text", ["softplus(3*x) - softplus(-3*x)", "log(1 + exp(x)) - log(1 + exp(-x))"]
)
def test_odd_part_of_a_softplus_pair_is_its_argument(text):
    """softplus(u) - softplus(-u) = u for every u (log((1 + e^u)/(1 + e^-u)) =
    log(e^u)): the rewrite gives the argument itself, at any x."""
    import sympy as sp

    from symnb.robust.softplus_difference import softplus_difference

    form = symnb.Activation(text).internal
    var = form.inputs[0]
    got = softplus_difference(form.f, var)
    want = sp.sympify(text.split(")")[0].split("(")[-1], locals={"x": var})
    assert sp.simplify(got - want) == 0, got


def test_a_reference_settles_where_thousands_of_digits_cancel():
    """f' of (cos(x) - 1 + x**2/2)/x**4 at x = 1e-320 cancels ~2,500 digits: the
    reference is -x/360 there (1,500 working digits gave 4e-101 for -2.8e-323), and at
    1e-100."""
    import sympy as sp

    from symnb.robust import measure

    x = sp.Symbol("x", real=True)
    d = sp.diff((sp.cos(x) - 1 + x**2 / 2) / x**4, x)
    hi, _ = measure.reference(d, (x,), (), (), (np.array([1e-320, 1e-100]),))
    assert hi[0] == pytest.approx(-1e-320 / 360, rel=1e-2), hi  # subnormal
    assert hi[1] == pytest.approx(-1e-100 / 360, rel=1e-12)


@pytest.mark.parametrize(
    "text",
    [
        "(x + 1000000)**3 - 1000000000000000000",
        "2*(cosh(x) - 300)**4 - 16200000000 + x",
        "(sin(x) + 1000)**5 - 999999999999999",
    ],
)
def test_power_difference_is_exact(text):
    """(u + A)**n - A**n rewritten as u times a polynomial in u equals the typed sum
    for every x (exact integers here, so SymPy can tell), and has no A**n left."""
    import sympy as sp

    from symnb.robust.power_difference import power_difference

    x = sp.Symbol("x", real=True)
    typed = sp.sympify(text, locals={"x": x})
    got = power_difference(typed, x)
    assert got != typed
    assert sp.expand(got - typed) == 0, got
    assert not any(
        isinstance(a, sp.Pow) and a.exp > 1 for a in sp.preorder_traversal(got)
    )
