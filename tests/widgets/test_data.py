"""The Playground's data sets and features (ported from TensorFlow Playground)."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.widgets import data


@pytest.mark.parametrize("name", data.DATASETS)
def test_datasets_are_seeded_bounded_and_labelled(name: str) -> None:
    X, y = data.generate(name, noise=0, seed=3)
    X2, y2 = data.generate(name, noise=0, seed=3)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert X.shape == (len(y), 2)
    assert np.abs(X).max() <= 6.5
    if data.problem_of(name) == "classification":
        assert set(np.unique(y)) == {-1.0, 1.0}
        assert len(y) == data.N_CLASSIFY
    else:
        assert (
            np.abs(y).max() <= 1.2 + 1e-12
        )  # plane: (x1 + x2) / 10 as in the original
        assert len(y) == data.N_REGRESS


def test_labels_follow_the_rules_without_noise() -> None:
    X, y = data.generate("xor", 0, seed=0)
    np.testing.assert_array_equal(y, np.where(X[:, 0] * X[:, 1] >= 0, 1.0, -1.0))
    X, y = data.generate("circle", 0, seed=0)
    np.testing.assert_array_equal(
        y, np.where(np.hypot(X[:, 0], X[:, 1]) < 2.5, 1.0, -1.0)
    )
    X, y = data.generate("plane", 0, seed=0)
    np.testing.assert_allclose(y, (X[:, 0] + X[:, 1]) / 10)


def test_noise_flips_some_labels() -> None:
    X, y = data.generate("xor", 50, seed=0)
    clean = np.where(X[:, 0] * X[:, 1] >= 0, 1.0, -1.0)
    assert 0 < np.mean(clean != y) < 0.5


def test_split_and_features() -> None:
    X, y = data.generate("circle", 0, seed=0)
    Xtr, _ytr, Xte, _yte = data.split(X, y, 30, seed=0)
    assert len(Xtr) == 150 and len(Xte) == 350
    F = data.features(Xtr, ["x1", "x2", "x1^2", "x2^2", "x1*x2", "sin x1", "sin x2"])
    a, b = Xtr[:, 0], Xtr[:, 1]
    expected = np.stack([a, b, a * a, b * b, a * b, np.sin(a), np.sin(b)], 1)
    np.testing.assert_allclose(F, expected, rtol=1e-6, atol=1e-6)
    assert F.dtype == np.float32 and F.flags.c_contiguous
    with pytest.raises(ValueError, match="unknown feature"):
        data.features(Xtr, ["x3"])
