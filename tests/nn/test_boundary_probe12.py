"""Boundary inputs found by the twelfth probe of the nn faces: ``set_flat_parameters``
(and so ``nn.load``) wrote learnable library constants outside their domain, or
nonzero constants that the network's dtype holds as 0, and the network then
predicted inf or a constant without a word. Each is refused, naming the constant,
and nothing is changed. A callback returning a NumPy array raised NumPy's "truth
value ... is ambiguous" from inside ``fit``; it is a TypeError naming the callback."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import datasets, nn

X, Y = datasets.two_moons(20, seed=0)


def softplus_per_neuron(backend: str = "numpy") -> nn.MLP:
    act = symnb.activation("softplus", beta=symnb.learnable(1.0, per="neuron"))
    return nn.MLP([2, 3, 1], activation=act, loss="bce_with_logits", backend=backend)


def softplus_reference(model: nn.MLP, X: np.ndarray) -> np.ndarray:
    """The network's output computed in float64 from its parameters (PyTorch's
    Softplus: log(1 + exp(beta x)) / beta)."""
    flat = model.get_flat_parameters().astype(np.float64)
    W1 = flat[:6].reshape(2, 3)
    W2 = flat[6:9].reshape(3, 1)
    b1, b2, beta = flat[9:12], flat[12:13], flat[13:16]
    z = X.astype(np.float64) @ W1 + b1
    a = np.logaddexp(0.0, beta * z) / beta
    return a @ W2 + b2


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_set_flat_parameters_refuses_a_constant_outside_its_domain(backend):
    model = softplus_per_neuron(backend)
    before = model.get_flat_parameters()
    values = before.astype(np.float64)
    values[-2] = 0.0  # beta of neuron 1: softplus divides by it
    with pytest.raises(ValueError, match="beta must not be 0") as info:
        model.set_flat_parameters(values)
    assert "nothing was changed" in str(info.value)
    np.testing.assert_array_equal(model.get_flat_parameters(), before)
    out = model.decision_function(X)
    np.testing.assert_allclose(out, softplus_reference(model, X), rtol=1e-5, atol=1e-6)


def test_set_flat_parameters_refuses_crossed_hardtanh_bounds():
    act = symnb.activation(
        "hardtanh", min_val=symnb.learnable(-1.0), max_val=symnb.learnable(1.0)
    )
    model = nn.MLP([2, 3, 1], activation=act, loss="bce_with_logits", backend="cpp")
    before = model.get_flat_parameters()
    values = before.copy()
    values[-2:] = [2.0, -2.0]  # min_val above max_val: a constant network
    with pytest.raises(ValueError, match="min_val must not be greater"):
        model.set_flat_parameters(values)
    np.testing.assert_array_equal(model.get_flat_parameters(), before)
    assert model.learned_constants()[0] == {"min_val": -1.0, "max_val": 1.0}


def test_set_flat_parameters_refuses_a_constant_that_float32_holds_as_zero():
    act = symnb.Activation("x / c", c=symnb.learnable(1.0, per="neuron"))
    model = nn.MLP([2, 3, 1], activation=act, backend="numpy")
    before = model.get_flat_parameters()
    values = before.astype(np.float64)
    values[-1] = 1e-50  # float32 rounds it to 0: x / c became inf
    with pytest.raises(ValueError, match=r"'c\[2\]' of layer 0\) is 1e-50") as info:
        model.set_flat_parameters(values)
    assert "dtype='float64'" in str(info.value)
    np.testing.assert_array_equal(model.get_flat_parameters(), before)


def test_tiny_weights_still_round_as_numpy_rounds_them():
    model = softplus_per_neuron()
    values = model.get_flat_parameters().astype(np.float64)
    values[0] = 1e-50  # a weight, not a constant
    model.set_flat_parameters(values)
    assert model.get_flat_parameters()[0] == 0.0


def test_load_refuses_a_file_with_a_constant_outside_its_domain(tmp_path):
    model = softplus_per_neuron()
    path = tmp_path / "model.npz"
    model.save(path)
    with np.load(path, allow_pickle=False) as data:
        arrays = dict(data)
    arrays["parameters"] = arrays["parameters"].copy()
    arrays["parameters"][-1] = 0.0
    np.savez(path, **arrays)
    with pytest.raises(symnb.ModelFileError, match="beta must not be 0"):
        nn.load(path)


def test_a_callback_returning_an_array_is_named_and_the_epoch_kept():
    def stop_when(epoch, logs):
        return np.array([epoch > 5, False])  # an array: no single truth value

    model = nn.MLP([2, 4, 1], activation="tanh", loss="bce_with_logits", seed=3)
    with pytest.raises(TypeError, match="callback .*stop_when returned array") as info:
        model.fit(X, Y, epochs=3, callbacks=[stop_when])
    assert "on_epoch_end" in str(info.value) and "return True" in str(info.value)
    # the epoch before the callback stays trained and recorded
    same = nn.MLP([2, 4, 1], activation="tanh", loss="bce_with_logits", seed=3)
    same.fit(X, Y, epochs=1)
    assert model.epochs_trained == 1 and len(model.history["loss"]) == 1
    np.testing.assert_array_equal(
        model.get_flat_parameters(), same.get_flat_parameters()
    )


def test_a_step_callback_returning_an_array_is_named():
    callback = nn.LambdaCallback(on_step_end=lambda step, logs: np.ones(2))
    model = nn.MLP([2, 4, 1], activation="tanh", loss="bce_with_logits")
    with pytest.raises(TypeError, match="returned array.* from on_step_end"):
        model.fit(X, Y, epochs=1, callbacks=[callback])


@pytest.mark.parametrize("estimator", [nn.MLPClassifier, nn.MLPRegressor])
def test_estimators_name_an_x_without_columns(estimator):
    with pytest.raises(ValueError, match=r"X has shape \(20, 0\): no features"):
        estimator(hidden_layer_sizes=(4,), epochs=1, backend="numpy").fit(
            np.zeros((20, 0)), Y
        )


def tanh_net(seed: int = 0) -> nn.MLP:
    return nn.MLP([2, 4, 1], activation="tanh", loss="bce_with_logits", seed=seed)


def settings_of(optimizer) -> tuple:
    return repr(optimizer), optimizer.lr, optimizer.weight_decay


@pytest.mark.parametrize(
    "case",
    ["optimizer of another model", "momentum out of range", "unknown monitor"],
)
def test_a_refused_fit_leaves_the_given_optimizer_as_it_was(case):
    model = tanh_net()
    owner = model if case != "optimizer of another model" else tanh_net()
    opt = nn.SGD(owner.parameters(), lr=0.01, momentum=0.9)
    before = settings_of(opt)
    options = {"lr": 0.5, "weight_decay": 0.1}
    if case == "momentum out of range":
        options["momentum"] = 1.5
    if case == "unknown monitor":
        options["callbacks"] = [nn.EarlyStopping(monitor="val_nothing")]
    with pytest.raises(ValueError):
        model.fit(X, Y, epochs=1, optimizer=opt, **options)
    assert settings_of(opt) == before


def test_fit_writes_the_settings_into_the_given_optimizer_when_it_trains():
    model = tanh_net()
    opt = nn.SGD(model.parameters(), lr=0.01, momentum=0.9)
    model.fit(X, Y, epochs=2, batch_size=None, optimizer=opt, lr=0.5, momentum=0.2)
    assert (opt.lr, opt.momentum) == (0.5, 0.2)
    same = tanh_net()
    same.fit(X, Y, epochs=2, batch_size=None, optimizer="sgd", lr=0.5, momentum=0.2)
    np.testing.assert_array_equal(
        model.get_flat_parameters(), same.get_flat_parameters()
    )


@pytest.mark.parametrize("seed", [-1, 1.5, "a"])
def test_a_fit_refusing_its_seed_keeps_the_last_history(seed):
    model = tanh_net()
    history = model.fit(X, Y, epochs=2)
    with pytest.raises((TypeError, ValueError), match="seed must be"):
        model.fit(X, Y, epochs=1, seed=seed)
    assert model.history is history and len(model.history["loss"]) == 2
    assert model.history.stop_reason == "completed"


@pytest.mark.parametrize("new_labels", [["x", "y", "z"], ["p", "q"]])
def test_a_failed_refit_keeps_the_classifier_consistent(new_labels):
    Xs, ys = datasets.spiral(30, classes=3, seed=0)
    clf = nn.MLPClassifier(hidden_layer_sizes=(8,), epochs=5, backend="numpy")
    clf.fit(Xs, np.array(["a", "b", "c"])[ys])
    before = clf.predict(Xs)
    clf.set_params(lr=float("nan"))
    with pytest.raises(ValueError, match="lr must be finite"):
        clf.fit(Xs, np.array(new_labels)[ys % len(new_labels)])
    # the classes stay those of the model that predicts: ['x', 'y', 'z'] named the
    # old model's classes, ['p', 'q'] raised IndexError
    assert clf.classes_.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(clf.predict(Xs), before)


def test_a_0d_array_where_a_list_is_expected_is_named(tmp_path):
    """A 0-d NumPy array claims to be iterable: these raised "iteration over a 0-d
    array" or "len() of unsized object", naming neither the argument nor the fix."""
    from symnb.nn.store import RunStore

    model = tanh_net()
    cases = [
        (
            "hidden must be a list",
            lambda: nn.compare(["relu"], (X, Y), hidden=np.array(4), progress=False),
        ),
        (
            "seeds must be a list",
            lambda: nn.compare(["relu"], (X, Y), seeds=np.array(0), progress=False),
        ),
        ("Adam needs the parameters", lambda: nn.Adam(np.array(1.0))),
        (
            "betas must be a pair",
            lambda: nn.Adam(model.parameters(), betas=np.array(0.9)),
        ),
        (
            "callbacks must be",
            lambda: model.fit(X, Y, epochs=1, callbacks=np.array(3)),
        ),
        (
            "keys must be a list",
            lambda: RunStore(tmp_path / "runs.sqlite").get_many(np.array("k")),
        ),
    ]
    for message, call in cases:
        with pytest.raises(TypeError, match=message):
            call()
    assert model.epochs_trained == 0
