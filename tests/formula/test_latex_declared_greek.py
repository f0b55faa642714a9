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


@pytest.mark.parametrize("name", ["lambda_", "lam", "lmbda"])
def test_lambda_reads_as_its_declared_spelling(name):
    """lambda is a Python keyword, so SELU's scale is declared lambda_ (or lam); the
    paper's \\lambda read as lambd and was refused: 'unknown symbol lambd'."""
    text = (
        r"\lambda \begin{cases} x & x > 0 \\ \alpha e^x - \alpha & x \le 0 \end{cases}"
    )
    act = symnb.Activation(text, alpha=1.6732632423543772, **{name: 1.0507009873554805})
    for x in (-2.0, 0.5):
        want = 1.0507009873554805 * (x if x > 0 else 1.6732632423543772 * math.expm1(x))
        assert _value(act, x) == pytest.approx(want, rel=1e-13)


def test_declared_lambd_wins_over_the_aliases():
    with pytest.warns(UserWarning, match="lambda_"):  # declared, unused
        act = symnb.Activation(r"\lambda x", lambd=2.0, lambda_=5.0)
    assert _value(act, 1.5) == pytest.approx(3.0, rel=1e-12)
