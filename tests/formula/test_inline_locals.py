"""Pasted functions that name intermediate values (symnb.formula.inline_locals).

Code from a model usually reads ``gate = torch.sigmoid(self.beta * x); return x *
gate``; it was refused ("function forward has statements besides one 'return'").
Each function here is judged against PyTorch running the same code: values and
autograd slopes in float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError
from tests.formula.torch_judge import judge

torch = pytest.importorskip("torch")
F = torch.nn.functional

XS = np.array([-9.0, -3.3, -1.0, -0.4, 0.0, 0.3, 0.9, 1.7, 4.0, 12.0])

CODES = [
    # a gate, then the input reassigned
    (
        "def swish_gate(x, beta=1.5):\n"
        "    gate = torch.sigmoid(beta * x)\n"
        "    x = x * gate\n"
        "    return x\n"
    ),
    # augmented and annotated assignments, a docstring, pass
    (
        "def mixed(x, a=0.7):\n"
        '    """A documented activation."""\n'
        "    y: torch.Tensor = torch.tanh(x) * 1.0\n"
        "    pass\n"
        "    y += a * x\n"
        "    y *= 0.5\n"
        "    return y\n"
    ),
    # one value under two names, each used
    "def twice(z):\n    s = t = torch.sigmoid(z)\n    return z * s + t\n",
    # a name used before it is reassigned keeps its earlier meaning
    "def order(x):\n    y = x + 1\n    x = y * 2\n    y = x - y\n    return y * x\n",
    # Mish as often written
    "def mish(x):\n    sp = F.softplus(x)\n    th = torch.tanh(sp)\n    return x * th\n",
]


def _torch_function(code: str):
    space = {"torch": torch, "F": F}
    exec(code, space)  # the test's own literal code  # noqa: S102
    (fn,) = [v for k, v in space.items() if k not in ("torch", "F", "__builtins__")]
    return fn


@pytest.mark.parametrize("code", CODES)
def test_assignments_are_put_into_the_returned_expression(code):
    judge(symnb.Activation(code), _torch_function(code), xs=XS)


def test_a_loss_with_named_parts():
    code = (
        "def my_huber(pred, target, delta=0.8):\n"
        "    d = torch.abs(pred - target)\n"
        "    quad = 0.5 * d**2\n"
        "    lin = delta * (d - 0.5 * delta)\n"
        "    return torch.mean(torch.where(d < delta, quad, lin))\n"
    )
    loss = symnb.Loss(code)
    assert (loss.name, loss.constants) == ("my_huber", {"delta": 0.8})
    pred = np.array([-2.0, 0.1, 0.3, 3.0, 0.5])
    target = np.array([0.0, 0.0, 1.0, 1.0, 0.5])
    want = F.huber_loss(torch.tensor(pred), torch.tensor(target), delta=0.8)
    got = loss.compile("numpy", dtype="float64").value(pred, target)
    assert got == pytest.approx(float(want), rel=1e-12)


@pytest.mark.parametrize(
    ("body", "what", "line"),
    [
        ("    while x > 0:\n        x = x - 1\n    return x", "a 'while' loop", 2),
        (
            "    y = x\n    for i in range(3):\n        y = y * x\n    return y",
            "'for'",
            3,
        ),
        ("    a, b = x, 2 * x\n    return a * b", "other than a name", 2),
        ("    y = torch.tanh(x)", "does not end in 'return", 2),
    ],
)
def test_what_is_not_straight_line_code_is_refused_where_it_is(body, what, line):
    with pytest.raises(FormulaError) as info:
        symnb.Activation(f"def f(x):\n{body}\n")
    assert what in str(info.value)
    assert f"line {line}," in str(info.value)


def test_code_after_the_return_never_runs():
    act = symnb.Activation("def f(x):\n    return 2 * x\n    y = x\n    return y\n")
    assert str(act.expr) == "2*x"


def test_assignments_that_multiply_the_formula_are_refused():
    # each line doubles the tree: 2**40 parts if printed
    code = "def bomb(x):\n    y = x * x\n" + "    y = y * y\n" * 40 + "    return y\n"
    with pytest.raises(FormulaError, match="at most 20,000"):
        symnb.Activation(code)


def test_an_error_inside_quotes_the_formula_it_read():
    code = "def f(h):\n    y = foo(h)\n    return y * 2\n"
    with pytest.raises(FormulaError) as info:
        symnb.Activation(code)
    assert "unknown function 'foo'" in str(info.value)
    assert "foo(h) * 2" in str(info.value)  # the assignments put in


def test_an_in_place_update_of_a_shared_value_is_refused():
    # in PyTorch `s += 1` changes the tensor t holds too: not a rebinding of s
    code = "def f(x):\n    s = t = torch.sigmoid(x)\n    s += 1\n    return s + t\n"
    with pytest.raises(FormulaError, match="also holds"):
        symnb.Activation(code)


def test_a_symact_cell_function_with_assignments():
    from symnb.notebook.syntax import parse_cell

    (definition,) = parse_cell(
        "def pgate(x, beta=2.0):\n    g = torch.sigmoid(beta * x)\n    return x * g\n"
    )
    assert definition.name == "pgate"
    assert [(c.name, c.value) for c in definition.constants] == [("beta", 2.0)]
    assert definition.formula == "x * torch.sigmoid(beta * x)"
    assert definition.segments[0][1] == 4  # the return's line (the magic is line 1)
