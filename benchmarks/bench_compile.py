"""Cold compile latency of single activations with constants: what a user waits for.

For each formula with constants (from the test corpora), in a fresh kernel cache and
with the in-process analyses cleared:

* ``compile``: ``Activation.compile`` (parse done before), the wait before the
  first plot: the accuracy analysis of f and f', code generation and g++;
* ``first gradient``: the first ``constant_gradient`` call: the analysis of the
  constants' gradients (made only now, since ENGINE 97) and, on cpp, the whole
  library's g++.

Each formula is also timed "eager": the gradients' analysis made within the compile
(``robust.lower(form, dtype)`` first), as every compile did before ENGINE 97. Modes and
backends are interleaved per formula, each timing in a fresh process and each
(backend, mode) with its own fresh cache. Run:

    .venv/bin/python benchmarks/bench_compile.py --formulas 20 --backends numpy cpp
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _entries(n: int) -> list:
    from tests.robust.corpus10 import CORPUS10
    from tests.robust.corpus11 import CORPUS11
    from tests.robust.corpus12 import CORPUS12

    entries = [e for e in (*CORPUS10, *CORPUS11, *CORPUS12) if e.constants]
    return entries[:n]


def _one(entry, backend: str, dtype: str, eager: bool) -> tuple[float, float] | None:
    """(compile seconds, first constant_gradient seconds); ``eager``: the gradients'
    analysis made within compile, as before ENGINE 97."""
    import numpy as np

    import symnb
    from symnb.robust import engine

    try:
        act = symnb.Activation(entry.text, **entry.constants)
    except Exception:  # noqa: BLE001 - a loss or a refused text: not timed
        return None
    t0 = time.perf_counter()
    if eager:
        engine.lower(act.internal, dtype)
    kernel = act.compile(backend=backend, dtype=dtype, strict=True)
    t1 = time.perf_counter()
    x = np.linspace(-4, 4, 1024, dtype=dtype)
    kernel.constant_gradient(x, np.ones_like(x))
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def _child(index: int, backend: str, dtype: str, mode: str) -> None:
    """One timing in this (fresh) process: prints JSON [compile, first gradient]."""
    entry = _entries(index + 1)[index]
    got = _one(entry, backend, dtype, mode == "eager")
    print(json.dumps(got))


def _timed(index: int, backend: str, dtype: str, mode: str, cache: str):
    env = {**os.environ, "SYMNB_CACHE_DIR": cache, "MPLBACKEND": "Agg"}
    cmd = [sys.executable, __file__, "--child", str(index), backend, dtype, mode]
    out = subprocess.run(
        cmd, check=False, env=env, capture_output=True, text=True, timeout=600
    )
    lines = out.stdout.strip().splitlines()
    return json.loads(lines[-1]) if out.returncode == 0 and lines else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--formulas", type=int, default=20)
    ap.add_argument("--backends", nargs="+", default=["numpy", "cpp"])
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        index, backend, dtype, mode = args.child
        _child(int(index), backend, dtype, mode)
        return
    modes = ("lazy", "eager")
    # one kernel cache per (backend, mode), warmed by one formula first (the C++
    # prelude's precompiled header); the formulas are distinct, so no analysis is
    # reused; every timing is a fresh process (SymPy's and mpmath's caches cold)
    dirs = {
        (b, m): tempfile.mkdtemp(prefix=f"symnb-bench-compile-{b}-{m}-")
        for b in args.backends
        for m in modes
    }
    n = len(_entries(args.formulas))
    rows = {k: [] for k in dirs}
    for (backend, mode), cache in dirs.items():
        _timed(n, backend, args.dtype, mode, cache)  # warm-up formula, not counted
    for i in range(n):  # backends and modes interleaved, the order alternating
        order = modes if i % 2 == 0 else modes[::-1]
        for backend in args.backends:
            for mode in order:
                got = _timed(i, backend, args.dtype, mode, dirs[(backend, mode)])
                if got is not None:
                    rows[(backend, mode)].append(got)
    print(f"{args.dtype}, one fresh process per timing, medians (totals)")
    print(
        "| backend | analysis of the constants' gradients | formulas | compile | "
        "first constant_gradient |"
    )
    print("|---|---|---:|---:|---:|")
    for (backend, mode), times in rows.items():
        comp = [c for c, _ in times]
        grad = [g for _, g in times]
        when = "at the first gradient" if mode == "lazy" else "within compile (before)"
        print(
            f"| {backend} | {when} | {len(times)} | "
            f"{statistics.median(comp):.2f} s ({sum(comp):.1f} s) | "
            f"{statistics.median(grad):.2f} s ({sum(grad):.1f} s) |"
        )


if __name__ == "__main__":
    main()
