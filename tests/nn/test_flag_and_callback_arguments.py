"""Arguments checked late or read as truthy. Before: LambdaCallback(on_epoch_end=3)
was accepted and fit failed with "'int' object is not callable" only after the first
epoch's work; train_epoch(shuffle="no") shuffled (fit already refused it);
SGD(nesterov="no") turned Nesterov momentum on."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLP, SGD, Adam, LambdaCallback


@pytest.mark.parametrize(
    "hook", ["on_epoch_end", "on_step_end", "on_train_begin", "on_train_end"]
)
def test_lambda_callback_refuses_what_cannot_be_called(hook) -> None:
    with pytest.raises(TypeError, match=f"LambdaCallback: {hook} must be a function"):
        LambdaCallback(**{hook: 3})


def test_lambda_callback_with_functions_still_runs() -> None:
    X = np.random.default_rng(0).normal(size=(20, 2))
    y = (X[:, 0] > 0).astype(float)
    seen = []
    cb = LambdaCallback(on_epoch_end=lambda e, logs: seen.append(e))
    MLP([2, 3, 1], loss="bce_with_logits").fit(X, y, epochs=2, callbacks=[cb])
    assert seen == [1, 2]


@pytest.mark.parametrize("shuffle", ["no", 0, None])
def test_train_epoch_shuffle_must_be_a_bool(shuffle) -> None:
    X = np.random.default_rng(0).normal(size=(20, 2))
    y = (X[:, 0] > 0).astype(float)
    model = MLP([2, 3, 1], loss="bce_with_logits", seed=0)
    before = model.get_flat_parameters()
    with pytest.raises(TypeError, match="shuffle must be True or False"):
        model.train_epoch(X, y, Adam(model.parameters()), shuffle=shuffle)
    np.testing.assert_array_equal(model.get_flat_parameters(), before)


@pytest.mark.parametrize("nesterov", ["no", 1, None])
def test_sgd_nesterov_must_be_a_bool(nesterov) -> None:
    model = MLP([2, 3, 1])
    with pytest.raises(TypeError, match="nesterov must be True or False"):
        SGD(model.parameters(), momentum=0.9, nesterov=nesterov)
    assert SGD(model.parameters(), momentum=0.9, nesterov=np.bool_(True)).nesterov
