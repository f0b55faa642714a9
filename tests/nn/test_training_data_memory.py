"""Training and inference data that cannot be copied into this machine's memory are
refused by name before anything is allocated.

A broadcast or strided view of billions of rows takes no memory, but MLP copies it into
a contiguous array of the network's dtype: ``model.predict(np.broadcast_to(np.float32(1),
(10**11, 2)))`` raised NumPy's bare "Unable to allocate 745. GiB for an array with shape
(100000000000, 2)"; below that size, with Linux overcommit, the copy and the shuffled
copy fit is training on (each below the memory, together above) got the process
killed. The machine's memory is faked small here; nothing large is allocated.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb.memory
from symnb.nn import MLP


def test_a_view_of_too_many_rows_is_refused_without_allocating():
    model = MLP([2, 4, 1], backend="numpy")
    rows = 10**11
    X = np.broadcast_to(np.float32(1), (rows, 2))
    y = np.broadcast_to(np.float32(1), (rows,))
    for call in (
        lambda: model.predict(X),
        lambda: model.evaluate(X, y),
        lambda: model.fit(X, y, epochs=1),
    ):
        with pytest.raises(
            MemoryError, match=r"X of shape \(100000000000, 2\).*fewer rows"
        ):
            call()
    assert model.epochs_trained == 0


@pytest.fixture
def small_machine(monkeypatch):
    monkeypatch.setattr(symnb.memory, "physical_memory", lambda: 2**22)  # 4 MiB


def test_a_view_whose_copy_passes_the_memory_is_refused(small_machine):
    model = MLP([2, 4, 1], backend="numpy")
    X = np.broadcast_to(np.float64(0.5), (2**20, 2))  # an 8 MiB float32 copy
    with pytest.raises(MemoryError, match=r"X of shape \(1048576, 2\) \(float64\)"):
        model.predict(X)
    model.predict(X[:1000])  # a small view is copied as before


def test_data_whose_shuffled_copy_passes_the_memory_is_refused_before_training(
    small_machine,
):
    model = MLP([2, 4, 1], backend="numpy")
    before = model.get_flat_parameters()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2**18, 2)).astype(np.float32)  # 2 MiB, targets 1 MiB
    y = X[:, 0].copy()
    with pytest.raises(MemoryError, match=r"shuffled copy.*shuffle=False"):
        model.fit(X, y, epochs=1, batch_size=2**12)
    np.testing.assert_array_equal(model.get_flat_parameters(), before)
    history = model.fit(X, y, epochs=1, batch_size=2**12, shuffle=False)
    assert history.stop_reason == "completed"


def test_targets_whose_float64_reading_passes_the_memory_are_refused(small_machine):
    """X's copy was checked, y's was not: y is read as float64 (and copied to the
    network's dtype) beside X, so a broadcast y of 2**31 rows passed X's check and
    the process was killed in the conversions. Here X (2 MiB) fits the faked 4 MiB
    machine and y's readings (5 MiB) do not."""
    model = MLP([2, 4, 1], backend="numpy")
    X = np.zeros((2**18, 2), dtype=np.float32)
    y = np.broadcast_to(np.float32(1), (2**18,))
    with pytest.raises(MemoryError, match=r"y of shape \(262144,\).*fewer rows"):
        model.fit(X, y, epochs=1, batch_size=2**12, shuffle=False)
    assert model.epochs_trained == 0
    small = model.fit(X[:1000], y[:1000], epochs=1, shuffle=False)
    assert small.stop_reason == "completed"
