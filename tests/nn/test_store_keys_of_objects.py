"""Store keys of fit options that are objects. The key held ``str(option)``, which for
a callback is "<... EarlyStopping object at 0x7f...>": once Python reused the address
for another callback, a rerun with EarlyStopping(patience=50) got the stored run of
EarlyStopping(patience=0) (1 epoch instead of 40) without a word. Objects are now
described by their class and the arguments they were made with; what cannot be
described (functions, objects that do not keep their arguments) gets a key of its
own on every call, with a warning that such runs are trained again."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from symnb import nn
from symnb.nn.train import EarlyStopping, LambdaCallback

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 2))
Y = (X[:, 0] * X[:, 1] > 0).astype(int)
OPTIONS = {"seeds": [0], "hidden": (8,), "epochs": 40, "progress": False, "lr": 0.05}


def stopping(patience: int) -> EarlyStopping:
    return EarlyStopping(monitor="loss", patience=patience, min_delta=10.0)


def epochs_run(result) -> int:
    return result.runs[0]["history"].epochs[-1]


def test_callbacks_of_other_arguments_never_share_a_stored_run(tmp_path):
    store = tmp_path / "runs.db"
    ran = []
    for patience in (0, 50, 0, 50):  # freed and made again: addresses get reused
        result = nn.compare(
            ["tanh"], (X, Y), callbacks=[stopping(patience)], store=store, **OPTIONS
        )
        ran.append(epochs_run(result))
    assert ran == [1, 40, 1, 40]
    with nn.RunStore(store) as runs:
        assert len(runs) == 2  # the reruns came from the store


def test_a_callback_made_again_with_the_same_arguments_resumes(tmp_path, counted):
    store = tmp_path / "runs.db"
    nn.compare(["tanh"], (X, Y), callbacks=[stopping(3)], store=store, **OPTIONS)
    nn.compare(["tanh"], (X, Y), callbacks=[stopping(3)], store=store, **OPTIONS)
    assert len(counted) == 1


def test_a_function_callback_is_trained_again_with_a_warning(tmp_path, counted):
    store = tmp_path / "runs.db"
    for _ in range(2):
        callback = LambdaCallback(on_epoch_end=lambda epoch, logs: None)
        with pytest.warns(UserWarning, match="callbacks=.*trains them again"):
            nn.compare(["tanh"], (X, Y), callbacks=[callback], store=store, **OPTIONS)
    assert len(counted) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no store: nothing to warn about
        nn.compare(["tanh"], (X, Y), callbacks=[callback], **OPTIONS)
