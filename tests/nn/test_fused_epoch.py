"""The whole-epoch native call of the fused step against its per-step path.

Without per-step callbacks, ``fit`` on a fused model runs each epoch in one native
call (gather of the shuffled rows, every minibatch, the optimizer update). A per-step
callback forces one native call per minibatch instead. Both must give the same losses,
parameters and optimizer state (float64 to ~1e-12, float32 to rounding), also for a
batch size that does not divide the number of samples, and callbacks, interrupts and
the NaN stop must keep working at epoch granularity.
"""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from symnb import nn
from symnb.backends import status
from tests.nn.test_fused import CASES, OPTIMIZERS, SWISH

pytestmark = pytest.mark.skipif(
    not status("cpp").usable, reason=f"cpp backend: {status('cpp').reason}"
)


def _model(name, dtype, seed=3):
    kwargs, data = CASES[name]
    kwargs = dict(kwargs)
    sizes = kwargs.pop("sizes")
    model = nn.MLP(sizes, backend="cpp", dtype=dtype, seed=seed, fused=True, **kwargs)
    assert model.fused
    X, y = data()
    return model, X, y


def _count_epoch_calls(model):
    """Wrap the compiled epoch function to count native whole-epoch calls."""
    impl = model._fused_step()
    calls = []
    native = impl._epoch_fn

    def counted(*args):
        calls.append(args[2])  # rows of the epoch
        return native(*args)

    impl._epoch_fn = counted
    return calls


def _small_swish_model():
    """A 2-6-1 swish model in float64 (seed 2) on the fused step."""
    return nn.MLP(
        [2, 6, 1],
        activation=SWISH,
        loss="bce_with_logits",
        backend="cpp",
        dtype="float64",
        seed=2,
    )


def _every_step():
    seen = []
    cb = nn.LambdaCallback(on_step_end=lambda step, logs: seen.append(step))
    return cb, seen


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("opt", ["sgd", "sgd-momentum", "adam", "adam-decay"])
@pytest.mark.parametrize(
    "name", ["swish-bce", "learnable-per-neuron", "cross-entropy", "masks", "user-loss"]
)
def test_epoch_call_matches_per_step_path(name, opt, dtype):
    whole, X, y = _model(name, dtype)
    stepwise, _, _ = _model(name, dtype)
    calls = _count_epoch_calls(whole)
    cb, seen = _every_step()
    batch = 7  # does not divide the 60 or 40 samples: a short last minibatch
    results = []
    for model, callbacks in ((whole, None), (stepwise, [cb])):
        optimizer = OPTIMIZERS[opt](model.parameters())
        history = model.fit(
            X,
            y,
            epochs=3,
            batch_size=batch,
            optimizer=optimizer,
            seed=11,
            l1=1e-3,
            l2=1e-3,
            callbacks=callbacks,
            step_rate=None,
            metrics=[],
        )
        results.append((history, optimizer))
    (hw, ow), (hs, os_) = results
    steps = 3 * -(-len(X) // batch)
    assert len(calls) == 3 and calls[0] == len(X)  # one native call per epoch
    assert len(seen) == steps  # the callback saw every step of the other model
    assert hw.stop_reason == hs.stop_reason == "completed"
    assert hw.steps == hs.steps == ow.steps == os_.steps == steps
    rtol, atol = (1e-12, 1e-14) if dtype == "float64" else (1e-5, 1e-6)
    np.testing.assert_allclose(hw["loss"], hs["loss"], rtol=rtol, atol=atol)
    np.testing.assert_allclose(
        whole.get_flat_parameters(), stepwise.get_flat_parameters(), rtol, atol
    )
    if opt.startswith("adam"):
        np.testing.assert_allclose(ow._m[0], os_._m[0], rtol, atol)
        np.testing.assert_allclose(ow._v[0], os_._v[0], rtol, atol)
    # learned constants reached the kernels used for inference
    np.testing.assert_allclose(
        whole.decision_function(X), stepwise.decision_function(X), rtol, 10 * atol
    )


def test_without_shuffling_and_against_the_generic_path():
    """shuffle=False (rows in order) on the epoch call, against the generic path
    (NumPy/BLAS and Python optimizer), float64."""
    whole, X, y = _model("learnable-per-neuron", "float64")
    kwargs, _ = CASES["learnable-per-neuron"]
    kwargs = dict(kwargs)
    generic = nn.MLP(
        kwargs.pop("sizes"),
        backend="cpp",
        dtype="float64",
        seed=3,
        fused=False,
        **kwargs,
    )
    calls = _count_epoch_calls(whole)
    losses = []
    for model in (whole, generic):
        h = model.fit(
            X, y, epochs=2, batch_size=13, optimizer="adam", lr=0.02, shuffle=False
        )
        losses.append(h["loss"])
    assert len(calls) == 2
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-10)
    np.testing.assert_allclose(
        whole.get_flat_parameters(), generic.get_flat_parameters(), atol=1e-10
    )


