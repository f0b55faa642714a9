"""The C++ layer's constants' gradient over long runs of one formula (a SIMD loop
across the columns of each run, float accumulators flushed to double every 16 rows)
against float64 derivatives written by hand, serial and parallel, with a row count
that is not a multiple of the flush interval; and against the column-by-column path
that alternating formulas take."""

from __future__ import annotations

import numpy as np
import pytest

import symnb

RATIONAL = "(a0 + a1*x + a2*x**2)/(1 + b1*x**2)"


def _sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def _rational_dc(x, a0, a1, a2, b1):
    q = 1.0 + b1 * x * x
    p = a0 + a1 * x + a2 * x * x
    return [1.0 / q, x / q, x * x / q, -p * x * x / (q * q)]


def _swish_dc(x, beta):
    s = _sig(beta * x)
    return [x * x * s * (1.0 - s)]


def _neurons(n_rational, n_swish, n_relu, seed=0):
    rng = np.random.default_rng(seed)
    acts, refs = [], []
    for _ in range(n_rational):
        c = {
            "a0": rng.uniform(-0.5, 0.5),
            "a1": rng.uniform(0.5, 1.5),
            "a2": rng.uniform(0.1, 1.0),
            "b1": rng.uniform(0.2, 2.0),
        }
        acts.append(symnb.Activation(RATIONAL, name="rat", **c))
        refs.append(lambda x, c=c: _rational_dc(x, c["a0"], c["a1"], c["a2"], c["b1"]))
    for _ in range(n_swish):
        beta = rng.uniform(0.5, 2.0)
        acts.append(symnb.Activation("x*sigmoid(beta*x)", name="sw", beta=beta))
        refs.append(lambda x, b=beta: _swish_dc(x, b))
    for _ in range(n_relu):
        acts.append(symnb.activation("relu"))
        refs.append(lambda x: [])
    return acts, refs


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows", [37, 1003])  # 1003 x 90 columns runs in parallel
def test_long_runs_match_hand_written_float64(dtype, rows):
    acts, refs = _neurons(40, 30, 20)
    layer = symnb.compile_layer(acts, backend="cpp", dtype=dtype)
    rng = np.random.default_rng(rows)
    x = rng.uniform(-4, 4, (rows, len(acts))).astype(dtype)
    g = rng.uniform(0.1, 1, x.shape).astype(dtype)  # one sign: little cancellation
    got = layer.constant_gradient(x, g)
    got = np.asarray(list(got.values()) if isinstance(got, dict) else got, np.float64)
    want, scale = [], []
    xd, gd = x.astype(np.float64), g.astype(np.float64)
    for j, ref in enumerate(refs):
        for d in ref(xd[:, j]):
            want.append(np.sum(gd[:, j] * d))
            scale.append(np.sum(np.abs(gd[:, j] * d)))
    want, scale = np.asarray(want), np.asarray(scale)
    assert got.shape == want.shape
    # float32: a few ulps per term (constants rounded to float32 included)
    tol = (2e-6 if dtype == "float32" else 1e-13) * scale
    assert np.all(np.abs(got - want) <= tol), np.max(np.abs(got - want) / scale)


def test_long_runs_equal_the_column_path_and_carry_nan():
    acts, _ = _neurons(40, 30, 20, seed=3)
    order = np.random.default_rng(5).permutation(len(acts))  # alternating forms
    long_runs = symnb.compile_layer(acts, backend="cpp")
    shuffled = symnb.compile_layer([acts[i] for i in order], backend="cpp")
    rng = np.random.default_rng(9)
    x = rng.uniform(-3, 3, (515, len(acts))).astype(np.float32)
    g = rng.uniform(-1, 1, x.shape).astype(np.float32)

    def flat(layer, xx, gg):
        out = layer.constant_gradient(xx, gg)
        return np.asarray(list(out.values()) if isinstance(out, dict) else out)

    a = flat(long_runs, x, g)
    b = flat(
        shuffled, np.ascontiguousarray(x[:, order]), np.ascontiguousarray(g[:, order])
    )
    # b lists each neuron's constants in shuffled order: regroup by neuron
    counts = [len(act.constants) for act in acts]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pos, regrouped = 0, [None] * len(acts)
    for i in order:
        regrouped[i] = b[pos : pos + counts[i]]
        pos += counts[i]
    b = np.concatenate([r for r in regrouped if r is not None and len(r)])
    assert a.shape == b.shape and starts[-1] <= a.size
    np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)
    x[17, 3] = np.nan  # a rational neuron: its four sums are NaN, the others finite
    c = flat(long_runs, x, g)
    assert np.isnan(c[12:16]).all() and np.isfinite(np.delete(c, range(12, 16))).all()


def _rational(x, a0, a1, a2, b1):
    q = 1.0 + b1 * x * x
    p = a0 + a1 * x + a2 * x * x
    return p / q, ((a1 + 2 * a2 * x) * q - p * 2 * b1 * x) / (q * q)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
# 100 columns in 2 runs: the row path with the table, serial and parallel
@pytest.mark.parametrize("rows", [5, 37, 1003])
def test_row_runs_forward_and_derivative_match_hand_written(dtype, rows):
    """f, g*f' and (f, f') of a layer whose runs take several constants from the
    table by position and column, against float64 formulas written by hand."""
    rng = np.random.default_rng(rows)
    consts = [
        (rng.uniform(-0.5, 0.5), rng.uniform(0.5, 1.5), rng.uniform(0.1, 1), b)
        for b in rng.uniform(0.2, 2.0, 80)
    ]
    acts = [
        symnb.Activation(RATIONAL, name="rat", a0=a0, a1=a1, a2=a2, b1=b1)
        for a0, a1, a2, b1 in consts
    ] + [symnb.activation("relu")] * 20
    layer = symnb.compile_layer(acts, backend="cpp", dtype=dtype)
    x = rng.uniform(-4, 4, (rows, len(acts))).astype(dtype)
    g = rng.uniform(-1, 1, x.shape).astype(dtype)
    xd = x.astype(np.float64)
    f_ref, d_ref = np.empty_like(xd), np.empty_like(xd)
    for j, c in enumerate(consts):
        cd = (float(np.dtype(dtype).type(v)) for v in c)
        f_ref[:, j], d_ref[:, j] = _rational(xd[:, j], *cd)
    f_ref[:, 80:] = np.maximum(xd[:, 80:], 0)
    d_ref[:, 80:] = xd[:, 80:] > 0
    rtol = 3e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(layer.forward(x), f_ref, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(
        layer.backward(x, g), g.astype(np.float64) * d_ref, rtol=rtol, atol=rtol
    )
    y, dy = layer.forward_with_derivative(x)
    np.testing.assert_allclose(y, f_ref, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(dy, d_ref, rtol=rtol, atol=rtol)
