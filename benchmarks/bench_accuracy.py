"""Accuracy of symnb's kernels (and PyTorch's) against mpmath, and the analysis time.

    .venv/bin/python benchmarks/bench_accuracy.py                    # library + corpus
    .venv/bin/python benchmarks/bench_accuracy.py --failures /tmp/corpus_failures.md

For every library activation and every formula of the independent corpus
(``tests/robust/corpus.py``): max error in ulps of f and f' in float32 and float64, for
symnb's numpy and cpp backends and, in float32, for PyTorch where it has the function (f' by
autograd). References are SymPy + mpmath of the original text (``tests/robust/corpus_reference``,
no symnb code), at the test suite's sample points (the whole float range, kinks, removable
singularities); f' is not measured where the reference is unsettled (exact kinks). The
corpus is also checked against issue 8's rule on every backend and dtype.

Analysis time: ``Activation.accuracy()`` (float32 and float64) per formula, cold (empty
temporary cache directory, in-memory cache cleared) and cached (disk cache, memory cleared).
Prints markdown tables.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# a fresh cache directory: cold analyses and compiles are really cold
os.environ["SYMNB_CACHE_DIR"] = tempfile.mkdtemp(prefix="symnb-bench-accuracy-")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import symnb
from tests.robust import corpus_reference as R
from tests.robust import library_reference as LR
from tests.robust.corpus import ALL, Published

DTYPES = ("float32", "float64")
BACKENDS = ("numpy", "cpp")


def library_entries() -> list[Published]:
    """Library activations as reference entries (PyTorch's documented definitions,
    ``tests/robust/library_reference.py``)."""
    return [LR.entry(name) for name in symnb.library_activations()]


def _ulp_max(got, ref, dtype, mask) -> float:
    u = R.ulps(got, ref, dtype)[mask]
    return float(np.max(u)) if u.size else 0.0


def _worst(xs, got, ref, dtype, mask) -> str:
    """'x=..: got .., ref .. (.. ulps)' at the point of the largest error."""
    u = np.where(mask, R.ulps(got, ref, dtype), -1.0)
    if not mask.any():
        return "-"
    i = int(np.argmax(u))
    return (
        f"x={float(xs[i]):.9g}: got {float(got[i]):.9g}, ref {float(ref[i]):.9g} "
        f"({u[i]:.3g} ulps)"
    )


def measure(entry: Published, ref_by_dtype, torch_fns, act=None) -> dict:
    """Max ulps and rule violations per dtype/backend for one entry.

    ``act``: the object to measure (default: the entry's text as a user types it; for
    the library, ``symnb.activation(name)``, which keeps the library's derivative text).
    """
    if act is None:
        act = symnb.Activation(entry.text, name=entry.name, **entry.constants)
    row: dict = {"name": entry.name, "violations": []}
    for dt in DTYPES:
        xs, check_df, ref = ref_by_dtype[dt]
        mf, mdf = ref.settled_f, ref.settled_df & check_df
        for be in BACKENDS:
            k = act.compile(backend=be, dtype=dt)
            with np.errstate(all="ignore"):
                y, dy = k.forward_with_derivative(xs)
            row[(dt, be, "f")] = _ulp_max(y, ref.f, dt, mf)
            row[(dt, be, "df")] = _ulp_max(dy, ref.df, dt, mdf)
            row["worst", dt, be, "f"] = _worst(xs, y, ref.f, dt, mf)
            row["worst", dt, be, "df"] = _worst(xs, dy, ref.df, dt, mdf)
            bad_f = R.violations(y, ref.f, ref.scale_f, dt) & mf
            bad_df = R.violations(dy, ref.df, ref.scale_df, dt) & mdf
            for what, bad, got, r in (
                ("f", bad_f, y, ref.f),
                ("f'", bad_df, dy, ref.df),
            ):
                if bad.any():
                    pts = ", ".join(
                        f"x={x:.9g}: got {g:.9g}, ref {rv:.9g}"
                        for x, g, rv in zip(
                            xs[bad][:3].astype(float),
                            np.asarray(got, float)[bad][:3],
                            r[bad][:3],
                        )
                    )
                    row["violations"].append(
                        f"{be} {dt} {what}: {int(bad.sum())} points ({pts})"
                    )
        if dt == "float32" and entry.name in torch_fns:
            with np.errstate(all="ignore"):
                y, dy = LR.torch_eval(torch_fns[entry.name], xs)
            row[(dt, "torch", "f")] = _ulp_max(y, ref.f, dt, mf)
            row[(dt, "torch", "df")] = _ulp_max(dy, ref.df, dt, mdf)
            row["worst", dt, "torch", "f"] = _worst(xs, y, ref.f, dt, mf)
            row["worst", dt, "torch", "df"] = _worst(xs, dy, ref.df, dt, mdf)
    return row


def analysis_times(entry: Published, lib: bool = False) -> tuple[float, float]:
    """Seconds of accuracy() cold (empty cache dir, memory cleared) and disk-cached."""
    from symnb import robust

    old = os.environ["SYMNB_CACHE_DIR"]
    os.environ["SYMNB_CACHE_DIR"] = tempfile.mkdtemp(prefix="symnb-bench-cold-")
    try:
        if lib:
            act = symnb.activation(entry.name)
        else:
            act = symnb.Activation(entry.text, name=entry.name, **entry.constants)
        robust.clear_memory_cache()
        t0 = time.perf_counter()
        act.accuracy()
        cold = time.perf_counter() - t0
        robust.clear_memory_cache()
        t0 = time.perf_counter()
        act.accuracy()
        cached = time.perf_counter() - t0
    finally:
        os.environ["SYMNB_CACHE_DIR"] = old
    return cold, cached


def _fmt(v) -> str:
    if v is None:
        return "–"
    if v == float("inf"):
        return "inf"
    if v >= 1e5:
        return f"{v:.1e}"
    return f"{v:.3g}"


def table(rows: list[dict], with_torch: bool) -> str:
    head = ["name"]
    cols = []
    for dt in DTYPES:
        for what in ("f", "df"):
            bes = BACKENDS + (("torch",) if with_torch and dt == "float32" else ())
            for be in bes:
                cols.append((dt, be, what))
                label = "f'" if what == "df" else "f"
                head.append(f"{dt[5:]} {label} {be}")
    head += ["rule", "analysis cold / cached"]
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    for r in rows:
        cells = [r["name"]] + [_fmt(r.get(c)) for c in cols]
        cells.append(
            "pass" if not r["violations"] else f"**{len(r['violations'])} fail**"
        )
        t = r.get("times")
        cells.append(f"{t[0]:.2f} s / {t[1] * 1e3:.0f} ms" if t else "–")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--names", nargs="*", help="only these library/corpus names")
    ap.add_argument("--no-corpus", action="store_true", help="the library only")
    ap.add_argument("--no-library", action="store_true")
    ap.add_argument("--no-times", action="store_true", help="skip the analysis timing")
    ap.add_argument("--failures", help="write the corpus rule failures (markdown) here")
    ap.add_argument(
        "--worst",
        action="store_true",
        help="also print where each float32 max error sits (x, computed, reference)",
    )
    args = ap.parse_args(argv)
    try:
        torch_fns = LR.torch_functions()
    except ImportError:
        print("PyTorch not installed (pip install symnb[bench]): no torch column")
        torch_fns = {}

    groups = []
    if not args.no_library:
        groups.append(("library", library_entries()))
    if not args.no_corpus:
        groups.append(("corpus", list(ALL)))
    results = {}
    for label, entries in groups:
        rows = []
        for e in entries:
            if args.names and e.name not in args.names:
                continue
            lib = label == "library"
            refs = LR.reference(e.name) if lib else R.corpus_reference(e.name)
            try:
                row = measure(
                    e,
                    refs,
                    torch_fns if lib or e.name in torch_fns else {},
                    symnb.activation(e.name) if lib else None,
                )
            except Exception as exc:  # noqa: BLE001 - a benchmark reports, never stops
                row = {"name": e.name, "violations": [f"error: {exc!r}"[:300]]}
            if not args.no_times:
                try:
                    row["times"] = analysis_times(e, lib)
                except Exception as exc:  # noqa: BLE001
                    row["violations"].append(f"accuracy() failed: {exc!r}"[:300])
            rows.append(row)
            print(
                f"  {label} {e.name}: {len(row['violations'])} rule failures",
                file=sys.stderr,
                flush=True,
            )
        results[label] = rows
        print(f"\n### {label}\n")
        print(table(rows, with_torch=bool(torch_fns)))
        if args.worst:
            print(f"\n{label}: where the float32 max errors are\n")
            for r in rows:
                for key in sorted(
                    k for k in r if isinstance(k, tuple) and k[0] == "worst"
                ):
                    if key[1] == "float32":
                        print(f"- {r['name']} {key[2]} {key[3]}: {r[key]}")

    for label, rows in results.items():
        times = [r["times"] for r in rows if r.get("times")]
        if times:
            cold = [t[0] for t in times]
            cached = [t[1] for t in times]
            print(
                f"\n{label}: analysis (accuracy(), float32 + float64) cold median "
                f"{statistics.median(cold):.2f} s (max {max(cold):.2f} s), cached median "
                f"{statistics.median(cached) * 1e3:.1f} ms (max {max(cached) * 1e3:.1f} ms)"
                f" over {len(times)} formulas"
            )
        failing = [r for r in rows if r["violations"]]
        print(
            f"{label}: {len(rows) - len(failing)} of {len(rows)} pass the rule on "
            f"numpy and cpp, float32 and float64"
        )
        if label == "library" and torch_fns:
            worse = [
                r["name"]
                for r in rows
                if (("float32", "torch", "f") in r)
                and any(
                    r.get(("float32", be, w), 0) > r[("float32", "torch", w)]
                    for be in BACKENDS
                    for w in ("f", "df")
                )
            ]
            print(f"library float32 max ulps above PyTorch's: {worse or 'none'}")
    if args.failures and "corpus" in results:
        write_failures(Path(args.failures), results["corpus"])
    return 0


def write_failures(path: Path, rows: list[dict]) -> None:
    """The corpus entries that break the rule, with their failing points."""
    failing = [r for r in rows if r["violations"]]
    lines = [
        "# Corpus failures (issue 8 rule), written by benchmarks/bench_accuracy.py",
        "",
        (
            f"{len(rows) - len(failing)} of {len(rows)} corpus formulas pass on numpy and "
            "cpp, float32 and float64."
        ),
        "Reproduce one: `.venv/bin/python -m pytest tests/robust/test_corpus.py -k NAME`.",
        "",
    ]
    by_name = {e.name: e for e in ALL}
    for r in failing:
        e = by_name[r["name"]]
        lines.append(f"## {e.name}: `{e.text}` {e.constants or ''} ({e.source})")
        lines += [f"- {v}" for v in r["violations"]]
        lines.append("")
    path.write_text("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
