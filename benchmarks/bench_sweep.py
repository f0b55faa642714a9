"""Runs per second of a 120-run sweep: serial ``compare`` against a local Dask cluster.

The sweep: two_moons (200 points), a 2-16-16-1 network, 40 epochs (minibatch 32, Adam),
4 activations (relu, tanh, gelu, x*sigmoid(x)) x 30 seeds = 120 runs, through
``symnb.nn.compare`` with ``client=None`` (one process) and with a
``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)`` already started and
warmed up (each worker has imported symnb and loaded the kernels once: the figures are
the steady state of a long sweep, cluster start-up is printed apart). No store.

Rows: the default backend (``auto``: cpp with the fused training step, a run takes
milliseconds) and ``numpy`` (NumPy kernels, a run takes a few times longer), each in a
fresh process with its own cluster. Repeats are interleaved (serial, cluster, serial,
...) and the medians reported:

* runs/s serial and on the cluster, and their ratio (the speed-up);
* Dask overhead per run = (workers x cluster wall time - serial wall time) / runs, the
  worker-time each run costs beyond its serial cost (scheduling, transfer of the formula
  text and of the result with its learning curves, the rebuilt formula per worker);
* round trip per task of an empty task (``client.submit`` of a no-op, 120 at once).

Usage::

    .venv/bin/python benchmarks/bench_sweep.py             # 3 repeats (about a minute)
    .venv/bin/python benchmarks/bench_sweep.py --repeats 5 --workers 2
    .venv/bin/python benchmarks/bench_sweep.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ACTIVATIONS = ["relu", "tanh", "gelu", "x*sigmoid(x)"]
SEEDS = range(30)
OPTIONS = {"hidden": (16, 16), "epochs": 40, "batch_size": 32, "lr": 0.01}


def _noop(i: int) -> int:
    return i


def _sweep(client, backend: str) -> float:
    from symnb import nn

    start = time.perf_counter()
    result = nn.compare(
        ACTIVATIONS,
        "two_moons",
        seeds=SEEDS,
        backend=backend,
        client=client,
        progress=False,
        **OPTIONS,
    )
    elapsed = time.perf_counter() - start
    assert len(result.runs) == len(ACTIVATIONS) * len(SEEDS)
    return elapsed


def _round_trip(client, n: int = 120) -> float:
    start = time.perf_counter()
    futures = [client.submit(_noop, i, pure=False) for i in range(n)]
    client.gather(futures)
    return (time.perf_counter() - start) / n


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--backends", default="auto,numpy")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    runs = len(ACTIVATIONS) * len(SEEDS)
    if len(backends) > 1:
        # one fresh process (and cluster) per backend: numpy-backend training was
        # measured 1.5x slower in a process that had loaded the cpp kernels before
        rows, started = [], 0.0
        for backend in backends:
            with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
                command = [sys.executable, __file__, "--backends", backend]
                command += ["--repeats", str(args.repeats), "--workers"]
                command += [str(args.workers), "--json", tmp.name]
                subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
                with open(tmp.name) as fh:
                    part = json.load(fh)
            rows += part["rows"]
            started = max(started, part["startup_s"])
        _report(rows, args, runs, started)
        return 0

    from dask.distributed import Client, LocalCluster

    start = time.perf_counter()
    cluster = LocalCluster(
        n_workers=args.workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
    )
    client = Client(cluster)
    started = time.perf_counter() - start
    try:
        for backend in backends:  # warm-up: imports, kernels, disk cache
            _sweep(None, backend)
            _sweep(client, backend)
        rows = []
        for backend in backends:
            serial, spread, trips = [], [], []
            for _ in range(args.repeats):
                serial.append(_sweep(None, backend))
                spread.append(_sweep(client, backend))
                trips.append(_round_trip(client))
            s, d = statistics.median(serial), statistics.median(spread)
            rows.append(
                {
                    "backend": backend,
                    "runs": runs,
                    "serial_runs_per_s": runs / s,
                    "cluster_runs_per_s": runs / d,
                    "speedup": s / d,
                    "overhead_ms_per_run": 1e3 * (args.workers * d - s) / runs,
                    "noop_round_trip_ms": 1e3 * statistics.median(trips),
                    "serial_s": serial,
                    "cluster_s": spread,
                }
            )
    finally:
        client.close()
        cluster.close()

    _report(rows, args, runs, started)
    return 0


def _report(rows: list[dict], args, runs: int, started: float) -> None:
    print(
        f"{runs}-run sweep (two_moons, 2-16-16-1, 40 epochs), {args.workers} workers, "
        f"median of {args.repeats} interleaved repeats; cluster start-up {started:.1f} s"
    )
    print(
        f"machine: {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    head = (
        "| backend | serial runs/s | cluster runs/s | speed-up | Dask overhead "
        "per run | no-op task round trip |"
    )
    print(head)
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['backend']} | {r['serial_runs_per_s']:.1f} | "
            f"{r['cluster_runs_per_s']:.1f} | {r['speedup']:.2f}x | "
            f"{r['overhead_ms_per_run']:.1f} ms | {r['noop_round_trip_ms']:.2f} ms |"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"startup_s": started, "rows": rows}, fh, indent=2)


if __name__ == "__main__":  # the guard matters: Dask workers are spawned processes
    raise SystemExit(main())
