"""A ``store=`` path naming another program's SQLite database is refused and left
unchanged: the store's tables were added to it without a word."""

from __future__ import annotations

import sqlite3

import pytest

from symnb import nn


def _tables(path) -> list[str]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return sorted(r[0] for r in rows)


def test_another_programs_database_is_refused_and_left_unchanged(tmp_path):
    path = tmp_path / "people.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE people (name TEXT)")
        db.execute("INSERT INTO people VALUES ('ada')")
    with pytest.raises(
        ValueError,
        match=r"people.db' is not a symnb run store.*another SQLite database.*\['people'\]",
    ):
        nn.RunStore(path)
    assert _tables(path) == ["people"]


def test_an_empty_file_and_an_existing_store_still_open(tmp_path):
    path = tmp_path / "runs.db"
    path.write_bytes(b"")
    with nn.RunStore(path) as store:
        assert len(store) == 0
    with nn.RunStore(path) as store:  # reopened: it has symnb's tables
        assert len(store) == 0
