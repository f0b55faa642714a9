"""Eighteenth boundary probe of the interop faces (helper h123).

Each test fails before its fix (start commit 05b75fa) and checks against an
independent reference (float64 NumPy composites of the published definitions).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symnb


def _swish64(x: float, beta: float) -> tuple[float, float, float]:
    """x*sigmoid(beta*x), its x and beta derivatives in float64."""
    s = 1.0 / (1.0 + np.exp(-beta * x))
    return x * s, s + beta * x * s * (1.0 - s), x * x * s * (1.0 - s)


def test_numba_object_attributes_inside_njit():
    """Use: r = act.to_numba(); @njit def g(x): return r.df(x). Before: numba's
    TypingError "Untyped global name 'r': Cannot determine Numba type of
    NumbaActivation"; after: the attributes type as the compiled functions, as a
    global and as an argument, with no experimental-feature warning."""
    numba = pytest.importorskip("numba")
    r = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.5).to_numba()

    @numba.njit
    def as_global(x):
        return r.f(x), r.df(x), r.dconstants[0](x), r.f(x, 0.5)

    @numba.njit
    def as_argument(obj, x):
        return obj.df(x)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f, df, dbeta, f_half = as_global(0.7)
        bound = as_argument(r.bind(beta=3.0), -0.4)
    ref = _swish64(0.7, 1.5)
    np.testing.assert_allclose([f, df, dbeta], ref, rtol=1e-14)
    np.testing.assert_allclose(f_half, _swish64(0.7, 0.5)[0], rtol=1e-14)
    np.testing.assert_allclose(bound, _swish64(-0.4, 3.0)[1], rtol=1e-14)


def test_cuda_float32_header_warns_of_use_fast_math():
    """Use: nvcc --use_fast_math on a file including to_source("cuda"). nvcc
    defines no macro for it (CUDA 13.0: only cicc's -ftz/-prec-div/-prec-sqrt/
    -fast-math differ), so no #error can refuse it as the host -ffast-math guard
    does. Before: the header said nothing; after: its comment names the flags and
    the fix (float32 only; float64 is unaffected)."""
    act = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.5)
    text = act.to_source("cuda", "float32")
    head = text[: text.index("*/")]
    assert "--use_fast_math" in head and "without those flags" in head
    assert "--use_fast_math" not in act.to_source("cpp", "float32")


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_fork_while_a_thread_registers_a_torch_activation():
    """Use: a thread building a to_torch module (the registry lock held) while the
    main thread forks (a DataLoader's fork workers); the child then builds one.
    Before: the child waited for ever on the inherited lock (SIGALRM after 10 s);
    after: it builds and computes swish as the float64 reference."""
    pytest.importorskip("torch")
    import torch

    from symnb.interop import torch as face
    from tests.fork_helpers import fork_while_held

    def child():
        act = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.5)
        y = act.to_torch(backend="numpy")(torch.tensor([0.7], dtype=torch.float64))
        return abs(float(y[0]) - _swish64(0.7, 1.5)[0]) < 1e-14

    status = fork_while_held(face._LOCK, child)
    assert status == 0
