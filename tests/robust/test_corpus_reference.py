"""The judge itself: the corpus references and the rule, against closed forms.

The corpus test is only as good as its references; these checks pin them to values known in
closed form (derivatives of continuous steps, surrogates of jumps, limits at removable
singularities, results that need hundreds of digits) and check the rule's edge cases.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.robust.corpus import ALL, COMPOSITION, CORPUS, Published
from tests.robust.corpus_reference import BY_NAME, reference, ulps, violations


def _ref(name, *xs):
    return reference(BY_NAME[name], np.array(xs, dtype=np.float64))


def test_continuous_step_gets_the_exact_derivative():
    r = _ref("symlog", 1.3, -2.0)
    np.testing.assert_allclose(r.df, [1 / 2.3, 1 / 3.0], rtol=1e-15)


def test_jump_gets_the_atan_surrogate_times_the_jump():
    r = _ref("binary_sign", 0.5)
    assert r.df[0] == pytest.approx(2 / (1 + (math.pi * 0.5) ** 2), rel=1e-15)
    r = _ref("spike", 1.25)  # heaviside(x - theta): a jump of 1 at theta = 1
    assert r.df[0] == pytest.approx(1 / (1 + (math.pi * 0.25) ** 2), rel=1e-15)


def test_removable_singularities_take_their_limits():
    r = _ref("sinc", 0.0)
    assert (r.f[0], r.df[0]) == (1.0, 0.0)
    r = _ref("one_minus_cos", 0.0, 1e-33)
    assert r.f[0] == 0.5
    assert r.df[1] == pytest.approx(-1e-33 / 12, rel=1e-12)


def test_cancellation_in_the_reference_is_resolved():
    r = _ref("exprel", -1e-128, 1e-300)
    np.testing.assert_allclose(r.f, [1.0, 1.0], rtol=1e-15)
    r = _ref("bent_identity", -1e300)
    assert r.f[0] == pytest.approx(-5e299, rel=1e-15)
    r = _ref("squareplus", -1e10)  # (x + sqrt(x^2 + 4))/2 = 1/|x| + ...
    assert r.f[0] == pytest.approx(1e-10, rel=1e-12)


def test_huge_values_beyond_float64_are_inf_and_astronomical_exponents_settle():
    r = _ref("soft_exponential", 1e4)  # (exp(x/2) - 1)/0.5 + 0.5 overflows float64
    assert r.f[0] == math.inf
    r = _ref("tanhexp", 1e300)  # tanh(exp(1e300)) = 1 (exp of an astronomical number)
    assert r.f[0] == 1e300 and r.settled_f[0]


def test_rule_accepts_right_signed_inf_beyond_the_range_only():
    ref = np.array([1e39, 1e39, 1.0, 1.0, 2.0])
    got = np.array([np.inf, -np.inf, np.inf, np.nan, 2.0 + 1e-5])
    bad = violations(got, ref, np.ones(5), "float32")
    assert bad.tolist() == [False, True, True, True, False]
    # float64: 1e-9 relative is the limit
    bad = violations(np.array([1 + 2e-9]), np.array([1.0]), np.ones(1), "float64")
    assert bad.tolist() == [True]


def test_ulps_count_units_of_the_dtype():
    assert ulps(np.array([1.0 + 2**-52]), np.array([1.0]), "float64")[0] == 1.0
    assert ulps(np.array([1.0 + 2**-22]), np.array([1.0]), "float32")[0] == 2.0
    at_max = ulps(np.array([np.inf]), np.array([3.4028234663852886e38]), "float32")
    assert at_max[0] == math.inf


def test_corpus_covers_the_required_kinds():
    assert len(CORPUS) >= 60
    assert sum(e.jumps for e in ALL) >= 3
    assert any(e.removable and e.removable != (0.0,) for e in ALL)
    assert len(COMPOSITION) >= 2
    assert sum(bool(e.kinks) for e in ALL) >= 20


def test_log_of_one_plus_a_tiny_term_is_not_a_false_zero():
    """log(1 + exp(x)) at x = -1000 rounds 1 + exp(x) to 1 at any precision the ladder
    reaches: the reference confirmed 0 for exp(-x)*log(1 + exp(x)), which is 1 there."""
    entry = Published("e", "exp(-x)*log(1 + exp(x))", "test")
    r = reference(entry, np.array([-1000.0, -745.5, 3.0]))
    np.testing.assert_allclose(r.f[:2], [1.0, 1.0], rtol=1e-15)
    assert r.f[2] == pytest.approx(
        math.exp(-3.0) * math.log1p(math.exp(3.0)), rel=1e-15
    )
    assert r.settled_f.all()


@pytest.mark.parametrize("x", [1e300, -1e300, 2.0**80, -(2.0**200) - 2.0**148, 1e25])
@pytest.mark.parametrize("dps", [330, 1320])
def test_the_references_exp_of_whole_numbers_is_mpmaths(x, dps):
    """The reference's exp reduces a large whole number by ln 2 (mpmath squares e for
    it, slowly); its value is mpmath's own to the working precision."""
    import mpmath as mp

    from tests.robust.corpus_reference import _exp

    with mp.workdps(dps):
        u = mp.mpf(x)
        got, want = _exp(u), mp.exp(u)
        assert abs(got - want) <= mp.mpf(2) ** (4 - mp.mp.prec) * abs(want)
