"""Boundary inputs found by the fifteenth probe of the nn faces.

A model's ``Parameter`` objects are views of its flat buffers, but ``p.data = W``
rebound the view: another shape broke ``predict`` with NumPy's bare "shapes (4,2)
and (3,) not aligned", and an array of the right shape detached the layer from the
model (``get_flat_parameters``, ``save`` and the fused C++ step kept the old weights
while ``predict`` read the new ones). Assignment now writes into the view, and a
wrong shape, dtype or a non-finite value is refused naming the parameter. A
``Callback`` subclass whose hook takes other arguments than fit passes failed after
the first epoch's work with Python's bare "takes 1 positional argument but 3 were
given"; it is refused before training, naming the class and method. A masked array
given to ``set_flat_parameters`` (or assigned to ``p.data``) wrote the values hidden
under its mask. A built ``Dense`` layer's fields (``layer.weight = array``,
``layer.activation = None``, ``layer.mask = ...``) were kept: predict failed inside
NumPy or changed while the fused step and the saved file kept the network built;
they are read-only, as ``MLP.sizes`` is."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets, nn

X, Y = datasets.two_moons(24, seed=0)


def relu_reference(flat: np.ndarray, X: np.ndarray) -> np.ndarray:
    """The [2, 3, 1] relu network's output in float64 from a flat parameter vector
    (layout: weights, then biases)."""
    flat = np.asarray(flat, np.float64)
    W1, W2 = flat[:6].reshape(2, 3), flat[6:9].reshape(3, 1)
    b1, b2 = flat[9:12], flat[12:13]
    return (np.maximum(X.astype(np.float64) @ W1 + b1, 0.0) @ W2 + b2).ravel()


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_assigning_a_parameter_writes_into_the_model(backend, tmp_path):
    model = nn.MLP([2, 3, 1], backend=backend)
    W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    model.parameters()[0].data = W
    model.parameters()[1].data = [0.1, 0.2, 0.3]
    flat = model.get_flat_parameters()
    np.testing.assert_array_equal(flat[:6], W.ravel().astype(np.float32))
    np.testing.assert_array_equal(flat[9:12], np.float32([0.1, 0.2, 0.3]))
    want = relu_reference(flat, X)
    np.testing.assert_allclose(model.predict(X).ravel(), want, rtol=1e-5, atol=1e-6)
    model.save(tmp_path / "m.npz")  # the file holds what predict uses
    loaded = nn.load(tmp_path / "m.npz", backend="numpy")
    np.testing.assert_allclose(loaded.predict(X).ravel(), want, rtol=1e-5, atol=1e-6)


def test_the_fused_step_trains_the_assigned_weights():
    """The cpp model (fused step) given weights by assignment trains exactly as a
    generic-path model given the same weights by set_flat_parameters."""
    fused = nn.MLP([2, 3, 1], backend="cpp", seed=1)
    if not fused.fused:
        pytest.skip(f"no fused step here: {fused.fused_reason}")
    plain = nn.MLP([2, 3, 1], backend="numpy", seed=1)
    W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
    fused.parameters()[0].data = W
    flat = plain.get_flat_parameters()
    flat[:6] = W.ravel()
    plain.set_flat_parameters(flat)
    for model in (fused, plain):
        model.fit(X, Y, epochs=2, batch_size=8, optimizer="sgd", lr=0.1, shuffle=False)
    np.testing.assert_allclose(
        fused.get_flat_parameters(), plain.get_flat_parameters(), rtol=1e-4, atol=1e-6
    )
    np.testing.assert_allclose(fused.predict(X), plain.predict(X), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("what", "value", "error", "words"),
    [
        ("data", np.ones(3), ValueError, ["layers.0.weight.data", "(2, 3)", "(3,)"]),
        ("grad", np.ones((3, 2)), ValueError, ["layers.0.weight.grad", "(2, 3)"]),
        ("data", np.full((2, 3), 1e39), ValueError, ["finite", "float32"]),
        ("data", np.ones((2, 3), bool), TypeError, ["dtype bool"]),
        ("data", "abc", TypeError, ["layers.0.weight.data"]),
        (
            "data",
            np.ma.array(np.ones((2, 3)), mask=[[1, 0, 0], [0, 0, 0]]),
            ValueError,
            ["masked", "filled"],
        ),
    ],
)
def test_a_bad_assignment_is_named_and_changes_nothing(what, value, error, words):
    model = nn.MLP([2, 3, 1], backend="numpy")
    before = model.get_flat_parameters()
    with pytest.raises(error) as info:
        setattr(model.parameters()[0], what, value)
    for word in words:
        assert word in str(info.value)
    np.testing.assert_array_equal(model.get_flat_parameters(), before)
    np.testing.assert_allclose(
        model.predict(X).ravel(), relu_reference(before, X), rtol=1e-5, atol=1e-6
    )


def test_standalone_parameters_still_rebind():
    """A Parameter built by hand (not a model's view) keeps plain attributes."""
    p = nn.Parameter("w", np.zeros(3), np.zeros(3))
    p.data = np.ones(5)
    assert p.shape == (5,)


class SilentEpochEnd(nn.Callback):
    def on_epoch_end(self):  # fit passes (epoch, logs)
        return None


class LogsOnlyBegin(nn.Callback):
    def on_train_begin(self, logs, extra):  # one argument too many
        return None


@pytest.mark.parametrize(
    ("callback", "words"),
    [
        (SilentEpochEnd(), ["SilentEpochEnd.on_epoch_end", "epoch, logs"]),
        (LogsOnlyBegin(), ["LogsOnlyBegin.on_train_begin", "logs"]),
    ],
)
def test_a_callback_method_of_other_arguments_is_named_before_training(callback, words):
    model = nn.MLP([2, 3, 1], backend="numpy")
    before = model.get_flat_parameters()
    with pytest.raises(TypeError) as info:
        model.fit(X, Y, epochs=2, callbacks=[callback])
    for word in words:
        assert word in str(info.value)
    assert model.epochs_trained == 0
    np.testing.assert_array_equal(model.get_flat_parameters(), before)


def test_callback_methods_with_defaults_still_run():
    seen = []

    class Flexible(nn.Callback):
        def on_epoch_end(self, epoch, logs=None, *rest):
            seen.append(epoch)

    nn.MLP([2, 3, 1], backend="numpy").fit(X, Y, epochs=3, callbacks=[Flexible()])
    assert seen == [1, 2, 3]


def test_set_flat_parameters_refuses_masked_entries():
    model = nn.MLP([2, 3, 1], backend="numpy")
    before = model.get_flat_parameters()
    values = np.ma.array(np.ones(model.n_parameters), mask=False)
    values[2] = np.ma.masked
    with pytest.raises(ValueError, match=r"masked array with 1 masked entries.*\[2\]"):
        model.set_flat_parameters(values)
    np.testing.assert_array_equal(model.get_flat_parameters(), before)
    # a masked array without masked entries is its values
    model.set_flat_parameters(np.ma.array(np.ones(model.n_parameters), mask=False))
    np.testing.assert_array_equal(model.get_flat_parameters(), 1.0)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("weight", np.ones((2, 3))),
        ("bias", np.zeros(3)),
        ("activation", None),
        ("mask", np.zeros((2, 3))),
        ("fan_in", 5),
    ],
)
def test_a_built_layer_refuses_reassignment(field, value):
    model = nn.MLP([2, 3, 1], backend="numpy")
    before = model.get_flat_parameters()
    with pytest.raises(AttributeError, match=f"Dense.{field} is fixed"):
        setattr(model.layers[0], field, value)
    np.testing.assert_allclose(
        model.predict(X).ravel(), relu_reference(before, X), rtol=1e-5, atol=1e-6
    )
