"""MLPClassifier/MLPRegressor remember a data frame's column names (scikit-learn's
``feature_names_in_``) and refuse a frame whose columns differ at predict time.

Before, columns were matched by position: ``clf.fit(df).predict(df[["b", "a"]])``
predicted on swapped features without a word (scikit-learn's own estimators raise
"The feature names should match those that were passed during fit"). The expectation
is the prediction on the frame in the fitted order.
"""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets

pd = pytest.importorskip("pandas")
pytest.importorskip("sklearn")

from symnb.nn import MLPClassifier, MLPRegressor


def _estimators():
    return {
        "classifier": MLPClassifier((6,), epochs=3, seed=0),
        "regressor": MLPRegressor((6,), epochs=3, seed=0),
    }


@pytest.fixture(scope="module")
def frame():
    X, y = datasets.two_moons(64, seed=3)
    return pd.DataFrame(X, columns=["a", "b"]), y


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_reordered_or_renamed_columns_are_refused(kind, frame):
    df, y = frame
    est = _estimators()[kind].fit(df, y)
    assert est.feature_names_in_.tolist() == ["a", "b"]
    expected = est.predict(df)
    for other in (df[["b", "a"]], df.rename(columns={"b": "c"})):
        with pytest.raises(ValueError, match=r"fitted on \['a', 'b'\]"):
            est.predict(other)
        with pytest.raises(ValueError, match="feature_names_in_"):
            est.score(other, y)
    # the frame in the fitted order, and a plain array, predict as before
    np.testing.assert_array_equal(est.predict(df[["b", "a"]][["a", "b"]]), expected)
    np.testing.assert_array_equal(est.predict(df.to_numpy()), expected)


def test_a_frame_of_other_columns_can_be_fitted_again(frame):
    df, y = frame
    est = MLPClassifier((6,), epochs=2).fit(df, y)
    est.fit(df.rename(columns={"a": "x", "b": "y"}), y)
    assert est.feature_names_in_.tolist() == ["x", "y"]
    est.fit(df.to_numpy(), y)  # no names: the attribute goes, as in scikit-learn
    assert not hasattr(est, "feature_names_in_")
    est.predict(df)


def test_columns_that_are_not_all_strings_are_no_names(frame):
    df, y = frame
    est = MLPClassifier((6,), epochs=2).fit(df.set_axis([0, 1], axis=1), y)
    assert not hasattr(est, "feature_names_in_")
