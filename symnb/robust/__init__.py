"""Numerical robustness: measure what kernels compute, rewrite, infer regimes (Herbie-style).

Public entry points:

``lower(form, dtype)``            the InternalForm to compile for dtype (same params)
``lower_with_report(form, dtype)`` the same and its :class:`FormReport`
``lower_all(forms, dtype)``       several forms (a layer) within one total budget
``accuracy(formula)``             an :class:`AccuracyReport` for float32 and float64
``check_accuracy(formula, dtype)`` raise :class:`AccuracyError` when the rule still fails
"""

from __future__ import annotations

import numpy as np

from symnb.robust.engine import (
    BUDGET_SECONDS,
    analyse,
    cached_report,
    clear_memory_cache,
    lower,
    lower_all,
    lower_with_report,
    report_for,
)
from symnb.robust.report import (
    AccuracyError,
    AccuracyReport,
    FormReport,
    TargetReport,
)

DTYPES = ("float32", "float64")
ACCURACY_MODES = ("permissive", "strict")


def _dtype_name(dtype) -> str | None:
    try:
        name = np.dtype(dtype).name
    except TypeError:
        return None
    return name if name in DTYPES else None


def _add_notes(formula, reports) -> None:
    """Append the rewrites' plain-words notes to ``formula.notes`` (once each)."""
    notes = getattr(formula, "notes", None)
    if not isinstance(notes, list):
        return
    for r in reports:
        if r is None:
            continue
        for n in r.notes:
            if n not in notes:
                notes.append(n)


def accuracy(formula, dtypes=DTYPES, budget: float | None = None) -> AccuracyReport:
    """The accuracy report of an ``Activation`` or ``Loss`` (what its kernels compute).

    Analyses (or reuses the cached analysis of) each dtype; the rewrites' notes are added
    to ``formula.notes``.
    """
    if isinstance(dtypes, (str, np.dtype, type)):
        dtypes = (dtypes,)
    if not isinstance(dtypes, (tuple, list)) or not dtypes:
        # None or 5 raised "object is not iterable"; () reported a vacuous "passes"
        raise TypeError(
            "dtypes must be 'float32', 'float64' or a non-empty list of them, e.g. "
            f"dtypes=('float32', 'float64'); got {dtypes!r:.60}"
        )
    names = []
    for dt in dtypes:
        name = _dtype_name(dt)
        if name is None:
            raise ValueError(
                f"dtype={dt!r} is not supported; use 'float32' or 'float64'"
            )
        names.append(name)
    forms = [lower_with_report(formula.internal, dt, budget)[1] for dt in names]
    _add_notes(formula, forms)
    return AccuracyReport(formula.name, forms)


def notes_for(formula, dtype: str) -> list[str]:
    """Plain-words notes of the rewrites applied for ``dtype``."""
    return list(report_for(formula.internal, dtype).notes)


def check_accuracy(formula, dtype: str) -> AccuracyReport:
    """The report, or :class:`AccuracyError` when ``dtype`` stays above the rule.

    A formula whose analysis did not finish in its budget is refused too (its accuracy
    is unknown).
    """
    report = accuracy(formula, (dtype,))
    if not report.passes:
        raise AccuracyError(report, _dtype_name(dtype) or str(dtype))
    return report


def before_compile(formula, dtype, accuracy: str = "permissive") -> None:
    """The ``accuracy=`` option of ``compile``: "permissive" (default) or "strict"."""
    if accuracy not in ACCURACY_MODES:
        raise ValueError(
            f"accuracy={accuracy!r} is not an option; use 'permissive' (compile "
            "whatever the error) or 'strict' (refuse a formula above the rule)"
        )
    if accuracy == "strict" and _dtype_name(dtype) is not None:
        check_accuracy(formula, dtype)


def after_compile(formula, dtype) -> None:
    """Add the notes of the analysis the compile used (from memory or the disk cache)."""
    name = _dtype_name(dtype)
    if name is not None:
        report = cached_report(formula.internal, name)
        if report is None:  # the Program came from the in-process cache
            report = lower_with_report(formula.internal, name)[1]
        _add_notes(formula, [report])


__all__ = [
    "BUDGET_SECONDS",
    "AccuracyError",
    "AccuracyReport",
    "FormReport",
    "TargetReport",
    "accuracy",
    "after_compile",
    "analyse",
    "before_compile",
    "cached_report",
    "check_accuracy",
    "clear_memory_cache",
    "lower",
    "lower_all",
    "lower_with_report",
    "notes_for",
    "report_for",
]
