"""symnb.nn.metrics on huge, strided and degenerate inputs.

Before: every metric copied both inputs whole to float64 and built full-size
temporaries, so a zero-stride view (``np.broadcast_to(0.5, (10**8,))``, a few
bytes) cost gigabytes (a bare NumPy MemoryError, or the kernel killed); zero
values per row (shape (n, 0)) gave NaN with a warning or a bare IndexError. Now the
metrics work through the rows in blocks (peak memory a few MiB whatever the input)
and give the same numbers as scikit-learn, and (n, 0) is a ValueError naming both
shapes."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from symnb.nn import metrics

sklearn_metrics = pytest.importorskip("sklearn.metrics")


@pytest.fixture(params=[metrics.BLOCK, 7], ids=["one-block", "many-blocks"])
def block(request, monkeypatch):
    monkeypatch.setattr(metrics, "BLOCK", request.param)
    return request.param


def test_regression_metrics_match_sklearn_across_blocks(block) -> None:
    rng = np.random.default_rng(5)
    y = rng.normal(size=(103, 3))
    p = y + rng.normal(scale=0.3, size=y.shape)
    assert metrics.mse(y, p) == pytest.approx(sklearn_metrics.mean_squared_error(y, p))
    assert metrics.mae(y, p) == pytest.approx(sklearn_metrics.mean_absolute_error(y, p))
    assert metrics.r2(y, p) == pytest.approx(sklearn_metrics.r2_score(y, p))
    y1, p1 = y[::-1, 0], p[::-2][:52, 1]  # negative strides
    assert metrics.r2(y1[:52], p1) == pytest.approx(
        sklearn_metrics.r2_score(y1[:52], p1)
    )


@pytest.mark.parametrize("classes", [2, 5])
def test_label_metrics_match_sklearn_across_blocks(block, classes) -> None:
    rng = np.random.default_rng(classes)
    y = rng.integers(0, classes, size=101)
    p = np.where(rng.random(101) < 0.6, y, rng.integers(0, classes, size=101))
    average = "binary" if classes == 2 else "macro"
    kw = {"average": average, "zero_division": 0}
    assert metrics.accuracy(y, p) == pytest.approx(sklearn_metrics.accuracy_score(y, p))
    assert metrics.precision(y, p) == pytest.approx(
        sklearn_metrics.precision_score(y, p, **kw)
    )
    assert metrics.recall(y, p) == pytest.approx(
        sklearn_metrics.recall_score(y, p, **kw)
    )
    assert metrics.f1(y, p) == pytest.approx(sklearn_metrics.f1_score(y, p, **kw))


def test_a_bad_label_is_named_by_its_row_in_a_later_block(block) -> None:
    y = np.zeros(50)
    y[43] = 0.5
    with pytest.raises(ValueError, match=r"y_pred holds 0\.5 at row 43"):
        metrics.accuracy(np.zeros(50), y)
    y[43] = np.nan
    with pytest.raises(ValueError, match=r"y_pred has a NaN .* at row 43"):
        metrics.f1(np.zeros(50), y)


def test_huge_broadcast_views_take_little_memory() -> None:
    n = 10**8  # float64 copies: 800 MB each
    y = np.broadcast_to(np.float32(0.5), (n,))
    p = np.broadcast_to(np.float32(0.0), (n, 1))
    labels = np.broadcast_to(np.int64(1), (n,))
    tracemalloc.start()
    try:
        assert metrics.mse(y, p) == 0.25
        assert metrics.mae(y, p) == 0.5
        assert metrics.accuracy(labels, labels) == 1.0
        assert metrics.recall(labels, labels) == 1.0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20


@pytest.mark.parametrize("fn", [metrics.mse, metrics.r2, metrics.accuracy])
def test_no_values_per_row_is_a_shape_error(fn) -> None:
    with pytest.raises(ValueError, match=r"\(3, 0\).*no values per sample"):
        fn(np.zeros((3, 0)), np.zeros((3, 0)))
