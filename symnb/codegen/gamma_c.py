"""C text of the gamma family for the kernels' prelude (C++ and CUDA alike).

``lgamma`` and ``tgamma`` are the C library's (``lgammaf``/``tgammaf`` in float32; on
glibc ``lgamma_r``, which does not write the global ``signgam`` that OpenMP threads
would race on). ``digamma`` and ``trigamma`` are in no C library; they are written here
once, in the kernel type (float32 CUDA kernels must not compute in double):

* NaN and -inf give NaN, +inf gives +inf (digamma) or 0 (trigamma);
* x <= 0: a pole at the integers (digamma -inf at +0, +inf at -0, NaN at the negative
  integers; trigamma +inf, as SciPy), else the reflection
  psi(x) = psi(1 - x) - pi/tan(pi x), psi1(x) = pi^2/sin(pi x)^2 - psi1(1 - x), with
  pi x reduced exactly (x minus the nearest integer);
* digamma on [1, 2]: a Taylor series about its positive root x0 = 1.4616... in
  (x - x0), x0 given as two floats, so the value keeps its relative accuracy where it
  crosses 0; below 1 one step psi(x) = psi(x + 1) - 1/x, from 2 to SHIFT the steps
  psi(x) = psi(x - 1) + 1/(x - 1) down to [1, 2] (x - 1 is exact there: no rounding of
  the argument, and no cancellation, as the upward recurrence had: 18 ulps at 1.1),
  from SHIFT the asymptotic series in 1/x^2 (Bernoulli numbers);
* trigamma: the recurrence psi1(x) = psi1(x + 1) + 1/x^2 (all terms positive) up to
  x >= SHIFT, then its asymptotic series.

:func:`definitions` gives the helpers' text per dtype; :mod:`symnb.backends.numpy_gamma`
evaluates the same steps with NumPy, and ``tests/codegen/test_gamma_c.py`` measures the
compiled helpers' error in ulps against mpmath.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

#: The positive root of digamma as a float64 pair (hi + lo).
ROOT_HI = 1.4616321449683622
ROOT_LO = 9.549995429965697e-17
#: Taylor coefficients of digamma about its positive root: psi^(k)(x0)/k!, k >= 1.
ROOT_TAYLOR = (
    0.9676722454476212,
    -0.4427631689835921,
    0.258499760955651,
    -0.16394270544240652,
    0.10782405069126237,
    -0.07219956125645471,
    0.04880428816414311,
    -0.03316112647484736,
    0.022597648232218104,
    -0.01542476590494896,
    0.010538791616612175,
    -0.007204534386356869,
    0.004926781395729853,
    -0.003369801655439328,
    0.002305126326734928,
    -0.0015769367714301972,
    0.0010788252019162967,
    -0.0007380709389960052,
    0.000504953265834602,
    -0.0003454680251063077,
    0.00023635601564027053,
    -0.00016170622091974803,
    0.0001106337276874741,
    -7.569179582195066e-05,
    5.178575795222081e-05,
    -3.5430070947659604e-05,
    2.424006611860132e-05,
    -1.6584242271854135e-05,
    1.134638458466385e-05,
    -7.762817668462094e-06,
    5.3110609208898636e-06,
    -3.6336507898010456e-06,
    2.486022733129538e-06,
    -1.7008538854332607e-06,
    1.1636675363548843e-06,
    -7.96142543124197e-07,
    5.446941930669446e-07,
    -3.7266161283438227e-07,
    2.549626552021554e-07,
    -1.7443695117727745e-07,
)
#: Terms of the Taylor series that serves 1 <= x <= 2 (relative error on [1, 2] by
#: mpmath: 6.8e-9 with 18 terms, 1.9e-18 with 40).
ROOT_TERMS = {"float32": 18, "float64": 40}
#: digamma's asymptotic series serves x >= SHIFT (trigamma's: after the recurrence).
SHIFT = {"digamma": 10.0, "trigamma": 12.0}
#: digamma(x) ~ log(x) - 1/(2x) - sum_k B_2k/(2k x^2k): these B_2k/(2k), k = 1..7
DIGAMMA_ASYMPTOTIC = tuple(
    Fraction(n, d)
    for n, d in ((1, 12), (-1, 120), (1, 252), (-1, 240), (1, 132), (-691, 32760))
) + (Fraction(1, 12),)
#: trigamma(x) ~ 1/x + 1/(2x^2) + sum_k B_2k/x^(2k+1): these B_2k, k = 1..7
TRIGAMMA_ASYMPTOTIC = (
    Fraction(1, 6),
    Fraction(-1, 30),
    Fraction(1, 42),
    Fraction(-1, 30),
    Fraction(5, 66),
    Fraction(-691, 2730),
    Fraction(7, 6),
)
PI = 3.141592653589793


def _lit(value: float, dtype: str) -> str:
    """A literal of the kernel type (``0.5F`` or ``0.5``), exactly what it rounds to."""
    if dtype == "float32":
        text = np.format_float_positional(np.float32(value), unique=True, trim="0")
        return text + "F"
    return repr(float(value))


def _horner(var: str, coeffs, dtype: str) -> str:
    """c0 + var*(c1 + var*(... )) of the literals."""
    text = _lit(float(coeffs[-1]), dtype)
    for c in reversed(coeffs[:-1]):
        text = f"{_lit(float(c), dtype)} + {var} * ({text})"
    return text


def root_pair(dtype: str) -> tuple[float, float]:
    """digamma's positive root as hi + lo, both of the kernel type."""
    if dtype == "float64":
        return ROOT_HI, ROOT_LO
    hi = float(np.float32(ROOT_HI))
    return hi, float(np.float32((ROOT_HI - hi) + ROOT_LO))


