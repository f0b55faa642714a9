"""Adam's betas and eps and SGD's nesterov are checked when set after construction,
as lr, weight_decay and momentum already were.

The project lets a callback change an optimizer's settings between epochs
(test_fused_epoch does). Before, ``opt.betas = (1.5, 2.0)``, ``opt.eps = -1.0`` or
``float('nan')`` were taken without a word (the constructor refuses them) and the
next epoch trained with them: beta1 = 1.5 makes Adam's first moment grow without
bound; ``opt.nesterov = 'yes'`` was truthy. Expected: the constructor's errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from symnb import datasets
from symnb.nn import MLP, SGD, Adam

ADAM = {
    "betas_above_one": ("betas", (1.5, 2.0), ValueError, r"betas must be in \[0, 1\)"),
    "betas_one_number": ("betas", 0.9, TypeError, "betas must be a pair"),
    "betas_three": ("betas", (0.9, 0.99, 0.5), ValueError, "betas must be a pair"),
    "eps_negative": ("eps", -1.0, ValueError, "eps must be finite and a number > 0"),
    "eps_nan": ("eps", float("nan"), ValueError, "eps must be finite"),
    "eps_text": ("eps", "tiny", TypeError, "eps must be a number"),
}


@pytest.mark.parametrize("case", list(ADAM))
def test_adam_settings_are_checked_when_set(case):
    attr, value, error, message = ADAM[case]
    opt = Adam(MLP([2, 3, 1]).parameters())
    before = getattr(opt, attr)
    with pytest.raises(error, match=message):
        setattr(opt, attr, value)
    assert getattr(opt, attr) == before


@pytest.mark.parametrize(
    "value, error, message",
    [("yes", TypeError, "nesterov must be True or False"), (1, TypeError, "nesterov")],
    ids=["text", "int"],
)
def test_sgd_nesterov_is_checked_when_set(value, error, message):
    opt = SGD(MLP([2, 3, 1]).parameters(), momentum=0.9)
    with pytest.raises(error, match=message):
        opt.nesterov = value
    assert opt.nesterov is False
    without_momentum = SGD(MLP([2, 3, 1]).parameters())
    with pytest.raises(ValueError, match="nesterov momentum needs momentum > 0"):
        without_momentum.nesterov = True


def test_valid_settings_set_between_epochs_train_as_given_to_the_constructor():
    X, y = datasets.two_moons(64, seed=0)
    results = []
    for late in (False, True):
        model = MLP([2, 4, 1], "tanh", loss="bce_with_logits", backend="numpy")
        if late:
            opt = Adam(model.parameters(), lr=0.01)
            opt.betas, opt.eps = [0.8, 0.95], 1e-6
        else:
            opt = Adam(model.parameters(), lr=0.01, betas=(0.8, 0.95), eps=1e-6)
        model.fit(X, y, epochs=2, optimizer=opt)
        results.append(model.get_flat_parameters())
    np.testing.assert_array_equal(results[0], results[1])
