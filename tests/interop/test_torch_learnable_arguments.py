"""``learnable=`` of ``Activation.to_torch`` and ``to_torch_layer``: an unknown name
is refused even for an activation without constants, and specs whose meaning would
be guessed (a dict of flags, bytes) are refused, naming the fix."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="the torch extra is not installed")

import symnb
from symnb.errors import FormulaError


def test_unknown_name_for_an_activation_without_constants_is_refused():
    relu = symnb.Activation("Max(0, x)", name="r")
    with pytest.raises(FormulaError, match="has no constant 'a'"):
        relu.to_torch(learnable=["a"])
    with pytest.raises(FormulaError, match="has no constant 'a'"):
        relu.to_torch(learnable="a")
    assert relu.to_torch(learnable=[]).learnable_names == ()


@pytest.mark.parametrize("spec", [{"beta": False}, b"beta"])
def test_a_dict_or_bytes_is_refused(spec):
    swish = symnb.Activation("x*sigmoid(beta*x)", beta=1.0)
    with pytest.raises(TypeError, match=r"learnable must be .*e\.g\. learnable="):
        swish.to_torch(learnable=spec)
    with pytest.raises(TypeError, match=r"learnable must be"):
        symnb.to_torch_layer([swish, swish], learnable=spec)


def test_numpy_bool_is_accepted():
    # (a name listed twice is refused: tests/interop/test_torch_learnable_choices.py)
    swish = symnb.Activation("x*sigmoid(beta*x)", beta=1.0)
    assert swish.to_torch(learnable=np.bool_(True)).learnable_names == ("beta",)
