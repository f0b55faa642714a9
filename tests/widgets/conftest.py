"""Fixtures for the widget tests: a stand-in network with controllable speed (so the
thread tests do not depend on how fast this machine trains), and a counter of the comm
messages each widget would send to the browser."""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections import Counter
from itertools import pairwise
from typing import Any, ClassVar

import ipywidgets as W
import numpy as np
import pytest


class FakeMLP:
    """Has the ``symnb.nn.MLP`` methods the playground calls; each epoch takes ``delay``
    seconds and records whether anything touched the model while an epoch ran."""

    delay = 0.0
    instances: ClassVar[list[FakeMLP]] = []

    def __init__(self, sizes, activation, loss, backend, seed, **device):
        self.sizes, self.activation, self.loss = list(sizes), activation, loss
        self.backend, self.seed, self.device = backend, seed, device
        rng = np.random.default_rng(seed)
        self.weights = [rng.normal(size=(a, b)) for a, b in pairwise(sizes)]
        self.epochs = 0
        self.active = 0
        self.violations: list[str] = []
        self.train_calls: list[dict] = []
        FakeMLP.instances.append(self)

    def parameters(self):
        if self.active:
            self.violations.append("parameters() during an epoch")
        return list(self.weights)

    def get_flat_parameters(self):
        return np.concatenate([w.ravel() for w in self.weights])

    def set_flat_parameters(self, values):
        values = np.asarray(values, dtype=float)
        if values.size != sum(w.size for w in self.weights):
            raise ValueError("other shape")
        offset = 0
        for w in self.weights:
            w[...] = values[offset : offset + w.size].reshape(w.shape)
            offset += w.size

    def train_epoch(self, X, y, optimizer=None, **kwargs):
        self.active += 1
        try:
            self.train_calls.append(dict(kwargs, n=len(X), optimizer=optimizer))
            time.sleep(self.delay)
            for w in self.weights:
                w *= 0.99
            self.epochs += 1
        finally:
            self.active -= 1
        return self._loss()

    def _loss(self) -> float:
        return 1.0 / (1.0 + self.epochs)

    def evaluate(self, X, y, metrics=None):
        return (
            {"loss": self._loss()}
            if metrics == []
            else {"loss": self._loss(), "accuracy": 0.5}
        )

    def _forward(self, X):
        h = np.asarray(X, dtype=float)
        outs = []
        for w in self.weights[:-1]:
            h = np.tanh(h @ w)
            outs.append(h)
        return h @ self.weights[-1], outs

    def predict(self, X):
        return self._forward(X)[0]

    def predict_proba(self, X):
        p = 1 / (1 + np.exp(-self._forward(X)[0][:, 0]))
        return np.stack([1 - p, p], 1)  # binary: [P(0), P(1)] as symnb.nn

    def hidden_outputs(self, X):
        return self._forward(X)[1]


class FakeOptimizer:
    def __init__(self, name, parameters, lr):
        self.name, self.parameters, self.lr = name, parameters, lr


@pytest.fixture
def fake_nn(monkeypatch):
    """Replace symnb.nn in the playground by FakeMLP / FakeOptimizer."""
    from symnb.widgets import playground

    FakeMLP.delay = 0.0
    FakeMLP.instances = []
    monkeypatch.setattr(playground, "build_model", FakeMLP)
    monkeypatch.setattr(playground, "build_optimizer", FakeOptimizer)
    yield FakeMLP
    # A playground's background build may still run: let it finish with the fakes,
    # or it installs a FakeMLP with the real optimizer once monkeypatch undoes them
    # (CI saw "SGD: parameter 0 is array(...)" from that thread).
    for thread in threading.enumerate():
        if thread.name == "symnb-playground-build":
            thread.join(timeout=30)


@pytest.fixture
def sent(monkeypatch):
    """Counter: widget model id -> number of update messages sent to the front end."""
    counts: Counter = Counter()
    lock = threading.Lock()
    original = W.Widget._send

    def counting(self, msg, buffers=None):
        if isinstance(msg, dict) and msg.get("method") == "update":
            with lock:
                counts[self.model_id] += 1
        return original(self, msg, buffers)

    monkeypatch.setattr(W.Widget, "_send", counting)
    return counts


def png_ok(data: bytes) -> bool:
    """A non-trivial PNG (Image.value holds a memoryview)."""
    if isinstance(data, memoryview):
        data = data.tobytes()
    return (
        isinstance(data, bytes) and data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 200
    )


def refused_quietly(error: type, build: Any) -> str:
    """The message of the ``error`` that ``build()`` raises; fails when the half-built
    widget, once collected, printed "Exception ignored in ... __del__"."""
    unraisable: list = []
    old_hook = sys.unraisablehook
    sys.unraisablehook = unraisable.append
    try:
        with pytest.raises(error) as info:
            build()
        message = str(info.value)
        del info
        gc.collect()
    finally:
        sys.unraisablehook = old_hook
    assert unraisable == []
    return message
