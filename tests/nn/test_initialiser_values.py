"""Initialisers gave values the network took silently or failed on without
naming them: ``init.constant(True)`` filled with 1.0 and ``init.constant('a')``
was float()'s "could not convert string to float"; a function returning booleans
or complex numbers (``np.ones(shape, bool)``, ``np.ones(shape, complex)``) set the
weights to 1.0 and the real parts; one returning text failed in float() without
saying which initialiser; ``init='constant(abc)'`` likewise. Each is now an error
naming the initialiser (and the layer)."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLP, init


@pytest.mark.parametrize("value", [True, np.bool_(False), "a", None, 1j])
def test_constant_needs_a_real_number(value) -> None:
    with pytest.raises(TypeError, match="constant initialiser needs a real number"):
        init.constant(value)


@pytest.mark.parametrize(
    ("kind", "which"),
    [("bool", "init"), ("complex128", "init"), ("<U1", "init"), ("bool", "bias_init")],
)
def test_a_function_must_give_real_numbers(kind, which) -> None:
    def fn(shape, rng):
        return np.full(shape, "x") if kind == "<U1" else np.ones(shape, kind)

    label = (
        "the bias initialiser of layer 0"
        if which == "bias_init"
        else ("the initialiser of layer 0")
    )
    with pytest.raises(TypeError, match=f"{label} gave an array of dtype {kind}"):
        MLP([2, 3, 1], backend="numpy", **{which: fn})


def test_constant_text_needs_a_number() -> None:
    with pytest.raises(
        ValueError, match=r"'constant\(abc\)': constant\(\.\.\.\) needs"
    ):
        MLP([2, 3, 1], backend="numpy", init="constant(abc)")


def test_good_initialisers_still_fill() -> None:
    model = MLP([2, 3, 1], backend="numpy", init=init.constant(np.float32(0.5)))
    np.testing.assert_array_equal(model.layers[0].weight.data, np.full((2, 3), 0.5))
    model = MLP([2, 3, 1], backend="numpy", init="constant(0.25)", bias_init=2)
    np.testing.assert_array_equal(model.layers[1].bias.data, [2.0])
    with pytest.raises(ValueError, match=r"gave no finite \(2, 3\) array"):
        MLP([2, 3, 1], backend="numpy", init=lambda shape, rng: np.zeros((1, 1)))


def test_an_initialiser_of_the_wrong_shape_or_values_is_told_which() -> None:
    """Both were "gave no finite (2, 3) array": the shape given, or the first
    value that is not finite, is named now."""
    with pytest.raises(ValueError, match=r"it gave shape \(1, 1\); return an array"):
        MLP([2, 3, 1], backend="numpy", init=lambda shape, rng: np.zeros((1, 1)))

    def one_nan(shape, rng):
        values = np.zeros(shape)
        values[1, 2] = np.nan
        return values

    with pytest.raises(ValueError, match=r"\[1, 2\] is nan \(1 such values\)"):
        MLP([2, 3, 1], backend="numpy", init=one_nan)
