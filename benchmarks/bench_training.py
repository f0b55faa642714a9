"""Time per training epoch: symnb (numpy and cpp backends) against PyTorch eager.

Columns: ``symnb numpy``; ``symnb cpp`` (the generic path: NumPy/BLAS matrix products
around the compiled activation kernels, ``MLP(fused=False)``); ``symnb cpp fused`` (the
whole step, SGD update included, in one generated native call per minibatch,
``MLP(fused=True)``, see ``symnb/nn/fused.py``).

Networks (swish with a constant beta = 1 in every hidden layer, plain SGD):

* 2-16-16-1 on two_moons (1000 points), bce_with_logits
* 64-128-10 on digits (1797 images), softmax cross-entropy

each with minibatch 32 and full batch. PyTorch runs the same activation written as
composite ops (``x * torch.sigmoid(beta * x)``) and its built-in ``F.silu``. Every
contender trains from the same initial weights on the same data; the reported figure is
the median over repeats of (wall time of ``epochs`` epochs) / epochs, including
shuffling and all trainer overhead (symnb: ``MLP.fit`` with ``metrics=[]``; PyTorch: a
standard eager loop). The contenders' repeats are interleaved round-robin, so load
changes on a shared machine hit all of them alike.

Usage::

    .venv/bin/python benchmarks/bench_training.py            # full run (20-60 s)
    .venv/bin/python benchmarks/bench_training.py --quick    # fewer repeats
    .venv/bin/python benchmarks/bench_training.py --json out.json
    .venv/bin/python benchmarks/bench_training.py --threads 1  # one thread everywhere

PyTorch is optional (``pip install torch``); without it only symnb rows are printed.
"""

from __future__ import annotations

import os
import sys


def _threads_from_argv() -> str | None:
    for i, arg in enumerate(sys.argv):
        if arg == "--threads" and i + 1 < len(sys.argv):
            return sys.argv[i + 1]
        if arg.startswith("--threads="):
            return arg.split("=", 1)[1]
    return None


# thread counts must be fixed before NumPy/OpenBLAS and PyTorch load
_THREADS = _threads_from_argv()
if _THREADS:
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _THREADS

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import symnb
from symnb import datasets, nn

LR = 0.05


def _problems():
    Xm, ym = datasets.two_moons(1000, noise=0.1, seed=0)
    Xd, yd = datasets.digits()
    return [
        ("2-16-16-1 two_moons", [2, 16, 16, 1], "bce_with_logits", Xm, ym),
        ("64-128-10 digits", [64, 128, 10], "cross_entropy", Xd, yd),
    ]


def _symnb_model(sizes, loss, backend, fused=False):
    swish = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.0)
    return nn.MLP(
        sizes, activation=swish, loss=loss, backend=backend, seed=0, fused=fused
    )


def symnb_runner(sizes, loss, X, y, batch, backend, fused=False):
    """A function running ``epochs`` epochs of symnb training (MLP.fit, all overhead).

    ``fused``: the cpp backend's fused native step (one call per minibatch) instead of
    the generic path (NumPy matrix products around the activation kernels)."""
    model = _symnb_model(sizes, loss, backend, fused)
    opt = nn.SGD(model.parameters(), lr=LR)

    def run(epochs):
        model.fit(X, y, epochs=epochs, batch_size=batch, optimizer=opt, metrics=[])

    return run


