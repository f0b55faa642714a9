"""Vector math of our own for the generated C++: exp, expm1, log, log1p, tanh.

Why: glibc's libmvec is reached only through a call per vector of elements, so g++
cannot fuse it with the formula around it. These definitions are plain inline C
(bit casts through ``__builtin_memcpy``, selects instead of branches) that g++ -O3
vectorises under ``#pragma omp simd`` and inlines into each kernel loop, at whatever
vector width the backend's ISA level offers (``-march=x86-64-v4``: AVX-512, see
:mod:`symnb.backends.cpp`). No ``-ffast-math`` is needed.

Measured (1 thread, n = 1e6, float32, against the same kernels calling libmvec): silu,
gelu_tanh, softplus, elu 1.4-2x faster forward and fwd+bwd; max error 1.05 ulp (exp),
0.50 ulp (expm1, log, log1p, tanh: double cores), where libmvec's float
variants reached 2.4, 2.3, 3.8, 1.6 and 1.4 ulp.

Methods (coefficients: Chebyshev fits in mpmath at 50 digits, see :func:`fit`):

* ``exp``/``expm1``: Cody-Waite reduction ``x = k ln2 + r``, ``|r| <= ln2/2``,
  ``expm1(r) = r + r^2 Q(r)``; ``2^k`` is applied as two factors (exp) or as
  ``2 (t u + (t - 1/2))`` with ``t = 2^(k-1)`` (expm1), so overflow gives inf and
  results down to the subnormals come out of one final rounding.
* ``exp_neg``/``expm1_neg``: the same for arguments known to be <= 0 (``exp(-|u|)`` in
  sigmoid and softplus, elu's negative branch), without the overflow handling.
* float32 ``log``/``log1p``/``tanh``/``expm1`` are computed in double internally from an
  exact reduced argument and rounded once to float (about 0.5 ulp): ``log1p(f) = f -
  f^2/2 + f^3 P(f)`` on ``[sqrt(1/2)-1, sqrt(2)-1]``; ``tanh(x) = e/(e+2)``, ``e =
  expm1(2|x|)``; ``expm1`` by the double reduction of ``symnb_vm_expm1_d``.
* float32 ``expm1_neg`` (elu/celu/selu's negative branch) stays in float, its roundings
  carried as exact-sum pairs: 0.71 ulp at most over every float in [-25, 0] (0.81
  without FMA; the double core: 0.51; PyTorch's elu 0.46), within the float32 rule
  (faithful, or no worse than PyTorch) at 1.6x the double core's speed.
* float32 sigmoid and softplus/logsigmoid (``symnb_vm_sigmoid_f``,
  ``symnb_vm_log1p_exp_f``, used by the printer) stay in float (16 lanes) with
  ``exp(-|x|)`` as an exact-sum pair ``eh + el`` and one correction step: 0.65 and
  0.99 ulps (PyTorch 1.14 and 1.45), 1.5-2x faster than the double cores.
* float64 ``log``/``log1p``/``tanh`` stay with libm (libmvec's vector variants).

Special values match C99: NaN in, NaN out; ``exp(+inf) = inf``, ``exp(-inf) = 0``,
``expm1(-inf) = -1``, ``log(0) = -inf``, ``log(x < 0) = NaN``, ``log1p(-1) = -inf``;
``-0.0`` keeps its sign where C keeps it (expm1, log1p, tanh). Subnormal inputs and
results are exact to the last bit a one-rounding result allows (no flush to zero).

Under CUDA (``__CUDACC__``) every function falls back to the device library
(``expf``...), so the prelude stays shared by both dialects.
"""

from __future__ import annotations

import functools

#: The public helper names (C) and the C library function each replaces.
FUNCTIONS = {
    "exp": "symnb_exp",
    "expm1": "symnb_expm1",
    "log": "symnb_log",
    "log1p": "symnb_log1p",
    "tanh": "symnb_tanh",
}

