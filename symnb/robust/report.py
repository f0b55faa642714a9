"""What the analysis found, per dtype and for f and f': the report users see.

:class:`TargetReport` is one expression (f or f') in one dtype, :class:`FormReport` one form
in one dtype, :class:`AccuracyReport` the collection that ``Activation.accuracy()`` and
``Loss.accuracy()`` return (text for a terminal, an HTML table in a notebook).
:class:`AccuracyError` is raised by ``compile(..., accuracy="strict")``.
"""

from __future__ import annotations

import html
from dataclasses import asdict, dataclass, field

from symnb.errors import FormulaError


@dataclass
class TargetReport:
    """Error of one expression (``what`` = "f" or "df") in one dtype, before and after."""

    what: str
    dtype: str
    analysed: bool
    points: int = 0
    max_ulps: float = 0.0
    median_ulps: float = 0.0
    failing: int = 0
    regions: list[str] = field(default_factory=list)
    before_max_ulps: float = 0.0
    before_failing: int = 0
    rewrites: list[str] = field(default_factory=list)

    @property
    def passes(self) -> bool:
        """Whether every sample point is within the rule (after rewriting)."""
        return self.analysed and self.failing == 0

    def to_json(self) -> dict:
        """Plain data for the cache."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> TargetReport:
        """Inverse of :meth:`to_json` (unknown keys refused by the dataclass)."""
        return cls(**data)


@dataclass
class FormReport:
    """The analysis of one form in one dtype."""

    name: str
    kind: str
    dtype: str
    analysed: bool
    reason: str = ""
    seconds: float = 0.0
    cache_hit: bool = False
    targets: list[TargetReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passes(self) -> bool:
        """Whether f and f' are within the rule at every sample point."""
        return self.analysed and all(t.passes for t in self.targets)

    @property
    def rewrites(self) -> list[str]:
        """Names of the rewrites applied, f's first."""
        out: list[str] = []
        for t in self.targets:
            out += [f"{t.what}: {r}" for r in t.rewrites]
        return out

    def to_json(self) -> dict:
        """Plain data for the cache."""
        d = asdict(self)
        d["targets"] = [t.to_json() for t in self.targets]
        return d

    @classmethod
    def from_json(cls, data: dict) -> FormReport:
        """Inverse of :meth:`to_json`."""
        data = dict(data)
        data["targets"] = [TargetReport.from_json(t) for t in data.get("targets", [])]
        return cls(**data)


def _fmt_ulps(v: float) -> str:
    if v == float("inf"):
        return "inf"
    if v >= 1e6:
        return f"{v:.2e}"
    if v < 0.01:  # below a hundredth of an ulp: exact for all purposes
        return "0"
    return f"{v:.3g}"


_LABEL = {"f": "f", "df": "f'"}


@dataclass
class AccuracyReport:
    """Accuracy of a formula's kernels in float32 and float64, f and f'."""

    name: str
    forms: list[FormReport]

    @property
    def passes(self) -> bool:
        """Whether every dtype, f and f', is within the rule everywhere sampled."""
        return all(r.passes for r in self.forms)

    @property
    def analysed(self) -> bool:
        """Whether every analysis finished within its time budget."""
        return all(r.analysed for r in self.forms)

    def for_dtype(self, dtype: str) -> FormReport:
        """The report of one dtype."""
        for r in self.forms:
            if r.dtype == dtype:
                return r
        raise KeyError(
            f"no report for dtype {dtype!r}; have {[r.dtype for r in self.forms]}"
        )

    def rows(self) -> list[dict]:
        """One row per dtype and f/f' (plain data)."""
        out = []
        for r in self.forms:
            for t in r.targets:
                out.append(
                    {
                        "dtype": r.dtype,
                        "what": _LABEL.get(t.what, t.what),
                        "analysed": r.analysed,
                        "max_ulps": t.max_ulps,
                        "median_ulps": t.median_ulps,
                        "failing": t.failing,
                        "points": t.points,
                        "regions": list(t.regions),
                        "rewrites": list(t.rewrites),
                        "before_max_ulps": t.before_max_ulps,
                    }
                )
        return out

    def __str__(self) -> str:
        lines = [
            f"accuracy of {self.name!r} (rule: issue 8; errors in ulps of the dtype)"
        ]
        for r in self.forms:
            state = "analysed" if r.analysed else f"not analysed ({r.reason})"
            lines.append(f"  {r.dtype}: {state}, {r.seconds * 1000:.0f} ms")
            for t in r.targets:
                ok = (
                    "ok"
                    if t.passes
                    else f"{t.failing} of {t.points} points above the rule"
                )
                lines.append(
                    f"    {_LABEL.get(t.what, t.what):2s} max {_fmt_ulps(t.max_ulps)} ulps, "
                    f"median {_fmt_ulps(t.median_ulps)} ulps: {ok}"
                )
                for reg in t.regions:
                    lines.append(f"       where: {reg}")
                if t.rewrites:
                    lines.append(
                        f"       rewrites: {', '.join(t.rewrites)} (before: max "
                        f"{_fmt_ulps(t.before_max_ulps)} ulps, {t.before_failing} failing)"
                    )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<AccuracyReport {self.name!r}: {'passes' if self.passes else 'fails'}>"

    def _repr_html_(self) -> str:
        esc = html.escape
        head = (
            "<tr><th>dtype</th><th>fn</th><th>max ulps</th><th>median ulps</th>"
            "<th>above the rule / non-finite</th><th>rewrites</th><th>analysed</th></tr>"
        )
        body = []
        for row in self.rows():
            regions = "<br>".join(esc(r) for r in row["regions"]) or "none"
            rewrites = esc(", ".join(row["rewrites"])) or "none"
            body.append(
                "<tr>"
                f"<td>{esc(row['dtype'])}</td><td>{esc(row['what'])}</td>"
                f"<td>{esc(_fmt_ulps(row['max_ulps']))}</td>"
                f"<td>{esc(_fmt_ulps(row['median_ulps']))}</td>"
                f"<td>{regions}</td><td>{rewrites}</td>"
                f"<td>{'yes' if row['analysed'] else 'not analysed'}</td>"
                "</tr>"
            )
        return (
            f"<table class='symnb-accuracy'><caption>accuracy of {esc(self.name)}"
            f"</caption>{head}{''.join(body)}</table>"
        )


class AccuracyError(FormulaError):
    """A formula stays above the accuracy rule and ``accuracy="strict"`` was asked."""

    def __init__(self, report: AccuracyReport, dtype: str) -> None:
        self.report = report
        super().__init__(
            f"{report.name!r} is not accurate in {dtype} after rewriting:\n{report}",
            suggestion="rewrite the formula (see the regions above) or compile with "
            "the default accuracy='permissive'",
        )


__all__ = ["AccuracyError", "AccuracyReport", "FormReport", "TargetReport"]
