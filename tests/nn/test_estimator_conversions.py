"""MLPClassifier/MLPRegressor with inputs NumPy cannot convert.

Before: a ragged X gave NumPy's bare "inhomogeneous shape" error, a torch tensor that
requires grad torch's RuntimeError, string targets for a regressor "could not convert
string to float" - none naming X or y."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLPClassifier, MLPRegressor

KW = {"hidden_layer_sizes": (4,), "epochs": 1, "backend": "numpy"}


def test_ragged_X_and_string_targets_are_named():
    with pytest.raises(ValueError, match=r"^X must be a 2-D array"):
        MLPClassifier(**KW).fit([[1.0, 2.0], [3.0]], [0, 1])
    with pytest.raises(ValueError, match=r"^y must be an array of numbers"):
        MLPRegressor(**KW).fit(np.zeros((2, 2)), ["a", "b"])


def test_tensors_that_require_grad_are_named():
    torch = pytest.importorskip("torch", reason="needs the torch extra (symnb[torch])")
    X = torch.randn(10, 2, requires_grad=True)
    y = torch.randn(10, requires_grad=True)
    labels = np.arange(10) % 2
    with pytest.raises(ValueError, match=r"^X must .*detach"):
        MLPClassifier(**KW).fit(X, labels)
    with pytest.raises(ValueError, match=r"^y must .*detach"):
        MLPRegressor(**KW).fit(X.detach(), y)
    clf = MLPClassifier(**KW).fit(X.detach(), labels)
    with pytest.raises(ValueError, match=r"^X must .*detach"):
        clf.predict(X)
    with pytest.raises(ValueError, match=r"^score: y must .*detach"):
        MLPRegressor(**KW).fit(X.detach(), y.detach()).score(X.detach(), y)


def test_complex_and_text_regression_targets_are_refused():
    """A complex y was cast to float64 with a mere ComplexWarning (the imaginary
    part dropped: a model of half the targets, and R^2 of half of them), and text
    such as '0.5' (a CSV column read as strings) trained as if it were numbers."""
    X = np.random.default_rng(0).normal(size=(12, 2))
    complex_y = X[:, 0] + 1j * X[:, 1]
    for bad, words in ((complex_y, "complex numbers"), (X[:, 0].astype(str), "text")):
        with pytest.raises(ValueError, match=f"^y must .*holds {words}"):
            MLPRegressor(**KW).fit(X, bad)
        fitted = MLPRegressor(**KW).fit(X, X[:, 0])
        with pytest.raises(ValueError, match=f"^score: y must .*holds {words}"):
            fitted.score(X, bad)


@pytest.mark.parametrize("estimator", [MLPClassifier, MLPRegressor])
def test_a_sparse_X_is_named_with_its_dense_copy(estimator):
    """A SciPy sparse X was "X must be 2-D (samples, features), got shape ()"."""
    sparse = pytest.importorskip("scipy.sparse")
    X = sparse.csr_matrix(np.eye(6, 2))
    with pytest.raises(TypeError, match=r"got a csr_matrix; pass X.toarray\(\)"):
        estimator(**KW).fit(X, np.arange(6) % 2)
