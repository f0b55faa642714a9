"""A seed is None or an integer >= 0, in the model, in fit and in the data sets.

NumPy's ``default_rng`` also takes True (as 1), lists, generators and seed sequences:
``MLP(seed=True)``, ``fit(seed=False)`` and ``datasets.two_moons(seed=True)`` trained
or sampled without a word (while ``np.True_`` was refused), and ``MLP(seed=[1, 2])``
or ``MLP(seed=np.random.default_rng(0))`` failed inside ``int()`` with a message that
named no argument. A negative seed was a TypeError in ``MLP`` and a ValueError in
``fit`` and the data sets; it is a ValueError everywhere."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets, nn

X, Y = datasets.two_moons(40, seed=0)

NOT_SEEDS = [
    True,
    False,
    np.bool_(True),
    [1, 2],
    np.random.default_rng(0),
    np.random.SeedSequence(1),
    1.0,
    "3",
]


def _faces():
    return {
        "MLP": lambda seed: nn.MLP([2, 3, 1], backend="numpy", seed=seed),
        "fit": lambda seed: nn.MLP([2, 3, 1], backend="numpy").fit(
            X, Y, epochs=1, seed=seed
        ),
        "two_moons": lambda seed: datasets.two_moons(10, seed=seed),
        "train_test_split": lambda seed: datasets.train_test_split(X, Y, seed=seed),
    }


@pytest.mark.parametrize("face", list(_faces()))
@pytest.mark.parametrize(
    "seed",
    NOT_SEEDS,
    ids=lambda s: type(s).__name__ if isinstance(s, np.random.Generator) else repr(s),
)
def test_a_seed_that_is_no_integer_is_refused_naming_seed(face, seed) -> None:
    with pytest.raises(TypeError) as info:
        _faces()[face](seed)
    message = str(info.value)
    assert message.startswith("seed must be a non-negative integer or None, got ")
    if isinstance(seed, (bool, np.bool_)):
        assert "pass 1 for True, 0 for False" in message


@pytest.mark.parametrize("face", list(_faces()))
def test_a_negative_seed_is_a_value_error_everywhere(face) -> None:
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer.*-3"):
        _faces()[face](-3)


def test_numpy_integer_seeds_still_fix_the_model() -> None:
    first = nn.MLP([2, 3, 1], backend="numpy", seed=np.int64(5))
    again = nn.MLP([2, 3, 1], backend="numpy", seed=5)
    assert first.seed == 5 and type(first.seed) is int
    np.testing.assert_array_equal(
        first.get_flat_parameters(), again.get_flat_parameters()
    )
