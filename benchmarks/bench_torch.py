"""Training steps in PyTorch with symnb activations against composite ops, torch.compile,
PyTorch's built-ins and JAX (CPU, one run).

Models (SGD, cross-entropy on random data, the same initial weights for every variant):

* ``mlp``: 1024 -> 4 x (Linear 1024 + activation) -> 10, batch 256;
* ``cnn``: 3 x (Conv 3x3 + activation) with 32/64/64 channels on 3x32x32, then global
  average pooling and Linear -> 10, batch 64.

Activations: swish with a learnable beta (``x * sigmoid(beta * x)``), mish, and a
PAU-style rational 5/4 with 10 learnable coefficients,
``(a0 + a1 x + ... + a5 x^5) / (1 + |b1 x| + |b2 x^2| + |b3 x^3| + |b4 x^4|)``
(Molina et al., "Padé Activation Units", ICLR 2020).

Variants: ``symnb`` (``Activation.to_torch``: the ``symnb::elementwise`` custom op over
the cpp kernels); ``composite`` (the same formula as PyTorch ops, eager);
``compiled`` (``torch.compile`` of the composite model); ``symnb_compiled``
(``torch.compile(fullgraph=True)`` of the symnb model: what a torch.compile user gets
with symnb's op inside, so ``compiled / symnb compiled`` compares the activations
under the same compiler); ``builtin`` (``F.silu`` with
beta fixed at 1, ``F.mish``; none for the rational); ``jax`` (the same model in JAX with
``Activation.to_jax``, the whole step under ``jax.jit``).

Reported: the median time per training step over interleaved repeats (every variant
runs once per round, so load changes on a shared machine hit all alike), ratios against
symnb, and what the activations keep for backward in eager mode (counted with
``torch.autograd.graph.saved_tensors_hooks`` around the activation modules only):
input-sized tensors per activation call and MB per step. A second table times the
activation alone (forward + backward with the constants' gradients) on a small
network's activation (32x64, where the per-call cost decides), the MLP's and the last
conv layer's activation shapes, where the matrix products do not hide it.

Usage::

    .venv/bin/python benchmarks/bench_torch.py               # full run (several minutes)
    .venv/bin/python benchmarks/bench_torch.py --quick       # smaller models, fewer repeats
    .venv/bin/python benchmarks/bench_torch.py --no-compile --no-jax
    .venv/bin/python benchmarks/bench_torch.py --threads 1    # one thread everywhere
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


# thread counts must be fixed before OpenMP, BLAS, PyTorch and XLA load
_THREADS = _threads_from_argv()
if _THREADS:
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _THREADS
    if _THREADS == "1":
        os.environ["XLA_FLAGS"] = (
            os.environ.get("XLA_FLAGS", "")
            + " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
        )

import argparse
import itertools
import statistics
import time
from collections.abc import Callable

import numpy as np

import symnb

PAU_NUMERATOR = (0.0298, 0.6184, 2.3233, 3.0520, 1.4854, 0.2510)
PAU_DENOMINATOR = (1.1420, 4.3934, 0.8715, 0.3472)
PAU_TEXT = (
    "(a0 + a1*x + a2*x**2 + a3*x**3 + a4*x**4 + a5*x**5)"
    " / (1 + Abs(b1*x) + Abs(b2*x**2) + Abs(b3*x**3) + Abs(b4*x**4))"
)


def symnb_activation(name: str):
    if name == "swish":
        return symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.0)
    if name == "mish":
        return symnb.activation("mish")
    constants = {f"a{k}": v for k, v in enumerate(PAU_NUMERATOR)}
    constants.update({f"b{k + 1}": v for k, v in enumerate(PAU_DENOMINATOR)})
    return symnb.Activation(PAU_TEXT, name="pau", **constants)


# ------------------------------------------------------------------ PyTorch modules


def torch_activation(name: str, variant: str, column=None):
    """A fresh activation module of ``variant`` ("symnb", "composite", "builtin");
    ``column``: a composite whose constants are the defaults times this (1, C, 1, 1)
    tensor (one set per channel)."""
    import torch
    from torch import nn

    F = torch.nn.functional
    if variant == "symnb":
        return symnb_activation(name).to_torch(learnable=True)
    if variant == "builtin":
        return {"swish": nn.SiLU, "mish": nn.Mish}[name]()

    def constants(values):
        if column is None:
            return nn.Parameter(torch.tensor(values))
        return nn.Parameter(torch.stack([v * column for v in values]))

    class Composite(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            if name == "swish":
                one = torch.tensor(1.0)
                self.beta = nn.Parameter(one if column is None else column.clone())
            elif name == "pau":
                self.a = constants(PAU_NUMERATOR)
                self.b = constants(PAU_DENOMINATOR)

        def forward(self, x):
            if name == "swish":
                return x * torch.sigmoid(self.beta * x)
            if name == "mish":
                return x * torch.tanh(F.softplus(x))
            a, b = self.a, self.b
            num = a[5]
            for k in range(4, -1, -1):
                num = num * x + a[k]
            x2 = x * x
            den = 1 + (b[0] * x).abs() + (b[1] * x2).abs()
            den = den + (b[2] * x2 * x).abs() + (b[3] * x2 * x2).abs()
            return num / den

    return Composite()


def torch_model(kind: str, act: Callable[[], object], width: int):
    from torch import nn

    if kind == "mlp":
        layers: list = []
        for _ in range(4):
            layers += [nn.Linear(width, width), act()]
        return nn.Sequential(*layers, nn.Linear(width, 10))
    chans = [3, width // 32, width // 16, width // 16]
    layers = []
    for cin, cout in itertools.pairwise(chans):
        layers += [nn.Conv2d(cin, cout, 3, padding=1), act()]
    return nn.Sequential(
        *layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(chans[-1], 10)
    )


def torch_data(kind: str, width: int, batch: int, side: int):
    import torch

    g = torch.Generator().manual_seed(0)
    shape = (batch, width) if kind == "mlp" else (batch, 3, side, side)
    return torch.randn(*shape, generator=g), torch.randint(0, 10, (batch,), generator=g)


def torch_step(model, x, y, opt):
    import torch

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def saved_by_activations(model, x, y, acts) -> tuple[float, float]:
    """(input-sized tensors saved per activation call, MB saved per step)."""
    import torch

    counts: list[int] = []
    total = [0]

    def wrap(module):
        inner = module.forward

        def forward(inp):
            big = [0]

            def pack(t):
                total[0] += t.numel() * t.element_size()
                if t.numel() == inp.numel():
                    big[0] += 1
                return t

            with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                out = inner(inp)
            counts.append(big[0])
            return out

        module.forward = forward
        return inner

    originals = [(m, wrap(m)) for m in acts]
    try:
        torch.nn.functional.cross_entropy(model(x), y).backward()
    finally:
        for m, inner in originals:
            m.forward = inner
    model.zero_grad(set_to_none=True)
    return statistics.mean(counts), total[0] / 2**20


# ------------------------------------------------------------------ JAX


def jax_step(kind: str, name: str, width: int, batch: int, side: int):
    import jax
    import jax.numpy as jnp

    f = symnb_activation(name).to_jax()
    consts = {k: jnp.float32(v) for k, v in f.constants.items()}
    key = jax.random.PRNGKey(0)
    params: dict = {"c": consts, "w": []}
    if kind == "mlp":
        dims = [width] * 5 + [10]
        for i in range(5):
            key, sub = jax.random.split(key)
            w = jax.random.normal(sub, (dims[i], dims[i + 1])) / np.sqrt(dims[i])
            params["w"].append((w, jnp.zeros(dims[i + 1])))
        x = jax.random.normal(key, (batch, width))
    else:
        chans = [3, width // 32, width // 16, width // 16]
        for cin, cout in itertools.pairwise(chans):
            key, sub = jax.random.split(key)
            w = jax.random.normal(sub, (cout, cin, 3, 3)) / np.sqrt(9 * cin)
            params["w"].append((w, jnp.zeros(cout)))
        key, sub = jax.random.split(key)
        params["w"].append(
            (jax.random.normal(sub, (chans[-1], 10)) * 0.1, jnp.zeros(10))
        )
        x = jax.random.normal(key, (batch, 3, side, side))
    y = jax.random.randint(key, (batch,), 0, 10)

    def forward(p, x):
        h = x
        for i, (w, b) in enumerate(p["w"][:-1]):
            if kind == "mlp":
                h = h @ w + b
            else:
                h = jax.lax.conv_general_dilated(h, w, (1, 1), "SAME")
                h = h + b[None, :, None, None]
            h = f(h, **p["c"])
        if kind == "cnn":
            h = h.mean(axis=(2, 3))
        w, b = p["w"][-1]
        return h @ w + b

    def loss(p, x, y):
        logits = forward(p, x)
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(y.size), y])

    @jax.jit
    def update(p, x, y):
        value, grads = jax.value_and_grad(loss)(p, x, y)
        return jax.tree_util.tree_map(lambda a, g: a - 0.01 * g, p, grads), value

    state = {"p": params}

    def step():
        state["p"], value = update(state["p"], x, y)
        value.block_until_ready()

    return step


# ------------------------------------------------------------------ activation alone


def interleaved_medians(steps: dict, repeats: int) -> dict[str, float]:
    """Median seconds of each zero-argument step, the variants' repeats interleaved."""
    times: dict[str, list[float]] = {v: [] for v in steps}
    for _ in range(repeats):
        for v, step in steps.items():
            t0 = time.perf_counter()
            step()
            times[v].append(time.perf_counter() - t0)
    return {v: statistics.median(t) for v, t in times.items()}


