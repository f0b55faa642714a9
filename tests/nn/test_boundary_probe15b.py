"""Defects left by the fifteenth boundary probe of the nn faces.

``MLP([2, 1], activation="tanh")`` built a linear model without a word (activation
applies to hidden layers only; ``compare`` refuses ``hidden=()`` for that reason):
an activation no layer uses is refused, naming the fixes. ``MLPRegressor.score``
raised NotImplementedError for ``sample_weight`` while the classifier took it: R^2
is now weighted as scikit-learn's ``r2_score``. ``train_test_split(stratify=True)``
of a continuous y split it at random without a word (and integer targets seen once
each put the smallest values in the test set): refused, as scikit-learn refuses a
class of one member. A kernel given ``[10**400]`` said "dtype object", not that the
integer is beyond the float range. ``compare`` wrote non-string dict keys as text,
so ``{1: "relu"}`` gave a row ``result[1]`` did not find: refused."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import datasets, nn
from symnb.datasets import train_test_split

RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 2)).astype(np.float32)


# 1. an activation no layer uses -------------------------------------------------
@pytest.mark.parametrize(
    "activation", ["tanh", ["tanh"], [["relu", "tanh"]], symnb.activation("tanh")]
)
def test_an_activation_without_a_hidden_layer_is_refused(activation):
    with pytest.raises(ValueError) as info:
        nn.MLP([2, 1], activation=activation, backend="numpy")
    for words in ("activation=", "no hidden layer", "[2, 16, 1]", "output="):
        assert words in str(info.value)


def test_the_estimator_names_its_own_options():
    model = nn.MLPRegressor(hidden_layer_sizes=(), activation="tanh", backend="numpy")
    with pytest.raises(ValueError) as info:
        model.fit(X, X[:, 0])
    assert "hidden_layer_sizes=(16,)" in str(info.value)
    assert "output_activation=" in str(info.value)


@pytest.mark.parametrize("activation", [{}, {"activation": None}, {"activation": []}])
def test_a_network_without_hidden_layers_still_builds(activation, tmp_path):
    """The default, None and [] (what repr and save write) name no activation: the
    model is X @ W + b (float64 reference), and it saves and loads."""
    model = nn.MLP([2, 1], backend="numpy", **activation)
    W, b = (p.data.astype(np.float64) for p in model.parameters())
    want = (X.astype(np.float64) @ W + b).ravel()
    np.testing.assert_allclose(model.predict(X), want, rtol=1e-5, atol=1e-6)
    model.save(tmp_path / "linear.npz")
    loaded = nn.load(tmp_path / "linear.npz", backend="numpy")
    np.testing.assert_allclose(loaded.predict(X), want, rtol=1e-5, atol=1e-6)


# 2. MLPRegressor.score with sample_weight ----------------------------------------
@pytest.mark.parametrize("outputs", [1, 3])
def test_weighted_r2_is_scikit_learns(outputs):
    metrics = pytest.importorskip("sklearn.metrics")
    y = X[:, :1] * 2 + RNG.normal(size=(30, outputs)) * 0.3
    y = y[:, 0] if outputs == 1 else y
    model = nn.MLPRegressor((4,), epochs=3, backend="numpy").fit(X, y)
    w = RNG.uniform(0, 3, size=len(X))
    w[::7] = 0.0
    got = model.score(X, y, sample_weight=w)
    want = metrics.r2_score(y, model.predict(X), sample_weight=w)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12)
    assert got != pytest.approx(model.score(X, y), rel=1e-6)  # the weights count


def test_weighted_r2_of_a_constant_column_is_scikit_learns():
    metrics = pytest.importorskip("sklearn.metrics")
    from symnb.nn.metrics import r2

    y = np.column_stack([np.arange(6.0), np.full(6, 2.0)])
    pred = y + np.array([[0.5, 0.0]] * 3 + [[-0.5, 0.1]] * 3)
    w = np.array([1.0, 2.0, 0.5, 3.0, 0.0, 1.0])
    assert r2(y, pred, sample_weight=w) == pytest.approx(
        metrics.r2_score(y, pred, sample_weight=w), rel=1e-12
    )


@pytest.mark.parametrize(
    ("weights", "words"),
    [
        (np.ones(3), "score: sample_weight has shape (3,)"),
        (-np.ones(30), "sample_weight must be finite, >= 0 and not all zero"),
        (np.full(30, np.nan), "sample_weight must be finite"),
        (np.zeros(30), "not all zero"),
    ],
)
def test_bad_regressor_weights_are_named(weights, words):
    model = nn.MLPRegressor((4,), epochs=1, backend="numpy").fit(X, X[:, 0])
    with pytest.raises(ValueError) as info:
        model.score(X, X[:, 0], sample_weight=weights)
    assert words in str(info.value)


# 3. train_test_split(stratify=True) of continuous targets -------------------------
def test_stratify_true_refuses_a_continuous_target():
    X, y = datasets.sine(40)
    with pytest.raises(ValueError) as info:
        train_test_split(X, y, stratify=True)
    for words in ("stratify=True needs class labels", "bin y", "stratify=None"):
        assert words in str(info.value)
    X_train, X_test, _, _ = train_test_split(X, y)  # the default: a plain split
    assert len(X_test) == 10 and len(X_train) == 30


def test_stratify_true_refuses_classes_of_one_row_as_scikit_learn_does():
    selection = pytest.importorskip("sklearn.model_selection")
    y = np.arange(40)  # integer targets, each seen once
    Xs = np.arange(40.0)[:, None]
    with pytest.raises(ValueError, match="1 member"):
        selection.train_test_split(Xs, y, stratify=y)
    with pytest.raises(ValueError) as info:
        train_test_split(Xs, y, stratify=True)
    for words in ("40 of the 40 classes", "only 1 row", "stratify=None"):
        assert words in str(info.value)


def test_the_default_split_of_values_seen_once_is_not_the_smallest():
    """Every distinct value was a class: equal remainders sent the lowest classes to
    the test set, so the test part was y's 10 smallest values at every seed."""
    y = np.arange(40)
    tests = [train_test_split(np.arange(40.0)[:, None], y, seed=s)[3] for s in range(3)]
    assert all(len(t) == 10 for t in tests)
    assert not any(np.array_equal(t, np.arange(10)) for t in tests)


