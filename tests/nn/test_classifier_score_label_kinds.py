"""MLPClassifier.score refuses labels of the other kind than those it was fitted on.

Before, ``score(X, y)`` with text labels ('0', '1', read from a CSV file) of a
classifier fitted on the numbers 0/1, or numbers for one fitted on 'a'/'b', compared
text with numbers and returned accuracy 0.0 without a word. Expected, as
scikit-learn's ``accuracy_score``: a ValueError ("Mix of label input types"); labels
of the fitted kind score as ``accuracy_score`` does.
"""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets

pytest.importorskip("sklearn")
from sklearn.metrics import accuracy_score

from symnb.nn import MLPClassifier


@pytest.fixture(scope="module")
def data():
    X, y = datasets.two_moons(64, seed=0)
    return X, y.astype(int)


@pytest.fixture(scope="module")
def fitted(data):
    X, y = data
    return {
        "numbers": MLPClassifier((4,), epochs=5).fit(X, y),
        "text": MLPClassifier((4,), epochs=5).fit(X, np.array(["a", "b"])[y]),
    }


@pytest.mark.parametrize(
    "fit_on, given",
    [
        ("numbers", lambda y: y.astype(str)),
        ("numbers", lambda y: np.array([str(v) for v in y], dtype=object)),
        ("text", lambda y: y),
        ("text", lambda y: y.astype(float)),
    ],
    ids=["str_for_ints", "object_str_for_ints", "ints_for_str", "floats_for_str"],
)
def test_labels_of_the_other_kind_are_refused(data, fitted, fit_on, given):
    X, y = data
    labels = given(y)
    with pytest.raises(ValueError, match="Mix of label input types"):
        accuracy_score(labels, fitted[fit_on].predict(X))
    with pytest.raises(ValueError, match=r"^score: y holds .* but the classifier"):
        fitted[fit_on].score(X, labels)


@pytest.mark.parametrize(
    "fit_on, given",
    [
        ("numbers", lambda y: y.astype(float)),
        ("numbers", lambda y: y),
        ("text", lambda y: np.array(["a", "b"])[y]),
    ],
    ids=["floats_for_ints", "ints", "text"],
)
def test_labels_of_the_fitted_kind_score_as_scikit_learn(data, fitted, fit_on, given):
    X, y = data
    labels = given(y)
    expected = accuracy_score(labels, fitted[fit_on].predict(X))
    assert fitted[fit_on].score(X, labels) == pytest.approx(expected)
