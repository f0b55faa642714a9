"""A closed RunStore passed as store=, and a non-boolean ``wide`` of to_pandas.

* ``RunStore`` closed (``close()`` or its ``with`` block ended) and then passed to
  compare or search: SQLite's "Cannot operate on a closed database" came out of the
  sweep; now a ValueError before any training, naming the file and the way out. A
  reopened store resumes the runs written before it was closed.
* ``CompareResult.to_pandas(wide="no")`` took the string as true and gave the wide
  table; a non-boolean is now a TypeError.
"""

from __future__ import annotations

import pytest

from symnb import nn

pytest.importorskip("pandas")

FAST = {"hidden": 4, "epochs": 2, "seeds": [0], "progress": False}


def test_closed_store_is_named_and_a_reopened_one_resumes(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite"
    with nn.RunStore(path) as store:
        first = nn.compare(["relu", "tanh"], "two_moons", store=store, **FAST)
    assert store.closed
    trained = []
    real_fit = nn.MLP.fit

    def counting_fit(self, *args, **kwargs):
        if kwargs.get("epochs", 1):  # not compare's epochs=0 check of the options
            trained.append(1)
        return real_fit(self, *args, **kwargs)

    monkeypatch.setattr(nn.MLP, "fit", counting_fit)
    with pytest.raises(ValueError, match="closed RunStore") as info:
        nn.compare(["relu", "tanh"], "two_moons", store=store, **FAST)
    assert str(path) in str(info.value) and "RunStore(" in str(info.value)
    assert trained == [], "compare"
    with pytest.raises(ValueError, match="closed RunStore"):
        nn.search("two_moons", budget=2, store=store, **FAST)
    assert trained == []  # refused before any training
    with nn.RunStore(path) as again:
        resumed = nn.compare(["relu", "tanh"], "two_moons", store=again, **FAST)
    assert trained == []  # every run came from the file
    assert resumed.to_pandas().equals(first.to_pandas())


@pytest.mark.parametrize("wide", ["no", "yes", 0, 1, None])
def test_to_pandas_wide_must_be_a_bool(wide):
    result = nn.compare(["relu"], ["two_moons", "xor"], **FAST)
    with pytest.raises(TypeError, match="wide must be True or False"):
        result.to_pandas(wide=wide)
    assert result.to_pandas(wide=False).index.names == ["activation", "dataset"]
    assert result.to_pandas(wide=True).columns.nlevels == 2
