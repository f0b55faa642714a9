"""``RunStore.put``/``put_many`` write whole runs or nothing.

A record without ``status``, ``accuracy`` or ``seed`` was stored, then read back
as damaged and trained again (the run's work lost without a word); a status of
"weird" was stored the same way; ``final_loss="abc"`` failed inside ``float()``
naming neither the run nor the field; ``time=True`` was stored as 1.0; a NumPy
float32 loss came back as the text "0.5" and an array of a curve as the text
"[0. 1. 2.]"; a record that contains itself gave json's bare "Circular reference
detected". Each bad row is now refused naming its key and field, before the
transaction starts, so none of the batch is written; an interrupt inside the
transaction rolls it back."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import nn
from tests.nn.store_records import RECORD


@pytest.fixture
def store(tmp_path):
    with nn.RunStore(tmp_path / "runs.db") as s:
        yield s


def _circular() -> dict:
    record = dict(RECORD)
    record["self"] = record
    return record


@pytest.mark.parametrize(
    ("record", "error", "words"),
    [
        ({"status": "ok"}, ValueError, r"run 'bad': record lacks \['accuracy'"),
        ({**RECORD, "status": "weird"}, ValueError, r"record\['status'\] must be"),
        ({**RECORD, "final_loss": "abc"}, TypeError, r"record\['final_loss'\].*'abc'"),
        ({**RECORD, "accuracy": [1]}, TypeError, r"record\['accuracy'\] must be a"),
        ({**RECORD, "time": True}, TypeError, r"record\['time'\].*True \(bool\)"),
        (_circular(), ValueError, r"run 'bad': record cannot be stored as JSON"),
    ],
    ids=["missing", "status", "loss-text", "accuracy-list", "time-bool", "circular"],
)
def test_a_bad_row_is_refused_and_no_row_of_the_batch_is_written(
    store, record, error, words
) -> None:
    with pytest.raises(error, match=words):
        store.put_many([("good", RECORD, {}), ("bad", record, {})])
    assert len(store) == 0
    store.put("good", RECORD, {})  # the store is still usable
    assert store.get_many(["good"]) == {"good": RECORD}


def test_settings_that_contain_themselves_are_refused(store) -> None:
    settings: dict = {}
    settings["me"] = settings
    with pytest.raises(ValueError, match=r"run 'k': settings cannot be stored"):
        store.put("k", RECORD, settings)
    assert len(store) == 0


def test_numpy_values_come_back_as_numbers(store) -> None:
    record = {
        **RECORD,
        "final_loss": np.float32(0.25),
        "accuracy": np.float64(0.75),
        "history": {"loss": np.array([1.0, 0.5, 0.25], dtype=np.float32)},
    }
    store.put("k", record, {})
    back = store.get_many(["k"])["k"]
    assert back["final_loss"] == 0.25 and isinstance(back["final_loss"], float)
    assert back["history"] == {"loss": [1.0, 0.5, 0.25]}
    row = store.to_pandas().iloc[0]
    assert row["final_loss"] == 0.25 and row["accuracy"] == 0.75


def test_an_interrupt_inside_the_transaction_writes_nothing(store) -> None:
    calls = [0]

    def interrupt_once() -> int:
        calls[0] += 1
        if calls[0] == 40:  # well inside the 50 inserts
            raise KeyboardInterrupt
        return 0

    store._db.set_progress_handler(interrupt_once, 1)
    try:
        with pytest.raises(Exception, match="interrupted"):
            store.put_many([(f"k{i}", RECORD, {}) for i in range(50)])
    finally:
        store._db.set_progress_handler(None, 1)
    assert calls[0] >= 40
    assert len(store) == 0 and not store._db.in_transaction
    store.put_many([(f"k{i}", RECORD, {}) for i in range(3)])
    assert len(store) == 3
