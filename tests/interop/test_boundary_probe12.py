"""Boundary inputs found by the twelfth probe of the interop faces: constants outside
a library formula's domain (softplus's beta = 0, hardtanh's min_val > max_val) were
refused by the kernels' checked setters, but taken by the PyTorch module on the C++
backend (its native path stores constants itself), by the JAX function's keyword
constants and by ``NumbaActivation.bind``, which computed inf, NaN or a constant
without a word. Each is now the same ``FormulaError`` naming the constant."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError

X = np.array([-3.0, -0.5, 0.0, 0.5, 3.0])


def softplus_reference(x: np.ndarray, beta: float) -> np.ndarray:
    """PyTorch's Softplus (threshold 20 not reached here): log(1 + exp(beta x)) / beta."""
    return np.logaddexp(0.0, beta * x) / beta


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_torch_module_refuses_softplus_beta_zero_on_every_backend(backend):
    torch = pytest.importorskip("torch")
    module = symnb.activation("softplus", beta=1.0).to_torch(
        learnable=True, backend=backend
    )
    x = torch.tensor(X, dtype=torch.float64)
    with torch.no_grad():
        module.constants.beta.fill_(0.0)
    with pytest.raises(FormulaError, match="softplus's beta must not be 0"):
        module(x)
    with torch.no_grad():
        module.constants.beta.fill_(2.0)
    np.testing.assert_allclose(
        module(x).detach().numpy(), softplus_reference(X, 2.0), rtol=1e-12
    )


def test_torch_module_refuses_crossed_hardtanh_bounds_on_cpp():
    torch = pytest.importorskip("torch")
    module = symnb.activation("hardtanh").to_torch(learnable=True, backend="cpp")
    with torch.no_grad():
        module.constants.min_val.fill_(2.0)  # above max_val = 1
    with pytest.raises(FormulaError, match="min_val must not be greater"):
        module(torch.tensor(X))


def test_jax_function_refuses_constants_outside_the_domain():
    pytest.importorskip("jax")
    f = symnb.activation("softplus", beta=1.0).to_jax()
    with pytest.raises(FormulaError, match="beta must not be 0"):
        f(X, beta=0.0)
    with pytest.raises(FormulaError, match="beta must not be 0"):
        f.derivative(X, beta=0.0)
    with pytest.raises(FormulaError, match=r"at index \(1,\)"):
        f(np.zeros((4, 3)), beta=np.array([1.0, 0.0, 2.0]))
    hardtanh = symnb.activation("hardtanh").to_jax()
    with pytest.raises(FormulaError, match="min_val must not be greater"):
        hardtanh(X, min_val=2.0, max_val=-2.0)
    np.testing.assert_allclose(
        np.asarray(f(X, beta=2.0)), softplus_reference(X, 2.0), rtol=1e-6
    )
    np.testing.assert_array_equal(
        np.asarray(hardtanh(X, min_val=-2.0, max_val=2.0)), np.clip(X, -2.0, 2.0)
    )


def test_jax_traced_constants_still_differentiate():
    jax = pytest.importorskip("jax")
    f = symnb.activation("softplus", beta=1.0).to_jax()
    beta = 1.5
    got = jax.grad(lambda b: f(jax.numpy.asarray(X), beta=b).sum())(beta)
    h = 1e-4  # central difference of the float64 reference
    ref = (
        softplus_reference(X, beta + h).sum() - softplus_reference(X, beta - h).sum()
    ) / (2 * h)
    assert float(got) == pytest.approx(ref, rel=1e-4)


def test_numba_bind_refuses_constants_outside_the_domain():
    pytest.importorskip("numba")
    nb = symnb.activation("softplus", beta=1.0).to_numba()
    with pytest.raises(FormulaError, match="beta must not be 0"):
        nb.bind(beta=0.0)
    with pytest.raises(FormulaError, match="min_val must not be greater"):
        symnb.activation("hardtanh").to_numba().bind(min_val=3.0)
    assert nb.bind(beta=2.0).f(0.5) == pytest.approx(
        float(softplus_reference(np.array(0.5), 2.0)), rel=1e-12
    )
