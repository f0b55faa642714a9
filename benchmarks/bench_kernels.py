"""Speed of symnb's kernels against lambdify+NumPy and PyTorch (run by hand, not a test).

    .venv/bin/python benchmarks/bench_kernels.py                 # everything, ~2-4 min
    .venv/bin/python benchmarks/bench_kernels.py --sizes 1e6 --names gelu_tanh mish
    # the README peers table (symnb cpp vs PyTorch eager, torch.compile, jax.jit;
    # 1 and 2 threads, each in its own process), ~5 min:
    .venv/bin/python benchmarks/bench_kernels.py --peers --threads 1 2

``--peers`` adds swish with beta = 1.5 and the PAU 5/4 rational (``pau``) to the six
library activations.

Forward and backward (g * f'(x)) of relu, gelu_tanh, silu, softplus, mish, elu in float32 at
1e4 .. 1e7 elements, on symnb's cpp and numpy backends (through the public API,
``symnb.activation(name).compile(backend=...)``, writing into ``out=`` buffers), against
``sympy.lambdify(..., "numpy")`` and PyTorch (built-in ``torch.nn.functional`` forward;
autograd backward, graph kept). Prints markdown tables of medians and ratios, then relu
against the copy bandwidth (``np.copyto``) and the per-call overhead at 1e4.
"""

# ruff: noqa: B023 - the timed lambdas run at once, inside their loop iteration
from __future__ import annotations

import argparse
import itertools
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import sympy as sp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

NAMES = ["relu", "gelu_tanh", "silu", "softplus", "mish", "elu"]
PEER_NAMES = [*NAMES, "swish", "pau"]
PEER_SIZES = [100_000, 1_000_000]
SWISH_BETA = 1.5
SIZES = [10_000, 100_000, 1_000_000, 10_000_000]


def timeit(fn, budget: float = 0.25, min_reps: int = 5, max_reps: int = 2000) -> float:
    """Median seconds of ``fn()`` (after one warm-up call)."""
    fn()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < max_reps and (
        len(times) < min_reps or time.perf_counter() - start < budget
    ):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


# ------------------------------------------------------------------------------------
# Kernels under test
# ------------------------------------------------------------------------------------


def _public_kernel(name: str, backend: str):
    """(forward(x, out), backward(x, g, out)) through the public API, or None."""
    try:
        kernel = symnb_activation(name).compile(backend=backend)
    except Exception as exc:  # noqa: BLE001 - API not ready, backend unusable
        return None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:80]}"

    def fwd(x, out):
        return kernel.forward(x, out=out)

    def bwd(x, g, out):
        return kernel.backward(x, g, out=out)

    return (fwd, bwd), f"public API ({type(kernel).__name__})"


def symnb_activation(name: str):
    """The symnb activation of a benchmark row (``swish``: beta = 1.5; ``pau``)."""
    import symnb

    if name == "swish":
        return symnb.activation("swish", beta=SWISH_BETA)
    if name == "pau":
        from bench_torch import PAU_DENOMINATOR, PAU_NUMERATOR, PAU_TEXT

        constants = {f"a{k}": v for k, v in enumerate(PAU_NUMERATOR)}
        constants.update({f"b{k + 1}": v for k, v in enumerate(PAU_DENOMINATOR)})
        return symnb.Activation(PAU_TEXT, name="pau", **constants)
    return symnb.activation(name)


def _reference_form(name: str):
    from tests.codegen.reference_forms import activation_cases

    cases = activation_cases()
    alias = {"silu": "swish"}.get(name, name)
    form = cases[alias].form
    if name == "silu":
        form = form.__class__(
            **{
                **form.__dict__,
                "f": form.f.subs(form.params[0], 1),
                "df": form.df.subs(form.params[0], 1),
                "params": (),
                "param_names": (),
                "param_values": (),
                "dparams": (),
            }
        )
    return form


def _program_kernel(name: str, backend: str):
    """Fallback: build the backend's Program directly from a hand-made InternalForm."""
    form = _reference_form(name)
    if backend == "cpp":
        from symnb.backends import cpp

        prog = cpp.build((form,), "elementwise", "float32")
    else:
        from symnb.backends import numpy_

        prog = numpy_.build((form,), "elementwise", "float32", None)
    c = np.array(form.param_values, dtype=np.float32)

    def fwd(x, out):
        out = np.empty_like(x) if out is None else out
        prog.forward(x, out, c)
        return out

    def bwd(x, g, out):
        out = np.empty_like(x) if out is None else out
        prog.backward(x, g, out, c)
        return out

    return (fwd, bwd), "Program (public API not available)"


