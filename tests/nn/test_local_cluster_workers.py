"""``symnb.nn.sweep.local_cluster(n_workers)`` passed any value to dask:
``-1`` started a cluster with no worker (a sweep on it waited forever), ``0`` one
per CPU, ``"2"`` failed inside dask with "unsupported operand type(s) for /",
``True`` one worker and ``10**6`` tried to start a million processes. Now
n_workers is None or an integer from 1 to 4 per CPU, checked before dask starts."""

from __future__ import annotations

import os

import pytest

from symnb.nn import sweep


@pytest.mark.parametrize(
    ("n", "match"),
    [
        (-1, "n_workers must be an integer >= 1"),
        (0, "n_workers must be an integer >= 1"),
        ("2", "n_workers must be an integer >= 1"),
        (True, "n_workers must be an integer >= 1"),
        (2.5, "n_workers must be an integer >= 1"),
        (10**6, "more than 4 worker processes per CPU"),
    ],
)
def test_bad_worker_counts_are_refused_before_dask_starts(monkeypatch, n, match):
    started = []
    pytest.importorskip("dask.distributed")
    import dask.distributed

    monkeypatch.setattr(
        dask.distributed, "LocalCluster", lambda **kw: started.append(kw)
    )
    with pytest.raises(ValueError, match=match):
        sweep.local_cluster(n)
    assert started == []


def test_good_worker_counts_reach_dask(monkeypatch) -> None:
    pytest.importorskip("dask.distributed")
    import dask.distributed

    started = []
    monkeypatch.setattr(
        dask.distributed, "LocalCluster", lambda **kw: started.append(kw) or "cluster"
    )
    assert sweep.local_cluster(2) == "cluster"
    assert sweep.local_cluster(None) == "cluster"
    assert [kw["n_workers"] for kw in started] == [2, max(1, os.cpu_count() or 1)]
