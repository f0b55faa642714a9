"""Cold compile time of a cpp layer with many distinct formulas (run by hand, not a test).

    .venv/bin/python benchmarks/bench_compile_layer.py                  # 256 forms, ~1-3 min
    .venv/bin/python benchmarks/bench_compile_layer.py --forms 64 --repeats 3
    .venv/bin/python benchmarks/bench_compile_layer.py --cuda   # + NVRTC (CUDA layer)

Every measurement runs in a fresh Python process with an empty kernel cache, so it
includes building the formulas (parse, derivative), symnb.robust's analysis (bounded by
its own total budget per layer), rendering the source and the compiler. The peer
is the single-translation-unit layout (``LAYER_SPLIT_FORMS`` raised above the number of
forms) at ``--peer-forms`` forms; both layouts are timed there too, interleaved, and
the table gives medians and their ratio. The load average is printed: this machine is
shared, and compile times scale with it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Different structures and numbers: every formula is its own form.
TEMPLATES = (
    "x*sigmoid({a}*x) + {b}*sin(x)",
    "tanh({a}*x)*x + {b}*cos(x)",
    "x/(1 + abs({a}*x)) + {b}*exp(-x**2)",
    "softplus({a}*x) - {b}*atan(x)",
    "x*erf({a}*x) + {b}*x",
    "log1p({a}*x**2) + {b}*tanh(x)",
    "Max(0, x) + {b}*sin({a}*x)",
    "x*tanh(softplus({a}*x)) + {b}",
)


def formulas(n: int) -> list[str]:
    """``n`` distinct formula texts."""
    return [
        TEMPLATES[i % len(TEMPLATES)].format(a=i // len(TEMPLATES) + 2, b=i % 5 + 1)
        for i in range(n)
    ]


def _timed(owner, name: str, spent: dict) -> None:
    """Wrap ``owner.name`` so that the seconds spent in it add up in ``spent[name]``."""
    real = getattr(owner, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - start

    setattr(owner, name, wrapper)


def child(n: int, layout: str) -> dict:
    """One cold measurement in this (fresh) process, stage by stage: the formulas
    (parse, derivative), the numerical-robustness analysis (``symnb.robust``, its own
    time budget), rendering the source, and the compiler (g++, or NVRTC for cuda)."""
    sys.path.insert(0, str(ROOT))
    import symnb
    import symnb.robust
    from symnb.backends import cpp, cuda
    from symnb.codegen import kernels

    if layout.endswith("single"):
        kernels.LAYER_SPLIT_FORMS = 10**9
    spent: dict[str, float] = {}
    _timed(symnb.robust, "lower_all", spent)
    _timed(cpp, "render_program", spent)
    _timed(cpp, "compile_units", spent)
    _timed(cuda, "compile_sources", spent)
    t0 = time.perf_counter()
    acts = [symnb.Activation(text) for text in formulas(n)]
    t1 = time.perf_counter()
    if layout.startswith("cuda"):  # NVRTC only, no GPU needed
        forms = symnb.robust.lower_all(tuple(a.internal for a in acts), "float32")
        start = time.perf_counter()
        src = kernels.render_program(forms, "layer", "cuda", "float32")
        spent["render_program"] = time.perf_counter() - start
        parts = [cuda._Unit(u) for u in src.units] or [src]
        cuda.compile_sources(parts, "sm_90")
        units = len(parts)
    else:
        layer = symnb.compile_layer(acts, backend="cpp", strict=True)
        units = len(layer._program.kernel_source.units) or 1
    t2 = time.perf_counter()
    cpu = sum(
        r.ru_utime + r.ru_stime
        for r in (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
    )
    return {
        "formulas_s": t1 - t0,
        "analysis_s": spent.get("lower_all", 0.0),
        "render_s": spent.get("render_program", 0.0),
        "compiler_s": spent.get("compile_units", 0.0)
        + spent.get("compile_sources", 0.0),
        "total_s": t2 - t0,
        "cpu_s": cpu,
        "units": units,
    }


def measure(n: int, layout: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="symnb-bench-cache-") as cache:
        env = {**os.environ, "SYMNB_CACHE_DIR": cache}
        out = subprocess.run(
            [sys.executable, __file__, "--child", layout, "--forms", str(n)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forms", type=int, default=256)
    parser.add_argument("--peer-forms", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--cuda", action="store_true", help="also NVRTC for the CUDA layer (no GPU)"
    )
    parser.add_argument(
        "--child", choices=("split", "single", "cuda-split", "cuda-single")
    )
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.forms, args.child)))
        return
    runs: dict[tuple[int, str], list[dict]] = {}
    cases = [
        (args.forms, "split"),
        (args.peer_forms, "split"),
        (args.peer_forms, "single"),
    ]
    if args.cuda:
        cases += [(args.forms, "cuda-split"), (args.peer_forms * 2, "cuda-single")]
    print(f"load average before: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    for _ in range(args.repeats):
        for case in cases:  # interleaved
            runs.setdefault(case, []).append(measure(*case))
    print(f"load average after: {os.getloadavg()[0]:.1f}\n")
    print(
        "| forms | layout | units | formulas (s) | robust analysis (s) | render (s) "
        "| compiler (s) | total wall (s) | total CPU (s) |"
    )
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    medians = {}
    for (n, layout), rs in runs.items():
        med = {
            k: statistics.median(r[k] for r in rs) for k in rs[0] if k.endswith("_s")
        }
        medians[(n, layout)] = med
        print(
            f"| {n} | {layout} | {rs[0]['units']} | {med['formulas_s']:.1f} | "
            f"{med['analysis_s']:.1f} | {med['render_s']:.1f} | "
            f"{med['compiler_s']:.1f} | {med['total_s']:.1f} | {med['cpu_s']:.1f} |"
        )
    print("(cuda rows: NVRTC for sm_90 in this process, no GPU; compiler = NVRTC)")
    for key in ("compiler_s", "cpu_s"):
        single = medians[(args.peer_forms, "single")][key]
        split = medians[(args.peer_forms, "split")][key]
        print(
            f"\nat {args.peer_forms} forms, {key[:-2]} single unit / split: "
            f"{single / split:.2f}x (medians of {args.repeats})"
        )


if __name__ == "__main__":
    main()
