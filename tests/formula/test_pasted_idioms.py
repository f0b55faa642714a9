"""Model code as it is written: tensor methods, arithmetic functions, activation layer
objects and submodules, autograd.Function forwards, helper functions, flags, and
losses whose inputs are named freely (symnb.formula.tensor_methods, layer_objects,
inline_locals, spellings.loss_inputs).

Each was refused before ("method calls ('.sigmoid(...)') are not allowed", "calling a
layer object (nn.ReLU()) is not allowed", "attribute access ('.relu')", "torch.mul
has no symnb equivalent", "has a nested function", "unknown symbol 'x'" for a loss
``forward(self, x, y)``). Each case is judged against PyTorch running the very same
text: values and autograd slopes in float64.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symnb
from symnb.errors import FormulaError
from symnb.formula.layer_objects import LAYERS
from tests.formula.torch_judge import judge

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

XS = np.array([-9.0, -3.3, -1.0, -0.4, -0.1, 0.2, 0.9, 1.7, 2.5, 4.0, 12.0])
SPACE = {"torch": torch, "nn": nn, "F": F, "math": math, "np": np}


def _torch_callable(code: str):
    """What ``code`` is in PyTorch: an expression of x, a function, a module (made,
    in float64) or an autograd.Function (its apply)."""
    space = dict(SPACE)
    if not code.lstrip().startswith(("def ", "class ", "@")):
        return eval(f"lambda x: {code}", space)  # the test's own literal text
    exec(code, space)  # noqa: S102
    (obj,) = [v for k, v in space.items() if k not in SPACE and k != "__builtins__"]
    if isinstance(obj, type) and issubclass(obj, torch.autograd.Function):
        return obj.apply
    if isinstance(obj, type):
        before = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        try:
            return obj()
        finally:
            torch.set_default_dtype(before)
    return obj


def _judge(act, code: str, rtol: float = 1e-12) -> None:
    judge(act, _torch_callable(code), rtol=rtol, xs=XS)


METHODS = [
    "x.sigmoid() * x",
    "x.mul(torch.tanh(F.softplus(x)))",
    "x * F.relu6(x + 3.).div(6.)",
    "(x * 2).clamp(0, 6)",
    "x.clamp(min=0)",
    "x.clamp_min(0.5)",
    "x.pow(2).add(1).sqrt()",
    "x.where(x > 0, 0.1 * x)",
    "x.masked_fill(x < 0, 0.0)",
    "x.abs().neg().exp()",
    "x.neg().exp().add(1).reciprocal()",
    "x.clone().tanh()",
    "x.sub(1, alpha=2).square()",
    "torch.mul(x, torch.sigmoid(x))",
    "torch.add(x, torch.tanh(x), alpha=0.5)",
    "torch.div(x, 1 + torch.abs(x))",
    "torch.sub(x, torch.tanh(x))",
    "torch.neg(torch.nn.functional.softplus(-x))",
]


@pytest.mark.parametrize("code", METHODS)
def test_tensor_methods_and_arithmetic_functions(code):
    _judge(symnb.Activation(code), code)


def test_numpy_and_tensorflow_spell_arithmetic_the_same():
    xs = np.linspace(-4, 4, 9)
    for text in (
        "np.multiply(x, np.tanh(x))",
        "tf.multiply(x, tf.tanh(x))",
        "jnp.subtract(x, x - x * jnp.tanh(x))",
    ):
        got = symnb.Activation(text).compile("numpy", dtype="float64").forward(xs)
        np.testing.assert_allclose(got, xs * np.tanh(xs), rtol=1e-13, err_msg=text)


def _layer_call(cls: str) -> str:
    """``nn.<cls>(<non-default arguments>)(x)``, with inplace where it exists."""
    arguments = {
        "LeakyReLU": "0.2",
        "ELU": "alpha=0.7",
        "CELU": "0.5",  # PyTorch's kernel rounds alpha to float32: 0.5 is exact
        "GELU": "approximate='tanh'",
        "Softplus": "beta=2.0, threshold=15",
        "Softshrink": "0.3",
        "Hardshrink": "lambd=0.4",
        "Hardtanh": "-2.0, 1.5",
        "Threshold": "0.5, -1.0",
        "ReLU": "inplace=True",
        "ReLU6": "True",
    }
    return f"nn.{cls}({arguments.get(cls, '')})(x)"


@pytest.mark.parametrize("cls", sorted(LAYERS))
def test_every_activation_layer_object_reads_as_its_module(cls):
    code = _layer_call(cls)
    # PyTorch's float64 hardsigmoid multiplies by the float32 1/6 (0.16666667163)
    _judge(symnb.Activation(code), code, rtol=1e-7 if cls == "Hardsigmoid" else 1e-12)


SUBMODULES = """class HSwish(nn.Module):
    def __init__(self, inplace=True):
        super().__init__()
        self.relu = nn.ReLU6(inplace=inplace)
        self.act = nn.LeakyReLU(negative_slope=0.05)

    def forward(self, x):
        return x * self.relu(x + 3) / 6 + self.act(x)
