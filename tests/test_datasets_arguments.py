"""Odd arguments of the ``symnb.datasets`` generators (a hostile-input probe,
2026-12-05). Before the fixes: ``spiral(10, classes=10**9)`` ran out of memory (a
billion classes for ten points), ``blobs(10, centers=2.5)`` made two classes, ``turns``,
``low``/``high`` or a ``centers`` row of NaN/inf gave NaN points without a word,
``noise=1e308`` gave inf points (float32), a string ``factor``/``classes``/``low`` was
Python's "'<' not supported" or NumPy's message, ``shuffle="no"`` shuffled, and
``train_test_split(1.0, 2.0)`` was "len() of unsized object"."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: datasets.spiral(10, classes=10**9), ValueError, "classes"),
        (lambda: datasets.spiral(10, classes=11), ValueError, "n = 10"),
        (lambda: datasets.spiral(10, classes=2.5), TypeError, "classes"),
        (lambda: datasets.spiral(10, classes="3"), TypeError, "classes"),
        (lambda: datasets.spiral(10, turns=float("nan")), ValueError, "turns"),
        (lambda: datasets.spiral(10, turns=float("inf")), ValueError, "turns"),
        (lambda: datasets.spiral(10, turns="1"), TypeError, "turns"),
        (lambda: datasets.blobs(10, centers=2.5), TypeError, "centers"),
        (lambda: datasets.blobs(10, centers=10**9), ValueError, "centers"),
        (lambda: datasets.blobs(10, centers=float("nan")), TypeError, "centers"),
        (
            lambda: datasets.blobs(10, centers=[[0, 0], [np.nan, 1]]),
            ValueError,
            "row 1",
        ),
        (
            lambda: datasets.blobs(10, centers=[["a", "b"], ["c", "d"]]),
            TypeError,
            "centers",
        ),
        (
            lambda: datasets.blobs(10, centers=[[0, 0], [1e308, 1e308]]),
            ValueError,
            "centers",
        ),
        (lambda: datasets.circles(10, factor="0.5"), TypeError, "factor"),
        (lambda: datasets.circles(10, factor=None), TypeError, "factor"),
        (lambda: datasets.sine(10, low=float("nan")), ValueError, "low"),
        (lambda: datasets.sine(10, high=float("inf")), ValueError, "high"),
        (lambda: datasets.sine(10, low=1, high=0), ValueError, "low <= high"),
        (lambda: datasets.sine(10, low=-1e308, high=1e308), ValueError, "width"),
        (lambda: datasets.sine(10, low="a"), TypeError, "low"),
        (lambda: datasets.sine(10, noise=1e308), ValueError, "noise=1e+308"),
        (lambda: datasets.two_moons(10, noise=1e308), ValueError, "noise=1e+308"),
        (lambda: datasets.xor(10, noise=1e308), ValueError, "noise=1e+308"),
        (lambda: datasets.two_moons(10, shuffle="no"), TypeError, "shuffle"),
        (lambda: datasets.spiral(10, shuffle=None), TypeError, "shuffle"),
        (lambda: datasets.digits(scale="no"), TypeError, "scale"),
        (lambda: datasets.train_test_split(1.0, 2.0), ValueError, "X must be an array"),
        (
            lambda: datasets.train_test_split(
                np.ones((4, 2)), np.ones(4), stratify="no"
            ),
            TypeError,
            "stratify",
        ),
    ],
)
def test_odd_argument_is_named(call, error, words) -> None:
    with pytest.raises(error, match=words.replace("(", r"\(").replace("+", r"\+")):
        call()


def test_good_arguments_still_work() -> None:
    X, y = datasets.spiral(12, classes=12, turns=-1, seed=0)
    assert X.dtype == np.float32 and np.isfinite(X).all()
    assert sorted(set(y.tolist())) == list(range(12))
    X, y = datasets.blobs(10, centers=np.int64(3), seed=0)
    assert sorted(set(y.tolist())) == [0, 1, 2]
    X, y = datasets.blobs(4, centers=[[0.0], [1.0]], noise=0.0, shuffle=False)
    np.testing.assert_array_equal(X[:, 0], [0.0, 0.0, 1.0, 1.0])
    X, y = datasets.sine(5, low=0.5, high=0.5, noise=0.0, shuffle=np.bool_(False))
    np.testing.assert_allclose(y, np.sin(np.float64(0.5)), rtol=1e-6)
    X, y = datasets.circles(8, factor=np.float32(0.25), noise=0.0, shuffle=False)
    np.testing.assert_allclose(np.hypot(X[4:, 0], X[4:, 1]), 0.25, rtol=1e-6)


@pytest.mark.parametrize("rows", [0, 1])
@pytest.mark.parametrize("labels", ["int64", "float32"])
def test_split_of_fewer_than_two_rows_names_the_rows(rows, labels) -> None:
    """0 rows with integer labels gave NumPy's "cannot reshape array of size 0 into
    shape (0,newaxis)" from inside the stratified split."""
    X = np.zeros((rows, 2), np.float32)
    y = np.zeros(rows, labels)
    with pytest.raises(
        ValueError, match=f"X has {rows} rows; a split needs at least 2"
    ):
        datasets.train_test_split(X, y)


def test_complex_centers_are_refused() -> None:
    """A complex centers array was cast to float64 with a ComplexWarning: blobs
    around the real parts only."""
    with pytest.raises(TypeError, match="centers must be a count or an array of numb"):
        datasets.blobs(10, centers=np.array([[0, 1j], [1, 1]]))


@pytest.mark.parametrize(
    "name, option, words",
    [
        ("xor", "nosie", "has no option 'nosie' \\(did you mean 'noise'\\?\\)"),
        ("digits", "n", "has no option 'n'; its options are scale"),
    ],
)
def test_load_names_an_unknown_option(name, option, words) -> None:
    """Was the generator's bare "xor() got an unexpected keyword argument"."""
    with pytest.raises(TypeError, match=words):
        datasets.load(name, **{option: 1})
