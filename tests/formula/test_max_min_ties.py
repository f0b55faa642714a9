"""max/min of two varying sides: where they tie in floating point, f' is not 0.

SymPy's rule H(a - b) a' + H(b - a) b' with H(0) = 0 gave 0 wherever a and b round to
the same number: ``max(asinh(x), x)`` for |x| < 1e-8 (float64) or 2e-4 (float32), where
asinh(x) rounds to x; ``max(x*sigmoid(x), x)`` from x = 20 (float32), where sigmoid
rounds to 1; ``max(x, 0.01*x)`` at 0 (PyTorch's leaky relu: 0.01).
References: mpmath at 50 digits (the derivative of the side that is larger in exact
arithmetic; at a kink, the derivative from the left, PyTorch's convention for relu,
leaky relu and elu) and ``F.leaky_relu``. relu's convention (max(x, 0)'(0) = 0, as
``F.relu``) is unchanged.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import symnb

BACKENDS = ["numpy", "cpp"]
DTYPES = ["float32", "float64"]

# text, the two sides as mpmath functions, max or min, points where they tie in float
CASES = [
    (
        "max(asinh(x), x)",
        mp.asinh,
        lambda x: x,
        max,
        [-1e-9, 1e-9, -3e-5, 3e-5, -1e-20],
    ),
    (
        "max(x*sigmoid(x), x)",
        lambda x: x / (1 + mp.exp(-x)),
        lambda x: x,
        max,
        [20.0, 25.0, 40.0, 80.0],
    ),
    ("min(sinh(x), x)", mp.sinh, lambda x: x, min, [-1e-9, 1e-9, 2e-5, -2e-5]),
    (
        "min(x, x*tanh(x) + x)",
        lambda x: x,
        lambda x: x * mp.tanh(x) + x,
        min,
        [-1e-10, 1e-10, 1e-25],
    ),
]


def _reference(a, b, pick, x: float) -> float:
    with mp.workdps(50):
        xm = mp.mpf(x)
        side = a if pick(a(xm), b(xm)) == a(xm) else b
        return float(mp.diff(side, xm))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("text,a,b,pick,points", CASES, ids=[c[0] for c in CASES])
def test_float_ties_give_the_derivative(text, a, b, pick, points, dtype, backend):
    k = symnb.Activation(text).compile(backend=backend, dtype=dtype)
    xs = np.array(points, dtype=dtype)
    got = k.backward(xs, np.ones_like(xs))
    want = np.array([_reference(a, b, pick, float(x)) for x in xs])
    tol = 2e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=text)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "text,f,points",
    [
        ("max(x, 0.01*x)", lambda x: max(x, 0.01 * x), [0.0]),
        ("min(x, 0.25*x)", lambda x: min(x, 0.25 * x), [0.0]),
        ("max(x, x**3)", lambda x: max(x, x**3), [0.0, 1.0, -1.0]),
        ("min(x, x**3)", lambda x: min(x, x**3), [0.0, 1.0, -1.0]),
        ("max(x*sigmoid(x), x)", lambda x: max(x / (1 + mp.exp(-x)), x), [0.0]),
    ],
)
def test_a_kink_between_varying_sides_takes_the_left_derivative(
    text, f, points, backend
):
    # relu'(0) = 0, leaky_relu'(0) = negative slope, elu'(0) = alpha: PyTorch's
    # kinks take the slope from the left; mpmath's one-sided derivative is the reference
    k = symnb.Activation(text).compile(backend=backend, dtype="float64")
    xs = np.array(points)
    with mp.workdps(50):
        want = [float(mp.diff(f, mp.mpf(p), direction=-1)) for p in points]
    got = k.backward(xs, np.ones_like(xs))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-30)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("slope", [0.01, 0.2])
def test_max_spelling_of_leaky_relu_matches_torch(slope, backend):
    torch = pytest.importorskip("torch")
    xs = np.array([0.0, -0.0, 1.5, -1.5, 1e-300, -1e-300])
    x = torch.tensor(xs, requires_grad=True)
    torch.nn.functional.leaky_relu(x, slope).sum().backward()
    for text, consts in (
        (f"max(x, {slope}*x)", {}),
        ("max(alpha*x, x)", {"alpha": slope}),
    ):
        k = symnb.Activation(text, **consts).compile(backend=backend, dtype="float64")
        np.testing.assert_allclose(
            k.backward(xs, np.ones_like(xs)), x.grad.numpy(), rtol=1e-15, err_msg=text
        )


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_constant_side_keeps_relu_convention(backend):
    torch = pytest.importorskip("torch")
    xs = np.array([0.0, -0.0, 1e-30, -1e-30])
    x = torch.tensor(xs, requires_grad=True)
    torch.nn.functional.relu(x).sum().backward()
    for text in ("max(x, 0)", "max(0, x)"):
        k = symnb.Activation(text).compile(backend=backend, dtype="float64")
        np.testing.assert_array_equal(k.backward(xs, np.ones_like(xs)), x.grad.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_in_nan_out(dtype):
    for text in ("max(x, 0.01*x)", "min(sinh(x), x)"):
        k = symnb.Activation(text).compile(backend="numpy", dtype=dtype)
        xs = np.array([np.nan], dtype=dtype)
        assert np.isnan(k.backward(xs, np.ones_like(xs))).all(), text
        assert np.isnan(k.forward(xs)).all(), text


# sides that meet at 0 with different slopes: at +-the smallest subnormal both round to
# the same float, but in exact arithmetic one is larger (the right derivative's side
# for x > 0, the left's for x < 0); found by fuzzing (f' was 1 instead of 0.75 at
# 1.4e-45 for the first)
SUBNORMAL_CASES = [
    ("min(x - 1.25*x + x, expm1(x))", lambda x: 0.75 * x, mp.expm1, min),
    (
        "min(((1.5*x + 0.5*x)/2 + 1.25*x/(1 + abs(x)))/2, expm1(x))",
        lambda x: (x + 1.25 * x / (1 + abs(x))) / 2,
        mp.expm1,
        min,
    ),
    ("max(x, 0.01*x)", lambda x: x, lambda x: 0.01 * x, max),
    ("max(sinh(x), 0.5*x)", mp.sinh, lambda x: 0.5 * x, max),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "text,a,b,pick", SUBNORMAL_CASES, ids=[c[0] for c in SUBNORMAL_CASES]
)
def test_subnormal_ties_take_the_exact_side(text, a, b, pick, dtype, backend):
    k = symnb.Activation(text).compile(backend=backend, dtype=dtype)
    tiny = float(np.finfo(dtype).smallest_subnormal)
    xs = np.array([tiny, -tiny, 2 * tiny, -3 * tiny], dtype=dtype)
    got = k.backward(xs, np.ones_like(xs))
    want = np.array([_reference(a, b, pick, float(x)) for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0, err_msg=text)
