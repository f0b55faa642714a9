"""The mpmath reference never builds a number of astronomical size (symnb.robust.measure).

mpmath is exact in exponents: 2**(2**(2**x)) at x = 1e300 asked GMP for an integer of
2**1e300 bits and the process aborted ("gmp: overflow in mpz type", rc 134), killing a
notebook kernel; exp(2**(2**x)) and x**x**x**x grew in memory until killed, and
sin(exp(x)) at x = 1e300 reduced its argument with 1.4e300 bits of pi. Whole compiles
run in a child process (an abort must fail the test, not end the run) under a memory
limit; the values are checked against mpmath and float64 arithmetic written here.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

from symnb.robust import measure

ROOT = Path(__file__).resolve().parents[2]
X = sp.Symbol("x", real=True)

#: The child's address-space limit: far above what an analysis needs (about 150 MB).
CHILD_MEMORY = 3 << 30

_CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    import numpy as np
    import symnb
    text, what = sys.argv[1], sys.argv[2]
    t0 = time.perf_counter()
    act = symnb.Activation(text)
    out = {{}}
    if what == "accuracy":
        rep = act.accuracy()
        out["analysed"] = [f.analysed for f in rep.forms]
        out["reasons"] = [f.reason for f in rep.forms]
    else:
        k = act.compile(backend=what, dtype="float64")
        x = np.array([-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 30.0, 1e300])
        out["y"] = [repr(float(v)) for v in k.forward(x)]
    out["seconds"] = time.perf_counter() - t0
    print(json.dumps(out))
    """
)


