"""A RunStore pickled or copied (inside an object that holds it, or on its own)
raised "cannot pickle '_thread.RLock' object". It is its file: the copy opens the
same path with its own connection and sees the same runs; a closed store says so."""

from __future__ import annotations

import copy
import pickle

import pytest

from symnb import nn
from tests.nn.store_records import RECORD


@pytest.mark.parametrize(
    "clone",
    [copy.copy, copy.deepcopy, lambda s: pickle.loads(pickle.dumps(s))],
    ids=["copy", "deepcopy", "pickle"],
)
def test_a_copy_opens_the_same_file(tmp_path, clone) -> None:
    with nn.RunStore(tmp_path / "runs.db") as store:
        store.put("a", RECORD, {})
        twin = clone(store)
        try:
            assert twin is not store and twin.path == store.path
            assert "a" in twin and len(twin) == 1
            twin.put("b", RECORD, {})
            assert "b" in store  # one file
        finally:
            twin.close()
        assert not store.closed  # closing the copy leaves the original open


def test_a_closed_store_is_not_copied(tmp_path) -> None:
    store = nn.RunStore(tmp_path / "runs.db")
    store.close()
    with pytest.raises(ValueError, match="is a closed RunStore"):
        copy.deepcopy(store)
