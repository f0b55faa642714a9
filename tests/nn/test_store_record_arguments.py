"""RunStore's record API (``put``, ``put_many``, ``get_many``) called with what it
cannot store: a record of None raised "'NoneType' object has no attribute 'get'", a
seed of [1] SQLite's "Error binding parameter 6: type 'list' is not supported", a
key of None was stored (no rerun can find it), and ``get_many('abc')`` read the
string as three keys. Each is now a TypeError naming the part; valid runs (a NumPy
integer seed too) are stored and read back."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import nn
from tests.nn.store_records import RECORD


@pytest.fixture
def store(tmp_path):
    with nn.RunStore(tmp_path / "runs.db") as s:
        yield s


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda s: s.put("k", None, {}), "run 'k': record must be a dict"),
        (lambda s: s.put("k", RECORD, None), "run 'k': settings must be a dict"),
        (lambda s: s.put(None, RECORD, {}), "a run key is non-empty text, got None"),
        (lambda s: s.put("", RECORD, {}), "a run key is non-empty text"),
        (lambda s: s.put(5, RECORD, {}), "a run key is non-empty text, got 5"),
        (
            lambda s: s.put("k", {**RECORD, "seed": [1]}, {}),
            "record['seed'] must be an integer or None, got [1]",
        ),
        (
            lambda s: s.put("k", {**RECORD, "activation": object()}, {}),
            "record['activation'] must be text or None",
        ),
        (lambda s: s.put_many(None), "put_many takes a list of (key, record"),
        (lambda s: s.put_many([("k", RECORD)]), "a run is a (key, record, settings)"),
        (lambda s: s.get_many(None), "keys must be a list of run keys"),
        (lambda s: s.get_many("abc"), "keys must be a list of run keys"),
        (lambda s: s.get_many([1]), "a run key is text, got 1"),
        (lambda s: s.get_checks(None), "get_checks takes a dict formula -> check"),
    ],
)
def test_what_a_store_cannot_hold_is_named(store, call, words) -> None:
    with pytest.raises(TypeError) as info:
        call(store)
    assert words in str(info.value)
    assert len(store) == 0


def test_valid_runs_are_stored_and_read_back(store) -> None:
    store.put("a", {**RECORD, "seed": np.int64(3)}, {"lr": 0.1})
    store.put_many([("b", RECORD, {}), ("c", {**RECORD, "seed": None}, {})])
    got = store.get_many(["a", "b", "c", "missing"])
    assert sorted(got) == ["a", "b", "c"]
    assert got["a"]["seed"] == 3 and got["c"]["seed"] is None
