"""f and f' at x = +-inf are their limits where the limit exists.

The kernels evaluate the lowered form at inf itself, and a form right at every finite
x met inf - inf, 0*inf or inf/inf there: PyTorch's softplus(beta*x)/beta was NaN at
-inf (PyTorch gives 0), softsign x/(1 + |x|) NaN at both infinities, sqrt(x**2 +
eps**2)' NaN at both, hard swish x*min(max(x + 3, 0), 6)/6 NaN at -inf (0*inf) and its
derivative NaN at both. The engine now adds a branch at an infinity where the lowered
form misses SymPy's limit (``symnb.robust.infinity``).

The reference is independent of SymPy's limit: mpmath evaluates the typed formula (with
SymPy's own functions) at x = +-1e1000 and rounds to a float, as the one-sided limits
at +-0 are judged in ``test_signed_zero_limits``.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import symnb
from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import assert_lowered_cuda_compiles

#: (entry, the same function in SymPy's own functions for the reference)
CASES = (
    (
        Published(
            "pytorch_softplus_beta", "softplus(beta*x)/beta", "PyTorch", {"beta": 2.0}
        ),
        "log(1 + exp(beta*x))/beta",
    ),
    (
        Published(
            "softplus_small_beta", "log(1 + exp(beta*x))/beta", "test", {"beta": 0.5}
        ),
        "log(1 + exp(beta*x))/beta",
    ),
    (Published("softsign_typed", "x/(1 + abs(x))", "PyTorch"), "x/(1 + Abs(x))"),
    (
        Published("softsign_scaled", "a*x/(1 + abs(x))", "test", {"a": 2.0}),
        "a*x/(1 + Abs(x))",
    ),
    (
        Published("smooth_abs", "sqrt(x**2 + eps**2)", "test", {"eps": 1e-3}),
        "sqrt(x**2 + eps**2)",
    ),
    (
        Published("hard_swish_typed", "x*min(max(x + 3, 0), 6)/6", "Howard et al."),
        "x*Min(Max(x + 3, 0), 6)/6",
    ),
    (
        Published("swish_typed", "x*sigmoid(x)", "Ramachandran et al."),
        "x/(1 + exp(-x))",
    ),
)


def _at_infinity(text: str, constants: dict, side: int) -> tuple[float, float]:
    """f and f' at x = side*1e1000 with mpmath, as floats (+-inf past the range)."""
    x = sp.Symbol("x", real=True)
    names = {k: sp.Float(v) for k, v in constants.items()}
    f = sp.sympify(text, locals={"x": x, **{k: sp.Symbol(k) for k in names}})
    f = f.subs(names)
    fns = [sp.lambdify(x, e, modules="mpmath") for e in (f, sp.diff(f, x))]
    with mpmath.workdps(60):
        return tuple(float(fn(side * mpmath.mpf("1e1000"))) for fn in fns)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0].name)