def symnb_kernel(name: str, backend: str):
    k, how = _public_kernel(name, backend)
    if k is not None:
        return k, how
    try:
        return _program_kernel(name, backend)
    except Exception as exc:  # noqa: BLE001 - reported in the table header
        return None, f"unavailable: {type(exc).__name__}: {exc}"[:120]


def lambdify_kernel(name: str):
    from symnb.formula.internal import X

    x = X
    exprs = {
        "relu": sp.Max(0, x),
        "gelu_tanh": x / 2 * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (x + 0.044715 * x**3))),
        "silu": x / (1 + sp.exp(-x)),
        "softplus": sp.log(1 + sp.exp(x)),
        "mish": x * sp.tanh(sp.log(1 + sp.exp(x))),
        "elu": sp.Piecewise((x, x > 0), (sp.exp(x) - 1, True)),
    }
    f = exprs[name]
    df = sp.diff(f, x).replace(sp.Heaviside, lambda *a: sp.Heaviside(a[0], 0))
    fn = sp.lambdify(x, f, "numpy")
    dfn = sp.lambdify(x, df, "numpy")

    def fwd(xv, out):
        return fn(xv)

    def bwd(xv, g, out):
        return g * dfn(xv)

    return fwd, bwd


def torch_fn(name: str):
    """PyTorch's built-in function for the library activation ``name``."""
    import torch.nn.functional as F

    return {
        "relu": F.relu,
        "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
        "silu": F.silu,
        "softplus": F.softplus,
        "mish": F.mish,
        "elu": F.elu,
    }[name]


def torch_kernels(name: str):
    import torch

    f = torch_fn(name)

    def fwd(xt, out):
        with torch.no_grad():
            return f(xt)

    def make_bwd(xt, gt):
        xr = xt.detach().clone().requires_grad_(True)
        y = f(xr)

        def bwd() -> object:
            return torch.autograd.grad(y, xr, gt, retain_graph=True)[0]

        return bwd

    return fwd, make_bwd


# ------------------------------------------------------------------------------------
# torch.compile and JAX jit peers (``--peers``): interleaved repeats, medians
# ------------------------------------------------------------------------------------


def _peer_fns(name: str):
    """(PyTorch eager function, its kind, jax function) of the benchmark row ``name``:
    PyTorch's built-in where it has one, else the composite formula."""
    import jax
    import jax.numpy as jnp
    import torch

    if name in NAMES:
        tf, kind = torch_fn(name), "built-in"
    elif name == "swish":
        tf, kind = (lambda t: t * torch.sigmoid(SWISH_BETA * t)), "composite"
    else:
        tf, kind = _pau(torch.abs), "composite"
    jf = {
        "relu": jax.nn.relu,
        "gelu_tanh": lambda v: jax.nn.gelu(v, approximate=True),
        "silu": jax.nn.silu,
        "softplus": jax.nn.softplus,
        "mish": lambda v: v * jnp.tanh(jax.nn.softplus(v)),
        "elu": jax.nn.elu,
        "swish": lambda v: v * jax.nn.sigmoid(SWISH_BETA * v),
    }.get(name) or _pau(jnp.abs)
    return tf, kind, jf


def _pau(absolute):
    """The PAU 5/4 rational with bench_torch's coefficients, for PyTorch or JAX
    arrays (``absolute``: the library's abs)."""
    from bench_torch import PAU_DENOMINATOR, PAU_NUMERATOR

    a, b = list(PAU_NUMERATOR), list(PAU_DENOMINATOR)

    def f(x):
        num = a[5]
        for k in range(4, -1, -1):
            num = num * x + a[k]
        x2 = x * x
        den = 1 + absolute(b[0] * x) + absolute(b[1] * x2)
        return num / (den + absolute(b[2] * x2 * x) + absolute(b[3] * x2 * x2))

    return f


PEERS = ("torch", "torch.compile", "jax.jit")


