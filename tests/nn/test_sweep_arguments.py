"""Arguments of compare/search that are checked before any run: ``progress`` and
``keep_models`` flags that are not booleans ("no" is truthy: a bar was shown, models
kept), a ``client`` that is an array (NumPy's "truth value of an array is ambiguous"
named no argument), a Dask cluster instead of its client, a closed client; and a
search whose store fails to open must close the cluster it started for the call."""

from __future__ import annotations

import re

import numpy as np
import pytest

from symnb import datasets, nn
from symnb.nn import sweep

X, Y = datasets.two_moons(40, seed=0)
OPTIONS = {"hidden": (4,), "epochs": 1}


@pytest.mark.parametrize("flag", ["no", "false", None, 1, [True]])
def test_progress_must_be_a_boolean(flag, counted):
    with pytest.raises(
        TypeError, match=re.escape(f"progress must be True or False, got {flag!r}")
    ):
        nn.compare(["relu"], (X, Y), seeds=[0], progress=flag, **OPTIONS)
    with pytest.raises(TypeError, match="progress must be True or False"):
        nn.search((X, Y), budget=1, seeds=[0], progress=flag, **OPTIONS)
    assert counted == []


def test_keep_models_must_be_a_boolean(counted):
    with pytest.raises(TypeError, match="keep_models must be True or False"):
        nn.compare(["relu"], (X, Y), seeds=[0], keep_models="no", progress=False)
    assert counted == []
    result = nn.compare(
        ["relu"], (X, Y), seeds=[0], progress=np.bool_(False), **OPTIONS
    )
    assert result.scores()


@pytest.mark.parametrize("client", [np.array([1, 2]), np.array(["local"]), 3.5])
def test_a_client_of_another_type_is_named(client, counted):
    with pytest.raises(TypeError, match="client must be None"):
        nn.compare(["relu"], (X, Y), seeds=[0], client=client, progress=False)
    with pytest.raises(TypeError, match="client must be None"):
        nn.search((X, Y), budget=1, seeds=[0], client=client, progress=False)
    assert counted == []


def test_a_bad_client_is_refused_even_when_every_run_is_stored(tmp_path):
    store = tmp_path / "runs.db"
    nn.compare(["relu"], (X, Y), seeds=[0], store=store, progress=False, **OPTIONS)
    with pytest.raises(TypeError, match="client must be None"):
        nn.compare(
            ["relu"],
            (X, Y),
            seeds=[0],
            store=store,
            client="lcoal",
            progress=False,
            **OPTIONS,
        )


def test_a_cluster_and_a_closed_client_are_named():
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(
        n_workers=1, processes=False, threads_per_worker=1, dashboard_address=None
    )
    try:
        with pytest.raises(TypeError, match=r"Client\(cluster\)"):
            nn.compare(["relu"], (X, Y), seeds=[0], client=cluster, progress=False)
        client = distributed.Client(cluster)
        client.close()
        with pytest.raises(ValueError, match="client is closed"):
            nn.compare(["relu"], (X, Y), seeds=[0], client=client, progress=False)
    finally:
        cluster.close()


def test_search_closes_its_cluster_when_the_store_cannot_open(tmp_path, monkeypatch):
    # the client was opened before the store and closed only in a later finally:
    # with client="local" a whole LocalCluster was left running
    opened: list[str] = []
    closed: list[str] = []

    def open_client(client):
        opened.append(client)
        return object(), lambda: closed.append(client)

    monkeypatch.setattr(sweep, "open_client", open_client)
    with pytest.raises(IsADirectoryError):
        nn.search(
            (X, Y), budget=1, seeds=[0], client="local", store=tmp_path, progress=False
        )
    assert closed == opened
