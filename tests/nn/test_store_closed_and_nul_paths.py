"""A RunStore used after ``close()``, and a store path with a NUL character.

``len(store)``, ``key in store``, ``get_many``, ``put_many`` and ``to_pandas`` on a
closed store raised SQLite's "Cannot operate on a closed database" (only ``store=``
was checked); ``RunStore('a\\x00b.db')`` raised the OS layer's bare "embedded null
byte". Both are now ValueErrors naming the file and the fix."""

from __future__ import annotations

import pytest

from symnb import nn
from tests.nn.store_records import RECORD


@pytest.fixture
def closed(tmp_path):
    store = nn.RunStore(tmp_path / "runs.db")
    store.put("k", RECORD, {})
    store.close()
    return store


@pytest.mark.parametrize(
    "use",
    [
        len,
        lambda s: "k" in s,
        lambda s: s.get_many(["k"]),
        lambda s: s.put_many([("k2", RECORD, {})]),
        lambda s: s.get_checks({"x": "key"}),
        lambda s: s.to_pandas(),
    ],
    ids=["len", "in", "get_many", "put_many", "get_checks", "to_pandas"],
)
def test_a_closed_store_says_so(closed, use) -> None:
    with pytest.raises(ValueError) as info:
        use(closed)
    message = str(info.value)
    assert "is a closed RunStore" in message and closed.path in message
    assert f"RunStore({closed.path!r})" in message


def test_a_reopened_store_still_holds_its_runs(closed) -> None:
    with nn.RunStore(closed.path) as again:
        assert len(again) == 1 and "k" in again
        assert again.to_pandas()["final_loss"].tolist() == [0.5]


def test_a_nul_in_the_path_is_named(tmp_path) -> None:
    path = str(tmp_path / "a\0b.db")
    with pytest.raises(ValueError) as info:
        nn.RunStore(path)
    message = str(info.value)
    assert message.startswith("store ") and "contains a NUL character" in message
    with pytest.raises(ValueError, match="contains a NUL character"):
        nn.compare(["relu"], "two_moons", store=path, progress=False, epochs=1)
