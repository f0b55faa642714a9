"""Training behaviour of symnb.nn.MLP: convergence, reproducibility, backends,
callbacks, interrupts, NaN stops, save/load, bad inputs, masks and learnable constants.
"""

from __future__ import annotations

import os
import signal
import threading
import warnings

import numpy as np
import pytest

import symnb
from symnb import datasets, nn
from tests.conftest import backend_params

SWISH = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.0)


def _moons(n=300):
    return datasets.two_moons(n, noise=0.1, seed=0)


# ------------------------------------------------ convergence


def test_two_moons_reaches_97_percent():
    # documented: 2-16-16-1 swish, Adam lr 0.01, batch 32, 60 epochs, seed 0
    # (reaches 0.97 at epoch 6, ends at 1.0 here)
    X, y = datasets.two_moons(500, noise=0.1, seed=0)
    model = nn.MLP([2, 16, 16, 1], activation=SWISH, loss="bce_with_logits", seed=0)
    history = model.fit(X, y, epochs=60, batch_size=32, lr=0.01)
    assert history.stop_reason == "completed"
    assert history["accuracy"][-1] >= 0.97
    assert model.evaluate(X, y)["accuracy"] >= 0.97


def test_digits_reaches_95_percent_test_accuracy():
    pytest.importorskip("sklearn")
    # documented: 64-128-10 relu, softmax cross-entropy, Adam lr 0.005, batch 32,
    # 30 epochs, seed 0 (reaches 0.95 at epoch 8, ends at 0.97 here)
    X, y = datasets.digits()
    Xtr, Xte, ytr, yte = datasets.train_test_split(X, y, test_size=0.25, seed=0)
    model = nn.MLP([64, 128, 10], activation="relu", loss="cross_entropy", seed=0)
    history = model.fit(
        Xtr, ytr, epochs=30, batch_size=32, lr=0.005, validation_data=(Xte, yte)
    )
    assert model.evaluate(Xte, yte)["accuracy"] >= 0.95
    assert "val_accuracy" in history and "val_loss" in history
    proba = model.predict_proba(Xte[:5])
    assert proba.shape == (5, 10)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)


def test_sine_regression_learns():
    X, y = datasets.sine(200, noise=0.05, seed=0)
    model = nn.MLP([1, 16, 16, 1], activation="tanh", loss="mse", seed=0)
    model.fit(X, y, epochs=80, lr=0.01, batch_size=20)
    scores = model.evaluate(X, y)
    assert scores["r2"] > 0.9
    assert set(scores) == {"loss", "mse", "mae", "r2"}
    assert model.predict(X).shape == (200,)


# ------------------------------------------------ reproducibility


def test_same_seed_same_weights_and_curve():
    X, y = _moons()
    a = nn.MLP([2, 8, 8, 1], activation=SWISH, loss="bce_with_logits", seed=4)
    b = nn.MLP([2, 8, 8, 1], activation=SWISH, loss="bce_with_logits", seed=4)
    c = nn.MLP([2, 8, 8, 1], activation=SWISH, loss="bce_with_logits", seed=5)
    np.testing.assert_array_equal(a.get_flat_parameters(), b.get_flat_parameters())
    assert not np.array_equal(a.get_flat_parameters(), c.get_flat_parameters())
    ha = a.fit(X, y, epochs=4, lr=0.01)
    hb = b.fit(X, y, epochs=4, lr=0.01)
    assert ha["loss"] == hb["loss"]
    np.testing.assert_array_equal(a.get_flat_parameters(), b.get_flat_parameters())


