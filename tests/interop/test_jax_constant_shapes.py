"""to_jax: a constant array whose shape does not broadcast against x.

Before: JAX's "Incompatible shapes for broadcasting: shapes=[(2,), (4, 3)]" from
inside the lowering, naming neither the constant nor x."""

from __future__ import annotations

import numpy as np
import pytest

import symnb

jax = pytest.importorskip("jax", reason="needs the jax extra (symnb[jax])")
jnp = jax.numpy


def _f():
    return symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.3).to_jax()


def test_constant_that_does_not_broadcast_is_named():
    f = _f()
    with pytest.raises(ValueError, match=r"constant 'beta' has shape \(2,\).*\(4, 3\)"):
        f(jnp.ones((4, 3)), beta=jnp.array([0.5, 1.0]))
    with pytest.raises(ValueError, match="constant 'beta'"):
        jax.jit(lambda x, b: f(x, beta=b))(jnp.ones((4, 3)), jnp.ones(2))


def test_broadcasting_constants_still_work():
    f = _f()
    b = np.array([0.5, 1.0, 2.0])
    y = f(jnp.ones((4, 3)), beta=jnp.asarray(b))
    np.testing.assert_allclose(
        np.asarray(y), np.broadcast_to(1 / (1 + np.exp(-b)), (4, 3)), rtol=1e-6
    )
    assert f(jnp.float32(1.0), beta=jnp.asarray(b)).shape == (3,)
    assert jax.vmap(lambda c: f(jnp.ones(3), beta=c))(jnp.ones(4)).shape == (4, 3)
