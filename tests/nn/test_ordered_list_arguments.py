"""Arguments whose order matters refuse sets: compare's ``hidden`` and search's
``unary``, ``binary``, ``units``, ``include`` and ``baselines``.

Before, ``search(data, unary={'tanh', 'sin', 'exp', 'relu', 'x^2'}, seed=0)`` drew
other candidates in each process (string hashing changes a set's order between
processes: with PYTHONHASHSEED=1 'Max(exp(x), tanh(x))', 'sin(x)*tanh(x)', with 2
'exp(x) + Max(0, x)', 'x**2*tanh(x)'), so a seeded search was not reproducible; and
``compare(..., hidden={64, 8})`` built the widths in the set's order, not the one
written. Expected: a TypeError naming the argument and the list to pass.
"""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets
from symnb.nn import compare, search


@pytest.fixture(scope="module")
def data():
    return datasets.two_moons(24, seed=0)


SMALL = {"seeds": [0], "epochs": 1, "progress": False}

SEARCH = {
    "unary": {"unary": {"tanh", "sin", "exp"}},
    "binary": {"binary": frozenset({"+", "*"})},
    "units": {"units": {1, 2}},
    "include": {"include": {"x*tanh(x)", "sin(x)"}},
    "baselines": {"baselines": {"relu", "tanh"}},
}


@pytest.mark.parametrize("argument", list(SEARCH))
def test_search_refuses_sets_where_the_order_draws_candidates(data, argument):
    with pytest.raises(TypeError, match=rf"^{argument} must be an ordered list"):
        search(data, 2, hidden=(3,), **SEARCH[argument], **SMALL)


@pytest.mark.parametrize("hidden", [{64, 8}, {"a": 4}], ids=["set", "dict"])
def test_compare_refuses_hidden_widths_without_an_order(data, hidden):
    with pytest.raises(TypeError, match=r"^hidden must be an ordered list"):
        compare(["relu"], data, hidden=hidden, **SMALL)


def test_lists_and_tuples_still_work(data):
    result = compare(["relu"], data, hidden=[4, 3], **SMALL)
    assert np.isfinite(result.rows[0]["loss_mean"])
    board = search(
        data,
        1,
        hidden=(3,),
        unary=["tanh"],
        binary=("+",),
        units=[1],
        baselines=("relu",),
        **SMALL,
    )
    assert len(board) >= 1
