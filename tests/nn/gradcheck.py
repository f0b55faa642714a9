"""Central finite differences of a model's loss, shared by the gradient tests."""

from __future__ import annotations

import numpy as np


def finite_differences(model, X, y, h=1e-6, l1=0.0, l2=0.0):
    """d(loss + l1*|w| + l2/2*w^2)/d(every parameter) by central differences, in the
    flat layout of ``model.get_flat_parameters()`` (float64); the parameters are
    restored afterwards."""
    base = model.get_flat_parameters().astype(np.float64)
    n_w = model.parameters().n_weights
    grads = np.empty_like(base)
    for i in range(base.size):
        vals = []
        for sign in (1, -1):
            p = base.copy()
            p[i] += sign * h
            model.set_flat_parameters(p)
            loss = model.evaluate(X, y, metrics=[])["loss"]
            w = p[:n_w]
            loss += l1 * np.abs(w).sum() + 0.5 * l2 * (w * w).sum()
            vals.append(loss)
        grads[i] = (vals[0] - vals[1]) / (2 * h)
    model.set_flat_parameters(base)
    return grads
