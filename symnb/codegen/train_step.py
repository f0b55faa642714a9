"""Source text of a fused C++ training step for one MLP architecture.

One translation unit per (layer sizes, per-layer forms and constant layouts, loss,
masks, dtype) computes, in a single native call: the forward pass (small matrix
products written as loops over compile-time sizes, so g++ unrolls and vectorises
them), the activations and their derivatives (the same device functions as the
elementwise and layer kernels: :func:`symnb.codegen.kernels.render_form_functions`),
the loss and its gradient, the backward pass into the model's flat gradient buffer
(weights, then biases, then learnable constants: the layout of ``MLP.parameters()``),
the L1/L2 penalties and masks, the finiteness checks, and optionally the optimizer
update (SGD with momentum/Nesterov/weight decay, or Adam), with the parameters put
back when the update made them non-finite.

Pure text generation: no compiler, no ctypes (see :mod:`symnb.nn.fused`).

ABI (``T`` = float or double)::

    double symnb_mlp_step(const T* X, const void* Y, int64_t rows,
                          const int64_t* pointers, const double* scalars,
                          int64_t* status)

``Y`` is ``T`` (rows, outputs) for an elementwise loss and ``int64_t`` labels (rows,)
for softmax cross-entropy. ``pointers`` and ``scalars`` are laid out as
:data:`POINTER_SLOTS` / :data:`SCALAR_SLOTS` (then one constants pointer and one mask
pointer per layer at :meth:`StepSpec.layer_pointer_slots`). ``status[0]`` is 0 (ok),
1 (loss not finite), 2 (gradient not finite) or 3 (parameters not finite after the
update, restored from the backup). The return value is the mean loss; with an
optimizer update (modes 1 and 2) it is NaN whenever the status is not 0, so the caller
reads the status only then. Mode 0 (gradient only) always computes the whole gradient.

The whole epoch in one call (Python runs only between epochs)::

    double symnb_mlp_epoch(const T* X, const void* Y, int64_t n, const int64_t* order,
                           int64_t batch, T* xbuf, void* ybuf, const int64_t* pointers,
                           const double* scalars, int64_t* status)

runs the step on every minibatch of the rows ``order[0..n)`` (``NULL``: in order),
gathered into ``xbuf``/``ybuf`` (``batch`` rows each), with Adam's step count
``scalars[6] + k`` at the k-th step and the learnable constants copied back into the
layers' constants after each step. It returns the sum of (mean loss x rows) over the
completed minibatches; ``status[1]`` is their number and ``status[0]`` the failing
step's status (the failing step is then the next one; its parameters are restored).

Matrix products are loops over compile-time sizes with register tiles (measured
against OpenBLAS ``sgemm`` through SciPy's ``cython_blas`` at these sizes: as fast or
faster, and they need no call per product); steps on more than :data:`CHUNK_ROWS` rows
run in chunks of rows. Results do not depend on memory alignment or thread counts:
every sum runs in a fixed order (the step is serial, see below).
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass

from symnb.codegen import printer as _printer
from symnb.codegen.kernels import (
    PARALLEL_MIN,
    KernelSource,
    _form_key,
    _form_text,
    block_sum_fields,
    rare_gradient_fields,
    rare_simd_loop,
    render_header,
)
from symnb.codegen.printer import helpers_used, prelude
from symnb.codegen.rare import split_rare

#: Slots of the pointer block.
POINTER_SLOTS = ("flat", "grad", "backup", "work", "opt_a", "opt_b", "loss_params")
#: Slots of the scalar block.
SCALAR_SLOTS = (
    "mode",  # 0 gradient only, 1 SGD, 2 Adam
    "lr",
    "momentum_or_beta1",
    "weight_decay",
    "nesterov_or_beta2",
    "eps",
    "t",  # Adam's step count (after increment)
    "l1",
    "l2",
)

#: Row block of the matrix products (rows sharing one pass over the weights).
ROW_BLOCK = 8
#: ... and of the weight gradient.
ROW_BLOCK_WEIGHT_GRADIENT = 4

#: Layers with 16 inputs or more and few outputs (< one 64-byte vector) or few
#: inputs (the rows of a block fit in 16 vector registers) compute dW^T, vectorised
#: over the inputs, then transpose it.
TRANSPOSED_WEIGHT_GRADIENT = True
#: dW by register tiles (directly, or as dW^T for narrow layers; see _WG_TILE) for
#: layers with at least one vector of inputs or outputs.
TILED_WEIGHT_GRADIENT = True
#: Forward products of layers with 2..15 outputs run on zero-padded 16 columns.
PAD_NARROW = True
#: Bias and activation (one form, shared constants) in the forward product's store
#: instead of a separate pass over z: measured (thread CPU time, digits 64-128-10 and
#: two_moons 2-16-16-1, minibatch 32 and full batch) within noise of the separate
#: pass (1.33 vs 1.30 ms, 1.14 vs 1.16 ms per digits epoch), so off; kept tested.
FUSED_EPILOGUE = False
#: Forward products of layers wider than 16 run by tiles of 16 columns.
FORWARD_TILES = True

#: A step on more rows than this runs them in chunks of this many rows, adding up
#: the gradients, so that its activations stay in the L2 cache. Full-batch digits
#: (1797 rows, thread CPU time, medians of 60): 1.30 -> 1.22 ms per epoch with SGD,
#: 1.30 -> 1.19 with Adam; 128 and 512 rows within noise of 256. 0: never.
CHUNK_ROWS = 256

#: The step is serial: OpenMP threads in it were measured (digits 64-128-10, full
#: batch, on the 2-core benchmark machine) and made it slower there (1.4 -> 2.3 ms per
#: epoch next to PyTorch's threads), and the libgomp calls of regions left serial cost
#: microseconds per minibatch step.

#: First line of the step's source: g++ unrolls its loops (-funroll-loops for this
#: unit only; first, so that every function, the inlined helpers too, has the same
#: optimisation attributes and still inlines). Small layers' loops run few iterations:
#: 2-16-16-1 two moons full batch 0.077 -> 0.070 ms per epoch, minibatch Adam 0.097 ->
#: 0.089; 64-128-10 digits unchanged (in-process interleaved A/B, bitwise the same
#: parameters); compile ~0.2 s longer.
UNROLL_PRAGMA = '#pragma GCC optimize("unroll-loops")'

ENTRY_POINT = "symnb_mlp_step"
EPOCH_ENTRY_POINT = "symnb_mlp_epoch"
#: Length of the scalar block the caller passes (SCALAR_SLOTS, then spare entries).
N_SCALARS = 16


@dataclass(frozen=True)
class LayerSpec:
    """One dense layer of the fused step.

    ``forms`` are the layer's distinct activation forms (empty: linear), ``ids[j]`` the
    form of column ``j`` and ``offsets[j]`` where its constants start in the layer's
    constants array (``n_params`` long; all zero for an elementwise kernel, whose
    columns share one set). Learnable constants: the gradient entry
    ``learn_entries[p]`` gets the constants' gradient at ``learn_positions[p]`` of that
    array (entries are the layer's slice of the flat constants, ``n_learnable`` long).
    """

    fan_in: int
    fan_out: int
    forms: tuple = ()
    ids: tuple = ()
    offsets: tuple = ()
    n_params: int = 0
    masked: bool = False
    learn_positions: tuple = ()
    learn_entries: tuple = ()
    n_learnable: int = 0
    w_off: int = 0
    b_off: int = 0
    c_off: int = 0

    @property
    def active(self) -> bool:
        return bool(self.forms)

    @property
    def uniform(self) -> bool:
        """Every column uses one form with one shared set of constants."""
        return len(set(self.ids)) == 1 and not any(self.offsets)


@dataclass(frozen=True)
class StepSpec:
    """Everything that shapes the generated step (and nothing that does not)."""

    layers: tuple
    loss: str  # "elementwise" | "softmax"
    loss_form: object = None
    label_smoothing: float = 0.0
    n_total: int = 0
    n_weights: int = 0
    dtype: str = "float32"
    #: rows per chunk of a step (0: all rows at once), see CHUNK_ROWS
    chunk_rows: int = 0

    def layer_pointer_slots(self, index: int) -> tuple[int, int]:
        """(constants pointer slot, mask pointer slot) of layer ``index``."""
        base = len(POINTER_SLOTS) + 2 * index
        return base, base + 1

    @property
    def n_pointers(self) -> int:
        return len(POINTER_SLOTS) + 2 * len(self.layers)

    def work_size(self, rows: int) -> int:
        """Elements of the workspace for ``rows`` rows."""
        if self.chunk_rows:
            rows = min(rows, self.chunk_rows)
        per_row = 0
        widest = max(max(ly.fan_out, ly.fan_in) for ly in self.layers)
        for ly in self.layers:
            per_row += ly.fan_out * (3 if ly.active else 1)
        per_row += 2 * widest
        transposed = max(ly.fan_in * _padded(ly.fan_out) for ly in self.layers)
        return rows * (per_row + 3) + transposed + 16


def _padded(width: int) -> int:
    """Columns of a forward product's register rows: ``width`` up to whole 64-byte
    vectors when it is narrower than 16 (the extra columns multiply zeros)."""
    if PAD_NARROW and 1 < width < 16:
        return 16
    return width


def _input_gradient_rows(fan_in: int, vl: int) -> int:
    """Rows per block of the input gradient: their accumulator rows fill about 16
    vector registers (measured: 4 rows for 128 -> 10 at 32 rows was 1.8 us against
    2.5 us one row at a time)."""
    return max(1, min(4, (16 * vl) // max(fan_in, 1)))


def _constants_runs_simd(
    ly, gids, cslot: int, l: int, gather: str, dc_rare: list[bool]
) -> tuple[str, str] | None:
    """The per-neuron learnable constants' sums as SIMD loops across runs of one
    form: (the block in the step, its row-loop function; :data:`_CONSTANTS_RUNS_SIMD`),
    or None when the table would not fit. ``dc_rare[g]``: form g's constants'
    gradients have rare far-|x| branches (:func:`rare_gradient_fields`)."""
    fo = ly.fan_out
    needed = set(ly.learn_positions)
    runs = []
    for j0, j1, lid in _runs(tuple(ly.ids)):
        k = len(ly.forms[lid].params)
        offs = [int(ly.offsets[j]) for j in range(j0, j1)]
        if k and any(o <= p < o + k for o in offs for p in needed):
            runs.append((j0, j1, lid, k))
    if not runs:
        return None
    kmax = max(k for *_, k in runs)
    if kmax * fo > CONSTANTS_TABLE_MAX:
        return None
    fills, loops, stores = [], [], []
    for j0, j1, lid, k in runs:
        q = range(k)
        copies = " ".join(f"ct_[{r * fo} + j] = params[off[j] + {r}];" for r in q)
        fills.append(f"            for (int j = {j0}; j < {j1}; ++j) {{ {copies} }}")
        updates = "\n".join(
            f"                    acc[{r * fo} + j] += gi * (double)d{r};" for r in q
        )
        loops.append(
            _CONSTANTS_RUN.substitute(
                j0=j0,
                j1=j1,
                fo=fo,
                locals=", ".join(f"d{r}" for r in q),
                updates=updates,
                **rare_gradient_fields(
                    gids[lid],
                    k,
                    dc_rare[gids[lid]],
                    f"for (int j = {j0}; j < {j1}; ++j)",
                    f"zz[r * {fo} + j]",
                    ", ".join(f"ct[{r * fo} + j]" for r in q),
                    f"const double gi = (double)g[r * {fo} + j];\n{updates}",
                    "                ",
                ),
            )
        )
        sums = " ".join(f"full[off[j] + {r}] += acc[{r * fo} + j];" for r in q)
        stores.append(f"            for (int j = {j0}; j < {j1}; ++j) {{ {sums} }}")
    block = _CONSTANTS_RUNS_SIMD.substitute(
        cslot=cslot,
        l=l,
        fo=fo,
        offsets=", ".join(str(int(o)) for o in ly.offsets),
        np=max(ly.n_params, 1),
        size=kmax * fo,
        fills="\n".join(fills),
        stores="\n".join(stores),
        gather=gather,
    )
    return block, _CONSTANTS_RUNS_HELPER.substitute(l=l, runs="\n".join(loops))


def _runs(ids: tuple) -> list[tuple[int, int, int]]:
    runs = []
    j0 = 0
    while j0 < len(ids):
        j1 = j0 + 1
        while j1 < len(ids) and ids[j1] == ids[j0]:
            j1 += 1
        runs.append((j0, j1, ids[j0]))
        j0 = j1
    return runs


_PROLOGUE = string.Template(
    r"""#include <string.h>
static inline symnb_real symnb_sgn(symnb_real v) {
    return v > 0 ? (symnb_real)1 : (v < 0 ? (symnb_real)-1 : v);
}
static inline symnb_real symnb_sum(const symnb_real* SYMNB_RESTRICT v, symnb_i64 n) {
    symnb_real acc = 0;
#pragma omp simd reduction(+: acc)
    for (symnb_i64 i = 0; i < n; ++i) acc += v[i];
    return acc;
}
#define SYMNB_NAN_D __builtin_nan("")
#define SYMNB_N_TOTAL ${n_total}
#define SYMNB_N_WEIGHTS ${n_weights}
#define SYMNB_N_SCALARS ${n_scalars}
#define SYMNB_CHUNK ${chunk}

/* SGD (PyTorch's rule) in two passes: the first sums the gradient and the new
   parameters without storing anything (finite iff every term is), the second stores
   them: no backup copy and no separate checks (3 passes over memory, not 5). Returns
   0 (stored), 2 (gradient not finite: nothing changed) or 3 (the new parameters would
   not be finite: they are kept; the velocity moves, as optimizer.step() then a restore
   does). Functions of their own, one per case (template flags): inside the step
   function, or with the flags as run-time tests, g++ left the loops scalar. */
template <bool MOMENTUM, bool DECAY, bool NESTEROV>
static __attribute__((noinline)) symnb_i64 symnb_sgd_case(
        symnb_real* SYMNB_RESTRICT flat, const symnb_real* SYMNB_RESTRICT grad,
        symnb_real* SYMNB_RESTRICT vel, const symnb_real lr, const symnb_real wd,
        const symnb_real mom) {
#define SYMNB_SGD_NEW(i) \
        const symnb_real g0 = grad[i]; \
        symnb_real gi = g0; \
        if (DECAY) { const symnb_real s = flat[i] * wd; gi = s + gi; } \
        symnb_real vi = 0; \
        if (MOMENTUM) { \
            vi = vel[i] * mom; \
            vi = vi + gi; \
            if (NESTEROV) { const symnb_real mv = mom * vi; gi = gi + mv; } \
            else gi = vi; \
        } \
        const symnb_real step = gi * lr; \
        const symnb_real nw = flat[i] - step;
    symnb_real gsum = 0, chk = 0;
#pragma omp simd reduction(+: gsum, chk)
    for (symnb_i64 i = 0; i < SYMNB_N_TOTAL; ++i) {
        SYMNB_SGD_NEW(i)
        (void)vi;
        gsum += g0;
        chk += nw;
    }
    if (!(gsum - gsum == 0)) return 2;
    const bool store = chk - chk == 0;
    if (store) {
#pragma omp simd
        for (symnb_i64 i = 0; i < SYMNB_N_TOTAL; ++i) {
            SYMNB_SGD_NEW(i)
            (void)g0;
            if (MOMENTUM) vel[i] = vi;
            flat[i] = nw;
        }
    } else if (MOMENTUM) {
#pragma omp simd
        for (symnb_i64 i = 0; i < SYMNB_N_TOTAL; ++i) {
            SYMNB_SGD_NEW(i)
            (void)g0;
            (void)nw;
            vel[i] = vi;
        }
    }
#undef SYMNB_SGD_NEW
    return store ? 0 : 3;
}
/* Adam's update (the old parameters kept in backup); returns the sum of the new
   parameters, finite iff they all are (no separate pass over them). */
template <bool DECAY>
static __attribute__((noinline)) symnb_real symnb_adam(
        symnb_real* SYMNB_RESTRICT flat, symnb_real* SYMNB_RESTRICT backup,
        const symnb_real* SYMNB_RESTRICT grad, symnb_real* SYMNB_RESTRICT m,
        symnb_real* SYMNB_RESTRICT v, const symnb_real wd, const symnb_real b1r,
        const symnb_real b2r, const symnb_real c1, const symnb_real c2,
        const symnb_real inv, const symnb_real epsr, const symnb_real ss) {
    symnb_real chk = 0;
#pragma omp simd reduction(+: chk)
    for (symnb_i64 i = 0; i < SYMNB_N_TOTAL; ++i) {
        symnb_real gi = grad[i];
        if (DECAY) { const symnb_real s = flat[i] * wd; gi = s + gi; }
        symnb_real mi = m[i] * b1r;
        const symnb_real mg = c1 * gi;
        mi = mi + mg;
        m[i] = mi;
        symnb_real vi = v[i] * b2r;
        symnb_real gg = gi * gi;
        gg = gg * c2;
        vi = vi + gg;
        v[i] = vi;
        symnb_real den = SYMNB_SQRT(vi);
        den = den * inv;
        den = den + epsr;
        symnb_real u = mi / den;
        u = u * ss;
        const symnb_real old = flat[i];
        backup[i] = old;
        const symnb_real nw = old - u;
        flat[i] = nw;
        chk += nw;
    }
    return chk;
}
static symnb_i64 symnb_sgd(symnb_real* SYMNB_RESTRICT flat,
        const symnb_real* SYMNB_RESTRICT grad, symnb_real* SYMNB_RESTRICT vel,
        const symnb_real lr, const symnb_real wd, const symnb_real mom,
        const bool decay, const bool momentum, const bool nesterov) {
    if (!momentum)
        return decay ? symnb_sgd_case<false, true, false>(flat, grad, vel, lr, wd, mom)
                     : symnb_sgd_case<false, false, false>(flat, grad, vel, lr, wd, mom);
    if (nesterov)
        return decay ? symnb_sgd_case<true, true, true>(flat, grad, vel, lr, wd, mom)
                     : symnb_sgd_case<true, false, true>(flat, grad, vel, lr, wd, mom);
    return decay ? symnb_sgd_case<true, true, false>(flat, grad, vel, lr, wd, mom)
                 : symnb_sgd_case<true, false, false>(flat, grad, vel, lr, wd, mom);
}
"""
)

# one block of ROW_BLOCK rows: whole rows of accumulators ...
_FORWARD_BLOCK_ROWS = string.Template(
    r"""            symnb_real acc[${rb}][${fop}];
            for (int q = 0; q < ${rb}; ++q)
#pragma omp simd
                for (int o = 0; o < ${fop}; ++o) acc[q][o] = 0;
            for (int i = 0; i < ${fi}; ++i) {
                const symnb_real* SYMNB_RESTRICT w = W + i * ${fop};
                for (int q = 0; q < ${rb}; ++q) {
                    const symnb_real a = in[(r + q) * ${fi} + i];
#pragma omp simd
                    for (int o = 0; o < ${fop}; ++o) acc[q][o] += a * w[o];
                }
            }
            for (int q = 0; q < ${rb}; ++q)
#pragma omp simd
                for (int o = 0; o < ${fo}; ++o) SYMNB_STORE((r + q) * ${fo} + o, acc[q][o] + b[o]);"""
)

# ... or, for wide layers, 16 columns at a time (accumulators stay in registers)
_FORWARD_BLOCK_TILES = string.Template(
    r"""            for (int o0 = 0; o0 < ${fop}; o0 += 16) {
                symnb_real acc[${rb}][16];
                for (int q = 0; q < ${rb}; ++q)
#pragma omp simd
                    for (int o = 0; o < 16; ++o) acc[q][o] = 0;
                for (int i = 0; i < ${fi}; ++i) {
                    const symnb_real* SYMNB_RESTRICT w = W + i * ${fop} + o0;
                    for (int q = 0; q < ${rb}; ++q) {
                        const symnb_real a = in[(r + q) * ${fi} + i];
#pragma omp simd
                        for (int o = 0; o < 16; ++o) acc[q][o] += a * w[o];
                    }
                }
                for (int q = 0; q < ${rb}; ++q)
#pragma omp simd
                    for (int o = 0; o < 16; ++o)  /* fo is a multiple of 16 here */
                        SYMNB_STORE((r + q) * ${fo} + o0 + o, acc[q][o] + b[o0 + o]);
            }"""
)

# forward product of one layer: out[r, :] = in[r, :] @ W + b, ROW_BLOCK rows at a time
_FORWARD = string.Template(
    r"""    {   /* layer ${l}: ${fi} -> ${fo} */
${weights}
        const symnb_real* SYMNB_RESTRICT b = flat + ${b_off};
        const symnb_real* SYMNB_RESTRICT in = ${src};
        symnb_real* SYMNB_RESTRICT z = Z${l}; (void)z;
${epilogue}
        const symnb_i64 blocks = rows / ${rb};
        for (symnb_i64 blk = 0; blk < blocks; ++blk) {
            const symnb_i64 r = blk * ${rb};
${block}
        }
        for (symnb_i64 r = blocks * ${rb}; r < rows; ++r) {
            symnb_real acc[${fo}];
#pragma omp simd
            for (int o = 0; o < ${fo}; ++o) acc[o] = 0;
            for (int i = 0; i < ${fi}; ++i) {
                const symnb_real a = in[r * ${fi} + i];
                const symnb_real* SYMNB_RESTRICT w = W + i * ${fop};
#pragma omp simd
                for (int o = 0; o < ${fo}; ++o) acc[o] += a * w[o];
            }
#pragma omp simd
            for (int o = 0; o < ${fo}; ++o) SYMNB_STORE(r * ${fo} + o, acc[o] + b[o]);
        }
#undef SYMNB_STORE
${activation}
    }
"""
)

# the forward product's store: z = acc + b, or (bias and activation fused into the
# epilogue, one form with shared constants) the activation and its derivative of it
_STORE_Z = "#define SYMNB_STORE(i, v) (z[(i)] = (v))"
_STORE_ACTIVATION = string.Template(
    r"""        const symnb_real* SYMNB_RESTRICT cact = (const symnb_real*)pointers[${cslot}];
        symnb_real* SYMNB_RESTRICT a_out = A${l};
        symnb_real* SYMNB_RESTRICT d_out = D${l};
#define SYMNB_STORE(i, v) do { const symnb_i64 si_ = (i); const symnb_real zv_ = (v); \
    symnb_real av_, dv_; symnb_fdf${g}(zv_, cact, &av_, &dv_); \
    a_out[si_] = av_; d_out[si_] = dv_;${keep_z} } while (0)"""
)

_ACT_UNIFORM = string.Template(
    r"""        {   /* one form, shared constants */
            const symnb_real* SYMNB_RESTRICT c = (const symnb_real*)pointers[${cslot}];
            symnb_real* SYMNB_RESTRICT a = A${l};
            symnb_real* SYMNB_RESTRICT d = D${l};
            const symnb_i64 n = rows * ${fo};
#pragma omp simd
            for (symnb_i64 i = 0; i < n; ++i) {
                symnb_real v, dv;
                symnb_fdf${g}(z[i], c, &v, &dv);
                a[i] = v;
                d[i] = dv;
            }
        }"""
)

_ACT_RUNS_HEAD = string.Template(
    r"""        {   /* per-neuron forms and constants */
            const symnb_real* SYMNB_RESTRICT params =
                (const symnb_real*)pointers[${cslot}];
            static const symnb_i32 off[${fo}] = {${offsets}};
${table}
            symnb_act_rows${l}(z, A${l}, D${l}, ct, params, rows);
        }"""
)

#: The row loop of a per-neuron activation, a function of its own (as
#: :data:`_CONSTANTS_RUNS_HELPER`: inside the step function g++ could leave it scalar,
#: "control flow in loop", depending on what else the function held).
_ACT_ROWS_HELPER = string.Template(
    r"""static __attribute__((noinline)) void symnb_act_rows${l}(
        const symnb_real* SYMNB_RESTRICT z, symnb_real* SYMNB_RESTRICT a,
        symnb_real* SYMNB_RESTRICT d, const symnb_real* SYMNB_RESTRICT ct,
        const symnb_real* SYMNB_RESTRICT params, symnb_i64 rows) {
    static const symnb_i32 off[${fo}] = {${offsets}};
    (void)ct; (void)params; (void)off;
    for (symnb_i64 r = 0; r < rows; ++r) {
${runs}
    }
}
"""
)

_ACT_RUN = string.Template(
    r"""#pragma omp simd
                for (int j = ${j0}; j < ${j1}; ++j) {
                    const symnb_i64 i = r * ${fo} + j;
                    symnb_real v, dv;
                    ${call}
                    a[i] = v;
                    d[i] = dv;
                }"""
)

#: Per-neuron constants copied once per call into ``ct[q * fan_out + j]`` (on the
#: stack, up to this many values): the loop across a run of columns then loads them
#: contiguously instead of gathering ``params[off[j] + q]`` (per-neuron PAU 5/4 on
#: 64-128-10 digits: an epoch 34% slower than one shared PAU with the gathers).
ACT_TABLE_MAX = 16384

_LOSS_ELEMENTWISE = string.Template(
    r"""    {   /* elementwise loss: mean over rows * ${fo} elements */
        const symnb_real* SYMNB_RESTRICT t = (const symnb_real*)Y;
        const symnb_real* SYMNB_RESTRICT c = (const symnb_real*)pointers[6];
        const symnb_i64 n = rows * ${fo};
        const symnb_real s = (symnb_real)(1.0 / ((double)total_rows * ${fo}));
        double acc = 0.0;
        /* values in vector chunks, summed in double in order: g++ miscompiled a
           double `omp simd reduction` around a branch holding log1p (wrong loss) */
#pragma omp simd
        for (symnb_i64 i = 0; i < n; ++i)
            G[i] = s * symnb_df${g}(P[i], t[i], c);
        for (symnb_i64 i0 = 0; i0 < n; i0 += 64) {
            const symnb_i64 m = n - i0 < 64 ? n - i0 : 64;
            symnb_real v[64];
#pragma omp simd
            for (symnb_i64 i = 0; i < m; ++i) v[i] = symnb_f${g}(P[i0 + i], t[i0 + i], c);
            for (symnb_i64 i = 0; i < m; ++i) acc += (double)v[i];
        }
        loss_sum += acc;
    }
