"""Cold compile latency (CPU seconds) of plausible but heavy formulas, one by one.

For each formula (deep nests, huge powers, degree-8 rationals, sums of exps, 12-branch
Piecewise, erf/erfc/normal pdf-cdf ratios, Gaussian-tail losses, products of
sigmoids, ...), in a fresh process with a fresh kernel cache: the CPU seconds of
``symnb.Activation(text)``, of the first ``compile(backend="numpy")`` (the float32
analysis of f and f' included), of the following ``compile(backend="cpp")`` and of
its g++ (child processes), and whether the float32 analysis ran out of its budget
(the report's ``analysed`` flag false: STOPPED). Anything above 5 s or stopped is a
latency defect. Run:

    .venv/bin/python benchmarks/bench_compile_heavy.py [name ...]

Measured on 2 shared cores (h108, ENGINE 110): the Mills ratio x*phi(x)/Phi(x)
6.9 -> 1.2 s numpy compile (stopped -> analysed), log_ndtr 4.1 -> 1.5 s.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: (name, text, constants)
FORMULAS = [
    ("mills", "x*exp(-x**2/2)/(sqrt(2*pi)*(1+erf(x/sqrt(2)))/2)", {}),
    (
        "mills_beta",
        "beta*x*exp(-(beta*x)**2/2)/sqrt(2*pi)/((1+erf(beta*x/sqrt(2)))/2)",
        {"beta": 1.0},
    ),
    ("inv_mills", "exp(-x**2/2)/sqrt(2*pi)/(erfc(x/sqrt(2))/2)", {}),
    ("erfcx_typed", "exp(x**2)*erfc(x)", {}),
    ("erfcx_call", "erfcx(x)", {}),
    ("pdf_over_cdf", "exp(-x**2/2)/(sqrt(2*pi)*(1+erf(x/sqrt(2)))/2)", {}),
    ("gauss_tail_loss", "-log(erfc(x/sqrt(2))/2)", {}),
    ("log_ndtr", "log((1+erf(x/sqrt(2)))/2)", {}),
    ("gelu", "x*(1+erf(x/sqrt(2)))/2", {}),
    ("gelu_tanh", "0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x**3)))", {}),
    ("erf_ratio", "erf(x)/(1+erf(x))", {}),
    ("erfc_ratio", "erfc(x)/erfc(2*x)", {}),
    ("tanh6", "tanh(tanh(tanh(tanh(tanh(tanh(x))))))", {}),
    ("sigmoid6", "sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(x))))))", {}),
    ("sin6", "sin(sin(sin(sin(sin(sin(x))))))", {}),
    ("x1000", "x**1000", {}),
    ("x1000_scaled", "(x/10)**1000", {}),
    ("sin50", "sin(x)**50", {}),
    ("cos_pow_37", "cos(x)**37", {}),
    (
        "pau88",
        "(0.02979246+0.61837738*x+2.32335207*x**2+3.05202660*x**3+1.48548002*x**4+0.25103717*x**5+0.01*x**6+0.002*x**7+0.0003*x**8)/(1+abs(1.14201226*x)+abs(4.39322834*x**2)+abs(0.87154450*x**3)+abs(0.34720652*x**4)+abs(0.1*x**5)+abs(0.02*x**6)+abs(0.003*x**7)+abs(0.0004*x**8))",
        {},
    ),
    (
        "rat88",
        "(1+2*x+3*x**2+4*x**3+5*x**4+6*x**5+7*x**6+8*x**7+9*x**8)/(2+x**2+3*x**4+x**6+5*x**8)",
        {},
    ),
    (
        "exp_sum10",
        "exp(x)+exp(2*x)+exp(3*x)+exp(-x)+exp(-2*x)+exp(x/2)+exp(-x/2)+exp(x/3)+exp(-3*x)+exp(x/4)",
        {},
    ),
    (
        "exp_sum10_log",
        "log(exp(x)+exp(2*x)+exp(3*x)+exp(-x)+exp(-2*x)+exp(x/2)+exp(-x/2)+exp(x/3)+exp(-3*x)+exp(x/4))",
        {},
    ),
    (
        "pw12",
        "Piecewise((x, x<-5), (2*x, x<-4), (3*x, x<-3), (x**2, x<-2), (sin(x), x<-1), (exp(x), x<0), (tanh(x), x<1), (log(1+x), x<2), (sqrt(x), x<3), (x/2, x<4), (x**3, x<5), (1, True))",
        {},
    ),
    ("where_nest", "where(x<0, where(x<-1, exp(x)-1, x), where(x>1, log(x)+1, x))", {}),
    ("log_exp_nest", "log(1+exp(log(1+exp(x))))", {}),
    ("log_exp_nest3", "log(1+exp(log(1+exp(log(1+exp(x))))))", {}),
    ("softplus2", "softplus(softplus(x))", {}),
    ("softplus3", "softplus(softplus(softplus(x)))", {}),
    ("sig5", "sigmoid(x)*sigmoid(2*x)*sigmoid(3*x)*sigmoid(x/2)*sigmoid(-x)", {}),
    ("sig5_x", "x*sigmoid(x)*sigmoid(2*x)*sigmoid(3*x)*sigmoid(x/2)*sigmoid(x+1)", {}),
    ("cbrt_comp", "(1+x**2)**(1/3)", {}),
    ("cbrt_comp2", "(1+(1+x**2)**(1/3))**(1/3)", {}),
    ("cbrt_comp3", "x*(1+x**2)**(-1/3) + (1+x**2)**(1/3) - 1", {}),
    ("isru_nest", "x/sqrt(1+x**2/sqrt(1+x**2))", {}),
    ("mish", "x*tanh(log(1+exp(x)))", {}),
    ("mish_nest", "x*tanh(softplus(x*tanh(softplus(x))))", {}),
    ("swish_beta", "x*sigmoid(beta*x)", {"beta": 1.5}),
    ("serf", "x*erf(log(1+exp(x)))", {}),
    ("logcosh", "log(cosh(x))", {}),
    ("logcosh_nest", "log(cosh(log(cosh(x))))", {}),
    ("expexp", "exp(-exp(-x))", {}),
    ("gumbel_nest", "exp(-exp(-exp(-x)))", {}),
    ("exp_tanh", "exp(tanh(x))*tanh(exp(x))", {}),
    ("atan_nest", "atan(atan(atan(atan(x))))", {}),
    ("asinh_sum", "asinh(x)+asinh(2*x)+asinh(x/2)+asinh(x**2)", {}),
    ("poly12", "x**12-3*x**11+x**10-x**9+2*x**8-x**7+x**6-x**5+x**4-x**3+x**2-x+1", {}),
    ("cos_sum", "cos(x)+cos(2*x)+cos(3*x)+cos(4*x)+cos(5*x)+cos(6*x)", {}),
    (
        "gauss_mix",
        "exp(-(x-1)**2)+exp(-(x+1)**2)+exp(-(x-2)**2/2)+exp(-(x+2)**2/2)+exp(-x**2/4)",
        {},
    ),
    ("log_gauss_mix", "log(exp(-(x-1)**2)+exp(-(x+1)**2)+exp(-x**2/4))", {}),
    ("snake", "x+sin(a*x)**2/a", {"a": 1.0}),
    ("sinc", "sin(x)/x", {}),
    ("bent", "(sqrt(x**2+1)-1)/2+x", {}),
    ("erf_erf", "erf(erf(erf(x)))", {}),
    ("ndtr_prod", "(1+erf(x/sqrt(2)))/2*(1+erf(2*x/sqrt(2)))/2*x", {}),
    ("probit_loss", "-log((1+erf(x/sqrt(2)))/2)", {}),
    ("tail_ratio2", "exp(-x**2)/erfc(x)", {}),
    ("cdf_pdf", "(1+erf(x/sqrt(2)))/2/exp(-x**2/2)", {}),
    ("tanh_pow", "tanh(x)**7*x", {}),
    ("sigmoid_pow", "sigmoid(x)**20", {}),
    ("nested_sqrt", "sqrt(1+sqrt(1+sqrt(1+x**2)))", {}),
    ("pow_frac", "((1+x**2)**(1/3)-1)/x", {}),
]


def _child(index: int) -> None:
    """One formula in this (fresh) process: prints JSON [build, numpy, cpp, g++,
    stopped]."""
    import symnb

    _, text, constants = FORMULAS[index]
    r0 = time.process_time()
    act = symnb.Activation(text, **constants)
    r1 = time.process_time()
    act.compile(backend="numpy", dtype="float32", strict=True)
    r2 = time.process_time()
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    act.compile(backend="cpp", dtype="float32", strict=True)
    r3 = time.process_time()
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    gcc = (c1.ru_utime + c1.ru_stime) - (c0.ru_utime + c0.ru_stime)
    stopped = not act.accuracy(("float32",)).analysed
    print(json.dumps([r1 - r0, r2 - r1, r3 - r2, gcc, stopped]))


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        _child(int(sys.argv[2]))
        return
    only = set(sys.argv[1:])
    print("| formula | build | numpy compile | cpp compile | g++ | stopped |")
    print("|---|---:|---:|---:|---:|---|")
    for i, (name, _, _) in enumerate(FORMULAS):
        if only and name not in only:
            continue
        env = {**os.environ, "SYMNB_CACHE_DIR": tempfile.mkdtemp(prefix="symnb-heavy-")}
        cmd = [sys.executable, __file__, "--child", str(i)]
        try:
            out = subprocess.run(
                cmd, env=env, capture_output=True, text=True, timeout=600, check=False
            )
            lines = out.stdout.strip().splitlines()
            got = json.loads(lines[-1]) if out.returncode == 0 and lines else None
        except subprocess.TimeoutExpired:
            got = "timeout"
        if isinstance(got, list):
            b, n, c, g, s = got
            print(
                f"| {name} | {b:.2f} | {n:.2f} | {c:.2f} | {g:.2f} | {s} |", flush=True
            )
        else:
            print(f"| {name} | {got or 'refused or failed'} | | | | |", flush=True)


if __name__ == "__main__":
    main()
