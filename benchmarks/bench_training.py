"""Time per training epoch: symnb against JAX (whole epoch in one ``jit``) and PyTorch.

Contenders (``--contenders``, comma separated; default ``fused,jax,torch``):

* ``fused``: symnb cpp backend, ``MLP(fused=True)``: the generated native step; with
  no per-step callback, the whole epoch (gather of the shuffled rows, every minibatch's
  forward, loss, backward and SGD/Adam update) runs in one native call
  (``symnb/nn/fused.py``, ``symnb/codegen/train_step.py``);
* ``cpp``: symnb cpp generic path (NumPy/BLAS matrix products around the compiled
  activation kernels, ``MLP(fused=False)``); ``numpy``: symnb numpy backend;
* ``jax``: JAX, the whole epoch in one ``jax.jit`` (``lax.scan`` over the full
  minibatches plus the remainder step, gather of the shuffled rows inside), state
  donated; the permutation comes from NumPy as for symnb;
* ``torch``: PyTorch eager with the built-in ``F.silu``; ``torch-composite``: the same
  activation as composite ops (``x * torch.sigmoid(beta * x)``); ``torch-compile``:
  ``torch.compile`` of the forward + loss (eager optimizer; compiles for a while).

Networks (swish ``x*sigmoid(beta*x)`` with beta = 1 in every hidden layer):

* 2-16-16-1 on two_moons (1000 points), bce_with_logits
* 64-128-10 on digits (1797 images), softmax cross-entropy

each with minibatch 32 and full batch, with SGD (lr 0.05) and Adam (lr 0.005), float32.
Every contender trains from the same initial weights on the same data; the figure is the
median over repeats of (wall time of ``epochs`` epochs) / epochs, including shuffling
and all trainer overhead (symnb: ``MLP.fit`` with ``metrics=[]``). Repeats are
interleaved round-robin, so load changes on a shared machine hit all contenders alike.
Before timing, one epoch without shuffling from the same weights checks that symnb and
JAX compute the same loss (printed as ``check``).

Usage::

    .venv/bin/python benchmarks/bench_training.py --threads 1   # README table (~3 min)
    .venv/bin/python benchmarks/bench_training.py --quick --threads 1
    .venv/bin/python benchmarks/bench_training.py --contenders fused,cpp,numpy,torch

``--threads 1`` sets one thread for BLAS/OpenMP/PyTorch and XLA
(``XLA_FLAGS=--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1``);
``--pin`` also pins the whole process to one CPU (``os.sched_setaffinity``).
JAX and PyTorch are optional (the ``bench`` extra); missing ones are left out.
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


# thread counts must be fixed before NumPy/OpenBLAS, PyTorch and XLA load
_THREADS = _threads_from_argv()
if _THREADS:
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _THREADS
    if _THREADS == "1":
        os.environ.setdefault(
            "XLA_FLAGS",
            "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
        )

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

LR = {"sgd": 0.05, "adam": 0.005}
ALL = ("fused", "cpp", "numpy", "jax", "torch", "torch-composite", "torch-compile")
LABEL = {
    "fused": "symnb cpp fused",
    "cpp": "symnb cpp generic",
    "numpy": "symnb numpy",
    "jax": "JAX jit epoch",
    "torch": "torch F.silu",
    "torch-composite": "torch composite",
    "torch-compile": "torch.compile",
}


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


def _symnb_optimizer(model, opt):
    if opt == "adam":
        return nn.Adam(model.parameters(), lr=LR[opt])
    return nn.SGD(model.parameters(), lr=LR[opt])


def symnb_runner(sizes, loss, X, y, batch, opt, backend, fused=False):
    """``run(epochs)``: symnb training through ``MLP.fit`` (all overhead)."""
    model = _symnb_model(sizes, loss, backend, fused)
    optimizer = _symnb_optimizer(model, opt)

    def run(epochs, shuffle=True):
        h = model.fit(
            X,
            y,
            epochs=epochs,
            batch_size=batch,
            optimizer=optimizer,
            metrics=[],
            shuffle=shuffle,
        )
        return h["loss"][-1] if len(h) else None

    return run


def _initial_weights(init_model):
    return [
        (layer.weight.numpy().astype(np.float32), layer.bias.numpy().astype(np.float32))
        for layer in init_model.layers
    ]


def jax_runner(sizes, loss, X, y, batch, opt, init_model):
    """``run(epochs)``: JAX with the whole epoch in one ``jax.jit`` (``lax.scan``)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    n = len(X)
    bs = n if batch is None else min(batch, n)
    full, rem = divmod(n, bs)
    Xj = jax.device_put(np.ascontiguousarray(X, dtype=np.float32))
    if loss == "cross_entropy":
        Yj = jax.device_put(y.astype(np.int32))
    else:
        Yj = jax.device_put(y.astype(np.float32).reshape(-1, 1))
    lr = LR[opt]
    b1, b2, eps = 0.9, 0.999, 1e-8

    def forward(params, x):
        for W, b in params[:-1]:
            z = x @ W + b
            x = z * jax.nn.sigmoid(z)
        W, b = params[-1]
        return x @ W + b

    def loss_fn(params, x, t):
        z = forward(params, x)
        if loss == "cross_entropy":
            logp = jax.nn.log_softmax(z)
            return -jnp.mean(jnp.take_along_axis(logp, t[:, None], axis=1))
        return jnp.mean(jnp.maximum(z, 0) - z * t + jnp.log1p(jnp.exp(-jnp.abs(z))))

    value_and_grad = jax.value_and_grad(loss_fn)

    def step(state, xt):
        x, t = xt
        if opt == "sgd":
            params = state
            value, g = value_and_grad(params, x, t)
            params = jax.tree_util.tree_map(lambda p, d: p - lr * d, params, g)
            return params, value
        params, m, v, k = state
        value, g = value_and_grad(params, x, t)
        k = k + 1
        m = jax.tree_util.tree_map(lambda a, d: b1 * a + (1 - b1) * d, m, g)
        v = jax.tree_util.tree_map(lambda a, d: b2 * a + (1 - b2) * d * d, v, g)
        step_size = lr / (1 - b1**k)
        root = jnp.sqrt(1 - b2**k)
        params = jax.tree_util.tree_map(
            lambda p, a, s: p - step_size * a / (jnp.sqrt(s) / root + eps),
            params,
            m,
            v,
        )
        return (params, m, v, k), value

    # a full batch needs no permutation (its gradient does not depend on the row
    # order): no gather, as symnb's fit and the PyTorch loop below
    gather = bs < n

    def epoch(state, perm, Xa, Ya):
        Xp, Yp = (Xa[perm], Ya[perm]) if gather else (Xa, Ya)
        xs = Xp[: full * bs].reshape(full, bs, -1)
        ys = Yp[: full * bs].reshape((full, bs) + Yp.shape[1:])
        state, values = lax.scan(step, state, (xs, ys))
        total = jnp.sum(values) * bs
        if rem:
            state, value = step(state, (Xp[full * bs :], Yp[full * bs :]))
            total = total + value * rem
        return state, total / n

    epoch_jit = jax.jit(epoch, donate_argnums=0)
    params = [(jnp.asarray(W), jnp.asarray(b)) for W, b in _initial_weights(init_model)]
    if opt == "sgd":
        state = params
    else:
        zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
        state = (params, zeros, jax.tree_util.tree_map(jnp.zeros_like, params), 0.0)
    holder = {"state": state}
    rng = np.random.default_rng(0)
    identity = np.arange(n, dtype=np.int32)

    def run(epochs, shuffle=True):
        state = holder["state"]
        value = None
        for _ in range(epochs):
            perm = rng.permutation(n).astype(np.int32) if shuffle and gather else identity
            state, value = epoch_jit(state, perm, Xj, Yj)
        jax.block_until_ready(state)
        holder["state"] = state
        return None if value is None else float(value)

    return run