def test_backends_give_the_same_training_curve():
    from symnb.backends import status

    usable = [b for b in ("numpy", "cpp", "cuda") if status(b).usable]
    if len(usable) < 2:
        pytest.skip(f"only {usable} usable here")
    X, y = _moons(200)
    curves = {}
    weights0 = {}
    for be in usable:
        model = nn.MLP(
            [2, 8, 8, 1],
            activation=[SWISH, "tanh"],
            loss="bce_with_logits",
            backend=be,
            seed=1,
        )
        assert model.backend == be
        weights0[be] = model.get_flat_parameters()
        curves[be] = model.fit(X, y, epochs=5, lr=0.01, batch_size=20, seed=3)["loss"]
    ref = usable[0]
    for be in usable[1:]:
        np.testing.assert_array_equal(weights0[be], weights0[ref])
        np.testing.assert_allclose(curves[be], curves[ref], rtol=2e-4)


@pytest.mark.parametrize("backend", backend_params())
def test_backend_trains(backend):
    X, y = _moons(200)
    model = nn.MLP([2, 8, 1], activation=SWISH, loss="bce_with_logits", backend=backend)
    assert model.backend == backend
    history = model.fit(X, y, epochs=3, lr=0.02)
    assert history["loss"][-1] < history["loss"][0]


# ------------------------------------------------ initialisation


@pytest.mark.parametrize(
    "name",
    [
        "he_uniform",
        "he_normal",
        "xavier_uniform",
        "xavier_normal",
        "lecun_uniform",
        "lecun_normal",
        "orthogonal",
    ],
)
def test_initialisers_have_the_documented_scale(name):
    rng = np.random.default_rng(0)
    W = nn.init.get(name)((200, 300), rng)
    fan_in, fan_out = 200, 300
    expected = {
        "he_uniform": 2 / fan_in,
        "he_normal": 2 / fan_in,
        "xavier_uniform": 2 / (fan_in + fan_out),
        "xavier_normal": 2 / (fan_in + fan_out),
        "lecun_uniform": 1 / fan_in,
        "lecun_normal": 1 / fan_in,
        "orthogonal": None,
    }[name]
    if expected is None:
        np.testing.assert_allclose(W @ W.T, np.eye(200), atol=1e-10)
    else:
        assert abs(W.var() / expected - 1) < 0.05


def test_init_per_layer_and_bias_constant():
    model = nn.MLP(
        [3, 4, 2],
        activation="tanh",
        init=["orthogonal", "zeros"],
        bias_init=[0.5, "zeros"],
    )
    W0 = model.layers[0].weight.numpy()
    np.testing.assert_allclose(W0 @ W0.T, np.eye(3), atol=1e-6)  # orthonormal rows
    assert np.all(model.layers[1].weight.numpy() == 0)
    assert np.all(model.layers[0].bias.numpy() == 0.5)
    assert nn.init.default_for(["relu"]) == "he_normal"
    assert nn.init.default_for(["selu"]) == "lecun_normal"
    assert nn.init.default_for(["tanh"]) == "xavier_uniform"
    with pytest.raises(ValueError, match="unknown initialiser"):
        nn.MLP([2, 2, 1], init="kaiming_magic")


# ------------------------------------------------ heterogeneous, masks, learnable


def test_heterogeneous_layer_and_hidden_outputs():
    acts = [SWISH, "tanh", symnb.Activation("sin(x)", name="sine"), "relu"]
    model = nn.MLP([2, 4, 3, 1], activation=[acts, "tanh"], loss="bce_with_logits")
    assert not model.layers[0].activation.homogeneous
    X, _y = _moons(100)
    hidden = model.hidden_outputs(X)
    assert [h.shape for h in hidden] == [(100, 4), (100, 3)]
    # neuron 1 of layer 0 is tanh of its pre-activation
    W, b = model.layers[0].weight.numpy(), model.layers[0].bias.numpy()
    np.testing.assert_allclose(
        hidden[0][:, 1], np.tanh(X @ W[:, 1] + b[1]), rtol=1e-5, atol=1e-6
    )
    assert len(model.layers) == 3 and model.sizes == [2, 4, 3, 1]


