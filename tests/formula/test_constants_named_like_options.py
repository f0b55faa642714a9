"""Constants whose names are also keywords of ``Activation``, ``Loss``,
``symnb.activation`` and ``symnb.loss``.

``Activation("x*self", self=2)`` and ``Activation("x*expr", expr=2)`` raised
Python's "got multiple values for argument 'self'"; a constant called ``name``,
``derivative``, ``surrogate`` or ``replace`` was taken as that option and refused
with "activation name must be a string, got float", which says nothing of the
clash; ``symnb.activation("leaky_relu", name=0.2)`` raised "got multiple values
for argument 'name'". Now ``self`` and ``expr`` are ordinary constant names (the
formula text is positional-only), an option given a number says it cannot be a
constant's name, and the library functions name their own constants."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import FormulaError


@pytest.mark.parametrize("constant", ["self", "expr"])
def test_self_and_expr_are_constant_names(constant: str) -> None:
    act = symnb.Activation(f"x*{constant} + 1", **{constant: 2.5})
    assert act.constants == {constant: 2.5}
    y = act.compile(backend="numpy", dtype="float64").forward(np.array([2.0, -1.0]))
    np.testing.assert_array_equal(y, [6.0, -1.5])  # 2.5*x + 1


@pytest.mark.parametrize("option", ["name", "derivative", "surrogate", "replace"])
@pytest.mark.parametrize("value", [2.0, 3, symnb.learnable(1.0)])
def test_an_option_given_a_number_names_the_clash(option: str, value) -> None:
    with pytest.raises(FormulaError) as info:
        symnb.Activation(f"x*{option}", **{option: value})
    message = str(info.value)
    assert f"{option}=" in message and "is an option of symnb.Activation" in message
    assert f"a constant cannot be called {option!r}" in message
    assert f"e.g. {option}_" in message


def test_a_loss_says_the_same() -> None:
    with pytest.raises(FormulaError, match=r"is an option of symnb\.Loss"):
        symnb.Loss("(y_pred - y_true)**2*name", name=0.5)


@pytest.mark.parametrize("factory", [symnb.activation, symnb.loss])
def test_library_functions_name_their_constants(factory) -> None:
    first = "leaky_relu" if factory is symnb.activation else "huber"
    with pytest.raises(FormulaError, match=r"has no constant 'name'"):
        factory(first, name=0.2)


def test_options_still_take_their_own_values() -> None:
    act = symnb.Activation("x*a", "scaled", a=2.0)
    assert act.name == "scaled" and act.constants == {"a": 2.0}
    assert symnb.Activation("x*a", name="s2", a=1.0).name == "s2"


def test_a_model_with_such_a_constant_saves_and_loads(tmp_path) -> None:
    from symnb import nn

    act = symnb.Activation("x*sigmoid(expr*x)", expr=1.5)
    model = nn.MLP([2, 3, 1], activation=act, backend="numpy", seed=0)
    path = tmp_path / "m.npz"
    model.save(path)
    loaded = nn.load(path)
    X = np.array([[0.5, -1.0], [2.0, 0.25]], dtype=np.float32)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
