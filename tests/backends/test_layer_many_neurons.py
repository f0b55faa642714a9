"""compile_layer with names or formula texts per neuron parsed the same text once per
neuron (about 5 ms each: ['relu', 'tanh'] * 50_000 took minutes). Now each distinct
text is parsed once. Also: compile_layer(None) was "'NoneType' object is not
iterable", and a set of activations was taken in the set's own order."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
import symnb.formula.formula as formula_module


def test_each_text_is_parsed_once(monkeypatch) -> None:
    calls = []
    real = formula_module.as_activation

    def counting(spec, *args, **kwargs):
        calls.append(spec)
        return real(spec, *args, **kwargs)

    monkeypatch.setattr(formula_module, "as_activation", counting)
    n = 2000
    layer = symnb.compile_layer(["relu", "tanh", "x*sigmoid(x)"] * n, backend="numpy")
    assert sorted(calls) == sorted(["relu", "tanh", "x*sigmoid(x)"])
    x = np.linspace(-3, 3, 4 * 3 * n).reshape(4, 3 * n)
    col = np.arange(3 * n) % 3
    ref = np.where(
        col == 0,
        np.maximum(x, 0),
        np.where(col == 1, np.tanh(x), x / (1 + np.exp(-x))),
    )
    np.testing.assert_allclose(
        layer.forward(x.astype(np.float32)), ref, rtol=2e-6, atol=1e-6
    )


def test_neurons_of_one_text_keep_their_own_constants() -> None:
    layer = symnb.compile_layer(["leaky_relu", "leaky_relu"], backend="numpy")
    names = layer.constant_names(0)
    assert names and layer.constant_names(1) == names
    layer.set_constants(1, **{names[0]: 0.5})
    y = layer.forward(np.array([[-2.0, -2.0]], np.float32))
    assert y[0, 1] == pytest.approx(-1.0) and y[0, 0] != pytest.approx(-1.0)


@pytest.mark.parametrize("bad", [None, 3])
def test_not_a_list(bad) -> None:
    with pytest.raises(TypeError, match="compile_layer expects a list"):
        symnb.compile_layer(bad)


@pytest.mark.parametrize("bad", [{"relu", "tanh"}, {"relu": 1, "tanh": 2}])
def test_unordered_containers_are_refused(bad) -> None:
    with pytest.raises(TypeError, match="ordered list"):
        symnb.compile_layer(bad)
