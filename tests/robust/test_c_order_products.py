"""The engine measures products in the C kernels' own order (the printer's lowering).

``x*sigmoid(x) + w*exp(-(x - c)**2/(2*s**2))`` with w = 1e8: its f' has the factor
``w*(x - c)/s**2`` times an exponential that is 0 at large |x|. The C printer shares
``0.5/(s*s)`` between the exponent and the factor, so ``0.5/(s*s)*w*(2x)`` overflows
(float32, x = 3e30) before the 0 multiplies it: NaN on C++ only for |x| in
1e23..3.4e30, while the engine's imitation of the C order (a plain ``sympy.cse``
that kept 1/2 apart) measured it finite and chose no rewrite. Judged at the corpus's
sample points against SymPy + mpmath references (``tests/robust/corpus_reference.py``)
under issue 8's rule.
"""

from __future__ import annotations

import pytest

from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import assert_published_meets_rule

CASES = (
    Published(
        "silu_plus_gaussian_bump",
        "x*sigmoid(x) + w*exp(-(x - c)**2/(2*s**2))",
        "a SiLU base plus a Gaussian RBF bump (KAN-style), w = 1e8",
        {"w": 1e8, "c": 0.5, "s": 0.3},
    ),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_products_are_measured_in_the_c_order(entry, dtype, backend):
    assert_published_meets_rule(entry, backend, dtype)
