"""Library constants outside the values their library accepts are refused.

``symnb.loss('huber', delta=-1)`` and ``huber(y_pred, y_true, delta=-1)`` gave a
negative loss without a word; ``hardtanh(x, 2, -2)``, ``softshrink(x, -0.5)`` and
``celu(x, 0)`` built formulas PyTorch refuses. The reference is PyTorch: each case
raises there too (softplus's beta = 0, which PyTorch computes as inf, is refused as a
division by zero).
"""

import pytest
import torch
import torch.nn.functional as F

import symnb
from symnb.errors import FormulaError

p, t = torch.randn(5), torch.randn(5)

CASES = [
    # (symnb call, PyTorch call, message)
    (
        lambda: symnb.loss("huber", delta=-1.0),
        lambda: F.huber_loss(p, t, delta=-1.0),
        "delta must be > 0",
    ),
    (
        lambda: symnb.loss("huber", delta=0.0),
        lambda: F.huber_loss(p, t, delta=0.0),
        "delta must be > 0",
    ),
    (
        lambda: symnb.Loss("huber(y_pred, y_true, delta=-1)"),
        lambda: F.huber_loss(p, t, delta=-1.0),
        "delta must be > 0",
    ),
    (
        lambda: symnb.Loss("F.smooth_l1_loss(y_pred, y_true, beta=-1)"),
        lambda: F.smooth_l1_loss(p, t, beta=-1.0),
        "beta must be > 0",
    ),
    (
        lambda: symnb.activation("hardtanh", min_val=1.0, max_val=-1.0),
        lambda: F.hardtanh(p, 1.0, -1.0),
        "min_val must not be greater",
    ),
    (
        lambda: symnb.Activation("hardtanh(x, 2, -2)"),
        lambda: F.hardtanh(p, 2.0, -2.0),
        "min_val must not be greater",
    ),
    (
        lambda: symnb.Activation("F.softshrink(x, -0.5)"),
        lambda: F.softshrink(p, -0.5),
        "lambd must be >= 0",
    ),
    (
        lambda: symnb.Activation("celu(x, 0)"),
        lambda: F.celu(p, 0.0),
        "alpha must not be 0",
    ),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_refused_as_the_library_refuses(i):
    ours, theirs, message = CASES[i]
    with pytest.raises((RuntimeError, ValueError)):
        theirs()
    with pytest.raises(FormulaError, match=message):
        ours()


def test_softplus_beta_zero_is_refused():
    assert torch.isinf(F.softplus(p, beta=0)).all()  # PyTorch: inf, a division by 0
    with pytest.raises(FormulaError, match="beta must not be 0"):
        symnb.activation("softplus", beta=0.0)


def test_values_inside_the_domain_still_build():
    assert symnb.loss("huber", delta=0.5).constants == {"delta": 0.5}
    assert symnb.activation("hardtanh", min_val=-2.0, max_val=2.0) is not None
    assert symnb.Activation("softshrink(x, 0)") is not None
    # a named constant is a symbol here: its value is the user's, checked nowhere else
    assert symnb.Activation("softplus(x, beta=b)", b=2.0) is not None


def test_library_names_are_read_like_backend_names():
    assert symnb.activation(" ReLU ").expr == symnb.activation("relu").expr