def torch_runner(sizes, loss, X, y, batch, opt, init_model, kind):
    """``run(epochs)``: the same network, data and initial weights in a standard
    PyTorch loop (``kind``: "builtin" F.silu, "composite", "compile")."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    beta = torch.tensor(1.0)

    def act(x):
        return x * torch.sigmoid(beta * x) if kind == "composite" else F.silu(x)

    layers = []
    for i, (W, b) in enumerate(_initial_weights(init_model)):
        lin = torch.nn.Linear(sizes[i], sizes[i + 1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(W.T.copy()))
            lin.bias.copy_(torch.from_numpy(b.copy()))
        layers.append(lin)
    params = [p for lin in layers for p in lin.parameters()]

    Xt = torch.from_numpy(np.ascontiguousarray(X, dtype=np.float32))
    if loss == "cross_entropy":
        yt = torch.from_numpy(y.astype(np.int64))
        lossfn = F.cross_entropy
    else:
        yt = torch.from_numpy(y.astype(np.float32).reshape(-1, 1))
        lossfn = F.binary_cross_entropy_with_logits

    def forward_loss(x, t):
        for lin in layers[:-1]:
            x = act(lin(x))
        return lossfn(layers[-1](x), t)

    if kind == "compile":
        forward_loss = torch.compile(forward_loss, dynamic=False)
    if opt == "adam":
        optimizer = torch.optim.Adam(params, lr=LR[opt])
    else:
        optimizer = torch.optim.SGD(params, lr=LR[opt])
    n = len(Xt)
    bs = n if batch is None else batch

    def run(epochs, shuffle=True):
        total = 0.0
        for _ in range(epochs):
            perm = torch.randperm(n) if shuffle and bs < n else None
            total = 0.0
            for s in range(0, n, bs):
                if perm is None:  # in order (a full batch: no gather either)
                    x, t = Xt[s : s + bs], yt[s : s + bs]
                else:
                    x, t = Xt[perm[s : s + bs]], yt[perm[s : s + bs]]
                lv = forward_loss(x, t)
                optimizer.zero_grad(set_to_none=True)
                lv.backward()
                optimizer.step()
                total += float(lv.detach()) * len(x) if not shuffle else 0.0
        return total / n if not shuffle else None

    return run


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def measure(runners, epochs, repeats, clock="wall"):
    """Median seconds per epoch of each runner; repeats are interleaved round-robin so
    that load changes on a shared machine hit every contender alike. ``clock="cpu"``
    counts the process's CPU time (all its threads) instead of wall time: on a loaded
    machine it leaves out the time other processes held the CPU."""
    now = CLOCKS[clock]
    for run in runners.values():
        run(2)  # warm up (kernels compiled, caches and allocator warm)
    times = {name: [] for name in runners}
    for _ in range(repeats):
        for name, run in runners.items():
            t0 = now()
            run(epochs)
            times[name].append((now() - t0) / epochs)
    return {name: statistics.median(v) for name, v in times.items()}


def _available(contenders):
    out = []
    for c in contenders:
        if c not in ALL:
            raise SystemExit(f"unknown contender {c!r}; choose from {', '.join(ALL)}")
        module = "jax" if c == "jax" else "torch" if c.startswith("torch") else None
        if module is not None:
            try:
                __import__(module)
            except ImportError:
                print(f"# {c} left out: {module} is not installed (symnb[bench])")
                continue
        if c in ("fused", "cpp") and not symnb.backends.available()["cpp"].usable:
            print(f"# {c} left out: the cpp backend is not usable")
            continue
        out.append(c)
    return out


def _runners(contenders, sizes, loss, X, y, batch, opt):
    init_model = _symnb_model(sizes, loss, "numpy")
    runners = {}
    for c in contenders:
        if c == "fused":
            r = symnb_runner(sizes, loss, X, y, batch, opt, "cpp", fused=True)
        elif c in ("cpp", "numpy"):
            r = symnb_runner(sizes, loss, X, y, batch, opt, c)
        elif c == "jax":
            r = jax_runner(sizes, loss, X, y, batch, opt, init_model)
        else:
            kind = {"torch": "builtin", "torch-composite": "composite"}.get(
                c, "compile"
            )
            r = torch_runner(sizes, loss, X, y, batch, opt, init_model, kind)
        runners[LABEL[c]] = r
    return runners


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5, help="epochs per timed repeat")
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--quick", action="store_true", help="3 epochs x 3 repeats")
    parser.add_argument("--contenders", default="fused,jax,torch")
    parser.add_argument("--optimizers", default="sgd,adam")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument(
        "--threads", help="BLAS/OpenMP/PyTorch/XLA threads (default: theirs)"
    )
    parser.add_argument("--pin", action="store_true", help="pin to one CPU")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="wall time (default) or the process's CPU time",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.epochs, args.repeats = 3, 3
    if args.pin:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    contenders = _available(args.contenders.split(","))
    versions = [f"numpy {np.__version__}"]
    if any(c.startswith("torch") for c in contenders):
        import torch

        if args.threads:
            torch.set_num_threads(int(args.threads))
        versions.append(f"torch {torch.__version__} ({torch.get_num_threads()} thr)")
    if "jax" in contenders:
        import jax

        versions.append(f"jax {jax.__version__}")
    rows = []
    for title, sizes, loss, X, y in _problems():
        for batch in (32, None):
            for opt in args.optimizers.split(","):
                label = (
                    f"{title}, {'minibatch 32' if batch else 'full batch'}, "
                    f"{'Adam' if opt == 'adam' else 'SGD'}"
                )
                runners = _runners(contenders, sizes, loss, X, y, batch, opt)
                check = {}
                for name in ("symnb cpp fused", "JAX jit epoch"):
                    if name in runners:
                        check[name] = runners[name](1, shuffle=False)
                row = {
                    "case": label,
                    **measure(runners, args.epochs, args.repeats, args.clock),
                }
                rows.append(row)
                print(
                    label,
                    {k: f"{v * 1e3:.3f} ms" for k, v in row.items() if k != "case"},
                    "check: " + ", ".join(f"{k} {v:.6f}" for k, v in check.items()),
                    flush=True,
                )
    cols = [LABEL[c] for c in contenders]
    peers = [c for c in cols if not c.startswith("symnb")]
    ref = "symnb cpp fused" if "symnb cpp fused" in cols else cols[0]
    print()
    print(
        f"machine: {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; "
        + "; ".join(versions)
        + f"; threads: {args.threads or 'default'}"
        + (" (pinned to one CPU)" if args.pin else "")
        + f"; {args.epochs} epochs x {args.repeats} repeats, median ms per epoch "
        f"({args.clock} clock)"
    )
    print()
    header = "| case | " + " | ".join(cols)
    header += "".join(f" | {p} / {ref}" for p in peers)
    print(header + " |")
    print("|---|" + "---:|" * (len(cols) + len(peers)))
    for row in rows:
        cells = [f"{row[c] * 1e3:.3f}" for c in cols]
        cells += [f"**{row[p] / row[ref]:.2f}x**" for p in peers]
        print(f"| {row['case']} | " + " | ".join(cells) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
