"""GPU check of symnb's CUDA backend: correctness against float64 references, constants
without recompiling, and throughput as a fraction of device-to-device copy bandwidth.

Run on a machine with an NVIDIA GPU (needs numpy, sympy, cupy and symnb; under 5 minutes
on an H200)::

    python benchmarks/gpu_check.py            # everything
    python benchmarks/gpu_check.py --quick    # correctness only, no throughput table
    python benchmarks/gpu_check.py --backend cpp   # same checks on the CPU (checks the
                                                   # script itself; no throughput)

Exit status 0 when every check passes, 1 when one fails, 2 when the CUDA backend is not
usable at all (the reason is printed).

What is checked
---------------
* every library activation, float32 and float64: forward, forward_with_derivative (f
  and f'), backward, forward_and_backward (f and grad * f'), against a float64 NumPy
  evaluation of the same SymPy expressions (independent of symnb's numpy backend), on
  a grid with 0, +-1e-8, +-1, +-20, +-88, +-100, +-1e4 and random points; NaN in
  gives NaN out;
* every library loss, float32 and float64: value (mean) and gradient;
* a heterogeneous layer with every library activation (one neuron each, two for
  activations with constants, the second with other constants): forward,
  forward_with_derivative, backward, constant_gradient;
* ``set_constants`` (elementwise, layer, loss) changes the values and compiles nothing
  (NVRTC calls are counted); the same formula with other constants compiles nothing;
  after the in-process cache is cleared, the disk cache serves the kernel;
* float32 subnormals survive (no flush-to-zero).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
import traceback

# A fresh, private kernel cache so that the first compile is a real one.
os.environ["SYMNB_CACHE_DIR"] = tempfile.mkdtemp(prefix="symnb-gpu-check-")

import numpy as np
import sympy as sp

TIME_BUDGET_S = 280.0
#: The backend under test. ``--backend cpp|numpy`` runs the same correctness checks on
#: the CPU (to check this script itself where there is no GPU).
BACKEND = "cuda"
GRID_SPECIAL = [
    0.0,
    1e-8,
    -1e-8,
    1.0,
    -1.0,
    20.0,
    -20.0,
    88.0,
    -88.0,
    100.0,
    -100.0,
    1e4,
    -1e4,
]
TOL = {"float32": (2e-5, 2e-6), "float64": (1e-10, 1e-12)}  # (rtol, atol)
SIZES = (10**6, 10**7, 10**8)

START = time.perf_counter()
RESULTS: list[tuple[str, bool, str]] = []


def elapsed() -> float:
    return time.perf_counter() - START


def record(name: str, ok: bool, detail: str = "") -> bool:
    RESULTS.append((name, ok, detail))
    mark = "PASS" if ok else "FAIL"
    print(
        f"  [{mark}] {name}" + (f": {detail}" if detail and not ok else ""), flush=True
    )
    return ok


def check(name: str):
    """Decorator-free helper: run fn, record an exception as a failure."""

    def run(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - every failure is reported, not raised
            tb = traceback.format_exc(limit=4)
            record(name, False, f"{type(exc).__name__}: {exc}\n{tb}")
            return None

    return run


# --------------------------------------------------------------------------------------
# float64 references from the InternalForm's SymPy expressions (numpy only, no scipy)


def _sigmoid(u):
    e = np.exp(-np.abs(u))
    return np.where(u >= 0, 1 / (1 + e), e / (1 + e))


def _softplus(u):
    return np.maximum(u, 0) + np.log1p(np.exp(-np.abs(u)))


def _logsigmoid(u):
    return np.minimum(u, 0) - np.log1p(np.exp(-np.abs(u)))


_erf = np.vectorize(math.erf, otypes=[float])
_erfc = np.vectorize(math.erfc, otypes=[float])
MODULES = [
    {
        "sigmoid": _sigmoid,
        "softplus": _softplus,
        "logsigmoid": _logsigmoid,
        "erf": _erf,
        "erfc": _erfc,
    },
    "numpy",
]


def reference(expr, form):
    fn = sp.lambdify(list(form.inputs) + list(form.params), expr, modules=MODULES)

    def call(*args):
        full = np.broadcast_arrays(*[np.asarray(a, dtype=np.float64) for a in args])
        with np.errstate(all="ignore"):
            out = fn(*[np.array(a) for a in full])
        return np.broadcast_to(np.asarray(out, dtype=np.float64), full[0].shape).copy()

    return call


def compare(got, ref, dtype: str, mask=None, scale=None) -> tuple[bool, str]:
    """|got - ref| <= atol*scale + rtol*|ref| where ref is finite; same inf/NaN else."""
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if mask is not None:
        got, ref = got[mask], ref[mask]
        scale = None if scale is None else np.asarray(scale)[mask]
    rtol, atol = TOL[dtype]
    fin = np.isfinite(ref)
    err = np.abs(got[fin] - ref[fin])
    # backward = g * f': its absolute error scales with |g|
    atol_arr = atol if scale is None else atol * np.abs(np.asarray(scale, float))[fin]
    bad = err > atol_arr + rtol * np.abs(ref[fin])
    # float32 overflow of a finite float64 value is a failure too (err is inf)
    nonfin_ok = np.array_equal(np.isnan(got[~fin]), np.isnan(ref[~fin])) and np.all(
        (got[~fin] == ref[~fin]) | np.isnan(ref[~fin])
    )
    if bad.any() or not nonfin_ok:
        i = int(np.argmax(np.where(bad, err, -1))) if bad.any() else 0
        where = np.flatnonzero(fin)[i] if bad.any() else -1
        return False, (
            f"{int(bad.sum())} of {fin.sum()} finite points off; "
            f"worst at index {where}: "
            f"got {got[fin][i]!r}, want {ref[fin][i]!r}"
            + ("" if nonfin_ok else "; inf/NaN pattern differs")
        )
    return True, ""


def grid(dtype: str, n_random: int = 2000, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pts = np.concatenate(
        [
            GRID_SPECIAL,
            rng.uniform(-10, 10, n_random),
            rng.standard_normal(n_random // 4) * 100,
        ]
    )
    return pts.astype(dtype)


# --------------------------------------------------------------------------------------


_FORMULAS: dict = {}


def get_activation(symnb, name: str):
    """Library activations are built once (parsing and differentiation take time)."""
    if ("a", name) not in _FORMULAS:
        _FORMULAS[("a", name)] = symnb.activation(name)
    return _FORMULAS[("a", name)]


def get_loss(symnb, name: str):
    if ("l", name) not in _FORMULAS:
        _FORMULAS[("l", name)] = symnb.loss(name)
    return _FORMULAS[("l", name)]


class NVRTCCounter:
    """Counts real NVRTC compilations made by the CUDA backend."""

    def __init__(self) -> None:
        from symnb.backends import nvrtc

        self.calls = 0
        self._nvrtc = nvrtc
        self._real = nvrtc.compile

        def counted(*args, **kwargs):
            self.calls += 1
            return self._real(*args, **kwargs)

        nvrtc.compile = counted


def compile_on_backend(obj, label: str, dtype: str):
    """``obj`` compiled for BACKEND (strict), or None after recording a failure when
    it compiled for another backend."""
    k = obj.compile(backend=BACKEND, device=0, dtype=dtype, strict=True)
    if k.backend != BACKEND:
        record(label, False, f"compiled for {k.backend!r}, not {BACKEND}")
        return None
    return k


def check_activation(symnb, cp, name: str, dtype: str) -> None:
    label = f"activation {name} {dtype}"
    act = get_activation(symnb, name)
    form = act.internal
    k = compile_on_backend(act, label, dtype)
    if k is None:
        return
    x_host = grid(dtype)
    x = cp.asarray(x_host)
    values = list(form.param_values)
    xd = x_host.astype(np.float64)
    ref_f = reference(form.f, form)(xd, *values)
    ref_df = reference(form.df, form)(xd, *values)
    y = cp.asnumpy(k.forward(x))
    y2, dy = (cp.asnumpy(a) for a in k.forward_with_derivative(x))
    g_host = np.random.default_rng(1).standard_normal(x.size).astype(dtype)
    dx = cp.asnumpy(k.backward(x, cp.asarray(g_host)))
    y3, dx3 = (cp.asnumpy(a) for a in k.forward_and_backward(x, cp.asarray(g_host)))
    problems = []
    for what, got, ref, scale in (
        ("f", y, ref_f, None),
        ("f (fused)", y2, ref_f, None),
        ("f'", dy, ref_df, None),
        ("backward", dx, g_host.astype(np.float64) * ref_df, g_host),
        ("f (forward_and_backward)", y3, ref_f, None),
        ("grad (forward_and_backward)", dx3, g_host.astype(np.float64) * ref_df, g_host),
    ):
        ok, msg = compare(got, ref, dtype, scale=scale)
        if not ok:
            problems.append(f"{what}: {msg}")
    xn = cp.full(4, cp.nan, dtype=dtype)
    yn, dyn = k.forward_with_derivative(xn)
    if not (bool(cp.isnan(yn).all()) and bool(cp.isnan(dyn).all())):
        problems.append("NaN input did not give NaN f and f'")
    record(label, not problems, "; ".join(problems))


def loss_inputs(name: str, dtype: str, n: int = 20001) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    if name.startswith("bce") and name != "bce_with_logits":
        p = rng.uniform(1e-4, 1 - 1e-4, n)
        t = rng.integers(0, 2, n).astype(float)
        t[: n // 4] = rng.uniform(0, 1, n // 4)
    elif name == "bce_with_logits":
        p = rng.standard_normal(n) * 5
        p[:6] = [0, 20, -20, 88, -88, 100]
        t = rng.integers(0, 2, n).astype(float)
    elif name == "hinge":
        p = rng.standard_normal(n) * 2
        t = rng.choice([-1.0, 1.0], n)
    else:
        p = rng.standard_normal(n) * 3
        t = rng.standard_normal(n) * 3
    return p.astype(dtype), t.astype(dtype)


def check_loss(symnb, cp, name: str, dtype: str) -> None:
    label = f"loss {name} {dtype}"
    loss = get_loss(symnb, name)
    form = loss.internal
    k = compile_on_backend(loss, label, dtype)
    if k is None:
        return
    p, t = loss_inputs(name, dtype)
    pd, td = p.astype(np.float64), t.astype(np.float64)
    values = list(form.param_values)
    ref_terms = reference(form.f, form)(pd, td, *values)
    ref_value = float(np.mean(ref_terms))
    got_value = float(k.value(cp.asarray(p), cp.asarray(t)))
    rtol = 1e-5 if dtype == "float32" else 1e-11
    scale = float(np.mean(np.abs(ref_terms))) + 1e-30
    problems = []
    if not abs(got_value - ref_value) <= rtol * scale:
        problems.append(f"value {got_value!r}, want {ref_value!r}")
    g = cp.asnumpy(k.gradient(cp.asarray(p), cp.asarray(t)))
    ref_g = reference(form.df, form)(pd, td, *values) / p.size
    rt, at = TOL[dtype]
    ok = np.abs(g - ref_g) <= at / p.size + rt * np.abs(ref_g)
    if not ok.all():
        i = int(np.argmin(ok))
        problems.append(
            f"gradient: {int((~ok).sum())} off, e.g. p={p[i]!r} t={t[i]!r}: "
            f"got {g[i]!r}, want {ref_g[i]!r}"
        )
    record(label, not problems, "; ".join(problems))


def check_layer(symnb, cp, dtype: str) -> None:
    label = f"heterogeneous layer {dtype}"
    names = list(symnb.library_activations())
    acts = []
    for n in names:
        a = get_activation(symnb, n)
        acts.append(a)
        if a.constants:  # a second neuron with other constants
            acts.append(
                a.with_constants(**{c: v * 1.25 for c, v in a.constants.items()})
            )
    layer = symnb.compile_layer(
        acts, backend=BACKEND, device=0, dtype=dtype, strict=True
    )
    if layer.backend != BACKEND:
        record(label, False, f"compiled for {layer.backend!r}, not {BACKEND}")
        return
    base = grid(dtype, n_random=500, seed=3)
    rows, cols = base.size, len(acts)
    x_host = np.ascontiguousarray(np.repeat(base[:, None], cols, axis=1))
    g_host = np.random.default_rng(4).standard_normal((rows, cols)).astype(dtype)
    x, g = cp.asarray(x_host), cp.asarray(g_host)
    y = cp.asnumpy(layer.forward(x))
    y2, dy = (cp.asnumpy(a) for a in layer.forward_with_derivative(x))
    dx = cp.asnumpy(layer.backward(x, g))
    # constants' gradient on a tame range (no overflow in the sums)
    xs_host = np.ascontiguousarray(
        np.repeat(np.linspace(-3.3, 3.3, 1025)[:, None], cols, axis=1).astype(dtype)
    )
    gs_host = np.ones_like(xs_host)
    cg = np.asarray(layer.constant_gradient(cp.asarray(xs_host), cp.asarray(gs_host)))
    offsets = (
        cp.asnumpy(layer.offsets) if hasattr(layer.offsets, "get") else layer.offsets
    )
    problems = []
    for j, a in enumerate(acts):
        form = a.internal
        values = [a.constants[n] for n in form.param_names]
        xd = x_host[:, j].astype(np.float64)
        rf = reference(form.f, form)(xd, *values)
        rdf = reference(form.df, form)(xd, *values)
        gj = g_host[:, j]
        for what, got, ref, scale in (
            ("f", y[:, j], rf, None),
            ("f (fused)", y2[:, j], rf, None),
            ("f'", dy[:, j], rdf, None),
            ("backward", dx[:, j], gj.astype(np.float64) * rdf, gj),
        ):
            ok, msg = compare(got, ref, dtype, scale=scale)
            if not ok:
                problems.append(f"neuron {j} ({a.name}) {what}: {msg}")
        for q, dp in enumerate(form.dparams):
            terms = reference(dp, form)(xs_host[:, j].astype(np.float64), *values)
            want = float(terms.sum())
            got = float(cg[int(offsets[j]) + q])
            tol = (1e-4 if dtype == "float32" else 1e-9) * (
                float(np.abs(terms).sum()) + 1e-12
            )
            if not abs(got - want) <= tol:
                problems.append(
                    f"neuron {j} ({a.name}) d/d{form.param_names[q]}: "
                    f"got {got!r}, want {want!r}"
                )
    record(label, not problems, "; ".join(problems[:6]))


def check_constants_without_recompiling(symnb, cp, counter: NVRTCCounter) -> None:
    from symnb.backends import select

    x_host = np.linspace(-6, 6, 10001).astype(np.float32)
    x = cp.asarray(x_host)
    swish = get_activation(symnb, "swish")
    k = swish.compile(backend=BACKEND, device=0, dtype="float32", strict=True)
    form = swish.internal
    before = counter.calls
    problems = []
    for beta in (0.5, 2.0, 7.25):
        k.set_constants(beta=beta)
        y = cp.asnumpy(k.forward(x))
        ok, msg = compare(
            y, reference(form.f, form)(x_host.astype(np.float64), beta), "float32"
        )
        if not ok:
            problems.append(f"beta={beta}: {msg}")
    k2 = symnb.activation("swish", beta=3.0).compile(
        backend=BACKEND, device=0, dtype="float32", strict=True
    )
    y = cp.asnumpy(k2.forward(x))
    ok, msg = compare(
        y, reference(form.f, form)(x_host.astype(np.float64), 3.0), "float32"
    )
    if not ok:
        problems.append(f"activation('swish', beta=3): {msg}")
    if counter.calls != before:
        problems.append(
            f"{counter.calls - before} NVRTC compilation(s) for new constants"
        )
    record(
        "set_constants / other constants: no recompilation",
        not problems,
        "; ".join(problems),
    )

    # loss and layer constants
    problems = []
    before = counter.calls
    huber = get_loss(symnb, "huber")
    lk = huber.compile(backend=BACKEND, device=0, dtype="float32", strict=True)
    p, t = loss_inputs("huber", "float32")
    for delta in (0.25, 2.0):
        lk.set_constants(delta=delta)
        want = float(
            np.mean(
                reference(huber.internal.f, huber.internal)(
                    p.astype(np.float64), t.astype(np.float64), delta
                )
            )
        )
        got = float(lk.value(cp.asarray(p), cp.asarray(t)))
        if not abs(got - want) <= 1e-5 * abs(want):
            problems.append(f"huber delta={delta}: got {got}, want {want}")
    layer = symnb.compile_layer(
        [swish, get_activation(symnb, "relu"), swish],
        backend=BACKEND,
        device=0,
        dtype="float32",
        strict=True,
    )
    before_layer = counter.calls
    layer.set_constants(neuron=2, beta=4.0)
    xl_host = np.repeat(x_host[:, None], 3, axis=1)
    yl = cp.asnumpy(layer.forward(cp.asarray(xl_host)))
    ref_f = reference(form.f, form)
    for j, beta in ((0, 1.0), (2, 4.0)):
        ok, msg = compare(yl[:, j], ref_f(x_host.astype(np.float64), beta), "float32")
        if not ok:
            problems.append(f"layer neuron {j} beta={beta}: {msg}")
    if counter.calls != before_layer:
        problems.append("layer.set_constants recompiled")
    record("loss/layer set_constants", not problems, "; ".join(problems))
    del before

    # disk cache: a new process would find the cubin (emulated: clear the in-process
    # cache)
    if BACKEND == "numpy":
        return  # nothing compiled, nothing cached
    select.clear_program_cache()
    calls = counter.calls
    k3 = swish.compile(backend=BACKEND, device=0, dtype="float32", strict=True)
    ok = counter.calls == calls and k3.cache_hit
    record(
        "disk cache serves a compiled kernel",
        ok,
        f"NVRTC calls {counter.calls - calls}, cache_hit={k3.cache_hit}",
    )


def check_subnormals(symnb, cp) -> None:
    act = symnb.Activation("x*a", name="scale", a=1.0)
    k = act.compile(backend=BACKEND, device=0, dtype="float32", strict=True)
    x = cp.asarray(np.array([1e-40, -3e-42, 1.0], dtype=np.float32))
    y = cp.asnumpy(k.forward(x))
    record(
        "float32 subnormals survive (no flush-to-zero)",
        bool(np.array_equal(y, cp.asnumpy(x))),
        f"got {y!r}",
    )


# --------------------------------------------------------------------------------------
# Throughput


def median_ms(cp, fn, reps: int) -> float:
    """Median over ``reps`` of one call, timed with CUDA events (with host overhead)."""
    times = []
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(times))


def throughput(symnb, cp, names: list[str]) -> None:
    print(
        "\nThroughput, float32 (fraction of device-to-device copy bandwidth; "
        "f moves 2 arrays, f+f' 3)"
    )
    header = f"{'activation':<16}" + "".join(
        f"{'f@' + f'{n:.0e}':>12}{'fdf@' + f'{n:.0e}':>12}" for n in SIZES
    )
    print(header)
    bufs = {}
    copy_ms = {}
    for n in SIZES:
        x = cp.asarray(np.random.default_rng(0).uniform(-5, 5, n).astype(np.float32))
        y, dy = cp.empty_like(x), cp.empty_like(x)
        bufs[n] = (x, y, dy)
        reps = 50 if n < 10**8 else 15

        def copy(y=y, x=x) -> None:
            y.data.copy_from_device_async(x.data, x.nbytes)

        for _ in range(3):
            copy()
        copy_ms[n] = median_ms(cp, copy, reps)
    print(
        f"{'(copy GB/s)':<16}"
        + "".join(f"{2 * 4 * n / copy_ms[n] / 1e6:>12.0f}{'':>12}" for n in SIZES)
    )
    for name in names:
        if elapsed() > TIME_BUDGET_S:
            print(f"(time budget reached; skipped {name} and the rest)")
            break
        k = get_activation(symnb, name).compile(
            backend=BACKEND, device=0, dtype="float32", strict=True
        )
        row = f"{name:<16}"
        for n in SIZES:
            x, y, dy = bufs[n]
            reps = 30 if n < 10**8 else 10
            for _ in range(2):
                k.forward(x, out=y)
                k.forward_with_derivative(x, out=(y, dy))
            t_f = median_ms(cp, lambda k=k, x=x, y=y: k.forward(x, out=y), reps)
            t_fdf = median_ms(
                cp,
                lambda k=k, x=x, y=y, dy=dy: k.forward_with_derivative(x, out=(y, dy)),
                reps,
            )
            row += f"{copy_ms[n] / t_f:>12.2f}{1.5 * copy_ms[n] / t_fdf:>12.2f}"
        print(row, flush=True)
    print(
        "(1.00 = as fast as a copy moving the same bytes; 1e6 rows include the "
        "per-call Python overhead)"
    )


# --------------------------------------------------------------------------------------


class _HostArrays:
    """The few CuPy calls this script makes, on NumPy (for ``--backend cpp|numpy``)."""

    nan = np.nan
    float32 = np.float32
    asarray = staticmethod(np.asarray)
    asnumpy = staticmethod(np.asarray)
    full = staticmethod(np.full)
    isnan = staticmethod(np.isnan)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="skip the throughput table")
    ap.add_argument(
        "--backend",
        default="cuda",
        choices=("cuda", "cpp", "numpy"),
        help="backend under test (cpp/numpy: check this script on a CPU-only machine)",
    )
    args = ap.parse_args()
    global BACKEND
    BACKEND = args.backend

    import symnb
    from symnb.backends import select

    status = select.status(BACKEND)
    print(f"symnb {symnb.__version__}; {status}")
    if not status.usable:
        print(
            f"FAIL: the {BACKEND} backend is not usable here: {status.reason} "
            f"(fix: {status.fix})"
        )
        return 2
    if BACKEND == "cuda":
        import cupy as cp

        print(f"cupy {cp.__version__}; details: {status.details}")
    else:
        cp = _HostArrays()
        args.quick = True
    counter = NVRTCCounter()

    act_names = list(symnb.library_activations())
    loss_names = list(symnb.library_losses())
    print(f"\nCorrectness ({len(act_names)} activations, {len(loss_names)} losses)")
    t0 = time.perf_counter()
    for dtype in ("float32", "float64"):
        for name in act_names:
            check(f"activation {name} {dtype}")(
                check_activation, symnb, cp, name, dtype
            )
        for name in loss_names:
            check(f"loss {name} {dtype}")(check_loss, symnb, cp, name, dtype)
        check(f"heterogeneous layer {dtype}")(check_layer, symnb, cp, dtype)
    print(f"  ({counter.calls} NVRTC compilations, {time.perf_counter() - t0:.1f} s)")
    check("set_constants")(check_constants_without_recompiling, symnb, cp, counter)
    check("subnormals")(check_subnormals, symnb, cp)
    if BACKEND == "cuda":  # torch/to_source/numba interop (gpu_check_interop.py)
        from gpu_check_interop import run_all

        run_all(check, record, symnb, cp)

    if not args.quick:
        check("throughput")(throughput, symnb, cp, act_names)

    failed = [r for r in RESULTS if not r[1]]
    print(
        f"\nSUMMARY: {len(RESULTS) - len(failed)} passed, {len(failed)} failed "
        f"({elapsed():.0f} s)"
    )
    for name, _, detail in failed:
        print(f"  FAIL {name}: {detail.splitlines()[0] if detail else ''}")
    print("PASS" if not failed else "FAIL")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
