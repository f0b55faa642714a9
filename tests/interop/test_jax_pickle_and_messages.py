"""``to_jax``'s function with hostile ``x`` and under pickle (a hostile-input probe,
2026-12-06). Before the fix, ``f(None)`` or ``f('abc')`` told the user to "pass
x.real or abs(x)" (the fix for a complex x) after JAX's internal wording, and
``pickle.dumps(f)`` failed with "Can't pickle <function f>: attribute lookup f on
symnb.interop.jax failed", so multiprocessing and saved objects could not carry it."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import symnb

jax = pytest.importorskip("jax")
jnp = jax.numpy


@pytest.fixture(scope="module")
def swish():
    return symnb.Activation("x*sigmoid(beta*x)", beta=1.5).to_jax()


@pytest.mark.parametrize("value", [None, "abc", object(), {"a": 1}])
def test_a_non_number_x_is_named_with_the_right_fix(swish, value) -> None:
    with pytest.raises(TypeError) as info:
        swish(value)
    message = str(info.value)
    assert message.startswith("x must be a real number or an array of them")
    assert type(value).__name__ in message
    assert "x.real" not in message and "abs(x)" not in message
    assert "jnp.array" not in message and "JAX array type" not in message


def test_a_complex_x_still_gets_the_complex_fix(swish) -> None:
    with pytest.raises(TypeError, match=r"x\.real or abs\(x\)"):
        swish(jnp.ones(2, dtype=jnp.complex64))


def test_a_ragged_list_keeps_the_reason(swish) -> None:
    with pytest.raises(TypeError, match="x must be a real number") as info:
        swish([[1.0], [1.0, 2.0]])
    assert "(list:" in str(info.value)


def _reference(x: np.ndarray, beta: float) -> tuple[np.ndarray, np.ndarray]:
    s = 1.0 / (1.0 + np.exp(-beta * x))
    return x * s, s + beta * x * s * (1.0 - s)


def test_the_function_and_its_derivative_survive_pickle(swish) -> None:
    f = pickle.loads(pickle.dumps(swish))
    df = pickle.loads(pickle.dumps(swish.derivative))
    x = np.linspace(-6.0, 6.0, 49)
    want_f, want_df = _reference(x, 1.5)
    xj = jnp.asarray(x, dtype=jnp.float32)
    np.testing.assert_allclose(np.asarray(f(xj)), want_f, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(df(xj)), want_df, rtol=1e-5, atol=1e-6)
    assert f.constants == {"beta": 1.5} and f.constant_names == ("beta",)
    # still a JAX function after the round trip: jit, grad and a constant keyword
    grad = jax.grad(lambda v: jax.jit(f)(v, beta=2.0).sum())(xj)
    np.testing.assert_allclose(
        np.asarray(grad), _reference(x, 2.0)[1], rtol=1e-5, atol=1e-6
    )
