"""The numerical-robustness stage: measure, rewrite, keep what improves (Herbie-style).

``lower(form, dtype)`` returns a form whose f and f' compute the same function as the
user's with fewer (usually no) points outside the accuracy rule in ``dtype``:

1. measure f and f' as the kernels compute them (NumPy's order and the C printer's
   shared subexpressions) against mpmath (``measure``); when both pass (the common
   case) the form is returned unchanged;
2. otherwise try the exact rewrites of ``rewrite`` on the failing expression, then a
   re-derivation of f' from a rewritten f, then regime branches (``regimes``: Taylor
   polynomials at removable singularities, asymptotes where evaluation overflows, then
   exp-of-log forms where a factor overflows but the result does not);
3. a candidate is kept only when no point gets worse and fewer points fail.

The result is cached in memory and on disk (JSON, structural encoding, see ``codec``)
by expression, constants and dtype. The analysis has a time budget (``BUDGET_SECONDS``);
past it, the form is compiled as it is and the report says "not analysed".
The constants' gradients (dparams) are measured and rewritten as f' is, within their
own time budget (``DPARAM_BUDGET_SECONDS``), as a second step cached on its own:
``lower(form, dtype, gradients=False)`` leaves them as they are, for kernels that
compute them only when a constant's gradient is first asked for (most constants are
never learned, and their analysis took twice as long as f's and f''s).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import replace

import numpy as np
import sympy as sp

from symnb.forksafe import module_lock
from symnb.formula.budget import bounded_expand, wall_expiries
from symnb.formula.internal import InternalForm, X
from symnb.robust import (
    codec,
    infinity,
    literal_scale,
    measure,
    prebuilt,
    regimes,
    rewrite,
    scaled_argument,
    shift_difference,
)
from symnb.robust.deadline import OutOfTime, cpu_clock, time_limit
from symnb.robust.report import FormReport, TargetReport

#: Bumped when the analysis changes meaning (invalidates cached analyses).
ENGINE_VERSION = "124"

#: Seconds one analysis (one form, one dtype) may take before it gives up.
BUDGET_SECONDS = 4.0

#: CPU seconds past the search's deadline before the analysis is interrupted (the
#: search stops itself at the deadline; this catches a SymPy call that runs on).
STOP_MARGIN_SECONDS = 0.5

#: The report's reason when the search stopped at its deadline with what it found
#: (such an analysis is not stored on disk: a faster run may find more).
STOPPED = "analysed until the time budget ran out: the rewrites found so far are kept"

#: Seconds all forms of one compile (a layer) may spend in analysis together.
TOTAL_BUDGET_SECONDS = 10.0

# analyses by (key, whether the constants' gradients are analysed too)
_memo: dict[tuple[str, bool], tuple[InternalForm, FormReport]] = {}
# lowered forms by identity: lowering one again needs no key (its srepr is slow)
_lowered: dict[tuple[int, str, bool], tuple[InternalForm, FormReport]] = {}
_problems: dict[str, tuple] = {}
_lock = module_lock(globals(), "_lock", threading.RLock)  # see symnb.forksafe


_OutOfTime = OutOfTime


def _key(form: InternalForm, dtype: str) -> str:
    text = "|".join(
        [ENGINE_VERSION, dtype, form.signature(), repr(tuple(form.param_values))]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _second_derivative(e: sp.Expr, var: sp.Symbol) -> sp.Expr:
    d = sp.diff(e, var)
    return d.replace(sp.DiracDelta, lambda *a: sp.Integer(0))


def _problems_for(form: InternalForm) -> tuple:
    """Reference problems of f and f' (shared by both dtypes)."""
    key = form.signature() + repr(tuple(form.param_values))
    with _lock:
        hit = _problems.get(key)
    if hit is not None:
        return hit
    var = form.inputs[0]
    subs = dict(zip(form.params, form.param_values))
    cols = measure.input_columns(form.kind, [form.f, form.df], form.inputs, subs)
    args = (form.inputs, form.params, form.param_values, cols)
    pd = measure.make_problem(form.df, _second_derivative(form.df, var), *args)
    pf = measure.make_problem(form.f, form.df, *args, derivative_values=pd.ref_hi)
    with _lock:
        if len(_problems) > 64:
            _problems.clear()
        _problems[key] = (pf, pd)
    return pf, pd


def _accept(new: measure.Measurement, cur: measure.Measurement, orig) -> bool:
    """Fewer failing points than now, and no point failing that passed originally."""
    return new.n_bad < cur.n_bad and not (new.bad & ~orig.bad).any()


class _Probe:
    """Measurement at new points of the first input (fresh references), for regimes."""

    def __init__(self, problem: measure.Problem, reference_expr: tuple, dtype: str):
        self.problem = problem
        self.ref, self.deriv = reference_expr
        self.dtype = dtype

    def _cols(self, pts: np.ndarray) -> tuple:
        pts = np.asarray(pts, dtype=np.float64)
        extra = [np.full(pts.size, float(c[0])) for c in self.problem.columns[1:]]
        return (pts, *extra)

    def ok_at(self, expr: sp.Expr, pts: np.ndarray) -> np.ndarray:
        """Rule mask of ``expr`` at ``pts`` (points without a reference count as ok)."""
        pts = np.asarray(pts, dtype=np.float64)
        big = float(np.finfo(self.dtype).max)
        with np.errstate(all="ignore"):
            pts = np.clip(pts, -big, big)
            if self.dtype == "float32":
                pts = pts.astype(np.float32).astype(np.float64)
        pr = self.problem
        p = measure.make_problem(
            self.ref, self.deriv, pr.inputs, pr.params, pr.values, self._cols(pts)
        )
        # both orders, as at the sample points: a threshold bisected in NumPy's order
        # alone stopped at the next sample point (x*softplus(x)*sigmoid(x)' is NaN from
        # x = 1.3e154 in float64 in the C kernels' order, fine in NumPy's: the tail
        # began at 1e170 and the C kernel was NaN at 1e160)
        p.c_order = pr.c_order
        m = p.measure(expr, self.dtype)
        return m.ok | ~m.defined

    def ref_at(self, pts: np.ndarray, exact: bool = False):
        """Reference values at ``pts``: float64 array, or mpf list when exact."""
        pr = self.problem
        cols = self._cols(pts)
        if exact:
            return measure.reference_values(
                self.ref, pr.inputs, pr.params, pr.values, cols
            )
        return measure.reference(self.ref, pr.inputs, pr.params, pr.values, cols)[0]


