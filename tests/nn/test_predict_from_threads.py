"""Two threads predicting with one model at once each get their own outputs.

Before, inference reused one set of layer buffers per batch size: two threads
predicting batches of the same size wrote into the same buffers, and about half of
200 predictions per thread came back with the other thread's (or mixed) rows. The
reference is the same model's prediction of each input alone.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from symnb.nn import MLP


def _race(work, inputs):
    """Run ``work(X)`` 100 times per input, one thread per input; every result."""
    results = [[] for _ in inputs]

    def loop(i):
        for _ in range(100):
            results[i].append(work(inputs[i]))

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize("method", ["predict", "hidden_outputs"])
def test_concurrent_predictions_are_each_threads_own(backend, method):
    model = MLP([8, 128, 128, 4], activation="tanh", backend=backend, seed=0)
    rng = np.random.default_rng(0)
    inputs = [rng.normal(size=(256, 8)).astype(np.float32) for _ in range(2)]
    if method == "predict":
        work = model.decision_function
    else:
        work = lambda X: np.concatenate(model.hidden_outputs(X), axis=1)
    references = [work(X) for X in inputs]
    for reference, got in zip(references, _race(work, inputs)):
        wrong = sum(not np.array_equal(r, reference) for r in got)
        assert wrong == 0, f"{wrong} of {len(got)} predictions were another input's"
