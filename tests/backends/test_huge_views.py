"""A broadcast or strided view of many elements takes almost no memory, but a kernel
copies it into a contiguous array and allocates an output of the same size. Past the
machine's memory that was NumPy's "Unable to allocate" at best and, with Linux
overcommit, the process killed (two copies each below the memory, together above).
Now a MemoryError names the argument before anything is allocated. The machine's
memory is faked small here so that nothing large is allocated."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symnb
import symnb.memory

N = 2**26  # float32: a 256 MiB copy and a 256 MiB output


@pytest.fixture
def small_machine(monkeypatch):
    monkeypatch.setattr(symnb.memory, "physical_memory", lambda: 2**27)


@pytest.fixture(params=["numpy", "cpp"])
def kernel(request):
    from symnb.backends import cpp

    if request.param == "cpp" and not cpp.probe().usable:
        pytest.skip(f"cpp backend: {cpp.probe().reason}")
    return symnb.Activation("tanh(x)").compile(backend=request.param)


def _views():
    return {
        "broadcast": np.broadcast_to(np.float32(0.5), (N,)),
        "float64 broadcast": np.broadcast_to(np.float64(0.5), (N // 2, 2)),
        "strided": np.lib.stride_tricks.as_strided(
            np.zeros(1, np.float32), shape=(N // 4, 4), strides=(0, 0)
        ),
    }


@pytest.mark.parametrize("which", ["broadcast", "float64 broadcast", "strided"])
def test_huge_view_is_refused_before_copying(small_machine, kernel, which) -> None:
    x = _views()[which]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(MemoryError, match=r"^x of shape .*process x in chunks"):
            kernel.forward(x)
        with pytest.raises(MemoryError, match=r"^x of shape"):
            kernel.forward_with_derivative(x)
        with pytest.raises(MemoryError, match=r"^x of shape"):
            kernel.backward(x, x)


def test_small_views_are_still_copied(small_machine, kernel) -> None:
    x = np.broadcast_to(np.float32(0.5), (1000,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = kernel.forward(x)
    np.testing.assert_allclose(y, np.tanh(np.float32(0.5)), rtol=1e-6)
