"""Numerical robustness: measure what kernels compute, rewrite, infer regimes (Herbie-style).

Public entry points:

``lower(form, dtype)``            the InternalForm to compile for dtype (same params)
``lower_with_report(form, dtype)`` the same and its :class:`FormReport`
``lower_all(forms, dtype)``       several forms (a layer) within one total budget
``accuracy(formula)``             an :class:`AccuracyReport` for float32 and float64
``check_accuracy(formula, dtype)`` raise :class:`AccuracyError` when the rule still fails
"""

from __future__ import annotations

from symnb.robust.engine import (
    BUDGET_SECONDS,
    analyse,
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


def accuracy(formula, dtypes=DTYPES, budget: float | None = None) -> AccuracyReport:
    """The accuracy report of an ``Activation`` or ``Loss`` (what its kernels compute)."""
    forms = [lower_with_report(formula.internal, dt, budget)[1] for dt in dtypes]
    return AccuracyReport(formula.name, forms)


def notes_for(formula, dtype: str) -> list[str]:
    """Plain-words notes of the rewrites applied for ``dtype``."""
    return list(report_for(formula.internal, dtype).notes)


def check_accuracy(formula, dtype: str) -> AccuracyReport:
    """The report, or :class:`AccuracyError` when ``dtype`` stays above the rule."""
    report = accuracy(formula, (dtype,))
    if not report.passes:
        raise AccuracyError(report, dtype)
    return report


__all__ = [
    "BUDGET_SECONDS",
    "AccuracyError",
    "AccuracyReport",
    "FormReport",
    "TargetReport",
    "accuracy",
    "analyse",
    "check_accuracy",
    "clear_memory_cache",
    "lower",
    "lower_all",
    "lower_with_report",
    "notes_for",
    "report_for",
]
