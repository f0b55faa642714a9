"""C text of erfcx(u) = exp(u^2)*erfc(u) and ierfcx(u) = 1/sqrt(pi) - u*erfcx(u)
(erfcx' = -2 ierfcx) for the kernels' prelude (C++ and CUDA).

CUDA has ``erfcx``/``erfcxf`` in its math library (4 ulps at most, NVIDIA's table);
the C library has none, so C++ kernels evaluate, in double (float32 rounds once at the
end):

* erfcx, u <= TAIL (4): erfc(u)*exp(u^2), with u^2 = h + l exactly (``fma``) and
  exp(h + l) = exp(h)*(1 + l), so the rounding of u^2 (which exp multiplies by u^2:
  8 ulps at u = 4) is not lost; below -27 it is +inf (exp(u^2) overflows, as the
  value does);
* erfcx, u > TAIL: 1/(sqrt(pi) u) * Q(t)/(Q(t) + t P(t)), t = 1/u^2, the continued
  fraction of :mod:`symnb.formula.log_erfc` as one quotient with positive
  coefficients (relative error below 2^-60 from u = 4 on), finite for every u > 4
  (erfc underflows from u = 26.5 and exp(u^2) overflows there: inf*0 = NaN);
* ierfcx: 1/sqrt(pi) - u*erfcx(u) up to TAIL, (1/sqrt(pi)) t P(t)/(Q(t) + t P(t))
  past it (the difference would lose all its digits: it tends to 1/(2 sqrt(pi) u^2)).

CUDA kernels use the same steps in the kernel type around its erfcx/erfcxf.
``tests/robust/test_compile_latency15.py`` measures the helpers in ulps against mpmath.
"""

from __future__ import annotations

from symnb.codegen.gamma_c import _horner, _lit
from symnb.formula.log_erfc import TAIL, _tail_coefficients

#: 1/sqrt(pi), rounded to double (divided by u, not sqrt(pi)*u: that overflows for u
#: past 1e308, and erfcx(u) there is subnormal, not 0).
_RSQRTPI = 0.5641895835477563


def _tail_quotient(dtype: str, real: str) -> str:
    """C statements: t, tp = t P(t), q = Q(t) of u in type ``real``."""
    p, q = _tail_coefficients()
    return f"""const {real} t = {_lit(1, dtype)} / (u * u);
    const {real} tp = t * ({_horner("t", p, dtype)});
    const {real} q = {_horner("t", q, dtype)};"""


def _cpu_core() -> str:
    tail = float(TAIL)
    return f"""#ifndef __CUDACC__
SYMNB_FN double symnb_erfcx_d(double u) {{
    if (u <= {tail!r}) {{
        if (u < -27.0) return HUGE_VAL;
        const double h = u * u;
        const double l = fma(u, u, -h);
        return erfc(u) * (exp(h) * (1.0 + l));
    }}
    {_tail_quotient("float64", "double")}
    return q / (q + tp) * ({_RSQRTPI!r} / u);
}}

SYMNB_FN double symnb_ierfcx_d(double u) {{
    if (u <= {tail!r}) return {_RSQRTPI!r} - u * symnb_erfcx_d(u);
    {_tail_quotient("float64", "double")}
    return {_RSQRTPI!r} * tp / (q + tp);
}}
#endif"""


def definitions(dtype: str) -> dict[str, str]:
    """Helper name -> C text (``SYMNB_FN``, ``symnb_real``: see the kernels)."""
    f32 = dtype == "float32"
    cuda = "erfcxf" if f32 else "erfcx"
    cast = "(float)" if f32 else ""
    arg = "(double)u" if f32 else "u"
    tail = _lit(float(TAIL), dtype)
    return {
        "symnb_erfcx_d": _cpu_core(),
        "symnb_erfcx": f"""SYMNB_FN symnb_real symnb_erfcx(symnb_real u) {{
#ifdef __CUDACC__
    return {cuda}(u);
#else
    return {cast}symnb_erfcx_d({arg});
#endif
}}""",
        "symnb_ierfcx": f"""SYMNB_FN symnb_real symnb_ierfcx(symnb_real u) {{
#ifdef __CUDACC__
    if (u <= {tail}) return {_lit(_RSQRTPI, dtype)} - u * {cuda}(u);
    {_tail_quotient(dtype, "symnb_real")}
    return {_lit(_RSQRTPI, dtype)} * tp / (q + tp);
#else
    return {cast}symnb_ierfcx_d({arg});
#endif
}}""",
    }


NAMES = ("symnb_erfcx_d", "symnb_erfcx", "symnb_ierfcx")
#: Helper -> the helpers it calls.
NEEDS = {"symnb_erfcx": ("symnb_erfcx_d",), "symnb_ierfcx": ("symnb_erfcx_d",)}

__all__ = ["NAMES", "NEEDS", "definitions"]
