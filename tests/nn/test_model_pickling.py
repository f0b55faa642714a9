"""Models and kernels pickle and copy: the copy predicts and trains on as the original.

Before, ``pickle.dumps(model)`` raised ``AttributeError: Can't pickle local object
'CDLL.__init__.<locals>._FuncPtr'`` and ``copy.deepcopy(model)`` ``ValueError: ctypes
objects containing pointers cannot be pickled`` (from deep inside ctypes), so a fitted
``MLPClassifier`` could not be saved with ``joblib.dump`` nor come back from a
``cross_validate(..., n_jobs=2, return_estimator=True)`` worker; the same for a compiled
``Kernel``, ``LayerKernel`` or ``LossKernel``. The expectation is the original object
itself: the same predictions, and one more epoch of training on the copy gives the
weights one more epoch gives the original (same shuffling state).
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import symnb
from symnb import datasets
from symnb.nn import MLP

COPIES = {
    "pickle": lambda obj: pickle.loads(pickle.dumps(obj)),
    "deepcopy": copy.deepcopy,
    "copy": copy.copy,
}


def _models():
    swish = symnb.Activation(
        "x*sigmoid(beta*x)", name="swish_p", beta=symnb.learnable(1.3, per="neuron")
    )
    mask = np.ones((2, 6))
    mask[0, :3] = 0
    return {
        "relu_bce_cpp": lambda: MLP([2, 6, 1], "relu", loss="bce_with_logits"),
        "learnable_numpy_f64": lambda: MLP(
            [2, 6, 1],
            swish,
            loss="bce_with_logits",
            backend="numpy",
            dtype="float64",
            masks=[mask, None],
        ),
        "unfused_tanh": lambda: MLP(
            [2, 6, 1], "tanh", loss="bce_with_logits", fused=False, seed=3
        ),
    }


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("name", list(_models()))
def test_a_copied_model_predicts_and_trains_on_as_the_original(name, how):
    X, y = datasets.two_moons(64, seed=1)
    model = _models()[name]()
    model.fit(X, y, epochs=2, batch_size=16)
    clone = COPIES[how](model)

    assert clone is not model
    assert repr(clone) == repr(model)
    assert clone.epochs_trained == model.epochs_trained == 2
    assert clone.history.history == model.history.history
    assert clone.fused == model.fused
    np.testing.assert_array_equal(
        clone.get_flat_parameters(), model.get_flat_parameters()
    )
    np.testing.assert_array_equal(
        clone.decision_function(X), model.decision_function(X)
    )

    # one more epoch each: the same shuffled batches, the same weights
    clone.fit(X, y, epochs=1, batch_size=16)
    after_clone = clone.get_flat_parameters()
    assert not np.array_equal(after_clone, model.get_flat_parameters())  # independent
    model.fit(X, y, epochs=1, batch_size=16)
    np.testing.assert_allclose(after_clone, model.get_flat_parameters(), rtol=0, atol=0)
    assert clone.epochs_trained == model.epochs_trained == 3


def test_a_fitted_classifier_pickles():
    pytest.importorskip("sklearn")
    from symnb.nn import MLPClassifier

    X, y = datasets.two_moons(64, seed=2)
    labels = np.array(["no", "yes"])[y.astype(int)]
    clf = MLPClassifier((8,), epochs=3, seed=0).fit(X, labels)
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.classes_, clf.classes_)
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_kernels_pickle_with_their_current_constants(backend, how):
    x = np.linspace(-4, 4, 33).astype(np.float32)
    g = np.cos(x).astype(np.float32)
    swish = symnb.Activation("x*sigmoid(beta*x)", name="swish_k", beta=1.0)

    kernel = swish.compile(backend=backend)
    kernel.set_constants(beta=2.5)
    layer = symnb.compile_layer([swish, "tanh"], backend=backend, dtype="float64")
    layer.set_constants(0, beta=0.5)
    loss = symnb.loss("huber").compile(backend=backend)
    loss.set_constants(delta=0.3)

    for original in (kernel, layer, loss):
        clone = COPIES[how](original)
        assert type(clone) is type(original)
        assert (clone.backend, clone.dtype) == (original.backend, original.dtype)
        np.testing.assert_array_equal(clone.params, original.params)
    x2 = np.stack([x, x], axis=1).astype(np.float64)
    k2, l2, s2 = (COPIES[how](k) for k in (kernel, layer, loss))
    np.testing.assert_array_equal(k2.forward(x), kernel.forward(x))
    np.testing.assert_array_equal(k2.backward(x, g), kernel.backward(x, g))
    np.testing.assert_array_equal(l2.forward(x2), layer.forward(x2))
    assert s2.value(x, g) == loss.value(x, g)
    # the copy's constants are its own
    k2.set_constants(beta=1.0)
    assert kernel.constants == {"beta": 2.5}