def peer_contenders(name: str, x: np.ndarray, g: np.ndarray):
    """pass -> contender -> zero-argument callable: symnb cpp, PyTorch eager,
    torch.compile and jax.jit, for forward ('f') and forward+backward ('fb': the value
    and g * f'(x); symnb: ``forward_and_backward``, one pass like JAX's fused vjp)."""
    import jax
    import torch

    tf, _, jf = _peer_fns(name)
    k, how = symnb_kernel(name, "cpp")
    if k is None:
        raise RuntimeError(f"symnb cpp kernel for {name}: {how}")
    fwd, bwd = k
    fused = symnb_activation(name).compile(backend="cpp").forward_and_backward
    out, out2 = np.empty_like(x), np.empty_like(x)
    xt, gt = torch.from_numpy(x), torch.from_numpy(g)
    ctf = torch.compile(tf)

    def torch_f(fn):
        def run():
            with torch.no_grad():
                return fn(xt)

        return run

    def torch_fb(fn):
        def run():
            xr = xt.detach().requires_grad_(True)
            y = fn(xr)
            return y, torch.autograd.grad(y, xr, gt)[0]

        return run

    def jfb(v, w):
        y, vjp = jax.vjp(jf, v)
        return y, vjp(w)[0]

    jx, jg = jax.device_put(x), jax.device_put(g)
    jfj, jfbj = jax.jit(jf), jax.jit(jfb)
    return {
        "f": {
            "symnb": lambda: fwd(x, out),
            "torch": torch_f(tf),
            "torch.compile": torch_f(ctf),
            "jax.jit": lambda: jfj(jx).block_until_ready(),
        },
        "fb": {
            "symnb": lambda: fused(x, g, out=(out, out2)),
            "torch": torch_fb(tf),
            "torch.compile": torch_fb(ctf),
            "jax.jit": lambda: jax.block_until_ready(jfbj(jx, jg)),
        },
    }


def interleaved(fns: dict, rounds: int, budget: float) -> dict[str, float]:
    """Median over ``rounds`` of each contender's median, contenders interleaved
    round by round (the order rotating) so that load on a shared machine hits them
    alike."""
    for f in fns.values():  # warm-up (compiles torch.compile / jit)
        f()
        f()
    per: dict[str, list[float]] = {k: [] for k in fns}
    keys = list(fns)
    for r in range(rounds):
        for k in keys[r % len(keys) :] + keys[: r % len(keys)]:
            per[k].append(timeit(fns[k], budget, min_reps=3))
    return {k: statistics.median(v) for k, v in per.items()}