def _run_child(template: str, args: list[str], cache: Path, what: str) -> dict:
    """Run ``template`` (memory-limited) in a child with a cold cache; its JSON line."""
    env = dict(os.environ)
    env["SYMNB_CACHE_DIR"] = str(cache)  # cold: no stored analysis
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-c", template.format(limit=CHILD_MEMORY), *args],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=str(ROOT),
        check=False,
    )
    assert proc.returncode == 0, (
        f"{what}: the child ended with rc {proc.returncode}\n{proc.stderr[-2000:]}"
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _child(text: str, what: str, tmp_path: Path) -> dict:
    return _run_child(_CHILD, [text, what], tmp_path / "cache", f"{text!r} ({what})")


def _pow_tower_float64(x: float) -> float:
    """2**(2**(2**x)) in float64 arithmetic written out (inf past the range)."""
    try:
        return 2.0 ** (2.0 ** (2.0**x))
    except OverflowError:
        return math.inf


@pytest.mark.parametrize(
    "text", ["2**2**2**x", "2**(2**(2**x))", "exp(2**(2**x))", "x**x**x**x"]
)
def test_power_towers_are_analysed_without_abort(text, tmp_path) -> None:
    """The compile's accuracy analysis of power towers finishes (it aborted in GMP or
    ran out of memory), in both dtypes, within the analysis budget plus start-up."""
    out = _child(text, "accuracy", tmp_path)
    # analysed, or stopped by the time budget: either way the process lived
    for ok, why in zip(out["analysed"], out["reasons"]):
        assert ok or "time budget" in why, why
    assert out["seconds"] < 60


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_power_tower_compiles_and_computes_float64_values(backend, tmp_path) -> None:
    from symnb.backends import status

    if not status(backend).usable:
        pytest.skip(f"{backend} backend: {status(backend).reason}")
    out = _child("2**2**2**x", backend, tmp_path)
    got = [float(v) for v in out["y"]]
    xs = [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 30.0, 1e300]
    for x, g in zip(xs, got):
        want = _pow_tower_float64(x)
        if math.isinf(want):
            assert g == want, (x, g)
        else:
            assert g == pytest.approx(want, rel=1e-13), (x, g, want)


def test_log_of_complex_intermediate_of_extreme_size_does_not_abort(tmp_path) -> None:
    """log(log(x**x**x)): the inner log is negative where x**x**x is tiny, and mpmath's
    complex log of it redid a sum at a precision of the size of the exponent (GMP
    aborted); such a point now has no reference."""
    out = _child("log(log(x**x**x))", "accuracy", tmp_path)
    for ok, why in zip(out["analysed"], out["reasons"]):
        assert ok or "time budget" in why, why


# ------------------------------------------------------------------ the reference itself

_REFERENCES = textwrap.dedent(
    """
    import json, resource, time
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    import numpy as np
    import sympy as sp
    from symnb.formula.formula import Activation
    from symnb.robust import engine, measure

    x = sp.Symbol("x", real=True)
    cases = {{
        "tower": (2 ** (2 ** (2**x)), [-1e300, -1.0, 0.0, 1.0, 3.0, 30.0, 1e300]),
        "exp_tower": (sp.exp(2 ** (2**x)), [0.0, 1.0, 3.0, 1000.0, 1e300]),
        "sin_exp": (sp.sin(sp.exp(x)), [-1e300, 0.0, 30.0, 1e8, 1e300]),
    }}
    out = {{}}
    for name, (expr, xs) in cases.items():
        t0 = time.perf_counter()
        hi, _ = measure.reference(expr, (x,), (), (), (np.array(xs),))
        out[name] = {{"x": xs, "ref": [repr(float(v)) for v in hi],
                     "seconds": time.perf_counter() - t0}}
    form = Activation("x**x**x**x").internal
    t0 = time.perf_counter()
    _, report = engine.analyse(form, "float32", budget=1.0)
    out["budget"] = {{"seconds": time.perf_counter() - t0,
                     "analysed": report.analysed, "reason": report.reason}}
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def child_references(tmp_path_factory) -> dict:
    """Reference values computed in a child process (without the limits it aborted)."""
    cache = tmp_path_factory.mktemp("cache")
    out = _run_child(_REFERENCES, [], cache, "reference values")
    for case in out.values():
        if "ref" in case:
            case["ref"] = [float(v) for v in case["ref"]]
    return out


def test_power_tower_reference_is_exact_then_inf(child_references) -> None:
    case = child_references["tower"]
    assert case["seconds"] < 10
    for x, g in zip(case["x"], case["ref"]):
        assert g == _pow_tower_float64(x), (x, g)


def test_exp_of_power_tower_reference(child_references) -> None:
    got = child_references["exp_tower"]["ref"]
    # exp(2**(2**x)) at 0, 1 and 3: exp(2), exp(4), exp(256)
    assert got[0] == pytest.approx(math.exp(2.0), rel=1e-15)
    assert got[1] == pytest.approx(math.exp(4.0), rel=1e-15)
    assert got[2] == pytest.approx(math.exp(256.0), rel=1e-15)
    assert got[3] == math.inf and got[4] == math.inf


def test_periodic_function_of_a_huge_argument_has_no_reference_and_is_quick(
    child_references,
) -> None:
    """sin(exp(x)) at x = 1e8 needs 1.4e8 bits of pi (the reference took 5 s at 1e7,
    growing with x): no reference there nor at 1e300, the usual value elsewhere."""
    case = child_references["sin_exp"]
    assert case["seconds"] < 10
    got = case["ref"]
    with mpmath.workdps(60):
        want = [mpmath.sin(mpmath.exp(mpmath.mpf(x))) for x in case["x"][:3]]
    for g, w in zip(got[:3], want):
        assert g == pytest.approx(float(w), rel=1e-15, abs=1e-300)
    assert math.isnan(got[3]) and math.isnan(got[4])


def test_analysis_budget_is_kept_for_a_power_tower(child_references) -> None:
    """One mpmath evaluation cannot outlast the budget: the deadline interrupts Python
    code only, and x**x**x**x stayed inside GMP (then aborted) for its whole analysis."""
    case = child_references["budget"]
    assert case["seconds"] < 3.0
    assert case["analysed"] or "time budget" in case["reason"], case["reason"]


def _ref(expr: sp.Expr, xs) -> np.ndarray:
    hi, _ = measure.reference(expr, (X,), (), (), (np.asarray(xs, dtype=np.float64),))
    return hi


def test_powers_that_leave_the_exp_limits_are_inf_or_zero_by_the_math() -> None:
    """|e log b| > 1e320: inf (signed by the parity of an integer exponent for b < 0)
    or 0; a negative base with a non-integer exponent has no real value."""
    mpf = mpmath.mpf
    huge_even = mpf(2) ** 2000
    with mpmath.workprec(2100):  # huge_even + 1 exactly
        assert measure._mp_pow(mpf(2), huge_even) == mpmath.inf
        assert measure._mp_pow(mpf(-2), huge_even) == mpmath.inf
        assert measure._mp_pow(mpf(-2), huge_even + 1) == -mpmath.inf
        assert measure._mp_pow(mpf(0.5), huge_even) == 0
        assert measure._mp_pow(mpf(2), -huge_even) == 0
        assert measure._mp_pow(mpf(1), mpf(2) ** (mpf(2) ** 1000)) == 1
        assert measure._mp_pow(mpf(-1), mpf(2) ** (mpf(2) ** 1000)) == 1
        with pytest.raises(measure.Unbounded):
            measure._mp_pow(-mpmath.ldexp(1, 10**321), mpf(2.5))
        # inside the limits the power is mpmath's own, exactly: 3**(3**27)
        v = measure._mp_pow(mpf(3), measure._mp_pow(mpf(3), mpf(27)))
        assert mpmath.log(v, 3) == pytest.approx(3**27, rel=1e-30)
        # a base within 2**-60 of 1 to a huge power: exp(e log b), finite
        b = 1 + mpmath.ldexp(1, -60)
        e = mpmath.ldexp(1, 60)
        assert measure._mp_pow(b, e) == pytest.approx(mpmath.e, rel=1e-15)


def test_log_of_a_huge_power_is_still_computed_exactly() -> None:
    """The limits only cut what no float could use: log(2**(2**x)) at x = 1000 is
    2**1000 log 2 (finite), computed through the power 2**(2**1000)."""
    got = _ref(sp.log(2 ** (2**X), evaluate=False), [1000.0])
    assert got[0] == pytest.approx(2.0**1000 * math.log(2.0), rel=1e-15)


@pytest.mark.parametrize("h0", [sp.Integer(1), sp.Rational(1, 2), sp.Integer(0)])
def test_reference_heaviside_takes_its_value_at_zero(h0) -> None:
    """Heaviside(u, h0) is h0 at u = 0 in the reference (it was always 0)."""
    got = _ref(sp.Heaviside(X - 1, h0), [-1.0, 0.0, 1.0, 2.0])
    assert list(got) == [0.0, 0.0, float(h0), 1.0]
