"""An ``if`` on data in a pasted function (symnb.formula.inline_locals).

``def xielu(x): if x > 0: return ...; return ...`` was refused ("has an 'if'
statement ... write the branch as torch.where"), though Python runs it for one
number. It now reads as the conditional expression Python means. Each function is
judged against PyTorch running the same code on one 0-d tensor at a time (where
the ``if`` is Python's own): values and autograd slopes in float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError
from tests.formula.test_inline_locals import _torch_function

torch = pytest.importorskip("torch")

#: points away from every kink of the functions below
XS = [-30.0, -2.5, -1.2, -0.7, -0.2, 0.05, 0.3, 0.8, 1.6, 2.5, 40.0]

CODES = [
    # xIELU (Huang et al. 2024) as written in a module: a return inside the if
    (
        "def xielu(x, ap=0.8, an=0.8, beta=0.5, eps=-1e-6):\n"
        "    if x > 0:\n"
        "        return ap * x * x + beta * x\n"
        "    return an * (torch.expm1(torch.minimum(x, torch.tensor(eps))) - x)"
        " + beta * x\n"
    ),
    # quantile Huber (QR-DQN): branches that assign, then a conditional expression
    (
        "def quantile_huber(u, tau=0.9, k=1.0):\n"
        "    if abs(u) <= k:\n"
        "        h = 0.5 * u ** 2\n"
        "    else:\n"
        "        h = k * (abs(u) - 0.5 * k)\n"
        "    w = tau if u >= 0 else 1 - tau\n"
        "    return w * h / k\n"
    ),
    # elif chain with a local assigned before, returns in every branch
    (
        "def three_piece(x, a=0.1):\n"
        "    s = torch.sigmoid(x)\n"
        "    if x < -1:\n"
        "        return a * x\n"
        "    elif x < 2:\n"
        "        y = x * s\n"
        "        return y\n"
        "    else:\n"
        "        return x - 2 + 1.7615941559557649  # 2 sigmoid(2): continuous\n"
    ),
    # a branch that only changes the input, no else
    (
        "def clipped_square(x):\n"
        "    if x > 1.5:\n"
        "        x = 1.5 + torch.log(x - 0.5)\n"
        "    return x * x\n"
    ),
    # a branch on a constant (Barron's loss has its own alpha = 2 case)
    (
        "def barron(x, a=0.5, c=2.0):\n"
        "    z = (x / c) ** 2\n"
        "    if a == 2:\n"
        "        return 0.5 * z\n"
        "    b = abs(a - 2)\n"
        "    return b / a * ((z / b + 1) ** (a / 2) - 1)\n"
    ),
]


@pytest.mark.parametrize("code", CODES)
def test_an_if_on_data_is_the_branch_python_takes(code):
    fn = _torch_function(code)
    want, slope = [], []
    for x in XS:
        t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        y = fn(t)
        (g,) = torch.autograd.grad(y, t)
        want.append(float(y.detach()))
        slope.append(float(g))
    k = symnb.Activation(code).compile("numpy", dtype="float64")
    y, dy = k.forward_with_derivative(np.array(XS))
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dy, slope, rtol=1e-12, atol=1e-14)


def test_a_loop_inside_a_branch_is_refused_at_its_line():
    code = (
        "def f(x):\n    if x > 0:\n        for i in range(2):\n"
        "            x = x * x\n    return x\n"
    )
    with pytest.raises(FormulaError) as info:
        symnb.Activation(code)
    assert "a 'for' loop" in str(info.value)
    assert "line 3," in str(info.value)


def test_a_branch_that_returns_with_a_path_that_does_not_is_refused():
    code = "def f(x):\n    if x > 0:\n        return x\n    y = 2 * x\n"
    with pytest.raises(FormulaError, match="does not end in 'return"):
        symnb.Activation(code)
