"""The gamma family for the NumPy backend, with the C kernels' values at the edges.

``lgamma`` and ``tgamma`` are SciPy's ``gammaln`` and ``gamma`` where SciPy is
installed (it is optional), else ``math.lgamma``/``math.gamma`` element by element.
``digamma`` and ``trigamma`` evaluate the steps of :mod:`symnb.codegen.gamma_c` (the
C helpers) with NumPy. All compute in float64 and round once to the input's dtype.

Edge values as the C kernels (and PyTorch) give them: lgamma(-inf) = +inf (SciPy:
-inf) and lgamma(u) = -log|u| for |u| < 1e-300 (SciPy's gammaln is +inf below about
1e-308, where the value is about 709); the poles as :mod:`symnb.formula.gamma` lists.
"""

from __future__ import annotations

import math

import numpy as np

from symnb.codegen import gamma_c

try:
    from scipy import special as _special
except ImportError:  # pragma: no cover - SciPy is optional
    _special = None


def _float64(u) -> tuple[np.ndarray, np.dtype]:
    u = np.asarray(u)
    dtype = u.dtype if u.dtype.kind == "f" else np.dtype(np.float64)
    return u.astype(np.float64), dtype


def _elementwise(fn, pole):
    """``fn`` of math applied to each element, ``pole(u)`` where it raises."""

    def one(v: float) -> float:
        try:
            return fn(v)
        except ValueError:
            return pole(v)
        except OverflowError:
            return math.inf

    return np.vectorize(one, otypes=[np.float64])


def _lgamma_pole(v: float) -> float:
    return math.nan if math.isnan(v) else math.inf


def _tgamma_pole(v: float) -> float:
    if v == 0.0:
        return math.copysign(math.inf, v)
    return math.nan  # negative integers, -inf


def lgamma(u):
    """log|Gamma(u)| (C's lgamma)."""
    x, dtype = _float64(u)
    with np.errstate(all="ignore"):
        if _special is not None:
            out = _special.gammaln(x)
            out = np.where(x == -np.inf, np.inf, out)
            tiny = (np.abs(x) < 1e-300) & (x != 0)
            out = np.where(tiny, -np.log(np.abs(np.where(tiny, x, 1.0))), out)
        else:
            out = _elementwise(math.lgamma, _lgamma_pole)(x)
        return np.asarray(out).astype(dtype)


def tgamma(u):
    """Gamma(u) (C's tgamma: +-inf at +-0, NaN at the negative integers and -inf)."""
    x, dtype = _float64(u)
    with np.errstate(all="ignore"):
        if _special is not None:
            out = _special.gamma(x)
        else:
            out = _elementwise(math.gamma, _tgamma_pole)(x)
        return np.asarray(out).astype(dtype)


def _series(z: np.ndarray, coeffs) -> np.ndarray:
    acc = np.full_like(z, float(coeffs[-1]))
    for c in reversed(coeffs[:-1]):
        acc = float(c) + z * acc
    return acc


def _reflect(x: np.ndarray, trig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x or 1 - x, the reflection term, where x was reflected) for x <= 0."""
    neg = x <= 0
    t = np.where(neg, x - np.floor(x + 0.5), 0.25)
    term = np.where(neg, trig(math.pi * t), 0.0)
    return np.where(neg, 1.0 - x, x), term, neg


def digamma(u):
    """psi(u), the steps of the C helper ``symnb_digamma`` in float64."""
    x, dtype = _float64(u)
    with np.errstate(all="ignore"):
        pole = (x <= 0) & (x == np.floor(x))
        y, r, _ = _reflect(np.where(pole, 0.5, x), lambda a: -math.pi / np.tan(a))
        shift = gamma_c.SHIFT["digamma"]
        small = y < shift
        s = np.where(y < 1, -1.0 / y, 0.0)
        w = np.where(small, np.where(y < 1, y + 1.0, y), 1.5)
        for _ in range(int(shift) - 1):  # down to [1, 2]: w - 1 is exact
            down = w > 2
            w = np.where(down, w - 1.0, w)
            s = np.where(down, s + 1.0 / w, s)
        d = (w - gamma_c.ROOT_HI) - gamma_c.ROOT_LO
        terms = gamma_c.ROOT_TAYLOR[: gamma_c.ROOT_TERMS["float64"]]
        near = s + d * _series(d, terms)
        z = 1.0 / (y * y)
        far = (np.log(y) - 0.5 / y) - z * _series(z, gamma_c.DIGAMMA_ASYMPTOTIC)
        out = r + np.where(small, near, far)
        out = np.where(pole, np.where(x == 0, -1.0 / x, np.nan), out)
        out = np.where(np.isinf(x), np.where(x > 0, np.inf, np.nan), out)
        out = np.where(np.isnan(x), x, out)
        return out.astype(dtype)


def trigamma(u):
    """psi'(u), the steps of the C helper ``symnb_trigamma`` in float64."""
    x, dtype = _float64(u)
    with np.errstate(all="ignore"):
        pole = (x <= 0) & (x == np.floor(x))
        y, r, reflected = _reflect(
            np.where(pole, 0.5, x), lambda a: (math.pi / np.sin(a)) ** 2
        )
        s = np.zeros_like(y)
        for _ in range(int(gamma_c.SHIFT["trigamma"]) + 1):
            low = y < gamma_c.SHIFT["trigamma"]
            q = 1.0 / y
            s = np.where(low, s + q * q, s)
            y = np.where(low, y + 1.0, y)
        z = 1.0 / y
        z2 = z * z
        v = s + (z + z2 * (0.5 + z * _series(z2, gamma_c.TRIGAMMA_ASYMPTOTIC)))
        out = np.where(reflected, r - v, v)
        out = np.where(pole, np.inf, out)
        out = np.where(np.isinf(x), np.where(x > 0, 0.0, np.nan), out)
        out = np.where(np.isnan(x), x, out)
        return out.astype(dtype)


#: name -> NumPy function, for the backend's namespace
FUNCTIONS = {
    "lgamma": lgamma,
    "tgamma": tgamma,
    "digamma": digamma,
    "trigamma": trigamma,
}

__all__ = ["FUNCTIONS", "digamma", "lgamma", "tgamma", "trigamma"]
