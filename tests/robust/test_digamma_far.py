"""digamma of an argument that overflows before the value does: ``digamma(x**2 + 1)``
was inf from |x| = 1.8e19 in float32 (1.3e154 in float64) where it is 2 log|x| (88 at
1e19), and the derivative of ``lgamma(x**2 + 1/2)``, ``2x digamma(x**2 + 1/2)``, was
+-inf there where it is 4x log|x|. ``symnb.robust.digamma_far`` computes digamma from
its asymptotic series past u = 100, the log of a polynomial u with its leading power
taken out.

References: mpmath's digamma at 40 digits (the derivative 2x psi(x^2 + 1/2) by the
chain rule), compared under issue 8's rule (``tests/robust/corpus_reference.py``).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus_reference import RULE

#: |x| from where x**2 overflows in float32 / float64, to the largest finite values
FAR = {
    "float32": [2e19, 1e25, 3e30, 1e35, 3.4e38],
    "float64": [2e154, 1e200, 1e250, 1e300, 1.7e308],
}
NEAR = [0.0, 0.5, 3.0, 9.9, 10.1, 1e3, 1e8]


def _psi(u) -> float:
    with mpmath.workdps(40):
        return mpmath.digamma(u)


def _points(dtype: str) -> np.ndarray:
    xs = [s * v for v in FAR[dtype] + NEAR for s in (1, -1)]
    return np.array(xs, dtype=dtype)


def _assert_rule(got, want, scale, xs, dtype, what):
    rel, absolute = RULE[dtype]
    want = np.array([float(w) for w in want])
    ok = np.abs(got - want) <= rel * np.abs(want) + absolute * scale
    assert ok.all(), f"{what} {dtype}: " + ", ".join(
        f"x={x:.3g} got {g:.8g} want {w:.8g}"
        for x, g, w, k in zip(xs, got, want, ok, strict=True)
        if not k
    )


def _run(text: str, backend: str, dtype: str):
    """(points, f, f', the points as mpmath numbers) of ``text``'s kernel."""
    xs = _points(dtype)
    kernel = symnb.Activation(text).compile(backend=backend, dtype=dtype)
    with np.errstate(all="ignore"):
        f, df = kernel.forward_with_derivative(xs)
    return xs, f, df, [mpmath.mpf(float(x)) for x in xs]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_digamma_of_a_square_is_finite_where_the_square_overflows(backend, dtype):
    xs, f, df, mx = _run("torch.digamma(x**2 + 1)", backend, dtype)
    _assert_rule(
        f, [_psi(x**2 + 1) for x in mx], np.maximum(1, np.abs(xs)), xs, dtype, "f"
    )
    # f' = 2x trigamma(x^2 + 1) -> 2/x: within the rule's absolute part anywhere far
    want_df = [2 * x * mpmath.psi(1, x**2 + 1) for x in mx]
    _assert_rule(df, want_df, np.maximum(1, np.abs(xs)), xs, dtype, "f'")


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lgamma_derivative_is_finite_where_the_square_overflows(backend, dtype):
    xs, _, df, mx = _run("torch.lgamma(x**2 + 0.5)", backend, dtype)
    want = [2 * x * _psi(x**2 + mpmath.mpf(1) / 2) for x in mx]
    big = float(np.finfo(dtype).max)
    want = [w if abs(w) <= big else mpmath.sign(w) * mpmath.inf for w in want]
    # S = max(1, |x|, |x f''|), f'' ~ 2 psi + 4: |x| (2 log|x| + 4) bounds it
    ax = np.abs(xs.astype(np.float64))
    scale = np.maximum(1, ax * (2 * np.log(np.maximum(ax, 1)) + 6))
    finite = np.isfinite([float(w) for w in want])
    assert (
        np.isinf(df[~finite]).all()
        and (np.sign(df[~finite]) == np.sign(xs[~finite])).all()
    )
    _assert_rule(
        df[finite], np.array(want)[finite], scale[finite], xs[finite], dtype, "f'"
    )
