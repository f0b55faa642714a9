"""A ``%%symact`` cell written as Python functions (``def swish(x, beta=1.0): return
...``), as researchers have them in their code. It was refused ("expected '(' after
'def'"); now each function is the definition ``name(inputs; constants) = formula``
(parameters with a default are the constants) and errors point into the function."""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output


def _run(shell, body: str, options: str = "") -> None:
    with capture_output():
        shell.run_cell_magic("symact", f"--no-plot --no-compile {options}", body)


def _values(act, xs):
    return act.compile("numpy", dtype="float64").forward(xs)


@pytest.mark.parametrize(
    ("cell", "name", "line"),
    [
        (
            "def pswish(x, beta=1.5):\n    return x * torch.sigmoid(beta * x)",
            "pswish",
            "pswish(x; beta=1.5) = x * torch.sigmoid(beta * x)",
        ),
        (
            (
                '@torch.jit.script\ndef pmish(x):\n    """Mish."""\n'
                "    return x * torch.tanh(\n        F.softplus(x))"
            ),
            "pmish",
            "pmish(x) = x * torch.tanh(F.softplus(x))",
        ),
        (
            "def pprelu(z, *, a=learnable(0.25)):\n    return torch.where(z > 0, z, a*z)",
            "pprelu",
            "pprelu(z; a=learnable(0.25)) = torch.where(z > 0, z, a*z)",
        ),
    ],
)
def test_a_function_defines_what_its_definition_line_does(shell, cell, name, line):
    xs = np.linspace(-4, 4, 17)
    _run(shell, cell)
    from_function = shell.user_ns.pop(name)
    _run(shell, line)
    from_line = shell.user_ns.pop(name)
    assert from_function.constants == from_line.constants
    assert from_function.learnable == from_line.learnable
    np.testing.assert_array_equal(_values(from_function, xs), _values(from_line, xs))


def test_several_functions_and_a_loss(shell):
    _run(
        shell,
        "def pa(x):\n    return 2*x\n\n\ndef pb(x, c=3.0):\n    return c*x",
    )
    assert str(shell.user_ns.pop("pa").expr) == "2*x"
    assert shell.user_ns.pop("pb").constants == {"c": 3.0}
    _run(shell, "def pl(pred, target):\n    return (pred - target)**2", "--loss")
    assert str(shell.user_ns.pop("pl").expr) == "(y_pred - y_true)**2"


@pytest.mark.parametrize(
    ("cell", "message", "position"),
    [
        (
            "def pbad(x):\n    y = x\n    while y > 0:\n        y = y - 1\n    return y",
            "has a 'while' loop",
            "line 4, column 5",
        ),
        (
            "def ptwo(x, y):\n    return x*y",
            "2 parameter(s) without a default",
            "line 2",
        ),
        (
            "def poops(x):\n    return x * foo(x)",
            "unknown function 'foo'",
            "line 3, column 16",
        ),
        (
            "def poops2(x):\n    return (x +\n        foo(x))",
            "'foo'",
            "line 4, column 9",
        ),
    ],
)
def test_errors_point_into_the_function(shell, cell, message, position):
    with pytest.raises(UsageError) as info:
        _run(shell, cell)
    assert message in str(info.value) and position in str(info.value)


MODULE_CELL = """class PSwish(nn.Module):
    def __init__(self, beta=1.5):
        super().__init__()
        self.beta = nn.Parameter(torch.tensor(beta))
        self.register_buffer("gain", torch.tensor(2.0))

    def forward(self, x):
        return self.gain * x * torch.sigmoid(self.beta * x)
"""


def test_a_module_class_defines_an_activation_with_its_constants(shell):
    # was "expected '(' after 'class'"; judged against PyTorch running the same class
    torch = pytest.importorskip("torch")
    _run(shell, MODULE_CELL)
    act = shell.user_ns.pop("PSwish")
    assert act.constants == {"beta": 1.5, "gain": 2.0}
    assert list(act.learnable) == ["beta"]
    space = {"torch": torch, "nn": torch.nn}
    exec(MODULE_CELL, space)  # the test's own literal code  # noqa: S102
    xs = np.linspace(-6, 6, 25)
    t = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    y = space["PSwish"]().double()(t)
    (slope,) = torch.autograd.grad(y.sum(), t)
    k = act.compile("numpy", dtype="float64")
    np.testing.assert_allclose(k.forward(xs), y.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(
        k.backward(xs, np.ones_like(xs)), slope.numpy(), rtol=1e-12
    )


def test_a_class_without_a_forward_is_refused_where_it_starts(shell):
    with pytest.raises(UsageError) as info:
        _run(
            shell,
            "x = 1\n\nclass PNone(nn.Module):\n    def __init__(self):\n        pass",
        )
    assert "expected" in str(info.value)  # not a cell of only functions and classes
    with pytest.raises(UsageError) as info:
        _run(shell, "class PNone(nn.Module):\n    def __init__(self):\n        pass")
    assert "class PNone has no forward" in str(info.value)
    assert "line 2, column 1" in str(info.value)
