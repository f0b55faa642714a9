"""Kernel source text for the C++ (OpenMP) and CUDA backends.

One renderer, two dialects: :class:`Dialect` holds the only things that differ (the header
with qualifiers and types, how the element loop is written, how partial sums are combined).
Every piece of text comes from a ``string.Template`` with named slots, filled by small pure
functions memoised with ``functools.lru_cache``.

The ABI is fixed in docs/CONTRACTS.md section 2; :func:`entry_points` lists the C symbols of
each kind. The CUDA text also compiles as plain C++ (without ``__CUDACC__`` the qualifiers
disappear and one "thread" runs the whole grid-stride loop), so the device code can be
checked on a CPU against NumPy.
"""

from __future__ import annotations

import functools
import hashlib
import re
import string
from dataclasses import dataclass

import sympy as sp

from symnb.codegen import printer as _printer
from symnb.codegen.nan_flow import carries_nan_from_all
from symnb.codegen.printer import (
    LIBM_FUNCS,
    MAX_OPERATIONS,
    helpers_used,
    lower,
    prelude,
    print_expression,
)
from symnb.codegen.rare import far_magnitude, rare_condition, split_rare
from symnb.errors import FormulaError

KINDS = ("elementwise", "layer", "loss")

#: Element count from which the C++ loops run on several threads (kernels that call
#: math functions such as exp/tanh/erf). Waking libgomp's passive threads costs about
#: 10 us and one core does ~3 such elements per ns, so a second thread pays from here;
#: small calls (training minibatches) stay serial and do not fight BLAS threads ...
PARALLEL_MIN = 65536
#: ... and for cheap kernels (only arithmetic and comparisons, e.g. relu), which are
#: memory-bound: a second thread pays from somewhat larger arrays (relu forward, two
#: threads against one, 2026-12-06: 8.5 -> 7.0-8.3 us at 8e4, 11.3 -> 6.8-7.5 us at
#: 1e5, but 7.0 -> 8.5-9.7 us at 6e4; PyTorch's clamp_min splits 1e5 over both).
PARALLEL_MIN_CHEAP = 81920

#: C++ layers with more distinct forms than this are split into several translation
#: units of :data:`LAYER_UNIT_FORMS` forms each, compiled in parallel and linked; the
#: entry points dispatch column by column through function-pointer tables. (The single
#: unit inlines every form into six loops and took ~0.4 s of g++ per form; 256 forms
#: ran past the compile timeout.)
LAYER_SPLIT_FORMS = 16
#: Forms per translation unit of a split layer.
LAYER_UNIT_FORMS = 16
#: Most distinct forms one layer may have: beyond, compile time (about 0.1 s of one
#: core per form, split) is refused upfront instead of running into the timeout.
MAX_LAYER_FORMS = 1024

_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\(")
# calls that cost about as much as an arithmetic operation
_CHEAP_CALLS = frozenset(
    {
        "symnb_max",
        "symnb_min",
        "symnb_sign",
        "symnb_heaviside",
        "fabsf",
        "fabs",
        "floorf",
        "floor",
        "ceilf",
        "ceil",
        "sqrtf",
        "sqrt",
        "fmaf",
        "fma",
    }
)
_NOT_CALLS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "defined"})

#: glibc (>= 2.35, libmvec) functions with SIMD variants we declare for the C++ dialect.
_LIBMVEC_FUNCS = (*LIBM_FUNCS, "pow", "cbrt")
_LIBMVEC_BINARY = ("pow",)

#: Logical entry-point names of each kind (the C symbols add ``symnb_``).
ENTRY_POINTS = {
    "elementwise": (
        "forward",
        "backward",
        "forward_derivative",
        "forward_backward",
        "constant_gradient",
    ),
    "layer": (
        "layer_forward",
        "layer_backward",
        "layer_forward_derivative",
        "layer_constant_gradient",
    ),
    "loss": ("loss_value", "loss_gradient"),
}


#: Extra C symbol of C++ elementwise kernels with constants, outside the ABI table
#: (backends bind only :data:`ENTRY_POINTS`): ``void (x, g, dx, out, n, c)``, the
#: backward and the constants' gradient in one pass (used by symnb.interop.torch).
FUSED_BACKWARD = "symnb_backward_constant_gradient"
#: The same computed by one loop over f' and df/dc lowered together (see
#: :func:`render_joint_backward`); present when that expression is not too large.
FUSED_BACKWARD_JOINT = "symnb_backward_constant_gradient_joint"


def entry_points(kind: str) -> dict[str, str]:
    """Logical name -> C symbol of every entry point of ``kind``."""
    _check_kind(kind)
    return {name: "symnb_" + name for name in ENTRY_POINTS[kind]}


@dataclass(frozen=True)
class Dialect:
    """Everything that differs between the C++ and the CUDA kernels."""

    name: str
    header: str  # template; slots: real, nan, inf
    loop: str  # element loop over [0, n); slot: n, clause
    run_loop: str  # layer: for each row r, runs [j0, j1) of columns with one form `id`
    run_end: str
    run_inner: str  # loop header over the columns j of one run
    # optional second layout (C++): column by column, a SIMD loop over the rows, for
    # layers whose runs of equal forms are short (< 32 columns on average, measured);
    # slot: cases. Empty: not used.
    column_mode: str
    column_inner: str
    column_loop: str  # layer reductions: one iteration per column j
    reduction_clause: str  # template; slot: vars (comma-separated accumulators)
    simd_declarations: bool


_CPP_HEADER = string.Template(
    r"""/* generated by symnb: C++ / OpenMP dialect */
#include <math.h>
#include <stdint.h>
#define SYMNB_FN static inline
#define SYMNB_KERNEL extern "C" __attribute__((visibility("default")))
#define SYMNB_RESTRICT __restrict__
#define SYMNB_NAN $nan
#define SYMNB_INF $inf
#define SYMNB_ATOMIC_ADD(p, v) (*(p) += (v))
#ifndef SYMNB_PARALLEL_MIN
#define SYMNB_PARALLEL_MIN $parallel_min
#endif
typedef int64_t symnb_i64;
typedef int32_t symnb_i32;
typedef $real symnb_real;
"""
)

_CUDA_HEADER = string.Template(
    r"""/* generated by symnb: CUDA dialect (also builds as plain C++ for host checks) */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define SYMNB_FN static __device__ __forceinline__
#define SYMNB_KERNEL extern "C" __global__
#define SYMNB_RESTRICT __restrict__
#define SYMNB_NAN $cuda_nan
#define SYMNB_INF $cuda_inf
#define SYMNB_TID ((long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x)
#define SYMNB_STRIDE ((long long)blockDim.x * (long long)gridDim.x)
#define SYMNB_ATOMIC_ADD(p, v) symnb_add_partial((p), (v))
/* Sum a warp's partial sums with shuffles, then one atomicAdd per warp (not per
   thread). Every thread of the block reaches the call (no early exits); blocks whose
   size is not a multiple of 32 fall back to one atomicAdd per thread. */
__device__ __forceinline__ void symnb_add_partial(double* p, double v) {
    if ((blockDim.x & 31u) == 0u) {
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if ((threadIdx.x & 31u) == 0u) atomicAdd(p, v);
    } else {
        atomicAdd(p, v);
    }
}
#else
#include <math.h>
#define SYMNB_FN static inline
#define SYMNB_KERNEL extern "C"
#define SYMNB_RESTRICT __restrict__
#define SYMNB_NAN $nan
#define SYMNB_INF $inf
#define SYMNB_TID 0LL
#define SYMNB_STRIDE 1LL
#define SYMNB_ATOMIC_ADD(p, v) (*(p) += (v))
#endif
typedef long long symnb_i64;
typedef int symnb_i32;
typedef $real symnb_real;
"""
)

CPP = Dialect(
    name="cpp",
    header="cpp",
    loop=(
        "#pragma omp parallel for simd if(parallel: $n >= SYMNB_PARALLEL_MIN) "
        "schedule(static)$clause\n"
        "    for (symnb_i64 i = 0; i < $n; ++i) {"
    ),
    run_loop=(
        "#pragma omp parallel for if(parallel: rows * cols >= SYMNB_PARALLEL_MIN) "
        "schedule(static)\n"
        "    for (symnb_i64 r = 0; r < rows; ++r) {\n"
        "    for (symnb_i64 j0 = 0, j1 = 0; j0 < cols; j0 = j1) {\n"
        "        const symnb_i32 id = ids[j0];\n"
        "        for (j1 = j0 + 1; j1 < cols && ids[j1] == id; ++j1) {\n"
        "        }"
    ),
    run_end="    }\n    }",
    run_inner="#pragma omp simd\n            for (symnb_i64 j = j0; j < j1; ++j)",
    column_mode="""{
        symnb_i64 runs = 1;
        for (symnb_i64 j = 1; j < cols; ++j) runs += ids[j] != ids[j - 1];
        if (rows >= 16 && 32 * runs > cols) {
        /* blocks of 64 rows keep the strided accesses in cache */
        const symnb_i64 blocks = (rows + 63) / 64;
    #pragma omp parallel for if(parallel: rows * cols >= SYMNB_PARALLEL_MIN) schedule(static)
        for (symnb_i64 b = 0; b < blocks; ++b) {
        const symnb_i64 rb = 64 * b, re = rb + 64 < rows ? rb + 64 : rows;
        for (symnb_i64 j = 0; j < cols; ++j) {
        switch (ids[j]) {
$cases
        }
        }
        }
        return;
        }
    }""",
    column_inner="#pragma omp simd\n            for (symnb_i64 r = rb; r < re; ++r)",
    column_loop=(
        "#pragma omp parallel for if(parallel: rows * cols >= SYMNB_PARALLEL_MIN) "
        "schedule(static)\n"
        "    for (symnb_i64 j = 0; j < cols; ++j) {"
    ),
    reduction_clause=" reduction(+: $vars)",
    simd_declarations=True,
)

CUDA = Dialect(
    name="cuda",
    header="cuda",
    loop="for (symnb_i64 i = SYMNB_TID; i < $n; i += SYMNB_STRIDE) {",
    run_loop=(
        "for (symnb_i64 e = SYMNB_TID; e < rows * cols; e += SYMNB_STRIDE) {\n"
        "        const symnb_i64 r = e / cols;\n"
        "        const symnb_i64 j0 = e - r * cols, j1 = j0 + 1;\n"
        "        const symnb_i32 id = ids[j0];"
    ),
    run_end="    }",
    run_inner="for (symnb_i64 j = j0; j < j1; ++j)",
    column_mode="",
    column_inner="",
    column_loop="for (symnb_i64 j = SYMNB_TID; j < cols; j += SYMNB_STRIDE) {",
    reduction_clause="",
    simd_declarations=False,
)

DIALECTS = {"cpp": CPP, "cuda": CUDA}


@dataclass(frozen=True)
class KernelSource:
    """A generated translation unit."""

    text: str
    entry_points: dict
    digest: str
    dialect: str = "cpp"
    dtype: str = "float32"
    kind: str = "elementwise"
    #: Layers with many forms (see :data:`LAYER_SPLIT_FORMS`): C++ translation units
    #: compiled and linked into one library, or complete CUDA modules (one per group
    #: of forms, each launched in turn). Empty: ``text`` is the only unit.
    units: tuple = ()
    #: C++ elementwise kernels with constants: ``text`` without the constants'
    #: gradient entry points, the library built first (:func:`forward_only`); the
    #: whole ``text`` is built when a constant's gradient is first asked for. Empty:
    #: ``text`` is built at once.
    forward_text: str = ""

    @property
    def forward_digest(self) -> str:
        """The digest of the library built first (``forward_text`` or ``text``)."""
        if not self.forward_text:
            return self.digest
        return hashlib.sha256(self.forward_text.encode()).hexdigest()

    def __hash__(self) -> int:  # dict field: hash by digest
        return hash(self.digest)


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")


def _ctype(dtype: str) -> str:
    return "float" if dtype == "float32" else "double"


# ------------------------------------------------------------------------------------
# Header
# ------------------------------------------------------------------------------------


#: The value-taking form functions (``symnb_vf<i>``, ``symnb_vdf<i>``, ``symnb_vfdf<i>``).
_VALUE_FORM = re.compile(r"symnb_vn?(?:f|df|fdf)\d+$")
#: Names of form functions (their near forms ``symnb_n*``, the predicate
#: ``symnb_far*`` and ``symnb_magnitude*`` of :mod:`symnb.codegen.rare` included; the
#: latter's bit copy is no call).
_FORM_PREFIXES = (
    "symnb_f",
    "symnb_df",
    "symnb_dc",
    "symnb_nf",
    "symnb_ndf",
    "symnb_ndc",
    "symnb_magnitude",
    "__builtin_memcpy",
)


def parallel_threshold(body: str) -> int:
    """The thread threshold for kernels whose per-form code is ``body``."""
    for name in _CALL.findall(body):
        if name in _CHEAP_CALLS or name in _NOT_CALLS:
            continue
        if name.startswith(_FORM_PREFIXES) or _VALUE_FORM.match(name):
            continue
        return PARALLEL_MIN
    return PARALLEL_MIN_CHEAP


#: Most arithmetic operators (``+ - * /`` in the C text of f, f' and the fused pair)
#: of a kernel that :func:`narrow_vectors` calls bound by memory.
NARROW_MAX_OPERATORS = 16
#: a binary operator: between an operand's end and the next operand's start
_OPERATOR = re.compile(r"[\w)\]]\s*[-+*/]\s*[\w(.]")
_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_LITERAL = re.compile(r"\b\d+\.?\d*(?:[eE][-+]?\d+)?[fF]?\b")
_POINTER = re.compile(r"\*\s*SYMNB_RESTRICT")


def narrow_vectors(body: str) -> bool:
    """Whether the C++ kernels of forms whose code is ``body`` take 256-bit vectors
    where 512-bit ones exist: cheap kernels (:func:`parallel_threshold`) with no
    division and a few operators (relu, leaky_relu, hardtanh ...) are bound by memory,
    and a misaligned 256-bit access splits a cache line half as often as a 512-bit
    one; more arithmetic (PAU 5/4: fwd 23 -> 27 us, fwd+bwd 73 -> 91 us at 1e5 with
    256) or a division (the same time per element either way) keeps 512."""
    if parallel_threshold(body) != PARALLEL_MIN_CHEAP:
        return False
    code = _POINTER.sub(" ", _LITERAL.sub("1", _COMMENT.sub("", body)))
    return "/" not in code and len(_OPERATOR.findall(code)) <= NARROW_MAX_OPERATORS