"""
)

_LOSS_SOFTMAX = string.Template(
    r"""    {   /* softmax cross-entropy, labels int64, label smoothing ${eps} */
        const symnb_i64* SYMNB_RESTRICT labels = (const symnb_i64*)Y;
        const symnb_real s = (symnb_real)(1.0 / (double)total_rows);
        const symnb_real eps = (symnb_real)${eps};
        symnb_real* SYMNB_RESTRICT mrow = ROWBUF;          /* row maxima */
        symnb_real* SYMNB_RESTRICT lrow = ROWBUF + rows;   /* row log-sum-exp */
        symnb_real* SYMNB_RESTRICT srow = ROWBUF + 2 * rows;   /* row sum of exp */
        for (symnb_i64 r = 0; r < rows; ++r) {
            const symnb_real* SYMNB_RESTRICT zr = P + r * ${fo};
            symnb_real m = zr[0];
            for (int j = 1; j < ${fo}; ++j) m = (zr[j] > m || zr[j] != zr[j]) ? zr[j] : m;
            mrow[r] = m;
            for (int j = 0; j < ${fo}; ++j) G[r * ${fo} + j] = zr[j] - m;
        }
        const symnb_i64 n = rows * ${fo};
#pragma omp simd
        for (symnb_i64 i = 0; i < n; ++i) G[i] = SYMNB_EXP(G[i]);
        for (symnb_i64 r = 0; r < rows; ++r) {
            symnb_real se = 0;
            for (int j = 0; j < ${fo}; ++j) se += G[r * ${fo} + j];
            lrow[r] = se;
            srow[r] = se;
        }
#pragma omp simd
        for (symnb_i64 r = 0; r < rows; ++r) lrow[r] = SYMNB_LOG(lrow[r]);
        for (symnb_i64 r = 0; r < rows; ++r) {
            const symnb_real* SYMNB_RESTRICT zr = P + r * ${fo};
            symnb_real* SYMNB_RESTRICT gr = G + r * ${fo};
            const symnb_real m = mrow[r], lse = lrow[r];
            const symnb_real inv = (symnb_real)1 / srow[r];   /* = 1 / exp(lse) */
            const symnb_i64 y = labels[r];
            picked += (double)((zr[y] - m) - lse);
            ${smooth_total}
            for (int j = 0; j < ${fo}; ++j) {
                symnb_real gv = gr[j] * inv${smooth_grad};
                if (j == y) gv -= (symnb_real)1 - eps;
                gr[j] = gv * s;
            }
        }
    }