def test_epoch_callbacks_stop_and_see_each_epoch():
    model, X, y = _model("swish-bce", "float32")
    calls = _count_epoch_calls(model)
    seen = []

    def on_epoch_end(epoch, logs):
        seen.append((epoch, logs["loss"]))
        return epoch == 3

    history = model.fit(X, y, epochs=10, batch_size=8, callbacks=[on_epoch_end])
    assert history.stop_reason == "callback"
    assert [e for e, _ in seen] == [1, 2, 3] and len(calls) == 3
    assert history["loss"] == [v for _, v in seen]
    assert model.epochs_trained == 3


def test_interrupt_during_whole_epoch_stops_after_it():
    """Ctrl-C while epochs run natively: the epoch completes and is kept."""
    model, X, y = _model("swish-bce", "float32")
    calls = _count_epoch_calls(model)

    def interrupt(epoch, logs):
        if epoch == 2:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.warns(RuntimeWarning, match="interrupted"):
        history = model.fit(X, y, epochs=10, batch_size=8, callbacks=[interrupt])
    assert history.stop_reason == "interrupted"
    assert len(history) == 2 and len(calls) == 2
    assert history.partial is None  # complete epochs only
    assert np.all(np.isfinite(model.get_flat_parameters()))


def test_interrupt_signal_inside_native_epoch_is_deferred():
    """SIGINT raised by the native call's own thread of control: simulated by a
    wrapper that signals before calling; the epoch still completes."""
    model, X, y = _model("swish-bce", "float64")
    impl = model._fused_step()
    native = impl._epoch_fn
    calls = []

    def signalling(*args):
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)
        return native(*args)

    impl._epoch_fn = signalling
    with pytest.warns(RuntimeWarning, match="interrupted"):
        history = model.fit(X, y, epochs=5, batch_size=8)
    assert history.stop_reason == "interrupted" and len(history) == 2
    assert history.steps == 2 * -(-len(X) // 8)


@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_divergence_in_epoch_call_names_the_same_step(opt):
    """The NaN stop of the whole-epoch call names the same epoch and step as the
    per-step path and keeps the same last finite parameters."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = 1e6 * np.tanh(X @ rng.normal(size=(3, 1)))
    out = []
    for per_step in (False, True):
        model = nn.MLP(
            [3, 8, 1], activation="x**2", loss="mse", backend="cpp", dtype="float64"
        )
        cb, _ = _every_step()
        if opt == "sgd":
            optimizer = nn.SGD(model.parameters(), lr=10.0)
        else:  # Adam's steps are about lr: overflow on the next forward pass
            optimizer = nn.Adam(model.parameters(), lr=1e60)
        with pytest.warns(RuntimeWarning, match="NaN or infinite") as record:
            history = model.fit(
                X,
                y,
                epochs=50,
                batch_size=7,
                optimizer=optimizer,
                seed=0,
                callbacks=[cb] if per_step else None,
                step_rate=None,
            )
        out.append((history, str(record[0].message), model, optimizer))
    (h0, m0, model0, o0), (h1, m1, model1, o1) = out
    assert h0.stop_reason == h1.stop_reason == "diverged"
    assert m0 == m1 and h0.steps == h1.steps and h0.partial == h1.partial
    assert o0.steps == o1.steps
    p0 = model0.get_flat_parameters()
    assert np.all(np.isfinite(p0))
    np.testing.assert_allclose(p0, model1.get_flat_parameters(), rtol=1e-12)


def test_custom_optimizer_and_lr_change_between_epochs():
    """An optimizer the native code does not know runs per step; a learning rate
    changed between epochs (by a callback) is used by the next epoch call."""
    X, y = CASES["swish-bce"][1]()

    class Halving(nn.Callback):
        def on_epoch_end(self, epoch, logs):
            self.model_opt.lr = self.model_opt.lr / 2

    results = []
    for per_step in (False, True):
        model = _small_swish_model()
        opt = nn.SGD(model.parameters(), lr=0.2, momentum=0.5)
        halving = Halving()
        halving.model_opt = opt
        cbs = [halving] + ([_every_step()[0]] if per_step else [])
        h = model.fit(
            X, y, epochs=4, batch_size=9, optimizer=opt, callbacks=cbs, step_rate=None
        )
        results.append((h["loss"], model.get_flat_parameters()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=1e-14)


def test_parameters_overflow_in_epoch_call_like_per_step():
    """An update that makes the parameters infinite (float32 Adam, huge lr): both
    paths restore the previous parameters and count the step as PyTorch would."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.tanh(X @ rng.normal(size=(3, 1)))
    out = []
    for per_step in (False, True):
        model = nn.MLP([3, 8, 1], activation="tanh", loss="mse", backend="cpp", seed=0)
        start = model.get_flat_parameters()
        optimizer = nn.Adam(model.parameters(), lr=1e39)
        cb, _ = _every_step()
        with pytest.warns(RuntimeWarning, match="parameters became NaN"):
            history = model.fit(
                X,
                y,
                epochs=3,
                batch_size=7,
                optimizer=optimizer,
                callbacks=[cb] if per_step else None,
                step_rate=None,
            )
        np.testing.assert_array_equal(model.get_flat_parameters(), start)
        out.append((history.message, history.steps, optimizer.steps))
    assert out[0] == out[1]


def test_train_epoch_interrupt_after_whole_native_epoch():
    """``train_epoch`` (the Playground's call) runs the epoch natively; a Ctrl-C
    during it raises KeyboardInterrupt after the complete epoch, which counts."""
    model, X, y = _model("swish-bce", "float64")
    optimizer = nn.SGD(model.parameters(), lr=0.1)
    impl = model._fused_step()
    native = impl._epoch_fn

    def signalling(*args):
        os.kill(os.getpid(), signal.SIGINT)
        return native(*args)

    impl._epoch_fn = signalling
    with pytest.raises(KeyboardInterrupt):
        model.train_epoch(X, y, optimizer, batch_size=8, seed=1)
    assert model.epochs_trained == 1
    assert optimizer.steps == -(-len(X) // 8)
    impl._epoch_fn = native
    model.train_epoch(X, y, optimizer, batch_size=8, seed=1)  # the handler is back
    assert model.epochs_trained == 2


@pytest.mark.parametrize("opt_name", ["sgd", "adam"])
def test_changes_between_epochs_reach_the_cached_epoch_call(opt_name):
    """The configured epoch call is reused across epochs while nothing it holds
    changed. A callback that changes hyper-parameters, the optimizer's state, the
    parameters, or runs other native calls (loss_and_gradient, train_step) between
    epochs must be seen by the next epoch: the losses and parameters equal the
    per-step path's (float64, to rounding)."""
    X, y = CASES["swish-bce"][1]()

    class Meddle(nn.Callback):
        def on_epoch_end(self, epoch, logs):
            model, opt = self.the_model, self.the_opt
            if epoch in (1, 5):  # hyper-parameters (the others leave them alone)
                if opt_name == "sgd":
                    opt.momentum = 0.9 if epoch == 1 else 0.3
                    opt.nesterov = epoch == 5
                else:
                    opt.betas = (0.8, 0.99) if epoch == 1 else (0.9, 0.999)
                    opt.eps = 1e-6 if epoch == 1 else 1e-8
                opt.weight_decay = 0.01 * epoch
            if epoch == 2:
                model.loss_and_gradient(X[:7], y[:7], l2=0.5)
            if epoch == 3:
                model.train_step(X[:5], y[:5], opt)
            if epoch == 4:
                flat = model.get_flat_parameters()
                model.set_flat_parameters(flat * 0.9)

    results = []
    for per_step in (False, True):
        model = _small_swish_model()
        opt = (
            nn.SGD(model.parameters(), lr=0.2)
            if opt_name == "sgd"
            else nn.Adam(model.parameters(), lr=0.01)
        )
        meddle = Meddle()
        meddle.the_model, meddle.the_opt = model, opt
        cbs = [meddle] + ([_every_step()[0]] if per_step else [])
        calls = None if per_step else _count_epoch_calls(model)
        h = model.fit(
            X, y, epochs=7, batch_size=9, optimizer=opt, callbacks=cbs, step_rate=None
        )
        if calls is not None:
            assert len(calls) == 7  # the whole-epoch path ran every epoch
        results.append((h["loss"], model.get_flat_parameters()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=1e-14)


def test_full_batch_trains_without_a_permutation():
    """A full batch's gradient does not depend on the row order: fit and
    train_epoch then pass no permutation (rows in order), and the result equals
    training on the rows in order (shuffle=False) exactly."""
    X, y = CASES["swish-bce"][1]()
    results = []
    for shuffle in (True, False):
        model, _, _ = _model("swish-bce", "float64")
        calls = []
        impl = model._fused_step()
        native = impl._epoch_fn

        def seen(*args, native=native, calls=calls):
            calls.append(args[3])  # the order pointer (None: rows in order)
            return native(*args)

        impl._epoch_fn = seen
        h = model.fit(X, y, epochs=3, batch_size=None, optimizer="sgd", shuffle=shuffle)
        model.train_epoch(X, y, nn.SGD(model.parameters(), lr=0.1), batch_size=len(X))
        assert calls == [None] * 4
        results.append((h["loss"], model.get_flat_parameters()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
