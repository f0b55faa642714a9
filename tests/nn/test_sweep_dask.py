"""``compare`` on a Dask cluster: rows equal the serial rows, a killed worker's tasks
rerun, a partly filled store resumes without recomputing, faults are recorded.

One ``LocalCluster(n_workers=2, processes=True)`` (spawned workers) serves the module.
The serial results are the reference: the same seeds must give the same numbers in a
worker process, after the formulas travelled as text.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time

import numpy as np
import pytest

import symnb
from symnb import datasets, nn

distributed = pytest.importorskip("distributed", reason="needs symnb[dask]")

pytestmark = pytest.mark.slow

OPTIONS = {
    "hidden": (8,),
    "epochs": 8,
    "lr": 0.02,
    "backend": "numpy",
    "progress": False,
}
SWISH = symnb.Activation("x*sigmoid(beta*x)", name="swish_b", beta=1.5)
BUMP = symnb.Activation("exp(-x**2/w)", name="bump_sweep", w=2.0)
# calls a name that only this process defined: the definition travels with the formula
WITH_BUMP = symnb.Activation("x + bump_sweep(x)", name="with_bump")


def _circles_split():
    X, y = datasets.circles(n=120, noise=0.1, seed=3)
    X_train, X_val, y_train, y_val = datasets.train_test_split(
        X, y, test_size=0.25, seed=0
    )
    return X_train, y_train, X_val, y_val


DATA = {"moons": "two_moons", "circles": _circles_split()}


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


def _without_time(rows):
    return [{k: v for k, v in row.items() if k != "time_mean"} for row in rows]


def _curves(result):
    return [
        (r["activation"], r["dataset"], r["seed"], r["status"], r["history"]["loss"])
        for r in result.runs
    ]


def _task_count(client, run):
    from dask.distributed import get_task_stream

    with get_task_stream(client) as stream:
        result = run()
    keys = [str(t["key"]) for t in stream.data]
    return result, sum("symnb-run" in k for k in keys)


def test_distributed_rows_equal_serial_rows(client):
    acts = ["relu", "tanh", SWISH, WITH_BUMP]
    serial = nn.compare(acts, DATA, seeds=(0, 1), **OPTIONS)
    spread = nn.compare(acts, DATA, seeds=(0, 1), client=client, **OPTIONS)
    assert len(spread.rows) == 8  # one row per (activation, data set)
    assert all(r["status"] == "ok" for r in spread.runs)
    assert _without_time(spread.rows) == _without_time(serial.rows)
    assert _curves(spread) == _curves(serial)
    # the validation split of "circles" was used: val_ metrics in the history
    circles = [r for r in spread.runs if r["dataset"] == "circles"]
    assert all("val_loss" in r["history"] for r in circles)


def test_runs_per_task_groups_runs_of_one_data_set(client):
    acts = ["tanh", SWISH]
    serial = nn.compare(acts, DATA, seeds=(0, 1, 2), **OPTIONS)
    grouped, tasks = _task_count(
        client,
        lambda: nn.compare(
            acts, DATA, seeds=(0, 1, 2), client=client, runs_per_task=4, **OPTIONS
        ),
    )
    assert tasks == 4  # 6 runs per data set: a task of 4 and a task of 2, twice
    assert _without_time(grouped.rows) == _without_time(serial.rows)
    assert _curves(grouped) == _curves(serial)


def test_automatic_runs_per_task_chunks_runs_and_keeps_rows_equal_serial(client):
    acts = ["tanh", "relu", SWISH]
    seeds = range(10)
    serial = nn.compare(acts, "two_moons", seeds=seeds, **OPTIONS)
    spread, tasks = _task_count(
        client,
        lambda: nn.compare(acts, "two_moons", seeds=seeds, client=client, **OPTIONS),
    )
    from symnb.nn.sweep import auto_runs_per_task

    # 30 runs on 2 workers: 3 runs per task (about 6 tasks per worker), tapering to
    # one run per task at the end: 3 x 8, 2, 1 x 4
    assert auto_runs_per_task(30, 2) == 3
    assert tasks == 13
    assert _without_time(spread.rows) == _without_time(serial.rows)
    assert _curves(spread) == _curves(serial)


def test_resume_from_partly_filled_store_without_recomputing(client, tmp_path):
    store = tmp_path / "runs.db"
    acts = ["tanh", SWISH]

    def sweep(seeds):
        return nn.compare(
            acts, "two_moons", seeds=seeds, client=client, store=store, **OPTIONS
        )

    _, first = _task_count(client, lambda: sweep((0,)))
    assert first == 2
    resumed, second = _task_count(client, lambda: sweep((0, 1, 2)))
    assert second == 4  # only the missing seeds ran
    _, third = _task_count(client, lambda: sweep((0, 1, 2)))
    assert third == 0
    fresh = nn.compare(acts, "two_moons", seeds=(0, 1, 2), **OPTIONS)
    assert _without_time(resumed.rows) == _without_time(fresh.rows)
    assert _curves(resumed) == _curves(fresh)


def test_worker_killed_mid_sweep_reruns_its_task(client):
    X, y = datasets.two_moons(n=1500, noise=0.2, seed=4)
    options = dict(OPTIONS, epochs=20, batch_size=8)  # ~0.4 s a run
    acts = ["tanh", SWISH]
    pids = client.run(os.getpid)
    killed = {}

    def kill_when_busy():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            busy = [w for w, tasks in client.processing().items() if tasks]
            if busy and busy[0] in pids:
                time.sleep(0.05)  # inside the task
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed[busy[0]] = pids[busy[0]]
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_when_busy, daemon=True)
    killer.start()
    spread = nn.compare(acts, (X, y), seeds=(0, 1), client=client, **options)
    killer.join(timeout=5)
    assert killed, "no worker was killed during the sweep"
    ((_address, pid),) = killed.items()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # that worker process is gone
    serial = nn.compare(acts, (X, y), seeds=(0, 1), **options)
    assert _without_time(spread.rows) == _without_time(serial.rows)
    assert _curves(spread) == _curves(serial)
    client.wait_for_workers(2, timeout=60)


def _break_compiles(marker, bug=False):
    """In this process, make every backend fail to build kernels for a form named
    ``marker`` (a fault injected into the compiler step, as a broken g++ would; with
    ``bug``, a plain exception, as a bug in symnb would)."""
    from symnb.backends import cpp
    from symnb.backends import numpy_ as numpy_backend
    from symnb.errors import CompileError

    for module in (cpp, numpy_backend):
        original = getattr(module, "_unbroken_build", module.build)
        module._unbroken_build = original

        def build(forms, kind, *args, _original=original, **kwargs):
            if any(getattr(f, "name", None) == marker for f in forms):
                if bug:
                    raise ZeroDivisionError("injected bug")
                raise CompileError("injected failure", compiler="test-compiler")
            return _original(forms, kind, *args, **kwargs)

        module.build = build


def _restore_compiles():
    from symnb.backends import cpp
    from symnb.backends import numpy_ as numpy_backend

    for module in (cpp, numpy_backend):
        if hasattr(module, "_unbroken_build"):
            module.build = module._unbroken_build
            del module._unbroken_build


def test_diverging_and_non_compiling_activations_are_recorded(client):
    broken = symnb.Activation("x*tanh(x) + 0.0123*x", name="broken_on_worker")
    acts = {"tanh": "tanh", "diverges": "exp(x**2)", "broken": broken}
    client.run(_break_compiles, "broken_on_worker")
    try:
        result = nn.compare(
            acts, "two_moons", seeds=(0, 1), client=client, **dict(OPTIONS, lr=100.0)
        )
    finally:
        client.run(_restore_compiles)
    status = {(r["activation"], r["seed"]): r["status"] for r in result.runs}
    assert status[("diverges", 0)] == status[("diverges", 1)] == "diverged"
    assert status[("broken", 0)] == status[("broken", 1)] == "error"
    assert status[("tanh", 0)] != "error"
    row = result["broken"]
    assert row["failed"] == 2 and "injected failure" in row["error"]
    assert np.isnan(row["loss_mean"])
    assert result["diverges"]["diverged"] == 2
    assert all(
        "NaN or infinite" in r["error"]
        for r in result.runs
        if r["activation"] == "diverges"
    )


def test_a_failing_task_stops_the_sweep_and_keeps_finished_runs(client, tmp_path):
    buggy = symnb.Activation("x*tanh(x) + 0.0321*x", name="buggy_on_worker")
    store = tmp_path / "runs.db"
    client.run(_break_compiles, "buggy_on_worker", True)
    try:
        with pytest.raises(RuntimeError, match="failed on the cluster") as info:
            nn.compare(
                {"tanh": "tanh", "buggy": buggy},
                "two_moons",
                seeds=(0, 1, 2),
                client=client,
                store=store,
                **OPTIONS,
            )
    finally:
        client.run(_restore_compiles)
    assert "'buggy'" in str(info.value) and "ZeroDivisionError" in str(info.value)
    with sqlite3.connect(store) as db:
        kept = db.execute("SELECT activation, status FROM runs").fetchall()
    # the tanh tasks were handed out first: at least one had finished, and was kept
    assert kept and set(kept) == {("tanh", "ok")}


def test_search_on_the_cluster_equals_the_serial_search(client, tmp_path):
    options = dict(OPTIONS, epochs=3, seeds=(0, 1), budget=6, seed=2, population=3)
    # blocks whose accuracy analysis is quick
    options.update(
        unary=("x", "-x", "x^2", "sigmoid", "tanh"), binary=("+", "*", "max")
    )
    serial = nn.search("xor", **options)
    store = tmp_path / "search.db"
    spread = nn.search("xor", client=client, store=store, **options)
    assert spread.formulas() == serial.formulas()
    assert [e.score for e in spread.entries] == [e.score for e in serial.entries]
    again, tasks = _task_count(
        client, lambda: nn.search("xor", client=client, store=store, **options)
    )
    assert tasks == 0 and again.formulas() == serial.formulas()


def _monitor_settings():
    import dask

    keys = ("distributed.worker.profile.enabled", "distributed.admin.tick.interval")
    return [dask.config.get(k) for k in keys]


def _thread_settings():
    return tuple(
        os.environ.get(v)
        for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
    )


def test_local_cluster_workers_get_the_quiet_settings():
    from dask.distributed import Client

    from symnb.nn.sweep import LOCAL_CLUSTER_CONFIG, local_cluster

    cluster = local_cluster(1, dashboard_address=":0")
    try:
        with Client(cluster) as c:
            settings = list(c.run(_monitor_settings).values())
            threads = list(c.run(_thread_settings).values())
            workers = c.scheduler_info()["workers"].values()
            assert [w["nthreads"] for w in workers] == [1]
            spread = nn.compare(["tanh"], "xor", seeds=(0,), client=c, **OPTIONS)
    finally:
        cluster.close()
    expected = [
        LOCAL_CLUSTER_CONFIG["distributed.worker.profile.enabled"],
        LOCAL_CLUSTER_CONFIG["distributed.admin.tick.interval"],
    ]
    assert settings == [expected]
    assert threads == [("1", "1", "1")]  # one OpenMP/BLAS thread per worker
    serial = nn.compare(["tanh"], "xor", seeds=(0,), **OPTIONS)
    assert _curves(spread) == _curves(serial)