"""
)

_BACKWARD = string.Template(
    r"""    {   /* layer ${l} backward */
        symnb_real* SYMNB_RESTRICT g = ${g_in};
${constants}${delta}
        const symnb_real* SYMNB_RESTRICT prev = ${prev};
        symnb_real* SYMNB_RESTRICT dW = grad + ${w_off};
        symnb_real* SYMNB_RESTRICT db = grad + ${b_off};
${weight_gradient}${mask}${input_gradient}    }
"""
)

# weight gradient dW = prev^T @ delta (rows in blocks), and db
_WEIGHT_GRADIENT_WIDE = string.Template(
    r"""        if (first) {
            memset(dW, 0, sizeof(symnb_real) * ${fi} * ${fo});
#pragma omp simd
            for (int o = 0; o < ${fo}; ++o) db[o] = 0;
        }
        symnb_i64 r = 0;
        for (; r + ${rb} <= rows; r += ${rb}) {
            const symnb_real* SYMNB_RESTRICT d0 = delta + r * ${fo};
            for (int i = 0; i < ${fi}; ++i) {
                symnb_real a[${rb}];
                for (int q = 0; q < ${rb}; ++q) a[q] = prev[(r + q) * ${fi} + i];
                symnb_real* SYMNB_RESTRICT w = dW + i * ${fo};
#pragma omp simd
                for (int o = 0; o < ${fo}; ++o) {
                    symnb_real s = w[o];
                    for (int q = 0; q < ${rb}; ++q) s += a[q] * d0[q * ${fo} + o];
                    w[o] = s;
                }
            }
            for (int q = 0; q < ${rb}; ++q)
#pragma omp simd
                for (int o = 0; o < ${fo}; ++o) db[o] += d0[q * ${fo} + o];
        }
        for (; r < rows; ++r) {
            const symnb_real* SYMNB_RESTRICT d0 = delta + r * ${fo};
            for (int i = 0; i < ${fi}; ++i) {
                const symnb_real a = prev[r * ${fi} + i];
                symnb_real* SYMNB_RESTRICT w = dW + i * ${fo};
#pragma omp simd
                for (int o = 0; o < ${fo}; ++o) w[o] += a * d0[o];
            }
#pragma omp simd
            for (int o = 0; o < ${fo}; ++o) db[o] += d0[o];
        }
