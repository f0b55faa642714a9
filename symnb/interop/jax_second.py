"""Second and higher derivatives in the JAX face: f' and each df/dc as activations
of their own.

``to_jax``'s ``custom_jvp`` gives symnb's f' and df/dc; differentiated again
(``jax.hessian``, ``jax.grad(jax.grad(f))``, ``jax.grad(f.derivative)``), JAX used
to differentiate the jax.numpy lowering of f' itself, operation by operation. That
lowering is stable for its value only: tanh'' was NaN at |x| = 800 (the derivative
of 1/cosh(x)**2 is inf * 0 there), elu'' and selu'' NaN at x = 800 (the untaken
exp(x) branch of a ``where``), sqrt(x*x + 1)'' NaN at 0, and swish'' off by
1/(beta*x) for large x (``jax.nn.sigmoid``'s own derivative, s*(1 - s), loses
sigmoid(-u) to cancellation). Here each first derivative is a ``custom_jvp``
whose value is the lowering the face always had (first-order results do not
change) and whose own derivative is ``to_jax`` of that derivative as a formula
(``Activation(f', surrogate="zero")``, as the PyTorch modules' double backward
does), so every order gets a form the engine made stable. A derivative that is
not a formula symnb takes keeps JAX's differentiation of the lowering.
"""

from __future__ import annotations

import warnings
from typing import Any


def derivative_faces(activation: Any) -> list | str:
    """``[(face of f', indices), (face of df/dc_0, indices), ...]``: each first
    derivative of ``activation`` as a ``to_jax`` function, with where its
    constants sit in ``activation``'s; or the reason none could be built."""
    from symnb.formula.formula import Activation
    from symnb.interop.jax import to_jax

    names = list(activation.internal.param_names)
    values = activation.constants
    stem = activation.name if activation.name.isidentifier() else "f"
    pieces = [(activation.derivative, f"{stem}_prime")] + [
        (expr, f"{stem}_d_{n}") for n, expr in activation.constant_derivatives.items()
    ]
    faces = []
    try:
        for expr, label in pieces:
            used = {str(s) for s in expr.free_symbols}
            with warnings.catch_warnings():
                # surrogate="zero": steps in f' have derivative 0 (relu'' = 0,
                # as PyTorch's double backward); its "will not learn" note is moot
                warnings.simplefilter("ignore")
                d = Activation(
                    expr,
                    name=label,
                    surrogate="zero",
                    _register=False,  # not a name later formulas could call
                    **{n: v for n, v in values.items() if n in used},
                )
            face = to_jax(d)
            faces.append((face, [names.index(n) for n in face.constant_names]))
    except Exception as exc:  # noqa: BLE001 - any formula the engine refuses
        return f"{exc}"
    return faces


def tangent(face: Any, indices: list, primals: tuple, tangents: tuple, like: Any):
    """The directional derivative of ``face`` (a :func:`derivative_faces` entry) at
    x and the constants ``primals[1:]`` along ``tangents``, shaped and typed as
    ``like`` (the first derivative's value: a constant that x does not see still
    broadcasts it)."""
    import jax
    import jax.numpy as jnp

    x, *c = primals
    tx, *tc = tangents
    sub = [c[i] for i in indices]
    sub_t = [tc[i] for i in indices]
    _, t = jax.jvp(face.core, (x, *sub), (tx, *sub_t))
    return jnp.broadcast_to(t, jnp.shape(like)).astype(like.dtype)


__all__ = ["derivative_faces", "tangent"]
