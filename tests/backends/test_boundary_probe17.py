"""Boundary probe 17 (backends): a C++ kernel keeps working in a process forked after it ran.

libgomp's thread pool does not survive ``fork``; before the fix the child's first parallel
kernel call waited for the parent's threads forever (multiprocessing's default start method
on Linux, DataLoader workers).
"""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

import symnb
from symnb.codegen.kernels import PARALLEL_MIN

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
    reason="needs fork and 2 cores",
)


def _cpp_usable() -> bool:
    return symnb.backends.available()["cpp"].usable


@pytest.mark.skipif(not _cpp_usable(), reason="no C++ backend")
def test_a_child_forked_after_a_parallel_forward_computes_and_returns():
    kernel = symnb.Activation("x*sigmoid(beta*x)", beta=1.5).compile(
        backend="cpp", dtype="float64"
    )
    x = np.linspace(-8.0, 8.0, 2 * PARALLEL_MIN)
    reference = x / (1.0 + np.exp(-1.5 * x))
    # The parent runs a parallel region first: that is what leaves the pool behind.
    assert np.allclose(kernel.forward(x), reference, rtol=1e-14, atol=0)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's outcome is read from its exit status
        code = 1
        try:
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.alarm(30)  # a hang ends the child by the signal, not the test run
            y = kernel.forward(x)
            g = kernel.backward(x, np.ones_like(x))
            ok = np.allclose(y, reference, rtol=1e-14, atol=0) and np.all(
                np.isfinite(g)
            )
            code = 0 if ok else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert not os.WIFSIGNALED(status), (
        "the forked child hung in the kernel (killed by alarm)"
    )
    assert os.WEXITSTATUS(status) == 0, (
        f"the forked child failed with code {os.WEXITSTATUS(status)}"
    )
    # The parent keeps its threads and its values.
    assert np.allclose(kernel.forward(x), reference, rtol=1e-14, atol=0)