"""
AUTOGRAD = """class SwishImplementation(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i * torch.sigmoid(i)
        ctx.save_for_backward(i)
        ctx.scale = 2
        return result

    @staticmethod
    def backward(ctx, grad_output):
        i = ctx.saved_tensors[0]
        s = torch.sigmoid(i)
        return grad_output * (s * (1 + i * (1 - s)))
"""
HELPERS = """def double_soft(x):
    def _sp(t):
        return torch.log1p(torch.exp(-torch.abs(t))) + torch.clamp(t, min=0)
    half = lambda t: 0.5 * t
    return half(_sp(x) + _sp(-x)) * x
"""
FLAGS = """def hard_swish(x, inplace: bool = False):
    inner = F.relu6(x + 3.).div_(6.)
    return x.mul_(inner) if inplace else x.mul(inner)
"""
PRELU = """class PReLU(nn.Module):
    def __init__(self, num_parameters=1, init=0.25):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(num_parameters).fill_(init))

    def forward(self, input):
        return torch.where(input >= 0, input, self.weight * input)
"""


@pytest.mark.parametrize(
    ("code", "name"),
    [
        (SUBMODULES, "HSwish"),
        (AUTOGRAD, "SwishImplementation"),
        (HELPERS, "double_soft"),
        (FLAGS, "hard_swish"),
        (PRELU, "PReLU"),
    ],
)
def test_model_code_with_submodules_helpers_and_flags(code, name):
    act = symnb.Activation(code)
    assert act.name == name
    _judge(act, code)


def test_a_parameter_filled_in_place_is_learnable():
    act = symnb.Activation(PRELU)
    assert act.constants == {"weight": 0.25}
    assert list(act.learnable) == ["weight"]


def test_a_submodule_without_a_formula_is_named():
    code = (
        "class HS(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.gate = MyGate()\n"
        "    def forward(self, x):\n"
        "        return x * self.gate(x)\n"
    )
    with pytest.raises(FormulaError, match=r"self\.gate\(\.\.\.\) calls a submodule"):
        symnb.Activation(code)


@pytest.mark.parametrize(
    "code",
    [
        # PyTorch's order, inputs named freely
        (
            "class Charbonnier(nn.Module):\n"
            "    def __init__(self, eps=1e-3):\n"
            "        super().__init__()\n"
            "        self.eps = eps\n"
            "    def forward(self, x, y):\n"
            "        diff = x - y\n"
            "        return torch.mean(torch.sqrt(diff * diff + self.eps * self.eps))\n"
        ),
        (
            "def charbonnier(a, b, eps=1e-3):\n"
            "    return torch.sqrt((a - b) ** 2 + eps ** 2).mean()\n"
        ),
        # Keras's order, named
        (
            "def charbonnier(y_true, y_pred, eps=1e-3):\n"
            "    return K.mean(K.sqrt(K.square(y_pred - y_true) + eps ** 2))\n"
        ),
    ],
)
def test_a_pasted_loss_takes_its_inputs_by_name_or_position(code):
    loss = symnb.Loss(code)
    assert loss.constants == {"eps": 1e-3}
    pred = np.array([-2.0, 0.1, 0.3, 3.0, 0.5])
    target = np.array([0.0, 0.0, 1.0, 1.0, 0.5])
    want = np.mean(np.sqrt((pred - target) ** 2 + 1e-6))
    got = loss.compile("numpy", dtype="float64").value(pred, target)
    assert got == pytest.approx(want, rel=1e-13)
    # the gradient w.r.t. the prediction: (pred - target)/sqrt(...)/n
    grad = loss.compile("numpy", dtype="float64").gradient(pred, target)
    want_grad = (pred - target) / np.sqrt((pred - target) ** 2 + 1e-6) / pred.size
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12)


def test_what_stays_refused():
    # a reduction, an integer cast, a gradient stop: not elementwise values
    for text, message in (
        ("x - x.max()", "maximum over the batch"),
        ("x * (x > 0).int()", r"'\.int'"),
        ("x.detach() * x", r"'\.detach'"),
    ):
        with pytest.raises(FormulaError, match=message):
            symnb.Activation(text)


HARD_MISH = '''def hard_mish(x, inplace: bool = False):
    """Hard Mish."""
    if inplace:
        return x.mul_(0.5 * (x + 2).clamp(min=0, max=2))
    else:
        return 0.5 * x * (x + 2).clamp(min=0, max=2)
'''
HARD_SIGMOID = """def hard_sigmoid(x, inplace: bool = False):
    if not inplace:
        return F.relu6(x + 3.) / 6.
    return x.add_(3.).clamp_(0., 6.).div_(6.)