# Q(r) = (exp(r) - 1 - r) / r^2 on [-ln2/2, ln2/2], ascending powers.
# float32: degree 4 (|error| 6.5e-8 in Q, ~2e-8 relative in expm1(r): 0.2 ulp)
_Q32 = (
    "0.5F",
    "0.16666577025597988F",
    "0.041666554662050534F",
    "0.0083631730745137109F",
    "0.0013926176119935579F",
)
# float64: degree 10 (|error| 1.4e-18 in Q)
_Q64 = (
    "0.5",
    "0.16666666666666670986",
    "0.041666666666666669752",
    "0.008333333333326140884",
    "0.0013888888888883752417",
    "0.00019841269874800491981",
    "0.000024801587325533363819",
    "2.7557255425746434282e-6",
    "2.7557273661348636219e-7",
    "2.5105206373957011116e-8",
    "2.09146793765839351e-9",
)
# expm1: the same Q on [-ln2/2, ln2] (k = 0 for 0 <= x < ln2: no cancellation in
# 2^k (1 + u) - 1 at k = 1): float32 degree 5 (|error| 1.9e-8), float64 degree 11
# (|error| 2.6e-18)
_Q32_M1 = (
    "0.49999999221226772312F",
    "0.16666685431955322901F",
    "0.041667202809082920646F",
    "0.0083284426074413582463F",
    "0.0013870914442118117125F",
    "0.00022730749741600435883F",
)
_Q64_M1 = (
    "0.5000000000000000014909",
    "0.1666666666666667163742",
    "0.04166666666666620521259",
    "0.008333333333328716262768",
    "0.001388888888915289731454",
    "0.0001984126985163497543075",
    "0.00002480158672384252749433",
    "0.0000027557313449343891745",
    "2.755784794989443876966e-7",
    "2.504901751288405638553e-8",
    "2.071984373881281008643e-9",
    "1.870513388068270873323e-10",
)
# the double core of float32 tanh: degree 6 (|error| 2.7e-11 in Q)
_QD_LOW = (
    "0.5",
    "0.16666666718997508523",
    "0.041666666718980846436",
    "0.0083332984837548860262",
    "0.0013888854049614818824",
    "0.00019899273958649360158",
    "0.000024859578222625294832",
)
# the double reduction of float32 expm1 (elu/celu): degree 5 (|error| 1.4e-9 in Q,
# ~2e-10 relative in expm1(r): 0.003 ulp of float32)
_QD_5 = (
    "0.5000000013457727",
    "0.16666666681614256",
    "0.04166646500604005",
    "0.008333310934448869",
    "0.0013933641031986701",
    "0.00019890980869750327",
)
# P(f) = (log1p(f) - f + f^2/2) / f^3 on [sqrt(1/2)-1, sqrt(2)-1]: degree 9 (|error|
# 4.6e-9 in P, < 1e-9 relative in log1p(f)), evaluated in double for float32
_PD_LOG = (
    "0.33333333281199244371",
    "-0.24999990275042185061",
    "0.20000010039684972032",
    "-0.16668001523071927532",
    "0.14286524547786642451",
    "-0.12450743320911725505",
    "0.1103778335905502028",
    "-0.10646191638199633969",
    "0.10530864738938344648",
    "-0.062015001190183343274",
)

#: _QD_5 as float32 literals (elu's float expm1: the degree-4 _Q32's 6.5e-8 cost up to
#: 0.37 ulp of expm1 near r = -ln2/2, 1.02 ulps in all)
_Q32_5 = tuple(c + "F" for c in _QD_5)

#: _PD_LOG as float32 literals (softplus' float log1p)
_P32_LOG = tuple(c + "F" for c in _PD_LOG)


def horner(var: str, coeffs: tuple[str, ...]) -> str:
    """``c0 + var*(c1 + var*(...))`` as C text (ascending coefficients)."""
    text = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        text = f"({c} + {var} * {text})"
    return text


_BITS = """#ifndef __CUDACC__
SYMNB_FN float symnb_vm_f32(unsigned int i) {
    float f;
    __builtin_memcpy(&f, &i, sizeof f);
    return f;
}
SYMNB_FN unsigned int symnb_vm_u32(float f) {
    unsigned int i;
    __builtin_memcpy(&i, &f, sizeof i);
    return i;
}
SYMNB_FN double symnb_vm_f64(unsigned long long i) {
    double f;
    __builtin_memcpy(&f, &i, sizeof f);
    return f;
}
SYMNB_FN unsigned long long symnb_vm_u64(double f) {
    unsigned long long i;
    __builtin_memcpy(&i, &f, sizeof i);
    return i;
}
#endif"""