@functools.cache
def render_header(
    dialect: str, dtype: str, parallel_min: int = PARALLEL_MIN, narrow: bool = False
) -> str:
    """Includes, qualifier macros and types of a dialect; ``narrow``: C++ code that
    prefers 256-bit vectors (:func:`narrow_vectors`)."""
    d = DIALECTS[dialect]
    f32 = dtype == "float32"
    slots = {
        "real": _ctype(dtype),
        "nan": '__builtin_nanf("")' if f32 else '__builtin_nan("")',
        "inf": "__builtin_inff()" if f32 else "__builtin_inf()",
        "cuda_nan": "__int_as_float(0x7fffffff)"
        if f32
        else "__longlong_as_double(0x7ff8000000000000ULL)",
        "cuda_inf": "__int_as_float(0x7f800000)"
        if f32
        else "__longlong_as_double(0x7ff0000000000000ULL)",
        "parallel_min": str(int(parallel_min)),
    }
    template = _CPP_HEADER if d.header == "cpp" else _CUDA_HEADER
    text = template.substitute(slots)
    if d.header == "cpp" and narrow:
        text += _CPP_NARROW_VECTORS
    if d.simd_declarations:
        text += render_simd_declarations(dtype)
    return text


#: Kernels bound by memory (:func:`narrow_vectors`) take 256-bit vectors (AVX-512
#: machines would take 512): as fast where every array is aligned, and a misaligned
#: 256-bit access splits a line half as often: a 1e5-element relu fwd+bwd with y and
#: dx at different offsets from a 64-byte line 34 -> 21 us, forward with x off a line
#: 10.7 -> 9.1 us (one thread, L2-resident). Kernels with math functions keep 512
#: (gelu_tanh fwd+bwd 120 -> 138 us with 256).
_CPP_NARROW_VECTORS = """#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC target("prefer-vector-width=256")
#endif
"""


