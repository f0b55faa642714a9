"""digamma and trigamma in the JAX face with the values of the other backends.

``jax.lax.digamma`` is NaN at +-0 and ``jax.scipy.special.polygamma(1, .)`` NaN at
+inf and +inf at -inf; symnb's C and NumPy kernels, SciPy and PyTorch give
digamma(+0) = -inf, digamma(-0) = +inf and trigamma(+inf) = 0 (docs/CONTRACTS.md,
section 1: trigamma NaN at -inf). lgamma' and gamma' at 0 go through digamma, so
they were NaN too. A subnormal u, which XLA on the CPU reads as 0, takes its sign's
infinity as well: digamma(u) ~ -1/u is beyond the float range there anyway.
"""

from __future__ import annotations


def digamma(u):
    """``jax.lax.digamma`` with -inf at +0 and +inf at -0."""
    import jax
    import jax.numpy as jnp

    u = jnp.asarray(u)
    at_zero = jnp.where(jnp.signbit(u), jnp.inf, -jnp.inf).astype(u.dtype)
    return jnp.where(u == 0, at_zero, jax.lax.digamma(u))


def trigamma(u):
    """``polygamma(1, u)`` with 0 at +inf and NaN at -inf."""
    import jax.numpy as jnp
    from jax.scipy import special

    u = jnp.asarray(u)
    value = special.polygamma(1, u)
    value = jnp.where(u == jnp.inf, jnp.zeros_like(u), value)
    return jnp.where(u == -jnp.inf, jnp.full_like(u, jnp.nan), value)


__all__ = ["digamma", "trigamma"]
