"""Formula defects the earlier probes left open, judged as the corpora are.

Each entry is compiled (NumPy backend, both dtypes) and held to issue 8's rule
against SymPy + mpmath references at the corpus sample points
(``corpus_reference.sample_points``) plus the points where the probes saw it fail:

- Yeo-Johnson at lambda = 0.5 at x = -3.4e38 (f' inf for 1.8e19 reported in float32;
  right on this tree: kept as a regression check);
- pseudo-Huber compiled at delta = 1 and moved to 1e-3: f 0 at the float maximum where
  it is about delta*|x| (x/delta overflowed; ``symnb/robust/square_over_root.py``);
- the soft exponential at alpha = -0.5 (-0.25) one ulp below its domain edge x = -1.5
  (-3.75): f -inf for NaN and f' inf for -1.7e7 in float32 (a + x rounded onto the
  edge; ``symnb/formula/expanded_edge.py``);
- ``log(x)*log(1 - x)``: NaN at x = 1, f and f', where they tend to 0 and -inf
  (``symnb/formula/log_edges.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.robust.corpus import Published
from tests.robust.corpus_reference import reference, sample_points
from tests.robust.test_corpus import rule_problems

_YEO_JOHNSON = (
    "where(x >= 0, ((x + 1)**lam - 1)/lam, -((1 - x)**(2 - lam) - 1)/(2 - lam))"
)
_SOFT_EXP_NEGATIVE = "-log(1 - a*(x + a))/a"
_HUGE = (-3.4e38, -3.4028235e38, 3.4e38, -1e30, -1.7e308, -1e300, 1.7e308)
#: one and two ulps (float32, float64) either side of x = -1.5 (and their roundings)
_EDGE = tuple(
    float(e + s * k * np.spacing(np.array(e, t)))
    for e in (-1.5, -3.75)
    for t in ("float32", "float64")
    for s in (1, -1)
    for k in (1, 2)
)
_ENDS = (0.0, 1.0, 1e-45, 5e-324, 0.99999994, 0.9999999999999999, 1e-30)


def _case(name, text, constants, kinks, extra):
    return Published(name, text, "leftovers 15", constants, kinks=kinks), extra


CASES = (
    _case("yeo_johnson_half", _YEO_JOHNSON, {"lam": 0.5}, (0.0,), _HUGE),
    _case("yeo_johnson_1_5", _YEO_JOHNSON, {"lam": 1.5}, (0.0,), _HUGE),
    _case("soft_exp_negative_half", _SOFT_EXP_NEGATIVE, {"a": -0.5}, (), _EDGE),
    _case("soft_exp_negative_quarter", _SOFT_EXP_NEGATIVE, {"a": -0.25}, (), _EDGE),
    _case("log_x_log_1mx", "log(x)*log(1 - x)", {}, (), _ENDS),
    _case("log_x2_log_1mx", "log(x**2)*log(1 - x)", {}, (), _ENDS),
    _case("log_1px_log_mx", "log(1 + x)*log(-x)", {}, (), tuple(-v for v in _ENDS)),
)

#: logarithms' domain edges, where the mpmath reference is NaN (0*log(0), 1/0): the
#: products' limits are judged by ``test_limit_at_a_logarithms_domain_edge`` instead
_EDGES = (0.0, 1.0, -1.0, -1.5, -3.75)


@pytest.mark.parametrize(
    "entry,extra,dtype",
    [
        pytest.param(e, x, d, id=f"{e.name}-{d}")
        for e, x in CASES
        for d in ("float32", "float64")
    ],
)
def test_meets_the_rule_where_the_probe_failed(entry, extra, dtype):
    xs, _ = sample_points(entry, dtype)
    with np.errstate(all="ignore"):
        more = np.array(extra, dtype=dtype)
    xs = np.unique(np.concatenate([xs, more[np.isfinite(more)]]))
    xs = xs[~np.isin(xs, _EDGES)]
    kinks = np.array(entry.kinks, dtype=dtype).astype(np.float64)
    check_df = ~np.isin(xs.astype(np.float64), kinks)
    ref = reference(entry, xs.astype(np.float64))
    act = symnb.Activation(entry.text, **entry.constants)
    kernel = act.compile(backend="numpy", dtype=dtype)
    problems = rule_problems(kernel, xs, check_df, ref, dtype)
    assert not problems, f"{entry.name} {dtype}:\n" + "\n".join(problems)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("moved", [1e-3, 1e-6])
def test_pseudo_huber_moved_to_a_small_delta(moved, dtype):
    """Compiled at d = 1 and moved to d = 1e-3 (training): f was 0 at the float
    maximum, where it is about d*|x| (x/d overflowed)."""
    text = "d**2*(sqrt(1 + (x/d)**2) - 1)"
    entry = Published("moved", text, "", {"d": moved})
    xs, check_df = sample_points(entry, dtype)
    ref = reference(entry, xs.astype(np.float64))
    kernel = symnb.Activation(text, d=1.0).compile(backend="numpy", dtype=dtype)
    kernel.set_constants(d=moved)
    problems = rule_problems(kernel, xs, check_df, ref, dtype)
    assert not problems, f"{text} moved to d = {moved} {dtype}:\n" + "\n".join(problems)


#: (typed text, mpmath's text, the edge, the side the formula is real on)
_LOG_EDGES = (
    ("log(x)*log(1 - x)", "log(x)*log(1 - x)", 1.0, -1),
    ("log(x)*log(1 - x)", "log(x)*log(1 - x)", 0.0, 1),
    (r"\log(x)\log(1-x)", "log(x)*log(1 - x)", 1.0, -1),
    ("np.log(x)*np.log1p(-x)", "log(x)*log(1 - x)", 1.0, -1),
    ("log(x**2)*log(1 - x)", "log(x**2)*log(1 - x)", 1.0, -1),
    ("log(1 + x)*log(-x)", "log(1 + x)*log(-x)", -1.0, 1),
    ("(x - 2)*log(2 - x)", "(x - 2)*log(2 - x)", 2.0, -1),
)


def _approach(fn, point: float, side: int) -> list:
    """mpmath's fn at point + side*10**-k, k = 30, 300, 3000 (3100 digits)."""
    import mpmath

    with mpmath.workdps(3100):
        h = [mpmath.mpf(10) ** -k for k in (30, 300, 3000)]
        return [fn(mpmath.mpf(point) + side * v) for v in h]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text,plain,point,side", _LOG_EDGES)
def test_limit_at_a_logarithms_domain_edge(text, plain, point, side, dtype):
    """A product with 0*log(0) at a logarithm's domain edge: f is its one-sided limit
    there (0) and f' diverges (+-inf); both were NaN at x = 1 for log(x)*log(1 - x).
    The limits are read off mpmath approaching the edge from the formula's side."""
    from tests.robust.corpus_reference import expressions

    ex = expressions(Published("edge", plain, ""))
    f_fn, df_fn = ex.callables[0], ex.callables[1]
    fs, dfs = _approach(f_fn, point, side), _approach(df_fn, point, side)
    kernel = symnb.Activation(text).compile(backend="numpy", dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(np.array([point], dtype))
    assert abs(fs[-1]) * 10**2990 < 1 and abs(fs[0]) > abs(fs[1]) > abs(fs[-1])
    assert y[0] == 0.0, f"{text} at {point}: f = {y[0]}, limit 0"
    sign = 1 if dfs[-1] > 0 else -1
    assert sign * dfs[0] < sign * dfs[1] < sign * dfs[-1] and abs(dfs[-1]) > 1e3
    assert dy[0] == sign * np.inf, f"{text} at {point}: f' = {dy[0]}, limit {sign}inf"