def test_masked_weights_stay_zero():
    mask = np.array([[1, 0, 1, 0], [0, 1, 1, 0]])
    X, y = _moons(100)
    model = nn.MLP(
        [2, 4, 1], activation="tanh", loss="bce_with_logits", masks=[mask, None]
    )
    model.fit(
        X, y, epochs=3, lr=0.05, optimizer="adam", weight_decay=0.01, l1=0.01, l2=0.01
    )
    opt = nn.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.1)
    model.train_epoch(X, y, optimizer=opt, batch_size=10, l1=0.01, l2=0.01)
    W = model.layers[0].weight.numpy()
    assert np.all(W[mask == 0] == 0)
    assert np.all(W[mask == 1] != 0)


def test_learnable_constants_train_and_are_readable():
    beta_layer = symnb.Activation(
        "x*sigmoid(beta*x)", name="swish_l", beta=symnb.learnable(1.0)
    )
    beta_neuron = symnb.Activation(
        "x*sigmoid(beta*x)", name="swish_n", beta=symnb.learnable(1.0, per="neuron")
    )
    X, y = _moons(200)
    model = nn.MLP(
        [2, 6, 6, 1],
        activation=[beta_layer, beta_neuron],
        loss="bce_with_logits",
        seed=0,
    )
    model.fit(X, y, epochs=5, lr=0.05)
    learned = model.learned_constants()
    assert isinstance(learned[0]["beta"], float) and learned[0]["beta"] != 1.0
    per_neuron = learned[1]["beta"]
    assert per_neuron.shape == (6,) and len(set(per_neuron.round(6))) > 1
    # the kernel uses the learned values: a fresh model with them predicts the same
    fixed = nn.MLP(
        [2, 6, 6, 1],
        activation=[
            SWISH.with_constants(beta=learned[0]["beta"]),
            [SWISH.with_constants(beta=float(b)) for b in per_neuron],
        ],
        loss="bce_with_logits",
        seed=0,
    )
    p = model.get_flat_parameters()
    fixed.set_flat_parameters(p[: fixed.n_parameters])
    np.testing.assert_allclose(
        fixed.decision_function(X), model.decision_function(X), rtol=1e-5, atol=1e-6
    )


# ------------------------------------------------ optimizers


def test_sgd_momentum_and_adam_follow_the_update_rules():
    X, y = _moons(64)
    for make, rule in (
        (lambda p: nn.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01), "sgd"),
        (lambda p: nn.Adam(p, lr=0.01, weight_decay=0.01), "adam"),
        (lambda p: nn.SGD(p, lr=0.1, momentum=0.5, nesterov=True), "nesterov"),
    ):
        model = nn.MLP(
            [2, 5, 1],
            activation="tanh",
            loss="bce_with_logits",
            dtype="float64",
            seed=0,
        )
        opt = make(model.parameters())
        w = model.get_flat_parameters()
        m = np.zeros_like(w)
        v = np.zeros_like(w)
        for t in range(1, 4):
            _, g = model.loss_and_gradient(X, y)
            model.train_step(X, y, optimizer=opt)
            if rule in ("sgd", "nesterov"):
                g = g + opt.weight_decay * w
                m = g if t == 1 else opt.momentum * m + g
                step = g + opt.momentum * m if rule == "nesterov" else m
                w = w - opt.lr * step
            else:
                g = g + 0.01 * w
                m = 0.9 * m + 0.1 * g
                v = 0.999 * v + 0.001 * g * g
                mh, vh = m / (1 - 0.9**t), v / (1 - 0.999**t)
                w = w - 0.01 * mh / (np.sqrt(vh) + 1e-8)
            np.testing.assert_allclose(
                model.get_flat_parameters(), w, rtol=1e-10, atol=1e-12
            )


def test_optimizer_arguments_are_checked():
    model = nn.MLP([2, 2, 1])
    with pytest.raises(ValueError, match="learning rate"):
        nn.SGD(model.parameters(), lr=-1)
    with pytest.raises(ValueError, match="momentum"):
        nn.SGD(model.parameters(), lr=0.1, momentum=1.5)
    with pytest.raises(ValueError, match="unknown optimizer"):
        model.fit(np.zeros((4, 2)), np.zeros(4), optimizer="adagrad")


