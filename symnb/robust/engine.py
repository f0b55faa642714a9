"""The numerical-robustness stage: measure, rewrite, keep what improves (Herbie-style).

``lower(form, dtype)`` returns a form whose f and f' compute the same function as the
user's with fewer (usually no) points outside the accuracy rule in ``dtype``:

1. measure f and f' as the kernel computes them against mpmath (``measure``); when both
   pass (the common case) the form is returned unchanged;
2. otherwise try the exact rewrites of ``rewrite`` on the failing expression, then a
   re-derivation of f' from a rewritten f, then regime branches (``regimes``: Taylor
   polynomials at removable singularities, asymptotes where evaluation overflows);
3. a candidate is kept only when no point gets worse and fewer points fail.

The result is cached in memory and on disk (JSON, structural encoding, see ``codec``)
by expression, constants and dtype. The analysis has a time budget (``BUDGET_SECONDS``);
past it, the form is compiled as it is and the report says "not analysed".
dparams (derivatives with respect to the constants) are not rewritten.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import replace

import numpy as np
import sympy as sp

from symnb.formula.internal import InternalForm
from symnb.robust import codec, measure, regimes, rewrite
from symnb.robust.report import FormReport, TargetReport

#: Bumped when the analysis changes meaning (invalidates cached analyses).
ENGINE_VERSION = "1"

#: Seconds one analysis (one form, one dtype) may take before it gives up.
BUDGET_SECONDS = 4.0

_memo: dict[str, tuple[InternalForm, FormReport]] = {}
_problems: dict[str, tuple] = {}
_lock = threading.RLock()


class _OutOfTime(Exception):
    pass


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
    pf = measure.make_problem(form.f, form.df, *args)
    pd = measure.make_problem(form.df, _second_derivative(form.df, var), *args)
    with _lock:
        if len(_problems) > 64:
            _problems.clear()
        _problems[key] = (pf, pd)
    return pf, pd


def _no_worse(new: measure.Measurement, old: measure.Measurement) -> bool:
    """Fewer failing points and no point that passed now fails."""
    return new.n_bad < old.n_bad and not (new.bad & ~old.bad).any()


def _ok_at_factory(problem: measure.Problem, reference_expr, dtype: str):
    """ok-mask of an expression at new points of the first input (fresh references)."""
    form_inputs, params, values = problem.inputs, problem.params, problem.values

    def ok_at(expr: sp.Expr, pts: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts, dtype=np.float64)
        if dtype == "float32":
            pts = pts.astype(np.float32).astype(np.float64)
        cols = [pts] + [np.full(pts.size, float(c[0])) for c in problem.columns[1:]]
        ref, deriv = reference_expr
        p = measure.make_problem(ref, deriv, form_inputs, params, values, tuple(cols))
        m = p.measure(expr, dtype)
        return m.ok | ~m.defined

    return ok_at


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
) -> tuple[sp.Expr, list[tuple[str, str]], measure.Measurement]:
    """Greedy search: apply candidates that help until none does or the rule holds."""
    cur = expr
    cm = problem.measure(cur, dtype)
    applied: list[tuple[str, str]] = []
    if cm.passes:
        return cur, applied, cm

    def exact_candidates(e):
        for name, note, fn in rewrite.EXACT_REWRITES:
            try:
                yield name, note, fn(e, var)
            except Exception:  # noqa: BLE001 - a rewrite that fails is skipped
                continue

    for _round in range(6):
        if cm.passes:
            break
        progress = False
        pool = list(extra or []) if _round == 0 else []
        for name, note, cand in [*pool, *exact_candidates(cur)]:
            if time.perf_counter() > deadline:
                raise _OutOfTime
            if cand is None or cand == cur:
                continue
            m = problem.measure(cand, dtype)
            if _no_worse(m, cm):
                cur, cm = cand, m
                applied.append((name, note))
                progress = True
                break
        if not progress:
            break
    if not cm.passes and problem.columns and len(problem.columns) == 1:
        ok_at = _ok_at_factory(problem, reference_expr, dtype)
        for gen in (
            lambda e: regimes.taylor_candidates(
                e, var, params, values, ok_at, deadline
            ),
            lambda e: regimes.asymptotic_candidates(
                e, var, params, values, problem.x, cm.bad, ok_at, deadline
            ),
        ):
            if cm.passes:
                break
            if time.perf_counter() > deadline:
                raise _OutOfTime
            for name, note, cand in gen(cur):
                m = problem.measure(cand, dtype)
                if _no_worse(m, cm):
                    cur, cm = cand, m
                    applied.append((name, note))
    return cur, applied, cm


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


def analyse(
    form: InternalForm, dtype: str, budget: float | None = None
) -> tuple[InternalForm, FormReport]:
    """Measure and rewrite one form for one dtype (no caching; see :func:`lower`)."""
    t0 = time.perf_counter()
    deadline = t0 + (BUDGET_SECONDS if budget is None else budget)
    var = form.inputs[0]
    try:
        pf, pd = _problems_for(form)
        if time.perf_counter() > deadline:
            raise _OutOfTime
        pv = (form.params, form.param_values)
        f_new, f_applied, f_m = _improve(
            form.f, pf, var, dtype, deadline, (form.f, form.df), *pv
        )
        extra = []
        if f_applied:
            d = _rederived(f_new, var)
            if d is not None:
                extra.append(
                    (
                        "rederived",
                        "the derivative is taken again from the rewritten function",
                        d,
                    )
                )
        d2 = _second_derivative(form.df, var)
        df_new, d_applied, d_m = _improve(
            form.df, pd, var, dtype, deadline, (form.df, d2), *pv, extra=extra
        )
    except _OutOfTime:
        report = FormReport(
            form.name,
            form.kind,
            dtype,
            analysed=False,
            reason=f"not analysed: time budget of {deadline - t0:.3g} s exceeded",
            seconds=time.perf_counter() - t0,
            targets=[TargetReport("f", dtype, False), TargetReport("df", dtype, False)],
        )
        return form, report
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
    }
    return json.dumps(data).encode()


def _load(form: InternalForm, raw: bytes) -> tuple[InternalForm, FormReport]:
    data = json.loads(raw.decode())
    if not isinstance(data, dict) or data.get("engine") != ENGINE_VERSION:
        raise codec.DecodeError("other engine version")
    syms = _symbols(form)
    f = form.f if data.get("f") is None else codec.decode(data["f"], syms)
    df = form.df if data.get("df") is None else codec.decode(data["df"], syms)
    report = FormReport.from_json(data["report"])
    report.cache_hit = True
    new = form if (f is form.f and df is form.df) else replace(form, f=f, df=df)
    return new, report


class _NotStored(Exception):
    def __init__(self, result) -> None:
        self.result = result


def lower_with_report(
    form: InternalForm, dtype: str, budget: float | None = None
) -> tuple[InternalForm, FormReport]:
    """:func:`lower` and its report (memoised in process and on disk)."""
    if dtype not in measure.DTYPES:
        raise ValueError(f"dtype must be one of {measure.DTYPES}, not {dtype!r}")
    key = _key(form, dtype)
    with _lock:
        hit = _memo.get(key)
    if hit is not None:
        return hit
    t0 = time.perf_counter()
    result: tuple[InternalForm, FormReport] | None = None
    try:
        from symnb.backends.cache import default_cache

        cache = default_cache()

        def build(tmp_path) -> None:
            nonlocal result
            result = analyse(form, dtype, budget)
            if not result[1].analysed:
                raise _NotStored(result)
            tmp_path.write_bytes(_store(form, *result))

        path = cache.get_or_build({"robust": key}, ".json", build)
        if result is None:  # from the disk cache
            try:
                result = _load(form, path.read_bytes())
            except (ValueError, KeyError, TypeError, codec.DecodeError, OSError):
                result = analyse(form, dtype, budget)
            result[1].seconds = time.perf_counter() - t0
    except _NotStored as exc:
        result = exc.result
    except Exception:  # noqa: BLE001 - a cache failure must not stop a compile
        if result is None:
            result = analyse(form, dtype, budget)
    with _lock:
        if len(_memo) > 1024:
            _memo.clear()
        _memo[key] = result
    return result


def lower(form: InternalForm, dtype: str, budget: float | None = None) -> InternalForm:
    """The form to compile for ``dtype``: f and f' rewritten where that measurably helps."""
    return lower_with_report(form, dtype, budget)[0]


def report_for(form: InternalForm, dtype: str) -> FormReport:
    """The report of :func:`lower` for this form and dtype (analysing if needed)."""
    return lower_with_report(form, dtype)[1]


def clear_memory_cache() -> None:
    """Forget in-process analyses (the disk cache is untouched)."""
    with _lock:
        _memo.clear()
        _problems.clear()


__all__ = [
    "BUDGET_SECONDS",
    "analyse",
    "clear_memory_cache",
    "lower",
    "lower_with_report",
    "report_for",
]
