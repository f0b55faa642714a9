"""The factors of a ``wide_sin``/``wide_cos``/``wide_tan`` call as the faces print them.

``symnb.robust.widen`` marks sin/cos/tan of a product that may overflow (Snake's
``sin(a*x)`` at |x| near the float maximum). The C kernels compute the product, and
only where it is inf recompute it without overflow from two factors: the constant
ones and the rest (``symnb_wide_*(a, b)``). The JAX and numba faces print the same
meaning from the same split, given here once.
"""

from __future__ import annotations

import sympy as sp


def wide_factors(call: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(a, b) with ``a*b`` the argument of ``call``, split as the C kernels split it
    (``_WideTrig.factors``)."""
    return tuple(
        sp.Mul(*[call.args[i] for i in side], evaluate=False) for side in call.factors()
    )


def jax_wide(name: str, prod, a, b):
    """JAX: ``name`` (sin/cos/tan) of ``prod`` = a*b, recomputed without overflow
    where ``prod`` is inf, as the C kernels' ``symnb_wide_*``.

    float32 x with float64 enabled: the product of two float32 values in float64
    (exact, as the float32 C++ kernels). Otherwise the kernels' float algorithm: the
    smaller factor as m*2**e, m*b = h + lo exactly (Dekker's product of the
    mantissas, Veltkamp's split), sin and cos of h + lo, then e angle doublings,
    each put back onto the unit circle. The wide branch runs under ``lax.cond`` only
    when some product overflowed, and its doublings under a loop as long as the
    largest e there: the common path costs one ``isinf`` test and a reduction.
    """
    import jax
    import jax.numpy as jnp

    fn = getattr(jnp, name)
    prod = jnp.asarray(prod)
    narrow = fn(prod)
    over = jnp.isinf(prod)

    def widened(_):
        dtype = prod.dtype
        aa = jnp.broadcast_to(jnp.asarray(a, dtype), prod.shape)
        bb = jnp.broadcast_to(jnp.asarray(b, dtype), prod.shape)
        if dtype == jnp.float32 and jax.config.jax_enable_x64:
            wide = fn(aa.astype(jnp.float64) * bb.astype(jnp.float64)).astype(dtype)
            return jnp.where(over, wide, narrow)
        swap = jnp.abs(aa) > jnp.abs(bb)
        lo_f, hi_f = jnp.where(swap, bb, aa), jnp.where(swap, aa, bb)
        m, e = jnp.frexp(lo_f)
        mb, k = jnp.frexp(hi_f)
        p = m * mb
        split = 4097.0 if dtype == jnp.float32 else 134217729.0
        t = split * m
        mh = t - (t - m)
        ml = m - mh
        t = split * mb
        bh = t - (t - mb)
        bl = mb - bh
        err = ((mh * bh - p) + mh * bl + ml * bh) + ml * bl
        h = jnp.ldexp(p, k)
        lo = jnp.ldexp(err, k)
        sh, ch, sl, cl = jnp.sin(h), jnp.cos(h), jnp.sin(lo), jnp.cos(lo)
        s = sh * cl + ch * sl
        c = ch * cl - sh * sl
        e = jnp.where(over, e, 0)

        def double(i, sc):
            s, c = sc
            t = 2 * s * c
            c2 = (c - s) * (c + s)
            r = 1 / jnp.sqrt(t * t + c2 * c2)
            go = i < e
            return jnp.where(go, t * r, s), jnp.where(go, c2 * r, c)

        s, c = jax.lax.fori_loop(0, jnp.max(e, initial=0), double, (s, c))
        wide = {"sin": s, "cos": c, "tan": s / c}[name]
        return jnp.where(over, wide, narrow)

    return jax.lax.cond(jnp.any(over), widened, lambda _: narrow, None)