# Cody-Waite for float32: ln2 = LN2_HI + LN2_LO, LN2_HI with 12 significant bits, so
# k * LN2_HI is exact for |k| < 2^12; z = x/ln2 + 1.5*2^23 holds k in its low bits.
_EXP32_REDUCE = """    const float z = xc * 1.44269504F + 12582912.0F;
    const float k = KSELECT(z - 12582912.0F);
    const float r = (xc - k * 0.693145751953125F) - k * 1.42860677e-6F;
    const float u = r + r * r * QPOLY;  /* expm1(r) */
    const int KINT;"""

_EXP32 = (
    """SYMNB_FN float symnb_exp(float x) {
#ifdef __CUDACC__
    return expf(x);
#else
    /* beyond the clamps the result is 0 or inf; NaN passes them */
    const float xc = x > 88.8F ? 88.8F : (x < -104.0F ? -104.0F : x);
"""
    + _EXP32_REDUCE
    + """
    /* 2^k = 2^k1 2^k2 with both factors normal for k in [-150, 128] */
    const int k1 = (int)((unsigned int)(ki + 256) >> 1) - 128;
    const float s1 = symnb_vm_f32((unsigned int)(k1 + 127) << 23);
    const float s2 = symnb_vm_f32((unsigned int)(ki - k1 + 127) << 23);
    return ((u + 1.0F) * s1) * s2;
#endif
}"""
)

_EXP_NEG32 = (
    """SYMNB_FN float symnb_exp_neg(float x) {
#ifdef __CUDACC__
    return expf(x);
#else
    /* exp(x) for x <= 0 or NaN (sigmoid, softplus: exp(-|u|)), cheaper than
       symnb_exp: no overflow, and 2^k = 2^(k+25) 2^-25 with (1+u) 2^(k+25) normal
       for k >= -150, so the last product is the only rounding */
    const float xc = x < -104.0F ? -104.0F : x;
"""
    + _EXP32_REDUCE
    + """
    (void)ki;
    const float s = symnb_vm_f32((symnb_vm_u32(z) + (152u - 0x4b400000u)) << 23);
    return ((u + 1.0F) * s) * 2.98023224e-8F;
#endif
}"""
)

_EXPM1_NEG32 = (
    """SYMNB_FN float symnb_expm1_neg(float x) {
#ifdef __CUDACC__
    return expm1f(x);
#else
    /* expm1(x) for x <= 0 or NaN (elu's negative branch) in float (16 lanes), with the
       roundings carried: expm1(r) = uh + ul (Fast2Sum), 2^k uh + (2^k - 1) = s + e
       (Fast2Sum: |2^k - 1| >= |2^k uh| for k <= 0); max 0.71 ulp over every float in
       [-25, 0] (exhaustive, against double expm1; 0.81 without FMA), 1.6x faster than
       the double core; below -25 it rounds to -1 */
    const float xc = x < -25.0F ? -25.0F : x;
    const float z = xc * 1.44269504F + 12582912.0F;
    const float k = z - 12582912.0F;
    const float r = (xc - k * 0.693145751953125F) - k * 1.42860677e-6F;
    const float p = r * r * QPOLY;
    const float uh = r + p;
    const float ul = p - (uh - r);
    const float t = symnb_vm_f32((symnb_vm_u32(z) + (127u - 0x4b400000u)) << 23);
    const float a = t - 1.0F;
    const float b = t * uh;
    const float s = a + b;
    const float y = s + (((a - s) + b) + t * ul);
    /* |x| < 2^-24: expm1(x) rounds to x (-0 and subnormals kept exactly) */
    return fabsf(x) < 5.96046448e-8F ? x : y;
#endif
}"""
)