"""
LAPLACE = """class LaplaceActivation(nn.Module):
    def forward(self, input, mu=0.707107, sigma=0.282095):
        input = (input - mu).div(sigma * math.sqrt(2.0))
        return 0.5 * (1.0 + torch.erf(input))
"""


@pytest.mark.parametrize(
    ("code", "constants"),
    [
        (HARD_MISH, {}),
        (HARD_SIGMOID, {}),
        (LAPLACE, {"mu": 0.707107, "sigma": 0.282095}),
    ],
)
def test_flag_branches_and_forward_defaults(code, constants):
    # `if inplace:` takes the branch of the flag's default; a forward's own numeric
    # defaults are constants
    act = symnb.Activation(code)
    assert act.constants == constants
    _judge(act, code)


def test_a_symact_cell_function_with_a_flag_branch():
    from symnb.notebook.syntax import parse_cell

    (definition,) = parse_cell(HARD_SIGMOID)
    assert definition.constants == ()  # the flag is no constant
    assert definition.formula == "F.relu6(x + 3.0) / 6.0"


KERAS_SWISHES = [
    # K.cast_to_floatx of a default
    (
        "class Swish(Layer):\n"
        "    def __init__(self, beta=1.5, **kwargs):\n"
        "        super(Swish, self).__init__(**kwargs)\n"
        "        self.beta = K.cast_to_floatx(beta)\n"
        "    def call(self, inputs):\n"
        "        return inputs * K.sigmoid(self.beta * inputs)\n"
    ),
    # a variable made in build from an attribute set in __init__
    (
        "class Swish(Layer):\n"
        "    def __init__(self, beta=1.5, trainable=False, **kwargs):\n"
        "        super(Swish, self).__init__(**kwargs)\n"
        "        self.beta = beta\n"
        "    def build(self, input_shape):\n"
        "        self.scaling_factor = K.variable(self.beta, dtype=K.floatx())\n"
        "    def call(self, inputs, mask=None):\n"
        "        return inputs * K.sigmoid(self.scaling_factor * inputs)\n"
    ),
]


@pytest.mark.parametrize("code", KERAS_SWISHES)
def test_keras_layers_constants(code):
    act = symnb.Activation(code)
    assert list(act.constants.values()) == [1.5]
    got = act.compile("numpy", dtype="float64").forward(XS)
    np.testing.assert_allclose(got, XS / (1 + np.exp(-1.5 * XS)), rtol=1e-13)


def test_a_keras_weight_initialised_with_ones_is_learnable():
    code = (
        "class ScalarSwish(Layer):\n"
        "    def build(self, input_shape):\n"
        "        self.beta = self.add_weight(shape=[1], initializer=Ones(), name='b')\n"
        "    def call(self, inputs):\n"
        "        inputs = K.sigmoid(inputs * self.beta) * inputs\n"
        "        return inputs\n"
    )
    act = symnb.Activation(code)
    assert (act.constants, list(act.learnable)) == ({"beta": 1.0}, ["beta"])


FOCAL_CLASS = """class FocalLoss(nn.Module):
    def __init__(self, alpha=0.25, gamma=2.0, logits=True, reduction='mean'):
        super(FocalLoss, self).__init__()
        self.alpha = alpha
        self.gamma = gamma
        self.logits = logits
        self.reduction = reduction

    def forward(self, inputs, targets):
        if self.logits:
            BCE_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction='none')
        else:
            BCE_loss = F.binary_cross_entropy(inputs, targets, reduction='none')
        pt = torch.exp(-BCE_loss)
        F_loss = self.alpha * (1 - pt) ** self.gamma * BCE_loss
        if self.reduction == 'mean':
            return torch.mean(F_loss)
        elif self.reduction == 'sum':
            return torch.sum(F_loss)
        else:
            return F_loss
