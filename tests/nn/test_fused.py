"""The fused native training step (cpp backend) against the generic path.

Two models built alike (same seed), one with ``fused=True`` and one with
``fused=False``, must give the same loss and gradients (float64, tight tolerance) and
the same training curves (float32, within rounding: the fused matrix products sum in
another order than BLAS). Finite differences check the fused gradient on its own.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import datasets, nn
from symnb.backends import status
from tests.nn.gradcheck import finite_differences

pytestmark = pytest.mark.skipif(
    not status("cpp").usable, reason=f"cpp backend: {status('cpp').reason}"
)

SWISH = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.3)
LEARN_NEURON = symnb.Activation(
    "x*sigmoid(beta*x) + c*x",
    name="swish_cn",
    beta=symnb.learnable(1.1, per="neuron"),
    c=0.1,
)
LEARN_LAYER = symnb.Activation(
    "x*sigmoid(beta*x)", name="swish_l", beta=symnb.learnable(0.8)
)
USER_LOSS = symnb.Loss("log(cosh(y_pred - y_true))", name="logcosh")


def _moons(n=60, seed=0):
    return datasets.two_moons(n, noise=0.15, seed=seed)


def _regression(n=40, d=3, k=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.tanh(X @ rng.normal(size=(d, k))) + 0.1 * rng.normal(size=(n, k))
    return X, y


def _multiclass(n=60, seed=0):
    return datasets.spiral(n, classes=3, seed=seed)


MASK = np.ones((2, 5))
MASK[1, 0] = MASK[0, 3] = 0

# name -> (model kwargs, data function)
CASES = {
    "swish-bce": (
        {"sizes": [2, 6, 5, 1], "activation": SWISH, "loss": "bce_with_logits"},
        _moons,
    ),
    "heterogeneous": (
        {
            "sizes": [2, 5, 4, 1],
            "activation": [["relu", SWISH, "tanh", SWISH, "gelu"], "elu"],
            "loss": "bce_with_logits",
        },
        _moons,
    ),
    # several constants per neuron, each neuron its own values: the fused step reads
    # them from a table by position and column
    "per-neuron-rational": (
        {
            "sizes": [2, 6, 1],
            "activation": [
                [
                    symnb.Activation(
                        "(a0 + a1*x + a2*x**2)/(1 + b1*x**2)",
                        name="rat",
                        a0=0.1 * k,
                        a1=1 + 0.1 * k,
                        a2=0.3 + 0.05 * k,
                        b1=0.5 + 0.2 * k,
                    )
                    if k != 2
                    else "relu"
                    for k in range(6)
                ]
            ],
            "loss": "bce_with_logits",
        },
        _moons,
    ),
    "learnable-per-neuron": (
        {
            "sizes": [2, 5, 3, 1],
            "activation": [
                [LEARN_NEURON, "tanh", LEARN_NEURON, SWISH, LEARN_NEURON],
                LEARN_LAYER,
            ],
            "loss": "bce_with_logits",
        },
        _moons,
    ),
    "learnable-homogeneous": (
        {"sizes": [2, 4, 1], "activation": LEARN_LAYER, "loss": "bce_with_logits"},
        _moons,
    ),
    "masks": (
        {
            "sizes": [2, 5, 1],
            "activation": "tanh",
            "loss": "bce_with_logits",
            "masks": [MASK, None],
        },
        _moons,
    ),
    "mse-regression": (
        {"sizes": [3, 7, 2], "activation": SWISH, "loss": "mse"},
        _regression,
    ),
    "user-loss": (
        {"sizes": [3, 6, 2], "activation": "tanh", "loss": USER_LOSS},
        _regression,
    ),
    "bce-sigmoid-output": (
        {"sizes": [2, 5, 1], "activation": SWISH, "loss": "bce"},
        _moons,
    ),
    "cross-entropy": (
        {"sizes": [2, 8, 6, 3], "activation": SWISH, "loss": "cross_entropy"},
        _multiclass,
    ),
    "cross-entropy-smoothing": (
        {
            "sizes": [2, 6, 3],
            "activation": "tanh",
            "loss": nn.SoftmaxCrossEntropy(label_smoothing=0.1),
        },
        _multiclass,
    ),
}


def _pair(name, dtype="float64", seed=1):
    kwargs, data = CASES[name]
    kwargs = dict(kwargs)
    sizes = kwargs.pop("sizes")
    fused = nn.MLP(sizes, backend="cpp", dtype=dtype, seed=seed, fused=True, **kwargs)
    generic = nn.MLP(
        sizes, backend="cpp", dtype=dtype, seed=seed, fused=False, **kwargs
    )
    X, y = data()
    return fused, generic, X, y


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("penalties", [{}, {"l1": 0.01, "l2": 0.02}], ids=["", "l1l2"])
def test_same_gradients_as_generic(name, penalties):
    fused, generic, X, y = _pair(name)
    assert fused.fused and not generic.fused
    np.testing.assert_array_equal(
        fused.get_flat_parameters(), generic.get_flat_parameters()
    )
    lf, gf = fused.loss_and_gradient(X, y, **penalties)
    lg, gg = generic.loss_and_gradient(X, y, **penalties)
    assert lf == pytest.approx(lg, rel=1e-12, abs=1e-14)
    np.testing.assert_allclose(gf, gg, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize(
    "name", ["swish-bce", "learnable-per-neuron", "cross-entropy", "user-loss", "masks"]
)
def test_fused_gradient_matches_finite_differences(name):
    fused, _, X, y = _pair(name)
    X, y = X[:20], y[:20]
    _, grad = fused.loss_and_gradient(X, y, l2=0.01)
    fd = finite_differences(fused, X, y, l2=0.01)
    start = 0  # masked weights get no gradient (they stay zero)
    for layer in fused.layers:
        size = layer.fan_in * layer.fan_out
        if layer.mask_host is not None:
            fd[start : start + size] *= layer.mask_host.ravel()
        start += size
    scale = max(1.0, float(np.max(np.abs(fd))))
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7 * scale)


OPTIMIZERS = {
    "sgd": lambda p: nn.SGD(p, lr=0.05),
    "sgd-momentum": lambda p: nn.SGD(p, lr=0.05, momentum=0.9, weight_decay=1e-3),
    "sgd-nesterov": lambda p: nn.SGD(p, lr=0.05, momentum=0.5, nesterov=True),
    "adam": lambda p: nn.Adam(p, lr=0.01),
    "adam-decay": lambda p: nn.Adam(p, lr=0.01, weight_decay=1e-3),
}


@pytest.mark.parametrize("opt", list(OPTIMIZERS))
@pytest.mark.parametrize(
    "name",
    [
        "swish-bce",
        "learnable-per-neuron",
        "per-neuron-rational",
        "masks",
        "cross-entropy",
        "user-loss",
    ],
)
def test_same_training_curve_float32(name, opt):
    fused, generic, X, y = _pair(name, dtype="float32")
    histories = []
    for model in (fused, generic):
        optimizer = OPTIMIZERS[opt](model.parameters())
        histories.append(
            model.fit(
                X, y, epochs=4, batch_size=16, optimizer=optimizer, l1=1e-3, l2=1e-3
            )
        )
    hf, hg = histories
    assert hf.stop_reason == hg.stop_reason == "completed"
    assert hf.steps == hg.steps
    np.testing.assert_allclose(hf["loss"], hg["loss"], rtol=2e-4, atol=1e-6)
    np.testing.assert_allclose(
        fused.get_flat_parameters(), generic.get_flat_parameters(), atol=2e-4
    )
    if name == "masks":
        assert fused.layers[0].weight.numpy()[1, 0] == 0
        assert fused.layers[0].weight.numpy()[0, 3] == 0
    np.testing.assert_allclose(
        fused.decision_function(X), generic.decision_function(X), atol=1e-3
    )


def test_float64_training_matches_closely():
    fused, generic, X, y = _pair("learnable-per-neuron", dtype="float64")
    for model in (fused, generic):
        model.fit(X, y, epochs=3, batch_size=8, optimizer="adam", lr=0.01)
    np.testing.assert_allclose(
        fused.get_flat_parameters(),
        generic.get_flat_parameters(),
        rtol=1e-9,
        atol=1e-11,
    )
    # learned constants reached the kernels used for inference
    for la, lb in zip(fused.learned_constants(), generic.learned_constants()):
        for key in la:
            np.testing.assert_allclose(la[key], lb[key], rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(
        fused.decision_function(X), generic.decision_function(X), rtol=1e-9, atol=1e-11
    )


def test_train_step_and_custom_optimizer():
    class HalfSGD(nn.SGD):
        """A subclass: its own step runs in Python after the fused gradient."""

        def step(self):
            self.lr = self.lr  # no change, still a Python step
            super().step()

    fused, generic, X, y = _pair("swish-bce", dtype="float64")
    losses = []
    for model in (fused, generic):
        opt = HalfSGD(model.parameters(), lr=0.1, momentum=0.5)
        losses.append([model.train_step(X[:16], y[:16], opt) for _ in range(3)])
        model.train_epoch(X, y, opt, batch_size=10)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-12)
    np.testing.assert_allclose(
        fused.get_flat_parameters(),
        generic.get_flat_parameters(),
        rtol=1e-10,
        atol=1e-12,
    )


def test_divergence_stops_with_last_finite_parameters():
    X, y = _regression(40, k=1)
    for fused_flag in (True, False):
        model = nn.MLP(
            [3, 8, 1],
            activation="x**2",
            loss="mse",
            backend="cpp",
            seed=0,
            fused=fused_flag,
        )
        assert model.fused is fused_flag
        with pytest.warns(RuntimeWarning, match="NaN or infinite"):
            history = model.fit(
                X, y * 1e6, epochs=50, batch_size=8, optimizer="sgd", lr=10.0
            )
        assert history.stop_reason == "diverged"
        assert np.all(np.isfinite(model.get_flat_parameters()))


def test_choice_is_visible_and_can_be_forced():
    auto = nn.MLP([2, 4, 1], activation=SWISH, loss="bce_with_logits", backend="cpp")
    assert auto.fused and auto.fused_reason is None and "fused=True" in repr(auto)
    off = nn.MLP([2, 4, 1], backend="cpp", fused=False)
    assert (
        not off.fused and "fused" not in repr(off) and "fused=False" in off.fused_reason
    )
    numpy_model = nn.MLP([2, 4, 1], backend="numpy")
    assert not numpy_model.fused and "cpp" in numpy_model.fused_reason
    with pytest.raises(ValueError, match="fused=True"):
        nn.MLP([2, 4, 1], backend="numpy", fused=True)


def test_interrupt_at_step_boundary_keeps_complete_steps():
    """Ctrl-C during fit with the fused step: stops at a step boundary."""
    import os
    import signal

    X, y = _moons(400)
    model = nn.MLP([2, 8, 1], activation=SWISH, loss="bce_with_logits", backend="cpp")
    assert model.fused

    class Interrupt(nn.Callback):
        def on_step_end(self, step, logs):
            if step == 3:
                os.kill(os.getpid(), signal.SIGINT)

    with pytest.warns(RuntimeWarning, match="interrupted"):
        history = model.fit(
            X, y, epochs=2, batch_size=10, callbacks=[Interrupt()], step_rate=None
        )
    assert history.stop_reason == "interrupted"
    assert history.partial["step"] >= 3
    assert np.all(np.isfinite(model.get_flat_parameters()))


def test_changed_label_smoothing_regenerates_the_step():
    fused, generic, X, y = _pair("cross-entropy")
    for model in (fused, generic):
        model.loss.label_smoothing = 0.2
    lf, gf = fused.loss_and_gradient(X, y)
    lg, gg = generic.loss_and_gradient(X, y)
    assert lf == pytest.approx(lg, rel=1e-12)
    np.testing.assert_allclose(gf, gg, rtol=1e-10, atol=1e-13)


def test_large_layers_stay_on_blas_unless_forced():
    from symnb.nn.fused import AUTO_MAX_LAYER_WEIGHTS

    wide = AUTO_MAX_LAYER_WEIGHTS // 4 + 1
    auto = nn.MLP([4, wide, 1], activation="tanh", backend="cpp")
    assert not auto.fused and "BLAS" in auto.fused_reason
    forced = nn.MLP([4, wide, 1], activation="tanh", backend="cpp", fused=True)
    assert forced.fused


def test_activation_fused_into_the_product_epilogue(monkeypatch):
    """The optional epilogue variant (bias + activation in the forward product's
    store) gives the generic path's gradients, with and without learnable
    constants."""
    from symnb.codegen import train_step

    monkeypatch.setattr(train_step, "FUSED_EPILOGUE", True)
    for name in ("swish-bce", "learnable-homogeneous", "cross-entropy"):
        fused, generic, X, y = _pair(name)
        assert "SYMNB_STORE(i, v) do" in fused._fused_step().source.text
        lf, gf = fused.loss_and_gradient(X, y)
        lg, gg = generic.loss_and_gradient(X, y)
        assert lf == pytest.approx(lg, rel=1e-12, abs=1e-14)
        np.testing.assert_allclose(gf, gg, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_register_tiles_with_remainders_match_generic(dtype):
    """Layer sizes that leave partial register tiles (inputs and outputs not
    multiples of 16 or of the vector length, narrow and wide layers, few rows)."""
    rng = np.random.default_rng(5)
    sizes = [3, 37, 20, 5, 17, 9]
    X = rng.normal(size=(23, 3))
    y = rng.normal(size=(23, 9))
    kwargs = {"activation": SWISH, "loss": "mse", "dtype": dtype, "seed": 4}
    fused = nn.MLP(sizes, backend="cpp", fused=True, **kwargs)
    generic = nn.MLP(sizes, backend="cpp", fused=False, **kwargs)
    for rows in (23, 5, 1):
        lf, gf = fused.loss_and_gradient(X[:rows], y[:rows])
        lg, gg = generic.loss_and_gradient(X[:rows], y[:rows])
        if dtype == "float64":
            assert lf == pytest.approx(lg, rel=1e-12)
            np.testing.assert_allclose(gf, gg, rtol=1e-10, atol=1e-13)
        else:
            assert lf == pytest.approx(lg, rel=1e-5)
            np.testing.assert_allclose(gf, gg, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("name", list(CASES))
def test_rows_in_chunks_give_the_same_gradient(name, monkeypatch):
    """A step on more rows than CHUNK_ROWS runs them in chunks and adds up the
    gradients (also learnable constants, masks, label smoothing): the generic
    path's loss and gradient, with a chunk size that does not divide the rows."""
    from symnb.codegen import train_step

    monkeypatch.setattr(train_step, "CHUNK_ROWS", 7)
    fused, generic, X, y = _pair(name)
    assert fused._fused_step().spec.chunk_rows == 7
    lf, gf = fused.loss_and_gradient(X, y, l1=0.01, l2=0.02)
    lg, gg = generic.loss_and_gradient(X, y, l1=0.01, l2=0.02)
    assert lf == pytest.approx(lg, rel=1e-12, abs=1e-14)
    np.testing.assert_allclose(gf, gg, rtol=1e-10, atol=1e-13)
    if name == "cross-entropy":  # and training through the epoch call
        for model in (fused, generic):
            model.fit(X, y, epochs=2, batch_size=25, optimizer="adam", lr=0.01)
        np.testing.assert_allclose(
            fused.get_flat_parameters(), generic.get_flat_parameters(), atol=1e-10
        )


@pytest.mark.parametrize(
    "text",
    [
        "Piecewise((log1p((y_pred - y_true)**2), Abs(y_pred - y_true) < 1), "
        "(Abs(y_pred - y_true), True))",
        "log(cosh(y_pred - y_true))",
    ],
)
def test_user_loss_with_branches_has_the_generic_value_float32(text):
    """g++ vectorised the loss loop's double `omp simd` reduction wrongly for a branch
    holding log1p (fused loss 0.108 against 0.506): the fused value must equal the
    generic path's and a float64 NumPy evaluation of the same predictions."""
    X, y = _regression()
    loss = symnb.Loss(text, name="branchy")
    values = []
    for fused in (True, False):
        model = nn.MLP(
            [3, 6, 2],
            activation="tanh",
            loss=loss,
            backend="cpp",
            dtype="float32",
            seed=1,
            fused=fused,
        )
        values.append(model.loss_and_gradient(X, y)[0])
    u = model.predict(X).astype(np.float64) - y
    ref = (
        symnb.Loss(text)
        .compile(backend="numpy", dtype="float64")
        .value(u.ravel(), np.zeros(u.size))
    )
    np.testing.assert_allclose(values, [ref, ref], rtol=1e-5)
