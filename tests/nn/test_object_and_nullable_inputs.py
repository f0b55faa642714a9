"""X given as objects: pandas nullable columns (``Float64``, ``Int64``) and object
arrays of numbers train as numbers; a cell that is no number (``pd.NA``, ``None``,
a string) is named by its position, not refused as "dtype object"."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets, nn

X, Y = datasets.two_moons(40, seed=0)


def small() -> nn.MLP:
    return nn.MLP([2, 4, 1], activation="relu", backend="numpy", seed=0)


def test_object_array_of_numbers_trains_like_floats():
    a, b = small(), small()
    a.fit(X, Y, epochs=2, seed=0)
    b.fit(X.astype(object), Y, epochs=2, seed=0)
    np.testing.assert_array_equal(a.predict(X), b.predict(X.astype(object)))


def test_pandas_nullable_columns_train_and_missing_cells_are_named():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b"]).astype("Float64")
    model = small()
    model.fit(frame, Y, epochs=1)
    assert model.predict(frame).shape == (40,)
    frame.iloc[3, 1] = pd.NA
    with pytest.raises(ValueError, match=r"X\[3, 1\] is <NA>, not a number; fill"):
        small().fit(frame, Y, epochs=1)
    text = pd.DataFrame({"a": X[:, 0], "b": ["x"] * 40})
    with pytest.raises(ValueError, match=r"X\[0, 1\] is 'x', not a number"):
        small().predict(text)


@pytest.mark.parametrize(
    "make",
    [lambda X: (row for row in X), lambda X: {"a": X}, lambda X: {1, 2}],
    ids=["generator", "dict", "set"],
)
def test_x_that_is_no_array_is_named_by_its_type(make):
    """A generator or dict given as X was "X[] is <generator object ...>, not a
    number; fill or drop missing values..." (NumPy wraps it in a 0-d object array)."""
    from symnb.nn import MLP

    X = np.zeros((4, 2))
    model = MLP([2, 3, 1])
    given = make(X)
    for call in (
        lambda: model.fit(given, np.zeros(4), epochs=1),
        lambda: model.predict(given),
    ):
        with pytest.raises(
            TypeError, match=f"X must be a 2-D array.*got a {type(given).__name__}"
        ):
            call()


def test_a_sparse_matrix_is_named_with_its_dense_copy():
    sparse = pytest.importorskip("scipy.sparse")
    from symnb.nn import MLP

    X = sparse.csr_matrix(np.eye(4, 2))
    with pytest.raises(TypeError, match=r"got a csr_matrix; pass X.toarray\(\)"):
        MLP([2, 3, 1]).fit(X, np.zeros(4), epochs=1)
