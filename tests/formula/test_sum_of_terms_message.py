"""A sum over a generator (a KAN-style RBF basis pasted from Python, ``sum(w*exp(-((x
- c)/h)**2) for c, w in ...)``) is refused with a message that names ``sum`` and says
how to write the formula instead (the terms written out with +), not the list of every
allowed function.
"""

from __future__ import annotations

import pytest

import symnb
from symnb.errors import FormulaError

TEXTS = (
    "sum(w*torch.exp(-((x - c)/0.5)**2) for c, w in [(-1, 1), (0, -2), (1, 1)])",
    "sum(F.softplus(x - k) for k in range(12))",
    "sum([x, x**2])",
)


@pytest.mark.parametrize("text", TEXTS)
def test_sum_over_terms_says_to_write_the_terms_out(text):
    with pytest.raises(FormulaError) as info:
        symnb.Activation(text)
    message = str(info.value)
    assert "sum(" in message and "write the terms out with +" in message
    assert "allowed functions:" not in message


def test_the_written_out_sum_is_accepted():
    act = symnb.Activation(
        "torch.exp(-((x + 1)/0.5)**2) - 2*torch.exp(-(x/0.5)**2) "
        "+ torch.exp(-((x - 1)/0.5)**2)"
    )
    assert act.latex
