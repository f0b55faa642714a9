"""A learnable library constant whose initial value is outside the domain.

``symnb.activation("softplus", beta=symnb.learnable(0.0))`` passed the library's
domain tests (a ``Learnable`` marker is not 0) while ``beta=0.0`` is refused as in
PyTorch; it failed only when compiled, as a write to a kernel's ``params`` the user
never made. The initial value of a marker is now tested like a plain number, at
construction and in ``with_constants``."""

from __future__ import annotations

import pytest

import symnb
from symnb import FormulaError


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (
            lambda: symnb.activation("softplus", beta=symnb.learnable(0.0)),
            r"^softplus's beta must not be 0 \(got beta=0\.0\)",
        ),
        (
            lambda: symnb.activation("softplus").with_constants(
                beta=symnb.learnable(0.0, per="neuron")
            ),
            r"^softplus's beta must not be 0",
        ),
        (
            lambda: symnb.activation("hardtanh", min_val=symnb.learnable(2.0)),
            r"^hardtanh's min_val must not be greater than max_val",
        ),
        (
            lambda: symnb.loss("huber", delta=symnb.learnable(-1.0)),
            r"^huber's delta must be > 0",
        ),
    ],
    ids=["softplus", "with_constants", "hardtanh", "huber"],
)
def test_an_initial_value_outside_the_domain_is_refused_at_once(make, words) -> None:
    with pytest.raises(FormulaError, match=words):
        make()


def test_an_initial_value_inside_the_domain_stays_learnable() -> None:
    act = symnb.activation("softplus", beta=symnb.learnable(2.0))
    assert act.learnable == {"beta": symnb.learnable(2.0)}
    assert act.constants["beta"] == 2.0
