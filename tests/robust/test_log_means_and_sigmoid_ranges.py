"""Formula defects the seventeenth probe found, judged as the corpora are.

Each entry is compiled (NumPy backend, both dtypes) and held to issue 8's rule
against SymPy + mpmath references at the corpus sample points
(``corpus_reference.sample_points``) plus the points where the probe saw it fail:

- a tanh rescaled to a range symmetric about 0, ``lo + (hi - lo)*(tanh(x) + 1)/2``
  with lo = -1e8 and hi = 1e8: -4640 for -4641.6 at x = -4.6e-5 and 100008 for
  99999.97 at x = 1e-3 in float32 (the constant cancelled against the scaled
  sigmoid; ``symnb/robust/sigmoid_offset.py``);
- a smooth max of three affine pieces ``t*log(exp(x/t) + exp((2x - 1)/t) +
  exp(-x/t))`` at temperature t = 1e-8: f inf and f' NaN for x in [1e-6, 0.24] and
  past 0.54 in float32, from 1e-5 in float64 (the front end's 2 cosh(x/t) hid the
  log-sum-exp, which took two terms only; ``log_of`` in ``symnb/robust/rewrite.py``);
- mellowmax ``log((exp(w*x) + 1)/2)/w`` at w = 1e-8: -500.68 for -499.999 at
  x = -1000 in float32 and 1.3e-8 relative off at x = -6 in float64 (the log of a
  mean of exponentials near 1; ``symnb/robust/log_mean_of_exps.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.robust.corpus import Published
from tests.robust.corpus_reference import reference, sample_points
from tests.robust.test_corpus import rule_problems

_NEAR_ZERO = tuple(s * 10.0**-k for s in (1, -1) for k in range(1, 9)) + (
    -4.6415887e-05,
    1e-3,
    -1e-3,
)
_MODERATE = (-1000.0, -745.0, -6.0, -3.0, -1.0, 0.3, 2.0, 6.0, 1e3, 1e5)


def _case(name, text, constants, extra, plain=None, within=np.inf):
    entry = Published(name, text, "probe 17", constants)
    judged = Published(name, plain, "probe 17", constants) if plain else entry
    return entry, judged, (extra, within)


CASES = (
    _case(
        "tanh_range_symmetric",
        "lo + (hi - lo)*(torch.tanh(x) + 1)/2",
        {"lo": -1e8, "hi": 1e8},
        _NEAR_ZERO,
        "lo + (hi - lo)*(tanh(x) + 1)/2",
    ),
    _case(
        "sigmoid_range_symmetric",
        "a + b*sigmoid(x)",
        {"a": -3.0, "b": 6.0},
        _NEAR_ZERO,
    ),
    _case(
        "smooth_max_three_pieces_t_tiny",
        "t*torch.log(torch.exp(x/t) + torch.exp((2*x - 1)/t) + torch.exp(-x/t))",
        {"t": 1e-8},
        (1e-6, 2.2e-6, 1e-5, 1e-3, 0.24, 0.3, 0.54, 2.0, -0.5, -2.0),
        "t*log(exp(x/t) + exp((2*x - 1)/t) + exp(-x/t))",
        # open: (2x - 1)/t itself overflows from x = 9e299 in float64 (inf, NaN)
        within=1e299,
    ),
    _case(
        "log_sum_exp_four_terms",
        "log(exp(3*x) + exp(x) + exp(-x) + exp(-3*x))",
        {},
        (30.0, -30.0, 100.0, -100.0, 1e3, -1e3),
    ),
    _case(
        "mellowmax_w_tiny",
        "torch.log((torch.exp(w*x) + 1)/2)/w",
        {"w": 1e-8},
        _MODERATE,
        "log((exp(w*x) + 1)/2)/w",
    ),
    _case(
        "log_mean_three_exps",
        "log((exp(x) + exp(-x) + 2)/4)",
        {},
        (1e-4, -1e-4, 1e-3, 3e-3, -0.01, 0.5),
    ),
)


def _judged(entry, judged, extra, dtype):
    extra, within = extra
    xs, _ = sample_points(entry, dtype)
    with np.errstate(all="ignore"):
        more = np.array(extra, dtype=dtype)
    xs = np.unique(np.concatenate([xs, more[np.isfinite(more)]]))
    xs = xs[np.abs(xs.astype(np.float64)) < within]
    check_df = np.ones(xs.shape, bool)
    return xs, check_df, reference(judged, xs.astype(np.float64))


@pytest.mark.parametrize(
    "entry,judged,extra,dtype",
    [
        pytest.param(e, j, x, d, id=f"{e.name}-{d}")
        for e, j, x in CASES
        for d in ("float32", "float64")
    ],
)
def test_meets_the_rule_where_the_probe_failed(entry, judged, extra, dtype):
    xs, check_df, ref = _judged(entry, judged, extra, dtype)
    act = symnb.Activation(entry.text, **entry.constants)
    kernel = act.compile(backend="numpy", dtype=dtype)
    problems = rule_problems(kernel, xs, check_df, ref, dtype)
    assert not problems, f"{entry.name} {dtype}:\n" + "\n".join(problems)
