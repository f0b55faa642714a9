"""The library ``bce`` loss kernel takes probabilities, as ``torch.nn.BCELoss``
does: a prediction of 1.5 gave the loss -0.405 (negative) and the gradient 5e11
without a word, where PyTorch raises. A prediction or target outside [0, 1] is now a
ValueError naming the range and the fix (``symnb.nn`` already refused them in
training); values inside match PyTorch, and NaN still flows through."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

torch = pytest.importorskip("torch")

BACKENDS = backend_params()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("pred", "target", "words"),
    [
        (
            [0.5, 1.5],
            [1.0, 1.0],
            r"every prediction must be in \[0, 1\], got values in \[0.5, 1.5\]",
        ),
        ([-0.1, 0.5], [0.0, 1.0], r"every prediction must be in \[0, 1\]"),
        ([0.5, 0.5], [2.0, 0.0], r"every target must be in \[0, 1\].*binary targets"),
    ],
)
def test_values_outside_probabilities_are_refused(backend, pred, target, words):
    kernel = symnb.loss("bce").compile(backend=backend)
    p = np.array(pred, dtype=np.float32)
    t = np.array(target, dtype=np.float32)
    for call in (kernel.value, kernel.gradient):
        with pytest.raises(ValueError, match=words):
            call(p, t)
    if pred[1] == 1.5:  # PyTorch refuses the same prediction
        with pytest.raises(RuntimeError, match="between 0 and 1"):
            torch.nn.BCELoss()(torch.tensor(p), torch.tensor(t))


@pytest.mark.parametrize("backend", BACKENDS)
def test_probabilities_match_pytorch(backend):
    kernel = symnb.loss("bce").compile(backend=backend, dtype="float64")
    p = np.array([0.0, 0.2, 0.5, 0.9, 1.0, 0.3])
    t = np.array([0.0, 1.0, 0.5, 1.0, 1.0, 0.0])
    tp = torch.tensor(p, requires_grad=True)
    want = torch.nn.BCELoss()(tp, torch.tensor(t))
    want.backward()
    assert kernel.value(p, t) == pytest.approx(want.item(), rel=1e-12)
    np.testing.assert_allclose(kernel.gradient(p, t), tp.grad.numpy(), rtol=1e-9)
    assert math.isnan(kernel.value(np.array([np.nan]), np.array([1.0])))


def test_a_user_loss_of_another_formula_is_not_checked():
    mine = symnb.Loss("(y_pred - y_true)**2", name="bce").compile(backend="numpy")
    one = np.array([1.0], dtype=np.float32)
    assert mine.value(1.5 * one, one) == pytest.approx(0.25)
