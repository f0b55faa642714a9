"""Playground(data=(X, y)) with one value in y trained a "classification" of a single
class: every label 1, nothing to learn and a perfect score from the first epoch,
without a word (compare and MLPClassifier refuse such data). It is now a ValueError
naming the value and what to give instead; two classes or varying numbers work."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.widgets import Playground

X = np.random.default_rng(0).normal(size=(20, 2))


@pytest.mark.parametrize("y", [np.zeros(20), np.full(20, 3.0), np.ones((20, 1))])
def test_a_single_value_in_y_is_refused(fake_nn, y) -> None:
    with pytest.raises(ValueError, match=r"single value .* in all 20 rows"):
        Playground(data=(X, y))


def test_two_classes_and_numbers_still_work(fake_nn) -> None:
    for y, problem in ((np.arange(20) % 2, "classification"), (X[:, 0], "regression")):
        pg = Playground(data=(X, y))
        try:
            assert pg.problem.value == problem
        finally:
            pg.close()


@pytest.mark.parametrize(
    ("formula", "shown"),
    [
        ("x1 > 100", "holds at no point"),
        ("x1 < 100", "holds at every point"),
        ("0*x1 + 2", "the same value 2 at every point"),
    ],
)
def test_a_data_formula_with_nothing_to_learn_says_so(fake_nn, formula, shown):
    """A data formula true nowhere (x1 > 100 on the [-6, 6] plane) or constant gave
    one class or one value without a word; the status line now says so."""
    pg = Playground(config={"dataset": "formula", "data_formula": formula})
    try:
        assert shown in pg.status.value and "nothing to learn" in pg.status.value
    finally:
        pg.close()


def test_a_varying_data_formula_has_no_such_note(fake_nn) -> None:
    pg = Playground(config={"dataset": "formula", "data_formula": "x1 > x2"})
    try:
        assert "nothing to learn" not in pg.status.value
    finally:
        pg.close()
