"""Powers with a constant exponent at a zero base: f' and the exponent's gradient are
their limits there, not NaN (SymPy's p*|x|**p/x and u**p*log(u) are 0/0 and 0*log 0).

One zero input (a ReLU output, padding) made a learnable exponent's gradient NaN for the
whole batch. References: mpmath's numerical derivatives of independently typed
definitions (central differences, exact at a symmetric kink), at 50 digits.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import symnb

mp.mp.dps = 50


def _relu(t):
    return t if t > 0 else mp.mpf(0)


def _sigmoid(t):
    return 1 / (1 + mp.exp(-t))


# (symnb text, the same function typed for mpmath as g(x, beta))
CASES = [
    ("abs(x)**beta", lambda x, b: abs(x) ** b),
    ("(x**2)**beta", lambda x, b: (x * x) ** b),
    ("relu(x)**beta", lambda x, b: _relu(x) ** b),
    ("x*abs(x)**beta", lambda x, b: x * abs(x) ** b),
    ("sign(x)*abs(x)**beta", lambda x, b: mp.sign(x) * abs(x) ** b),
    ("abs(x)**(beta+1)/(beta+1)", lambda x, b: abs(x) ** (b + 1) / (b + 1)),
    ("x*sigmoid(x)**beta", lambda x, b: x * _sigmoid(x) ** b),
    ("softplus(x)**beta", lambda x, b: mp.log1p(mp.exp(x)) ** b),
]
POINTS = [-2.0, -0.5, 0.0, 0.5, 2.0]
BACKENDS = ["numpy", "cpp"]


def _close(got: float, ref, dtype: str) -> bool:
    # floor: the one-sided central difference at a kink is h**(p - 1)/2, ~1e-27
    rel, floor = (1e-12, 1e-20) if dtype == "float64" else (2e-6, 1e-20)
    return math.isfinite(got) and abs(got - float(ref)) <= rel * abs(ref) + floor


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("beta", [1.5, 2.5])
@pytest.mark.parametrize("text,g", CASES, ids=[c[0] for c in CASES])
def test_derivative_at_and_around_zero(text, g, beta, backend, dtype):
    k = symnb.Activation(text, beta=beta).compile(backend=backend, dtype=dtype)
    _, dy = k.forward_with_derivative(np.array(POINTS, dtype=dtype))
    b = mp.mpf(beta)
    for x, got in zip(POINTS, dy.tolist()):
        ref = mp.diff(lambda t: g(t, b), mp.mpf(x))
        assert _close(got, ref, dtype), (text, beta, x, got, ref)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text,g", CASES, ids=[c[0] for c in CASES])
def test_exponent_gradient_with_a_zero_input(text, g, backend):
    """The batch gradient of beta is finite and right when one input is exactly 0."""
    beta = 1.5
    k = symnb.Activation(text, beta=beta).compile(backend=backend, dtype="float64")
    xs = np.array(POINTS)
    upstream = np.array([0.3, -1.0, 2.0, 0.7, 1.1])
    got = k.constant_gradient(xs, upstream)["beta"]
    ref = mp.fsum(
        w * mp.diff(lambda c, x=x: g(mp.mpf(x), c), mp.mpf(beta))
        for x, w in zip(POINTS, upstream)
    )
    assert _close(got, ref, "float64"), (text, got, ref)


def test_exponent_gradient_at_an_underflowed_base():
    """sigmoid(-800) is 0 in float64: x*sigmoid(x)**beta's beta-gradient is its limit 0
    (it was 0*log(0) = NaN), and the value next to it is still right."""
    k = symnb.Activation("x*sigmoid(x)**beta", beta=2.0).compile(
        backend="cpp", dtype="float64"
    )
    for x in (-800.0, -30.0):
        got = k.constant_gradient(np.array([x]), np.array([1.0]))["beta"]
        ref = mp.diff(lambda c, x=x: x * _sigmoid(mp.mpf(x)) ** c, mp.mpf(2))
        assert _close(got, ref, "float64"), (x, got, ref)


def test_torch_learnable_exponent_with_a_zero_input():
    """Through the PyTorch bridge: relu(x)**beta with a learnable beta and a zero in the
    batch gets the gradient of PyTorch's own composite at the nonzero inputs."""
    torch = pytest.importorskip("torch", reason="the torch extra is not installed")
    act = symnb.Activation("relu(x)**beta", beta=1.5)
    module = act.to_torch(learnable=True).double()
    x = torch.tensor([-1.0, 0.0, 0.5, 2.0], dtype=torch.float64)
    module(x).sum().backward()
    got = module.constants.beta.grad.item()
    ref = sum(float(mp.log(v) * mp.mpf(v) ** 1.5) for v in (0.5, 2.0))
    assert math.isfinite(got) and abs(got - ref) <= 1e-12 * abs(ref)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cuda_kernels_with_the_new_branches_compile(dtype):
    """The forms (branches on the exponent's sign) compile under NVRTC, with the
    constant-gradient kernels."""
    from symnb.backends import nvrtc
    from symnb.codegen.kernels import render_program
    from tests.backends.test_cuda_compile import _nvrtc_check

    ok, why = nvrtc.available()
    if not ok:
        pytest.skip(f"NVRTC not usable here (no GPU needed, but the library): {why}")
    for text, _ in CASES:
        form = symnb.Activation(text, beta=1.5).internal
        source = render_program((form,), "elementwise", dialect="cuda", dtype=dtype)
        _nvrtc_check(source, dtype)