"""
)

# ... dW^T[o, :] += sum_q delta[r + q, o] * prev[r + q, :] (vectorised over the
# inputs; the ROW_BLOCK_T input rows stay in registers across the outputs), then
# transposed; for layers with few outputs, or few inputs
_WEIGHT_GRADIENT_T = string.Template(
    r"""        symnb_real* SYMNB_RESTRICT dWT = WTbuf;
        memset(dWT, 0, sizeof(symnb_real) * ${fi} * ${fo});
        if (first) {
#pragma omp simd
            for (int o = 0; o < ${fo}; ++o) db[o] = 0;
        }
        symnb_i64 r = 0;
        for (; r + ${rb} <= rows; r += ${rb}) {
            const symnb_real* SYMNB_RESTRICT pr = prev + r * ${fi};
            const symnb_real* SYMNB_RESTRICT d0 = delta + r * ${fo};
            for (int o = 0; o < ${fo}; ++o) {
                symnb_real dv[${rb}];
                for (int q = 0; q < ${rb}; ++q) dv[q] = d0[q * ${fo} + o];
                symnb_real* SYMNB_RESTRICT w = dWT + o * ${fi};
#pragma omp simd
                for (int i = 0; i < ${fi}; ++i) {
                    symnb_real s = w[i];
                    for (int q = 0; q < ${rb}; ++q) s += dv[q] * pr[q * ${fi} + i];
                    w[i] = s;
                }
            }
            for (int q = 0; q < ${rb}; ++q)
#pragma omp simd
                for (int o = 0; o < ${fo}; ++o) db[o] += d0[q * ${fo} + o];
        }
        for (; r < rows; ++r) {
            const symnb_real* SYMNB_RESTRICT pr = prev + r * ${fi};
            for (int o = 0; o < ${fo}; ++o) {
                const symnb_real dv = delta[r * ${fo} + o];
                symnb_real* SYMNB_RESTRICT w = dWT + o * ${fi};
#pragma omp simd
                for (int i = 0; i < ${fi}; ++i) w[i] += dv * pr[i];
            }
#pragma omp simd
            for (int o = 0; o < ${fo}; ++o) db[o] += delta[r * ${fo} + o];
        }
        for (int i = 0; i < ${fi}; ++i)
            for (int o = 0; o < ${fo}; ++o)
                dW[i * ${fo} + o] = (first ? (symnb_real)0 : dW[i * ${fo} + o])
                    + dWT[o * ${fi} + i];
"""
)

# ... or by register tiles: out = left^T @ right over the rows, a tile of ${ib} x ${ot}
# entries stays in registers while the rows stream past (one vector load of right and
# ${ib} broadcasts of left per row). Direct (left = prev, right = delta, out = dW) for
# layers with at least one vector of outputs; transposed (left = delta, right = prev,
# out = dW^T, then transposed) for narrow ones. Measured on the digits layer 64 -> 128
# at 32 rows: 5.5 us against 8.1 us (dW^T row blocks read and written per block of
# rows, then transposed) and 5.0 us (OpenBLAS sgemm through SciPy's cython_blas).
_WG_TILE = string.Template(
    r"""        for (int i0 = ${i_start}; i0 < ${i_stop}; i0 += ${ib})
            for (int o0 = ${o_start}; o0 < ${o_stop}; o0 += ${ot}) {
                symnb_real acc[${ib}][${ot}];
#pragma GCC unroll ${ib}
                for (int q = 0; q < ${ib}; ++q)
#pragma omp simd
                    for (int o = 0; o < ${ot}; ++o) acc[q][o] = 0;
                for (symnb_i64 r = 0; r < rows; ++r) {
                    const symnb_real* SYMNB_RESTRICT rr = ${right} + r * ${nr} + o0;
                    const symnb_real* SYMNB_RESTRICT lr = ${left} + r * ${nl} + i0;
#pragma GCC unroll ${ib}
                    for (int q = 0; q < ${ib}; ++q) {
                        const symnb_real a = lr[q];
#pragma omp simd
                        for (int o = 0; o < ${ot}; ++o) acc[q][o] += a * rr[o];
                    }
                }
#pragma GCC unroll ${ib}
                for (int q = 0; q < ${ib}; ++q)
#pragma omp simd
                    for (int o = 0; o < ${ot}; ++o) {
                        const symnb_i64 k = (i0 + q) * ${nr} + o0 + o;
                        ${out}[k] = ${keep}acc[q][o];
                    }
            }