def definitions(dtype: str) -> dict[str, str]:
    """Helper name -> C text (``SYMNB_FN``, ``symnb_real``: see the kernels)."""
    f = "f" if dtype == "float32" else ""
    one, half, zero = _lit(1, dtype), _lit(0.5, dtype), _lit(0, dtype)
    pi = _lit(PI, dtype)
    taylor = ROOT_TAYLOR[: ROOT_TERMS[dtype]]
    # x - x0 with x0 as a pair of the kernel type (x - hi is exact near x0: Sterbenz)
    hi, lo = root_pair(dtype)
    root = f"(x - {_lit(hi, dtype)}) - {_lit(lo, dtype)}"
    lgamma = f"""SYMNB_FN symnb_real symnb_lgamma(symnb_real x) {{
#if defined(__CUDACC__) || !defined(__GLIBC__)
    return lgamma{f}(x);
#else
    int sign; /* lgamma_r: no write to the global signgam (OpenMP threads) */
    return lgamma{f}_r(x, &sign);
#endif
}}"""
    digamma = f"""SYMNB_FN symnb_real symnb_digamma(symnb_real x) {{
    /* psi(x): see symnb/codegen/gamma_c.py */
    if (!(x == x) || x == -SYMNB_INF) return x - x;
    if (x == SYMNB_INF) return x;
    symnb_real r = {zero};
    if (x <= {zero}) {{
        if (x == floor{f}(x)) return x == {zero} ? -{one} / x : SYMNB_NAN;
        const symnb_real t = x - floor{f}(x + {half});
        r = -{pi} / tan{f}({pi} * t);
        x = {one} - x;
    }}
    symnb_real s = {zero};
    if (x < {_lit(SHIFT["digamma"], dtype)}) {{
        if (x < {one}) {{ /* psi(x) = psi(x + 1) - 1/x */
            s = -{one} / x;
            x += {one};
        }}
        while (x > {_lit(2, dtype)}) {{ /* psi(x) = psi(x - 1) + 1/(x - 1), x - 1 exact */
            x -= {one};
            s += {one} / x;
        }}
        const symnb_real d = {root};
        return r + (s + d * ({_horner("d", taylor, dtype)}));
    }}
    const symnb_real z = {one} / (x * x);
    const symnb_real series = z * ({_horner("z", DIGAMMA_ASYMPTOTIC, dtype)});
    return r + ((log{f}(x) - {half} / x) - series);
}}"""
    trigamma = f"""SYMNB_FN symnb_real symnb_trigamma(symnb_real x) {{
    /* psi'(x): see symnb/codegen/gamma_c.py */
    if (!(x == x) || x == -SYMNB_INF) return x - x;
    if (x == SYMNB_INF) return {zero};
    symnb_real r = {zero};
    bool reflected = false;
    if (x <= {zero}) {{
        if (x == floor{f}(x)) return SYMNB_INF;
        const symnb_real t = x - floor{f}(x + {half});
        const symnb_real q = {pi} / sin{f}({pi} * t);
        r = q * q;
        reflected = true;
        x = {one} - x;
    }}
    symnb_real s = {zero};
    while (x < {_lit(SHIFT["trigamma"], dtype)}) {{
        const symnb_real q = {one} / x;
        s += q * q;
        x += {one};
    }}
    const symnb_real z = {one} / x;
    const symnb_real z2 = z * z;
    const symnb_real tail = z + z2 * ({half} + z * ({_horner("z2", TRIGAMMA_ASYMPTOTIC, dtype)}));
    const symnb_real v = s + tail;
    return reflected ? r - v : v;
}}"""
    return {
        "symnb_lgamma": lgamma,
        "symnb_digamma": digamma,
        "symnb_trigamma": trigamma,
    }


#: Helper names, in definition order.
NAMES = ("symnb_lgamma", "symnb_digamma", "symnb_trigamma")

__all__ = [
    "DIGAMMA_ASYMPTOTIC",
    "NAMES",
    "ROOT_HI",
    "ROOT_LO",
    "ROOT_TAYLOR",
    "TRIGAMMA_ASYMPTOTIC",
    "definitions",
]