_EXPM1_32 = """SYMNB_FN float symnb_expm1(float x) {
#ifdef __CUDACC__
    return expm1f(x);
#else
    /* in double, rounded once: below -25 the result rounds to -1, from 89 on (float)
       overflows to inf; NaN passes the clamps */
    const double xc = x > 89.0F ? 89.0 : (x < -25.0F ? -25.0 : (double)x);
    const float y = (float)symnb_vm_expm1_d(xc);
    /* |x| < 2^-24: expm1(x) rounds to x (-0 and subnormals kept exactly) */
    return fabsf(x) < 5.96046448e-8F ? x : y;
#endif
}"""

_LOG_CORE_D = """#ifndef __CUDACC__
SYMNB_FN double symnb_vm_log_core(double f, double k) {
    /* k ln2 + log1p(f) for f in [sqrt(1/2)-1, sqrt(2)-1], in double */
    const double f2 = f * f;
    const double p = PPOLY;
    return k * 0.69314718055994531 + (f + f2 * (f * p - 0.5));
}
#endif"""

_LOG32 = """SYMNB_FN float symnb_log(float x) {
#ifdef __CUDACC__
    return logf(x);
#else
    /* x = 2^e m, m in [sqrt(1/2), sqrt(2)); subnormals are scaled by 2^24 first */
    const bool sub = x < 1.17549435e-38F;
    const float xs = sub ? x * 16777216.0F : x;
    const unsigned int ix = symnb_vm_u32(xs) - 0x3f3504f3u;
    const int e = (int)ix >> 23;
    const float m = symnb_vm_f32((ix & 0x007fffffu) + 0x3f3504f3u);
    const double k = (double)(e - (sub ? 24 : 0));
    const float y = (float)symnb_vm_log_core((double)m - 1.0, k);
    return (x > 0.0F && x < SYMNB_INF) ? y
        : (x == 0.0F ? -SYMNB_INF : (x < 0.0F ? SYMNB_NAN : x));
#endif
}"""

_LOG1P32 = """SYMNB_FN float symnb_log1p(float x) {
#ifdef __CUDACC__
    return log1pf(x);
#else
    /* 1 + x = 2^e m, m in [sqrt(1/2), sqrt(2)); f = m - 1 = x 2^-e + (2^-e - 1) is
       exact in double. From 2^24 on, 1 + x == x and log1p(x) = log(x) in float. */
    const bool big = x >= 16777216.0F;
    const float u = big ? x : 1.0F + x;
    const unsigned int iu = symnb_vm_u32(u) - 0x3f3504f3u;
    const int e = (int)iu >> 23;
    const float m = symnb_vm_f32((iu & 0x007fffffu) + 0x3f3504f3u);
    const double s = (double)symnb_vm_f32((unsigned int)(127 - e) << 23);
    const double f = big ? (double)m - 1.0 : (double)x * s + (s - 1.0);
    const float y = (float)symnb_vm_log_core(f, (double)e);
    return (x > -1.0F && x < SYMNB_INF) ? (x == 0.0F ? x : y)
        : (x == -1.0F ? -SYMNB_INF : (x < -1.0F ? SYMNB_NAN : x));
#endif
}"""

_EXPM1_CORE_D = """#ifndef __CUDACC__
SYMNB_FN double symnb_vm_expm1_core(double a) {
    /* expm1(a) for 0 <= a <= 20 in double, relative error ~1e-10 */
    const double z = a * 1.4426950408889634 + 6755399441055744.0;
    const double k = z - 6755399441055744.0;
    const double r = (a - k * 0.69314718036912382) - k * 1.9082149292705877e-10;
    const double u = r + r * r * QPOLY;
    const double t = symnb_vm_f64((symnb_vm_u64(z) + 1023u) << 52);
    return t * u + (t - 1.0);
}
#endif"""

# Double cores of the float32 helpers that chain exp/log (expm1, exp(-|u|) with log1p,
# sigmoid): each computes in double and rounds once, so the float32 result is within
# ~0.5 ulp (a float32 chain rounds two or three times: up to 1.7 ulps).
# x = k ln2 + r (double Cody-Waite), u = expm1(r), t = 2^k (normal in double)
_REDUCE_D = """    const double z = x * 1.4426950408889634 + 6755399441055744.0;
    const double k = z - 6755399441055744.0;
    const double r = (x - k * 0.69314718036912382) - k * 1.9082149292705877e-10;
    const double u = r + r * r * QPOLY;
    const double t = symnb_vm_f64((symnb_vm_u64(z) + 1023u) << 52);"""