# ------------------------------------------------ callbacks and history


def test_callbacks_see_epochs_and_can_stop():
    X, y = _moons(100)
    model = nn.MLP([2, 4, 1], activation="tanh", loss="bce_with_logits")
    seen = []

    def on_epoch(epoch, logs):
        seen.append((epoch, sorted(logs)))
        return epoch == 3

    history = model.fit(X, y, epochs=10, callbacks=[on_epoch], validation_data=(X, y))
    assert history.stop_reason == "callback"
    assert len(history) == 3 and history.epochs == [1, 2, 3]
    assert seen[0][1] == ["accuracy", "loss", "time", "val_accuracy", "val_loss"]
    # epochs continue across fit calls
    history2 = model.fit(X, y, epochs=2)
    assert history2.epochs == [4, 5]


def test_step_callbacks_are_rate_limited_and_can_stop():
    X, y = _moons(300)
    model = nn.MLP([2, 4, 1], activation="tanh", loss="bce_with_logits")

    class Count(nn.Callback):
        def __init__(self):
            self.calls = []

        def on_step_end(self, step, logs):
            self.calls.append((logs["epoch"], step))

    every = Count()
    model.fit(X, y, epochs=2, batch_size=10, callbacks=[every], step_rate=None)
    assert len(every.calls) == 60
    limited = Count()
    model.fit(X, y, epochs=2, batch_size=10, callbacks=[limited], step_rate=1e-9)
    # the first step of the run and the last step of each epoch
    assert len(limited.calls) <= 3 and limited.calls[-1][1] == 30

    stop = nn.LambdaCallback(on_step_end=lambda step, logs: step == 5)
    history = model.fit(X, y, epochs=3, batch_size=10, callbacks=[stop], step_rate=None)
    assert history.stop_reason == "callback" and history.steps == 5
    assert len(history) == 0 and history.partial["step"] == 5
    assert "epoch" in history.message and "step 5" in history.message


def test_early_stopping_and_epochs_to():
    X, y = _moons(200)
    model = nn.MLP([2, 8, 1], activation="tanh", loss="bce_with_logits")
    stopper = nn.EarlyStopping(monitor="accuracy", target=0.8, patience=100)
    history = model.fit(X, y, epochs=200, lr=0.02, callbacks=[stopper])
    assert history.stop_reason == "callback"
    assert history["accuracy"][-1] >= 0.8
    assert history.epochs_to("accuracy", 0.8) == len(history)
    assert history.epochs_to("loss", -1.0) is None


# ------------------------------------------------ interrupts and NaN


def _replay(seed, steps, X, y, batch):
    """A model trained for exactly ``steps`` steps without interruption."""
    model = nn.MLP([2, 16, 16, 1], activation=SWISH, loss="bce_with_logits", seed=seed)
    stop = nn.LambdaCallback(on_step_end=lambda step, logs: None)
    count = {"n": 0}

    def on_step(step, logs):
        count["n"] += 1
        return count["n"] >= steps

    stop._step = on_step
    model.fit(
        X,
        y,
        epochs=1_000_000,  # the fused step does ~100,000 steps in the 0.3 s
        batch_size=batch,
        lr=0.01,
        callbacks=[stop],
        step_rate=None,
        metrics=[],
    )
    return model


