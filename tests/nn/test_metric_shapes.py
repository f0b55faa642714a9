"""symnb.nn.metrics with y_true and y_pred of different widths.

Before: NumPy broadcast one against the other. mse of two-column targets against
one-column predictions compared each prediction with both columns and returned a
plausible number (0.5 below instead of an error); one-hot y_true against labels gave
NumPy's bare "operands could not be broadcast" from inside accuracy."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import metrics


def test_width_mismatch_is_refused_with_both_shapes():
    y = np.array([[1.0, 2.0], [3.0, 4.0]])
    for fn in (metrics.mse, metrics.mae, metrics.r2):
        with pytest.raises(ValueError, match=r"\(2, 2\).*\(2, 1\)"):
            fn(y, y[:, :1])
    for fn in (metrics.accuracy, metrics.f1):
        with pytest.raises(ValueError, match="one-hot"):
            fn(np.eye(3), [0, 1, 2])


def test_same_values_in_column_or_flat_layout_still_agree():
    y = np.array([1.0, 2.0, 4.0])
    p = np.array([1.5, 2.0, 3.0])
    want = np.mean((y - p) ** 2)
    assert metrics.mse(y, p) == pytest.approx(want)
    assert metrics.mse(y, p[:, None]) == pytest.approx(want)
    assert metrics.accuracy([0, 1, 1], [[0], [1], [0]]) == pytest.approx(2 / 3)


def test_tensor_that_requires_grad_is_named():
    torch = pytest.importorskip("torch", reason="needs the torch extra (symnb[torch])")
    with pytest.raises(ValueError, match=r"y_true must be an array.*detach"):
        metrics.accuracy(torch.tensor([1.0, 0.0], requires_grad=True), [1, 0])


@pytest.mark.parametrize("name", ["accuracy", "precision", "recall", "f1"])
def test_one_hot_against_one_hot_is_refused(name):
    """Both one-hot: the entries were compared one by one, so predictions that were
    all wrong among three classes had accuracy 1/3 (each wrong row still matches
    on one of its zeros; scikit-learn's accuracy_score, counting rows, says 0.0)
    and precision 0.5."""
    y_true = np.eye(3)[[0, 1, 2, 0]]
    y_pred = np.eye(3)[[1, 2, 0, 2]]
    with pytest.raises(ValueError, match=r"3 labels per row.*y.argmax\(axis=1\)"):
        getattr(metrics, name)(y_true, y_pred)
    labels = getattr(metrics, name)(y_true.argmax(axis=1), y_pred.argmax(axis=1))
    assert labels == 0.0
