"""Seeds past a 64-bit signed integer: the run's row could not be written to the
store (SQLite INTEGER), and the sweep died with a raw ``OverflowError`` after training
the run, losing it and every run not yet trained. They are refused before any run."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets, nn
from symnb.nn.compare import check_seeds

X, Y = datasets.two_moons(40, seed=0)
LIMIT = 2**63 - 1


@pytest.mark.parametrize("seed", [2**63, 2**64 + 5, np.uint64(2**64 - 1)])
def test_a_seed_past_int64_is_refused_naming_its_index(seed):
    with pytest.raises(ValueError, match=rf"seeds\[1\].*at most {LIMIT}"):
        check_seeds([0, seed], 1)


def test_the_largest_seed_trains_and_is_stored(tmp_path):
    store = tmp_path / "runs.db"
    options = {"hidden": (4,), "epochs": 1, "progress": False, "store": store}
    first = nn.compare(["relu"], (X, Y), seeds=[0, LIMIT], **options)
    with nn.RunStore(store) as runs:
        assert len(runs) == 2
        assert sorted(runs.to_pandas()["seed"]) == [0, LIMIT]
    again = nn.compare(["relu"], (X, Y), seeds=[0, LIMIT], **options)
    assert again.scores() == first.scores()


def test_compare_with_a_store_refuses_it_before_training(tmp_path, counted):
    with pytest.raises(ValueError, match=r"seeds\[1\]"):
        nn.compare(
            ["relu", "tanh"],
            (X, Y),
            seeds=[0, 2**63],
            hidden=(4,),
            epochs=1,
            progress=False,
            store=tmp_path / "runs.db",
        )
    assert counted == []


def test_search_refuses_it_too():
    with pytest.raises(ValueError, match=r"seeds\[0\]"):
        nn.search((X, Y), budget=1, seeds=[2**64], progress=False)