def peers_main(names, sizes, rounds: int, budget: float, threads) -> None:
    import jax
    import torch

    # one compiled wrapper per (activation, grad mode, size) recompiles the shared
    # F.* frames; past the default limit dynamo silently falls back to eager
    torch._dynamo.config.cache_size_limit = 256
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(
        f"# symnb cpp vs PyTorch eager, torch.compile, jax.jit, {threads or 'all'} "
        f"thread(s) ({time.strftime('%F %T')}, load average {load})\n"
    )
    print(
        f"- torch {torch.__version__} ({torch.get_num_threads()} threads), "
        f"jax {jax.__version__}; XLA_FLAGS={os.environ.get('XLA_FLAGS', '')!r}; "
        f"CPUs this process may use: {len(os.sched_getaffinity(0))}"
    )
    print(
        f"- float32, x ~ N(0, 3); {rounds} interleaved rounds, median of medians; "
        "torch = PyTorch eager (built-in F.* where one exists, else the composite "
        f"formula); swish with beta = {SWISH_BETA}; pau = PAU 5/4 rational; ratio = "
        "best peer time / symnb time (> 1: symnb faster)\n"
    )
    print(
        "| activation | n | pass | symnb cpp | torch | torch.compile | jax.jit "
        "| best peer / symnb |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    for n in sizes:
        x = rng.normal(0, 3, n).astype(np.float32)
        g = rng.normal(0, 1, n).astype(np.float32)
        for name in names:
            cont = peer_contenders(name, x, g)
            for key, label in (("f", "fwd"), ("fb", "fwd+bwd")):
                r = interleaved(cont[key], rounds, budget)
                best = min(PEERS, key=lambda p: r[p])
                ratio = r[best] / r["symnb"]
                cell = f"{ratio:.2f}x" if ratio >= 1 else f"**{ratio:.2f}x** ({best})"
                print(
                    f"| {name} | {n:.0e} | {label} | {fmt_time(r['symnb'])} | "
                    + " | ".join(fmt_time(r[p]) for p in PEERS)
                    + f" | {cell} |",
                    flush=True,
                )
    print()


# ------------------------------------------------------------------------------------


def fmt_time(s: float) -> str:
    if math.isnan(s):
        return "n/a"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def _threads_from_argv(argv: list[str]) -> int | None:
    """The thread count when exactly one is given (several: one process each)."""
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            values = list(itertools.takewhile(str.isdigit, argv[i + 1 :]))
            return int(values[0]) if len(values) == 1 else None
        if a.startswith("--threads="):
            return int(a.split("=", 1)[1])
    return None


def _one_process_per_thread_count(argv: list[str], counts: list[int]) -> None:
    """Rerun this script once per thread count: OpenMP, PyTorch and XLA fix their
    thread pools when they load."""
    rest, skip = [], False
    for a in argv:
        if a == "--threads":
            skip = True
            continue
        if skip and a.isdigit():
            continue
        skip = False
        rest.append(a)
    for count in counts:
        cmd = [sys.executable, str(Path(__file__).resolve()), *rest]
        subprocess.run([*cmd, "--threads", str(count)], check=True)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    threads = _threads_from_argv(argv)
    if threads:
        # before torch or any OpenMP kernel library is loaded
        os.environ["OMP_NUM_THREADS"] = str(threads)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--threads",
        type=int,
        nargs="+",
        default=None,
        help="threads for symnb's OpenMP kernels, PyTorch and XLA (default: all); "
        "several counts (--peers): one run each",
    )
    ap.add_argument("--sizes", nargs="*", type=float, default=SIZES)
    ap.add_argument(
        "--names", nargs="*", default=None, help=f"default: {' '.join(PEER_NAMES)}"
    )
    ap.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds per measurement (default 0.25; --peers: 0.1)",
    )
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-lambdify", action="store_true")
    ap.add_argument(
        "--peers",
        action="store_true",
        help="only the symnb cpp / torch.compile / jax.jit table (forward, fwd+bwd)",
    )
    ap.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds (--peers)"
    )
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes]
    if args.threads and len(args.threads) > 1:
        if not args.peers:
            ap.error("several --threads counts need --peers")
        _one_process_per_thread_count(argv, args.threads)
        return
    if args.peers:
        if threads:
            import torch

            if threads == 1:
                # XLA's CPU backend splits a large elementwise loop over its own
                # thread pool whatever XLA_FLAGS say (gelu_tanh at 1e6: 1.8 CPUs
                # busy); one CPU for the whole process makes "one thread" true
                os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
            torch.set_num_threads(threads)
            os.environ.setdefault(
                "XLA_FLAGS",
                f"--xla_cpu_multi_thread_eigen={str(threads > 1).lower()}",
            )
        if args.sizes == SIZES:
            sizes = PEER_SIZES
        budget = 0.1 if args.budget is None else args.budget
        peers_main(args.names or PEER_NAMES, sizes, args.rounds, budget, threads)
        return
    args.names = args.names or NAMES
    args.budget = 0.25 if args.budget is None else args.budget

    try:
        import torch

        if threads:
            torch.set_num_threads(threads)
        have_torch = not args.no_torch
        torch_info = f"torch {torch.__version__}, {torch.get_num_threads()} threads"
    except ImportError:
        have_torch, torch_info = False, "torch not installed"

    from symnb.backends import cpp

    print(f"# symnb kernel benchmark ({time.strftime('%Y-%m-%d %H:%M:%S')})\n")
    print(f"- CPU threads: {os.cpu_count()}; {torch_info}; numpy {np.__version__}")
    print(f"- cpp: {cpp.probe()}")
    print(
        "- float32; medians; ratio = baseline time / symnb cpp time (> 1: cpp faster)"
    )
    print(
        "- symnb writes into a reused `out=` buffer; PyTorch (and lambdify) allocate their "
        "result, which costs page faults at 1e7: the 'new array' column is the fair one "
        "there\n"
    )

    rows = []
    how_seen: dict[str, str] = {}
    rng = np.random.default_rng(0)
    for n in sizes:
        x = rng.normal(0, 3, n).astype(np.float32)
        g = rng.normal(0, 1, n).astype(np.float32)
        out = np.empty_like(x)
        if have_torch:
            xt, gt = torch.from_numpy(x), torch.from_numpy(g)
        for name in args.names:
            res: dict[str, float] = {}
            for backend in ("cpp", "numpy"):
                k, how = symnb_kernel(name, backend)
                how_seen[backend] = how
                if k is None:
                    res[f"{backend}_f"] = res[f"{backend}_b"] = float("nan")
                    continue
                fwd, bwd = k
                res[f"{backend}_f"] = timeit(lambda: fwd(x, out), args.budget)
                res[f"{backend}_b"] = timeit(lambda: bwd(x, g, out), args.budget)
                if backend == "cpp":  # a fresh output array each call, as PyTorch does
                    res["cpp_alloc_f"] = timeit(lambda: fwd(x, None), args.budget)
                    res["cpp_alloc_b"] = timeit(lambda: bwd(x, g, None), args.budget)
            if not args.no_lambdify:
                lf, lb = lambdify_kernel(name)
                with np.errstate(all="ignore"):
                    res["lam_f"] = timeit(lambda: lf(x, out), args.budget, min_reps=3)
                    res["lam_b"] = timeit(
                        lambda: lb(x, g, out), args.budget, min_reps=3
                    )
            if have_torch:
                tf, make_tb = torch_kernels(name)
                res["torch_f"] = timeit(lambda: tf(xt, None), args.budget)
                res["torch_b"] = timeit(make_tb(xt, gt), args.budget)
            rows.append((name, n, res))
            print(f"  measured {name} n={n:.0e}", file=sys.stderr)

    print(
        f"- cpp kernels via {how_seen.get('cpp')}; numpy via {how_seen.get('numpy')}\n"
    )
    for direction, key in (("forward", "f"), ("backward (g * f'(x))", "b")):
        print(f"## {direction}\n")
        print(
            "| activation | n | symnb cpp (out=) | symnb cpp (new array) | symnb numpy "
            "| lambdify+numpy | PyTorch | torch / cpp | torch / cpp (new array) "
            "| lambdify / cpp | numpy / cpp |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, n, r in rows:
            c = r.get(f"cpp_{key}", float("nan"))
            ca = r.get(f"cpp_alloc_{key}", float("nan"))
            t = r.get(f"torch_{key}", float("nan"))
            lam = r.get(f"lam_{key}", float("nan"))
            nb = r.get(f"numpy_{key}", float("nan"))
            print(
                f"| {name} | {n:.0e} | {fmt_time(c)} | {fmt_time(ca)} | {fmt_time(nb)} | "
                f"{fmt_time(lam)} | {fmt_time(t)} | {t / c:.2f}x | {t / ca:.2f}x | "
                f"{lam / c:.1f}x | {nb / c:.1f}x |"
            )
        print()

    # relu vs copy bandwidth
    print("## relu vs memory bandwidth (np.copyto)\n")
    print("| n | np.copyto | cpp relu forward | copy time / relu time |")
    print("|---:|---:|---:|---:|")
    k, _ = symnb_kernel("relu", "cpp")
    for n in sizes:
        x = rng.normal(0, 1, n).astype(np.float32)
        out = np.empty_like(x)
        tc = timeit(lambda: np.copyto(out, x), args.budget)
        tr = timeit(lambda: k[0](x, out), args.budget) if k else float("nan")
        print(f"| {n:.0e} | {fmt_time(tc)} | {fmt_time(tr)} | {tc / tr:.0%} |")
    print()

    # per-call overhead
    print("## per-call overhead (cpp, relu)\n")
    print("| call | n=16 | n=1e4 |")
    print("|---|---:|---:|")
    x16, x1e4 = np.ones(16, np.float32), np.ones(10_000, np.float32)
    o16, o1e4 = np.empty_like(x16), np.empty_like(x1e4)
    kp, how = _public_kernel("relu", "cpp")
    if kp:
        print(
            f"| public Kernel.forward(x, out=) | {fmt_time(timeit(lambda: kp[0](x16, o16), 0.3))}"
            f" | {fmt_time(timeit(lambda: kp[0](x1e4, o1e4), 0.3))} |"
        )
    kr, _ = _program_kernel("relu", "cpp")
    print(
        f"| Program.forward (raw) | {fmt_time(timeit(lambda: kr[0](x16, o16), 0.3))} | "
        f"{fmt_time(timeit(lambda: kr[0](x1e4, o1e4), 0.3))} |"
    )
    if have_torch:
        t16, t1e4 = torch.from_numpy(x16), torch.from_numpy(x1e4)
        print(
            f"| torch.relu | {fmt_time(timeit(lambda: torch.relu(t16), 0.3))} | "
            f"{fmt_time(timeit(lambda: torch.relu(t1e4), 0.3))} |"
        )


if __name__ == "__main__":
    main()