def _ok_or_undefined(m: measure.Measurement) -> np.ndarray:
    return m.ok | ~m.defined


def _split(
    cand: sp.Expr,
    cur: sp.Expr,
    mc: measure.Measurement,
    mcur: measure.Measurement,
    var: sp.Symbol,
) -> sp.Expr | None:
    """Regime of two equal expressions: the better one on each side of one threshold,
    in x or in |x| (an even cancellation such as sqrt(1 + x^2) - 1 is better quotiented
    near 0 only)."""
    x = mc.columns[0]
    # only points the dtype holds: a threshold between a float64 point and its float32
    # rounding rounds onto that point in float32 and puts it on the wrong side
    t = np.dtype(mc.dtype).type
    with np.errstate(all="ignore"):
        held = x.astype(mc.dtype).astype(np.float64) == x
    x = x[held]
    a_all = (mc.ok | ~mc.defined)[held]
    b_all = (mcur.ok | ~mcur.defined)[held]
    best, choice = -1, None
    for key, measure_of in ((x, var), (np.abs(x), sp.Abs(var))):
        order = np.argsort(key, kind="stable")
        xs, a_ok, b_ok = key[order], a_all[order], b_all[order]
        for lo_ok, hi_ok, first in ((a_ok, b_ok, True), (b_ok, a_ok, False)):
            left = np.concatenate([[0], np.cumsum(lo_ok)])
            right = np.concatenate([np.cumsum(hi_ok[::-1])[::-1], [0]])
            score = left + right
            i = _plateau_middle(xs, score)
            # a threshold between two distinct keys (|x| repeats +-x)
            if i is not None and score[i] > best:
                mid = 0.5 * xs[i - 1] + 0.5 * xs[i]
                if not t(xs[i - 1]) < t(mid) < t(xs[i]):
                    mid = float(xs[i])  # adjacent in the dtype: the upper one
                best, choice = int(score[i]), (measure_of, mid, first)
    if choice is None:
        return None
    measure_of, mid, cand_below = choice
    below, above = (cand, cur) if cand_below else (cur, cand)
    return sp.Piecewise((below, measure_of < sp.Float(mid, 17)), (above, True))


