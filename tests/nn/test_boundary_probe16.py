"""Boundary uses of ``symnb.nn.search`` found by the sixteenth probe.

An included formula equal to a baseline (``max(x, 0)`` with the baseline relu, or
``x*sigmoid(x)`` with ``silu``) trained a second time under another name, and the
leaderboard listed the same function twice, without the warning the docstring
promises for duplicates ("trains once"). Drawn candidates equal to a baseline
did the same. The baselines now take part in the canonical-form dedup."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import nn
from symnb.nn.layers import resolve_activation

OPTIONS = {
    "hidden": (4,),
    "epochs": 2,
    "backend": "numpy",
    "progress": False,
    "seeds": (0,),
}


def _same_function(a, b) -> bool:
    """Whether two activations agree in float64 on a grid (NumPy evaluation of each;
    the grid avoids 0, where kinks differ only in their derivative)."""
    x = np.linspace(-5, 5, 100)
    values = [
        resolve_activation(f).compile(backend="numpy", dtype="float64").forward(x)
        for f in (a, b)
    ]
    return bool(np.allclose(values[0], values[1], rtol=1e-12, atol=1e-12))


@pytest.mark.parametrize(
    ("baseline", "included"),
    [("relu", "max(x, 0)"), ("silu", "sigmoid(x)*x"), ("tanh", "tanh(x)")],
)
def test_an_included_baseline_trains_once_with_a_warning(baseline, included, counted):
    assert _same_function(baseline, included)  # the premise, checked independently
    with pytest.warns(UserWarning, match=f"the baseline '{baseline}', trained once"):
        board = nn.search(
            "xor", budget=1, include=[included], baselines=[baseline], **OPTIONS
        )
    trained = [c[0] for c in counted]
    assert trained.count(baseline) == 1
    assert not any(
        _same_function(baseline, name) for name in trained if name != baseline
    )
    assert sum(_same_function(baseline, f) for f in board.formulas()) == 1


def test_drawn_candidates_equal_to_a_baseline_are_duplicates(counted):
    """The space b(u1(x), u2(x)) with u in {x, relu} and b = max holds max(x, x) =
    x (linear, rejected), max(x, relu(x)) = relu(x) and max(relu(x), relu(x)) =
    relu(x): with the baseline relu, nothing new is left to train."""
    board = nn.search(
        "xor",
        budget=4,
        unary=("x", "relu"),
        binary=("max",),
        units=(1,),
        baselines=["relu"],
        strategy="random",
        **OPTIONS,
    )
    trained = [c[0] for c in counted]
    assert trained == ["relu"]
    assert board.duplicates >= 1
    assert [f for f in board.formulas()] == ["relu"]


def test_a_baseline_with_constants_hides_no_candidate(counted):
    """leaky_relu with its slope is another function than relu: max(x, 0) trains."""
    nn.search(
        "xor", budget=1, include=["max(x, 0)"], baselines=["leaky_relu"], **OPTIONS
    )
    trained = [c[0] for c in counted]
    assert len(trained) == 2 and "leaky_relu" in trained