_EXP_D = """#ifndef __CUDACC__
SYMNB_FN double symnb_vm_expm1_d(double x) {
    /* expm1(x) for -120 <= x <= 89 (callers clamp; NaN passes), relative error ~1e-10:
       x = k ln2 + r, u = expm1(r), t = 2^k normal in double. Cost (1 thread, 1e6,
       CPU time): elu f 0.31 -> 0.57 ms against the float expm1 */
REDUCE_D
    return t * u + (t - 1.0);
}
SYMNB_FN double symnb_vm_exp_d(double x) {
    /* exp(x) for -120 <= x <= 89, as symnb_vm_expm1_d */
REDUCE_D
    return t * u + t;
}
SYMNB_FN double symnb_vm_log1p_d(double e) {
    /* log1p(e) for 0 <= e <= 1 (softplus' tail): 1 + e = 2^k (1 + f), f in the
       log core's interval; (e - 1)/2 is exact enough (relative 1e-16) */
    const bool hi = e > 0.41421356237309503;
    return symnb_vm_log_core(hi ? (e - 1.0) * 0.5 : e, hi ? 1.0 : 0.0);
}
#endif""".replace("REDUCE_D", _REDUCE_D)

# e = exp(-|x|) in float as eh + el: Fast2Sum of 1 + expm1(r), scaled by 2^k exactly
# (2^(k+25) 2^-25, both products exact while e is normal); |x| beyond 104: e is 0 in
# float; NaN passes. Shared text, so a kernel using sigmoid and softplus computes it once.
_EXP_NEG_HL32 = """    const float ax = fabsf(x);
    const float xc = ax > 104.0F ? -104.0F : -ax;
    const float z = xc * 1.44269504F + 12582912.0F;
    const float k = z - 12582912.0F;
    const float r = (xc - k * 0.693145751953125F) - k * 1.42860677e-6F;
    const float u = r + r * r * QPOLY;  /* expm1(r) */
    const float v = 1.0F + u;
    const float vl = (1.0F - v) + u;  /* 1 + u = v + vl exactly (|u| < 1) */
    const float s = symnb_vm_f32((symnb_vm_u32(z) + (152u - 0x4b400000u)) << 23);
    const float eh = (v * s) * 2.98023224e-8F;
    const float el = (vl * s) * 2.98023224e-8F;"""

