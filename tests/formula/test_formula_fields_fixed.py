"""``act.text = "x*2"`` was kept while every kernel still computed the formula read
at construction, and MLP.save wrote the new text: the loaded model computed another
function. The fields a formula is read from (text, derivative_text, surrogate,
variables, kind, param_names) are now fixed once it is built; name stays
assignable (checked), constants change through with_constants."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import nn


@pytest.mark.parametrize(
    ("attr", "value"),
    [
        ("text", "x*2"),
        ("derivative_text", "1"),
        ("surrogate", "sigmoid"),
        ("variables", ("y",)),
        ("kind", "loss"),
        ("param_names", ()),
    ],
)
def test_formula_fields_are_fixed(attr, value) -> None:
    act = symnb.Activation("x*sigmoid(beta*x)", beta=1.0)
    before = getattr(act, attr)
    with pytest.raises(AttributeError, match=rf"activation\.{attr} is fixed"):
        setattr(act, attr, value)
    assert getattr(act, attr) == before


def test_a_saved_model_keeps_the_formula_it_trained_with(tmp_path) -> None:
    act = symnb.Activation("x*sigmoid(x)")
    with pytest.raises(AttributeError):
        act.text = "x*2"
    act.name = "renamed_ok"
    X = np.random.default_rng(0).normal(size=(8, 2))
    model = nn.MLP([2, 3, 1], activation=act, backend="numpy", seed=0)
    model.save(tmp_path / "m.npz")
    loaded = nn.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
