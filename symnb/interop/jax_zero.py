"""Comparisons with 0 in the JAX face that see subnormal numbers.

XLA on the CPU treats subnormal inputs as 0 (DAZ): ``x > 0`` was False at x = 1e-45
in float32 (5e-324 in float64), so f' took the x = 0 kink branch there (relu'(1e-45)
= 0, penalized_tanh' = 0.25; the kernels give 1). :func:`compare_zero` reads the sign
and magnitude from the bits instead, which no flushing touches; ``sign`` and
``Heaviside`` use it too. Results that are subnormal are still flushed to 0 by XLA
(a documented limit, not this module's).
"""

from __future__ import annotations

_OPS = ("<", "<=", ">", ">=", "==", "!=")
#: ``0 op u`` as ``u op' 0``
FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def compare_zero(u, op: str):
    """``u op 0`` on the bit pattern of a float ``u`` (a plain comparison otherwise)."""
    import jax
    import jax.numpy as jnp

    u = jnp.asarray(u)
    if not jnp.issubdtype(u.dtype, jnp.floating) or u.dtype.itemsize not in (4, 8):
        return {
            "<": jnp.less,
            "<=": jnp.less_equal,
            ">": jnp.greater,
            ">=": jnp.greater_equal,
            "==": jnp.equal,
            "!=": jnp.not_equal,
        }[op](u, 0)
    ints = jnp.int32 if u.dtype.itemsize == 4 else jnp.int64
    bits = jax.lax.bitcast_convert_type(u, ints)
    magnitude = bits & jnp.iinfo(ints).max
    zero = magnitude == 0
    number = ~jnp.isnan(u)
    positive = number & ~zero & (bits > 0)
    negative = number & ~zero & (bits < 0)
    return {
        "<": negative,
        "<=": negative | zero,
        ">": positive,
        ">=": positive | zero,
        "==": zero,
        "!=": ~zero,
    }[op]


def sign(u):
    """symnb's sign: 1, -1, or u itself at ±0 and NaN, subnormal u included."""
    import jax.numpy as jnp

    u = jnp.asarray(u)
    one = jnp.ones_like(u)
    return jnp.where(
        compare_zero(u, ">"), one, jnp.where(compare_zero(u, "<"), -one, u)
    )


__all__ = ["FLIPPED", "compare_zero", "sign"]
