"""Pasted code declares its formula's constants and name (symnb.formula.code_constants).

``Activation("def my_swish(x, beta=1.5): return ...")`` was refused with "unknown
symbol 'beta'" (the default was ignored), a pasted ``nn.Module`` needed every
``self.name`` typed again as a keyword, and the activation was called "f". Each case
here is judged against PyTorch running the very same pasted code: values and autograd
slopes in float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

XS = np.array([-7.5, -3.3, -1.0, -0.4, 0.3, 0.9, 1.7, 4.0, 12.0])

SWISH_MODULE = """class Swish(nn.Module):
    def __init__(self, beta=1.5, inplace=False):
        super().__init__()
        self.beta = beta

    def forward(self, x):
        return x * torch.sigmoid(self.beta * x)
"""

PRELU_MODULE = """class MyPReLU(nn.Module):
    def __init__(self, init=0.3):
        super().__init__()
        self.slope = nn.Parameter(torch.tensor(init))
        self.register_buffer("shift", torch.tensor([0.5]))

    def forward(self, x):
        return torch.where(x > 0, x, self.slope * x) + self.shift
"""

FULL_MODULE = """class Scaled(nn.Module):
    def __init__(self, a: float = 2.0):
        super().__init__()
        scale = 0.25
        self.scale = nn.Parameter(scale * torch.ones(1))
        self.a = a
        self.b = nn.Parameter(torch.full((1,), -0.5), requires_grad=False)

    def forward(self, inputs):
        return self.scale * torch.tanh(self.a * inputs) + self.b * inputs
"""

FUNCTION = (
    "def my_swish(x, beta=1.5, *, inplace=False):\n    return x*torch.sigmoid(beta*x)"
)
LAMBDA = "snake = lambda x, a=0.5: x + torch.sin(a*x)**2 / a"


def _torch_object(code: str):
    """What the pasted code is in PyTorch: the module (instantiated) or function."""
    space = {"torch": torch, "nn": nn, "F": F}
    exec(code, space)  # the test's own literal code  # noqa: S102
    made = [
        v for k, v in space.items() if k not in ("torch", "nn", "F", "__builtins__")
    ]
    (obj,) = made
    if not isinstance(obj, type):
        return obj
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # torch.tensor(0.3): 0.3, not 0.3f
    try:
        return obj()
    finally:
        torch.set_default_dtype(before)


def _torch_values_and_slopes(code: str):
    fn = _torch_object(code)
    t = torch.tensor(XS, dtype=torch.float64, requires_grad=True)
    y = fn(t)
    (g,) = torch.autograd.grad(y.sum(), t)
    return y.detach().numpy(), g.numpy()


def _symnb_values_and_slopes(act):
    k = act.compile("numpy", dtype="float64")
    return k.forward(XS), k.backward(XS, np.ones_like(XS))


@pytest.mark.parametrize(
    ("code", "name", "constants", "learnable"),
    [
        (FUNCTION, "my_swish", {"beta": 1.5}, []),
        (LAMBDA, "snake", {"a": 0.5}, []),
        (SWISH_MODULE, "Swish", {"beta": 1.5}, []),
        (PRELU_MODULE, "MyPReLU", {"slope": 0.3, "shift": 0.5}, ["slope"]),
        (FULL_MODULE, "Scaled", {"scale": 0.25, "a": 2.0, "b": -0.5}, ["scale"]),
    ],
)
def test_pasted_code_brings_its_constants_and_name(code, name, constants, learnable):
    act = symnb.Activation(code)
    assert act.name == name
    assert act.constants == pytest.approx(constants)
    assert sorted(act.learnable) == learnable
    want_y, want_g = _torch_values_and_slopes(code)
    got_y, got_g = _symnb_values_and_slopes(act)
    np.testing.assert_allclose(got_y, want_y, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got_g, want_g, rtol=1e-12, atol=1e-14)


def test_a_constant_given_by_keyword_wins_over_the_pasted_default():
    act = symnb.Activation(FUNCTION, beta=0.5)
    assert act.constants == {"beta": 0.5}
    want = XS / (1 + np.exp(-0.5 * XS))
    np.testing.assert_allclose(act.compile("numpy", dtype="float64").forward(XS), want)
    named = symnb.Activation(SWISH_MODULE, name="mine", beta=2.0)
    assert (named.name, named.constants) == ("mine", {"beta": 2.0})


def test_a_pasted_loss_brings_its_constants():
    code = (
        "def my_huber(pred, target, delta=0.7):\n"
        "    return torch.where(torch.abs(pred - target) < delta,"
        " 0.5*(pred - target)**2, delta*(torch.abs(pred - target) - 0.5*delta))"
    )
    loss = symnb.Loss(code)
    assert (loss.name, loss.constants) == ("my_huber", {"delta": 0.7})
    pred, target = np.array([-2.0, 0.1, 0.3, 3.0]), np.array([0.0, 0.0, 1.0, 1.0])
    want = F.huber_loss(
        torch.tensor(pred), torch.tensor(target), delta=0.7, reduction="none"
    ).numpy()
    got = loss.compile("numpy", dtype="float64").value(pred, target)
    assert got == pytest.approx(want.mean(), rel=1e-12)


def test_names_that_would_mislead_are_not_taken():
    # a library name (a different gelu), a method name, a private name: the default
    gelu = symnb.Activation(
        "def gelu(x):\n    return 0.5*x*(1 + torch.tanh(0.8*(x + 0.044715*x**3)))"
    )
    assert gelu.name == "f"
    method = symnb.Activation("def forward(self, x):\n    return torch.relu(x)")
    assert method.name == "f"
    private = symnb.Activation("def _act(x):\n    return x")
    assert private.name == "f"
    # a shown name is not registered: a later formula cannot call it
    symnb.Activation("def shown_only(x):\n    return 2*x")
    with pytest.raises(FormulaError, match="shown_only"):
        symnb.Activation("shown_only(x) + 1")


def test_what_is_not_a_number_is_not_a_constant():
    # beta=None, a bool, a string: not constants; the formula then names what is missing
    with pytest.raises(FormulaError, match="unknown symbol 'beta'"):
        symnb.Activation("def f(x, beta=None):\n    return x*torch.sigmoid(beta*x)")
    act = symnb.Activation("def f(x, flag=True, dim=-1):\n    return F.relu(x)")
    assert act.constants == {}


def test_keras_weights_are_learnable_constants():
    code = (
        "class SinAct(keras.layers.Layer):\n"
        "    def build(self, input_shape):\n"
        "        self.w = self.add_weight(name='w', shape=(),\n"
        "            initializer=keras.initializers.Constant(3.0), trainable=True)\n"
        "        self.c = self.add_weight(shape=(), initializer='ones',"
        " trainable=False)\n"
        "    def call(self, inputs):\n"
        "        return tf.sin(self.w * inputs) * self.c\n"
    )
    act = symnb.Activation(code)
    assert (act.name, act.constants, sorted(act.learnable)) == (
        "SinAct",
        {"w": 3.0, "c": 1.0},
        ["w"],
    )
    got = act.compile("numpy", dtype="float64").forward(XS)
    np.testing.assert_allclose(got, np.sin(3.0 * XS), rtol=1e-13, atol=1e-15)


FLAX_FIELD = """class Swish(nn.Module):
    beta: float = 1.5

    @nn.compact
    def __call__(self, x):
        return x * jax.nn.sigmoid(self.beta * x)
