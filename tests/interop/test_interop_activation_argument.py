"""The interop functions take "an activation" by the one rule of
``symnb.formula.as_activation``, as to_torch already did: to_jax, to_numba and
to_source took a ``Loss`` (two inputs) and built from its first input only, with the
target left free: to_jax's function raised from inside jax.numpy, to_numba's
"NameError: name 't' is not defined" from numba's typing, and to_source wrote a
header naming an undeclared variable; a library name or a formula text was
"'str' object has no attribute 'internal'"."""

from __future__ import annotations

import math

import pytest

import symnb
from symnb.formula.formula import as_activation
from symnb.interop import source


def faces():
    out = [("source", source.to_source)]
    try:
        from symnb.interop import jax as jax_face

        out.append(("jax", jax_face.to_jax))
    except ImportError:
        pass
    try:
        from symnb.interop import numba as numba_face

        out.append(("numba", numba_face.to_numba))
    except ImportError:
        pass
    return out


@pytest.mark.parametrize(("face", "build"), faces(), ids=[f for f, _ in faces()])
def test_a_loss_is_refused_naming_what_is_taken(face, build):
    with pytest.raises(TypeError, match="expected a symnb.Activation.*got Loss"):
        build(symnb.loss("mse"))
    with pytest.raises(TypeError, match="got NoneType"):
        build(None)


@pytest.mark.parametrize(("face", "build"), faces(), ids=[f for f, _ in faces()])
def test_a_name_or_formula_text_is_an_activation(face, build):
    for spec in ("tanh", "x*tanh(x)"):
        made = build(spec)
        want = as_activation(spec)  # what MLP, compile_layer and to_torch take
        if face == "source":
            assert made == source.to_source(want)
        elif face == "jax":
            assert float(made(0.5)) == pytest.approx(float(want.to_jax()(0.5)))
        else:
            assert made.f(0.5) == pytest.approx(want.to_numba().f(0.5))
    if face == "numba":
        assert build("tanh").f(0.5) == pytest.approx(math.tanh(0.5))
    with pytest.raises(symnb.FormulaError, match="did you mean 'tanh'"):
        build("tahn")
