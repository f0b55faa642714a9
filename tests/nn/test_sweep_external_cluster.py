"""``compare`` on an existing cluster, as the README shows it: a ``dask scheduler`` and
two ``dask worker`` processes started from the command line (this venv, 127.0.0.1, a
free port), reached with ``Client("tcp://127.0.0.1:PORT")`` and with the address
string itself. The rows must equal the serial rows.

The processes run in their own session and are killed as a group when the module ends,
whatever happened in the tests (a worker also exits once the scheduler has been gone
for ``--death-timeout`` seconds).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from symnb import nn

pytest.importorskip("distributed", reason="needs symnb[dask]")

# the sweep settings and comparisons of the LocalCluster tests
from tests.nn.test_sweep_dask import OPTIONS, _curves, _without_time

pytestmark = pytest.mark.slow

ACTS = ["tanh", "x*sigmoid(x)"]


def _dask(*args: str, log) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "dask", *args],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the nanny's worker too
    )


def _stop(procs: list[subprocess.Popen]) -> None:
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        for p in procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + wait
        for p in procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        if all(p.poll() is not None for p in procs):
            return


@pytest.fixture(scope="module")
def scheduler_address(tmp_path_factory):
    """``tcp://127.0.0.1:PORT`` of a command-line scheduler with two workers."""
    from dask.distributed import Client

    folder = tmp_path_factory.mktemp("cluster")
    info = folder / "scheduler.json"
    log = open(folder / "cluster.log", "w")  # noqa: SIM115 - closed below
    procs: list[subprocess.Popen] = []
    try:
        procs.append(
            _dask(
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",  # a free port, written to the scheduler file
                "--no-dashboard",
                "--scheduler-file",
                str(info),
                log=log,
            )
        )
        deadline = time.monotonic() + 60
        while not info.exists() or not info.read_text().strip():
            if procs[0].poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"dask scheduler did not start: {_tail(folder)}")
            time.sleep(0.1)
        address = json.loads(info.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        for i in range(2):
            procs.append(
                _dask(
                    "worker",
                    address,
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                    "--name",
                    f"symnb-test-{i}",
                    "--death-timeout",
                    "30",
                    log=log,
                )
            )
        with Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        _stop(procs)
        log.close()
    assert all(p.poll() is not None for p in procs), "cluster processes left running"


def _tail(folder) -> str:
    return (folder / "cluster.log").read_text()[-2000:]


def test_readme_existing_cluster_rows_equal_serial_rows(scheduler_address):
    from dask.distributed import Client

    serial = nn.compare(ACTS, "two_moons", seeds=(0, 1, 2), **OPTIONS)
    with Client(scheduler_address) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        spread = nn.compare(
            ACTS, "two_moons", seeds=(0, 1, 2), client=client, **OPTIONS
        )
        # the tasks ran in the command-line workers, not in this process
        pids = set(client.run(os.getpid).values())
    assert os.getpid() not in pids and len(pids) == 2
    assert _without_time(spread.rows) == _without_time(serial.rows)
    assert _curves(spread) == _curves(serial)


def test_scheduler_address_string_is_a_client(scheduler_address):
    serial = nn.compare(ACTS, "two_moons", seeds=(3,), **OPTIONS)
    spread = nn.compare(
        ACTS, "two_moons", seeds=(3,), client=scheduler_address, **OPTIONS
    )
    assert _without_time(spread.rows) == _without_time(serial.rows)
    assert _curves(spread) == _curves(serial)