"""
FLAX_PARAM = """class LearnedSwish(nn.Module):
    @nn.compact
    def __call__(self, x):
        beta = self.param("beta", nn.initializers.constant(1.25), ())
        return x * jax.nn.sigmoid(beta * x)
"""
HAIKU_PARAM = """def leaky(x):
    a = hk.get_parameter("a", [], init=hk.initializers.Constant(0.3))
    return jnp.where(x > 0, x, a * x)
"""


@pytest.mark.parametrize(
    ("code", "name", "constants", "learnable", "reference"),
    [
        (FLAX_FIELD, "Swish", {"beta": 1.5}, [], lambda x: x / (1 + np.exp(-1.5 * x))),
        (
            FLAX_PARAM,
            "LearnedSwish",
            {"beta": 1.25},
            ["beta"],
            lambda x: x / (1 + np.exp(-1.25 * x)),
        ),
        (
            HAIKU_PARAM,
            "leaky",
            {"a": 0.3},
            ["a"],
            lambda x: np.where(x > 0, x, 0.3 * x),
        ),
    ],
)
def test_flax_and_haiku_parameters_are_constants(
    code, name, constants, learnable, reference
):
    # Flax fields and self.param / hk.get_parameter with a constant initializer;
    # judged against the published definitions (swish, leaky ReLU) in float64
    act = symnb.Activation(code)
    assert (act.name, act.constants, sorted(act.learnable)) == (
        name,
        constants,
        learnable,
    )
    got = act.compile("numpy", dtype="float64").forward(XS)
    np.testing.assert_allclose(got, reference(XS), rtol=1e-13, atol=1e-15)
