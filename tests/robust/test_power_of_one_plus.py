"""``(1 + w)**q`` with a large exponent: 1 + w rounds to its dtype's spacing and the
power raises that rounding error to the q-th power (``symnb.robust.power_of_one_plus``
computes exp(q*log1p(w)) where 1 + w > 0).

Found with the compound-interest limit ``(1 + x/n)**n`` at n = 1e8 (6.6e-6 for 4.5e-5
at x = -10 in float32) and Student's t kernel ``(1 + x**2/nu)**(-(nu + 1)/2)`` at
nu = 1e6 (0.011444 for 0.011109 at x = -3 in float32; the Gaussian limit of the t
distribution).

The Richards curve ``1/(C + Q*exp(-x))**(1/nu)`` with C = Q = 1 and nu = 1e-8 (the
fourteenth probe) was 1.0 for 0.8137 at x = 20 in float32 and 7e-9 off in float64:
its 1 is a named constant, split out as exp(q*(log(C) + log1p(w/C))) where C > 0.

Judged at the corpus's sample points against SymPy + mpmath references
(``tests/robust/corpus_reference.py``) under issue 8's rule.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.robust.corpus import Published
from tests.robust.test_corpus import assert_judged_meets_rule

CASES = (
    Published(
        "student_t_kernel_nu_1e6",
        "(1 + x**2/nu)**(-(nu + 1)/2)",
        "Student's t density kernel, nu = 1e6",
        {"nu": 1e6},
    ),
    Published(
        "compound_interest_n_1e6",
        "(1 + x/n)**n",
        "compound-interest limit of exp(x), n = 1e6",
        {"n": 1e6},
    ),
    Published(
        "richards_named_one_nu_1e8",
        "A + (K - A)/(C + Q*torch.exp(-B*x))**(1/nu)",
        "Richards curve with C = Q = 1 named, nu = 1e-8",
        {"A": 0.0, "K": 1.0, "C": 1.0, "Q": 1.0, "B": 1.0, "nu": 1e-8},
    ),
)

#: texts the references read (the typed text uses torch names)
REFERENCE_TEXT = {
    "richards_named_one_nu_1e8": "A + (K - A)/(C + Q*exp(-B*x))**(1/nu)",
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_power_of_one_plus_meets_the_rule(entry, dtype):
    assert_judged_meets_rule(entry, REFERENCE_TEXT, "numpy", dtype)


def test_a_named_constant_term_is_read_at_run_time():
    """C = 2 and nu = 1/2 set after compiling: (2 + exp(-x))**-2, not a value frozen
    at C = 1, and the power kept where C + exp(-x) <= 0 (C = -3, x = 0: (-2)**-2)."""
    kernel = symnb.Activation("1/(C + exp(-x))**(1/nu)", C=1.0, nu=1e-8).compile(
        backend="numpy", dtype="float64"
    )
    xs = np.array([-1.0, 0.0, 2.0])
    kernel.set_constants(C=2.0, nu=0.5)
    y, dy = kernel.forward_with_derivative(xs)
    e = np.exp(-xs)
    np.testing.assert_allclose(y, (2 + e) ** -2.0, rtol=1e-14)
    np.testing.assert_allclose(dy, 2 * e * (2 + e) ** -3.0, rtol=1e-14)
    kernel.set_constants(C=-3.0, nu=0.5)
    y, _ = kernel.forward_with_derivative(np.array([0.0]))
    assert y[0] == pytest.approx(0.25)


def test_the_power_is_kept_where_its_base_is_negative():
    """n = 2 after training is (1 - 3/2)**2 = 0.25 at x = -3, where exp(n*log1p(x/n))
    would be NaN."""
    kernel = symnb.Activation("(1 + x/n)**n", n=1e6).compile(
        backend="numpy", dtype="float64"
    )
    kernel.set_constants(n=2.0)
    y, dy = kernel.forward_with_derivative(np.array([-3.0]))
    assert y[0] == pytest.approx(0.25)
    assert dy[0] == pytest.approx(-0.5)  # 2*(1 + x/2)*(1/2) at x = -3
