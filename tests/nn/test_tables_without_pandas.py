"""Every ``to_pandas`` without pandas installed: a one-line ImportError naming the
method and the extra that installs pandas.

Before, each raised a bare ``ModuleNotFoundError: No module named 'pandas'`` from
inside the method (no word of symnb's extra). Pandas is hidden by a ``None`` entry
in ``sys.modules``, which makes ``import pandas`` fail as when it is not installed.
Also the result objects' lookups that failed without a word: an empty Leaderboard's
table, ``rank_of`` of a formula not on the board.
"""

from __future__ import annotations

import sys

import pytest

from symnb import nn
from symnb.nn.activation_search import Leaderboard

FAST = {"hidden": 4, "epochs": 1, "seeds": [0], "progress": False}


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "runs.sqlite"
    store = nn.RunStore(path)
    result = nn.compare(["relu"], "two_moons", store=store, **FAST)
    board = Leaderboard([], [], result, "accuracy", 0, 0.0)
    history = result.runs[0]["history"]
    yield {
        "History.to_pandas": history.to_pandas,
        "CompareResult.to_pandas": result.to_pandas,
        "CompareResult.runs_to_pandas": result.runs_to_pandas,
        "Leaderboard.to_pandas": board.to_pandas,
        "RunStore.to_pandas": store.to_pandas,
    }
    store.close()


@pytest.mark.parametrize(
    "method",
    [
        "History.to_pandas",
        "CompareResult.to_pandas",
        "CompareResult.runs_to_pandas",
        "Leaderboard.to_pandas",
        "RunStore.to_pandas",
    ],
)
def test_to_pandas_without_pandas_names_the_extra(tables, method, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError) as info:
        tables[method]()
    text = str(info.value)
    assert type(info.value) is ImportError  # not the bare ModuleNotFoundError
    assert method in text
    assert "pip install 'symnb[pandas]'" in text
    assert "\n" not in text


def test_to_pandas_with_pandas_still_gives_frames(tables):
    pd = pytest.importorskip("pandas")
    for method in tables.values():
        assert isinstance(method(), pd.DataFrame)


def test_an_empty_leaderboard_is_an_empty_table(tables):
    """A board with no entries (every candidate rejected) raised pandas' KeyError
    "None of ['rank'] are in the columns"."""
    pytest.importorskip("pandas")
    frame = tables["Leaderboard.to_pandas"]()
    assert len(frame) == 0 and frame.index.name == "rank"
    assert {"formula", "score", "two_moons mean", "status"} <= set(frame.columns)


def test_rank_of_a_formula_not_on_the_board_says_so(tables):
    """Was KeyError('x*tanh(x)'), the formula alone."""
    board = tables["Leaderboard.to_pandas"].__self__
    with pytest.raises(KeyError, match=r"'x\*tanh\(x\)' is not on this leaderboard"):
        board.rank_of("x*tanh(x)")
