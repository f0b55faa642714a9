"""A named constant below 1 times an exponential that overflows before the product.

The Laplace NLL in the log-scale ``x + r*exp(-x)`` with r = 0.5 is 2.24e38 at x = -89
in float32 (1.12e308 at x = -710 in float64), but exp(89) overflows first: f and f'
were inf on every backend. Typed with the number (``x + 0.5*exp(-x)``) it was right:
the sample point between the two overflow edges (``measure._scaled_exp_edges``) and
the rewrite ``exp(u + log c)`` (``rewrite.scale_into_exponentials``) took numbers
only, and a named constant stays a symbol in the kernel. Both take a product of named
constants at its value now. Judged against mpmath over the whole float range
(``text_judge.rule_problems_of``) and at the edge against the float64 value.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.test_corpus import assert_lowered_cuda_compiles
from tests.robust.text_judge import rule_problems_of

CASES = [
    ("x + r*exp(-x)", {"r": 0.5}),
    ("x + y*exp(-x)", {"y": 0.01}),  # gamma NLL in the log-mean, target 0.01
    ("a*b*exp(x) - x", {"a": 0.5, "b": 0.25}),
]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("text", "constants"), CASES)
def test_named_scale_of_an_exponential_meets_the_rule(text, constants, dtype, backend):
    problems = rule_problems_of(text, backend, dtype, constants)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("backend", backend_params())
def test_between_the_overflow_edges_in_float32(backend):
    """At x = -89 exp(-x) is 4.5e38 (inf in float32); r*exp(-x) + x is 2.2e38."""
    act = symnb.Activation("x + r*exp(-x)", r=0.5)
    kernel = act.compile(backend, dtype="float32")
    xs = np.array([-88.9, -89.0, -89.3], dtype=np.float32)
    y, dy = kernel.forward_with_derivative(xs)
    for x, got, dgot in zip(xs.tolist(), y.tolist(), dy.tolist()):
        e = mpmath.mpf(0.5) * mpmath.exp(-mpmath.mpf(x))
        assert got == pytest.approx(float(e + x), rel=2e-5)
        assert dgot == pytest.approx(float(1 - e), rel=2e-5)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_form_holds_for_the_constant_moved_by_training(dtype, backend):
    """The rewritten form reads r at run time: right at r = 1e-3 too (compiled at 0.5),
    where exp(-x) overflows 6.9 before the product does."""
    problems = rule_problems_of(
        "x + r*exp(-x)", backend, dtype, {"r": 0.5}, {"r": 1e-3}
    )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cuda_kernels_of_the_rewrite_compile(dtype):
    """sign(k)*exp(u + log|k|) with k read at run time, in CUDA (NVRTC, no GPU)."""
    entries = [
        Published(f"scaled_{i}", t, "probe", c) for i, (t, c) in enumerate(CASES)
    ]
    assert_lowered_cuda_compiles(entries, dtype)
