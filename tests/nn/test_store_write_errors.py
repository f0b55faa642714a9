"""A run the store cannot write for another reason than a lock or a read-only disk
(a value SQLite cannot bind: sqlite3.ProgrammingError, OverflowError; a closed or
damaged connection): the sweep ended with the raw error right after the first run,
losing it and every later one. It now goes on, as for a locked store: a warning
names the store and the reason, and every run is in the result."""

from __future__ import annotations

import sqlite3

import pytest

from symnb import nn
from symnb.nn.store import RunStore

OPTIONS = {"hidden": (4,), "epochs": 2, "progress": False}


@pytest.mark.parametrize(
    "error",
    [
        sqlite3.ProgrammingError(
            "Error binding parameter 3: type 'tuple' is not supported"
        ),
        OverflowError("Python int too large to convert to SQLite INTEGER"),
        sqlite3.DatabaseError("database disk image is malformed"),
    ],
    ids=["binding", "overflow", "malformed"],
)
def test_a_run_that_cannot_be_written_is_kept(tmp_path, monkeypatch, error):
    def fails(self, items):
        list(items)
        raise error

    monkeypatch.setattr(RunStore, "put_many", fails)
    with pytest.warns(RuntimeWarning, match=r"runs.db' could not be written") as caught:
        result = nn.compare(
            ["tanh", "relu"], "xor", (0, 1), store=tmp_path / "runs.db", **OPTIONS
        )
    assert str(error) in str(caught[0].message)
    assert len(result.runs) == 4 and all(r["status"] == "ok" for r in result.runs)
    serial = nn.compare(["tanh", "relu"], "xor", (0, 1), **OPTIONS)
    assert result.scores() == serial.scores()