# float32 sigmoid and log1p(exp(-|x|)) on that e, in float arithmetic (16 lanes, not
# the double cores' 8). sigmoid: d + dl = 1 + eh and one correction step on q = n/d (the
# residual by fma): max 0.65 ulps where the plain float chain 1/(1+e), e/(1+e) is up to
# 1.46 (PyTorch's sigmoid as softplus' f': 1.14); el would give 0.57 at +16% time.
# symnb_vm_sigmoid_mul_f is that plain chain, for a sigmoid times a variable factor.
# log1p: in float from eh + el, max 0.99 ulps (PyTorch's softplus 1.45).
_SIGMOID32 = """#ifndef __CUDACC__
SYMNB_FN float symnb_vm_sigmoid_f(float x) {
EXP_NEG_HL
    const float d = 1.0F + eh;
    const float dl = (1.0F - d) + eh;  /* 1 + eh = d + dl */
    const bool pos = x >= 0.0F;
    const float n = pos ? 1.0F : eh;
    const float ri = 1.0F / d;
    const float q = n * ri;
    const float rem = __builtin_fmaf(-q, d, n);  /* n - q d */
    (void)el;
    /* below 2^-25, dl = eh and the sigmoid rounds to 1 or to eh whether q dl (eh^2
       when x < 0) is subtracted or not: left out, it cannot underflow (a subnormal
       product costs a microcode assist of ~100 cycles for the whole vector: gelu_tanh's
       f' at |x| > 6.7, a third of the vectors of N(0, 3) data, fwd+bwd 1e5 117 ->
       93 us; as a masked FMA, one instruction more per vector elsewhere). The same
       bits for every float (exhaustive, tests/codegen/test_vecmath) */
    const float cr = eh < 2.98023224e-8F ? rem : rem - q * dl;  /* a masked FMA */
    return __builtin_fmaf(cr, ri, q);
}
SYMNB_FN float symnb_vm_sigmoid_mul_f(float x) {
    /* the plain chain n / (1 + e), up to 1.46 ulps, for a sigmoid that is a factor of a
       product (x*sigmoid(x)): 24% less time for silu's forward (1e6, one thread) */
EXP_NEG_HL
    (void)el;
    return (x >= 0.0F ? 1.0F : eh) / (1.0F + eh);
}
SYMNB_FN float symnb_vm_log1p_exp_f(float x, float a, float sg) {
    /* a + sg log1p(exp(-|x|)), sg = +-1 (softplus, logsigmoid): 1 + e = 2^j (1 + f + fl),
       f + fl exact, f in the log core's interval; the log is ah + al with ah exact
       (ln2_hi + f: multiples of 2^-25, < 1/2), a + sg ah summed exactly (TwoSum) */
EXP_NEG_HL
    const bool hi = eh > 0.41421356F;
    const float t = eh - 1.0F;
    const float tl = eh - (t + 1.0F);  /* eh - 1 = t + tl exactly */
    const float f = hi ? t * 0.5F : eh;
    const float fl = hi ? (tl + el) * 0.5F : el;
    const float f2 = f * f;
    const float p = PPOLY;
    /* log1p(f + fl) = log1p(f) + fl / (1 + f), the quotient to second order */
    const float lo_sum = f2 * (f * p - 0.5F) + fl * (1.0F - f + f2);
    const float ah = sg * (hi ? 0.693145751953125F + f : f);
    const float al = sg * (hi ? lo_sum + 1.42860677e-6F : lo_sum);
    const float h = a + ah;
    const float bv = h - a;
    const float err = (a - (h - bv)) + (ah - bv);  /* a + ah = h + err */
    return fabsf(a) == SYMNB_INF ? a : h + (err + al);
}
#endif""".replace("EXP_NEG_HL", _EXP_NEG_HL32)

_TANH32 = """SYMNB_FN float symnb_tanh(float x) {
#ifdef __CUDACC__
    return tanhf(x);
#else
    /* tanh|x| = e / (e + 2), e = expm1(2|x|), in double; from |x| = 10 on it is 1 */
    const float ax = fabsf(x);
    const double a = 2.0 * (double)(ax < 10.0F ? ax : 10.0F);  /* NaN: 20 */
    const double e = symnb_vm_expm1_core(a);
    return x != x ? x : copysignf((float)(e / (e + 2.0)), x);
#endif
}"""

_EXP64_REDUCE = """    const double z = xc * 1.4426950408889634 + 6755399441055744.0;
    const double k = KSELECT(z - 6755399441055744.0);
    /* LN2_HI has 32 significant bits: k * LN2_HI is exact */
    const double r = (xc - k * 6.93147180369123816490e-01)
        - k * 1.90821492927058770002e-10;
    const double u = r + r * r * QPOLY;  /* expm1(r) */
    const long long KINT;"""

_EXP64 = (
    """SYMNB_FN double symnb_exp(double x) {
#ifdef __CUDACC__
    return exp(x);
#else
    const double xc = x > 709.8 ? 709.8 : (x < -745.2 ? -745.2 : x);
"""
    + _EXP64_REDUCE
    + """
    /* 2^k = 2^k1 2^k2 with both factors normal for k in [-1075, 1024] */
    const long long k1 = (long long)((unsigned long long)(ki + 2048) >> 1) - 1024;
    const double s1 = symnb_vm_f64((unsigned long long)(k1 + 1023) << 52);
    const double s2 = symnb_vm_f64((unsigned long long)(ki - k1 + 1023) << 52);
    return ((u + 1.0) * s1) * s2;
#endif
}"""
)

