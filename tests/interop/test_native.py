"""Direct calls into cpp elementwise kernels (symnb.interop.native): the blocked
constants' gradient and the fused backward against symnb's float64 NumPy kernels,
across block and thread boundaries, NaN propagation, and the checked constants."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.backends.select import status
from symnb.interop.native import NativeElementwise

_CPP = status("cpp")
pytestmark = pytest.mark.skipif(
    not _CPP.usable, reason=f"cpp backend not usable here: {_CPP.reason}"
)

PAU = (
    "(a0 + a1*x + a2*x**2 + a3*x**3) / (1 + Abs(b1*x) + Abs(b2*x**2))",
    {"a0": 0.03, "a1": 0.62, "a2": 2.3, "a3": 1.5, "b1": 1.1, "b2": 0.9},
)
SWISH = ("x*sigmoid(beta*x)", {"beta": 1.3})


def _native(text, constants, dtype):
    kernel = symnb.Activation(text, **constants).compile(
        backend="cpp", dtype=dtype, strict=True
    )
    native = NativeElementwise.of(kernel)
    assert native is not None
    native.set_constants(np.array(list(constants.values()), dtype=np.float64))
    return native


def _reference(text, constants, x, g):
    k = symnb.Activation(text, **constants).compile(
        backend="numpy", dtype="float64", strict=True
    )
    x64, g64 = x.astype(np.float64), g.astype(np.float64)
    sums = k.constant_gradient(x64, g64)
    return k.backward(x64, g64), np.array([sums[n] for n in constants])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 255, 256, 257, 5000, 300_001])
@pytest.mark.parametrize("form", [SWISH, PAU], ids=["swish", "pau"])
def test_fused_backward_matches_float64_reference(form, n, dtype):
    text, constants = form
    rng = np.random.default_rng(n)
    x = rng.uniform(-5, 5, n).astype(dtype)
    g = rng.standard_normal(n).astype(dtype)
    native = _native(text, constants, dtype)
    assert len(native.fused_variants) == 2  # blocks and joint
    dx_ref, sums_ref = _reference(text, constants, x, g)
    tol = 2e-6 if dtype == "float32" else 1e-12
    # a sum of n terms: compare against the sum of the terms' magnitudes
    scale = np.abs(g.astype(np.float64)).sum() * 10
    for variant in native.fused_variants:
        native._fused = variant
        dx = np.empty_like(x)
        sums = native.backward_with_constants(
            x.ctypes.data, g.ctypes.data, dx.ctypes.data, n
        )
        np.testing.assert_allclose(dx, dx_ref, rtol=tol, atol=tol * np.abs(g).max())
        np.testing.assert_allclose(sums, sums_ref, rtol=0, atol=tol * scale)
    # the unfused path (backward, then the blocked constant_gradient) agrees (to an
    # ulp: a loop's remainder may take another vector path)
    dx2 = np.empty_like(x)
    native.backward(x.ctypes.data, g.ctypes.data, dx2.ctypes.data, n)
    np.testing.assert_allclose(dx2, dx, rtol=tol, atol=tol * np.abs(g).max())
    # the blocked constants' gradient alone sums in another order (threads, blocks):
    # a sum with cancellation, so held to the terms' magnitudes, not to its own size
    alone = native.kernel.constant_gradient(x, g)
    np.testing.assert_allclose(list(alone.values()), sums, rtol=0, atol=tol * scale)


def test_nan_input_gives_nan_sums():
    text, constants = PAU
    native = _native(text, constants, "float32")
    x = np.linspace(-2, 2, 1000, dtype=np.float32)
    x[700] = np.nan
    g = np.ones_like(x)
    dx = np.empty_like(x)
    sums = native.backward_with_constants(
        x.ctypes.data, g.ctypes.data, dx.ctypes.data, x.size
    )
    assert np.isnan(sums).all() and np.isnan(dx[700])
    assert np.isfinite(np.delete(dx, 700)).all()


def test_constants_that_do_not_fit_are_refused():
    text, constants = SWISH
    native = _native(text, constants, "float32")
    with pytest.raises(symnb.FormulaError, match=r"'beta'.*does not fit.*float32"):
        native.set_constants(np.array([1e300]))
    assert native.kernel.constants == {"beta": pytest.approx(1.3)}


def test_constants_by_address_leave_params_alone():
    """Calls with constants_address use those values (the same results as writing
    params), check them (refused: FormulaError, params unchanged) and reuse the
    checked buffer of a vector seen before."""
    text, constants = SWISH
    native = _native(text, constants, "float32")
    x = np.linspace(-4, 4, 1001, dtype=np.float32)
    g = np.ones_like(x)
    address = native.constants_address([0.7])
    assert native.constants_address([0.7]) == address
    y, dx = np.empty_like(x), np.empty_like(x)
    native.forward(x.ctypes.data, y.ctypes.data, x.size, address)
    sums = native.backward_with_constants(
        x.ctypes.data, g.ctypes.data, dx.ctypes.data, x.size, address
    )
    assert native.kernel.constants == {"beta": pytest.approx(1.3)}
    dx_ref, sums_ref = _reference(text, {"beta": 0.7}, x, g)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(y, x64 / (1 + np.exp(-0.7 * x64)), rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(dx, dx_ref, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(sums, sums_ref, rtol=1e-5)
    with pytest.raises(symnb.FormulaError, match=r"'beta'.*does not fit.*float32"):
        native.constants_address([1e300])
    with pytest.raises(ValueError, match="one value per constant"):
        native.constants_address([1.0, 2.0])
    assert native.kernel.constants == {"beta": pytest.approx(1.3)}


def test_other_backends_have_no_native_calls():
    k = symnb.Activation(*SWISH[:1], **SWISH[1]).compile(backend="numpy")
    assert NativeElementwise.of(k) is None


def test_many_constants_use_shorter_blocks():
    """40 constants: per-thread buffers of 40 x 192 values (within 64 KiB), same sums."""
    names = [f"c{k}" for k in range(40)]
    text = " + ".join(f"c{k}*tanh({k % 5 + 1}*x)" for k in range(40))
    constants = {n: 0.01 * (k + 1) for k, n in enumerate(names)}
    native = _native(text, constants, "float64")
    assert "#define SYMNB_BLOCK 192" in native.kernel.source
    rng = np.random.default_rng(1)
    x, g = rng.uniform(-3, 3, 1000), rng.standard_normal(1000)
    dx = np.empty_like(x)
    sums = native.backward_with_constants(
        x.ctypes.data, g.ctypes.data, dx.ctypes.data, x.size
    )
    dx_ref, sums_ref = _reference(text, constants, x, g)
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sums, sums_ref, rtol=1e-12, atol=1e-10)