def test_interrupt_stops_at_a_step_boundary():
    X, y = _moons(300)
    model = nn.MLP([2, 16, 16, 1], activation=SWISH, loss="bce_with_logits", seed=2)
    # whatever was installed before (a shell's background job starts with SIGINT ignored)
    before = signal.getsignal(signal.SIGINT)

    def interrupt(step, logs):
        if logs["epoch"] == 2 and step == 4:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.warns(RuntimeWarning, match="interrupted at epoch 2, step 4"):
        history = model.fit(
            X,
            y,
            epochs=5,
            batch_size=30,
            lr=0.01,
            metrics=[],
            callbacks=[nn.LambdaCallback(on_step_end=interrupt)],
            step_rate=None,
        )
    assert history.stop_reason == "interrupted" and history.interrupted
    assert len(history) == 1 and history.steps == 14
    assert history.partial == {
        "epoch": 2,
        "step": 4,
        "loss": pytest.approx(history.partial["loss"]),
    }
    replay = _replay(2, 14, X, y, 30)
    np.testing.assert_array_equal(
        model.get_flat_parameters(), replay.get_flat_parameters()
    )
    # the previous SIGINT handler is back
    assert signal.getsignal(signal.SIGINT) is before


def test_interrupt_from_another_thread_leaves_consistent_parameters():
    X, y = datasets.two_moons(1000, noise=0.1, seed=0)
    model = nn.MLP([2, 16, 16, 1], activation=SWISH, loss="bce_with_logits", seed=3)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        history = model.fit(X, y, epochs=10_000, batch_size=8, lr=0.01, metrics=[])
    timer.join()
    assert history.stop_reason == "interrupted"
    replay = _replay(3, history.steps, X, y, 8)
    np.testing.assert_array_equal(
        model.get_flat_parameters(), replay.get_flat_parameters()
    )


def test_train_epoch_reraises_interrupt_after_the_step():
    X, y = _moons(100)
    model = nn.MLP([2, 4, 1], activation="tanh", loss="bce_with_logits")
    opt = nn.SGD(model.parameters(), lr=0.1)
    calls = {"n": 0}
    original = model._train_step_arrays

    def step(*args):
        calls["n"] += 1
        if calls["n"] == 2:
            os.kill(os.getpid(), signal.SIGINT)
        return original(*args)

    model._train_step_arrays = step
    with pytest.raises(KeyboardInterrupt):
        model.train_epoch(X, y, optimizer=opt, batch_size=10)
    assert calls["n"] == 2 and opt.steps == 2


def test_nan_loss_stops_naming_epoch_and_step_and_keeps_finite_weights():
    # log(x) of negative pre-activations is NaN from the first step on
    bad = symnb.Activation("log(x)", name="log")
    X, y = _moons(100)
    model = nn.MLP([2, 4, 1], activation=bad, loss="bce_with_logits", seed=0)
    before = model.get_flat_parameters()
    with pytest.warns(RuntimeWarning, match=r"epoch 1, step 1"):
        history = model.fit(X, y, epochs=3)
    assert history.stop_reason == "diverged"
    assert "NaN or infinite" in history.message
    np.testing.assert_array_equal(model.get_flat_parameters(), before)


def test_divergence_mid_training_restores_last_finite_parameters():
    X, y = datasets.sine(100, seed=0)
    model = nn.MLP(
        [1, 8, 1], activation=symnb.Activation("x**3", name="cube"), loss="mse", seed=0
    )
    with pytest.warns(RuntimeWarning, match=r"epoch \d+, step \d+"):
        history = model.fit(
            X, y * 100, epochs=50, lr=0.5, optimizer="sgd", batch_size=10
        )
    assert history.stop_reason == "diverged"
    assert np.all(np.isfinite(model.get_flat_parameters()))
    opt = nn.SGD(model.parameters(), lr=1e30)
    with pytest.raises(nn.TrainingDiverged, match="NaN or infinite"):
        for _ in range(10):
            model.train_epoch(X, y * 100, optimizer=opt, batch_size=10)
    assert np.all(np.isfinite(model.get_flat_parameters()))


# ------------------------------------------------ save / load


