"""The numpy backend evaluated a formula over the whole array at once, holding one
temporary of the array's size per operation: mish over 16 MB of float32 peaked at
122 MB (8x), and 2**31 elements (8 GiB, which fits this machine twice) got the process
killed by the system. It now runs in blocks of BLOCK elements; the values are the
same as the whole-array evaluation (the formulas are elementwise)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import symnb
from symnb.backends import numpy_


def test_forward_peak_memory_does_not_grow_with_the_formula() -> None:
    k = symnb.activation("mish").compile(backend="numpy")
    x = np.linspace(-5, 5, 4_000_000, dtype=np.float32)
    out = np.empty_like(x)
    k.forward(x[:10])
    tracemalloc.start()  # NumPy reports its allocations to tracemalloc
    try:
        k.forward(x, out=out)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < x.nbytes  # was about 8 * x.nbytes


@pytest.fixture
def small_blocks(monkeypatch):
    def use(n: int) -> None:
        monkeypatch.setattr(numpy_, "BLOCK", n)

    return use


def special(n: int, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).normal(scale=30, size=n).astype(np.float32)
    x[::97] = np.nan
    x[5::101] = np.inf
    x[7::103] = -np.inf
    return x


@pytest.mark.parametrize("formula", ["mish", "x*sigmoid(beta*x)", "relu"])
def test_blocks_give_the_whole_array_values(formula, small_blocks) -> None:
    act = (
        symnb.Activation(formula, beta=1.5)
        if "beta" in formula
        else symnb.activation(formula)
    )
    k = act.compile(backend="numpy")
    x = special(10_007).reshape(1, 10_007)
    g = special(10_007, seed=1).reshape(x.shape)
    small_blocks(1 << 40)
    want = (k.forward(x), k.backward(x, g), k.constant_gradient(x, g))
    small_blocks(1000)
    got = (k.forward(x), k.backward(x, g), k.constant_gradient(x, g))
    for a, b in zip(want[:2], got[:2]):
        np.testing.assert_array_equal(a, b)
    assert want[2].keys() == got[2].keys()
    # in place: out is x itself, and forward_and_backward writing into x and g
    y = x.copy()
    k.forward(y, out=y)
    np.testing.assert_array_equal(y, want[0])
    xx, gg = x.copy(), g.copy()
    k.forward_and_backward(xx, gg, out=(xx, gg))
    np.testing.assert_array_equal(xx, want[0])
    np.testing.assert_array_equal(gg, want[1])


def test_layer_and_loss_blocks(small_blocks) -> None:
    lk = symnb.compile_layer(["relu", "mish", "x*sigmoid(x)"], backend="numpy")
    X = special(3 * 5_000).reshape(5_000, 3)
    loss = symnb.loss("huber").compile(backend="numpy")
    p, t = special(9_001), special(9_001, seed=2)
    t[np.isnan(t)] = 0.0
    small_blocks(1 << 40)
    want = (lk.forward(X), lk.backward(X, X), loss.gradient(p, t), loss.value(p, t))
    small_blocks(999)
    got = (lk.forward(X), lk.backward(X, X), loss.gradient(p, t), loss.value(p, t))
    for a, b in zip(want[:3], got[:3]):
        np.testing.assert_array_equal(a, b)
    assert np.isnan(want[3]) and np.isnan(got[3])


def test_backward_of_an_infinite_grad_is_nan_without_a_numpy_warning() -> None:
    """relu'(x) = 0 against grad inf is NaN on every backend; the numpy backend also
    printed NumPy's "invalid value encountered in multiply"."""
    import warnings

    k = symnb.activation("relu").compile(backend="numpy")
    x = np.array([-1.0, 2.0], np.float32)
    g = np.array([np.inf, np.inf], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dx = k.backward(x, g)
        _, dx2 = k.forward_and_backward(x, g)
    np.testing.assert_array_equal(dx, [np.nan, np.inf])
    np.testing.assert_array_equal(dx2, [np.nan, np.inf])
