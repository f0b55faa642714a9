"""Activations pasted from a PyTorch/Keras module's ``forward``/``call``: ``self.beta``,
the input named ``input``/``inputs``/``z``, float casts of comparisons and constant
tensors (symnb.formula.tensor_idioms). Each was refused ("attribute access ('.beta')",
"name 'input' is not allowed", "torch.zeros_like has no symnb equivalent"); judged
against the same computation written in PyTorch, values and autograd slopes in
float64."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError

torch = pytest.importorskip("torch")
F = torch.nn.functional

XS = np.array([-7.5, -3.3, -1.0, -0.4, 0.3, 0.9, 1.7, 4.0, 12.0])


#: (text, constants, the same computation written in PyTorch)
CASES = [
    (
        "x * torch.sigmoid(self.beta * x)",
        {"beta": 1.5},
        lambda t: t * torch.sigmoid(1.5 * t),
    ),
    (
        "torch.where(x >= 0, x, self.alpha * (torch.exp(x) - 1))",
        {"alpha": 0.7},
        lambda t: torch.where(t >= 0, t, 0.7 * (torch.exp(t) - 1)),
    ),
    (
        "x + (1.0 / self.alpha) * torch.pow(torch.sin(x * self.alpha), 2)",
        {"alpha": 0.5},
        lambda t: t + (1.0 / 0.5) * torch.pow(torch.sin(t * 0.5), 2),
    ),
    ("F.softplus(x, beta=self.beta)", {"beta": 2.0}, lambda t: F.softplus(t, beta=2.0)),
    (
        "input * torch.tanh(F.softplus(input))",
        {},
        lambda t: t * torch.tanh(F.softplus(t)),
    ),
    ("inputs * torch.sigmoid(inputs)", {}, lambda t: t * torch.sigmoid(t)),
    (
        "z * torch.sigmoid(self.beta * z)",
        {"beta": 0.8},
        lambda t: t * torch.sigmoid(0.8 * t),
    ),
    ("x * (x > 0).float()", {}, lambda t: t * (t > 0).to(t.dtype)),
    (
        "(x > 0).to(x.dtype) * x + 0.1 * x * (x <= 0).type(x.dtype)",
        {},
        lambda t: (t > 0).to(t.dtype) * t + 0.1 * t * (t <= 0).type(t.dtype),
    ),
    (
        "torch.max(x, torch.zeros_like(x))",
        {},
        lambda t: torch.max(t, torch.zeros_like(t)),
    ),
    (
        "torch.maximum(x, torch.tensor(0.0)) + torch.full_like(x, 0.5)",
        {},
        lambda t: (
            torch.maximum(t, torch.tensor(0.0, dtype=t.dtype)) + torch.full_like(t, 0.5)
        ),
    ),
    (
        "torch.logaddexp(x, torch.zeros_like(x))",
        {},
        lambda t: torch.logaddexp(t, torch.zeros_like(t)),
    ),
    (
        "torch.where(x > 0, x, torch.tensor(0.1) * x)",
        {},
        lambda t: torch.where(t > 0, t, torch.tensor(0.1, dtype=t.dtype) * t),
    ),
]


#: Python code that returns one expression: the function's input is x
CASES += [
    (
        "def forward(self, x):\n    return x * torch.sigmoid(self.beta * x)",
        {"beta": 1.5},
        lambda t: t * torch.sigmoid(1.5 * t),
    ),
    (
        (
            "def forward(self, input: torch.Tensor) -> torch.Tensor:\n"
            '    """Mish."""\n    return input * torch.tanh(F.softplus(input))'
        ),
        {},
        lambda t: t * torch.tanh(F.softplus(t)),
    ),
    (
        "@torch.jit.script\ndef act(u):\n    return (u *\n        torch.sigmoid(u))",
        {},
        lambda t: t * torch.sigmoid(t),
    ),
    ("lambda v: v * torch.tanh(v)", {}, lambda t: t * torch.tanh(t)),
    ("act = lambda t: F.elu(t, alpha=0.5)", {}, lambda t: F.elu(t, alpha=0.5)),
    ("return x * torch.sigmoid(x)", {}, lambda t: t * torch.sigmoid(t)),
    (
        (
            "class Swish(nn.Module):\n"
            "    def __init__(self, beta=1.0):\n"
            "        super().__init__()\n"
            "        self.beta = nn.Parameter(torch.tensor(beta))\n"
            "\n"
            "    def forward(self, x):\n"
            "        return x * torch.sigmoid(self.beta * x)\n"
        ),
        {"beta": 1.25},
        lambda t: t * torch.sigmoid(1.25 * t),
    ),
    (
        (
            "class Mish(keras.layers.Layer):\n"
            "    def call(self, inputs):\n"
            "        return inputs * tf.math.tanh(tf.math.softplus(inputs))"
        ),
        {},
        lambda t: t * torch.tanh(F.softplus(t)),
    ),
]


def _torch_values(fn):
    t = torch.tensor(XS, dtype=torch.float64, requires_grad=True)
    y = fn(t)
    (g,) = torch.autograd.grad(y.sum(), t)
    return y.detach().numpy(), g.numpy()


@pytest.mark.parametrize(("text", "constants", "reference"), CASES)
def test_pasted_forward_matches_pytorch(text, constants, reference):
    ref_f, ref_df = _torch_values(reference)
    k = symnb.Activation(text, **constants).compile(backend="numpy", dtype="float64")
    f, df = k.forward_with_derivative(XS.copy())
    np.testing.assert_allclose(f, ref_f, rtol=1e-13, atol=1e-15, err_msg=text)
    np.testing.assert_allclose(df, ref_df, rtol=1e-12, atol=1e-14, err_msg=text)


@pytest.mark.parametrize(
    ("text", "constants", "message"),
    [
        ("x * torch.sigmoid(self.beta * x)", {}, r"unknown constant self\.beta"),
        ("x * sigmoid(z)", {}, "unknown symbol 'z'"),  # x is there: z is no input
        ("x * (x > 0).int()", {}, r"'\.int'"),  # an integer cast truncates
        ("x.to(torch.int32)", {}, r"'\.to'"),
        ("self.act(x)", {}, r"self\.act\(\.\.\.\) calls a submodule"),
        (
            "def forward(self, x):\n    for _ in range(2):\n        x = x * x\n    return x",
            {},
            "has a 'for' loop",
        ),
        (
            "class A(nn.Module):\n    def __init__(self):\n        pass",
            {},
            "no forward, call or __call__",
        ),
        (
            "def forward(self, x):\n    return x * foo(x)",
            {},
            r"unknown function 'foo'.*line 2, column 16",
        ),
    ],
)
def test_what_is_not_a_pasted_idiom_is_still_refused(text, constants, message):
    with pytest.raises(FormulaError, match=message):
        symnb.Activation(text, **constants)


def test_a_declared_constant_named_like_the_input_stays_a_constant():
    a = symnb.Activation("z * tanh(x)", z=2.0)
    assert a.compile("numpy", dtype="float64").forward(np.array([1.0]))[0] == (
        pytest.approx(2.0 * math.tanh(1.0), rel=1e-15)
    )
