"""predict / decision_function / predict_proba / evaluate ran the whole input through
the network at once, allocating one (n, width) buffer per layer: 3e8 rows (an input of
2.4 GiB) through a width-16 layer asked for 18 GiB, more than this machine has (NumPy's
"Unable to allocate" at best, the process killed under overcommit at worst). Inference
now runs in blocks of rows with bounded buffers, with the same numbers."""

from __future__ import annotations

import numpy as np
import pytest

import symnb.nn.model as model_module
from symnb.nn import MLP


def _outputs(model, X, monkeypatch, block_bytes):
    monkeypatch.setattr(model_module, "_INFER_BYTES", block_bytes, raising=False)
    model._infer_buffers.clear()
    result = {
        "raw": model.decision_function(X),
        "predict": model.predict(X),
        "proba": model.predict_proba(X),
        "evaluate": model.evaluate(X, (X[:, 0] > 0).astype(float)),
    }
    return result, max(model._infer_buffers)


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_blocks_give_the_same_numbers_with_bounded_buffers(monkeypatch, backend):
    X = np.random.default_rng(0).normal(size=(5000, 3)).astype(np.float32)
    model = MLP(
        [3, 16, 8, 1], activation="tanh", loss="bce_with_logits", backend=backend
    )
    whole, whole_rows = _outputs(model, X, monkeypatch, 1 << 40)
    blocks, block_rows = _outputs(model, X, monkeypatch, 1)
    assert whole_rows == 5000
    assert block_rows <= 1024  # the smallest block
    np.testing.assert_allclose(blocks["raw"], whole["raw"], rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(blocks["predict"], (blocks["raw"][:, 0] > 0))
    np.testing.assert_allclose(blocks["proba"], whole["proba"], rtol=1e-6, atol=1e-7)
    assert blocks["evaluate"]["loss"] == pytest.approx(whole["evaluate"]["loss"])
    assert blocks["evaluate"]["accuracy"] == whole["evaluate"]["accuracy"]


def test_blocks_of_a_multiclass_and_a_regression_model(monkeypatch):
    X = np.random.default_rng(1).normal(size=(3000, 2))
    clf = MLP([2, 8, 3], loss="cross_entropy")
    reg = MLP([2, 8, 2])
    monkeypatch.setattr(model_module, "_INFER_BYTES", 1 << 40, raising=False)
    expected = clf.decision_function(X), reg.predict(X)
    monkeypatch.setattr(model_module, "_INFER_BYTES", 1, raising=False)
    clf._infer_buffers.clear()
    reg._infer_buffers.clear()
    np.testing.assert_allclose(clf.decision_function(X), expected[0], rtol=1e-6)
    np.testing.assert_allclose(reg.predict(X), expected[1], rtol=1e-6, atol=1e-7)
    assert max(clf._infer_buffers) <= 1024 and max(reg._infer_buffers) <= 1024
