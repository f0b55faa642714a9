"""An EarlyStopping(restore_best=True) used by two fits (as compare's callbacks= is,
one fit per run) restores only what the running fit saw.

Before, on_train_begin kept the best parameters of the previous fit: a second fit
that ended before its first epoch's end (an exception, Ctrl-C, a divergence) got the
first model's weights written into it. The reference is the second model trained
the same way without the callback.
"""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets
from symnb.nn import MLP, EarlyStopping

X, Y = datasets.two_moons(64, seed=0)


class Stop(Exception):
    pass


def _fails_in_epoch_one(epoch, logs):
    raise Stop


def _second_fit(callbacks):
    model = MLP([2, 6, 1], "tanh", loss="bce_with_logits", backend="numpy", seed=7)
    with pytest.raises(Stop):
        model.fit(X, Y, epochs=3, callbacks=[_fails_in_epoch_one, *callbacks])
    return model.get_flat_parameters()


def test_a_reused_early_stopping_restores_nothing_of_an_earlier_fit():
    early = EarlyStopping(monitor="loss", restore_best=True)
    first = MLP([2, 6, 1], "relu", loss="bce_with_logits", backend="numpy", seed=1)
    first.fit(X, Y, epochs=2, callbacks=[early])
    assert early.best_epoch is not None
    got = _second_fit([early])
    np.testing.assert_array_equal(got, _second_fit([]))
    assert early.best_epoch is None
