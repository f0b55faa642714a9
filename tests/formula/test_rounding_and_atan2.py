"""round/rint (half to even), trunc, frac and atan2 as pasted from NumPy, PyTorch and
math, against those libraries on every backend; fmod and friends refused with the
reason (before: 'has no symnb equivalent' with the generic hint for all of them)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError
from tests.conftest import backend_params

torch = pytest.importorskip("torch")

TIES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5]
XS = np.array(
    [*TIES, 0.49999999999999994, -0.49999999999999994, 3.7, -3.7, -7.2, 0.0]
    + [1e17, -1e17, 2.0**52 + 1, 8388609.0, 1e30, np.inf, -np.inf]
)


def _torch(fn):
    return lambda v: fn(torch.tensor(v)).numpy()


CASES = {
    "torch.round(x)": _torch(torch.round),
    "torch.round(input=x)": _torch(torch.round),
    "np.round(x)": np.round,
    "np.around(x)": np.around,
    "np.rint(x)": np.rint,
    "round(x)": np.vectorize(lambda v: float(round(v)) if math.isfinite(v) else v),
    "torch.trunc(x)": _torch(torch.trunc),
    "np.trunc(x)": np.trunc,
    "np.fix(x)": np.fix,
    "math.trunc(x)": np.trunc,
    "x.trunc()": np.trunc,
    "torch.frac(x)": _torch(torch.frac),
}


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", list(CASES))
def test_steps_match_the_library_exactly(text, dtype, backend):
    xs = XS.astype(dtype)
    if text == "torch.frac(x)":
        xs = xs[np.isfinite(xs)]  # PyTorch's frac(inf) is NaN here, as inf - inf
    k = symnb.Activation(text).compile(backend=backend, dtype=dtype)
    f, df = k.forward_with_derivative(xs.copy())
    np.testing.assert_array_equal(f, CASES[text](xs.copy()), err_msg=text)
    # derivative 0 between the steps (frac: 1), as floor and ceiling
    with np.errstate(invalid="ignore"):
        inner = np.abs(xs - np.round(xs)) > 0.1
    expected = 1.0 if text == "torch.frac(x)" else 0.0
    np.testing.assert_array_equal(df[inner], expected)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("decimals", [1, 2, -1])
def test_round_with_decimals_is_numpys_algorithm(decimals, dtype, backend):
    """np.round(x, d) = rint(x*10**d)/10**d (NumPy's own steps), within one ulp: the
    kernels multiply by 10**-d where NumPy divides by 10**d (1234.5678 to 1
    decimal: 1234.6000000000001 in float64)."""
    xs = np.array([3.14159, -2.71828, 0.125, 0.375, 1234.5678, -0.05, 25.0])
    xs = xs.astype(dtype)
    k = symnb.Activation(f"np.round(x, {decimals})").compile(
        backend=backend, dtype=dtype
    )
    ref = np.round(xs, decimals)
    got = k.forward(xs.copy())
    assert np.all(np.abs(got - ref) <= np.spacing(np.abs(ref))), (got, ref)


ANGLES = {
    "np.arctan2(x, 1.5)": lambda v: np.arctan2(v, 1.5),
    "np.arctan2(x, -2)": lambda v: np.arctan2(v, -2.0),
    "np.arctan2(2, x)": lambda v: np.arctan2(2.0, v),
    "torch.atan2(-3, x)": lambda v: np.arctan2(-3.0, v),
    "math.atan2(x, x**2 - 1)": lambda v: np.arctan2(v, v**2 - 1),
    "atan2(x, 0)": lambda v: np.arctan2(v, 0.0),
    "np.arctan2(0, x)": lambda v: np.arctan2(0.0, v),
}
# finite differences of NumPy's arctan2 for the derivative
H = 1e-6


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("text", list(ANGLES))
def test_atan2_matches_numpy(text, dtype, backend):
    xs = np.array([-50.0, -3.0, -1.2, -0.3, 0.0, 0.4, 1.0, 2.5, 80.0])
    k = symnb.Activation(text).compile(backend=backend, dtype=dtype)
    f, df = k.forward_with_derivative(xs.astype(dtype))
    ref = ANGLES[text](xs)
    tol = 2e-7 if dtype == "float32" else 1e-15
    np.testing.assert_allclose(f, ref, rtol=tol, atol=tol, err_msg=text)
    fd = (ANGLES[text](xs + H) - ANGLES[text](xs - H)) / (2 * H)
    smooth = np.abs(fd) < 1e3  # away from the cut (a jump of 2 pi)
    if text == "atan2(x, 0)":
        smooth &= xs != 0
    np.testing.assert_allclose(df[smooth], fd[smooth], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    "text",
    ["np.fmod(x, 2)", "torch.fmod(x, 2)", "torch.remainder(x, 2)", "np.mod(x, 3)"],
)
def test_remainders_are_refused_with_the_reason(text):
    with pytest.raises(FormulaError) as info:
        symnb.Activation(text)
    message = str(info.value)
    assert "no remainder" in message and "x - c*trunc(x/c)" in message