@functools.cache
def render_simd_declarations(dtype: str) -> str:
    """Declare glibc's vector variants (libmvec) so ``omp simd`` loops call them."""
    ct = _ctype(dtype)
    sfx = "f" if dtype == "float32" else ""
    lines = [
        "/* glibc's SIMD variants (libmvec), used by '#pragma omp simd' loops */",
        "#if defined(SYMNB_LIBMVEC) && defined(__x86_64__)",
        'extern "C" {',
    ]
    for name in _LIBMVEC_FUNCS:
        args = f"{ct}, {ct}" if name in _LIBMVEC_BINARY else ct
        lines.append("#pragma omp declare simd notinbranch")
        lines.append(f"{ct} {name}{sfx}({args}) __THROW;")
    lines += ["}", "#endif", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------
# Per-form device functions
# ------------------------------------------------------------------------------------

_FORM_FUNCTION = string.Template(
    """SYMNB_FN symnb_real ${name}(${args}const symnb_real* SYMNB_RESTRICT c,
        int o = 0) {
${body}
    return ${guard} ? ${nan_value} : (${result});
}
"""
)

#: A form with constants: the value-taking function (``symnb_fv<i>``, ``symnb_dfv<i>``;
#: the constants as arguments) and the pointer form that loads ``c[o + k]`` and calls
#: it. Layers pass the constants from a table by position and column (contiguous
#: loads across a run of columns, where ``c[o + k]`` with ``o = offsets[j]`` is a
#: gather per constant).
_HOST_ONLY = "#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)"
#: Where the whole forms of a form with rare far-|x| branches branch per element to
#: the near forms: CUDA (one thread, one element), or a host build of the CUDA text
#: with ``-DSYMNB_RARE_BRANCH`` (tests).
_RARE_BRANCH = (
    "#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(SYMNB_RARE_BRANCH)"
)

#: Where a rare far-|x| branch of the form applies (:mod:`symnb.codegen.rare`).
_FAR_PREDICATE = string.Template(
    """SYMNB_FN bool ${name}(symnb_real a0) {
    return ${condition};
}
"""
)

#: The C++ loops' quick test for rare far-|x| elements (:func:`rare_simd_loop`): the
#: largest magnitude of a run as unsigned bits (one max per vector, NaN counted as
#: far), against a bound at or below every rare threshold.
_FAR_MAGNITUDE = string.Template(
    """#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
typedef ${bits} symnb_bits${index};
SYMNB_FN symnb_bits${index} symnb_magnitude${index}(symnb_real v) {
    symnb_bits${index} u;
    __builtin_memcpy(&u, &v, sizeof u);
    return u & ${mask};
}
static const symnb_bits${index} symnb_farbits${index} = ${bound};
#endif
"""
)


def _far_magnitude_text(index: int, conditions: tuple, dtype: str) -> str:
    """:data:`_FAR_MAGNITUDE` of form ``index``: the bound is the bits of the smallest
    rare threshold as a ``dtype`` number, less 2 (the C literal may round to a
    neighbour)."""
    import numpy as np

    t = far_magnitude(conditions)
    f32 = dtype == "float32"
    value = np.array(t, dtype=np.float32 if f32 else np.float64)
    bits = int(value.view(np.uint32 if f32 else np.uint64)) - 2
    return _FAR_MAGNITUDE.substitute(
        index=index,
        bits="unsigned int" if f32 else "unsigned long long",
        mask="0x7fffffffu" if f32 else "0x7fffffffffffffffULL",
        bound=f"{max(bits, 0):#x}u" if f32 else f"{max(bits, 0):#x}ULL",
    )


_FORM_FUNCTION_VALUES = string.Template(
    """SYMNB_FN symnb_real ${value_name}(${args}${values}) {
${body}
    return ${guard} ? ${nan_value} : (${result});
}

SYMNB_FN symnb_real ${name}(${args}const symnb_real* SYMNB_RESTRICT c,
        int o = 0) {
${preamble}
    return ${value_name}(${arg_names}${value_names});
}
"""
)

_FORM_PAIR_VALUES = string.Template(
    """SYMNB_FN void ${value_name}(${args}${values},
        symnb_real* SYMNB_RESTRICT out0, symnb_real* SYMNB_RESTRICT out1) {
${body}
    const bool nan_in = ${guard};
    *out0 = nan_in ? ${nan_value} : (${result0});
    *out1 = nan_in ? ${nan_value} : (${result1});
}

SYMNB_FN void ${name}(${args}const symnb_real* SYMNB_RESTRICT c,
        symnb_real* SYMNB_RESTRICT out0, symnb_real* SYMNB_RESTRICT out1,
        int o = 0) {
${preamble}
    ${value_name}(${arg_names}${value_names}, out0, out1);
}
"""
)

_FORM_PAIR = string.Template(
    """SYMNB_FN void ${name}(${args}const symnb_real* SYMNB_RESTRICT c,
        symnb_real* SYMNB_RESTRICT out0, symnb_real* SYMNB_RESTRICT out1,
        int o = 0) {
${body}
    const bool nan_in = ${guard};
    *out0 = nan_in ? ${nan_value} : (${result0});
    *out1 = nan_in ? ${nan_value} : (${result1});
}
"""
)

#: df/dconstants with one output pointer per constant (``symnb_dcs<i>``): loops that
#: call it vectorise, where g++ 12 leaves loops over the array form scalar (measured:
#: the PAU 5/4 constants' gradient went from ~10 to ~1.5 ns per element). The array
#: form ``symnb_dc<i>`` forwards to it (used by layers and fused training steps).
_FORM_VECTOR = string.Template(
    """SYMNB_FN void ${value_name}(${args}${values}, ${outputs}) {
${body}
    const bool nan_in = ${guard};
${stores}
}

SYMNB_FN void ${scalar_name}(${args}const symnb_real* SYMNB_RESTRICT c,
        ${outputs}, int o = 0) {
${preamble}
    ${value_name}(${arg_names}${value_names}, ${output_names});
}

SYMNB_FN void ${name}(${args}const symnb_real* SYMNB_RESTRICT c,
        symnb_real* SYMNB_RESTRICT d, int o = 0) {
    ${scalar_name}(${arg_names}c, ${addresses}, o);
}
"""
)


def _input_names(n_inputs: int) -> list[str]:
    return [f"a{i}" for i in range(n_inputs)]


def _symbols(inputs: tuple, params: tuple) -> tuple[tuple[sp.Symbol, str], ...]:
    pairs = [(s, f"a{i}") for i, s in enumerate(inputs)]
    pairs += [(s, f"k{i}") for i, s in enumerate(params)]
    return tuple(pairs)


def _preamble(n_params: int) -> list[str]:
    """The constants' loads: ``c[o + k]``. ``o`` (default 0) lets a per-neuron loop pass
    ``params`` and the column's offset: g++ 12 vectorises those loads as gathers, where
    it leaves a loop scalar that passes each lane its own pointer ``params +
    offsets[j]`` to a form with two or more constants."""
    return [
        f"    const symnb_real k{k} = c[o + {k}]; (void)k{k};" for k in range(n_params)
    ]


def _guard(n_inputs: int) -> tuple[str, str]:
    names = _input_names(n_inputs)
    guard = "(" + " || ".join(f"{a} != {a}" for a in names) + ")"
    nan_value = "(" + " + ".join(names) + ")"
    return guard, nan_value


@functools.lru_cache(maxsize=1024)
def render_form_functions(
    index: int,
    inputs: tuple,
    params: tuple,
    f: sp.Expr,
    df: sp.Expr,
    dparams: tuple,
    dtype: str,
    with_dparams: bool,
    max_operations: int = MAX_OPERATIONS,
    constants_gradient: bool = True,
) -> str:
    """Device functions of one form: f, f', (f, f') fused and df/dconstants.

    With ``with_dparams`` false (losses) only f and f' are emitted; with
    ``constants_gradient`` false all but df/dconstants (:func:`forward_only`).

    Names: ``symnb_f<i>``, ``symnb_df<i>``, ``symnb_fdf<i>``, ``symnb_dc<i>`` (and
    ``symnb_dcs<i>``, the same with one output pointer per constant). Every function
    returns NaN where an input is NaN.
    """
    syms = _symbols(inputs, params)
    args = "".join(f"symnb_real {a}, " for a in _input_names(len(inputs)))
    guard, nan_value = _guard(len(inputs))

    def guard_of(exprs: tuple) -> str:
        """``false`` (the select compiles away) where the expressions pass NaN on by
        themselves (:mod:`symnb.codegen.nan_flow`)."""
        return "false" if carries_nan_from_all(exprs, inputs) else guard

    pre = _preamble(len(params))
    out = []
    # activations with constants: value-taking functions too (see _FORM_FUNCTION_VALUES)
    values = bool(params) and with_dparams
    value_args = {
        "values": ", ".join(f"symnb_real k{q}" for q in range(len(params))),
        "value_names": ", ".join(f"k{q}" for q in range(len(params))),
        "arg_names": "".join(f"{a}, " for a in _input_names(len(inputs))),
        "preamble": "\n".join(pre),
    }

    def emit(tag: str, f_e, df_e, select: str, branches: dict) -> list[str]:
        """symnb_<tag>f, <tag>df and <tag>fdf (and their value-taking forms) of
        f_e and df_e; results 0 where ``select`` holds; ``branches``: text put
        first into the bodies of f, df and fdf."""

        def chosen(result: str) -> str:
            return f"({select} ? 0 : ({result}))" if select else result

        def host_only_pointer_form(text: str, head: str) -> str:
            """The near forms' pointer forms serve only the C++ loops (CUDA calls
            the value forms from the whole ones): outside CUDA, where NVRTC would
            warn that they are never referenced."""
            if not tag:
                return text
            at = text.index(head)
            return f"{text[:at]}{_HOST_ONLY}\n{text[at:].rstrip()}\n#endif\n"

        def body(key: str, statements: list[str]) -> str:
            lines = ["    " + s for s in statements]
            if not values:
                lines = pre + lines  # the constants' loads
            if key in branches:
                lines.insert(0, branches[key])
            return "\n".join(lines)

        texts = []
        for key, name, expr, what in (
            ("f", f"symnb_{tag}f{index}", f_e, "the function"),
            ("df", f"symnb_{tag}df{index}", df_e, "the derivative"),
        ):
            low = lower((expr,), syms, dtype, max_operations, what)
            common = {
                "name": name,
                "args": args,
                "guard": guard_of((expr,)),
                "nan_value": nan_value,
                "result": chosen(low.results[0]),
                "body": body(key, low.statements),
            }
            if values:
                texts.append(
                    host_only_pointer_form(
                        _FORM_FUNCTION_VALUES.substitute(
                            value_name=name.replace("symnb_", "symnb_v", 1),
                            **common,
                            **value_args,
                        ),
                        f"SYMNB_FN symnb_real {name}(",
                    )
                )
            else:
                texts.append(_FORM_FUNCTION.substitute(**common))
        if not with_dparams:  # a loss: only f and f' are entry points
            return texts
        # f and f' each lowered as alone (sharing only identical temporaries): the
        # pair computes exactly the values symnb_f and symnb_df compute, which the
        # robustness engine measured (see lower's ``groups``)
        low = lower(
            (f_e, df_e),
            syms,
            dtype,
            max_operations,
            "the function and its derivative",
            groups=(1, 1),
        )
        common = {
            "name": f"symnb_{tag}fdf{index}",
            "args": args,
            "guard": guard_of((f_e, df_e)),
            "nan_value": nan_value,
            "result0": chosen(low.results[0]),
            "result1": chosen(low.results[1]),
            "body": body("fdf", low.statements),
        }
        if values:
            texts.append(
                host_only_pointer_form(
                    _FORM_PAIR_VALUES.substitute(
                        value_name=f"symnb_v{tag}fdf{index}", **common, **value_args
                    ),
                    f"SYMNB_FN void symnb_{tag}fdf{index}(",
                )
            )
        else:
            texts.append(_FORM_PAIR.substitute(**common))
        return texts

    # rare far-|x| branches (symnb.codegen.rare): near forms without them, selected
    # to 0 where a rare condition holds, and (CUDA) a per-thread branch to them
    rare = split_rare((f, df), inputs[0]) if len(inputs) == 1 else None
    if rare is not None:
        (near_f, near_df), conditions = rare
        out.append(
            _FAR_PREDICATE.substitute(
                name=f"symnb_far{index}",
                condition=print_expression(
                    rare_condition(conditions), dict(syms), dtype
                ),
            )
        )
        out.append(_far_magnitude_text(index, conditions, dtype))
        value_call = "".join(f"{a}, " for a in _input_names(len(inputs)))
        pair_call = value_call + (
            value_args["value_names"] + ", out0, out1" if values else "c, out0, out1, o"
        )
        value_call += value_args["value_names"] if values else "c, o"
        out.extend(emit("n", near_f, near_df, f"symnb_far{index}(a0)", {}))
        branches = {
            "f": f"    if (!symnb_far{index}(a0)) return symnb_{'v' if values else ''}"
            f"nf{index}({value_call});",
            "df": f"    if (!symnb_far{index}(a0)) return symnb_{'v' if values else ''}"
            f"ndf{index}({value_call});",
            "fdf": f"    if (!symnb_far{index}(a0)) {{\n        symnb_"
            f"{'v' if values else ''}nfdf{index}({pair_call});\n"
            "        return;\n    }",
        }
        branches = {k: f"{_RARE_BRANCH}\n{v}\n#endif" for k, v in branches.items()}
    else:
        branches = {}
    out.extend(emit("", f, df, "", branches))
    if not with_dparams:  # a loss: only f and f' are entry points
        return "\n".join(out)
    if params and constants_gradient:
        low = lower(
            tuple(dparams),
            syms,
            dtype,
            max_operations,
            "the constants' gradient",
            share_reciprocals=True,
        )
        stores = "\n".join(
            f"    *d{k} = nan_in ? {nan_value} : ({r});"
            for k, r in enumerate(low.results)
        )
        k_params = range(len(low.results))
        dc_rare = split_rare(tuple(dparams), inputs[0]) if len(inputs) == 1 else None
        if dc_rare is not None:
            out.append(
                _near_constant_gradient(
                    index, dc_rare, syms, dtype, max_operations, pre, guard, nan_value
                )
            )  # fmt: skip
        out.append(
            _FORM_VECTOR.substitute(
                name=f"symnb_dc{index}",
                scalar_name=f"symnb_dcs{index}",
                value_name=f"symnb_dcv{index}",
                values=", ".join(f"symnb_real k{q}" for q in range(len(params))),
                value_names=", ".join(f"k{q}" for q in range(len(params))),
                output_names=", ".join(f"d{k}" for k in range(len(low.results))),
                preamble="\n".join(pre),
                args=args,
                body="\n".join("    " + s for s in low.statements),
                # kept even where the gradients carry NaN: without the select g++
                # left PAU's ten-output loop scalar (constants' gradient 10 -> 58 ms
                # at 4.2M elements)
                guard=guard,
                stores=stores,
                outputs=", ".join(f"symnb_real* SYMNB_RESTRICT d{k}" for k in k_params),
                arg_names="".join(f"{a}, " for a in _input_names(len(inputs))),
                addresses=", ".join(f"&d[{k}]" for k in k_params),
            )
        )
    return "\n".join(out)


_NEAR_CONSTANT_GRADIENT = string.Template(
    """${host_only}
SYMNB_FN bool symnb_fardc${index}(symnb_real a0) {
    return ${condition};
}

SYMNB_FN void symnb_ndcv${index}(symnb_real a0, ${values}, ${outputs}) {
${body}
    const bool nan_in = ${guard};
    const bool far = symnb_fardc${index}(a0);
${stores}
}

SYMNB_FN void symnb_ndcs${index}(symnb_real a0, const symnb_real* SYMNB_RESTRICT c,
        ${outputs}, int o = 0) {
${preamble}
    symnb_ndcv${index}(a0, ${value_names}, ${output_names});
}
#endif
"""
)


def _near_constant_gradient(
    index, rare, syms, dtype, max_operations, pre, guard, nan_value
) -> str:
    """C++ ``symnb_ndcs<index>`` (and ``symnb_ndcv<index>``, the same taking the
    constants as values): the constants' gradients without their rare far-|x|
    branches (:mod:`symnb.codegen.rare`), 0 where a rare condition holds, and
    ``symnb_fardc<index>``, that condition: the constants' gradient loops compute the
    near forms for every element and the whole ones only for the far elements (PAU 5/4's
    large-|x| forms of d/db_k, divisions for every element, made its constants'
    gradient 10 ms at 262,144 elements where the near forms take under 1 ms)."""
    near, conditions = rare
    low = lower(
        tuple(near),
        syms,
        dtype,
        max_operations,
        "the constants' gradient",
        share_reciprocals=True,
    )
    k = range(len(low.results))
    return _NEAR_CONSTANT_GRADIENT.substitute(
        host_only=_HOST_ONLY,
        index=index,
        condition=print_expression(rare_condition(conditions), dict(syms), dtype),
        outputs=", ".join(f"symnb_real* SYMNB_RESTRICT d{q}" for q in k),
        values=", ".join(f"symnb_real k{q}" for q in range(len(pre))),
        value_names=", ".join(f"k{q}" for q in range(len(pre))),
        output_names=", ".join(f"d{q}" for q in k),
        preamble="\n".join(pre),
        body="\n".join("    " + t for t in low.statements),
        guard=guard,
        stores="\n".join(
            f"    *d{q} = nan_in ? {nan_value} : (far ? 0 : ({r}));"
            for q, r in enumerate(low.results)
        ),
    )


# ------------------------------------------------------------------------------------
# Entry points
# ------------------------------------------------------------------------------------

_ELEMENTWISE = string.Template(
    """SYMNB_KERNEL void symnb_forward(const symnb_real* SYMNB_RESTRICT x,
        symnb_real* SYMNB_RESTRICT y, symnb_i64 n, const symnb_real* SYMNB_RESTRICT c) {
    ${constants}${loop}
        y[i] = symnb_f0(x[i], ${c});
    }
}

SYMNB_KERNEL void symnb_backward(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, symnb_real* SYMNB_RESTRICT dx, symnb_i64 n,
        const symnb_real* SYMNB_RESTRICT c) {
    ${constants}${loop}
        dx[i] = g[i] * symnb_df0(x[i], ${c});
    }
}

SYMNB_KERNEL void symnb_forward_derivative(const symnb_real* SYMNB_RESTRICT x,
        symnb_real* SYMNB_RESTRICT y, symnb_real* SYMNB_RESTRICT dy, symnb_i64 n,
        const symnb_real* SYMNB_RESTRICT c) {
    ${constants}${loop}
        symnb_real yv, dyv;
        symnb_fdf0(x[i], ${c}, &yv, &dyv);
        y[i] = yv;
        dy[i] = dyv;
    }
}

SYMNB_KERNEL void symnb_forward_backward(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, symnb_real* SYMNB_RESTRICT y,
        symnb_real* SYMNB_RESTRICT dx, symnb_i64 n, const symnb_real* SYMNB_RESTRICT c) {
    ${constants}${loop}
        symnb_real yv, dyv;
        symnb_fdf0(x[i], ${c}, &yv, &dyv);
        const symnb_real gv = g[i];  /* read before y or dx (either may be x or g) */
        y[i] = yv;
        dx[i] = gv * dyv;
    }
}
"""
)

_CONSTANT_GRADIENT = string.Template(
    """SYMNB_KERNEL void symnb_constant_gradient(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, double* SYMNB_RESTRICT out, symnb_i64 n,
        const symnb_real* SYMNB_RESTRICT c) {
${constant_gradient_body}
}
"""
)

_CONSTANT_GRADIENT_BODY = string.Template(
    """    ${acc_decl}
    ${loop}
        symnb_real d[${k}];
        symnb_dc0(x[i], c, d);
        const double gi = (double)g[i];
${acc_update}
    }
${combine}"""
)

#: C++: the constants' gradient in blocks of SYMNB_BLOCK elements: a SIMD loop sums
#: grad * df/dc_k into one ``symnb_real`` accumulator per constant (``omp simd
#: reduction``: a vector register each), added after each block to per-thread double
#: partial sums that are combined once per thread (with ``dx_loop``, the fused backward
#: first writes grad * f'(x) for the block, so x and grad come from memory once for
#: both). Storing the products into per-constant block buffers and summing those
#: afterwards was 1.2-1.6x slower (PAU 5/4, float32 and float64, 2.6e5 and 4.2e6
#: elements, one thread, g++ 12); double accumulators in one loop over the whole range
#: stayed scalar.
_CPP_CONSTANT_GRADIENT = string.Template(
    """SYMNB_KERNEL void symnb_${name}(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g,${dx_param} double* SYMNB_RESTRICT out, symnb_i64 n,
        const symnb_real* SYMNB_RESTRICT c) {
    double acc[${k}] = {0.0};
    #pragma omp parallel if(n >= SYMNB_PARALLEL_MIN)
    {
        /* the thread's own copy of the constants: g++ then keeps them in registers
           (the outlined region lost __restrict__ on c) */
        symnb_real cl[${k}];
        for (int q = 0; q < ${k}; ++q) cl[q] = c[q];
        double part[${k}] = {0.0};
        #pragma omp for schedule(static)
        for (symnb_i64 b = 0; b < n; b += SYMNB_BLOCK) {
            const symnb_i64 m = n - b < SYMNB_BLOCK ? n - b : SYMNB_BLOCK;
            const symnb_real* SYMNB_RESTRICT xb = x + b;
            const symnb_real* SYMNB_RESTRICT gb = g + b;
${dx_loop}
            symnb_real ${sums_init};${far_decl}
            #pragma omp simd reduction(+: ${sums})${far_clause}
            for (symnb_i64 j = 0; j < m; ++j) {
                const symnb_real xj = xb[j], gj = gb[j];
                symnb_real ${locals};
                ${dc_call}
${sum_updates}
            }${far_pass}
${part_updates}
        }
        #pragma omp critical(symnb_constant_gradient)
        for (int q = 0; q < ${k}; ++q) acc[q] += part[q];
    }
    for (int q = 0; q < ${k}; ++q) out[q] += acc[q];
}
"""
)

#: The fused backward's first loop over a block: ``dx = g * f'(x)``. A loop of its
#: own (the block is then read again from L1): one loop computing f' and all df/dc
#: together ran 2.5x slower than the two in float64 (PAU 5/4, g++ 12).
_CPP_BLOCK_BACKWARD = """            symnb_real* SYMNB_RESTRICT db = dx + b;
            #pragma omp simd
            for (symnb_i64 j = 0; j < m; ++j) db[j] = gb[j] * symnb_df0(xb[j], cl);"""

#: The fused backward's dx loop over a block for forms with rare far-|x| branches
#: (:mod:`symnb.codegen.rare`): the near f' in the SIMD loop, then the whole f' for
#: the block's far elements only when one is there.
_CPP_BLOCK_BACKWARD_RARE = """            symnb_real* SYMNB_RESTRICT db = dx + b;
            int far = 0;
            #pragma omp simd reduction(|: far)
            for (symnb_i64 j = 0; j < m; ++j) {
                db[j] = gb[j] * symnb_ndf0(xb[j], cl);
                far |= symnb_far0(xb[j]);
            }
            if (far) {
                for (symnb_i64 j = 0; j < m; ++j) {
                    if (symnb_far0(xb[j])) db[j] = gb[j] * symnb_df0(xb[j], cl);
                }
            }"""

#: C++ elementwise entry points of a form with rare far-|x| branches: ``(name,
#: parameters, outputs that may be an input, near body, far body)``.
_RARE_ENTRIES = (
    (
        "forward",
        (
            "const symnb_real* SYMNB_RESTRICT x,\n        symnb_real* SYMNB_RESTRICT y, "
            "symnb_i64 n, const symnb_real* SYMNB_RESTRICT c"
        ),
        ("y",),
        "y[i] = symnb_${t}f0(x[i], ${c});",
    ),
    (
        "backward",
        (
            "const symnb_real* SYMNB_RESTRICT x,\n        const symnb_real* SYMNB_RESTRICT "
            "g, symnb_real* SYMNB_RESTRICT dx, symnb_i64 n,\n        const symnb_real* "
            "SYMNB_RESTRICT c"
        ),
        ("dx",),
        "dx[i] = g[i] * symnb_${t}df0(x[i], ${c});",
    ),
    (
        "forward_derivative",
        (
            "const symnb_real* SYMNB_RESTRICT x,\n        symnb_real* SYMNB_RESTRICT y, "
            "symnb_real* SYMNB_RESTRICT dy, symnb_i64 n,\n        const symnb_real* "
            "SYMNB_RESTRICT c"
        ),
        ("y", "dy"),
        (
            "symnb_real yv, dyv;\n        symnb_${t}fdf0(x[i], ${c}, &yv, &dyv);\n"
            "        y[i] = yv;\n        dy[i] = dyv;"
        ),
    ),
    (
        "forward_backward",
        (
            "const symnb_real* SYMNB_RESTRICT x,\n        const symnb_real* SYMNB_RESTRICT "
            "g, symnb_real* SYMNB_RESTRICT y,\n        symnb_real* SYMNB_RESTRICT dx, "
            "symnb_i64 n, const symnb_real* SYMNB_RESTRICT c"
        ),
        ("y", "dx"),
        (
            "symnb_real yv, dyv;\n        symnb_${t}fdf0(x[i], ${c}, &yv, &dyv);\n"
            "        const symnb_real gv = g[i];  /* read before y or dx (either may be "
            "x or g) */\n        y[i] = yv;\n        dx[i] = gv * dyv;"
        ),
    ),
)


#: Elements per block of an in-place call of a C++ elementwise kernel whose form has
#: rare far-|x| branches (:func:`_render_cpp_rare_elementwise`).
RARE_BLOCK = 1024


def _constants_copy(n_params: int, schedule: str) -> tuple[str, str, str]:
    """(the declaration of each thread's own copy of the constants, the name the loop
    bodies read them by, the loop's OpenMP clauses after ``schedule``): OpenMP
    outlining drops ``__restrict__``, so g++ reloaded every constant per element from
    ``c`` (PAU 5/4 forward 1.4x slower, measured); none without constants."""
    if not n_params:
        return "", "c", schedule
    constants = (
        f"symnb_real cl[{n_params}];\n"
        f"    for (int q = 0; q < {n_params}; ++q) cl[q] = c[q];\n    "
    )
    return constants, "cl", f"{schedule} firstprivate(cl)"


def _render_cpp_rare_elementwise(n_params: int) -> str:
    """The four C++ elementwise entry points of a form with rare far-|x| branches
    (:mod:`symnb.codegen.rare`). The SIMD loop computes the near forms (0 where a
    rare condition holds) and OR-reduces whether any element is far; only then a
    scalar pass computes the whole form for the far elements. An output that is an
    input (in place) runs blocks of ``SYMNB_RARE_BLOCK`` elements instead, each
    tested first (:func:`rare_simd_loop`): the second pass would need the inputs."""
    constants, c, private = _constants_copy(n_params, "schedule(static)")
    texts = [f"#define SYMNB_RARE_BLOCK {RARE_BLOCK}"]
    for name, parameters, outputs, body in _RARE_ENTRIES:
        near = string.Template(body).substitute(t="n", c=c)
        whole = string.Template(body).substitute(t="", c=c)
        inputs = ("x", "g") if "g" in parameters.split("SYMNB_RESTRICT ") else ("x",)
        alias = " || ".join(
            f"(const void*){o} == (const void*){a}" for o in outputs for a in inputs
        )
        in_place = rare_simd_loop(
            "#pragma omp simd\n        for (symnb_i64 i = b; i < e; ++i)",
            "",
            whole,
            0,
            "        ",
        )
        texts.append(
            f"""SYMNB_KERNEL void symnb_{name}({parameters}) {{
    {constants}if ({alias}) {{
    /* in place: blocks, each tested before any store */
    #pragma omp parallel for if(parallel: n >= SYMNB_PARALLEL_MIN) {private}
    for (symnb_i64 b = 0; b < n; b += SYMNB_RARE_BLOCK) {{
        const symnb_i64 e = b + SYMNB_RARE_BLOCK < n ? b + SYMNB_RARE_BLOCK : n;
        {in_place}
    }}
    return;
    }}
    int far = 0;
    if (n < SYMNB_PARALLEL_MIN) {{
    #pragma omp simd reduction(|: far)
    for (symnb_i64 i = 0; i < n; ++i) {{
        {near}
        far |= symnb_far0(x[i]);
    }}
    }} else {{
    #pragma omp parallel for simd {private} reduction(|: far)
    for (symnb_i64 i = 0; i < n; ++i) {{
        {near}
        far |= symnb_far0(x[i]);
    }}
    }}
    if (far) {{
    for (symnb_i64 i = 0; i < n; ++i) {{
        if (!symnb_far0(x[i])) continue;
        {whole}
    }}
    }}
}}
"""
        )
    return "\n".join(texts)


#: Elements per block of :data:`_CPP_CONSTANT_GRADIENT`: the float accumulators go
#: into double after each block (a float sum of 16-32 terms per SIMD lane), and the
#: ``blocks`` backward reads the block's x and grad again from L1.
CONSTANT_GRADIENT_BLOCK = 256


def constant_gradient_block(n_params: int) -> int:
    """Block length for ``n_params`` constants, in multiples of 16: shorter for many
    constants (8 bytes x block x constants within 64 KiB, the bound of the former
    per-constant block buffers, kept: fewer float terms per lane before double)."""
    fit = 65536 // (8 * max(n_params, 1)) // 16 * 16
    return max(16, min(CONSTANT_GRADIENT_BLOCK, fit))


_LAYER_CASE = string.Template(
    """        case ${index}:
            ${inner} {
                const symnb_i64 i = r * cols + j;
                const int oj = offsets[j];
                ${statement}
            }
            break;"""
)

_LAYER_DEFAULT = string.Template(
    """        default:
            ${inner} {
                const symnb_i64 i = r * cols + j;
                ${statement}
            }"""
)

#: One per-row kernel of a layer (forward, backward, forward with derivative): the
#: signatures differ (see ``_LAYER_RUN_SIGNATURES``), the run loop is the same.
_LAYER_RUN_KERNEL = string.Template(
    """SYMNB_KERNEL void symnb_${name}(${signature}) {
    ${columns}
    ${run_loop}
        switch (id) {
${cases}
        }
${run_end}
}
"""
)

_LAYER_RUN_SIGNATURES = {  # key -> (entry point, parameter list)
    "forward": (
        "layer_forward",
        """const symnb_real* SYMNB_RESTRICT x,
        symnb_real* SYMNB_RESTRICT y, symnb_i64 rows, symnb_i64 cols,
        const symnb_i32* SYMNB_RESTRICT ids, const symnb_i32* SYMNB_RESTRICT offsets,
        const symnb_real* SYMNB_RESTRICT params""",
    ),
    "backward": (
        "layer_backward",
        """const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, symnb_real* SYMNB_RESTRICT dx,
        symnb_i64 rows, symnb_i64 cols,
        const symnb_i32* SYMNB_RESTRICT ids, const symnb_i32* SYMNB_RESTRICT offsets,
        const symnb_real* SYMNB_RESTRICT params""",
    ),
    "pair": (
        "layer_forward_derivative",
        """const symnb_real* SYMNB_RESTRICT x,
        symnb_real* SYMNB_RESTRICT y, symnb_real* SYMNB_RESTRICT dy,
        symnb_i64 rows, symnb_i64 cols,
        const symnb_i32* SYMNB_RESTRICT ids, const symnb_i32* SYMNB_RESTRICT offsets,
        const symnb_real* SYMNB_RESTRICT params""",
    ),
}

_LAYER_CONSTANT_GRADIENT = string.Template(
    """SYMNB_KERNEL void symnb_layer_constant_gradient(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, double* SYMNB_RESTRICT out,
        symnb_i64 rows, symnb_i64 cols,
        const symnb_i32* SYMNB_RESTRICT ids, const symnb_i32* SYMNB_RESTRICT offsets,
        const symnb_real* SYMNB_RESTRICT params) {
${runs}
    ${column_loop}
        switch (ids[j]) {
${gradient_cases}
        default: break;
        }
    }
}
"""
)

_LAYER_GRADIENT_CASE = string.Template(
    """        case ${index}: {
            const symnb_real* cj = params + offsets[j];
            double* oj = out + offsets[j];
            ${acc_decl}
            for (symnb_i64 r = 0; r < rows; ++r) {
                const symnb_i64 i = r * cols + j;
                symnb_real d[${k}];
                symnb_dc${index}(x[i], cj, d);
                const double gi = (double)g[i];
${acc_update}
            }
${store}
            break;
        }"""
)

#: OpenMP thread queries for the C++ layer helpers (one thread without OpenMP).
_CPP_THREADS = """#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#define SYMNB_MAX_THREADS() omp_get_max_threads()
#define SYMNB_THREAD() omp_get_thread_num()
#else
#define SYMNB_MAX_THREADS() 1
#define SYMNB_THREAD() 0
#endif
/* helpers called from a parallel region stay functions of their own: inlined into
   its outlined body they lose __restrict__ (a plane's forward ran 2x slower) */
#define SYMNB_NOINLINE __attribute__((noinline))"""

#: The constants of a C++ layer by position and column, ``ct[q * cols + j]`` (calloc;
#: NULL when out of memory): loops across a run of columns then load them
#: contiguously, where ``params[offsets[j] + q]`` is a gather per constant (and a
#: masked gather, which g++ 12 leaves scalar, once it moved the load under a select).
_LAYER_TABLE = string.Template(
    """#define SYMNB_KMAX ${kmax}
static int symnb_constants_of(symnb_i32 id) {
    static const int nk[${n_forms}] = {${nk}};
    return id >= 0 && id < ${n_forms} ? nk[id] : 0;
}

static symnb_real* symnb_layer_table(symnb_i64 cols, const symnb_i32* ids,
        const symnb_i32* offsets, const symnb_real* params) {
    symnb_real* ct = (symnb_real*)calloc((size_t)(SYMNB_KMAX * cols + 1),
                                         sizeof(symnb_real));
    if (!ct) return ct;
    for (symnb_i64 j = 0; j < cols; ++j) {
        const int k = symnb_constants_of(ids[j]);
        for (int q = 0; q < k; ++q) ct[q * cols + j] = params[offsets[j] + q];
    }
    return ct;
}
"""
)

#: A C++ layer entry point (forward, backward, forward with derivative) over rows:
#: runs of columns with one form are SIMD loops across the columns, the constants
#: from the table (:data:`_LAYER_TABLE`), 16 rows per call of a helper of its own
#: (restrict kept); column mode (a SIMD loop down each column, blocks of 64 rows)
#: where the forms alternate (runs under 32 columns on average) or the table could
#: not be allocated.
_CPP_LAYER_ROWS = string.Template(
    """static SYMNB_NOINLINE void symnb_rows_${key}(${helper_signature}) {
    for (symnb_i64 r = rb; r < re; ++r) {
    const symnb_i64 row = r * cols;
    for (symnb_i64 u = 0; u < runs; ++u) {
        const symnb_i64 j0 = rs[u], j1 = rs[u + 1];
        switch (ids[j0]) {
${run_cases}
        default:
            for (symnb_i64 j = j0; j < j1; ++j) {
                const symnb_i64 i = row + j;
                ${bad}
            }
        }
    }
    }
}

SYMNB_KERNEL void symnb_${name}(${signature}) {
    symnb_i64 runs = 1;
    for (symnb_i64 j = 1; j < cols; ++j) runs += ids[j] != ids[j - 1];
    symnb_real* ct = rows >= 16 && 32 * runs > cols
        ? (symnb_real*)0 : symnb_layer_table(cols, ids, offsets, params);
    /* where each run of one form starts (and cols at the end) */
    symnb_i64* rs = ct ? (symnb_i64*)malloc((size_t)(runs + 1) * sizeof(symnb_i64)) : 0;
    if (ct && !rs) {
        free(ct);
        ct = 0;
    }
    if (!ct) {
        const symnb_i64 blocks = (rows + 63) / 64;
    #pragma omp parallel for if(parallel: rows * cols >= SYMNB_PARALLEL_MIN) schedule(static)
        for (symnb_i64 b = 0; b < blocks; ++b) {
        const symnb_i64 rb = 64 * b, re = rb + 64 < rows ? rb + 64 : rows;
        for (symnb_i64 j = 0; j < cols; ++j) {
        switch (ids[j]) {
${column_cases}
        }
        }
        }
        return;
    }
    rs[0] = 0;
    for (symnb_i64 j = 1, u = 1; j < cols; ++j)
        if (ids[j] != ids[j - 1]) rs[u++] = j;
    rs[runs] = cols;
    const symnb_i64 blocks = (rows + 15) / 16;
    #pragma omp parallel for if(parallel: rows * cols >= SYMNB_PARALLEL_MIN) schedule(static)
    for (symnb_i64 b = 0; b < blocks; ++b) {
        const symnb_i64 rb = 16 * b, re = rb + 16 < rows ? rb + 16 : rows;
        symnb_rows_${key}(${helper_call});
    }
    free(rs);
    free(ct);
}
"""
)

_CPP_ROW_CASE = string.Template(
    """        case ${index}:
            #pragma omp simd
            for (symnb_i64 j = j0; j < j1; ++j) {
                const symnb_i64 i = row + j;
                ${statement}
            }
            break;"""
)

#: per kind of row kernel: (helper parameters after the arrays, call arguments)
_CPP_ROW_HELPERS = {
    "forward": (
        "const symnb_real* SYMNB_RESTRICT x, symnb_real* SYMNB_RESTRICT y",
        "x, y",
    ),
    "backward": (
        (
            "const symnb_real* SYMNB_RESTRICT x, const symnb_real* SYMNB_RESTRICT g,\n"
            "        symnb_real* SYMNB_RESTRICT dx"
        ),
        "x, g, dx",
    ),
    "pair": (
        (
            "const symnb_real* SYMNB_RESTRICT x, symnb_real* SYMNB_RESTRICT y,\n"
            "        symnb_real* SYMNB_RESTRICT dy"
        ),
        "x, y, dy",
    ),
}


#: C++ layer constants' gradient when columns come in long runs of one form (a layer
#: of one formula with per-neuron constants, per-channel activations): SIMD across the
#: columns of each run, row by row (contiguous x and g, constants gathered as in the
#: forward), into float accumulators ``fa[q * cols + j]`` added to double sums
#: ``da`` every ``SYMNB_GRAD_ROWS`` rows (a float sum of 16 terms, as the elementwise
#: kernel's lanes). The column-by-column loop it replaces reads each column with a
#: stride of ``cols`` in scalar code: PAU 5/4, 64 neurons x 16384 rows, 11 ms.
#: Returns 0 when it cannot allocate its buffers (the caller then runs the column
#: loop).
_LAYER_GRADIENT_RUNS = string.Template(
    """#define SYMNB_GRAD_ROWS 16
/* rows [rb, re) into the thread's float accumulators, then into its double sums: a
   function of its own (not inside the parallel region, whose outlined body lost
   __restrict__, so g++ reloaded the shared pointers and left the loop scalar) */
static SYMNB_NOINLINE void symnb_layer_gradient_block(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, symnb_real* SYMNB_RESTRICT fa,
        double* SYMNB_RESTRICT da, symnb_i64 rb, symnb_i64 re, symnb_i64 cols,
        symnb_i64 width, const symnb_i32* SYMNB_RESTRICT ids,
        const symnb_i64* SYMNB_RESTRICT rs, symnb_i64 runs,
        const symnb_real* SYMNB_RESTRICT ct) {
    for (symnb_i64 r = rb; r < re; ++r) {
    for (symnb_i64 u = 0; u < runs; ++u) {
        const symnb_i64 j0 = rs[u], j1 = rs[u + 1];
        switch (ids[j0]) {
${cases}
        default: break;
        }
    }
    }
    for (symnb_i64 e = 0; e < width; ++e) {
        da[e] += (double)fa[e];
        fa[e] = 0;
    }
}

static int symnb_layer_gradient_runs(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, double* SYMNB_RESTRICT out,
        symnb_i64 rows, symnb_i64 cols, symnb_i64 runs,
        const symnb_i32* SYMNB_RESTRICT ids, const symnb_i32* SYMNB_RESTRICT offsets,
        const symnb_real* SYMNB_RESTRICT params) {
    const symnb_i64 width = SYMNB_KMAX * cols;
    const int teams = rows * cols >= SYMNB_PARALLEL_MIN ? SYMNB_MAX_THREADS() : 1;
    symnb_real* fa_all = (symnb_real*)calloc((size_t)(width * teams), sizeof(symnb_real));
    double* da_all = (double*)calloc((size_t)(width * teams), sizeof(double));
    symnb_real* ct = symnb_layer_table(cols, ids, offsets, params);
    symnb_i64* rs = (symnb_i64*)malloc((size_t)(runs + 1) * sizeof(symnb_i64));
    if (!fa_all || !da_all || !ct || !rs) {
        free(fa_all);
        free(da_all);
        free(ct);
        free(rs);
        return 0;
    }
    rs[0] = 0;
    for (symnb_i64 j = 1, u = 1; j < cols; ++j)
        if (ids[j] != ids[j - 1]) rs[u++] = j;
    rs[runs] = cols;
    const symnb_i64 blocks = (rows + SYMNB_GRAD_ROWS - 1) / SYMNB_GRAD_ROWS;
    #pragma omp parallel for num_threads(teams) if(teams > 1) schedule(static)
    for (symnb_i64 b = 0; b < blocks; ++b) {
        const symnb_i64 t = SYMNB_THREAD();
        const symnb_i64 rb = b * SYMNB_GRAD_ROWS;
        const symnb_i64 re = rb + SYMNB_GRAD_ROWS < rows ? rb + SYMNB_GRAD_ROWS : rows;
        symnb_layer_gradient_block(x, g, fa_all + width * t, da_all + width * t, rb,
                                   re, cols, width, ids, rs, runs, ct);
    }
    for (int t = 0; t < teams; ++t) {
        const double* da = da_all + width * t;
        for (symnb_i64 j = 0; j < cols; ++j) {
            const int k = symnb_constants_of(ids[j]);
            for (int q = 0; q < k; ++q) out[offsets[j] + q] += da[q * cols + j];
        }
    }
    free(fa_all);
    free(da_all);
    free(ct);
    free(rs);
    return 1;
}
"""
)

_LAYER_GRADIENT_RUN_CASE = string.Template(
    """        case ${index}: {
            const symnb_i64 row = r * cols;${far_decl}
            #pragma omp simd${far_clause}
            for (symnb_i64 j = j0; j < j1; ++j) {
                symnb_real ${locals};
                ${dc_call}
                const symnb_real gj = g[row + j];
${updates}
            }${far_pass}
            break;
        }"""
)


def rare_gradient_fields(
    index: int,
    k: int,
    rare: bool,
    head: str,
    at: str,
    values: str,
    after: str,
    indent: str,
    form: str = "v",
    load: str = "",
) -> dict[str, str]:
    """Template fields of a C++ constants' gradient SIMD loop over form ``index``
    with ``k`` constants (``dc_call``, ``far_decl``, ``far_clause``, ``far_pass``):
    the whole gradient (``symnb_dcv``) per element, or, where its constants' gradients
    have rare far-|x| branches (``rare``), the near ones (``symnb_ndcv``, 0 for far
    elements) in the SIMD loop and a second pass that adds the whole ones of the far
    elements only when the loop saw one (a per-channel PAU layer's gradient computed
    the far forms, with their divisions, for every element: 166 ms against 11 ms).
    ``head``: the loop's ``for`` line; ``at``: the element's input; ``values``: the
    constants; ``after``: the loop's statements after the call (the grad's load and
    the sums), repeated in the far pass; ``indent``: the loop's; ``form``: ``"v"``
    (constants as values) or ``"s"`` (``values`` is a pointer: ``symnb_dcs``);
    ``load``: the far pass's first statement (the element's loads)."""
    addresses = ", ".join(f"&d{q}" for q in range(k))
    call = f"symnb_dc{form}{index}({at}, {values}, {addresses});"
    if not rare:
        return {"dc_call": call, "far_decl": "", "far_clause": "", "far_pass": ""}
    inner = indent + "    "
    lines = [load] if load else []
    lines += [f"if (!symnb_fardc{index}({at})) continue;"]
    lines += [f"symnb_real {', '.join(f'd{q}' for q in range(k))};", call]
    lines += [t.strip() for t in after.splitlines() if t.strip()]
    return {
        "dc_call": f"symnb_ndc{form}{index}({at}, {values}, {addresses});\n"
        f"{inner}far_dc |= symnb_fardc{index}({at});",
        "far_decl": f"\n{indent}int far_dc = 0;",
        "far_clause": " reduction(|: far_dc)",
        "far_pass": f"\n{indent}if (far_dc) {{\n{inner}{head} {{\n"
        + "\n".join(f"{inner}    {t}" for t in lines)
        + f"\n{inner}}}\n{indent}}}",
    }


#: The column loop runs instead when the forms alternate (runs shorter than 8
#: columns on average) or the rows are few.
_LAYER_GRADIENT_RUNS_CALL = """    {
        symnb_i64 runs = 1;
        for (symnb_i64 j = 1; j < cols; ++j) runs += ids[j] != ids[j - 1];
        if (rows >= SYMNB_GRAD_ROWS && 8 * runs <= cols
                && symnb_layer_gradient_runs(x, g, out, rows, cols, runs, ids, offsets,
                                             params))
            return;
    }"""


#: C++ layer entry points for a feature axis that is not the last one (per-channel
#: activations of an NCHW tensor): the array is ``planes`` contiguous runs of
#: ``inner`` elements, plane p belonging to feature ``p % cols``; each plane is an
#: elementwise SIMD loop with its neuron's constants, so no transposes are needed.
#: Planes are cut into chunks of SYMNB_PLANE_CHUNK elements for the threads (a few
#: large planes still split). The work of one chunk is a function of its own (the
#: parallel region's outlined body loses __restrict__).
_LAYER_PLANES = string.Template(
    """#define SYMNB_PLANE_CHUNK 4096
static SYMNB_NOINLINE void symnb_plane_forward(const symnb_real* SYMNB_RESTRICT x,
        symnb_real* SYMNB_RESTRICT y, symnb_i64 n, symnb_i32 id, int oj,
        const symnb_real* SYMNB_RESTRICT params) {
    switch (id) {
${forward_cases}
    default:
        for (symnb_i64 i = 0; i < n; ++i) y[i] = SYMNB_NAN;
    }
}

static SYMNB_NOINLINE void symnb_plane_backward(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, symnb_real* SYMNB_RESTRICT dx, symnb_i64 n,
        symnb_i32 id, int oj, const symnb_real* SYMNB_RESTRICT params) {
    switch (id) {
${backward_cases}
    default:
        for (symnb_i64 i = 0; i < n; ++i) dx[i] = SYMNB_NAN;
    }
}

/* the chunk's sum of g * df/dc_q into out[oj + q] (the thread's own sums): float
   sums over blocks of 256 elements, added to double after each block */
static SYMNB_NOINLINE void symnb_plane_gradient(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, double* SYMNB_RESTRICT out, symnb_i64 n,
        symnb_i32 id, int oj, const symnb_real* SYMNB_RESTRICT params) {
    switch (id) {
${gradient_cases}
    default: break;
    }
}

#define SYMNB_PLANE_LOOP(CALL) \\
    const symnb_i64 per = (inner + SYMNB_PLANE_CHUNK - 1) / SYMNB_PLANE_CHUNK; \\
    _Pragma("omp parallel for if(parallel: planes * inner >= SYMNB_PARALLEL_MIN) schedule(static)") \\
    for (symnb_i64 t = 0; t < planes * per; ++t) { \\
        const symnb_i64 p = t / per, s = (t - p * per) * SYMNB_PLANE_CHUNK; \\
        const symnb_i64 m = inner - s < SYMNB_PLANE_CHUNK ? inner - s : SYMNB_PLANE_CHUNK; \\
        const symnb_i64 j = p % cols, e = p * inner + s; \\
        CALL; \\
    }

SYMNB_KERNEL void symnb_layer_planes_forward(const symnb_real* SYMNB_RESTRICT x,
        symnb_real* SYMNB_RESTRICT y, symnb_i64 planes, symnb_i64 cols, symnb_i64 inner,
        const symnb_i32* SYMNB_RESTRICT ids, const symnb_i32* SYMNB_RESTRICT offsets,
        const symnb_real* SYMNB_RESTRICT params) {
    SYMNB_PLANE_LOOP(symnb_plane_forward(x + e, y + e, m, ids[j], offsets[j], params))
}

SYMNB_KERNEL void symnb_layer_planes_backward(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, symnb_real* SYMNB_RESTRICT dx,
        symnb_i64 planes, symnb_i64 cols, symnb_i64 inner,
        const symnb_i32* SYMNB_RESTRICT ids, const symnb_i32* SYMNB_RESTRICT offsets,
        const symnb_real* SYMNB_RESTRICT params) {
    SYMNB_PLANE_LOOP(symnb_plane_backward(x + e, g + e, dx + e, m, ids[j], offsets[j],
                                          params))
}

/* out (the layer's constants, zeroed by the caller) += sum over the planes of
   feature j of g * df/dc; returns 0 when it cannot allocate the per-thread sums */
SYMNB_KERNEL int symnb_layer_planes_constant_gradient(
        const symnb_real* SYMNB_RESTRICT x, const symnb_real* SYMNB_RESTRICT g,
        double* SYMNB_RESTRICT out, symnb_i64 planes, symnb_i64 cols, symnb_i64 inner,
        symnb_i64 total, const symnb_i32* SYMNB_RESTRICT ids,
        const symnb_i32* SYMNB_RESTRICT offsets,
        const symnb_real* SYMNB_RESTRICT params) {
    const int teams = planes * inner >= SYMNB_PARALLEL_MIN ? SYMNB_MAX_THREADS() : 1;
    double* sums = (double*)calloc((size_t)(total * teams + 1), sizeof(double));
    if (!sums) return 0;
    const symnb_i64 per = (inner + SYMNB_PLANE_CHUNK - 1) / SYMNB_PLANE_CHUNK;
    #pragma omp parallel for num_threads(teams) if(teams > 1) schedule(static)
    for (symnb_i64 t = 0; t < planes * per; ++t) {
        const symnb_i64 p = t / per, s = (t - p * per) * SYMNB_PLANE_CHUNK;
        const symnb_i64 m = inner - s < SYMNB_PLANE_CHUNK ? inner - s : SYMNB_PLANE_CHUNK;
        const symnb_i64 j = p % cols, e = p * inner + s;
        symnb_plane_gradient(x + e, g + e, sums + total * SYMNB_THREAD(), m, ids[j],
                             offsets[j], params);
    }
    for (int t = 0; t < teams; ++t)
        for (symnb_i64 q = 0; q < total; ++q) out[q] += sums[total * t + q];
    free(sums);
    return 1;
}
"""
)

_PLANE_CASE = string.Template(
    """    case ${index}:
        #pragma omp simd
        for (symnb_i64 i = 0; i < n; ++i) ${statement}
        break;"""
)

_PLANE_GRADIENT_CASE = string.Template(
    """    case ${index}: {
${loads}
        for (symnb_i64 b = 0; b < n; b += 256) {
            const symnb_i64 be = b + 256 < n ? b + 256 : n;
            symnb_real ${sums_init};${far_decl}
            #pragma omp simd reduction(+: ${sums})${far_clause}
            for (symnb_i64 i = b; i < be; ++i) {
                symnb_real ${locals};
                ${dc_call}
                const symnb_real gi = g[i];
${updates}
            }${far_pass}
${flush}
        }
        break;
    }"""
)


def block_sum_fields(k: int, update_indent: int, flush: str) -> dict[str, str]:
    """Template fields of a blocked constants' sum over ``k`` constants: float sums
    ``s<r>`` in a SIMD reduction of ``gi * d<r>``, then ``flush`` (a format with ``{r}``)
    once per block. Shared by the layer planes and the fused training step."""
    q = range(k)
    return {
        "sums_init": ", ".join(f"s{r} = 0" for r in q),
        "sums": ", ".join(f"s{r}" for r in q),
        "locals": ", ".join(f"d{r}" for r in q),
        "addresses": ", ".join(f"&d{r}" for r in q),
        "updates": "\n".join(" " * update_indent + f"s{r} += gi * d{r};" for r in q),
        "flush": "\n".join(flush.format(r=r) for r in q),
    }


def render_layer_planes(
    n_params: tuple[int, ...],
    rare: tuple[bool, ...] = (),
    dc_rare: tuple[bool, ...] = (),
) -> str:
    """The C++ plane-wise layer entry points (see :data:`_LAYER_PLANES`); ``rare``
    and ``dc_rare`` as in :func:`render_layer`."""
    rare = tuple(rare) + (False,) * (len(n_params) - len(rare))
    dc_rare = tuple(dc_rare) + (False,) * (len(n_params) - len(dc_rare))
    fwd, bwd, grad = [], [], []
    for i, k in enumerate(n_params):
        for cases, statement in (
            (fwd, f"y[i] = symnb_f{i}(x[i], params, oj);"),
            (bwd, f"dx[i] = g[i] * symnb_df{i}(x[i], params, oj);"),
        ):
            if rare[i]:
                loop = rare_simd_loop(
                    "#pragma omp simd\n        for (symnb_i64 i = 0; i < n; ++i)",
                    "",
                    statement,
                    i,
                    "        ",
                )
                cases.append(f"    case {i}: {loop}\n        break;")
            else:
                cases.append(_PLANE_CASE.substitute(index=i, statement=statement))
        if not k:
            continue
        q = range(k)
        sums = block_sum_fields(k, 16, "            out[oj + {r}] += (double)s{r};")
        grad.append(
            _PLANE_GRADIENT_CASE.substitute(
                index=i,
                loads="\n".join(
                    f"        const symnb_real c{r} = params[oj + {r}];" for r in q
                ),
                **sums,
                **rare_gradient_fields(
                    i,
                    k,
                    dc_rare[i],
                    "for (symnb_i64 i = b; i < be; ++i)",
                    "x[i]",
                    ", ".join(f"c{r}" for r in q),
                    "const symnb_real gi = g[i];\n" + sums["updates"],
                    "            ",
                ),
            )
        )
    return _LAYER_PLANES.substitute(
        forward_cases="\n".join(fwd),
        backward_cases="\n".join(bwd),
        gradient_cases="\n".join(grad),
    )


#: Plane-wise entry points (C++ layers in one translation unit only): looked up
#: optionally; a library without them runs the row kernels on a transposed copy.
PLANE_ENTRY_POINTS = {
    "layer_planes_forward": "symnb_layer_planes_forward",
    "layer_planes_backward": "symnb_layer_planes_backward",
    "layer_planes_constant_gradient": "symnb_layer_planes_constant_gradient",
}


_LOSS = string.Template(
    """SYMNB_KERNEL void symnb_loss_value(const symnb_real* SYMNB_RESTRICT p,
        const symnb_real* SYMNB_RESTRICT t, symnb_i64 n,
        const symnb_real* SYMNB_RESTRICT c, double* SYMNB_RESTRICT out) {
    double acc0 = 0.0;
    ${reduce_loop}
        acc0 += (double)symnb_f0(p[i], t[i], c);
    }
    SYMNB_ATOMIC_ADD(&out[0], acc0);
}

SYMNB_KERNEL void symnb_loss_gradient(const symnb_real* SYMNB_RESTRICT p,
        const symnb_real* SYMNB_RESTRICT t, symnb_real* SYMNB_RESTRICT g, symnb_i64 n,
        const symnb_real* SYMNB_RESTRICT c, double scale) {
    const symnb_real s = (symnb_real)scale;
    ${loop}
        g[i] = s * symnb_df0(p[i], t[i], c);
    }
}
"""
)


def _loop(d: Dialect, n: str, reduction_vars: list[str] | None = None) -> str:
    clause = ""
    if reduction_vars and d.reduction_clause:
        clause = string.Template(d.reduction_clause).substitute(
            vars=", ".join(reduction_vars)
        )
    return string.Template(d.loop).substitute(n=n, clause=clause)


def render_cpp_constant_gradient(
    n_params: int, fused_backward: str = "", rare: bool = False, dc_rare: bool = False
) -> str:
    """C++ ``symnb_constant_gradient`` (``fused_backward=""``) or a fused backward
    ``(x, g, dx, out, n, c)`` that also writes ``dx = g * f'(x)``: ``"blocks"``
    (:data:`FUSED_BACKWARD`: a loop for dx, then one for the constants, per block) or
    ``"joint"`` (:data:`FUSED_BACKWARD_JOINT`: one loop over ``symnb_dfdcs0``, f' and
    df/dc lowered together); see :data:`_CPP_CONSTANT_GRADIENT`. ``rare``: f' has
    rare far-|x| branches (the blocks' dx loop computes them only where needed,
    :data:`_CPP_BLOCK_BACKWARD_RARE`); ``dc_rare``: the constants' gradients have
    them (the loop sums the near forms, ``symnb_ndcs0``, and a second pass adds the
    whole ones of the block's far elements; not in the joint loop)."""
    k = range(n_params)
    addresses = ", ".join(f"&d{q}" for q in k)
    sum_updates = "\n".join(f"                s{q} += gj * d{q};" for q in k)
    fields = rare_gradient_fields(
        0,
        n_params,
        dc_rare and fused_backward != "joint",
        "for (symnb_i64 j = 0; j < m; ++j)",
        "xj",
        "cl",
        sum_updates,
        "            ",
        form="s",
        load="const symnb_real xj = xb[j], gj = gb[j];",
    )
    dx_loop = ""
    if fused_backward == "blocks":
        dx_loop = _CPP_BLOCK_BACKWARD_RARE if rare else _CPP_BLOCK_BACKWARD
    elif fused_backward == "joint":
        dx_loop = "            symnb_real* SYMNB_RESTRICT db = dx + b;"
        fields["dc_call"] = (
            "symnb_real dfj;\n"
            f"                symnb_dfdcs0(xj, cl, &dfj, {addresses});\n"
            "                db[j] = gj * dfj;"
        )
    names = {
        "": "constant_gradient",
        "blocks": FUSED_BACKWARD[len("symnb_") :],
        "joint": FUSED_BACKWARD_JOINT[len("symnb_") :],
    }
    return _CPP_CONSTANT_GRADIENT.substitute(
        name=names[fused_backward],
        k=n_params,
        dx_param=" symnb_real* SYMNB_RESTRICT dx," if fused_backward else "",
        dx_loop=dx_loop,
        locals=", ".join(f"d{q}" for q in k),
        sums_init=", ".join(f"s{q} = 0" for q in k),
        sums=", ".join(f"s{q}" for q in k),
        sum_updates=sum_updates,
        **fields,
        part_updates="\n".join(f"            part[{q}] += (double)s{q};" for q in k),
    )


_FORM_JOINT = string.Template(
    """SYMNB_FN void symnb_dfdcs0(symnb_real a0, const symnb_real* SYMNB_RESTRICT c,
        symnb_real* SYMNB_RESTRICT df, ${outputs}, int o = 0) {
${body}
    const bool nan_in = ${guard};
    *df = nan_in ? ${nan_value} : (${result});
${stores}
}
"""
)


def render_joint_backward(form, dtype: str, max_operations: int) -> str:
    """C++ ``symnb_dfdcs0`` (f' and every df/dc of one form, lowered together so they
    share temporaries) and the :data:`FUSED_BACKWARD_JOINT` entry point over it; ""
    when the form has no constants or the joint expression is too large.

    The joint loop saves work where f' and df/dc share costly terms (swish: one
    sigmoid instead of two), but g++ 12 leaves some large bodies scalar (PAU 5/4: ten
    times slower than :data:`FUSED_BACKWARD`); ``symnb.interop.native`` times both
    once and keeps the faster."""
    if not form.params:
        return ""
    syms = _symbols(tuple(form.inputs), tuple(form.params))
    try:
        # f' as symnb_df computes it, the constants' gradients as symnb_dc does
        low = lower(
            (form.df, *form.dparams),
            syms,
            dtype,
            max_operations,
            "the backward",
            share_reciprocals=(False, True),
            groups=(1, len(form.dparams)),
        )
    except FormulaError:
        return ""
    guard, nan_value = _guard(1)
    k = range(len(form.params))
    text = _FORM_JOINT.substitute(
        outputs=", ".join(f"symnb_real* SYMNB_RESTRICT d{q}" for q in k),
        body="\n".join(
            _preamble(len(form.params)) + ["    " + t for t in low.statements]
        ),
        guard=guard,
        nan_value=nan_value,
        result=low.results[0],
        stores="\n".join(
            f"    *d{q} = nan_in ? {nan_value} : ({r});"
            for q, r in zip(k, low.results[1:])
        ),
    )
    return text + "\n" + render_cpp_constant_gradient(len(form.params), "joint")


#: Elements per block of the threaded C++ elementwise loops (a multiple of 16, so that
#: every block after the first starts on a 64-byte line of the output).
CPP_LINE_BLOCK = 2048

#: The C++ elementwise entry points: (name, parameters, first output, loop body).
#: Forward and backward store once, after every load of the element, so an in-place
#: call is right under ``__restrict__``; the pairs (two outputs, either of which may
#: be an input) take plain pointers: with ``__restrict__`` outside the OpenMP
#: outlining g++ read g[i] (or reloaded x[i]) after storing y[i] there
#: (tests/backends/test_forward_and_backward.py), and ``omp simd`` vectorises them
#: without alias checks.
_CPP_ENTRIES = (
    (
        "forward",
        (
            "const symnb_real* SYMNB_RESTRICT x,\n        symnb_real* SYMNB_RESTRICT y, "
            "symnb_i64 n, const symnb_real* SYMNB_RESTRICT c"
        ),
        "y",
        "y[i] = symnb_f0(x[i], ${c});",
    ),
    (
        "backward",
        (
            "const symnb_real* SYMNB_RESTRICT x,\n        const symnb_real* SYMNB_RESTRICT g, "
            "symnb_real* SYMNB_RESTRICT dx, symnb_i64 n,\n        "
            "const symnb_real* SYMNB_RESTRICT c"
        ),
        "dx",
        "dx[i] = g[i] * symnb_df0(x[i], ${c});",
    ),
    (
        "forward_derivative",
        (
            "const symnb_real* x,\n        symnb_real* y, symnb_real* dy, symnb_i64 n,\n"
            "        const symnb_real* SYMNB_RESTRICT c"
        ),
        "y",
        (
            "symnb_real yv, dyv;\n        symnb_fdf0(x[i], ${c}, &yv, &dyv);\n"
            "        y[i] = yv;\n        dy[i] = dyv;"
        ),
    ),
    (
        "forward_backward",
        (
            "const symnb_real* x,\n        const symnb_real* g, symnb_real* y,\n"
            "        symnb_real* dx, symnb_i64 n, const symnb_real* SYMNB_RESTRICT c"
        ),
        "y",
        (
            "symnb_real yv, dyv;\n        symnb_fdf0(x[i], ${c}, &yv, &dyv);\n"
            "        const symnb_real gv = g[i];  /* read before y or dx (either may be "
            "x or g) */\n        y[i] = yv;\n        dx[i] = gv * dyv;"
        ),
    ),
)

#: Elements before the first 64-byte boundary of ``p`` (at most ``n``).
_CPP_HEAD = """SYMNB_FN symnb_i64 symnb_head(const void* p, symnb_i64 n) {
    const symnb_i64 h = (symnb_i64)((64u - ((uintptr_t)p & 63u)) & 63u)
        / (symnb_i64)sizeof(symnb_real);
    return h < n ? h : n;
}"""

_CPP_ENTRY = string.Template(
    """SYMNB_KERNEL void symnb_${name}(${parameters}) {
    ${constants}const symnb_i64 h = ${head};
    for (symnb_i64 i = 0; i < h; ++i) {
        ${body}
    }
    if (n < SYMNB_PARALLEL_MIN) {
    #pragma omp simd
    for (symnb_i64 i = h; i < n; ++i) {
        ${body}
    }
    return;
    }
    #pragma omp parallel for schedule(static)${private}
    for (symnb_i64 b = h; b < n; b += SYMNB_LINE_BLOCK) {
        const symnb_i64 e = n - b > SYMNB_LINE_BLOCK ? b + SYMNB_LINE_BLOCK : n;
        #pragma omp simd
        for (symnb_i64 i = b; i < e; ++i) {
        ${body}
        }
    }
}
"""
)


def _render_cpp_elementwise(n_params: int, narrow: bool = False) -> str:
    """The four C++ elementwise entry points (forms without rare branches).

    Narrow ones first run the elements before the first 64-byte line of one array, so
    the SIMD loop's accesses to it never split a cache line (NumPy puts large arrays
    16 bytes past a line, heap ones at any multiple of 16). Which array: for kernels
    bound by memory (``narrow``, :func:`narrow_vectors`) the (first) output, whose
    split stores cost most: a 1e5-element relu fwd+bwd 62 -> 23 us with every array
    at one offset (one thread, AVX-512, L2-resident; 906 -> 581 us at 1e6), forward
    with x and y at different offsets 12.6 -> 9.2 us against lining up x; for the
    others none: a scalar prologue computes math functions with other bits than the
    vector loop, so where the split fell would make a result depend on where x lies
    in memory (tests/nn/test_model_pickling.py: a copied model predicted 1 ulp off).
    Narrow kernels compute exact arithmetic only, the same bits either way. Below
    the thread threshold a plain SIMD loop
    (``parallel ... if(false)`` still enters libgomp, about 0.5-1 us a call); above
    it the threads take blocks of :data:`CPP_LINE_BLOCK` elements, which keep that
    alignment."""
    constants, c, private = _constants_copy(n_params, "")
    texts = [f"#define SYMNB_LINE_BLOCK {CPP_LINE_BLOCK}", _CPP_HEAD]
    for name, parameters, out, body in _CPP_ENTRIES:
        texts.append(
            _CPP_ENTRY.substitute(
                name=name,
                parameters=parameters,
                constants=constants,
                # narrow kernels only: their arithmetic is exact in scalar and vector
                # code; a kernel with math functions would give other bits for the
                # elements before the line (scalar libm), so its result would depend on
                # where x lies in memory (a copied model predicted 1 ulp off)
                head=f"symnb_head({out}, n)" if narrow else "0",
                body=string.Template(body).substitute(c=c),
                private=private,
            )
        )
    return "\n".join(texts)


@functools.lru_cache(maxsize=256)
def render_elementwise(
    dialect: str,
    n_params: int,
    rare: bool = False,
    narrow: bool = False,
    dc_rare: bool = False,
) -> str:
    """The four elementwise entry points (over symnb_f0/df0/fdf0/dc0); C++ kernels
    with constants add ``symnb_backward_constant_gradient`` (:data:`FUSED_BACKWARD`).
    ``rare``: f and f' have rare far-|x| branches (:mod:`symnb.codegen.rare`; C++
    computes them in a second pass only where needed, CUDA branches in the form
    functions). ``narrow``: C++ kernels bound by memory (:func:`narrow_vectors`),
    whose loops line up the output instead of the input."""
    d = DIALECTS[dialect]
    maps = _ELEMENTWISE.substitute(loop=_loop(d, "n"), constants="", c="c")
    if dialect == "cpp" and rare:
        maps = _render_cpp_rare_elementwise(n_params)
    elif dialect == "cpp" and not n_params:
        maps = _render_cpp_elementwise(0, narrow)
    if n_params and dialect == "cpp":
        return "\n".join(
            [
                f"#define SYMNB_BLOCK {constant_gradient_block(n_params)}",
                _render_cpp_forward_entries(n_params, rare, narrow),
                render_cpp_constant_gradient(n_params, dc_rare=dc_rare),
                render_cpp_constant_gradient(n_params, "blocks", rare, dc_rare),
            ]
        )
    if n_params:
        accs = [f"acc{k}" for k in range(n_params)]
        body = _CONSTANT_GRADIENT_BODY.substitute(
            acc_decl="double " + ", ".join(f"{a} = 0.0" for a in accs) + ";",
            loop=_loop(d, "n", accs),
            k=n_params,
            acc_update="\n".join(
                f"        acc{k} += gi * (double)d[{k}];" for k in range(n_params)
            ),
            combine="\n".join(
                f"    SYMNB_ATOMIC_ADD(&out[{k}], acc{k});" for k in range(n_params)
            ),
        )
    else:
        body = "    (void)x; (void)g; (void)out; (void)n; (void)c;"
    return maps + "\n" + _CONSTANT_GRADIENT.substitute(constant_gradient_body=body)


def _render_cpp_forward_entries(n_params: int, rare: bool, narrow: bool) -> str:
    """The four C++ elementwise entry points of f and f' (no constants' gradient)."""
    if rare:
        return _render_cpp_rare_elementwise(n_params)
    return _render_cpp_elementwise(n_params, narrow)


_FORM_CALL = re.compile(r"\bsymnb_(v?)(f|df|fdf)(\d+)\(")


def _near_statement(statement: str) -> str:
    """``statement`` calling the near forms (``symnb_nf<i>``, ``symnb_vnf<i>``, ...)
    of :mod:`symnb.codegen.rare` instead of the whole ones."""
    return _FORM_CALL.sub(lambda m: f"symnb_{m[1]}n{m[2]}{m[3]}(", statement)


def rare_simd_loop(
    header: str,
    prologue: str,
    statement: str,
    index: int,
    indent: str,
    argument: str = "x[i]",
) -> str:
    """A C++ SIMD loop (``header``: ``#pragma omp simd`` and the ``for``) over
    ``statement`` for a form with rare far-|x| branches: a first loop only reads the
    input (``argument``) and takes the largest magnitude (as bits, one integer max
    per vector); below the rare thresholds the near forms run, else the whole ones.
    Reading x before any store keeps an in-place call right."""
    reduce = header.replace("#pragma omp simd", "#pragma omp simd reduction(max: m)")
    pro = f"{prologue} " if prologue else ""
    near = _near_statement(statement)
    return (
        f"{{\n{indent}symnb_bits{index} m = 0;\n{indent}{reduce} {{\n{indent}    "
        f"{pro}const symnb_bits{index} u = symnb_magnitude{index}({argument});\n"
        f"{indent}    m = u > m ? u : m;\n{indent}}}\n"
        f"{indent}if (m < symnb_farbits{index}) {{\n{indent}{header} {{\n{indent}    "
        f"{pro}{near}\n{indent}}}\n{indent}}} else {{\n{indent}{header} {{\n"
        f"{indent}    {pro}{statement}\n{indent}}}\n{indent}}}\n{indent}}}"
    )


@functools.lru_cache(maxsize=256)
def render_layer(
    dialect: str,
    n_params: tuple[int, ...],
    first: int = 0,
    total: int | None = None,
    rare: tuple[bool, ...] = (),
    dc_rare: tuple[bool, ...] = (),
) -> str:
    """The four layer entry points: per row, one switch per run of columns that share
    a form (a SIMD loop over the run in C++; one element per thread in CUDA). The C++
    dialect switches to column-by-column SIMD loops over the rows when the forms
    alternate too often for runs to vectorise.

    ``first`` and ``total`` render one group of a split layer (forms ``first`` ..
    ``first + len(n_params) - 1`` of ``total``): columns of other groups' forms are
    left alone, ids outside ``[0, total)`` still give NaN.

    ``rare[i]``: form ``i`` has rare far-|x| branches (:mod:`symnb.codegen.rare`); its
    C++ SIMD loops run the near forms unless an element of the run is far
    (:func:`rare_simd_loop`). ``dc_rare[i]``: its constants' gradients have them
    (:func:`rare_gradient_fields`).
    """
    rare = tuple(rare) + (False,) * (len(n_params) - len(rare))
    dc_rare = tuple(dc_rare) + (False,) * (len(n_params) - len(dc_rare))
    d = DIALECTS[dialect]
    statements = {  # per entry point: (statement for form i, statement for a bad id)
        "forward": (
            lambda i: f"y[i] = symnb_f{i}(x[i], params, oj);",
            "y[i] = SYMNB_NAN;",
        ),
        "backward": (
            lambda i: f"dx[i] = g[i] * symnb_df{i}(x[i], params, oj);",
            "dx[i] = SYMNB_NAN;",
        ),
        "pair": (
            lambda i: (
                f"symnb_real v, dv; symnb_fdf{i}(x[i], params, &v, &dv, oj); "
                "y[i] = v; dy[i] = dv;"
            ),
            "y[i] = SYMNB_NAN; dy[i] = SYMNB_NAN;",
        ),
    }

    indices = range(first, first + len(n_params))

    def cases(key: str, inner: str) -> str:
        stmt, default = statements[key]
        if total is not None:  # a group: only ids no group has are bad
            default = f"if (ids[j] < 0 || ids[j] >= {total}) {{ {default} }}"
        out = []
        for i in indices:
            if d.name == "cpp" and rare[i - first]:
                loop = rare_simd_loop(
                    inner,
                    "const symnb_i64 i = r * cols + j; const int oj = offsets[j];",
                    stmt(i),
                    i,
                    "            ",
                )
                out.append(f"        case {i}: {loop}\n            break;")
                continue
            out.append(_LAYER_CASE.substitute(index=i, inner=inner, statement=stmt(i)))
        out.append(_LAYER_DEFAULT.substitute(inner=inner, statement=default))
        return "\n".join(out)

    kmax = max(n_params, default=0)
    cpp_unit = d.name == "cpp" and total is None
    value_statements = {  # per entry point: statement for form i from the table
        "forward": lambda i, cs: f"y[i] = symnb_vf{i}(x[i], {cs});",
        "backward": lambda i, cs: f"dx[i] = g[i] * symnb_vdf{i}(x[i], {cs});",
        "pair": lambda i, cs: (
            f"symnb_real v, dv; symnb_vfdf{i}(x[i], {cs}, &v, &dv); "
            "y[i] = v; dy[i] = dv;"
        ),
    }

    def row_case(key: str, i: int, k: int) -> str:
        if k:
            cs = ", ".join(f"ct[{q} * cols + j]" for q in range(k))
            stmt = value_statements[key](i, cs)
        else:
            stmt = statements[key][0](i).replace(", oj)", ", 0)")
        if rare[i - first]:
            loop = rare_simd_loop(
                "#pragma omp simd\n            for (symnb_i64 j = j0; j < j1; ++j)",
                "const symnb_i64 i = row + j;",
                stmt,
                i,
                "            ",
            )
            return f"        case {i}: {loop}\n            break;"
        return _CPP_ROW_CASE.substitute(index=i, statement=stmt)

    runs = []
    for key in statements:
        name, signature = _LAYER_RUN_SIGNATURES[key]
        if cpp_unit:
            arrays, call = _CPP_ROW_HELPERS[key]
            runs.append(
                _CPP_LAYER_ROWS.substitute(
                    key=key,
                    name=name,
                    signature=signature,
                    helper_signature=arrays
                    + ",\n        symnb_i64 rb, symnb_i64 re, symnb_i64 cols, "
                    "const symnb_i32* SYMNB_RESTRICT ids,\n"
                    "        const symnb_i64* SYMNB_RESTRICT rs, symnb_i64 runs, "
                    "const symnb_real* SYMNB_RESTRICT ct,\n"
                    "        const symnb_real* SYMNB_RESTRICT params",
                    helper_call=f"{call}, rb, re, cols, ids, rs, runs, ct, params",
                    run_cases="\n".join(
                        row_case(key, i, k) for i, k in zip(indices, n_params)
                    ),
                    bad=statements[key][1],
                    column_cases=cases(key, d.column_inner),
                )
            )
            continue
        columns = (
            string.Template(d.column_mode).substitute(cases=cases(key, d.column_inner))
            if d.column_mode
            else ""
        )
        runs.append(
            _LAYER_RUN_KERNEL.substitute(
                name=name,
                signature=signature,
                columns=columns,
                run_loop=d.run_loop,
                cases=cases(key, d.run_inner),
                run_end=d.run_end,
            )
        )
    grad = []
    for i, k in zip(indices, n_params):
        if not k:
            grad.append(f"        case {i}: break;")
            continue
        grad.append(
            _LAYER_GRADIENT_CASE.substitute(
                index=i,
                k=k,
                acc_decl="double " + ", ".join(f"acc{q} = 0.0" for q in range(k)) + ";",
                acc_update="\n".join(
                    f"                acc{q} += gi * (double)d[{q}];" for q in range(k)
                ),
                store="\n".join(f"            oj[{q}] += acc{q};" for q in range(k)),
            )
        )
    runs_helper, runs_call = "", ""
    if cpp_unit and kmax:

        def run_case(i: int, k: int) -> str:
            updates = "\n".join(
                f"                fa[{q} * cols + j] += gj * d{q};" for q in range(k)
            )
            return _LAYER_GRADIENT_RUN_CASE.substitute(
                index=i,
                locals=", ".join(f"d{q}" for q in range(k)),
                updates=updates,
                **rare_gradient_fields(
                    i,
                    k,
                    dc_rare[i - first],
                    "for (symnb_i64 j = j0; j < j1; ++j)",
                    "x[row + j]",
                    ", ".join(f"ct[{q} * cols + j]" for q in range(k)),
                    "const symnb_real gj = g[row + j];\n" + updates,
                    "            ",
                ),
            )

        runs_helper = _LAYER_GRADIENT_RUNS.substitute(
            cases="\n".join(run_case(i, k) for i, k in zip(indices, n_params) if k)
        )
        runs_call = _LAYER_GRADIENT_RUNS_CALL
    gradient = _LAYER_CONSTANT_GRADIENT.substitute(
        runs=runs_call, column_loop=d.column_loop, gradient_cases="\n".join(grad)
    )
    planes = threads = ""
    if cpp_unit:
        planes = render_layer_planes(n_params, rare, dc_rare)
        threads = (
            _CPP_THREADS
            + "\n"
            + _LAYER_TABLE.substitute(
                kmax=kmax,
                n_forms=len(n_params),
                nk=", ".join(str(k) for k in n_params),
            )
        )
    return "\n".join([threads, *runs, runs_helper, gradient, planes])


@functools.lru_cache(maxsize=256)
def render_loss(dialect: str) -> str:
    """The two loss entry points (over symnb_f0(p, t) and symnb_df0(p, t))."""
    d = DIALECTS[dialect]
    return _LOSS.substitute(loop=_loop(d, "n"), reduce_loop=_loop(d, "n", ["acc0"]))


def form_text(
    index: int,
    form,
    dtype: str,
    with_dparams: bool,
    max_operations: int,
    constants_gradient: bool = True,
) -> str:
    """The device functions of ``form`` (an ``InternalForm`` or anything with its
    ``inputs``, ``params``, ``f``, ``df`` and ``dparams``), numbered ``index``: see
    :func:`render_form_functions`."""
    return render_form_functions(
        index,
        tuple(form.inputs),
        tuple(form.params),
        form.f,
        form.df,
        tuple(form.dparams),
        dtype,
        with_dparams,
        max_operations,
        constants_gradient,
    )


#: the former private name (symnb.codegen.train_step imports it)
_form_text = form_text


# Column functions of a split layer work on contiguous blocks (the entry points copy a
# block of one column in and out): unit-stride loops vectorise without gathers and
# compiled in half the time of strided ones (measured with g++ 12).
_SPLIT_COLUMN = string.Template(
    """SYMNB_PART void symnb_col_forward${i}(const symnb_real* SYMNB_RESTRICT x,
        symnb_real* SYMNB_RESTRICT y, symnb_i64 n, const symnb_real* SYMNB_RESTRICT c) {
${forward}
}

SYMNB_PART void symnb_col_backward${i}(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, symnb_real* SYMNB_RESTRICT dx,
        symnb_i64 n, const symnb_real* SYMNB_RESTRICT c) {
${backward}
}

SYMNB_PART void symnb_col_pair${i}(const symnb_real* SYMNB_RESTRICT x,
        symnb_real* SYMNB_RESTRICT y, symnb_real* SYMNB_RESTRICT dy,
        symnb_i64 n, const symnb_real* SYMNB_RESTRICT c) {
${pair}
}
"""
)


def _split_columns(i: int, rare: bool) -> str:
    """The column functions of form ``i`` of a split layer: SIMD loops down the
    column; for a form with rare far-|x| branches, :func:`rare_simd_loop`'s."""
    header = "#pragma omp simd\n    for (symnb_i64 r = 0; r < n; ++r)"
    statements = {
        "forward": f"y[r] = symnb_f{i}(x[r], c);",
        "backward": f"dx[r] = g[r] * symnb_df{i}(x[r], c);",
        "pair": f"symnb_real v, dv; symnb_fdf{i}(x[r], c, &v, &dv); "
        "y[r] = v; dy[r] = dv;",
    }
    if rare:
        loops = {
            key: "    " + rare_simd_loop(header, "", stmt, i, "    ", "x[r]")
            for key, stmt in statements.items()
        }
    else:
        loops = {
            key: f"{header} {stmt}" for key, stmt in statements.items() if key != "pair"
        }
        loops["pair"] = (
            f"{header} {{\n        symnb_real v, dv;\n"
            f"        symnb_fdf{i}(x[r], c, &v, &dv);\n"
            "        y[r] = v;\n        dy[r] = dv;\n    }"
        )
    return _SPLIT_COLUMN.substitute(i=i, **loops)


_SPLIT_GRADIENT = string.Template(
    """SYMNB_PART void symnb_col_gradient${i}(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, double* SYMNB_RESTRICT out,
        symnb_i64 n, const symnb_real* SYMNB_RESTRICT c) {
    ${acc_decl}
    for (symnb_i64 r = 0; r < n; ++r) {
        symnb_real d[${k}];
        symnb_dc${i}(x[r], c, d);
        const double gi = (double)g[r];
${acc_update}
    }
${store}
}
"""
)

_SPLIT_MAIN = string.Template(
    """typedef void (*symnb_col1)(const symnb_real*, symnb_real*, symnb_i64,
        const symnb_real*);
typedef void (*symnb_col2)(const symnb_real*, const symnb_real*, symnb_real*,
        symnb_i64, const symnb_real*);
typedef void (*symnb_col3)(const symnb_real*, symnb_real*, symnb_real*, symnb_i64,
        const symnb_real*);
typedef void (*symnb_colg)(const symnb_real*, const symnb_real*, double*, symnb_i64,
        const symnb_real*);
extern "C" {
${declarations}
}
#define SYMNB_FORMS ${n_forms}
#define SYMNB_BLOCK 64
static const symnb_col1 symnb_forward_table[SYMNB_FORMS] = {${forward}};
static const symnb_col2 symnb_backward_table[SYMNB_FORMS] = {${backward}};
static const symnb_col3 symnb_pair_table[SYMNB_FORMS] = {${pair}};
static const symnb_colg symnb_gradient_table[SYMNB_FORMS] = {${gradient}};

/* Blocks of SYMNB_BLOCK rows, column by column: the block of column j is copied
   into a contiguous buffer (IN), form ids[j] runs on it through its table entry
   (CALL), and the results are copied back (OUT); a bad id gives NaN (BAD). */
#define SYMNB_BLOCKS(IN, CALL, OUT, BAD) \\
    const symnb_i64 blocks = (rows + SYMNB_BLOCK - 1) / SYMNB_BLOCK; \\
    _Pragma("omp parallel for if(parallel: rows * cols >= SYMNB_PARALLEL_MIN) schedule(static)") \\
    for (symnb_i64 b = 0; b < blocks; ++b) { \\
        symnb_real a0[SYMNB_BLOCK], a1[SYMNB_BLOCK], a2[SYMNB_BLOCK]; \\
        const symnb_i64 rb = SYMNB_BLOCK * b; \\
        const symnb_i64 m = (rb + SYMNB_BLOCK < rows ? rb + SYMNB_BLOCK : rows) - rb; \\
        for (symnb_i64 j = 0; j < cols; ++j) { \\
            const symnb_i32 id = ids[j]; \\
            const symnb_i64 e = rb * cols + j; \\
            const symnb_real* cj = params + offsets[j]; \\
            if (id >= 0 && id < SYMNB_FORMS) { \\
                for (symnb_i64 r = 0; r < m; ++r) { IN; } \\
                CALL; \\
                for (symnb_i64 r = 0; r < m; ++r) { OUT; } \\
            } else { \\
                for (symnb_i64 r = 0; r < m; ++r) { BAD; } \\
            } \\
        } \\
    }

SYMNB_KERNEL void symnb_layer_forward(${forward_signature}) {
    SYMNB_BLOCKS(a0[r] = x[e + r * cols],
                 symnb_forward_table[id](a0, a1, m, cj),
                 y[e + r * cols] = a1[r],
                 y[e + r * cols] = SYMNB_NAN)
}

SYMNB_KERNEL void symnb_layer_backward(${backward_signature}) {
    SYMNB_BLOCKS(a0[r] = x[e + r * cols]; a1[r] = g[e + r * cols],
                 symnb_backward_table[id](a0, a1, a2, m, cj),
                 dx[e + r * cols] = a2[r],
                 dx[e + r * cols] = SYMNB_NAN)
}

SYMNB_KERNEL void symnb_layer_forward_derivative(${pair_signature}) {
    SYMNB_BLOCKS(a0[r] = x[e + r * cols],
                 symnb_pair_table[id](a0, a1, a2, m, cj),
                 y[e + r * cols] = a1[r]; dy[e + r * cols] = a2[r],
                 y[e + r * cols] = SYMNB_NAN; dy[e + r * cols] = SYMNB_NAN)
}

SYMNB_KERNEL void symnb_layer_constant_gradient(const symnb_real* SYMNB_RESTRICT x,
        const symnb_real* SYMNB_RESTRICT g, double* SYMNB_RESTRICT out,
        symnb_i64 rows, symnb_i64 cols,
        const symnb_i32* SYMNB_RESTRICT ids, const symnb_i32* SYMNB_RESTRICT offsets,
        const symnb_real* SYMNB_RESTRICT params) {
#pragma omp parallel for if(parallel: rows * cols >= SYMNB_PARALLEL_MIN) schedule(static)
    for (symnb_i64 j = 0; j < cols; ++j) {
        const symnb_i32 id = ids[j];
        if (id < 0 || id >= SYMNB_FORMS || !symnb_gradient_table[id]) continue;
        symnb_real a0[SYMNB_BLOCK], a1[SYMNB_BLOCK];
        for (symnb_i64 rb = 0; rb < rows; rb += SYMNB_BLOCK) {
            const symnb_i64 m = rb + SYMNB_BLOCK < rows ? SYMNB_BLOCK : rows - rb;
            for (symnb_i64 r = 0; r < m; ++r) {
                a0[r] = x[(rb + r) * cols + j];
                a1[r] = g[(rb + r) * cols + j];
            }
            symnb_gradient_table[id](a0, a1, out + offsets[j], m, params + offsets[j]);
        }
    }
}
"""
)


def _split_unit(
    indices: range, forms: list, dtype: str, max_operations: int
) -> tuple[str, str]:
    """One translation unit of a split layer: (its form functions, its column
    functions) for the forms ``indices``."""
    funcs, columns = [], []
    for i in indices:
        form = forms[i]
        funcs.append(f"/* ---- form {i} ---- */")
        funcs.append(form_text(i, form, dtype, True, max_operations))
        rare = split_rare((form.f, form.df), form.inputs[0]) is not None
        columns.append(_split_columns(i, rare))
        k = len(form.params)
        if k:
            columns.append(
                _SPLIT_GRADIENT.substitute(
                    i=i,
                    k=k,
                    acc_decl="double "
                    + ", ".join(f"acc{q} = 0.0" for q in range(k))
                    + ";",
                    acc_update="\n".join(
                        f"        acc{q} += gi * (double)d[{q}];" for q in range(k)
                    ),
                    store="\n".join(f"    out[{q}] += acc{q};" for q in range(k)),
                )
            )
    return "\n".join(funcs), "\n".join(columns)


def _render_split_layer(
    forms: list, dtype: str, max_operations: int, per_unit: int
) -> KernelSource:
    """A C++ layer as several translation units (see :data:`LAYER_SPLIT_FORMS`)."""
    n = len(forms)
    pieces = [
        _split_unit(range(a, min(a + per_unit, n)), forms, dtype, max_operations)
        for a in range(0, n, per_unit)
    ]
    threshold = parallel_threshold("\n".join(body for body, _ in pieces))
    part = '#define SYMNB_PART extern "C"\n'
    units = [
        "\n".join(
            [
                render_header("cpp", dtype, threshold) + part,
                prelude(dtype, helpers_used(body)),
                body,
                "/* ---- column functions ---- */",
                columns,
            ]
        )
        for body, columns in pieces
    ]
    has_k = [bool(len(f.params)) for f in forms]
    names = {
        key: [f"symnb_col_{key}{i}" for i in range(n)]
        for key in ("forward", "backward", "pair")
    }
    gradient = [f"symnb_col_gradient{i}" if has_k[i] else "0" for i in range(n)]
    declarations = []
    for i in range(n):
        declarations.append(
            f"void symnb_col_forward{i}(const symnb_real*, symnb_real*, symnb_i64, "
            "const symnb_real*);"
        )
        for key, second in (("backward", "const symnb_real*"), ("pair", "symnb_real*")):
            declarations.append(
                f"void symnb_col_{key}{i}(const symnb_real*, {second}, symnb_real*, "
                "symnb_i64, const symnb_real*);"
            )
        if has_k[i]:
            declarations.append(
                f"void symnb_col_gradient{i}(const symnb_real*, const symnb_real*, "
                "double*, symnb_i64, const symnb_real*);"
            )
    main = render_header("cpp", dtype, threshold) + _SPLIT_MAIN.substitute(
        declarations="\n".join(declarations),
        n_forms=n,
        forward=", ".join(names["forward"]),
        backward=", ".join(names["backward"]),
        pair=", ".join(names["pair"]),
        gradient=", ".join(gradient),
        forward_signature=_LAYER_RUN_SIGNATURES["forward"][1],
        backward_signature=_LAYER_RUN_SIGNATURES["backward"][1],
        pair_signature=_LAYER_RUN_SIGNATURES["pair"][1],
    )
    units.append(main)
    text = "\n".join(
        f"/* ==== translation unit {k} of {len(units)} ==== */\n{u}"
        for k, u in enumerate(units)
    )
    digest = hashlib.sha256(text.encode()).hexdigest()
    return KernelSource(
        text, entry_points("layer"), digest, "cpp", dtype, "layer", tuple(units)
    )


def _render_cuda_groups(
    forms: list, dtype: str, max_operations: int, per_unit: int
) -> KernelSource:
    """A CUDA layer of many forms as one complete module per group of ``per_unit``
    forms, each with all four entry points for its own columns (NVRTC time grows
    faster than linearly with the forms of one module: 256 forms took 130 s, sixteen
    modules of 16 about a third of that). The Program launches every module in turn."""
    n = len(forms)
    units = []
    for a in range(0, n, per_unit):
        group = range(a, min(a + per_unit, n))
        body = "\n".join(
            f"/* ---- form {i} ---- */\n"
            + form_text(i, forms[i], dtype, True, max_operations)
            for i in group
        )
        layer = render_layer("cuda", tuple(len(forms[i].params) for i in group), a, n)
        units.append(
            "\n".join(
                [
                    render_header("cuda", dtype, parallel_threshold(body)),
                    prelude(dtype, helpers_used(body)),
                    body,
                    f"/* ---- entry points for forms {a} .. {group[-1]} of {n} ---- */",
                    layer,
                ]
            )
        )
    text = "\n".join(
        f"/* ==== module {k} of {len(units)} ==== */\n{u}" for k, u in enumerate(units)
    )
    digest = hashlib.sha256(text.encode()).hexdigest()
    return KernelSource(
        text, entry_points("layer"), digest, "cuda", dtype, "layer", tuple(units)
    )


def render_program(
    forms,
    kind: str,
    dialect: str = "cpp",
    dtype: str = "float32",
) -> KernelSource:
    """The whole translation unit for ``forms`` (see docs/CONTRACTS.md section 2).

    Parameters
    ----------
    forms:
        A tuple of :class:`symnb.formula.internal.InternalForm` (exactly one for
        ``"elementwise"`` and ``"loss"``, one or more for ``"layer"``).
    kind:
        ``"elementwise"``, ``"layer"`` or ``"loss"``.
    dialect:
        ``"cpp"`` or ``"cuda"``.
    dtype:
        ``"float32"`` or ``"float64"``.

    Raises
    ------
    FormulaError
        When a formula cannot be printed or is too large after CSE.
    """
    if hasattr(forms, "f") and hasattr(forms, "df"):
        forms = (forms,)
    forms = tuple(forms)
    _check_kind(kind)
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {tuple(DIALECTS)}, not {dialect!r}")
    _printer._check_dtype(dtype)
    if not forms:
        raise ValueError("render_program needs at least one form")
    if kind in ("elementwise", "loss") and len(forms) != 1:
        raise ValueError(f"kind {kind!r} takes exactly one form, got {len(forms)}")
    if kind == "layer" and len(forms) > MAX_LAYER_FORMS:
        raise FormulaError(
            f"could not compile: this layer has {len(forms)} distinct formulas; the "
            f"limit is {MAX_LAYER_FORMS} (compile time grows with each one)",
            suggestion="neurons that differ only in constant values share one formula "
            "(use with_constants); or use backend='numpy'",
        )
    expected_inputs = 2 if kind == "loss" else 1
    for form in forms:
        if len(form.inputs) != expected_inputs:
            raise FormulaError(
                f"could not compile: a {kind} kernel needs forms with "
                f"{expected_inputs} input(s), got {len(form.inputs)}"
            )
    return _render_cached(forms, kind, dialect, dtype)


def _form_key(form) -> tuple:
    return (
        tuple(form.inputs),
        tuple(form.params),
        form.f,
        form.df,
        tuple(form.dparams),
    )


@functools.lru_cache(maxsize=256)
def _render_by_key(
    keys: tuple,
    kind: str,
    dialect: str,
    dtype: str,
    max_operations: int,
    split: tuple[int, int] = (LAYER_SPLIT_FORMS, LAYER_UNIT_FORMS),
) -> KernelSource:
    class _F:  # lightweight view of a form key
        def __init__(self, key: tuple) -> None:
            self.inputs, self.params, self.f, self.df, self.dparams = key

    forms = [_F(k) for k in keys]
    if kind == "layer" and len(forms) > split[0]:
        if dialect == "cpp":
            return _render_split_layer(forms, dtype, max_operations, split[1])
        return _render_cuda_groups(forms, dtype, max_operations, split[1])
    parts = []
    forward_text = ""
    with_dparams = kind != "loss"
    for i, form in enumerate(forms):
        parts.append(f"/* ---- form {i} ---- */")
        parts.append(form_text(i, form, dtype, with_dparams, max_operations))
    body = "\n".join(parts)
    # the joint backward prints its own expressions: its helpers (a plain symnb_sigmoid
    # where f and f' only used symnb_sigmoid_mul) must be in the prelude too
    joint = ""
    if kind == "elementwise" and dialect == "cpp":
        joint = render_joint_backward(forms[0], dtype, max_operations)
    narrow = dialect == "cpp" and narrow_vectors(body)
    header = render_header(dialect, dtype, parallel_threshold(body), narrow)
    parts = [header, prelude(dtype, helpers_used(body + joint)), body]
    parts.append("/* ---- entry points ---- */")
    if kind == "elementwise":
        rare = split_rare((forms[0].f, forms[0].df), forms[0].inputs[0]) is not None
        dc_rare = (
            bool(forms[0].params)
            and split_rare(tuple(forms[0].dparams), forms[0].inputs[0]) is not None
        )
        parts.append(
            render_elementwise(
                dialect, len(forms[0].params), rare, narrow, dc_rare=dc_rare
            )
        )
        if joint:
            parts.append(joint)
        if dialect == "cpp" and forms[0].params:
            forward_text = forward_only(
                forms[0], dtype, max_operations, header, rare, narrow
            )
    elif kind == "layer":
        rare = tuple(split_rare((f.f, f.df), f.inputs[0]) is not None for f in forms)
        dc_rare = tuple(
            bool(f.params) and split_rare(tuple(f.dparams), f.inputs[0]) is not None
            for f in forms
        )
        parts.append(
            render_layer(
                dialect, tuple(len(f.params) for f in forms), 0, None, rare, dc_rare
            )
        )
    else:
        parts.append(render_loss(dialect))
    text = "\n".join(parts)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return KernelSource(
        text, entry_points(kind), digest, dialect, dtype, kind, (), forward_text
    )


def forward_only(
    form, dtype: str, max_operations: int, header: str, rare: bool, narrow: bool
) -> str:
    """The C++ translation unit of an elementwise ``form`` with constants without the
    constants' gradient: the form functions of f and f' and their four entry points.

    Built first, so a kernel whose constants are never learned does not wait for the
    gradient kernels (about 40% of g++'s time for such a formula: smu with two
    constants 0.55 -> 0.29 s); ``header`` is the whole unit's, so f and f' compile the
    same either way.
    """
    body = form_text(0, form, dtype, True, max_operations, constants_gradient=False)
    return "\n".join(
        [
            header,
            prelude(dtype, helpers_used(body)),
            body,
            "/* ---- entry points ---- */",
            _render_cpp_forward_entries(len(form.params), rare, narrow),
        ]
    )


def _render_cached(forms: tuple, kind: str, dialect: str, dtype: str) -> KernelSource:
    keys = tuple(_form_key(f) for f in forms)
    split = (LAYER_SPLIT_FORMS, LAYER_UNIT_FORMS)
    return _render_by_key(keys, kind, dialect, dtype, _printer.MAX_OPERATIONS, split)


__all__ = [
    "CPP",
    "CUDA",
    "DIALECTS",
    "ENTRY_POINTS",
    "FUSED_BACKWARD",
    "FUSED_BACKWARD_JOINT",
    "KINDS",
    "LAYER_SPLIT_FORMS",
    "LAYER_UNIT_FORMS",
    "MAX_LAYER_FORMS",
    "PARALLEL_MIN",
    "Dialect",
    "KernelSource",
    "entry_points",
    "form_text",
    "render_program",
]