_EXP_NEG64 = (
    """SYMNB_FN double symnb_exp_neg(double x) {
#ifdef __CUDACC__
    return exp(x);
#else
    /* exp(x) for x <= 0 or NaN; 2^k = 2^(k+54) 2^-54 (see the float version) */
    const double xc = x < -745.2 ? -745.2 : x;
"""
    + _EXP64_REDUCE
    + """
    (void)ki;
    const double s = symnb_vm_f64(
        (symnb_vm_u64(z) + (1077ull - 0x4338000000000000ull)) << 52);
    return ((u + 1.0) * s) * 5.5511151231257827e-17;
#endif
}"""
)

_EXPM1_NEG64 = (
    """SYMNB_FN double symnb_expm1_neg(double x) {
#ifdef __CUDACC__
    return expm1(x);
#else
    /* expm1(x) for x <= 0 or NaN (elu's negative branch): t = 2^(k-1) normal */
    const double xc = x < -40.0 ? -40.0 : x;
"""
    + _EXP64_REDUCE
    + """
    const double t = symnb_vm_f64(
        (symnb_vm_u64(z) + (1022ull - 0x4338000000000000ull)) << 52);
    (void)ki;
    const double y = 2.0 * (t * u + (t - 0.5));
    /* |x| < 2^-53: expm1(x) rounds to x (-0 and subnormals kept exactly) */
    return fabs(x) < 1.1102230246251565e-16 ? x : y;
#endif
}"""
)

_EXPM1_64 = (
    """SYMNB_FN double symnb_expm1(double x) {
#ifdef __CUDACC__
    return expm1(x);
#else
    const double xc = x > 709.8 ? 709.8 : (x < -40.0 ? -40.0 : x);
    /* k = 0 on [0, ln2) and for NaN */
    const bool k0 = !(xc < 0.0 || xc >= 0.69314718055994531);
"""
    + _EXP64_REDUCE
    + """
    const double t = symnb_vm_f64((unsigned long long)(ki + 1022) << 52);
    const double y = 2.0 * (t * u + (t - 0.5));
    /* |x| < 2^-53: expm1(x) rounds to x (-0 and subnormals kept exactly) */
    return fabs(x) < 1.1102230246251565e-16 ? x : y;
#endif
}"""
)

_LIBM64 = """SYMNB_FN double symnb_NAME(double x) {
    return NAME(x);
}"""


_KI32 = "ki = (int)(symnb_vm_u32(z) - 0x4b400000u)"
_KI64 = "ki = (long long)(symnb_vm_u64(z) - 0x4338000000000000ull)"


def _fill(text: str, q: tuple[str, ...] | None = None, p=None, k0=False) -> str:
    """Put the polynomials into a template; ``k0``: k = 0 on [0, ln2) (expm1)."""
    text = text.replace("KSELECT(", "(k0 ? 0 : " if k0 else "(")
    if "long long KINT" in text:  # k is a small integer (exact); no NaN when k0
        kint = "ki = (long long)k" if k0 else _KI64
    else:
        kint = "ki = (int)k" if k0 else _KI32
    text = text.replace("KINT", kint)
    if q is not None:
        text = text.replace("QPOLY", horner("r", q))
    if p is not None:
        text = text.replace("PPOLY", horner("f", p))
    return text