def activation_alone(name: str, shape: tuple, repeats: int, compile_: bool, jax_: bool):
    """Median seconds of forward + backward (input and constants' gradients) of the
    activation alone on a tensor of ``shape``, per variant."""
    import torch

    x = torch.randn(*shape).requires_grad_()
    g = torch.randn(*shape)
    steps: dict[str, Callable[[], object]] = {}
    for variant in ("symnb", "composite", "compiled", "builtin"):
        if (variant == "builtin" and name == "pau") or (
            variant == "compiled" and not compile_
        ):
            continue
        act = torch_activation(name, "composite" if variant == "compiled" else variant)
        fn = torch.compile(act) if variant == "compiled" else act
        params = [x, *act.parameters()]

        def step(fn=fn, params=params) -> None:
            torch.autograd.grad(fn(x), params, g)

        step()
        step()
        steps[variant] = step
    if jax_:
        import jax
        import jax.numpy as jnp

        f = symnb_activation(name).to_jax()
        consts = {k: jnp.float32(v) for k, v in f.constants.items()}
        xj, gj = jnp.asarray(x.detach().numpy()), jnp.asarray(g.numpy())
        vjp = jax.jit(lambda xv, c: jax.vjp(lambda a, cc: f(a, **cc), xv, c)[1](gj))

        def jax_step() -> None:
            jax.block_until_ready(vjp(xj, consts))

        jax_step()
        jax_step()
        steps["jax"] = jax_step
    return interleaved_medians(steps, repeats)


