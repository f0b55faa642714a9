"""Callbacks of the wrong arity, or a callback class, are refused before any training.

Before, ``fit(callbacks=[lambda: None])`` trained a whole epoch and then failed with
Python's bare ``TypeError: <lambda>() takes 0 positional arguments but 2 were given``
(no word of which hook, nor of the arguments fit passes), the same for
``LambdaCallback(on_epoch_end=..., on_step_end=..., on_train_begin=...)``; and
``callbacks=[EarlyStopping]`` (the class, a common slip) was called as a function
f(epoch, logs), building an EarlyStopping with monitor=1: "EarlyStopping: monitor must
be a metric name such as 'val_loss', got 1", after an epoch.
"""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets
from symnb.nn import MLP, EarlyStopping, LambdaCallback


@pytest.fixture(scope="module")
def data():
    return datasets.two_moons(32, seed=0)


def _fit(model, data, callbacks):
    X, y = data
    return model.fit(X, y, epochs=2, batch_size=8, callbacks=callbacks)


def _untouched(model, before):
    np.testing.assert_array_equal(model.get_flat_parameters(), before)
    assert model.epochs_trained == 0


BAD_HOOKS = {
    "epoch_end_without_arguments": (lambda: LambdaCallback(on_epoch_end=lambda: 0)),
    "step_end_with_one_argument": (lambda: LambdaCallback(on_step_end=lambda s: 0)),
    "train_begin_without_arguments": (lambda: LambdaCallback(on_train_begin=lambda: 0)),
    "train_end_with_two_arguments": (
        lambda: LambdaCallback(on_train_end=lambda a, b: 0)
    ),
}


@pytest.mark.parametrize("case", list(BAD_HOOKS))
def test_a_lambda_callback_of_the_wrong_arity_is_refused_when_built(case):
    with pytest.raises(TypeError, match=r"LambdaCallback: on_\w+ is called as f\("):
        BAD_HOOKS[case]()


@pytest.mark.parametrize(
    "callbacks",
    [[lambda: None], lambda epoch: None, [print, lambda a, b, c: None]],
    ids=["list_no_arguments", "bare_one_argument", "three_arguments"],
)
def test_a_function_of_the_wrong_arity_is_refused_before_training(data, callbacks):
    model = MLP([2, 4, 1], "tanh", loss="bce_with_logits")
    before = model.get_flat_parameters()
    with pytest.raises(TypeError, match=r"a callback is called as f\(epoch, logs\)"):
        _fit(model, data, callbacks)
    _untouched(model, before)


@pytest.mark.parametrize(
    "callbacks", [[EarlyStopping], EarlyStopping], ids=["in_a_list", "alone"]
)
def test_a_callback_class_is_refused_with_the_fix(data, callbacks):
    model = MLP([2, 4, 1], "tanh", loss="bce_with_logits")
    before = model.get_flat_parameters()
    with pytest.raises(
        TypeError, match=r"class EarlyStopping.*EarlyStopping\(\.\.\.\)"
    ):
        _fit(model, data, callbacks)
    _untouched(model, before)


def test_functions_that_take_the_arguments_still_run(data):
    seen = []
    cbs = [
        lambda epoch, logs: seen.append(("f", epoch)),
        lambda *args: seen.append(("star", args[0])),
        lambda epoch, logs, extra=1: seen.append(("default", epoch)),
        LambdaCallback(on_train_begin=lambda logs: seen.append(("begin", 0))),
        print,  # a builtin without a signature is called as given
    ]
    model = MLP([2, 4, 1], "tanh", loss="bce_with_logits")
    _fit(model, data, cbs)
    assert ("begin", 0) in seen
    assert [e for k, e in seen if k == "f"] == [1, 2]
    assert [e for k, e in seen if k == "star"] == [1, 2]
    assert [e for k, e in seen if k == "default"] == [1, 2]
