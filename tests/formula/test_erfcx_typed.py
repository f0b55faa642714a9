"""``erfcx(x)`` typed bare, as SciPy and PyTorch name it (``scipy.special.erfcx``).

erfcx became a built-in function with its own kernels, yet typing ``erfcx(x)`` was
refused ("did you mean erf"). f = exp(x^2) erfc(x) and f' = 2x erfcx(x) - 2/sqrt(pi)
are checked against mpmath at 50 digits, in float64, on numpy and cpp.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import symnb
from tests.conftest import backend_params

XS = [-20.0, -3.0, -0.5, 0.0, 1e-8, 0.7, 2.0, 30.0, 1e10, 1e300]


def _reference(x: float, beta: float) -> tuple[float, float]:
    with mpmath.workdps(50):
        u = mpmath.mpf(beta) * mpmath.mpf(x)
        f = mpmath.exp(u**2) * mpmath.erfc(u)
        return float(beta * f), float(
            beta**2 * (2 * u * f - 2 / mpmath.sqrt(mpmath.pi))
        )


@pytest.mark.parametrize(
    "backend", [b for b in backend_params() if "cuda" not in str(b)]
)
@pytest.mark.parametrize("beta", [1.0, 1.5])
def test_erfcx_typed_bare_matches_mpmath(beta, backend):
    act = symnb.Activation("beta*erfcx(beta*x)", beta=beta)
    assert "erfcx" in act.latex
    y, d = act.compile(backend, dtype="float64").forward_with_derivative(np.array(XS))
    for i, x in enumerate(XS):
        f, df = _reference(x, beta)
        assert y[i] == pytest.approx(f, rel=1e-13, abs=1e-300), x
        assert d[i] == pytest.approx(df, rel=1e-11, abs=1e-300), x