def _plateau_middle(xs: np.ndarray, score: np.ndarray) -> int | None:
    """The threshold index (between xs[i - 1] and xs[i], two distinct keys) in the
    middle of the first run of best-scoring ones, in log-magnitude where the run does
    not cross 0: the sample points between them are met equally by both forms, and
    the first one put the threshold at the edge of what was measured.
    ``min(sqrt(1 + x**2) - 1, x)``'s f' took the cancellation-free step above
    |x| = 4.2e-8 only, where the sample points ended, and the typed one tied in C++
    float32 at 4.6e-8 (f' 1 instead of 4.6e-8); the cancellation-free form failed
    only beyond 1e19."""
    n = xs.size
    top = score.max()
    run = []
    for j in range(1, n):
        if score[j] == top and xs[j - 1] < xs[j]:
            run.append(j)
        elif run and score[j] != top:
            break
    if not run:
        return None
    lo, hi = xs[run[0] - 1], xs[run[-1]]
    if lo > 0 or hi < 0:  # one sign: the geometric middle of the run
        target = np.sign(hi) * np.sqrt(abs(lo)) * np.sqrt(abs(hi))
        for j in run:
            if xs[j] >= target:
                return j
    return run[len(run) // 2]


#: Exact rewrites tried on an expression that already meets the rule: kept where the
#: rule still holds everywhere and the largest error in ulps drops by this factor.
WITHIN_RULE_REWRITES = ("square_in_root", "divide_stepwise")
WITHIN_RULE_GAIN = 1e3


def _named_rewrites(rewrites, names, expr: sp.Expr, var: sp.Symbol):
    """(name, note, rewritten expr) for each rewrite named in ``names`` that changes
    ``expr`` (a rewrite that raises is skipped)."""
    for name, note, fn in rewrites:
        if name not in names:
            continue
        try:
            cand = fn(expr, var)
        except Exception:  # noqa: BLE001, S112 - a rewrite that fails is skipped
            continue
        if cand != expr:
            yield name, note, cand


def _far_better_within_rule(
    cur: sp.Expr,
    cm: measure.Measurement,
    problem: measure.Problem,
    var: sp.Symbol,
    dtype: str,
) -> tuple[sp.Expr, measure.Measurement, str, str] | None:
    """A rewrite for errors the rule forgives: its scale S = max(1, |x|, |x f'|) lets a
    bounded f be anything at |x| = 1e20, so ISRU x/sqrt(1 + x^2) was 0 there (x^2
    overflowed) instead of 1, and bent identity's f' 1 instead of 0.5. Kept only when
    the rule still holds at every point and the largest error falls by
    :data:`WITHIN_RULE_GAIN`."""
    before = cm.max_ulps()
    if not before > WITHIN_RULE_GAIN * 4:  # a 1000x gain would end below 4 ulps
        return None
    rewrites = (*rewrite.EXACT_REWRITES, *rewrite.WITHIN_RULE_ONLY)
    for name, note, cand in _named_rewrites(rewrites, WITHIN_RULE_REWRITES, cur, var):
        m = problem.measure(cand, dtype)
        # divided, not multiplied: 1e307 ulps * 1e3 overflowed to inf, and a candidate
        # finite everywhere was refused against an inf before (float64 x/sqrt(1 + x^2))
        if m.passes and m.max_ulps() < before / WITHIN_RULE_GAIN:
            return cand, m, name, note
    return None


def _improve(
    expr: sp.Expr,
    problem: measure.Problem,
    var: sp.Symbol,
    dtype: str,
    deadline: float,
    reference_expr: tuple,
    params: tuple,
    values: tuple,
    extra: list | None = None,
    antiderivative: sp.Expr | None = None,
    late_extra: list | None = None,
) -> tuple[sp.Expr, list[tuple[str, str]], measure.Measurement, sp.Expr]:
    """Greedy search: keep candidates that help until none does or the rule holds.

    Returns the expression, the rewrites applied (name, note), its measurement, and the
    expression after the exact rewrites only (before any regime branch).
    """
    cur = expr
    m0 = cm = problem.measure(cur, dtype)
    applied: list[tuple[str, str]] = []
    if cm.passes:
        cand = _far_better_within_rule(cur, cm, problem, var, dtype)
        if cand is not None:
            cand, m, name, note = cand
            return cand, [(name, note)], m, cand
        return cur, applied, cm, cur
    single = len(problem.columns) == 1

    def exact_candidates(e):
        for name, note, fn in rewrite.EXACT_REWRITES:
            try:
                yield name, note, fn(e, var)
            except Exception:  # noqa: BLE001, S112 - a rewrite that fails is skipped
                continue

    def out_of_time() -> bool:
        # past the deadline the search stops with what it found (f's rewrites are
        # kept when f' runs out of time: the inverse Mills ratio lost its fix at the
        # float32 maximum to f' searching on near its continued fraction's edge)
        return cpu_clock() > deadline

    for round_ in range(6):
        if cm.passes or out_of_time():
            break
        progress = False
        pool = list(extra or []) if round_ == 0 else []
        late = list(late_extra or []) if round_ == 0 else []
        for name, note, cand in [*pool, *exact_candidates(cur), *late]:
            if out_of_time():
                break
            if cand is None or cand == cur:
                continue
            m = problem.measure(cand, dtype)
            if not _accept(m, cm, m0) and single and (cm.bad & ~m.bad).any():
                # better somewhere, worse elsewhere: the better of both on each side
                merged = _split(cand, cur, m, cm, var)
                if merged is not None:
                    m = problem.measure(merged, dtype)
                    cand = merged
                    note = f"{note} (where it is more accurate)"
            if _accept(m, cm, m0):
                cur, cm = cand, m
                applied.append((name, note))
                progress = True
                break
        if not progress:
            break
    exact = cur

    def within_rule(cur, cm):
        """The within-rule rewrites once the rule holds after rewrites or regimes
        too, not only for a form that met it as typed: (sqrt(1 + 4x^2) - 1)/(2x) met
        it only after its root cancellation and asymptotes, and 4x^2 still overflowed
        (f 0 instead of 1 from x = 1e19 in float32)."""
        if not cm.passes:
            return cur, cm
        found = _far_better_within_rule(cur, cm, problem, var, dtype)
        if found is None:
            return cur, cm
        cand, m, name, note = found
        applied.append((name, note))
        return cand, m

    if cm.passes or not single:
        cur, cm = within_rule(cur, cm)
        return cur, applied, cm, exact
    probe = _Probe(problem, reference_expr, dtype)
    starts = [cur] if cur == expr else [cur, expr]
    # asymptotes (a constant or a line) before exp(log) forms: cheaper where both work
    # each kind twice: a second removable point (the DSU's sinc(x - pi) - sinc(x + pi)
    # at x = +-pi), the other tail; a repeat only after the first one helped
    progress, prev = False, None
    for gen in REGIME_ORDER:
        if gen == prev and not progress:
            continue
        prev, progress = gen, False
        for start in starts:
            if cm.passes or progress or out_of_time():
                break
            if gen == "taylor":
                cands = regimes.taylor_candidates(
                    start,
                    var,
                    params,
                    values,
                    probe.ok_at,
                    deadline,
                    expr,
                    antiderivative,
                )
                if not out_of_time():
                    # first: it holds for every value of the constants (training
                    # moves them), the branches in x only for the analysed ones
                    more = _scaled_taylor(start, expr, var, params, dtype)
                    shifted = (
                        shift_difference.candidates(start, var, params, values, dtype)
                        if params
                        else []
                    )
                    cands = [*shifted, *more, *cands]
            else:
                tail = (start, var, params, values, problem.x, cm.bad, probe.ok_at)
                samples = lambda e: _ok_or_undefined(problem.measure(e, dtype))
                if gen == "log_form":
                    cands = regimes.log_form_candidates(*tail, deadline, samples)
                elif gen == "vanishing_terms":
                    cands = regimes.vanishing_term_candidates(
                        *tail, dtype, deadline, samples
                    )
                else:
                    cands = regimes.asymptotic_candidates(
                        *tail, probe.ref_at, deadline, samples
                    )
            for name, note, cand in cands:
                m = problem.measure(cand, dtype)
                if _accept(m, cm, m0):
                    cur, cm = cand, m
                    applied.append((name, note))
                    progress = True
                    break
        starts = [cur]
    cur, cm = within_rule(cur, cm)
    return cur, applied, cm, exact


def _scaled_taylor(
    start: sp.Expr,
    expr: sp.Expr,
    var: sp.Symbol,
    params: tuple,
    dtype: str,
) -> list[tuple[str, str, sp.Expr]]:
    """A Taylor branch in u = c*x (or x/c) before ``start`` where ``expr`` (the form as
    typed, whose series is cheap) is ``c**k * g(u)`` and g is 0/0 or cancels near
    u = 0 (``scaled_argument``), as a regime candidate.

    The Taylor polynomial in x has coefficients c**j: tanh(k*x)/(k*x)'s f' at
    k = 1e6 has k**8 = inf in float32, so no branch in x was good and f' lost 4
    digits near |x| = 1e-7; in u the coefficients are plain numbers, and the branch
    holds for every value of k (no guard on the analysed values)."""
    body = regimes._main_branch(expr)
    if body.has(sp.Piecewise):
        return []
    # the constants' symbols first, then each number typed as x's scale (1e8*x) as one
    # (``literal_scale``): the branch is the same, with the number put back
    tries = [(body, params, {})] if params else []
    for k in literal_scale.literal_scales(body, var):
        c = sp.Symbol("symnb_literal_scale", positive=True)
        tries.append((literal_scale.with_scale_symbol(body, k, c), (c,), {c: k}))
    for form, scales, back in tries:
        try:
            got = scaled_argument.branch_in_scaled_argument(
                form, var, scales, dtype, removable=True
            )
        except Exception:  # noqa: BLE001, S112 - no series this way: no candidate
            continue
        if got is None:
            continue
        branch, cond, note = (
            part.xreplace(back) if isinstance(part, sp.Basic) else part for part in got
        )
        return [("taylor", note, sp.Piecewise((branch, cond), (start, True)))]
    return []


#: A re-derived f' with more than this many times the operations of f' as typed is
#: tried after f''s own exact rewrites (``u - log1p(u)``'s series branch, each term
#: differentiated, was 20 times larger than the ``t*u/(1 + u)`` that fixes f' alone).
REDERIVED_OPERATIONS = 4


#: The regime generators in the order _improve tries them.
REGIME_ORDER = (
    "taylor",
    "taylor",
    "asymptote",
    "asymptote",
    "vanishing_terms",
    "vanishing_terms",
    "log_form",
    "log_form",
)


def _rederived(f_new: sp.Expr, var: sp.Symbol) -> sp.Expr | None:
    """f' of a rewritten f, with the formula layer's derivative rewrites; None with steps."""
    from symnb.formula.stability import stabilize_derivative

    d = sp.diff(f_new, var)
    if d.has(sp.DiracDelta, sp.Derivative, sp.Subs):
        return None
    d = d.replace(
        lambda e: isinstance(e, sp.Heaviside) and len(e.args) == 1,
        lambda e: sp.Heaviside(e.args[0], 0),
    )
    return stabilize_derivative(d)


def _target_report(what, dtype, before, after, applied) -> TargetReport:
    return TargetReport(
        what=what,
        dtype=dtype,
        analysed=True,
        points=int(np.count_nonzero(after.defined)),
        max_ulps=after.max_ulps(),
        median_ulps=after.median_ulps(),
        failing=after.n_bad,
        regions=after.regions(),
        before_max_ulps=before.max_ulps(),
        before_failing=before.n_bad,
        rewrites=[name for name, _ in applied],
    )


def _references(form: InternalForm, seconds: float) -> None:
    """The mpmath references of f and f' (memoised for :func:`_analyse`), within their
    own ``seconds``: they are the measuring stick, not the search, and a large form's
    took most of the budget (the inverse Mills ratio's continued fraction: 2.2 of 4 s
    in float32, so its analysis ran out of time and the kernel kept a product that
    overflowed at the float32 maximum, where the value is finite)."""
    with time_limit(seconds, "compute the reference values"):
        one = _residual_form(form)
        if one is not None:
            _problems_for(one)
        _problems_for(form)


def analyse(
    form: InternalForm, dtype: str, budget: float | None = None, gradients: bool = True
) -> tuple[InternalForm, FormReport]:
    """Measure and rewrite one form for one dtype (no caching; see :func:`lower`);
    ``gradients=False``: f and f' only (the constants' gradients as they are)."""
    result = _analyse_values(form, dtype, budget)
    return with_constant_gradients(form, result, dtype) if gradients else result


def _learnable(form: InternalForm) -> bool:
    """Whether the form has constants' gradients to analyse (a loss's are not learned)."""
    return bool(form.dparams) and form.kind != "loss"


def with_constant_gradients(
    form: InternalForm, result: tuple[InternalForm, FormReport], dtype: str
) -> tuple[InternalForm, FormReport]:
    """``result`` (f and f' of ``form`` analysed) with the constants' gradients
    analysed too; unchanged without learnable constants or when f and f' were not
    analysed (out of time)."""
    new, report = result
    if not report.analysed or not _learnable(form):
        return result
    t0 = time.perf_counter() - report.seconds
    return _with_constant_gradients(form, new, report, dtype, t0)


def _analyse_values(
    form: InternalForm, dtype: str, budget: float | None
) -> tuple[InternalForm, FormReport]:
    """f and f' of one form measured and rewritten for one dtype."""
    t0 = time.perf_counter()
    seconds = BUDGET_SECONDS if budget is None else budget
    deadline = cpu_clock() + seconds  # CPU time: the same result on a busy machine
    try:
        _references(form, seconds)
        deadline = cpu_clock() + seconds  # the search's own, after the references
        # the search stops itself at the deadline, keeping what it found; the hard
        # limit a little later interrupts a SymPy or mpmath call that runs on
        with time_limit(seconds + STOP_MARGIN_SECONDS):
            result = _analyse(form, dtype, t0, deadline)
        if cpu_clock() > deadline:
            if result[0] is form:  # stopped before it found anything
                raise _OutOfTime
            result = (result[0], replace(result[1], reason=STOPPED))
    except _OutOfTime as exc:
        over = cpu_clock() >= deadline - 1e-3
        why = (
            f"time budget of {seconds:.3g} s exceeded"
            if over or not str(exc)
            else str(exc)
        )
        report = FormReport(
            form.name,
            form.kind,
            dtype,
            analysed=False,
            reason=f"not analysed: {why}",
            seconds=time.perf_counter() - t0,
            targets=[TargetReport("f", dtype, False), TargetReport("df", dtype, False)],
        )
        # the limits at infinity still (their own time limit): a form whose search
        # ran out of time was NaN from |x| = 1.8e19 in float32 where it tends to 0
        return _with_limits_at_infinity(form, form, report, dtype)
    return _with_limits_at_infinity(form, *result, dtype)


def _with_limits_at_infinity(
    form: InternalForm, new: InternalForm, report: FormReport, dtype: str
) -> tuple[InternalForm, FormReport]:
    """f and f' with branches at x = +-inf where the lowered form misses the limit
    there (``infinity.with_limits``; the sample points hold no infinity)."""
    f, f_notes = infinity.with_limits(form, new.f, form.f, dtype)
    df, d_notes = infinity.with_limits(form, new.df, form.df, dtype)
    if not (f_notes or d_notes):
        return new, report
    notes = [f"f in {dtype}: {n}" for n in f_notes]
    notes += [f"f' in {dtype}: {n}" for n in d_notes]
    return replace(new, f=f, df=df), replace(report, notes=[*report.notes, *notes])


#: CPU seconds the constants' gradients of one form (all together) may take in one
#: dtype, after f and f' (their own budget: a gradient that runs out of time is kept
#: as it is, f and f' keep their rewrites).
DPARAM_BUDGET_SECONDS = 2.0

#: More CPU seconds for each constant whose gradient is not finite at every sample
#: point, up to :data:`DPARAM_MAX_SECONDS`: the PAU 5/4's eight failing gradients
#: (x**5/Q and P*x**4/Q**2 overflow from |x| = 5e7 in float32, NaN) needed about 4.5 s,
#: and within 2 s none was rewritten.
DPARAM_SECONDS_EACH = 1.0
DPARAM_MAX_SECONDS = 10.0


def _dparam_columns(form: InternalForm) -> tuple:
    """The sample columns of f and f' (the constants' gradients are judged there)."""
    subs = dict(zip(form.params, form.param_values))
    return measure.input_columns(form.kind, [form.f, form.df], form.inputs, subs)


def _dparam_problem(form: InternalForm, index: int, cols: tuple) -> measure.Problem:
    """Reference problem of the constant ``index``'s gradient (cached per form)."""
    key = f"dparam{index}|" + form.signature() + repr(tuple(form.param_values))
    with _lock:
        hit = _problems.get(key)
    if hit is not None:
        return hit
    d = form.dparams[index]
    args = (form.inputs, form.params, form.param_values, cols)
    out = measure.make_problem(d, _second_derivative(d, form.inputs[0]), *args)
    with _lock:
        if len(_problems) > 64:
            _problems.clear()
        _problems[key] = out
    return out


def _finite_everywhere(form: InternalForm, d: sp.Expr, cols: tuple, dtype: str) -> bool:
    """Whether ``d`` is a number at every sample point in ``dtype`` (both orders)."""
    args = (form.inputs, form.params, form.param_values, cols, dtype)
    for order in ("numpy", "cse"):
        got = measure.evaluate(d, *args, order)
        if got is not None and not np.isfinite(got).all():
            return False
    return True


def _mended_in_scaled_argument(
    form: InternalForm, dtype: str
) -> tuple[list[sp.Expr], list[str]]:
    """The constants' gradients with Taylor branches in u = c*x (or x/c) where they
    cancel for small u (``scaled_argument``), and the notes; within
    :data:`DPARAM_BUDGET_SECONDS` (out of time: those not yet mended stay as they
    are). Found at any constant value, so even gradients that pass at the analysed
    values are tried: d/da of ``(exp(a*x) - 1)/a`` cancels once training takes a
    toward 0."""
    var = form.inputs[0]
    mended, notes = list(form.dparams), []
    try:
        with time_limit(DPARAM_BUDGET_SECONDS):
            for i, d in enumerate(form.dparams):
                new, found = scaled_argument.taylor_in_scaled_argument(
                    d, var, form.params, dtype
                )
                if found:
                    mended[i] = new
                    what = f"d/d{form.param_names[i]} in {dtype}"
                    notes += [f"{what}: {n}" for n in found]
    except _OutOfTime:
        pass
    return mended, notes


def _with_constant_gradients(
    form: InternalForm,
    new_form: InternalForm,
    report: FormReport,
    dtype: str,
    t0: float,
) -> tuple[InternalForm, FormReport]:
    """The constants' gradients measured and rewritten as f' is (``_improve``): the
    gradient a learnable constant gets is evaluated over the same inputs, and
    d(swish)/dbeta = x^2 sigmoid(beta x) sigmoid(-beta x) was inf*0 = NaN from
    |x| = 1.8e19 in float32 (x^2 overflows where the value is 0). Only gradients that
    break the rule are searched; each failing one gets a target ``d/d<name>`` in the
    report. Within :data:`DPARAM_BUDGET_SECONDS` plus :data:`DPARAM_SECONDS_EACH` per
    failing gradient; out of time, the gradients not yet rewritten are kept as they are
    (those rewritten before stay rewritten).

    A gradient that is a number at every sample point in the dtype is not measured
    against mpmath (its references cost about 0.3 s per constant, 2 s on a PAU): the
    class of failure searched here is inf*0, inf - inf and overflow, which show as
    inf or NaN; a finite but inaccurate gradient is not found."""
    var = form.inputs[0]
    pv = (form.params, form.param_values)
    mended, notes = _mended_in_scaled_argument(form, dtype)
    # every gradient divided by a power of a constant one factor at a time, whether it
    # fails at the analysed values or not: training moves the constants, and
    # softplus(-|beta x|)/beta**2 (d/dbeta of log(1 + exp(beta x))/beta) compiled at
    # beta = 1 was 0/0 = NaN in float32 once beta reached 1e-30 (an exact rewrite).
    # "Not rewritten by f's analysis" is equality, not identity: that analysis may be
    # another form object's of the same key (the in-process memo), whose equal
    # gradients are other objects once SymPy's cache dropped them; by identity they
    # were taken as rewritten and kept undivided (NaN again at beta = 1e-30)
    dparams = [
        rewrite.divide_by_constant_stepwise(m, var) if d == o or m is not o else d
        for d, o, m in zip(new_form.dparams, form.dparams, mended)
    ]
    targets = []
    cols = _dparam_columns(form)
    failing = [
        i for i, d in enumerate(mended) if not _finite_everywhere(form, d, cols, dtype)
    ]
    seconds = min(
        DPARAM_BUDGET_SECONDS + DPARAM_SECONDS_EACH * len(failing),
        DPARAM_MAX_SECONDS,
    )
    try:
        with time_limit(seconds):
            deadline = cpu_clock() + seconds
            for i in failing:
                # searched from the mended form (its branch in u holds for every
                # value of the constant; the search's regimes hold for the analysed
                # ones); the series and the references from the gradient itself
                name, d, o = form.param_names[i], mended[i], form.dparams[i]
                problem = _dparam_problem(form, i, cols)
                before = problem.measure(d, dtype)
                if before.passes:
                    continue
                d2 = _second_derivative(o, var)
                new_d, applied, after, _ = _improve(
                    d, problem, var, dtype, deadline, (o, d2), *pv
                )
                if after.n_bad < before.n_bad:
                    dparams[i] = new_d
                else:
                    after, applied = before, []
                what = f"d/d{name}"
                targets.append(_target_report(what, dtype, before, after, applied))
                for _, note in applied:
                    text = f"{what} in {dtype}: {note}"
                    if text not in notes:
                        notes.append(text)
    except _OutOfTime:
        pass
    if tuple(dparams) != tuple(new_form.dparams):
        new_form = replace(new_form, dparams=tuple(dparams))
    report = replace(
        report,
        targets=[*report.targets, *targets],
        notes=[*report.notes, *notes],
        seconds=time.perf_counter() - t0,
    )
    return new_form, report


def _without(e: sp.Expr, t: sp.Symbol) -> sp.Expr:
    """e with each sum that still holds t expanded, where t then cancels: SymPy writes
    the derivative of a loss with a constant c as (2*c*p - 2*c*t)/..., which is
    2*c*(r + t) - 2*c*t at p = r + t (Geman-McClure with sigma, Cauchy with c); the
    sums without t are left as they are."""
    if t not in e.free_symbols:
        return e

    def expanded(s: sp.Expr) -> sp.Expr:
        out = bounded_expand(s)
        return s if out is None or t in out.free_symbols else out

    return e.replace(lambda s: isinstance(s, sp.Add) and t in s.free_symbols, expanded)


def _residual_form(form: InternalForm) -> InternalForm | None:
    """A loss that depends on (p, t) only through r = p - t as a one-input form in r
    (Geman-McClure r^2/(1 + r^2), pseudo-Huber, log-cosh, Welsch...): analysed as an
    activation of r, it gets the regimes (asymptotes, Taylor) that need one input, and
    its measurement covers the whole float range of r. None otherwise."""
    if form.kind != "loss" or len(form.inputs) != 2:
        return None
    p, t = form.inputs
    # p = r + t: (p - t) becomes r by SymPy's own evaluation, nothing is expanded
    f, df = (_without(e.xreplace({p: X + t}), t) for e in (form.f, form.df))
    if t in (f.free_symbols | df.free_symbols) or X not in f.free_symbols:
        return None
    return replace(form, kind="activation", inputs=(X,), f=f, df=df)


def _analyse_residual(
    form: InternalForm, one: InternalForm, dtype: str, t0: float, deadline: float
) -> tuple[InternalForm, FormReport]:
    """Rewrites found on the residual form, measured (and kept) on the loss's own
    inputs: the report counts the rounding of p - t, as the kernel computes it."""
    new_one, inner = _analyse(one, dtype, t0, deadline)
    if not inner.analysed:
        return form, replace(inner, kind=form.kind)
    if new_one is one:
        new = form
    else:
        back = {one.inputs[0]: form.inputs[0] - form.inputs[1]}
        new = replace(form, f=new_one.f.xreplace(back), df=new_one.df.xreplace(back))
    pf, pd = _problems_for(form)
    targets = []
    for problem, t, before_e, after_e in (
        (pf, inner.targets[0], form.f, new.f),
        (pd, inner.targets[1], form.df, new.df),
    ):
        before = problem.measure(before_e, dtype)
        after = problem.measure(after_e, dtype)
        applied = [(name, "") for name in t.rewrites]
        if after.n_bad > before.n_bad:  # better on r, worse on (p, t): not kept
            new = replace(new, **{t.what: before_e})
            after, applied = before, []
        targets.append(_target_report(t.what, dtype, before, after, applied))
    prefix = {"f": "f in", "df": "f' in"}
    notes = [
        n
        for n in inner.notes
        if any(n.startswith(prefix[t.what]) and t.rewrites for t in targets)
    ]
    report = replace(
        inner,
        kind=form.kind,
        targets=targets,
        notes=notes,
        seconds=time.perf_counter() - t0,
    )
    return new, report


#: Exact rewrites kept, for a form with learnable constants, wherever they leave the
#: measurement at the analysed values as it was: they remove an overflow (inf*0) that
#: only larger or smaller constants bring, and training moves the constants without a
#: new analysis. Swish's f' c*x*sigmoid(-c*x)*sigmoid(c*x) compiled at beta = 1 was
#: NaN from x = -1e19 once beta reached 1e30 (c*x = -inf times 0), Snake's sin(a*x)
#: with a moved from 1 to 1e30 NaN from |x| = 3.4e8 (float32), the scaled softsign
#: a*x/(b + |x|) compiled at a = 2 inf from |x| = 1.7e28 once a reached 2e10.
HARDENING_REWRITES = (
    "multiply_stepwise",
    "widen_trig",
    "divide_by_constant_stepwise",
    "constant_factors_last",
    "square_over_root",
)


def _keep_exact(
    names: tuple[str, ...],
    extra_operations: int,
    expr: sp.Expr,
    problem: measure.Problem,
    m: measure.Measurement | None,
    applied: list,
    var: sp.Symbol,
    dtype: str,
) -> tuple[sp.Expr, measure.Measurement | None]:
    """``expr`` with each exact rewrite in ``names`` that fails no point more than it
    does and adds at most ``extra_operations`` (these run at every x, for constants
    that may never move). ``m`` is ``expr``'s measurement, taken here when None and a
    rewrite applies; ``applied`` gets the kept rewrites' names and notes."""
    for name in names:
        for _, note, cand in _named_rewrites(
            rewrite.EXACT_REWRITES, (name,), expr, var
        ):
            if sp.count_ops(cand) > sp.count_ops(expr) + extra_operations:
                continue  # a kernel slower at every x, for constants that may not move
            m = m or problem.measure(expr, dtype)
            cm = problem.measure(cand, dtype)
            if cm.n_bad <= m.n_bad and not (cm.bad & ~m.bad).any():
                expr, m = cand, cm
                applied.append((name, f"{note} (also for constants moved by training)"))
    return expr, m


#: Exact rewrites that remove a cancellation, applied first to f of an activation with
#: constants wherever they fail no point more at the analysed values: the analysed
#: values may keep the cancellation within the rule's absolute slack where moved ones
#: do not (pseudo-Huber compiled at delta = 1 and moved to 1e3 gave 0.119 for 0.2048
#: at x = 0.64 in float32; sqrt(x**2 + c**2) - c at c = 1 moved to 1e4, 0 for 5e-5).
CANCELLATION_FIRST = ("root_cancellation", "cosine_as_half_angle")

#: Operations such a rewrite may add (a division, a sum, and a branch on the sign of a
#: constant that the kernel decides once per call).
CANCELLATION_EXTRA_OPERATIONS = 10


def _analyse(
    form: InternalForm, dtype: str, t0: float, deadline: float
) -> tuple[InternalForm, FormReport]:
    one = _residual_form(form)
    if one is not None:
        return _analyse_residual(form, one, dtype, t0, deadline)
    var = form.inputs[0]
    pf, pd = _problems_for(form)  # memoised by _references
    pv = (form.params, form.param_values)
    f_start, first = form.f, []
    if form.params and form.kind != "loss":
        f_start, _ = _keep_exact(
            CANCELLATION_FIRST,
            CANCELLATION_EXTRA_OPERATIONS,
            form.f,
            pf,
            None,
            first,
            var,
            dtype,
        )
    f_new, f_applied, f_m, f_exact = _improve(
        f_start, pf, var, dtype, deadline, (form.f, form.df), *pv
    )
    f_applied = first + f_applied
    extra, late = [], []
    # f' again from f's exact rewrites; regime branches of f (Taylor radius,
    # asymptote threshold) were measured for f, so f' finds its own
    if f_exact != form.f:
        d = _rederived(f_exact, var)
        if d is not None:
            # a derivative far larger than f' as typed (a series branch of f, each
            # term differentiated) comes after f''s own rewrites
            big = sp.count_ops(d) > REDERIVED_OPERATIONS * (sp.count_ops(form.df) + 1)
            (late if big else extra).append(
                (
                    "rederived",
                    "the derivative is taken again from the rewritten function",
                    d,
                )
            )
    d2 = _second_derivative(form.df, var)
    df_new, d_applied, d_m, _ = _improve(
        form.df,
        pd,
        var,
        dtype,
        deadline,
        (form.df, d2),
        *pv,
        extra=extra,
        antiderivative=form.f,
        late_extra=late,
    )
    if form.params and form.kind != "loss":
        f_new, f_m = _keep_exact(
            HARDENING_REWRITES, 0, f_new, pf, f_m, f_applied, var, dtype
        )
        df_new, d_m = _keep_exact(
            HARDENING_REWRITES, 0, df_new, pd, d_m, d_applied, var, dtype
        )
    notes = []
    for what, applied in (("f", f_applied), ("f'", d_applied)):
        for name, note in applied:
            text = f"{what} in {dtype}: {note}"
            if text not in notes:
                notes.append(text)
    targets = [
        _target_report("f", dtype, pf.measure(form.f, dtype), f_m, f_applied),
        _target_report("df", dtype, pd.measure(form.df, dtype), d_m, d_applied),
    ]
    new_form = form
    if f_applied or d_applied:
        new_form = replace(form, f=f_new, df=df_new)
    report = FormReport(
        form.name,
        form.kind,
        dtype,
        analysed=True,
        seconds=time.perf_counter() - t0,
        targets=targets,
        notes=notes,
    )
    return new_form, report


# ------------------------------------------------------------------ caching


def _symbols(form: InternalForm) -> dict[str, sp.Symbol]:
    return {s.name: s for s in (*form.inputs, *form.params)}


def _store(form: InternalForm, new: InternalForm, report: FormReport) -> bytes:
    data = {
        "engine": ENGINE_VERSION,
        "report": report.to_json(),
        "f": None if new.f is form.f else codec.encode(new.f),
        "df": None if new.df is form.df else codec.encode(new.df),
        "dparams": [
            None if n is o else codec.encode(n)
            for n, o in zip(new.dparams, form.dparams)
        ],
    }
    return json.dumps(data).encode()


def _load(form: InternalForm, raw: bytes) -> tuple[InternalForm, FormReport]:
    data = json.loads(raw.decode())
    if not isinstance(data, dict) or data.get("engine") != ENGINE_VERSION:
        raise codec.DecodeError("other engine version")
    syms = _symbols(form)
    f = form.f if data.get("f") is None else codec.decode(data["f"], syms)
    df = form.df if data.get("df") is None else codec.decode(data["df"], syms)
    stored = data.get("dparams") or [None] * len(form.dparams)
    if len(stored) != len(form.dparams):
        raise codec.DecodeError("another number of constants")
    dparams = tuple(
        o if n is None else codec.decode(n, syms) for n, o in zip(stored, form.dparams)
    )
    report = FormReport.from_json(data["report"])
    report.cache_hit = True
    same = f is form.f and df is form.df
    if same and all(n is o for n, o in zip(dparams, form.dparams)):
        return form, report
    return replace(form, f=f, df=df, dparams=dparams), report


class _NotStored(Exception):
    def __init__(self, result) -> None:
        self.result = result


def lower_with_report(
    form: InternalForm,
    dtype: str,
    budget: float | None = None,
    gradients: bool = True,
) -> tuple[InternalForm, FormReport]:
    """:func:`lower` and its report (memoised in process and on disk).

    ``gradients=False``: f and f' analysed, the constants' gradients as they are (an
    analysis with them serves too). With ``gradients``, that analysis is made (or
    found) first and the gradients' step is added and cached on its own."""
    if dtype not in measure.DTYPES:
        raise ValueError(f"dtype must be one of {measure.DTYPES}, not {dtype!r}")
    hit = _remembered(form, dtype, gradients)
    if hit is not None:
        return hit
    key = _key(form, dtype)
    t0 = time.perf_counter()
    result: tuple[InternalForm, FormReport] | None = None
    shipped = prebuilt.table().get(key)  # the library's: analysed with the gradients
    if shipped is not None:
        try:
            result = _load(form, shipped.encode())
            result[1].seconds = time.perf_counter() - t0
        except (ValueError, KeyError, TypeError, codec.DecodeError):
            result = None
    if result is not None:
        full = True
    elif gradients and _learnable(form):
        values = lower_with_report(form, dtype, budget, gradients=False)
        if values[1].analysed:
            result = _cached(
                form,
                {"robust": key, "part": "constant gradients"},
                lambda: with_constant_gradients(form, values, dtype),
                values[1].reason != STOPPED,
            )
        else:
            result = values
        full = True
    else:
        result = _cached(
            form,
            {"robust": key},
            lambda: analyse(form, dtype, budget, gradients=False),
            None,
        )
        full = not _learnable(form)
    with _lock:
        if len(_memo) > 1024:
            _memo.clear()
            _lowered.clear()
        _memo[(key, full)] = result
        # lowering the lowered form again changes nothing (the result holds the form,
        # so its id stays its own while it is stored)
        _lowered[(id(result[0]), dtype, full)] = result
    return result


def _cached(form: InternalForm, key_parts: dict, make, keep: bool | None):
    """``make()``'s (form, report), from the disk cache under ``key_parts`` or made
    and stored there; ``keep``: whether to store it (None: when it was analysed to
    the end). A cache failure never stops a compile."""
    result = None

    def build(tmp_path) -> None:
        nonlocal result
        expiries = wall_expiries()
        result = make()
        store = keep
        if store is None:
            store = result[1].analysed and result[1].reason != STOPPED
        if wall_expiries() != expiries:
            # a step cut short by the wall clock on a busy machine (a limit at
            # infinity not found): another process may do better, so it is not kept
            store = False
        if not store:
            raise _NotStored(result)
        tmp_path.write_bytes(_store(form, *result))

    t0 = time.perf_counter()
    try:
        from symnb.backends.cache import default_cache

        path = default_cache().get_or_build(key_parts, ".json", build)
        if result is None:  # from the disk cache
            try:
                result = _load(form, path.read_bytes())
            except (ValueError, KeyError, TypeError, codec.DecodeError, OSError):
                result = make()
            result[1].seconds = time.perf_counter() - t0
    except _NotStored as exc:
        result = exc.result
    except Exception:  # noqa: BLE001 - a cache failure must not stop a compile
        if result is None:
            result = make()
    return result


def _remembered(form: InternalForm, dtype: str, gradients: bool):
    """An analysis made in this process: of ``form`` itself when it is a lowered form,
    or under its key; with ``gradients``, only one with the constants' gradients."""
    modes = (True,) if gradients else (True, False)
    with _lock:
        for full in modes:
            hit = _lowered.get((id(form), dtype, full))
            if hit is not None and hit[0] is form:
                return hit
    key = _key(form, dtype)
    with _lock:
        for full in modes:
            hit = _memo.get((key, full))
            if hit is not None:
                return hit
    return None


def lower(
    form: InternalForm,
    dtype: str,
    budget: float | None = None,
    gradients: bool = True,
) -> InternalForm:
    """The form to compile for ``dtype``: f and f' rewritten where that measurably helps
    (and the constants' gradients, unless ``gradients=False``).

    Analyses are shared by forms of the same structure and constant values, so the one
    returned carries ``form``'s own name and constant names (to_numba of swish with
    ``beta`` reported ``my_beta`` after another test's ``x*sigmoid(my_beta*x)``)."""
    lowered = lower_with_report(form, dtype, budget, gradients)[0]
    if (lowered.name, lowered.param_names) != (form.name, form.param_names):
        lowered = replace(lowered, name=form.name, param_names=form.param_names)
    return lowered


def lower_all(
    forms, dtype: str, total_budget: float | None = None, gradients: bool = True
) -> tuple[InternalForm, ...]:
    """:func:`lower` for several forms (a layer) within one total time budget.

    Forms reached after ``total_budget`` (default :data:`TOTAL_BUDGET_SECONDS`) is spent
    are compiled as they are (their analysis is not recorded, so a later compile of the
    formula on its own analyses it).
    """
    total = TOTAL_BUDGET_SECONDS if total_budget is None else total_budget
    end = cpu_clock() + total
    out = []
    for form in forms:
        left = end - cpu_clock()
        hit = _remembered(form, dtype, gradients)
        if hit is not None:
            out.append(hit[0])
        elif left <= 0:
            out.append(form)
        else:
            out.append(lower(form, dtype, min(BUDGET_SECONDS, left), gradients))
    return tuple(out)


def cached_report(form: InternalForm, dtype: str) -> FormReport | None:
    """The report of an analysis already made in this process (None: not made); the
    one with the constants' gradients where both were made."""
    hit = _remembered(form, dtype, gradients=False)
    return None if hit is None else hit[1]


def report_for(form: InternalForm, dtype: str) -> FormReport:
    """The report of :func:`lower` for this form and dtype (analysing if needed)."""
    return lower_with_report(form, dtype)[1]


def clear_memory_cache() -> None:
    """Forget in-process analyses (the disk cache is untouched)."""
    with _lock:
        _memo.clear()
        _lowered.clear()
        _problems.clear()


__all__ = [
    "BUDGET_SECONDS",
    "TOTAL_BUDGET_SECONDS",
    "analyse",
    "cached_report",
    "clear_memory_cache",
    "lower",
    "lower_all",
    "lower_with_report",
    "report_for",
    "with_constant_gradients",
]
