"""A difference of two sigmoids does not cancel to 0 far from its thresholds.

The cumulative-link (ordinal logistic) likelihood of the class between thresholds
t1 = 0 and t2 = 1e-4, ``-log(sigmoid(t2 - x) - sigmoid(t1 - x))``, was inf from
x = -17 in float32 (-37 in float64) where it is |x| + 9.2, and its f' NaN: both
sigmoids round to 1 (found by the eleventh corpus, ``ordinal_logit_interval``).
``symnb.robust.sigmoid_difference`` uses sigmoid(a) - sigmoid(b) = -sigmoid(a)
sigmoid(-b) expm1(b - a); the engine's own references use it too (the direct form
cancels 43,000 digits at x = -1e5). References: mpmath at 300 digits where that
suffices, else the closed form log(1 + e^(x - t2)) + log(1 + e^(t1 - x)) - log(1 -
e^(t1 - t2)) (the same likelihood, written out).
"""

from __future__ import annotations

import mpmath as mp
import pytest

from tests.conftest import backend_params
from tests.robust.kernel_values import assert_value, kernel_values

T1, T2 = 0.0, 1e-4
_POINTS = {
    "float32": [-3e38, -1e5, -103.0, -20.0, 0.0, 5e-5, 20.0, 1e5, 3e38],
    "float64": [-1e300, -1e5, -700.0, -37.0, 0.0, 5e-5, 37.0, 1e300],
}


def _nll(x: float) -> tuple[float, float]:
    """f and f' of the ordinal likelihood at x."""
    with mp.workdps(300):
        x, t1, t2 = mp.mpf(x), mp.mpf(T1), mp.mpf(T2)
        if abs(x) < 200:  # the typed form, at a precision that holds its cancellation
            s2, s1 = 1 / (1 + mp.exp(x - t2)), 1 / (1 + mp.exp(x - t1))
            f = -mp.log(s2 - s1)
            df = (s2 * (1 - s2) - s1 * (1 - s1)) / (s2 - s1)
        else:
            f = mp.log1p(mp.exp(x - t2)) + mp.log1p(mp.exp(t1 - x))
            f -= mp.log(-mp.expm1(t1 - t2))
            df = 1 / (1 + mp.exp(t2 - x)) - 1 / (1 + mp.exp(x - t1))
        return float(f), float(df)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ordinal_likelihood_far_from_its_thresholds(dtype, backend):
    text = "-torch.log(torch.sigmoid(t2 - x) - torch.sigmoid(t1 - x))"
    xs, y, dy = kernel_values(text, backend, dtype, _POINTS[dtype], t1=T1, t2=T2)
    rtol = 2e-5 if dtype == "float32" else 1e-9
    for x, got_f, got_df in zip(xs.tolist(), y.tolist(), dy.tolist()):
        want_f, want_df = _nll(x)
        assert_value(got_f, want_f, dtype, x)
        assert got_df == pytest.approx(want_df, rel=rtol, abs=1e-6), x


def _surrogate_slope(x: float, k: float) -> float:
    """f' of the sigmoid surrogate k*sigmoid(k x)*(1 - sigmoid(k x)):
    k^2 s (1 - s)(1 - 2 s), s = sigmoid(k x), at 60 digits."""
    with mp.workdps(60):
        s = 1 / (1 + mp.exp(-k * mp.mpf(x)))
        return float(k**2 * s * (1 - s) * (1 - 2 * s))


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_surrogate_slope_near_zero(dtype, backend):
    # f' is k^2 sigmoid(-u) sigmoid(u) (sigmoid(-u) - sigmoid(u)), u = k x: the
    # difference cancelled near u = 0 (4e-5 relative off at x = -1e-4 in float32,
    # found by the twelfth corpus's probe); as -tanh(u/2) it does not
    k = 25.0
    text = "k*torch.sigmoid(k*x)*(1 - torch.sigmoid(k*x))"
    points = [-1e-4, -2e-5, -1e-6, 3e-7, 4e-5, 0.01, 0.5, -3.0, 40.0]
    xs, _, dy = kernel_values(text, backend, dtype, points, k=k)
    rtol = 2e-5 if dtype == "float32" else 1e-9
    for x, got in zip(xs.tolist(), dy.tolist()):
        assert got == pytest.approx(_surrogate_slope(x, k), rel=rtol, abs=1e-30), x