@functools.cache
def definitions(dtype: str) -> dict[str, str]:
    """Helper name -> C definition for ``dtype``, in dependency order.

    Names starting with ``symnb_vm_`` are internal (bit casts, double cores); the
    others are :data:`FUNCTIONS`' values.
    """
    if dtype == "float32":
        return {
            "symnb_vm_bits": _BITS,
            "symnb_vm_log_core": _fill(_LOG_CORE_D, p=_PD_LOG),
            "symnb_vm_expm1_core": _fill(_EXPM1_CORE_D, q=_QD_LOW),
            "symnb_exp": _fill(_EXP32, q=_Q32),
            "symnb_exp_neg": _fill(_EXP_NEG32, q=_Q32),
            "symnb_vm_exp_d": _fill(_EXP_D, q=_QD_5),
            "symnb_expm1": _EXPM1_32,
            "symnb_expm1_neg": _fill(_EXPM1_NEG32, q=_Q32_5),
            "symnb_log": _LOG32,
            "symnb_log1p": _LOG1P32,
            "symnb_tanh": _TANH32,
            "symnb_vm_sigmoid_f": _fill(_SIGMOID32, q=_Q32, p=_P32_LOG),
        }
    if dtype == "float64":
        return {
            "symnb_vm_bits": _BITS,
            "symnb_exp": _fill(_EXP64, q=_Q64),
            "symnb_exp_neg": _fill(_EXP_NEG64, q=_Q64),
            "symnb_expm1": _fill(_EXPM1_64, q=_Q64_M1, k0=True),
            "symnb_expm1_neg": _fill(_EXPM1_NEG64, q=_Q64),
            **{
                FUNCTIONS[n]: _LIBM64.replace("NAME", n)
                for n in ("log", "log1p", "tanh")
            },
        }
    raise ValueError(f"dtype must be 'float32' or 'float64', not {dtype!r}")


#: Helper -> the helpers its definition calls (both dtypes; extra names are harmless).
NEEDS = {
    "symnb_exp": ("symnb_vm_bits",),
    "symnb_exp_neg": ("symnb_vm_bits",),
    "symnb_vm_exp_d": ("symnb_vm_bits", "symnb_vm_log_core"),
    "symnb_expm1": ("symnb_vm_bits", "symnb_vm_exp_d"),
    "symnb_expm1_neg": ("symnb_vm_bits",),
    "symnb_log": ("symnb_vm_bits", "symnb_vm_log_core"),
    "symnb_log1p": ("symnb_vm_bits", "symnb_vm_log_core"),
    "symnb_tanh": ("symnb_vm_bits", "symnb_vm_expm1_core"),
    "symnb_vm_sigmoid_f": ("symnb_vm_bits",),
}

#: Every helper name :func:`definitions` may return, in dependency order.
NAMES = (
    "symnb_vm_bits",
    "symnb_vm_log_core",
    "symnb_vm_expm1_core",
    "symnb_vm_exp_d",
    "symnb_exp",
    "symnb_exp_neg",
    "symnb_expm1",
    "symnb_expm1_neg",
    "symnb_log",
    "symnb_log1p",
    "symnb_tanh",
    "symnb_vm_sigmoid_f",
)


def fit(func: str, degree: int, digits: int = 50) -> tuple[list[float], float]:
    """Re-derive a coefficient table with mpmath (documentation and tests).

    ``func`` is ``"Q"`` (``(exp(r)-1-r)/r^2`` on ``[-ln2/2, ln2/2]``), ``"Q1"`` (the
    same on ``[-ln2/2, ln2]``, for expm1) or ``"P"`` (``(log1p(f)-f+f^2/2)/f^3`` on
    ``[sqrt(1/2)-1, sqrt(2)-1]``). Returns ascending coefficients and the fit's
    maximal absolute error.
    """
    import mpmath as mp

    with mp.workdps(digits):
        tiny = mp.mpf(10) ** (-digits // 2)
        if func in ("Q", "Q1"):

            def f(r):
                if abs(r) < tiny:
                    return mp.mpf(1) / 2 + r / 6
                return (mp.exp(r) - 1 - r) / r**2

            a, b = -mp.log(2) / 2, mp.log(2) / (1 if func == "Q1" else 2)
        elif func == "P":

            def f(v):
                if abs(v) < tiny:
                    return mp.mpf(1) / 3 - v / 4
                return (mp.log1p(v) - v + v**2 / 2) / v**3

            a, b = mp.sqrt(mp.mpf(1) / 2) - 1, mp.sqrt(2) - 1
        else:
            raise ValueError(f"func must be 'Q', 'Q1' or 'P', not {func!r}")
        poly, err = mp.chebyfit(f, [a, b], degree + 1, error=True)
    return [float(c) for c in reversed(poly)], float(err)


__all__ = ["FUNCTIONS", "NAMES", "NEEDS", "definitions", "fit", "horner"]
