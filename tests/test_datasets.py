"""symnb.datasets: shapes, labels, seeds, noise, and the digits set."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets

TWO_D = ["two_moons", "circles", "xor", "spiral", "blobs"]


@pytest.mark.parametrize("name", TWO_D)
def test_two_d_classification_sets(name):
    X, y = datasets.load(name, n=101, seed=3)
    assert X.shape == (101, 2) and X.dtype == np.float32 and X.flags.c_contiguous
    assert y.shape == (101,) and y.dtype == np.int64
    assert set(np.unique(y)) == {0, 1}
    counts = np.bincount(y)
    assert abs(counts[0] - counts[1]) <= 1
    X2, y2 = datasets.load(name, n=101, seed=3)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    X3, _ = datasets.load(name, n=101, seed=4)
    assert not np.array_equal(X, X3)
    assert np.all(np.isfinite(X))


def test_shapes_follow_their_definitions():
    X, y = datasets.circles(400, noise=0.0, factor=0.5, seed=0)
    r = np.hypot(X[:, 0], X[:, 1])
    np.testing.assert_allclose(r[y == 0], 1.0, rtol=1e-6)
    np.testing.assert_allclose(r[y == 1], 0.5, rtol=1e-6)
    X, y = datasets.xor(300, seed=0)
    np.testing.assert_array_equal(y, ((X[:, 0] > 0) != (X[:, 1] > 0)).astype(int))
    X, y = datasets.spiral(300, classes=3, seed=0)
    assert set(np.unique(y)) == {0, 1, 2}
    X, y = datasets.blobs(90, centers=[[0, 0], [5, 5], [0, 5]], noise=0.1, seed=0)
    for k, c in enumerate([[0, 0], [5, 5], [0, 5]]):
        np.testing.assert_allclose(X[y == k].mean(axis=0), c, atol=0.1)
    X, y = datasets.two_moons(200, noise=0.0, seed=0, shuffle=False)
    np.testing.assert_allclose(np.hypot(X[y == 0, 0], X[y == 0, 1]), 1.0, rtol=1e-6)


def test_sine_regression():
    X, y = datasets.sine(50, noise=0.0, seed=1)
    assert X.shape == (50, 1) and y.shape == (50,) and y.dtype == np.float32
    np.testing.assert_allclose(y, np.sin(X[:, 0]), atol=1e-6)


def test_digits_and_split():
    pytest.importorskip("sklearn")
    X, y = datasets.digits()
    assert (
        X.shape == (1797, 64) and X.max() <= 1.0 and set(np.unique(y)) == set(range(10))
    )
    Xtr, Xte, _ytr, yte = datasets.train_test_split(X, y, test_size=0.25, seed=0)
    assert len(Xtr) + len(Xte) == 1797 and abs(len(Xte) - 449) <= 10
    for k in range(10):  # stratified
        assert abs(np.mean(yte == k) - np.mean(y == k)) < 0.02


def test_bad_arguments():
    with pytest.raises(ValueError, match="positive integer"):
        datasets.two_moons(0)
    with pytest.raises(ValueError, match="noise"):
        datasets.circles(10, noise=-1)
    with pytest.raises(ValueError, match="unknown data set 'moon'"):
        datasets.load("moon")
    with pytest.raises(ValueError, match="rows"):
        datasets.train_test_split(np.zeros((3, 2)), np.zeros(4))
    assert "two_moons" in datasets.names()


@pytest.mark.parametrize("make", [datasets.two_moons, datasets.circles, datasets.blobs])
def test_a_data_set_beyond_memory_fails_before_allocating(make):
    """n = 10**10 points (~900 GiB) would be granted by Linux's overcommit and the
    process killed while filling them; a MemoryError names n and the memory first."""
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(MemoryError, match="n = 10000000000 points needs about"):
            make(n=10**10)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20


@pytest.mark.parametrize("name", [*TWO_D, "sine"])
@pytest.mark.parametrize(
    "seed, error", [(-1, ValueError), ("x", TypeError), (1.5, TypeError)]
)
def test_bad_seeds_name_the_argument(name, seed, error):
    with pytest.raises(error, match=r"seed must be a non-negative integer or None"):
        datasets.load(name, n=10, seed=seed)


def test_noise_that_is_no_number():
    with pytest.raises(TypeError, match=r"noise must be a number.*'a'"):
        datasets.two_moons(10, noise="a")


@pytest.mark.parametrize("stratify", [True, False])
def test_split_refuses_an_empty_part(stratify):
    X, y = datasets.two_moons(40, seed=0)
    with pytest.raises(ValueError, match="the test set would be empty"):
        datasets.train_test_split(X, y, test_size=0.001, stratify=stratify)
    with pytest.raises(ValueError, match="the train set would be empty"):
        # one class of two rows (two classes of one row each cannot be stratified)
        two = np.full(2, y[0])
        datasets.train_test_split(X[:2], two, test_size=0.9, stratify=stratify)
    with pytest.raises(TypeError, match="test_size must be a fraction"):
        datasets.train_test_split(X, y, test_size="half")
    with pytest.raises(TypeError, match="seed must be"):
        datasets.train_test_split(X, y, seed="x")
