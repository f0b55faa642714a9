"""A run store that cannot be written. An existing store on a read-only disk was
refused as "not a symnb run store ... choose a new file name" (its finished runs
unreachable, the user told the file was something else); it now opens read-only with
a warning: finished runs are reused, new ones are in the result but not written. A new
store in a read-only folder is refused naming the folder. CI runs as root, where
chmod proves nothing: the read-only disk is injected into ``sqlite3.connect`` (a
read-write open fails as SQLite fails there; ``mode=ro`` opens really read-only)."""

from __future__ import annotations

import sqlite3
import warnings

import pytest

from symnb import datasets, nn
from symnb.nn import store as store_module

X, Y = datasets.two_moons(40, seed=0)
OPTIONS = {"hidden": (4,), "epochs": 1, "progress": False}


def read_only_disk(monkeypatch) -> None:
    real = sqlite3.connect

    def connect(database, *args, **kwargs):
        if kwargs.get("uri") and "mode=ro" in str(database):
            return real(database, *args, **kwargs)
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(store_module.sqlite3, "connect", connect)


def test_an_existing_store_is_read_and_new_runs_are_returned(
    tmp_path, monkeypatch, counted
):
    path = tmp_path / "runs.db"
    nn.compare(["relu"], (X, Y), seeds=[0], store=path, **OPTIONS)
    counted.clear()
    read_only_disk(monkeypatch)
    with pytest.warns(RuntimeWarning) as caught:
        result = nn.compare(["relu"], (X, Y), seeds=[0, 1], store=path, **OPTIONS)
    messages = [str(w.message) for w in caught]
    assert any("read-only" in m and "runs.db" in m for m in messages), messages
    assert not any("not a symnb run store" in m for m in messages)
    assert counted == [("relu", "data", 1)]  # seed 0 came from the store
    monkeypatch.undo()
    serial = nn.compare(["relu"], (X, Y), seeds=[0, 1], **OPTIONS)
    assert result.scores() == serial.scores()
    with nn.RunStore(path) as runs:
        assert len(runs) == 1  # nothing was written while read-only


def test_a_read_only_store_opens_for_reading(tmp_path, monkeypatch):
    path = tmp_path / "runs.db"
    nn.compare(["relu", "tanh"], (X, Y), seeds=[0], store=path, **OPTIONS)
    read_only_disk(monkeypatch)
    with pytest.warns(RuntimeWarning, match="opened read-only"):
        runs = nn.RunStore(path)
    with runs:
        assert runs.read_only
        assert len(runs) == 2
        assert sorted(runs.to_pandas()["activation"]) == ["relu", "tanh"]


def test_a_new_store_in_a_read_only_folder_is_refused_naming_it(
    tmp_path, monkeypatch, counted
):
    read_only_disk(monkeypatch)
    with pytest.raises(PermissionError, match=r"cannot be created.*read-only"):
        nn.RunStore(tmp_path / "new.db")
    with pytest.raises(PermissionError, match=str(tmp_path)):
        nn.compare(["relu"], (X, Y), seeds=[0], store=tmp_path / "new.db", **OPTIONS)
    assert counted == []


def test_a_search_warns_once_per_cause_not_per_check(tmp_path, monkeypatch):
    path = tmp_path / "runs.db"
    nn.search((X, Y), budget=2, seeds=[0], population=2, store=path, **OPTIONS)
    read_only_disk(monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        board = nn.search(
            (X, Y), budget=4, seeds=[0], population=2, store=path, **OPTIONS
        )
    assert len(board) >= 3
    store_warnings = [w for w in caught if "runs.db" in str(w.message)]
    assert 1 <= len(store_warnings) <= 2, [str(w.message) for w in store_warnings]


def test_a_locked_store_is_not_called_something_else(tmp_path, monkeypatch):
    path = tmp_path / "runs.db"
    nn.RunStore(path).close()

    def locked(*args, **kwargs):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(store_module.sqlite3, "connect", locked)
    with pytest.raises(OSError, match="database is locked") as caught:
        nn.RunStore(path)
    assert "not a symnb run store" not in str(caught.value)
