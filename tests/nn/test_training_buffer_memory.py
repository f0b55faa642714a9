"""fit(X, y, batch_size=None) on millions of rows allocated three (n, width) arrays per
layer, each below the machine's memory and together above it: Linux granted them and
killed the process when they were filled (the notebook's kernel and its work with
it). The training buffers are now counted first and a MemoryError names the batch
size. The machine's memory is faked small here; nothing large is allocated."""

from __future__ import annotations

import numpy as np
import pytest

import symnb.memory
from symnb.nn import MLP, Adam


def _data(n=4000):
    X = np.random.default_rng(0).normal(size=(n, 2))
    return X, X[:, 0] * 2.0


def test_full_batch_beyond_memory_is_refused_before_training(monkeypatch) -> None:
    X, y = _data()
    model = MLP([2, 64, 64, 1], seed=0, backend="numpy")  # (cpp fuses in row blocks)
    before = model.get_flat_parameters()
    # 4000 rows: about 4.2 MB of float32 buffers; the weights fit in 1 MiB
    monkeypatch.setattr(symnb.memory, "physical_memory", lambda: 2**21)
    with pytest.raises(MemoryError, match=r"batches of 4,000 rows.*smaller batch_size"):
        model.fit(X, y, epochs=1, batch_size=None)
    with pytest.raises(MemoryError, match="batches of 4,000 rows"):
        model.train_epoch(X, y, Adam(model.parameters()), batch_size=4000)
    np.testing.assert_array_equal(model.get_flat_parameters(), before)
    # small batches fit the same (fake) machine and train
    history = model.fit(X, y, epochs=1, batch_size=32)
    assert history.stop_reason == "completed"
