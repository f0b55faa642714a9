"""log of a polynomial past the polynomial's overflow: log(x**4 + 2) was inf from |x| =
4.3e9 in float32 (1.2e77 in float64), where it is 89 (709), and log(1 + x**2) -
log(2 + x**4) NaN (inf - inf) there. Only c*x**2 + r had the far form 2 log|x| +
log(c + r/x**2) (``square_in_root``); ``log_of_polynomial`` now gives any polynomial of
degree n >= 2 the form n log|x| + log(sign(x)^n Q(1/x)) where |x| > 4, kept where the
measurement shows it is better. A quotient of polynomials inside a larger expression
(``rational_terms``, with the logs of polynomials in the same pass) is divided by the
denominator's highest power there too: the f' of x*log(x**4 + 1), log1p(x**4) +
4x^4/(x^4 + 1), was inf/inf = NaN from |x| = 4.3e9 in float32.

Judged at the corpus's sample points against SymPy + mpmath references
(``tests/robust/corpus_reference.py``) under issue 8's rule.
"""

from __future__ import annotations

import pytest

from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import (
    assert_lowered_cuda_compiles,
    assert_published_meets_rule,
)

CASES = (
    Published("log_quartic", "log(x**4 + 2)", "test"),
    Published("log1p_quartic", "log(1 + x**4)", "test"),
    Published("log_quotient_of_polynomials", "log(1 + x**2) - log(2 + x**4)", "test"),
    Published("log_quadratic_with_linear_term", "log(x**2 + x + 1)", "test"),
    # f' = log1p(x**4) + 4*x**4/(x**4 + 1): the quotient is inf/inf as well
    Published("x_log1p_quartic", "x*log(x**4 + 1)", "test"),
    Published("x_log1p_square", "x*log(1 + x**2)", "test"),
    Published("rational_term_in_a_sum", "x + 3*x**2/(1 + x**2)", "test"),
    Published("log_cubic", "log(x**3 + x + 5)", "test"),
)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_log_of_a_polynomial_meets_the_rule(entry, dtype, backend):
    assert_published_meets_rule(entry, backend, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cuda_kernels_of_the_rewrite_compile(dtype):
    assert_lowered_cuda_compiles(CASES, dtype)