def test_infinity_gives_the_limit(case, dtype, backend):
    entry, reference = case
    act = symnb.Activation(entry.text, **entry.constants)
    kernel = act.compile(backend=backend, dtype=dtype)
    x = np.array([np.inf, -np.inf, np.nan], dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(x)
        y_alone = kernel.forward(x)
    for i, side in enumerate((1, -1)):
        want_f, want_df = (
            float(np.dtype(dtype).type(v))
            for v in _at_infinity(reference, entry.constants, side)
        )
        assert y[i] == want_f, (entry.text, backend, dtype, side, y[i], want_f)
        assert y_alone[i] == want_f, (entry.text, side, y_alone[i], want_f)
        assert dy[i] == want_df, (entry.text, backend, dtype, side, dy[i], want_df)
    assert np.isnan(y[2]) and np.isnan(dy[2]) and np.isnan(y_alone[2])


@pytest.mark.parametrize("text", ["sin(x)", "x*cos(x)"])
def test_no_limit_stays_nan(text):
    kernel = symnb.Activation(text).compile(backend="numpy", dtype="float32")
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(np.array([np.inf, -np.inf], np.float32))
    assert np.isnan(y).all() and np.isnan(dy).all()


def test_a_form_right_at_infinity_gets_no_branch():
    from symnb.robust import infinity

    form = symnb.Activation("tanh(x)").internal
    for e in (form.f, form.df):
        assert infinity.with_limits(form, e, e, "float32") == (e, [])


def test_the_limit_is_taken_through_branches_and_stable_functions():
    from symnb.robust.infinity import limit_at_infinity

    x = sp.Symbol("x", real=True)
    hard = x * sp.Min(6, sp.Max(0, x + 3)) / 6
    assert limit_at_infinity(hard, x, -1) == 0.0
    assert limit_at_infinity(hard, x, 1) == float("inf")
    assert limit_at_infinity(sp.sin(x), x, 1) is None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_kernels_of_the_branches_compile(dtype):
    assert_lowered_cuda_compiles([c[0] for c in CASES], dtype)


@pytest.mark.parametrize("backend", backend_params())
def test_moved_constants_do_not_keep_the_analysed_limit(backend):
    """The branch gives the limit at the analysed constants only: a scaled softsign
    a*x/(1 + |x|) compiled at a = 2 and moved to a = 3 by training is not +-2 at
    +-inf (NaN, the formula's IEEE value, as before the branch existed)."""
    act = symnb.Activation("a*x/(1 + abs(x))", a=2.0)
    kernel = act.compile(backend=backend, dtype="float32")
    x = np.array([np.inf, -np.inf, 1.0], dtype=np.float32)
    assert list(kernel.forward(x)[:2]) == [2.0, -2.0]
    kernel.set_constants(a=3.0)
    with np.errstate(all="ignore"):
        y = kernel.forward(x)
    assert not np.isin(y[:2], [2.0, -2.0]).any()
    assert y[2] == pytest.approx(1.5)


def test_a_limit_is_found_once_per_process_and_a_cut_one_is_tried_again(monkeypatch):
    """f and f' are analysed once per dtype; the limit does not depend on the dtype, so
    SymPy is asked once. A limit cut by its time limit is asked again next time."""
    from symnb.robust import infinity
    from symnb.robust.deadline import OutOfTime

    x = sp.Symbol("x", real=True)
    asked = []
    answers = iter([OutOfTime("cut"), 0.25, AssertionError("asked a third time")])

    def limit(expr, var, side, params, values):
        asked.append((expr, side))
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(infinity, "_limit", limit)
    monkeypatch.setattr(infinity, "_KNOWN", {})
    e = x / (4 * x + sp.Rational(1, 7))  # a key no other test has asked
    assert infinity.limit_at_infinity(e, x, 1) is None  # cut: not kept
    assert infinity.limit_at_infinity(e, x, 1) == 0.25
    assert infinity.limit_at_infinity(e, x, 1) == 0.25  # kept: SymPy not asked
    assert len(asked) == 2


def test_both_dtypes_ask_sympy_for_a_limit_once(tmp_path, monkeypatch):
    from symnb.backends import cache as cache_mod
    from symnb.robust import infinity, measure
    from symnb.robust.engine import lower_with_report

    asked = []
    real = infinity._limit
    monkeypatch.setattr(infinity, "_KNOWN", {})
    monkeypatch.setattr(
        infinity, "_limit", lambda *a: asked.append((a[0], a[2])) or real(*a)
    )
    monkeypatch.setenv("SYMNB_CACHE_DIR", str(tmp_path))  # cold: both analysed
    cache_mod._reset_default_cache()
    try:
        # -inf*0 at x = -inf in f and f': branches with the limits -inf and 0.125
        form = symnb.Activation("x*sigmoid(1.75*x) + 0.125*x").internal
        for dtype in ("float32", "float64"):
            new, report = lower_with_report(form, dtype)
            assert report.analysed and not report.cache_hit
            y = measure.evaluate(
                new.df,
                form.inputs,
                form.params,
                form.param_values,
                (np.array([-np.inf]),),
                dtype,
            )
            assert y[0] == 0.125
    finally:
        monkeypatch.delenv("SYMNB_CACHE_DIR")
        cache_mod._reset_default_cache()
    assert asked and len(asked) == len(set(asked)), asked
