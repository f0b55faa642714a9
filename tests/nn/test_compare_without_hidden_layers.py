"""``compare``/``search`` with ``hidden=[]`` trained ``[features, outputs]``
networks, which apply no activation: every activation got the same scores
(relu, tanh and x**3 all 0.62228 loss) and search ranked formulas on noise. Now
an empty ``hidden`` is a ValueError saying why."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import compare, search

X = np.random.RandomState(0).randn(40, 2)
Y = (X[:, 0] > 0).astype(int)
OPTIONS = {"backend": "numpy", "progress": False, "epochs": 1, "seeds": [0]}


@pytest.mark.parametrize("hidden", [[], (), np.array([], dtype=int)])
def test_compare_refuses_no_hidden_layer(hidden) -> None:
    with pytest.raises(ValueError, match="hidden is empty.*no activation"):
        compare(["relu", "tanh"], (X, Y), hidden=hidden, **OPTIONS)


def test_search_refuses_no_hidden_layer() -> None:
    with pytest.raises(ValueError, match="hidden is empty"):
        search((X, Y), budget=2, hidden=[], **OPTIONS)


def test_one_hidden_layer_still_compares() -> None:
    result = compare(["relu", "x**3"], (X, Y), hidden=4, **OPTIONS)
    scores = result.scores("loss")
    assert scores["relu"] != scores["x**3"]
