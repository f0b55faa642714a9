"""Regime thresholds are bisected in the C kernels' operation order too.

``x*log(1 + exp(x))/(1 + exp(-x))``' (float64) is NaN from x = 1.3e154 in the C
kernels' order (shared subexpressions: x*x overflows before a factor 0 multiplies it)
and fine in NumPy's. The sample points saw the failure at 1e170 (next after 1e145),
but the threshold between them was bisected in NumPy's order alone, where the direct
formula never fails, so the asymptote began at 1e170 and the C kernel's f' was NaN at
x = 1e160 and 1e168 (2e160 and 2e168). ``x*sigmoid(relu(x)**2)``' likewise (NaN
instead of 1). Judged at the corpus's sample points against SymPy + mpmath references
(``tests/robust/corpus_reference.py``) under issue 8's rule.
"""

from __future__ import annotations

import pytest

from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import assert_published_meets_rule

CASES = (
    Published("silu_softplus", "x*log(1 + exp(x))/(1 + exp(-x))", "test"),
    Published("x_sigmoid_relu_square", "x*sigmoid(relu(x)**2)", "test", kinks=(0.0,)),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_threshold_holds_in_the_c_order(entry, dtype, backend):
    assert_published_meets_rule(entry, backend, dtype)
