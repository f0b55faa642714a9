"""A coefficient above 1 is multiplied last, after the bounded factors.

``x*cos(x)**2``' is ``cos(x)**2 - 2*x*sin(x)*cos(x)``; printed coefficient first,
``2*x`` overflows at the float maximum (f' was inf at 3.4e38 in float32 and at 1.8e308
in float64, where it is 3.0e38 and 1.8e306); ``sin(x) + x*sin(x)**2``' likewise (-inf
on numpy). Every printer (C/CUDA, NumPy, JAX) now multiplies the coefficient last
(``symnb.codegen.printer.coefficient_last``).

``x + 2.5*x*sin(x)`` at the float32 maximum: 2.5*x*sin(x) overflows in any order where
the sum (-1.04e38) does not; f was -inf on NumPy (g++ fused it into an fma and got it
right). The engine now takes a power of x common to every term out of a sum
(``x*(1 + 2.5*sin(x))``, rewrite ``factor_common_power``).

Judged at the corpus's sample points against SymPy + mpmath references
(``tests/robust/corpus_reference.py``) under issue 8's rule.
"""

from __future__ import annotations

import pytest

from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import assert_published_meets_rule

CASES = (
    Published("x_cos_squared", "x*cos(x)**2", "test"),
    Published("sin_plus_x_sin_squared", "sin(x) + x*sin(x)**2", "test"),
    Published("x_plus_scaled_x_sin", "x + 2.5*x*sin(x)", "test"),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_coefficient_times_x_does_not_overflow_first(entry, dtype, backend):
    assert_published_meets_rule(entry, backend, dtype)
