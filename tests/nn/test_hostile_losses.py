"""Losses and tasks that disagreed, and softmax cross-entropy fed wrong targets.

- MLP(task='multiclass', loss='bce') built a sigmoid/bce network (the same for
  'bce_with_logits') that trained one 0/1 output per class against the class labels;
  now a ValueError naming the loss and the fix (loss='cross_entropy').
- A TrainingLoss object whose task disagreed with task= (SoftmaxCrossEntropy() with
  task='binary', a binary ElementwiseLoss with task='multiclass') was taken as given.
- 'logistic' and 'binary_cross_entropy_with_logits', listed as logit-BCE names,
  were "unknown loss".
- SoftmaxCrossEntropy.value with targets of shape (n, 1) indexed an (n, n) table (a
  wrong mean and n*n memory), label -1 picked the last class, float labels and label
  C raised NumPy's bare IndexError.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.nn import MLP
from symnb.nn.losses import (
    ElementwiseLoss,
    SoftmaxCrossEntropy,
    TrainingLoss,
    resolve_loss,
)

torch = pytest.importorskip("torch", reason="needs the torch extra (symnb[torch])")


@pytest.mark.parametrize(
    "loss", ["bce", "bce_with_logits", "binary_cross_entropy", "logistic"]
)
def test_multiclass_with_binary_cross_entropy_names_the_fix(loss) -> None:
    with pytest.raises(ValueError, match=rf"loss '{loss}'.*loss='cross_entropy'"):
        MLP([2, 4, 3], task="multiclass", loss=loss)


def test_training_loss_objects_must_fit_the_task() -> None:
    with pytest.raises(ValueError, match=r"multi-class.*task='binary'"):
        MLP([2, 4, 1], task="binary", loss=SoftmaxCrossEntropy())
    with pytest.raises(ValueError, match=r"task='multiclass'.*cross_entropy"):
        resolve_loss(
            ElementwiseLoss(symnb.loss("bce_with_logits"), task="binary"),
            "multiclass",
        )
    with pytest.raises(ValueError, match=r"task='regression'"):
        resolve_loss("cross_entropy", "regression")
    assert isinstance(resolve_loss(SoftmaxCrossEntropy(), "multiclass"), TrainingLoss)


@pytest.mark.parametrize("name", ["logistic", "binary_cross_entropy_with_logits"])
def test_logit_bce_aliases_are_bce_with_logits(name) -> None:
    loss = resolve_loss(name)
    loss.compile("numpy", 0, "float64", False)
    rng = np.random.default_rng(1)
    z = rng.normal(size=(7, 1))
    y = (rng.random((7, 1)) > 0.5).astype(np.float64)
    want = torch.nn.functional.binary_cross_entropy_with_logits(
        torch.tensor(z), torch.tensor(y)
    ).item()
    assert loss.task == "binary"
    assert loss.value(z, y) == pytest.approx(want, rel=1e-12)


def test_cross_entropy_value_matches_pytorch() -> None:
    rng = np.random.default_rng(2)
    z = rng.normal(size=(6, 4))
    t = np.array([0, 3, 1, 2, 3, 0])
    want = torch.nn.functional.cross_entropy(torch.tensor(z), torch.tensor(t)).item()
    assert SoftmaxCrossEntropy().value(z, t) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize(
    ("target", "error", "message"),
    [
        (np.zeros((6, 1), dtype=int), ValueError, r"target .*shape \(6,\).*\(6, 1\)"),
        (np.zeros(5, dtype=int), ValueError, r"target .*shape \(6,\)"),
        (np.zeros(6), TypeError, r"target .*integer.*astype\(int\)"),
        (np.array([0, 1, -1, 0, 0, 0]), ValueError, r"label -1, outside 0\.\.3"),
        (np.array([0, 1, 4, 0, 0, 0]), ValueError, r"label 4, outside 0\.\.3"),
    ],
)
def test_cross_entropy_refuses_bad_targets(target, error, message) -> None:
    z = np.random.default_rng(3).normal(size=(6, 4))
    ce = SoftmaxCrossEntropy()
    with pytest.raises(error, match=message):
        ce.value(z, target)
    with pytest.raises(error, match=message):
        ce.value_and_gradient(z, target, np.empty_like(z))


def test_cross_entropy_refuses_one_dimensional_logits() -> None:
    with pytest.raises(ValueError, match=r"pred must be logits of shape"):
        SoftmaxCrossEntropy().value(np.zeros(4), np.zeros(4, dtype=int))
