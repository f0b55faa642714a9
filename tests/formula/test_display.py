"""The LaTeX a reader sees folds branches that only the arithmetic needs."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import symnb
from symnb.formula.display import fold_equal_branches

x = sp.Symbol("x", real=True)


def test_equal_spellings_fold_to_the_default_branch():
    pw = sp.Piecewise((-sp.atan(1 / x), x < -1), (sp.atan(x) + sp.pi / 2, True))
    assert fold_equal_branches(pw) == sp.atan(x) + sp.pi / 2
    assert fold_equal_branches(3 * pw + x) == 3 * (sp.atan(x) + sp.pi / 2) + x


@pytest.mark.parametrize(
    "pw",
    [
        sp.Piecewise((x, x > 0), (-x, True)),  # |x|: a real definition by cases
        sp.Piecewise((0, x <= 0), (x, True)),  # relu
        sp.Piecewise((x, x > 1e6), (x + 1, True)),  # too few points to judge: kept
        sp.Piecewise((x, sp.Symbol("c") > 0), (x, True)),  # two symbols: kept
    ],
)
def test_definitions_by_cases_are_kept(pw):
    assert fold_equal_branches(pw) == pw


def test_arctan_swish_reads_as_typed():
    """ArcSwish's kernels take -atan(1/x) below -1 (it keeps its digits there); its
    LaTeX is one formula, and that formula is the function (mpmath reference)."""
    act = symnb.Activation("x*(atan(x)/pi + 0.5)")
    assert "cases" not in act.latex and "cases" not in act.derivative_latex
    shown = fold_equal_branches(act.expr)
    dshown = fold_equal_branches(act.derivative)
    for v in (-1e3, -3.0, -1.0, -0.2, 0.0, 0.7, 5.0):
        want = mpmath.mpf(v) * (mpmath.atan(v) / mpmath.pi + mpmath.mpf(1) / 2)
        dwant = mpmath.atan(v) / mpmath.pi + 0.5 + v / (mpmath.pi * (1 + mpmath.mpf(v) ** 2))
        assert abs(float(shown.subs(x, v)) - float(want)) <= 1e-12 * (1 + abs(float(want)))
        assert abs(float(dshown.subs(x, v)) - float(dwant)) <= 1e-12


@pytest.mark.parametrize(
    ("text", "where"),
    [("cbrt(x)", "latex"), ("sqrt(relu(x))", "derivative_latex")],
)
def test_real_cases_still_show(text, where):
    """The real cube root is defined by cases; sqrt(relu)' is 0 for x <= 0 where the
    other branch is 0/0: neither folds."""
    assert "cases" in getattr(symnb.Activation(text), where)


def test_a_point_branch_with_the_neighbours_value_is_dropped():
    pw = sp.Piecewise((x, x < 0), (0, sp.Eq(x, 0)), (2 * x, True))
    assert fold_equal_branches(pw) == sp.Piecewise((x, x < 0), (2 * x, True))
    kink = sp.Piecewise((0, x < 0), (sp.Rational(1, 2), sp.Eq(x, 0)), (1, True))
    assert fold_equal_branches(kink) == kink  # a derivative's kink convention stays


def test_hard_tanh_typed_with_abs_reads_as_three_pieces():
    """Its kernels compute linear pieces (one per kink, for the derivative's 1/2 at
    +-1); f's LaTeX shows three pieces, f' keeps the kink values."""
    act = symnb.Activation("(abs(x + 1) - abs(x - 1))/2")
    assert "x = -1" not in act.latex and "x = 1" not in act.latex
    assert r"\frac{1}{2} & \text{for}\: x = -1" in act.derivative_latex
    shown = fold_equal_branches(act.expr)
    for v in (-5.0, -1.0, -0.3, 0.0, 0.8, 1.0, 7.0):
        assert float(shown.subs(x, v)) == pytest.approx((abs(v + 1) - abs(v - 1)) / 2)