def torch_runner(sizes, loss, X, y, batch, builtin, init_model):
    """The same network, data and initial weights in a standard PyTorch eager loop."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    beta = torch.tensor(1.0)

    def act(x):
        return F.silu(x) if builtin else x * torch.sigmoid(beta * x)

    layers = []
    for i, layer in enumerate(init_model.layers):
        lin = torch.nn.Linear(sizes[i], sizes[i + 1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(layer.weight.numpy().T.copy()))
            lin.bias.copy_(torch.from_numpy(layer.bias.numpy().copy()))
        layers.append(lin)
    params = [p for lin in layers for p in lin.parameters()]

    def forward(x):
        for lin in layers[:-1]:
            x = act(lin(x))
        return layers[-1](x)

    Xt = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float32))
    if loss == "cross_entropy":
        yt = torch.from_numpy(y.astype(np.int64))
        lossfn = F.cross_entropy
    else:
        yt = torch.from_numpy(y.astype(np.float32).reshape(-1, 1))
        lossfn = F.binary_cross_entropy_with_logits
    opt = torch.optim.SGD(params, lr=LR)
    n = len(Xt)
    bs = n if batch is None else batch

    def run(epochs):
        for _ in range(epochs):
            perm = torch.randperm(n)
            for s in range(0, n, bs):
                idx = perm[s : s + bs]
                out = forward(Xt[idx])
                lv = lossfn(out, yt[idx])
                opt.zero_grad(set_to_none=True)
                lv.backward()
                opt.step()

    return run


def measure(runners, epochs, repeats):
    """Median seconds per epoch of each runner; repeats are interleaved round-robin so
    that load changes on a shared machine hit every contender alike."""
    for run in runners.values():
        run(2)  # warm up (kernels compiled, caches and allocator warm)
    times = {name: [] for name in runners}
    for _ in range(repeats):
        for name, run in runners.items():
            t0 = time.perf_counter()
            run(epochs)
            times[name].append((time.perf_counter() - t0) / epochs)
    return {name: statistics.median(v) for name, v in times.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5, help="epochs per timed repeat")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="3 epochs x 3 repeats")
    parser.add_argument("--backends", default="numpy,cpp")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument(
        "--threads", help="BLAS/OpenMP/PyTorch threads (default: theirs)"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.epochs, args.repeats = 3, 3
    try:
        import torch

        if args.threads:
            torch.set_num_threads(int(args.threads))
        have_torch = True
        torch_version = torch.__version__
        torch_threads = torch.get_num_threads()
    except ImportError:
        have_torch, torch_version, torch_threads = False, None, None
    status = symnb.backends.available()
    backends = [
        b for b in args.backends.split(",") if status.get(b) and status[b].usable
    ]
    rows = []
    for title, sizes, loss, X, y in _problems():
        for batch in (32, None):
            label = f"{title}, {'minibatch 32' if batch else 'full batch'}"
            runners = {}
            for be in backends:
                runners[f"symnb {be}"] = symnb_runner(sizes, loss, X, y, batch, be)
                if be == "cpp":
                    runners["symnb cpp fused"] = symnb_runner(
                        sizes, loss, X, y, batch, be, fused=True
                    )
            if have_torch:
                init_model = _symnb_model(sizes, loss, "numpy")
                runners["torch composite"] = torch_runner(
                    sizes, loss, X, y, batch, False, init_model
                )
                runners["torch F.silu"] = torch_runner(
                    sizes, loss, X, y, batch, True, init_model
                )
            row = {"case": label, **measure(runners, args.epochs, args.repeats)}
            rows.append(row)
            print(
                label,
                {k: f"{v * 1e3:.3f} ms" for k, v in row.items() if k != "case"},
                flush=True,
            )
    cols = [
        c
        for b in backends
        for c in ([f"symnb {b}"] + (["symnb cpp fused"] if b == "cpp" else []))
    ] + (["torch composite", "torch F.silu"] if have_torch else [])
    print()
    print(
        f"machine: {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores; "
        f"numpy {np.__version__}; torch {torch_version} ({torch_threads} threads); "
        f"BLAS/OpenMP threads: {args.threads or 'default'}; "
        f"{args.epochs} epochs x {args.repeats} repeats, median ms per epoch"
    )
    print()
    header = "| case | " + " | ".join(cols)
    if have_torch:
        header += " | " + " | ".join(
            f"F.silu / {c}" for c in cols if c.startswith("symnb")
        )
        header += " | " + " | ".join(
            f"composite / {c}" for c in cols if c.startswith("symnb")
        )
    print(header + " |")
    print("|" + "---|" * (header.count("|")))
    for row in rows:
        cells = [f"{row[c] * 1e3:.3f}" for c in cols]
        if have_torch:
            for ref in ("torch F.silu", "torch composite"):
                cells += [
                    f"{row[ref] / row[c]:.2f}x" for c in cols if c.startswith("symnb")
                ]
        print(f"| {row['case']} | " + " | ".join(cells) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
