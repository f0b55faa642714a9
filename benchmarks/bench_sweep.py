"""Runs per second of a 120-run sweep: serial ``compare`` against a local Dask cluster.

The sweep: two_moons (200 points), a 2-16-16-1 network, 40 epochs (minibatch 32, Adam),
4 activations (relu, tanh, gelu, x*sigmoid(x)) x 30 seeds = 120 runs, through
``symnb.nn.compare`` with ``client=None`` (one process) and with a
``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)`` already started and
warmed up (each worker has imported symnb and loaded the kernels once: the figures are
the steady state of a long sweep, cluster start-up is printed apart). No store.

Rows: the default backend (``auto``: cpp with the fused training step, a run takes
milliseconds) and ``numpy`` (NumPy kernels, a run takes a few times longer), each in a
fresh process with its own cluster; the clusters: ``dask`` (the ``LocalCluster`` above,
Dask's settings) and ``symnb`` (the one ``client="local"`` starts,
``symnb.nn.sweep.local_cluster``: the same, Dask's monitors sampling less often), with
one run per task, four (``compare(runs_per_task=4)``) and ``auto`` (compare's default:
about 6 tasks per worker, 10 runs per task here), each kind in its own process.
Repeats are interleaved (serial, cluster with each runs-per-task setting, serial, ...)
and the medians reported:

* cluster start-up (``LocalCluster`` + ``Client``) and warm-up (the first cluster
  sweep's wall time beyond a steady one: worker imports, kernels loaded), apart;

* runs/s serial and on the cluster, and their ratio (the speed-up);
* CPU time per run (user + system, every thread of this process, which holds the
  scheduler, the client and the nannies, and of the worker processes): serially, and
  on the cluster split into the workers and this process. Dask's CPU per run = cluster
  CPU - serial CPU, per run; "per task": less the CPU the idle cluster spends in the
  same wall time (heartbeats, monitors; measured for 3 s before the repeats), which a
  loaded machine stretches. CPU time is what load changes least;
* Dask overhead per run from wall times = (workers x cluster wall time - serial wall
  time) / runs, the worker time each run costs beyond its serial cost;
* round trip per task of an empty task (``client.submit`` of a no-op, 120 at once);
* the ceiling: as many plain processes as workers (no Dask), warmed up, splitting the
  seeds and running at once; their speed-up over the serial sweep is what this machine
  gives two independent processes, and the cluster's speed-up is also quoted as a
  share of it.

Usage::

    .venv/bin/python benchmarks/bench_sweep.py --repeats 3   # the README table, ~2 min
    .venv/bin/python benchmarks/bench_sweep.py --repeats 5 --workers 2
    .venv/bin/python benchmarks/bench_sweep.py --variants "symnb:1,2,auto" --json out.json
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


def _cpu(procs) -> float:
    """User + system seconds of these processes (all their threads) so far."""
    total = 0.0
    for p in procs:
        t = p.cpu_times()
        total += t.user + t.system
    return total


def _per_task(text: str) -> int | None:
    """A ``--variants`` runs-per-task entry: a count, or ``auto`` (None: compare's
    default, about 6 tasks per worker)."""
    return None if text.strip() == "auto" else int(text)


def _sweep(client, backend: str, per_task, procs) -> tuple[float, list[float]]:
    """Wall seconds of one sweep and the CPU seconds each of ``procs`` spent in it,
    then the CPU seconds of this thread (the whole of a serial sweep's work)."""
    from symnb import nn

    extra = {} if per_task is None else {"runs_per_task": per_task}
    cpu0 = [_cpu([p]) for p in procs]
    thread0 = time.thread_time()
    start = time.perf_counter()
    result = nn.compare(
        ACTIVATIONS,
        "two_moons",
        seeds=SEEDS,
        backend=backend,
        client=client,
        progress=False,
        **OPTIONS,
        **extra,
    )
    elapsed = time.perf_counter() - start
    cpu = [_cpu([p]) - c for p, c in zip(procs, cpu0)]
    cpu.append(time.thread_time() - thread0)
    assert len(result.runs) == len(ACTIVATIONS) * len(SEEDS)
    assert all(r["status"] == "ok" for r in result.runs)
    return elapsed, cpu


def _plain_worker(conn, backend: str) -> None:
    """A plain process (no Dask) that runs the seeds it is sent, serially, and answers
    with its wall seconds: the pair of them gives the machine's own scaling."""
    from symnb import nn

    while True:
        seeds = conn.recv()
        if seeds is None:
            return
        start = time.perf_counter()
        nn.compare(ACTIVATIONS, "two_moons", seeds=seeds, backend=backend,
                   progress=False, **OPTIONS)
        conn.send(time.perf_counter() - start)


class _PlainProcesses:
    """``workers`` warmed-up plain processes splitting the sweep's seeds between them:
    the speed-up of independent processes, with no scheduler, messages or pickling,
    is the ceiling this machine allows a cluster (two busy cores may each run slower
    than one busy core: shared caches, memory bandwidth, the host's clock)."""

    def __init__(self, workers: int, backend: str):
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.pipes, self.procs = [], []
        for _ in range(workers):
            here, there = ctx.Pipe()
            proc = ctx.Process(target=_plain_worker, args=(there, backend), daemon=True)
            proc.start()
            self.pipes.append(here)
            self.procs.append(proc)
        self.run()  # warm-up: imports, kernels

    def run(self) -> float:
        seeds = list(SEEDS)
        parts = [seeds[i :: len(self.pipes)] for i in range(len(self.pipes))]
        start = time.perf_counter()
        for pipe, part in zip(self.pipes, parts):
            pipe.send(part)
        for pipe in self.pipes:
            pipe.recv()
        return time.perf_counter() - start

    def close(self) -> None:
        for pipe, proc in zip(self.pipes, self.procs):
            pipe.send(None)
            proc.join(timeout=30)


def _idle_cpu(procs, seconds: float = 3.0) -> float:
    """CPU seconds per second the cluster spends with nothing to do (all processes;
    this one holds the scheduler and the nannies)."""
    before = _cpu(procs)
    time.sleep(seconds)
    return (_cpu(procs) - before) / seconds


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
    parser.add_argument(
        "--variants",
        default="dask:1,auto;symnb:1,4,auto",
        help="clusters and their runs per Dask task ('auto' = the default of "
        "compare, about 6 tasks per worker; 1 = one task per run): "
        "'dask' = LocalCluster with Dask's settings, 'symnb' = the cluster that "
        "client='local' starts (symnb.nn.sweep.local_cluster)",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    variants = [v.strip() for v in args.variants.split(";") if v.strip()]
    runs = len(ACTIVATIONS) * len(SEEDS)
    if len(backends) > 1 or len(variants) > 1:
        # one fresh process (and cluster) per backend: numpy-backend training was
        # measured 1.5x slower in a process that had loaded the cpp kernels before;
        # and per cluster kind, so that no idle cluster runs beside the measured one
        rows, started, warm = [], 0.0, {}
        for backend in backends:
            for variant in variants:
                with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
                    command = [sys.executable, __file__, "--backends", backend]
                    command += ["--repeats", str(args.repeats), "--workers"]
                    command += [str(args.workers), "--json", tmp.name]
                    command += ["--variants", variant]
                    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
                    with open(tmp.name) as fh:
                        part = json.load(fh)
                rows += part["rows"]
                started = max(started, part["startup_s"])
                warm.update(part["warmup_s"])
        _report(rows, args, runs, started, warm)
        return 0

    import psutil
    from dask.distributed import Client, LocalCluster

    kind, _, per_task_text = variants[0].partition(":")
    per_task = [_per_task(k) for k in (per_task_text or "1").split(",")]
    start = time.perf_counter()
    if kind == "symnb":
        from symnb.nn.sweep import local_cluster

        cluster = local_cluster(args.workers)
    elif kind == "dask":
        cluster = LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
    else:
        raise SystemExit(f"--variants: unknown cluster {kind!r} (dask or symnb)")
    client = Client(cluster)
    started = time.perf_counter() - start
    # this process (scheduler, client, nannies), then the worker processes
    procs = [psutil.Process()]
    procs += [psutil.Process(pid) for pid in client.run(os.getpid).values()]
    try:
        # warm-up: imports, kernels, disk cache; the first cluster sweep's wall time
        # beyond a steady one (below) is the workers' warm-up
        first: dict[str, float] = {}
        for backend in backends:
            _sweep(None, backend, 1, procs)
            for i, k in enumerate(per_task):
                wall, _ = _sweep(client, backend, k, procs)
                if i == 0:
                    first[backend] = wall
        idle = _idle_cpu(procs)
        rows = []
        for backend in backends:
            serial, spread, trips, plain = [], {k: [] for k in per_task}, [], []
            pair = _PlainProcesses(args.workers, backend)
            try:
                for _ in range(args.repeats):
                    serial.append(_sweep(None, backend, 1, procs))
                    for k in per_task:
                        spread[k].append(_sweep(client, backend, k, procs))
                    plain.append(pair.run())
                    trips.append(_round_trip(client))
            finally:
                pair.close()
            s = statistics.median(w for w, _ in serial)
            # this thread only: the idle cluster's own CPU is no part of a serial sweep
            s_cpu = statistics.median(c[-1] for _, c in serial)
            row = {
                "backend": backend,
                "cluster": kind,
                "runs": runs,
                "serial_runs_per_s": runs / s,
                "serial_cpu_ms_per_run": 1e3 * s_cpu / runs,
                "noop_round_trip_ms": 1e3 * statistics.median(trips),
                "idle_cluster_cpu_ms_per_s": 1e3 * idle,
                "serial_s": [w for w, _ in serial],
                "plain_processes_s": plain,
                "plain_speedup": s / statistics.median(plain),
                "variants": {},
            }
            for k in per_task:
                d = statistics.median(w for w, _ in spread[k])
                # cluster CPU beyond the serial CPU and beyond what the cluster
                # spends idle in that wall time (heartbeats, monitors: load makes
                # the wall time, and so that part, longer)
                per_task_cpu = statistics.median(
                    sum(c[:-1]) - idle * w for w, c in spread[k]
                )
                main = statistics.median(c[0] for _, c in spread[k])
                workers = statistics.median(sum(c[1:-1]) for _, c in spread[k])
                row["variants"]["auto" if k is None else str(k)] = {
                    "runs_per_s": runs / d,
                    "speedup": s / d,
                    "overhead_ms_per_run": 1e3 * (args.workers * d - s) / runs,
                    "worker_cpu_ms_per_run": 1e3 * workers / runs,
                    "main_cpu_ms_per_run": 1e3 * main / runs,
                    "dask_cpu_ms_per_run": 1e3 * (main + workers - s_cpu) / runs,
                    "dask_task_cpu_ms_per_run": 1e3 * (per_task_cpu - s_cpu) / runs,
                    "cluster_s": [w for w, _ in spread[k]],
                }
            steady = statistics.median(w for w, _ in spread[per_task[0]])
            row["warmup_s"] = first[backend] - steady
            rows.append(row)
    finally:
        client.close()
        cluster.close()

    warm = {f"{r['backend']}/{kind}": r["warmup_s"] for r in rows}
    _report(rows, args, runs, started, warm)
    return 0


def _report(
    rows: list[dict], args, runs: int, started: float, warm: dict[str, float]
) -> None:
    print(
        f"{runs}-run sweep (two_moons, 2-16-16-1, 40 epochs), {args.workers} workers, "
        f"median of {args.repeats} interleaved repeats; cluster start-up {started:.1f} s"
    )
    print(
        "warm-up (first cluster sweep beyond a steady one: worker imports, kernel "
        "loads): " + ", ".join(f"{k} {v:.2f} s" for k, v in warm.items())
    )
    print(
        f"machine: {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    print(
        "| backend | cluster | runs per task | serial runs/s | cluster runs/s | "
        "speed-up | CPU per run: serial | cluster: workers + scheduler/client | "
        "Dask CPU per run: all, per task | Dask overhead per run (wall) | "
        "no-op task round trip | plain processes (ceiling) | share of ceiling |"
    )
    print(
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: | ---: |"
    )
    for r in rows:
        for k, c in r["variants"].items():
            cells = [
                r["backend"],
                r["cluster"],
                k,
                f"{r['serial_runs_per_s']:.1f}",
                f"{c['runs_per_s']:.1f}",
                f"**{c['speedup']:.2f}x**",
                f"{r['serial_cpu_ms_per_run']:.1f} ms",
                f"{c['worker_cpu_ms_per_run']:.1f} + {c['main_cpu_ms_per_run']:.1f} ms",
                "{:.1f}, {:.1f} ms".format(
                    c["dask_cpu_ms_per_run"], c["dask_task_cpu_ms_per_run"]
                ),
                f"{c['overhead_ms_per_run']:.1f} ms",
                f"{r['noop_round_trip_ms']:.2f} ms",
                f"{r['plain_speedup']:.2f}x",
                f"{100 * c['speedup'] / r['plain_speedup']:.0f}%",
            ]
            print("| " + " | ".join(cells) + " |")
    idle = ", ".join(
        f"{r['backend']}/{r['cluster']} {r['idle_cluster_cpu_ms_per_s']:.0f}"
        for r in rows
    )
    print(f"idle cluster CPU (ms per s): {idle}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {"startup_s": started, "warmup_s": warm, "rows": rows}, fh, indent=2
            )


if __name__ == "__main__":  # the guard matters: Dask workers are spawned processes
    raise SystemExit(main())