"""
)

_DB_SUM = string.Template(
    r"""        if (first) {
#pragma omp simd
            for (int o = 0; o < ${fo}; ++o) db[o] = 0;
        }
        for (symnb_i64 r = 0; r < rows; ++r)
#pragma omp simd
            for (int o = 0; o < ${fo}; ++o) db[o] += delta[r * ${fo} + o];
"""
)


def _tiled_product(
    left: str, nl: int, right: str, nr: int, out: str, vl: int, accumulate: bool
) -> str:
    """``out`` (nl x nr) = ``left``^T @ ``right`` over the rows, by register tiles of
    (up to 16) x one vector, with compile-time remainder tiles; ``accumulate``: added
    to ``out`` after the first chunk of rows."""
    ib = min(16, nl)
    parts = []
    i_full = nl - nl % ib
    o_full = nr - nr % vl
    for i_start, i_stop, ib_ in ((0, i_full, ib), (i_full, nl, nl - i_full)):
        if i_stop <= i_start:
            continue
        for o_start, o_stop, ot in ((0, o_full, vl), (o_full, nr, nr - o_full)):
            if o_stop <= o_start:
                continue
            parts.append(
                _WG_TILE.substitute(
                    i_start=i_start,
                    i_stop=i_stop,
                    ib=ib_,
                    o_start=o_start,
                    o_stop=o_stop,
                    ot=ot,
                    left=left,
                    nl=nl,
                    right=right,
                    nr=nr,
                    out=out,
                    keep=f"(first ? (symnb_real)0 : {out}[k]) + " if accumulate else "",
                )
            )
    return "".join(parts)


def _weight_gradient_tiled(fi: int, fo: int, vl: int) -> str:
    """dW and db by register tiles: directly when the layer has at least one vector
    of outputs, else as dW^T (vectorised over the inputs), then transposed."""
    if fo >= vl:
        text = _tiled_product("prev", fi, "delta", fo, "dW", vl, True)
    else:
        text = (
            "        symnb_real* SYMNB_RESTRICT dWT = WTbuf;\n"
            + _tiled_product("delta", fo, "prev", fi, "dWT", vl, False)
            + f"        for (int i = 0; i < {fi}; ++i)\n"
            f"            for (int o = 0; o < {fo}; ++o)\n"
            f"                dW[i * {fo} + o] = (first ? (symnb_real)0 : "
            f"dW[i * {fo} + o]) + dWT[o * {fi} + i];\n"
        )
    return text + _DB_SUM.substitute(fo=fo)


_INPUT_GRADIENT = string.Template(
    r"""        {   /* gradient w.r.t. the layer's input: delta @ W^T, ${rb} rows at a time */
            const symnb_real* SYMNB_RESTRICT W = flat + ${w_off};
            symnb_real* SYMNB_RESTRICT WT = WTbuf;
            for (int i = 0; i < ${fi}; ++i)
                for (int o = 0; o < ${fo}; ++o) WT[o * ${fi} + i] = W[i * ${fo} + o];
            symnb_real* SYMNB_RESTRICT out = ${g_out};
            symnb_i64 r = 0;
            for (; r + ${rb} <= rows; r += ${rb}) {
                symnb_real acc[${rb}][${fi}];
#pragma GCC unroll ${rb}
                for (int q = 0; q < ${rb}; ++q)
#pragma omp simd
                    for (int i = 0; i < ${fi}; ++i) acc[q][i] = 0;
                for (int o = 0; o < ${fo}; ++o) {
                    const symnb_real* SYMNB_RESTRICT wt = WT + o * ${fi};
#pragma GCC unroll ${rb}
                    for (int q = 0; q < ${rb}; ++q) {
                        const symnb_real dv = delta[(r + q) * ${fo} + o];
#pragma omp simd
                        for (int i = 0; i < ${fi}; ++i) acc[q][i] += dv * wt[i];
                    }
                }
#pragma GCC unroll ${rb}
                for (int q = 0; q < ${rb}; ++q)
#pragma omp simd
                    for (int i = 0; i < ${fi}; ++i) out[(r + q) * ${fi} + i] = acc[q][i];
            }
            for (; r < rows; ++r) {
                symnb_real acc[${fi}];
#pragma omp simd
                for (int i = 0; i < ${fi}; ++i) acc[i] = 0;
                for (int o = 0; o < ${fo}; ++o) {
                    const symnb_real dv = delta[r * ${fo} + o];
                    const symnb_real* SYMNB_RESTRICT wt = WT + o * ${fi};
#pragma omp simd
                    for (int i = 0; i < ${fi}; ++i) acc[i] += dv * wt[i];
                }
#pragma omp simd
                for (int i = 0; i < ${fi}; ++i) out[r * ${fi} + i] = acc[i];
            }
        }
