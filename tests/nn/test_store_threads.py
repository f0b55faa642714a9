"""A RunStore opened in one thread serves a compare running in another, and threads
writing to one store at once all land.

Before, the SQLite connection belonged to the thread that opened the store: a compare
in a background thread (to keep a notebook responsive) failed on its first look-up
with SQLite's "objects created in a thread can only be used in that same thread".
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from symnb import nn
from symnb.nn.store import RunStore


def _in_thread(work):
    outcome = {}

    def target():
        try:
            outcome["value"] = work()
        except Exception as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def test_a_compare_in_another_thread_uses_an_open_store(tmp_path, counted):
    options = {"hidden": 4, "epochs": 1, "seeds": [0], "progress": False}
    with RunStore(tmp_path / "runs.sqlite") as store:
        result = _in_thread(
            lambda: nn.compare(["relu"], "two_moons", store=store, **options)
        )
        assert len(store) == 1 and len(counted) == 1
        again = nn.compare(["relu"], "two_moons", store=store, **options)  # main
        assert len(counted) == 1  # the run the thread stored was reused
        assert again.runs[0]["final_loss"] == result.runs[0]["final_loss"]


def _record(activation, seed):
    """A finished run's record as compare writes it."""
    keys = ("final_loss", "accuracy", "epochs_to_target", "time", "error")
    return dict(
        dict.fromkeys(keys), activation=activation, dataset="d", seed=seed, status="ok"
    )


def test_threads_writing_one_store_at_once_all_land(tmp_path):
    with RunStore(tmp_path / "runs.sqlite") as store:

        def write(prefix):
            for i in range(40):
                store.put(f"{prefix}{i}", _record(prefix, i), {"n": i})
                assert f"{prefix}{i}" in store
            return prefix

        with ThreadPoolExecutor(2) as pool:  # result() raises a thread's error
            done = [f.result() for f in [pool.submit(write, p) for p in "ab"]]
        assert done == ["a", "b"]
        found = store.get_many(f"{p}{i}" for p in "ab" for i in range(40))
        assert len(found) == 80
        assert {r["seed"] for r in found.values()} == set(range(40))