def test_save_load_round_trip(tmp_path):
    learn = symnb.Activation(
        "x*sigmoid(beta*x) + c*x",
        name="swish_c",
        beta=symnb.learnable(1.0, per="neuron"),
        c=0.1,
    )
    user_loss = symnb.Loss(
        "softplus(y_pred) - y_pred*y_true + 0.01*y_pred**2", name="reg_bce"
    )
    mask = np.ones((2, 5))
    mask[1, 0] = 0
    X, y = _moons(150)
    model = nn.MLP(
        [2, 5, 4, 1],
        activation=[[learn, "tanh", learn, "gelu", SWISH], "elu"],
        loss=user_loss,
        task="binary",
        masks={0: mask},
        seed=3,
    )
    model.fit(X, y, epochs=3, lr=0.02)
    path = tmp_path / "model.symnb"
    model.save(path)
    loaded = nn.load(path)
    np.testing.assert_array_equal(
        loaded.decision_function(X), model.decision_function(X)
    )
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert loaded.task == "binary" and loaded.sizes == model.sizes
    assert loaded.epochs_trained == 3
    np.testing.assert_array_equal(
        loaded.learned_constants()[0]["beta"], model.learned_constants()[0]["beta"]
    )
    assert loaded.layers[0].activations[0].text == learn.text
    # the masked weight stays masked when training goes on after loading
    loaded.fit(X, y, epochs=1)
    assert loaded.layers[0].weight.numpy()[1, 0] == 0


def test_save_load_multiclass_and_regression(tmp_path):
    X, y = datasets.spiral(120, classes=3, seed=0)
    clf = nn.MLP([2, 8, 3], activation="tanh", loss="cross_entropy", dtype="float64")
    clf.fit(X, y, epochs=2)
    clf.save(tmp_path / "c.npz")
    np.testing.assert_array_equal(
        nn.load(tmp_path / "c.npz").predict_proba(X), clf.predict_proba(X)
    )
    Xs, ys = datasets.sine(50)
    reg = nn.MLP(
        [1, 6, 1],
        activation=symnb.activation("leaky_relu", alpha=0.2),
        loss=symnb.loss("huber", delta=0.5),
    )
    reg.fit(Xs, ys, epochs=2)
    reg.save(tmp_path / "r.npz")
    np.testing.assert_array_equal(
        nn.load(tmp_path / "r.npz").predict(Xs), reg.predict(Xs)
    )