"""
)

_CONSTANTS_RUNS_HEAD = string.Template(
    r"""        {   /* learnable constants: sum of g * df_j/dc (double), per column */
            const symnb_real* SYMNB_RESTRICT params =
                (const symnb_real*)pointers[${cslot}];
            double full[${np}];
            for (int k = 0; k < ${np}; ++k) full[k] = 0.0;
"""
)

_CONSTANTS_COLUMN = string.Template(
    r"""            for (symnb_i64 r = 0; r < rows; ++r) {   /* column ${j} */
                const symnb_i64 i = r * ${fo} + ${j};
                symnb_real dc[${k}];
                symnb_dc${g}(Z${l}[i], params + ${off}, dc);
                const double gi = (double)g[i];
${accs}
            }
"""
)

#: Shared learnable constants: float sums over blocks of 256 elements in a SIMD
#: reduction, added to double after each block (as the elementwise constants'
#: gradient kernel); the loop over the array form ``symnb_dc`` stayed scalar.
_CONSTANTS_UNIFORM_SIMD = string.Template(
    r"""        {   /* learnable constants: sum of g * df/dc */
            const symnb_real* SYMNB_RESTRICT c = (const symnb_real*)pointers[${cslot}];
            const symnb_real* SYMNB_RESTRICT zz = Z${l};
            double full[${np}];
            for (int k = 0; k < ${np}; ++k) full[k] = 0.0;
            const symnb_i64 n = rows * ${fo};
            for (symnb_i64 b = 0; b < n; b += 256) {
                const symnb_i64 be = n - b < 256 ? n : b + 256;
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
${gather}
        }
"""
)

#: Per-neuron learnable constants, columns in runs of one form: SIMD across each
#: run's columns, row by row, the constants from a table by position and column and
#: double sums per (constant, column) (``acc[q * fan_out + j]``; the table and the
#: sums on the stack, up to this many of each); the column loops (a stride of
#: ``fan_out``) stayed scalar: per-neuron learnable swish trained 3x slower than
#: fixed constants.
CONSTANTS_TABLE_MAX = 4096

_CONSTANTS_RUNS_SIMD = string.Template(
    r"""        {   /* learnable constants: sum of g * df_j/dc, SIMD across runs */
            const symnb_real* SYMNB_RESTRICT params =
                (const symnb_real*)pointers[${cslot}];
            const symnb_real* SYMNB_RESTRICT zz = Z${l};
            static const symnb_i32 off[${fo}] = {${offsets}};
            double full[${np}];
            for (int k = 0; k < ${np}; ++k) full[k] = 0.0;
            symnb_real ct_[${size}];
            double acc_[${size}];
            for (int e = 0; e < ${size}; ++e) acc_[e] = 0.0;
${fills}
            const symnb_real* SYMNB_RESTRICT ct = ct_;
            double* SYMNB_RESTRICT acc = acc_;
            symnb_learn_rows${l}(zz, g, ct, acc, rows);
${stores}
${gather}
        }
"""
)

#: The row loop of :data:`_CONSTANTS_RUNS_SIMD`, a function of its own: inside the
#: step function g++ left it scalar ("control flow in loop").
_CONSTANTS_RUNS_HELPER = string.Template(
    r"""static __attribute__((noinline)) void symnb_learn_rows${l}(
        const symnb_real* SYMNB_RESTRICT zz, const symnb_real* SYMNB_RESTRICT g,
        const symnb_real* SYMNB_RESTRICT ct, double* SYMNB_RESTRICT acc,
        symnb_i64 rows) {
    for (symnb_i64 r = 0; r < rows; ++r) {
${runs}
    }
}
"""
)

_CONSTANTS_RUN = string.Template(
    r"""{${far_decl}
#pragma omp simd${far_clause}
                for (int j = ${j0}; j < ${j1}; ++j) {
                    symnb_real ${locals};
                    ${dc_call}
                    const double gi = (double)g[r * ${fo} + j];
${updates}
                }${far_pass}
                }"""
)

_MAIN = string.Template(
    r"""
static double symnb_step_impl(const symnb_real* SYMNB_RESTRICT X_all,
        const void* Y_all, symnb_i64 total_rows, const symnb_i64* SYMNB_RESTRICT pointers,
        const double* SYMNB_RESTRICT scalars, symnb_i64* SYMNB_RESTRICT status) {
    symnb_real* SYMNB_RESTRICT flat = (symnb_real*)pointers[0];
    symnb_real* SYMNB_RESTRICT grad = (symnb_real*)pointers[1];
    symnb_real* SYMNB_RESTRICT backup = (symnb_real*)pointers[2];
    symnb_real* SYMNB_RESTRICT work = (symnb_real*)pointers[3];
    status[0] = 0;
    double loss_sum = 0.0, picked = 0.0, total = 0.0;
    (void)loss_sum; (void)picked; (void)total;
    /* the rows in chunks of at most SYMNB_CHUNK (the workspace stays in cache);
       gradients add up over the chunks */
    for (symnb_i64 c0 = 0; c0 < total_rows; c0 += SYMNB_CHUNK) {
    const symnb_i64 rows =
        total_rows - c0 < SYMNB_CHUNK ? total_rows - c0 : (symnb_i64)SYMNB_CHUNK;
    const bool first = c0 == 0, last_chunk = c0 + rows >= total_rows;
    (void)first; (void)last_chunk;
    const symnb_real* SYMNB_RESTRICT X = X_all + c0 * ${fi};
    const void* Y = (const char*)Y_all + c0 * ${ybytes};
${buffers}
    /* ---- forward ---- */
${forward}
    /* ---- loss ---- */
${loss}
    /* ---- backward ---- */
${backward}
    }
    double loss = ${loss_value};
    ${smooth_value}
    const int mode = (int)scalars[0];
    if (!(loss - loss == 0.0)) {
        status[0] = 1;
        if (mode != 0) return SYMNB_NAN_D;
    }
    /* ---- penalties (weights only), masks again ---- */
    const double l1 = scalars[7], l2 = scalars[8];
    if (l1 != 0.0 || l2 != 0.0) {
        const symnb_real l1r = (symnb_real)l1, l2r = (symnb_real)l2;
        if (l2 != 0.0) {
#pragma omp simd
            for (symnb_i64 i = 0; i < SYMNB_N_WEIGHTS; ++i) grad[i] += flat[i] * l2r;
        }
        if (l1 != 0.0) {
#pragma omp simd
            for (symnb_i64 i = 0; i < SYMNB_N_WEIGHTS; ++i)
                grad[i] += symnb_sgn(flat[i]) * l1r;
        }
${penalty_masks}
    }
    /* ---- optimizer ---- */
    const symnb_real lr = (symnb_real)scalars[1];
    const symnb_real wd = (symnb_real)scalars[3];
    const bool decay = scalars[3] != 0.0;
    if (mode == 1 && status[0] == 0) {   /* SGD (PyTorch's rule), see symnb_sgd */
        const symnb_i64 what = symnb_sgd(flat, grad, (symnb_real*)pointers[4], lr, wd,
            (symnb_real)scalars[2], decay, scalars[2] != 0.0, scalars[4] != 0.0);
        if (what) {
            status[0] = what;
            return SYMNB_NAN_D;
        }
        return loss;
    }
    {
        const symnb_real s = symnb_sum(grad, SYMNB_N_TOTAL);
        if (!(s - s == 0) && status[0] == 0) status[0] = 2;
    }
    if (mode == 0) return loss;
    if (status[0] != 0) return SYMNB_NAN_D;
    /* Adam's loop keeps the old parameters in backup (no separate copy) */
    {   /* Adam with bias correction (torch.optim.Adam) */
        const double b1 = scalars[2], b2 = scalars[4], t = scalars[6];
        const double step_size = scalars[1] / (1.0 - pow(b1, t));
        const double root_c2 = sqrt(1.0 - pow(b2, t));
        const symnb_real b1r = (symnb_real)b1, b2r = (symnb_real)b2;
        const symnb_real c1 = (symnb_real)(1.0 - b1), c2 = (symnb_real)(1.0 - b2);
        const symnb_real inv = (symnb_real)(1.0 / root_c2);
        const symnb_real epsr = (symnb_real)scalars[5];
        const symnb_real ss = (symnb_real)step_size;
        symnb_real* SYMNB_RESTRICT m = (symnb_real*)pointers[4];
        symnb_real* SYMNB_RESTRICT v = (symnb_real*)pointers[5];
        const symnb_real chk = decay
            ? symnb_adam<true>(flat, backup, grad, m, v, wd, b1r, b2r, c1, c2, inv, epsr, ss)
            : symnb_adam<false>(flat, backup, grad, m, v, wd, b1r, b2r, c1, c2, inv, epsr, ss);
        if (!(chk - chk == 0)) {
            memcpy(flat, backup, sizeof(symnb_real) * SYMNB_N_TOTAL);
            status[0] = 3;
            return SYMNB_NAN_D;
        }
    }
    return loss;
}

SYMNB_KERNEL double ${entry}(const symnb_real* SYMNB_RESTRICT X, const void* Y,
        symnb_i64 rows, const symnb_i64* SYMNB_RESTRICT pointers,
        const double* SYMNB_RESTRICT scalars, symnb_i64* SYMNB_RESTRICT status) {
    return symnb_step_impl(X, Y, rows, pointers, scalars, status);
}

/* the whole epoch: minibatches of the rows order[0..n) (or 0..n without order),
   gathered into xbuf/ybuf; returns the sum over minibatches of (mean loss * rows);
   status[1] = minibatch steps completed (the failing one is the next) */
SYMNB_KERNEL double ${epoch_entry}(const symnb_real* SYMNB_RESTRICT X,
        const void* Y, symnb_i64 n, const symnb_i64* SYMNB_RESTRICT order,
        symnb_i64 batch, symnb_real* SYMNB_RESTRICT xbuf, void* ybuf,
        const symnb_i64* SYMNB_RESTRICT pointers,
        const double* SYMNB_RESTRICT scalars, symnb_i64* SYMNB_RESTRICT status) {
    double sc[SYMNB_N_SCALARS];
    memcpy(sc, scalars, sizeof(sc));
    const double t0 = scalars[6];
    const ${ytype}* SYMNB_RESTRICT ysrc = (const ${ytype}*)Y;
    ${ytype}* SYMNB_RESTRICT ydst = (${ytype}*)ybuf;
    double total = 0.0;
    symnb_i64 done = 0;
    status[0] = 0;
    for (symnb_i64 start = 0; start < n; start += batch) {
        const symnb_i64 rows = n - start < batch ? n - start : batch;
        const symnb_real* xb = X + start * ${fi};
        const void* yb = ysrc + start * ${yw};
        if (order) {
            for (symnb_i64 r = 0; r < rows; ++r) {
                const symnb_i64 src = order[start + r];
                memcpy(xbuf + r * ${fi}, X + src * ${fi}, sizeof(symnb_real) * ${fi});
                memcpy(ydst + r * ${yw}, ysrc + src * ${yw}, sizeof(${ytype}) * ${yw});
            }
            xb = xbuf;
            yb = ydst;
        }
        sc[6] = t0 + (double)(done + 1);
        const double loss = symnb_step_impl(xb, yb, rows, pointers, sc, status);
${sync}
        if (status[0] != 0) break;
        total += loss * (double)rows;
        done += 1;
    }
    status[1] = done;
    return total;
}
"""
)


def _math_macros(dtype: str) -> str:
    f = "f" if dtype == "float32" else ""
    return (
        f"#define SYMNB_EXP(v) exp{f}(v)\n"
        f"#define SYMNB_LOG(v) log{f}(v)\n"
        f"#define SYMNB_SQRT(v) sqrt{f}(v)\n"
    )


def _constants_sync(spec: StepSpec) -> str:
    """C statements copying learnable constants from the flat buffer into the layers'
    kernel constants (what ``MLP._sync_constants`` does between per-step calls)."""
    lines = []
    for i, ly in enumerate(spec.layers):
        if not (ly.active and ly.n_learnable):
            continue
        cslot, _ = spec.layer_pointer_slots(i)
        lines.append("        {")
        lines.append(
            f"            symnb_real* SYMNB_RESTRICT pc = (symnb_real*)pointers[{cslot}];"
        )
        lines.append(
            "            const symnb_real* SYMNB_RESTRICT fl = "
            "(const symnb_real*)pointers[0];"
        )
        for pos, entry in zip(ly.learn_positions, ly.learn_entries):
            lines.append(f"            pc[{pos}] = fl[{ly.c_off + entry}];")
        lines.append("        }")
    return "\n".join(lines)


def _literal(value: float) -> str:
    return repr(float(value))


def _rare_act_loop(text: str, g: int) -> str:
    """An activation SIMD loop of :data:`_ACT_UNIFORM` or :data:`_ACT_RUN` (its
    ``#pragma omp simd``, ``for`` and body) for form ``g`` with rare far-|x|
    branches: the near forms unless an element is far
    (:func:`symnb.codegen.kernels.rare_simd_loop`)."""
    at = text.index("#pragma omp simd")
    head_end = text.index("{", text.index("for (", at))
    depth, body_end = 0, head_end
    for body_end in range(head_end, len(text)):  # the loop's closing brace
        depth += {"{": 1, "}": -1}.get(text[body_end], 0)
        if depth == 0:
            break
    indent = text[text.rindex("\n", 0, at) + 1 : at] if "\n" in text[:at] else ""
    lines = [ln.strip() for ln in text[head_end + 1 : body_end].strip().splitlines()]
    prologue = lines[0] if lines[0].startswith("const symnb_i64 i") else ""
    statement = " ".join(lines[1:] if prologue else lines)
    loop = rare_simd_loop(
        text[at:head_end].rstrip(), prologue, statement, g, indent or "    ", "z[i]"
    )
    return text[:at] + loop + text[body_end + 1 :]


def render_train_step(spec: StepSpec) -> KernelSource:
    """The translation unit of the fused step for ``spec``."""
    _printer._check_dtype(spec.dtype)
    layers = spec.layers
    n_layers = len(layers)

    # distinct forms over the whole network -> global function indices
    index: dict[tuple, int] = {}
    forms: list = []
    global_ids: list[tuple[int, ...]] = []
    for ly in layers:
        local = []
        for form in ly.forms:
            key = _form_key(form)
            if key not in index:
                index[key] = len(forms)
                forms.append(form)
            local.append(index[key])
        global_ids.append(tuple(local))
    # forms with rare far-|x| branches (symnb.codegen.rare): their activation loops
    # run the near forms unless an element is far (rare_simd_loop)
    rare = [split_rare((f.f, f.df), f.inputs[0]) is not None for f in forms]
    dc_rare = [
        bool(f.params) and split_rare(tuple(f.dparams), f.inputs[0]) is not None
        for f in forms
    ]
    parts = []
    for g, form in enumerate(forms):
        parts.append(f"/* ---- activation form {g} ---- */")
        parts.append(_form_text(g, form, spec.dtype, True, _printer.MAX_OPERATIONS))
    loss_index = len(forms)
    if spec.loss == "elementwise":
        lf = spec.loss_form
        parts.append(f"/* ---- loss form {loss_index} ---- */")
        parts.append(
            _form_text(loss_index, lf, spec.dtype, False, _printer.MAX_OPERATIONS)
        )
    elif spec.loss != "softmax":
        raise ValueError(f"unknown loss kind {spec.loss!r}")
    body = "\n".join(parts)
    row_helpers: list[str] = []  # functions the step calls (see _CONSTANTS_RUNS_HELPER)

    # workspace: Z, A, D per layer, then two gradient buffers and W^T
    rb = ROW_BLOCK
    widest = max(max(ly.fan_out, ly.fan_in) for ly in layers)
    buf = []
    cursor = "work"
    for i, ly in enumerate(layers):
        buf.append(f"    symnb_real* SYMNB_RESTRICT Z{i} = {cursor};")
        cursor = f"Z{i} + rows * {ly.fan_out}"
        if ly.active:
            buf.append(f"    symnb_real* SYMNB_RESTRICT A{i} = {cursor};")
            buf.append(
                f"    symnb_real* SYMNB_RESTRICT D{i} = A{i} + rows * {ly.fan_out};"
            )
            cursor = f"D{i} + rows * {ly.fan_out}"
        else:
            buf.append(f"    symnb_real* SYMNB_RESTRICT A{i} = Z{i}; (void)A{i};")
    buf.append(f"    symnb_real* SYMNB_RESTRICT G0 = {cursor};")
    buf.append(f"    symnb_real* SYMNB_RESTRICT G1 = G0 + rows * {widest};")
    buf.append(f"    symnb_real* SYMNB_RESTRICT WTbuf = G1 + rows * {widest};")
    transposed = max(ly.fan_in * _padded(ly.fan_out) for ly in layers)
    buf.append(f"    symnb_real* SYMNB_RESTRICT ROWBUF = WTbuf + {transposed};")
    buf.append("    (void)G1; (void)WTbuf; (void)ROWBUF;")

    forward = []
    for i, ly in enumerate(layers):
        cslot, _ = spec.layer_pointer_slots(i)
        act = ""
        epilogue = _STORE_Z
        # (not for a form with rare branches: the epilogue computes every branch)
        fused = FUSED_EPILOGUE and not (ly.active and rare[global_ids[i][ly.ids[0]]])
        if ly.active and ly.uniform and fused:
            epilogue = _STORE_ACTIVATION.substitute(
                cslot=cslot,
                l=i,
                g=global_ids[i][ly.ids[0]],
                # learnable constants' gradients read z again
                keep_z=" z[si_] = zv_;" if ly.n_learnable else "",
            )
        elif ly.active:
            gids = global_ids[i]
            if ly.uniform:
                act = _ACT_UNIFORM.substitute(
                    cslot=cslot, l=i, fo=ly.fan_out, g=gids[ly.ids[0]]
                )
                if rare[gids[ly.ids[0]]]:
                    act = _rare_act_loop(act, gids[ly.ids[0]])
            else:
                fo = ly.fan_out
                runs = _runs(tuple(ly.ids))
                n_of = {lid: len(ly.forms[lid].params) for _, _, lid in runs}
                table = max(n_of.values()) * fo <= ACT_TABLE_MAX and any(n_of.values())
                fills = []
                if table:
                    size = max(n_of.values()) * fo
                    fills.append(f"            symnb_real ct_[{size}];")
                    for j0, j1, lid in runs:
                        if n_of[lid]:
                            copies = " ".join(
                                f"ct_[{q * fo} + j] = params[off[j] + {q}];"
                                for q in range(n_of[lid])
                            )
                            fills.append(
                                f"            for (int j = {j0}; j < {j1}; ++j) "
                                f"{{ {copies} }}"
                            )
                    fills.append("            const symnb_real* ct = ct_;")
                else:
                    fills.append("            const symnb_real* ct = params;")
                offsets = ", ".join(str(int(o)) for o in ly.offsets)
                act = _ACT_RUNS_HEAD.substitute(
                    cslot=cslot, fo=fo, offsets=offsets, l=i, table="\n".join(fills)
                )
                lines = []
                for j0, j1, lid in runs:
                    g = gids[lid]
                    if table and n_of[lid]:
                        cs = ", ".join(f"ct[{q * fo} + j]" for q in range(n_of[lid]))
                        call = f"symnb_vfdf{g}(z[i], {cs}, &v, &dv);"
                    else:
                        call = f"symnb_fdf{g}(z[i], params, &v, &dv, off[j]);"
                    run = _ACT_RUN.substitute(j0=j0, j1=j1, fo=fo, g=g, call=call)
                    lines.append(_rare_act_loop(run, g) if rare[g] else run)
                row_helpers.append(
                    _ACT_ROWS_HELPER.substitute(
                        l=i, fo=fo, offsets=offsets, runs="\n".join(lines)
                    )
                )
        fop = _padded(ly.fan_out)
        if fop == ly.fan_out:
            weights = f"        const symnb_real* SYMNB_RESTRICT W = flat + {ly.w_off};"
        else:  # few outputs: W with zero columns up to whole vectors (in WTbuf)
            weights = (
                "        symnb_real* SYMNB_RESTRICT W = WTbuf;\n"
                f"        for (int i = 0; i < {ly.fan_in}; ++i)\n"
                f"            for (int o = 0; o < {fop}; ++o)\n"
                f"                W[i * {fop} + o] = o < {ly.fan_out} ? "
                f"flat[{ly.w_off} + i * {ly.fan_out} + o] : 0;"
            )
        block_template = (
            _FORWARD_BLOCK_TILES
            if FORWARD_TILES and fop % 16 == 0 and fop > 16
            else _FORWARD_BLOCK_ROWS
        )
        block = block_template.substitute(rb=rb, fi=ly.fan_in, fo=ly.fan_out, fop=fop)
        forward.append(
            _FORWARD.substitute(
                block=block,
                weights=weights,
                fop=fop,
                l=i,
                fi=ly.fan_in,
                fo=ly.fan_out,
                w_off=ly.w_off,
                b_off=ly.b_off,
                src="X" if i == 0 else f"A{i - 1}",
                rb=rb,
                activation=act,
                epilogue=epilogue,
            )
        )

    last = layers[-1]
    smooth_value = ""
    loss_lines = [f"    const symnb_real* SYMNB_RESTRICT P = A{n_layers - 1};"]
    loss_lines.append("    symnb_real* SYMNB_RESTRICT G = G0;")
    if spec.loss == "elementwise":
        loss_lines.append(_LOSS_ELEMENTWISE.substitute(fo=last.fan_out, g=loss_index))
    else:
        eps = float(spec.label_smoothing)
        if eps:
            smooth_total = (
                f"for (int j = 0; j < {last.fan_out}; ++j) "
                "total += (double)((zr[j] - m) - lse);"
            )
            smooth_grad = " - eps / (symnb_real)" + str(last.fan_out)
            smooth_value = (
                f"loss = (1.0 - {_literal(eps)}) * loss - {_literal(eps)} * total / "
                f"((double)total_rows * {last.fan_out}.0);"
            )
        else:
            smooth_total = ""
            smooth_grad = ""
        loss_lines.append(
            _LOSS_SOFTMAX.substitute(
                fo=last.fan_out,
                eps=_literal(eps),
                smooth_total=smooth_total,
                smooth_grad=smooth_grad,
                smooth_value=smooth_value,
            )
        )

    backward = []
    vl = 16 if spec.dtype == "float32" else 8  # elements per 64-byte vector
    g_names = ["G0", "G1"]
    for step, i in enumerate(range(n_layers - 1, -1, -1)):
        ly = layers[i]
        cslot, mslot = spec.layer_pointer_slots(i)
        g_in = g_names[step % 2]
        g_out = g_names[(step + 1) % 2]
        constants = ""
        if ly.active and ly.n_learnable:
            gids = global_ids[i]
            gather_lines = []
            for e in range(ly.n_learnable):
                terms = [
                    f"full[{p}]"
                    for p, entry in zip(ly.learn_positions, ly.learn_entries)
                    if entry == e
                ]
                k = ly.c_off + e
                gather_lines.append(
                    f"            grad[{k}] = (first ? (symnb_real)0 : grad[{k}]) + "
                    "(symnb_real)(" + (" + ".join(terms) or "0.0") + ");"
                )
            gather = "\n".join(gather_lines)
            if ly.uniform:
                k = len(ly.forms[ly.ids[0]].params)
                g = gids[ly.ids[0]]
                sums = block_sum_fields(
                    k, 20, "                full[{r}] += (double)s{r};"
                )
                constants = _CONSTANTS_UNIFORM_SIMD.substitute(
                    cslot=cslot,
                    np=max(ly.n_params, 1),
                    fo=ly.fan_out,
                    l=i,
                    gather=gather,
                    **sums,
                    **rare_gradient_fields(
                        g,
                        k,
                        dc_rare[g],
                        "for (symnb_i64 i = b; i < be; ++i)",
                        "zz[i]",
                        ", ".join(f"c[{r}]" for r in range(k)),
                        "const symnb_real gi = g[i];\n" + sums["updates"],
                        "                ",
                    ),
                )
            elif (
                simd := _constants_runs_simd(ly, gids, cslot, i, gather, dc_rare)
            ) is not None:
                constants, helper = simd
                row_helpers.append(helper)
            else:
                lines = [
                    _CONSTANTS_RUNS_HEAD.substitute(cslot=cslot, np=max(ly.n_params, 1))
                ]
                needed = set(ly.learn_positions)
                for j in range(ly.fan_out):
                    form = ly.forms[ly.ids[j]]
                    k = len(form.params)
                    off = int(ly.offsets[j])
                    if not k or not any(off <= p < off + k for p in needed):
                        continue
                    accs = "\n".join(
                        f"                full[{off + q}] += gi * (double)dc[{q}];"
                        for q in range(k)
                    )
                    lines.append(
                        _CONSTANTS_COLUMN.substitute(
                            j=j,
                            fo=ly.fan_out,
                            k=k,
                            g=gids[ly.ids[j]],
                            l=i,
                            off=off,
                            accs=accs,
                        )
                    )
                lines.append(gather + "\n        }\n")
                constants = "".join(lines)
        if ly.active:
            delta = (
                f"        symnb_real* SYMNB_RESTRICT delta = D{i};\n"
                "#pragma omp simd\n"
                f"        for (symnb_i64 i = 0; i < rows * {ly.fan_out}; ++i) "
                "delta[i] = g[i] * delta[i];\n"
            )
        else:
            delta = "        symnb_real* SYMNB_RESTRICT delta = g;\n"
        mask = ""
        if ly.masked:
            mask = (
                "        if (last_chunk) {   /* (masks may be fractional) */\n"
                f"            const symnb_real* SYMNB_RESTRICT mk = "
                f"(const symnb_real*)pointers[{mslot}];\n"
                "#pragma omp simd\n"
                f"            for (int i = 0; i < {ly.fan_in * ly.fan_out}; ++i) "
                "dW[i] *= mk[i];\n"
                "        }\n"
            )
        ig = ""
        if i > 0:
            ig = _INPUT_GRADIENT.substitute(
                w_off=ly.w_off,
                fi=ly.fan_in,
                fo=ly.fan_out,
                g_out=g_out,
                rb=_input_gradient_rows(ly.fan_in, vl),
            )
        fi, fo = ly.fan_in, ly.fan_out
        if TILED_WEIGHT_GRADIENT and min(fi, fo) >= 4 and max(fi, fo) >= vl:
            # (fewer than 4 accumulators per tile wait on the FMA latency)
            wg = _weight_gradient_tiled(fi, fo, vl)
        elif TRANSPOSED_WEIGHT_GRADIENT and fi >= vl and (fo < vl or 4 * fi <= 16 * vl):
            wg = _WEIGHT_GRADIENT_T.substitute(
                fi=fi, fo=fo, rb=max(1, min(4, (16 * vl) // fi))
            )
        else:
            wg = _WEIGHT_GRADIENT_WIDE.substitute(
                fi=fi, fo=fo, rb=ROW_BLOCK_WEIGHT_GRADIENT
            )
        backward.append(
            _BACKWARD.substitute(
                weight_gradient=wg,
                l=i,
                g_in=g_in,
                constants=constants,
                delta=delta,
                prev="X" if i == 0 else f"A{i - 1}",
                w_off=ly.w_off,
                b_off=ly.b_off,
                fi=ly.fan_in,
                fo=ly.fan_out,
                rb=rb,
                mask=mask,
                input_gradient=ig,
            )
        )

    penalty_masks = []
    for i, ly in enumerate(layers):
        if ly.masked:
            _, mslot = spec.layer_pointer_slots(i)
            penalty_masks.append(
                "        {\n"
                f"            const symnb_real* SYMNB_RESTRICT mk = "
                f"(const symnb_real*)pointers[{mslot}];\n"
                f"            symnb_real* SYMNB_RESTRICT gw = grad + {ly.w_off};\n"
                "#pragma omp simd\n"
                f"            for (int i = 0; i < {ly.fan_in * ly.fan_out}; ++i) "
                "gw[i] *= mk[i];\n"
                "        }"
            )

    header = render_header("cpp", spec.dtype, PARALLEL_MIN)
    text = "\n".join(
        [
            UNROLL_PRAGMA,
            header,
            prelude(spec.dtype, helpers_used(body)),
            _math_macros(spec.dtype),
            _PROLOGUE.substitute(
                n_total=spec.n_total,
                n_weights=spec.n_weights,
                n_scalars=N_SCALARS,
                chunk=spec.chunk_rows or "INT64_MAX",
            ),
            body,
            *row_helpers,
            "/* ---- fused training step ---- */",
            _MAIN.substitute(
                entry=ENTRY_POINT,
                epoch_entry=EPOCH_ENTRY_POINT,
                fi=layers[0].fan_in,
                ytype="symnb_i64" if spec.loss == "softmax" else "symnb_real",
                yw=1 if spec.loss == "softmax" else last.fan_out,
                sync=_constants_sync(spec),
                ybytes=(
                    "sizeof(symnb_i64)"
                    if spec.loss == "softmax"
                    else f"sizeof(symnb_real) * {last.fan_out}"
                ),
                loss_value=(
                    "-picked / (double)total_rows"
                    if spec.loss == "softmax"
                    else f"loss_sum / ((double)total_rows * {last.fan_out})"
                ),
                smooth_value=smooth_value,
                buffers="\n".join(buf),
                forward="\n".join(forward),
                loss="\n".join(loss_lines),
                backward="\n".join(backward),
                penalty_masks="\n".join(penalty_masks),
            ),
        ]
    )
    digest = hashlib.sha256(text.encode()).hexdigest()
    return KernelSource(
        text,
        {"mlp_step": ENTRY_POINT, "mlp_epoch": EPOCH_ENTRY_POINT},
        digest,
        "cpp",
        spec.dtype,
        "train_step",
    )


__all__ = [
    "ENTRY_POINT",
    "EPOCH_ENTRY_POINT",
    "N_SCALARS",
    "POINTER_SLOTS",
    "ROW_BLOCK",
    "SCALAR_SLOTS",
    "LayerSpec",
    "StepSpec",
    "render_train_step",
]
