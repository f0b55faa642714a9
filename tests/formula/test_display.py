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
        sp.Piecewise((sp.Symbol("c") * x, x > 0), (x, True)),  # a slope c: kept
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
        dwant = (
            mpmath.atan(v) / mpmath.pi
            + 0.5
            + v / (mpmath.pi * (1 + mpmath.mpf(v) ** 2))
        )
        assert abs(float(shown.subs(x, v)) - float(want)) <= 1e-12 * (
            1 + abs(float(want))
        )
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


_TOWER = "sin(x)**x**x**x**x**x**x**x**x"


def test_power_tower_latex_does_not_abort_the_process():
    """Comparing branches of a power tower's f' at x = 47 used to evaluate exponents of
    exponents with sp.N: GMP aborted the interpreter ("overflow in mpz type"), which
    kills a notebook kernel. Run in a child so an abort fails the test, not the run."""
    import subprocess
    import sys

    code = (
        "import symnb\n"
        f"act = symnb.Activation({_TOWER!r})\n"
        "print(len(act.latex) > 0 and len(act.derivative_latex) > 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "True"


@pytest.mark.parametrize("text", ["x**x**x", "exp(exp(x))", "sin(x)**x**x"])
@pytest.mark.parametrize("at", [0.37, 2.7, 11.0])
def test_bounded_value_matches_mpmath_where_it_answers(text, at):
    """The screened bottom-up evaluation agrees with mpmath at 30 digits wherever it
    gives a value, and refuses (None) only beyond 10**10000."""
    from symnb.formula.display import _bounded_value

    e = sp.sympify(text, locals={"x": x}).subs(x, sp.Float(at, 30))
    got = _bounded_value(e)
    fn = {
        "x**x**x": lambda t: t ** (t**t),
        "exp(exp(x))": lambda t: mpmath.exp(mpmath.exp(t)),
        "sin(x)**x**x": lambda t: mpmath.sin(t) ** (t**t),
    }[text]
    with mpmath.workdps(40):
        want = fn(mpmath.mpf(at))
        if abs(want) > mpmath.mpf(10) ** 10000:
            assert got is None
            return
        assert got is not None
        got_c = mpmath.mpc(sp.re(got).evalf(30), sp.im(got).evalf(30))
        assert abs(got_c - want) <= mpmath.mpf(10) ** -25 * (1 + abs(want))


def _log_cosh_mp(u):
    return mpmath.log(mpmath.cosh(u))


@pytest.mark.parametrize(
    ("make", "variables", "value", "slope"),
    [
        # an activation with a constant: log(cosh(b x)), f' = b tanh(b x)
        (
            lambda: symnb.Activation("log((exp(b*x) + exp(-b*x))/2)", b=1.5),
            ("x",),
            lambda v: _log_cosh_mp(1.5 * v[0]),
            lambda v: 1.5 * mpmath.tanh(1.5 * v[0]),
        ),
        # ArcSwish with a temperature c: x (atan(c x)/pi + 1/2)
        (
            lambda: symnb.Activation("x*(atan(c*x)/pi + 0.5)", c=2.0),
            ("x",),
            lambda v: v[0] * (mpmath.atan(2 * v[0]) / mpmath.pi + 0.5),
            lambda v: (
                mpmath.atan(2 * v[0]) / mpmath.pi
                + 0.5
                + 2 * v[0] / (mpmath.pi * (1 + 4 * v[0] ** 2))
            ),
        ),
        # a loss of two inputs: log cosh of the residual typed with exp
        (
            lambda: symnb.Loss("log((exp(y_pred - y_true) + exp(y_true - y_pred))/2)"),
            ("y_pred", "y_true"),
            lambda v: _log_cosh_mp(v[0] - v[1]),
            lambda v: mpmath.tanh(v[0] - v[1]),
        ),
    ],
)
def test_branches_of_several_variables_fold(make, variables, value, slope):
    """A stability split of a formula with a constant or two inputs shows as one
    formula (it showed a cases block of two spellings of the same function), and what
    is shown is the function (mpmath reference) with the constants' values."""
    obj = make()
    assert "cases" not in obj.latex and "cases" not in obj.derivative_latex
    names = {str(s): s for s in obj.expr.free_symbols | obj.derivative.free_symbols}
    consts = {names[k]: v for k, v in obj.constants.items() if k in names}
    shown = fold_equal_branches(obj.expr).subs(consts)
    dshown = fold_equal_branches(obj.derivative).subs(consts)
    for point in ((-3.0, 0.5), (-0.2, 1.0), (0.0, 0.0), (0.7, -2.0), (40.0, 1.0)):
        at = {names[n]: p for n, p in zip(variables, point, strict=False)}
        want, dwant = value(point), slope(point)
        assert abs(float(shown.subs(at)) - float(want)) <= 1e-12 * (1 + abs(want))
        assert abs(float(dshown.subs(at)) - float(dwant)) <= 1e-12 * (1 + abs(dwant))