def test_load_rejects_other_files(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not a model saved by symnb"):
        nn.load(junk)
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    with pytest.raises(ValueError, match="not a model saved by symnb"):
        nn.load(tmp_path / "other.npz")


# ------------------------------------------------ bad inputs


def test_bad_inputs_have_clear_errors():
    X, y = _moons(50)
    model = nn.MLP([2, 4, 1], activation="tanh", loss="bce_with_logits")
    with pytest.raises(
        ValueError, match="3 features per sample but the network's input size is 2"
    ):
        model.fit(np.zeros((5, 3)), np.zeros(5))
    with pytest.raises(ValueError, match="X has 50 rows but y has 49"):
        model.fit(X, y[:-1])
    with pytest.raises(ValueError, match="empty"):
        model.fit(np.zeros((0, 2)), np.zeros(0))
    with pytest.raises(ValueError, match="binary labels must be 0 or 1; row 0"):
        model.fit(X, y + 2)
    Xn = X.copy()
    Xn[7, 1] = np.nan
    with pytest.raises(ValueError, match="row 7, column 1"):
        model.fit(Xn, y)
    with pytest.raises(ValueError, match="must be 2-D"):
        model.predict(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="batch_size"):
        model.fit(X, y, batch_size=0)
    with pytest.raises(ValueError, match="epochs"):
        model.fit(X, y, epochs=-1)
    multi = nn.MLP([2, 4, 3], activation="tanh", loss="cross_entropy")
    with pytest.raises(ValueError, match="label 3 at row 0 is out of range.*0..2"):
        multi.fit(X, np.full(50, 3))
    with pytest.raises(ValueError, match="integers"):
        multi.fit(X, np.full(50, 0.5))
    reg = nn.MLP([2, 4, 2])
    with pytest.raises(ValueError, match="2 outputs but y has shape"):
        reg.fit(X, y)
    with pytest.raises(ValueError, match="predict_proba is for classification"):
        reg.predict_proba(X)


def test_bad_architectures_have_clear_errors():
    with pytest.raises(ValueError, match="at least an input and an output"):
        nn.MLP([3])
    with pytest.raises(ValueError, match="positive integer"):
        nn.MLP([2, 0, 1])
    with pytest.raises(ValueError, match="2 hidden layers"):
        nn.MLP([2, 4, 4, 1], activation=["tanh", "relu", "elu"])
    with pytest.raises(ValueError, match="3 entries, but the layer has 4 neurons"):
        nn.MLP([2, 4, 4, 1], activation=[["tanh"] * 3, "relu"])
    with pytest.raises(ValueError, match="unknown activation 'sigmod': did you mean"):
        nn.MLP([2, 4, 1], activation="sigmod")
    with pytest.raises(ValueError, match="unknown loss"):
        nn.MLP([2, 4, 1], loss="cross_entropyy")
    with pytest.raises(ValueError, match="sizes\\[-1\\] >= 2"):
        nn.MLP([2, 4, 1], loss="cross_entropy")
    with pytest.raises(ValueError, match="the last size must be 1"):
        nn.MLP([2, 4, 2], loss="bce_with_logits")
    with pytest.raises(ValueError, match="mask of layer 0 has shape"):
        nn.MLP([2, 4, 1], masks=[np.ones((4, 2)), None])
    with pytest.raises(ValueError, match="only 0 and 1"):
        nn.MLP([2, 4, 1], masks=[np.full((2, 4), 0.5), None])


# ------------------------------------------------ the Playground contract


def test_playground_contract():
    a = symnb.activation("tanh")
    b = symnb.Activation("sin(x)", name="sine")
    model = nn.MLP(
        [2, 4, 2, 1],
        activation=[SWISH, [a, b]],
        loss="bce_with_logits",
        backend="numpy",
        seed=0,
    )
    X, y = datasets.circles(200, seed=1)
    opt = nn.SGD(model.parameters(), lr=0.03, momentum=0.0, weight_decay=0.0)
    losses = [
        model.train_epoch(
            X,
            y,
            optimizer=opt,
            batch_size=10,
            l1=0.0,
            l2=0.001,
            shuffle=True,
            seed=None,
        )
        for _ in range(5)
    ]
    assert all(isinstance(v, float) for v in losses)
    assert isinstance(model.train_step(X[:10], y[:10], optimizer=opt), float)
    ev = model.evaluate(X, y)
    assert set(ev) == {"loss", "accuracy"}
    assert model.predict(X).shape == (200,)
    assert model.predict_proba(X).shape == (200, 2)
    assert [h.shape for h in model.hidden_outputs(X)] == [(200, 4), (200, 2)]
    assert model.sizes == [2, 4, 2, 1] and len(model.layers) == 3
    assert len(model.parameters()) == 6
    adam = nn.Adam(model.parameters(), lr=0.01)
    model.train_epoch(X, y, optimizer=adam)
    assert "MLP([2, 4, 2, 1]" in repr(model)


def test_sigint_handler_set_outside_python_is_left_alone(monkeypatch):
    """getsignal() is None when a handler was installed outside Python (a program
    embedding the interpreter): fit must neither replace it (it could not put it
    back: signal(SIGINT, None) is a TypeError) nor fail; it trains as usual."""
    from symnb.nn import train as train_mod

    calls = []
    real = train_mod._signal
    fake = type(
        "FakeSignal",
        (),
        {
            "SIGINT": real.SIGINT,
            "getsignal": staticmethod(lambda signum: None),
            "signal": staticmethod(lambda *a: calls.append(a)),
        },
    )
    monkeypatch.setattr(train_mod, "_signal", fake)
    X, y = _moons(60)
    model = nn.MLP([2, 4, 1], activation=SWISH, loss="bce_with_logits", seed=0)
    history = model.fit(X, y, epochs=2, batch_size=20, metrics=[])
    assert history.stop_reason == "completed" and len(history) == 2
    assert calls == []
