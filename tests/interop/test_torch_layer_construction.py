"""``symnb.to_torch_layer`` checks what it is given when it is built: ``dim=10**30``
was kept and failed only at the first forward, and ``['relu'] * 100_000`` parsed
'relu' once per feature (about 100 s; compile_layer parses each text once)."""

from __future__ import annotations

import time
from unittest import mock

import numpy as np
import pytest

import symnb
import symnb.formula.formula as formula_module
from symnb.errors import FormulaError

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dim", [10**30, -(10**30), 2**63, 2**31, -(2**31) - 1])
def test_a_dim_no_tensor_has_is_refused_when_built(dim) -> None:
    with pytest.raises(ValueError) as info:
        symnb.to_torch_layer(["relu", "tanh"], dim=dim)
    message = str(info.value)
    assert f"dim={dim} is beyond the dimensions any tensor has" in message
    assert "dim=-1" in message


@pytest.mark.parametrize("dim", [2**31 - 1, -(2**31), 5, np.int64(-1)])
def test_a_dim_some_tensor_may_have_is_kept(dim) -> None:
    layer = symnb.to_torch_layer(["relu", "tanh"], dim=dim)
    assert layer.dim == int(dim)


@pytest.mark.parametrize(
    ("activations", "error", "words"),
    [
        ([], ValueError, "at least one activation"),
        ("relu", TypeError, "a list with one activation per feature"),
        (["relu", None], TypeError, "feature 1: expected a symnb.Activation"),
        (["relu", symnb.loss("mse")], TypeError, "feature 1:"),
        (["relu", "relux"], FormulaError, "feature 1: unknown activation 'relux'"),
    ],
)
def test_bad_activation_lists_are_refused_naming_the_feature(
    activations, error, words
) -> None:
    with pytest.raises(error) as info:
        symnb.to_torch_layer(activations)
    assert words in str(info.value)


def test_each_text_is_parsed_once(monkeypatch) -> None:
    spy = mock.Mock(wraps=formula_module.as_activation)
    monkeypatch.setattr(formula_module, "as_activation", spy)
    start = time.perf_counter()
    layer = symnb.to_torch_layer(["relu", "tanh"] * 5000, backend="numpy")
    assert time.perf_counter() - start < 10  # was about 15 s
    assert sorted(c.args[0] for c in spy.call_args_list) == ["relu", "tanh"]
    x = torch.linspace(-2, 2, 4 * 10_000).reshape(4, 10_000)
    want = torch.where(torch.arange(10_000) % 2 == 0, torch.relu(x), torch.tanh(x))
    torch.testing.assert_close(layer(x), want)


@pytest.mark.parametrize(
    ("feature", "error", "match"),
    [
        (3, IndexError, r"feature 3 is out of range: this layer has 3 features"),
        (-1, IndexError, r"feature -1 is out of range"),
        ("1", TypeError, r"feature must be an int index in range\(0, 3\), got '1'"),
        (True, TypeError, r"got True"),
        (1.0, TypeError, r"got 1.0"),
    ],
)
def test_constants_of_a_feature_it_lacks_is_named(feature, error, match) -> None:
    """TorchLayer.constants(3) raised the bare "list index out of range", '1'
    "list indices must be integers or slices, not str", and True read feature 1."""
    layer = symnb.to_torch_layer(
        ["relu", symnb.Activation("x*sigmoid(b*x)", b=1.5), "tanh"], backend="numpy"
    )
    with pytest.raises(error, match=match):
        layer.constants(feature)
    assert layer.constants(np.int64(1)) == {"b": 1.5}
