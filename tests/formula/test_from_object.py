"""An activation given as the Python object a user has (symnb.formula.from_object):
a function, a lambda, a module class, a module instance with its current constants,
PyTorch's activation layers and library functions. It was "Activation expects
formula text or a SymPy expression, got function". Judged against PyTorch running the
object itself: values and autograd slopes in float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError
from tests.formula.torch_judge import judge

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional


def my_swish(x, beta=1.5):
    return x * torch.sigmoid(beta * x)


class ScaledSwish(nn.Module):
    def __init__(self, beta=1.0, scale=2.0):
        super().__init__()
        self.beta = nn.Parameter(torch.tensor(beta, dtype=torch.float64))
        self.scale = scale
        self.register_buffer("shift", torch.tensor(0.25, dtype=torch.float64))
        self.layers = 3  # an attribute the formula does not read

    def forward(self, x):
        gate = torch.sigmoid(self.beta * x)
        return self.scale * x * gate + self.shift


mish_lambda = lambda x: x * torch.tanh(F.softplus(x))


def test_a_function():
    act = symnb.Activation(my_swish)
    assert (act.name, act.constants) == ("my_swish", {"beta": 1.5})
    judge(act, my_swish)


def test_a_lambda():
    judge(symnb.Activation(mish_lambda), mish_lambda)


def test_a_module_class_takes_its_defaults():
    act = symnb.Activation(ScaledSwish)
    assert act.constants == {"beta": 1.0, "scale": 2.0, "shift": 0.25}
    judge(act, ScaledSwish())


def test_a_module_instance_takes_the_values_it_holds_now():
    module = ScaledSwish(beta=0.7, scale=3.0)
    with torch.no_grad():
        module.beta.fill_(1.3)  # trained since
    act = symnb.Activation(module)
    assert act.constants == {"beta": 1.3, "scale": 3.0, "shift": 0.25}
    assert list(act.learnable) == ["beta"]  # a parameter; the buffer is not
    judge(act, module)


@pytest.mark.parametrize(
    "layer",
    [
        nn.ReLU(),
        nn.LeakyReLU(0.2),
        nn.ELU(alpha=0.5),
        nn.GELU(approximate="tanh"),
        nn.Softplus(beta=2.0),
        nn.Hardtanh(-2.0, 1.5),
        nn.Identity(),
    ],
)
def test_pytorch_activation_layers_with_their_options(layer):
    judge(symnb.Activation(layer), layer)


@pytest.mark.parametrize("fn", [torch.tanh, F.silu, F.mish, torch.sigmoid, F.gelu])
def test_library_functions(fn):
    judge(symnb.Activation(fn), fn)


def test_objects_without_a_reading_are_refused_by_name():
    with pytest.raises(FormulaError, match="PReLU is a library's own class"):
        symnb.Activation(nn.PReLU())
    with pytest.raises(FormulaError, match="torch.sum reduces over the batch"):
        symnb.Activation(torch.sum)
    with pytest.raises(TypeError, match="got int"):
        symnb.Activation(42)


def test_a_network_takes_functions_and_layers_as_activations():
    from symnb.nn import MLP

    model = MLP([2, 4, 4, 1], activation=[nn.Tanh(), my_swish], seed=0)
    assert "activation=['Tanh', 'my_swish']" in repr(model)
    x = np.array([[0.3, -1.2], [2.0, 0.5]])
    (w0, b0), (w1, b1), (w2, b2) = (
        (la.weight.numpy().astype(np.float64), la.bias.numpy().astype(np.float64))
        for la in model.layers
    )
    h = np.tanh(x @ w0 + b0)
    z = h @ w1 + b1
    want = (z / (1 + np.exp(-1.5 * z))) @ w2 + b2
    np.testing.assert_allclose(model.predict(x), want.ravel(), rtol=2e-5, atol=2e-6)


def np_swish(x, beta=1.5):
    return x * np.tanh(beta * x)


def test_a_numpy_vectorized_function_reads_the_function_inside():
    """np.vectorize(np_swish) was read as NumPy's own function 'np_swish': "np.np_swish
    has no symnb equivalent". Judged against NumPy float64 running the function."""
    act = symnb.Activation(np.vectorize(np_swish))
    assert (act.name, act.constants) == ("np_swish", {"beta": 1.5})
    x = np.linspace(-3, 3, 13)
    got = act.compile(backend="numpy", dtype="float64").forward(x)
    np.testing.assert_allclose(got, np_swish(x), rtol=1e-12)