def per_channel_modules(name: str, channels: int):
    """(symnb module, composite module) for an activation with its own constants in
    every channel of an NCHW tensor (channel j's constants scaled by 1 + j/100):
    ``symnb.to_torch_layer(..., dim=1)`` against PyTorch ops broadcasting (1, C, 1, 1)
    parameter tensors."""
    import torch

    base = symnb_activation(name)
    scale = [1 + j / 100 for j in range(channels)]
    acts = [
        base.with_constants(**{k: v * f for k, v in base.constants.items()})
        for f in scale
    ]
    sym = symnb.to_torch_layer(acts, dim=1, learnable=True)
    column = torch.tensor(scale).view(1, channels, 1, 1)
    return sym, torch_activation(name, "composite", column)


def per_channel_alone(name: str, shape: tuple, repeats: int, compile_: bool):
    """Median seconds of forward + backward (input and every channel's constants'
    gradients) of a per-channel activation, per variant (symnb, composite,
    compiled), repeats interleaved."""
    import torch

    x = torch.randn(*shape).requires_grad_()
    g = torch.randn(*shape)
    sym, comp = per_channel_modules(name, shape[1])
    fns = {"symnb": sym, "composite": comp}
    if compile_:
        fns["compiled"] = torch.compile(per_channel_modules(name, shape[1])[1])
    steps = {}
    for variant, fn in fns.items():
        params = [x, *fn.parameters()]

        def step(fn=fn, params=params) -> None:
            torch.autograd.grad(fn(x), params, g)

        step()
        step()
        steps[variant] = step
    return interleaved_medians(steps, repeats)


