"""The initialisers of ``symnb.nn.init`` called directly (or through
``functools.partial`` as ``MLP(init=...)``) with a gain or shape they cannot use.
Before: ``gain=nan`` raised NumPy's "high - low range exceeds valid bounds", a
negative gain NumPy's "scale < 0" (normal ones only), a size below 1 "math domain
error" or ZeroDivisionError; none named the initialiser or the argument."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symnb.nn import init

SCALED = [
    init.he_uniform,
    init.he_normal,
    init.xavier_uniform,
    init.xavier_normal,
    init.lecun_uniform,
    init.lecun_normal,
    init.orthogonal,
]


@pytest.mark.parametrize("fn", SCALED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("gain", [math.nan, math.inf, -1.0, True, "2", None])
def test_a_gain_it_cannot_use_is_refused(fn, gain) -> None:
    with pytest.raises(ValueError) as info:
        fn((3, 4), np.random.default_rng(0), gain=gain)
    message = str(info.value)
    assert message.startswith(f"{fn.__name__}: gain must be a finite number >= 0")


@pytest.mark.parametrize("fn", SCALED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(-2, 3), (0, 3), (2, 0), (2.0, 3), (), (1, 2, 3)])
def test_a_shape_it_cannot_fill_is_refused(fn, shape) -> None:
    with pytest.raises(ValueError) as info:
        fn(shape, np.random.default_rng(0))
    assert str(info.value).startswith(f"{fn.__name__}: shape must be (fan_in, fan_out)")


def test_values_still_follow_the_formulas() -> None:
    """he_uniform's bound gain*sqrt(6/fan_in) and xavier_normal's spread, drawn from
    the same generator state as NumPy's own calls."""
    bound = 0.5 * math.sqrt(6.0 / 3)
    got = init.he_uniform((3, 4), np.random.default_rng(7), gain=0.5)
    expected = np.random.default_rng(7).uniform(-bound, bound, (3, 4))
    np.testing.assert_array_equal(got, expected)
    std = math.sqrt(2.0 / (3 + 4))
    got = init.xavier_normal((3, 4), np.random.default_rng(7))
    np.testing.assert_array_equal(got, np.random.default_rng(7).normal(0, std, (3, 4)))
    assert not init.orthogonal((3, 4), np.random.default_rng(0), gain=0.0).any()


@pytest.mark.parametrize(
    "fn, arity",
    [(lambda shape: np.zeros(shape), "1 positional"), (lambda s, r, x: 0, "3")],
    ids=["shape_only", "three_arguments"],
)
@pytest.mark.parametrize("option", ["init", "bias_init"])
def test_an_initialiser_of_other_arguments_is_named(fn, arity, option):
    """init=lambda shape: ... failed inside MLP with Python's bare "<lambda>()
    takes 1 positional argument but 2 were given", naming neither the option nor
    the arguments an initialiser gets."""
    from symnb.nn import MLP

    with pytest.raises(
        TypeError, match=r"initialiser of layer 0 is called as f\(shape, rng\)"
    ):
        MLP([2, 3, 1], **{option: fn})


def test_an_initialiser_taking_shape_and_rng_still_runs():
    from symnb.nn import MLP

    model = MLP([2, 3, 1], init=lambda shape, rng: np.full(shape, 0.25))
    assert np.all(model.get_flat_parameters()[:9] == 0.25)


@pytest.mark.parametrize("fn", SCALED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("rng", [None, 0, "seed"])
def test_a_generator_that_is_none_or_a_seed_is_named(fn, rng) -> None:
    """rng=None or a seed failed with "'NoneType' object has no attribute
    'uniform'" (or 'normal'), naming neither the argument nor the fix."""
    with pytest.raises(TypeError) as info:
        fn((3, 4), rng)
    message = str(info.value)
    assert message.startswith(f"{fn.__name__}: rng must be a NumPy random generator")
    assert "np.random.default_rng" in message


def test_a_legacy_random_state_still_draws() -> None:
    got = init.he_normal((3, 4), np.random.RandomState(3))
    expected = np.random.RandomState(3).normal(0.0, math.sqrt(2.0 / 3), (3, 4))
    np.testing.assert_array_equal(got, expected)


FILLS = {"zeros": init.zeros, "ones": init.ones, "constant(0.5)": init.constant(0.5)}


@pytest.mark.parametrize("name", list(FILLS))
@pytest.mark.parametrize("shape", [(-2, 3), (0, 3), (2.0, 3), "3", (1, 2, 3)])
def test_a_fill_of_a_shape_it_cannot_fill_is_named(name, shape) -> None:
    """zeros/ones/constant passed the shape to NumPy unchecked: (-2, 3) raised
    NumPy's bare "negative dimensions are not allowed", (2.0, 3) "'float' object
    cannot be interpreted as an integer"."""
    with pytest.raises(ValueError) as info:
        FILLS[name](shape)
    assert str(info.value).startswith(f"{name}: shape must be (fan_in, fan_out)")


@pytest.mark.parametrize("name", list(FILLS))
def test_fills_of_weights_and_biases_still_fill(name) -> None:
    value = {"zeros": 0.0, "ones": 1.0, "constant(0.5)": 0.5}[name]
    np.testing.assert_array_equal(FILLS[name]((2, 3)), np.full((2, 3), value))
    np.testing.assert_array_equal(FILLS[name](4), np.full(4, value))
