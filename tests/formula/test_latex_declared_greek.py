"""``\\varepsilon`` (``\\vartheta``, ``\\varphi``) reads as a constant named varepsilon
when the formula declares that name and not epsilon.

LaTeX ``\\sqrt{x^2 + \\varepsilon^2}`` with ``varepsilon=1e8`` (the name the user sees
in the paper) was refused: "unknown symbol 'epsilon' (did you mean 'varepsilon'?)".
Without a declared varepsilon, ``\\varepsilon`` still reads as epsilon.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symnb


def _value(act: symnb.Activation, x: float) -> float:
    kernel = act.compile(backend="numpy", dtype="float64")
    return float(kernel.forward(np.array([x]))[0])


def test_varepsilon_reads_as_the_declared_varepsilon():
    act = symnb.Activation(r"\sqrt{x^{2} + \varepsilon^{2}}", varepsilon=1e8)
    assert act.constants == {"varepsilon": 1e8}
    assert _value(act, 3e8) == pytest.approx(math.hypot(3e8, 1e8), rel=1e-12)


def test_varepsilon_reads_as_epsilon_without_a_declared_varepsilon():
    act = symnb.Activation(r"\sqrt{x^{2} + \varepsilon^{2}}", epsilon=2.0)
    assert act.constants == {"epsilon": 2.0}
    assert _value(act, 1.5) == pytest.approx(2.5, rel=1e-12)


def test_declared_epsilon_wins_over_varepsilon():
    with pytest.warns(UserWarning, match="varepsilon"):  # declared, unused
        act = symnb.Activation(r"x + \varepsilon", epsilon=2.0, varepsilon=5.0)
    assert _value(act, 1.0) == pytest.approx(3.0, rel=1e-12)


def test_varphi_and_vartheta_read_as_declared_names():
    act = symnb.Activation(r"\varphi x + \vartheta", varphi=2.0, vartheta=0.5)
    assert _value(act, 3.0) == pytest.approx(6.5, rel=1e-12)