def test_stratify_true_keeps_float_labels_in_proportion():
    """Whole-number floats are labels (scikit-learn stratifies them too); they were
    split at random. 36 zeros and 12 ones: the test quarter holds 9 and 3."""
    y = np.repeat([0.0, 1.0], [36, 12])
    for seed in range(4):
        y_test = train_test_split(
            np.arange(48.0)[:, None], y, seed=seed, stratify=True
        )[3]
        assert np.sum(y_test == 1.0) == 3 and np.sum(y_test == 0.0) == 9


# 4. a kernel given an integer beyond the float range -----------------------------
@pytest.mark.parametrize(
    "x",
    [[10**400], np.array([10**400], dtype=object), np.array([[1, -(10**309)]], object)],
)
def test_an_integer_beyond_the_float_range_is_named(x):
    kernel = symnb.activation("tanh").compile(backend="numpy")
    with pytest.raises(TypeError) as info:
        kernel(x)
    for words in ("beyond the float range", "scale"):
        assert words in str(info.value)
    assert "dtype object" not in str(info.value)


def test_an_integer_beyond_int64_names_the_conversion_that_works():
    kernel = symnb.activation("tanh").compile(backend="numpy")
    x = [1, 10**30]
    with pytest.raises(TypeError) as info:
        kernel(x)
    assert "np.asarray(x, dtype=float)" in str(info.value)
    np.testing.assert_allclose(
        kernel(np.asarray(x, dtype=np.float32)), np.tanh(np.float32(x)), rtol=1e-6
    )


# 5. compare: dict keys that are not text -----------------------------------------
@pytest.mark.parametrize(
    ("activations", "dataset", "words"),
    [
        ({1: "relu"}, "xor", "activation name 1 (int)"),
        ({(2,): "tanh", "b": "relu"}, "xor", "activation name (2,) (tuple)"),
        (["relu"], {1: "xor"}, "data set label 1 (int)"),
    ],
)
def test_compare_refuses_keys_that_are_not_text(counted, activations, dataset, words):
    with pytest.raises(TypeError) as info:
        nn.compare(activations, dataset, seeds=[0], epochs=1, progress=False)
    assert words in str(info.value)
    assert "give text" in str(info.value)
    assert counted == []


def test_stratify_true_takes_text_labels_held_as_objects():
    """A pandas column of strings is an object array: its labels keep their share
    (20 "a" and 4 "b": the test quarter of 6 rows holds 5 and 1)."""
    y = np.array(["a"] * 20 + ["b"] * 4, dtype=object)
    for seed in range(3):
        _, _, y_train, y_test = train_test_split(
            np.arange(24.0)[:, None], y, seed=seed, stratify=True
        )
        assert np.sum(y_test == "a") == 5 and np.sum(y_test == "b") == 1
        assert np.sum(y_test == "a") + np.sum(y_train == "a") == 20
