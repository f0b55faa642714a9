"""A model saved, pickled or copied while ``fit`` runs in another thread is the model
between two steps.

Before, nothing held the snapshot back while the fused native step (which releases
the GIL) wrote the parameters: 23 of 135 pickles taken during one fit held weights
of no step boundary (half of one step's update). The reference is a second,
identical run that records the parameters after every step (or every epoch); every
snapshot must be one of them, and its history must have as many epochs as its
``epochs_trained`` says. Predictions from another thread during fit likewise must be
those of the model at a step boundary.
"""

from __future__ import annotations

import copy
import pickle
import threading
import time

import numpy as np
import pytest

import symnb
from symnb.nn import MLP, LambdaCallback
from symnb.nn import load as load_model

EPOCHS = 60


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(256, 8)).astype(np.float32)
    return X, (X[:, :1] * X[:, 1:2]).astype(np.float32)


def _model(fused):
    return MLP([8, 48, 48, 1], activation="tanh", seed=1, fused=fused)


def _fit(model, per_step, record=None):
    """``fit`` with a step callback (per_step) or with none (the whole-epoch call);
    ``record(model)`` is called after every step (or epoch)."""
    X, y = _data()
    hook = (lambda *_: record(model)) if record else (lambda *_: None)
    cb = LambdaCallback(on_step_end=hook) if per_step else LambdaCallback(hook)
    callbacks = [cb] if per_step or record else None
    model.fit(
        X, y, epochs=EPOCHS, batch_size=16, seed=3, step_rate=None, callbacks=callbacks
    )


def _boundaries(fused, per_step):
    model = _model(fused)
    states = {model.get_flat_parameters().tobytes()}
    _fit(model, per_step, lambda m: states.add(m.get_flat_parameters().tobytes()))
    return states


def _take_pickle(model, _):
    data = pickle.dumps(model)
    return lambda: pickle.loads(data)


def _take_deepcopy(model, _):
    clone = copy.deepcopy(model)
    return lambda: clone


def _take_save(model, folder):
    path = folder / f"snap{len(list(folder.iterdir()))}.npz"
    model.save(path)
    return lambda: load_model(path)


TAKE = {"pickle": _take_pickle, "deepcopy": _take_deepcopy, "save": _take_save}


@pytest.mark.parametrize("how", list(TAKE))
@pytest.mark.parametrize(
    "fused, per_step",
    [(None, True), (None, False), (False, True)],
    ids=["fused_steps", "fused_epochs", "generic_steps"],
)
def test_snapshots_taken_during_fit_are_step_boundaries(how, fused, per_step, tmp_path):
    valid = _boundaries(fused, per_step)
    model = _model(fused)
    done = threading.Event()
    errors = []

    def train():
        try:
            _fit(model, per_step)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=train)
    thread.start()
    snapshots = []
    while not done.is_set():
        snapshots.append(TAKE[how](model, tmp_path))
    thread.join()
    assert not errors, errors
    assert snapshots
    torn = 0
    for restore in snapshots:
        copy_ = restore()
        torn += copy_.get_flat_parameters().tobytes() not in valid
        if how != "save":  # the file keeps no history
            epochs = 0 if copy_.history is None else len(copy_.history)
            assert epochs == copy_.epochs_trained
    assert torn == 0, f"{torn} of {len(snapshots)} snapshots were no step boundary"
    # the trained model itself ends where the reference run ended
    assert model.get_flat_parameters().tobytes() in valid


def test_predictions_during_fit_are_of_a_step_boundary():
    """``decision_function`` from another thread during a fused fit read the
    weights while the native step (GIL released) wrote them."""
    Xp = _data()[0][:32]
    model = _model(None)
    valid = {model(Xp).tobytes()}
    _fit(model, True, lambda m: valid.add(m(Xp).tobytes()))
    model = _model(None)
    thread = threading.Thread(target=_fit, args=(model, False))
    thread.start()
    seen = []
    while thread.is_alive():
        seen.append(model(Xp).tobytes())
    thread.join()
    torn = sum(s not in valid for s in seen)
    assert torn == 0, f"{torn} of {len(seen)} predictions were of no step boundary"


def test_learned_constants_during_fit_are_of_a_step_boundary(monkeypatch):
    """``learned_constants()`` read layer by layer while a fit in another thread
    stepped: layer 0's constants of one step, layer 1's of the next. The reading of
    each layer is slowed (fault injection) so that steps fall between them."""
    from symnb.nn.layers import Dense

    read = Dense.learned_constants

    def slow_read(layer):
        values = read(layer)
        time.sleep(0.002)
        return values

    swish = symnb.Activation(
        "x*sigmoid(b*x)", name="swish_b", b=symnb.learnable(1.0, per="neuron")
    )

    def model():
        return MLP([8, 48, 48, 1], activation=swish, seed=1)

    def constants(m):
        return repr(m.learned_constants())

    reference = model()
    valid = {constants(reference)}
    _fit(reference, True, lambda m: valid.add(constants(m)))
    monkeypatch.setattr(Dense, "learned_constants", slow_read)
    trained = model()
    thread = threading.Thread(target=_fit, args=(trained, True))
    thread.start()
    seen = []
    while thread.is_alive():
        seen.append(constants(trained))
    thread.join()
    torn = sum(s not in valid for s in seen)
    assert torn == 0, f"{torn} of {len(seen)} readings were of no step boundary"


def test_to_torch_during_fit_converts_one_step_boundary(monkeypatch):
    """``to_torch()`` copied the weights layer by layer while a fit in another
    thread stepped. The conversion is replaced by one that reads the parameters in
    two halves with a pause between them (fault injection; no torch needed)."""
    torch_interop = pytest.importorskip("symnb.interop.torch")

    def slow_conversion(model):
        half = model.n_parameters // 2
        first = np.array(model._flat[:half])
        time.sleep(0.002)
        return np.concatenate([first, np.array(model._flat[half:])]).tobytes()

    monkeypatch.setattr(torch_interop, "mlp_to_torch", slow_conversion)
    valid = _boundaries(None, True)
    model = _model(None)
    thread = threading.Thread(target=_fit, args=(model, True))
    thread.start()
    seen = []
    while thread.is_alive():
        seen.append(model.to_torch())
    thread.join()
    torn = sum(s not in valid for s in seen)
    assert torn == 0, f"{torn} of {len(seen)} conversions were of no step boundary"
