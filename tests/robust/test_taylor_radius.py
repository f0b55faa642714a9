"""The Taylor regime at a removable point covers the whole region where the direct
formula cancels, not only up to the first point where rounding happened to meet the rule.

``sin(x)/x + 0.1*x``: f' = cos(x)/x - sin(x)/x**2 + 0.1 cancels near 0. The radius of
the Taylor branch was bisected on the direct form, whose error there is rounding noise:
it met the rule at 0.0098 in float32 and the branch ended at 0.0196, but at
x = 0.0215443 (a corpus sample point) f' was 0.0928154 against 0.0928189 (allowed
2.9e-6). The radius now comes from the polynomial's own (smooth) truncation error.

``(tanh(x) - x)/x**3``: its f' cancels in float32 up to |x| = 0.3 and is good from 1,
where the degree-7 polynomial is not (tanh's series converges only to pi/2); the search
asked the polynomial to be good at 1 too and made no Taylor branch at all (f' -1.26
instead of -0.0012 at x = -0.0046). The polynomial must now be good up to the last
distance where the direct form is bad; the boundary between is bisected and checked.

The references are SymPy + mpmath (``tests/robust/corpus_reference.py``); the points are
a dense log grid of both signs around the removable point.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.corpus import Published
from tests.robust.corpus_reference import reference, violations

CASES = (
    Published("sinc_plus_linear", "sin(x)/x + 0.1*x", "test", removable=(0.0,)),
    Published("sinc_twice", "2*sin(x)/x", "test", removable=(0.0,)),
    Published(
        "one_minus_cos_plus_x", "(1 - cos(x))/x**2 + x", "test", removable=(0.0,)
    ),
    Published("tanh_over_x_plus_x", "tanh(x)/x + x", "test", removable=(0.0,)),
    Published("tanh_minus_x_over_cube", "(tanh(x) - x)/x**3", "test", removable=(0.0,)),
)


def _points(dtype: str, x0: float = 0.0) -> np.ndarray:
    mags = np.geomspace(1e-4, 1.0, 161)
    xs = np.concatenate([x0 + mags, x0 - mags]).astype(dtype)
    return np.unique(xs)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=lambda e: e.name)
def test_derivative_near_a_removable_point_meets_the_rule(entry, dtype, backend):
    xs = _points(dtype, entry.removable[0])
    ref = reference(entry, xs.astype(np.float64))
    kernel = symnb.Activation(entry.text).compile(backend=backend, dtype=dtype)
    with np.errstate(all="ignore"):
        y, dy = kernel.forward_with_derivative(xs)
    for what, got, r, s, settled in (
        ("f", y, ref.f, ref.scale_f, ref.settled_f),
        ("f'", dy, ref.df, ref.scale_df, ref.settled_df),
    ):
        bad = violations(got, r, s, dtype) & settled
        assert not bad.any(), (
            f"{entry.text} {what} on {backend} {dtype}: {int(bad.sum())} points, e.g. "
            + ", ".join(
                f"x={x:.6g} got={g!r} ref={v!r}"
                for x, g, v in zip(xs[bad][:4], np.asarray(got)[bad][:4], r[bad][:4])
            )
        )
