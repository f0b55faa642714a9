"""A whole run record, as ``symnb.nn.sweep.train_run`` writes one, for store tests."""

from __future__ import annotations

#: every field a stored run holds (``RunStore.put`` refuses a record lacking one)
RECORD = {
    "activation": "relu",
    "dataset": "xor",
    "seed": 0,
    "status": "ok",
    "final_loss": 0.5,
    "accuracy": 0.9,
    "epochs_to_target": None,
    "time": 0.1,
    "error": None,
}