# ------------------------------------------------------------------ driver


def fmt_ms(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds >= 0.01:
        return f"{seconds * 1e3:.1f}"
    return f"{seconds * 1e3:.2f}" if seconds >= 0.001 else f"{seconds * 1e3:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="width 256, 3 repeats")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--no-jax", action="store_true", help="skip JAX")
    ap.add_argument(
        "--no-micro", action="store_true", help="skip the activation-alone table"
    )
    ap.add_argument(
        "--models", default="mlp,cnn", help="'' skips the training-step table"
    )
    ap.add_argument("--activations", default="swish,mish,pau")
    ap.add_argument("--threads", default=None, help="threads for every library")
    args = ap.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(int(args.threads))
    # Every model here is a Sequential with its own activation class, and they all share
    # Sequential.forward's code object: past Dynamo's default 8 recompiles it would run
    # the later models eager (a fullgraph model would fail).
    torch._dynamo.config.recompile_limit = 64
    torch._dynamo.config.accumulated_recompile_limit = 1024

    width = 256 if args.quick else 1024
    repeats = args.repeats or (3 if args.quick else 7)
    batches = {"mlp": 256, "cnn": 16 if args.quick else 64}
    side = 32
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads; width "
        f"{width}, {repeats} interleaved repeats"
    )
    rows = []
    for kind in filter(None, args.models.split(",")):
        batch = batches[kind]
        for name in args.activations.split(","):
            variants: dict[str, Callable[[], object]] = {}
            saved: dict[str, tuple[float, float]] = {}
            x, y = torch_data(kind, width, batch, side)
            base = None
            for variant in STEP_VARIANTS:
                if variant == "builtin" and name == "pau":
                    continue
                if variant in COMPILED and args.no_compile:
                    continue
                source = COMPILED.get(variant, variant)
                torch.manual_seed(0)
                acts: list = []

                def make(s=source, acts=acts, name=name):
                    acts.append(torch_activation(name, s))
                    return acts[-1]

                model = torch_model(kind, make, width)
                if base is None:
                    base = model.state_dict()
                else:
                    model.load_state_dict(
                        {k: v for k, v in base.items() if "constants" not in k},
                        strict=False,
                    )
                if variant not in COMPILED:
                    saved[variant] = saved_by_activations(model, x, y, acts)
                else:
                    t0 = time.perf_counter()
                    model = torch.compile(model, fullgraph=variant == "symnb_compiled")
                opt = torch.optim.SGD(model.parameters(), lr=0.01)
                step = torch_step(model, x, y, opt)
                step()  # warm-up (compiles the kernels / the graph)
                step()
                if variant in COMPILED:
                    print(
                        f"  {kind}/{name}: torch.compile ({variant}) took "
                        f"{time.perf_counter() - t0:.0f} s"
                    )
                variants[variant] = step
            if not args.no_jax:
                step = jax_step(kind, name, width, batch, side)
                step()
                step()
                variants["jax"] = step
            times: dict[str, list[float]] = {v: [] for v in variants}
            for _ in range(repeats):
                for v, step in variants.items():
                    t0 = time.perf_counter()
                    step()
                    times[v].append(time.perf_counter() - t0)
            med = {v: statistics.median(t) for v, t in times.items()}
            rows.append((kind, name, med, saved))
            print(
                f"  {kind}/{name}: "
                + ", ".join(f"{v} {fmt_ms(t)} ms" for v, t in med.items())
            )

    print(
        "\n| model | activation | symnb ms | composite ms | compiled ms | builtin ms "
        "| jax ms | symnb compiled ms | composite / symnb | compiled / symnb "
        "| builtin / symnb | compiled / symnb compiled "
        "| saved per act. (symnb / composite / builtin) | MB saved (symnb / composite) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for kind, name, med, saved in rows:
        s = med["symnb"]

        def ratio(v: str, s: float = s, med: dict = med) -> str:
            return f"{med[v] / s:.2f}x" if v in med else "—"

        tensors = " / ".join(
            f"{saved[v][0]:.0f}" if v in saved else "—"
            for v in ("symnb", "composite", "builtin")
        )
        mb = f"{saved['symnb'][1]:.1f} / {saved['composite'][1]:.1f}"
        both = (
            f"{med['compiled'] / med['symnb_compiled']:.2f}x"
            if "compiled" in med and "symnb_compiled" in med
            else "—"
        )
        print(
            f"| {kind} | {name} | {fmt_ms(s)} | {fmt_ms(med.get('composite'))} "
            f"| {fmt_ms(med.get('compiled'))} | {fmt_ms(med.get('builtin'))} "
            f"| {fmt_ms(med.get('jax'))} | {fmt_ms(med.get('symnb_compiled'))} "
            f"| {ratio('composite')} | {ratio('compiled')} | {ratio('builtin')} "
            f"| {both} | {tensors} | {mb} |"
        )

    if args.no_micro:
        return 0
    print(
        "\nActivation alone (forward + backward, with constants' gradients), ms:\n"
        "\n| shape | activation | symnb | composite | compiled | builtin | jax "
        "| composite / symnb | compiled / symnb | builtin / symnb |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    # 32x64: a small network's activation, where the per-call cost (Python, autograd)
    # and not the arithmetic decides
    cnn_shape = (batches["cnn"], width // 16, side, side)
    shapes = [(32, 64), (256, width), cnn_shape]
    for shape in shapes:
        for name in args.activations.split(","):
            med = activation_alone(
                name, shape, repeats * 3, not args.no_compile, not args.no_jax
            )
            s = med["symnb"]
            cells = " | ".join(fmt_ms(med.get(v)) for v in VARIANTS)
            ratios = " | ".join(
                f"{med[v] / s:.2f}x" if v in med else "—"
                for v in ("composite", "compiled", "builtin")
            )
            print(f"| {'x'.join(map(str, shape))} | {name} | {cells} | {ratios} |")
    print(
        "\nPer-channel constants (to_torch_layer(..., dim=1) against composite ops "
        "on (1, C, 1, 1) parameters), forward + backward, ms:\n"
        "\n| shape | activation | symnb | composite | compiled "
        "| composite / symnb | compiled / symnb |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    shape = cnn_shape
    for name in args.activations.split(","):
        if name == "mish":  # no constants
            continue
        med = per_channel_alone(name, shape, repeats * 3, not args.no_compile)
        s = med["symnb"]
        cells = " | ".join(
            fmt_ms(med.get(v)) for v in ("symnb", "composite", "compiled")
        )
        ratios = " | ".join(
            f"{med[v] / s:.2f}x" if v in med else "—" for v in ("composite", "compiled")
        )
        print(f"| {'x'.join(map(str, shape))} | {name} | {cells} | {ratios} |")
    return 0


VARIANTS = ("symnb", "composite", "compiled", "builtin", "jax")
# Training-step variants; the compiled ones name the model they compile: the composite
# one, and the symnb one (its custom op inside torch.compile, fullgraph=True, so a
# graph break would fail the run rather than hide in the timing).
STEP_VARIANTS = ("symnb", "composite", "compiled", "builtin", "symnb_compiled")
COMPILED = {"compiled": "composite", "symnb_compiled": "symnb"}

if __name__ == "__main__":
    raise SystemExit(main())