"""
WEIGHTED = """def weighted_mse(pred, target, weight=2.0, reduction="mean"):
    loss = weight * (pred - target) ** 2
    if reduction in ("mean", "batchmean"):
        return loss.mean()
    return loss
"""


def _judge_loss(code: str, fn) -> None:
    """symnb's mean loss and its gradient w.r.t. the prediction against ``fn``
    (PyTorch running the pasted code) on logits and 0/1 targets, float64."""
    loss = symnb.Loss(code)
    pred = np.array([-3.0, -0.7, 0.2, 1.4, 4.0, 0.05])
    target = np.array([0.0, 1.0, 0.0, 1.0, 1.0, 1.0])
    p = torch.tensor(pred, requires_grad=True)
    want = fn(p, torch.tensor(target))
    (want_grad,) = torch.autograd.grad(want, p)
    k = loss.compile("numpy", dtype="float64")
    assert k.value(pred, target) == pytest.approx(want.item(), rel=1e-12)
    np.testing.assert_allclose(k.gradient(pred, target), want_grad.numpy(), rtol=1e-11)


@pytest.mark.parametrize("code", [FOCAL_CLASS, WEIGHTED])
def test_a_loss_with_option_branches_reads_its_default_branch(code):
    # `if self.reduction == 'mean':`, `if self.logits:`: the branch of the value
    # __init__ stores (or the parameter's default)
    _judge_loss(code, _torch_callable(code))


LOSS_OBJECT_CODES = [
    "nn.MSELoss()(pred, target)",
    "torch.nn.MSELoss(reduction='none')(pred, target).mean()",
    "nn.HuberLoss(delta=0.5)(pred, target)",
    "nn.SmoothL1Loss(beta=0.4)(pred, target)",
    "nn.BCEWithLogitsLoss(pos_weight=torch.tensor(2.0))(pred, target)",
]
CRITERION = (
    "class Wrapped(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.criterion = nn.SmoothL1Loss(beta=0.5)\n"
    "    def forward(self, pred, target):\n"
    "        return self.criterion(pred, target) + 0.1 * torch.mean(torch.abs(pred))\n"
)


@pytest.mark.parametrize("code", LOSS_OBJECT_CODES)
def test_loss_objects_read_as_their_functions(code):
    # nn.MSELoss()(pred, target): was "calling a loss object is not allowed"
    _judge_loss(code, eval(f"lambda pred, target: {code}", dict(SPACE)))


def test_a_criterion_submodule_reads_as_its_function():
    _judge_loss(CRITERION, _torch_callable(CRITERION))
