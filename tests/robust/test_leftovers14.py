"""Formula defects the thirteenth probe left open, judged as the corpora are.

Each entry is compiled (NumPy backend) and held to issue 8's rule against SymPy +
mpmath references at the corpus sample points (``corpus_reference.sample_points``)
plus the points where the probe saw it fail:

- ``tanh(k*x)/(k*x)`` at k = 1e6: f' 66140 for 66136.55 near |x| = 1e-7 in float32
  (the Taylor polynomial in x has coefficients k**j, k**8 = inf in float32, so no
  branch near 0 was made; now a branch in u = k*x, ``engine._scaled_taylor``, which
  also holds when training moves k);
- ``bce_with_logits`` at infinite logits: NaN at (inf, 0), (inf, 1) and (-inf, 0)
  (inf - inf and inf*0), where the loss tends to inf, 0 and 0
  (``infinity.linear_limit``: the limit a*|p| + b in the target);
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from tests.robust.corpus import Published
from tests.robust.corpus_reference import reference, sample_points
from tests.robust.test_corpus import rule_problems

_NEAR_ZERO = (1e-7, -1e-7, 1.2e-7, 3e-8, -4.6e-8, 1e-9, 1e-13)


def _case(name, text, constants, removable, extra, dtypes=("float32", "float64")):
    entry = Published(name, text, "probe 14", constants, removable=removable)
    return [(entry, extra, dtype) for dtype in dtypes]


CASES = [
    *_case("tanh_over_kx_1e6", "tanh(k*x)/(k*x)", {"k": 1e6}, (0.0,), _NEAR_ZERO),
    *_case("sin_over_kx_1e6", "sin(k*x)/(k*x)", {"k": 1e6}, (0.0,), _NEAR_ZERO),
    *_case(
        "atan_over_ax_3e5",
        "atan(a*x)/(a*x)",
        {"a": 3e5},
        (0.0,),
        tuple(v * 3 for v in _NEAR_ZERO),
    ),
]


@pytest.mark.parametrize(
    "entry,extra,dtype",
    [pytest.param(e, x, d, id=f"{e.name}-{d}") for e, x, d in CASES],
)
def test_meets_the_rule_where_the_probe_failed(entry, extra, dtype):
    xs, check_df = sample_points(entry, dtype)
    more = np.array(extra, dtype=dtype)
    xs = np.unique(np.concatenate([xs, more]))
    check_df = np.ones(xs.shape, bool)
    ref = reference(entry, xs.astype(np.float64))
    act = symnb.Activation(entry.text, **entry.constants)
    kernel = act.compile(backend="numpy", dtype=dtype)
    problems = rule_problems(kernel, xs, check_df, ref, dtype)
    assert not problems, f"{entry.name} {dtype}:\n" + "\n".join(problems)


@pytest.mark.parametrize("text", ["tanh(k*x)/(k*x)", "sin(k*x)/(k*x)"])
def test_removable_point_holds_with_the_constant_moved(text):
    """Compiled at k = 1 and moved to k = 1e6 (training): the Taylor branch is in
    u = k*x, not pinned to the analysed k (a branch in x guarded by k == 1 left the
    moved kernel with f' 512 for 666.67 at x = -1e-9 in float32)."""
    entry = Published("moved", text, "", {"k": 1e6}, removable=(0.0,))
    xs, _ = sample_points(entry, "float32")
    xs = np.unique(np.concatenate([xs, np.array(_NEAR_ZERO, "float32")]))
    ref = reference(entry, xs.astype(np.float64))
    kernel = symnb.Activation(text, k=1.0).compile(backend="numpy", dtype="float32")
    kernel.set_constants(k=1e6)
    problems = rule_problems(kernel, xs, np.ones(xs.shape, bool), ref, "float32")
    assert not problems, f"{text} moved to k = 1e6:\n" + "\n".join(problems)


#: (y_pred, y_true) at infinite logits, the labels and between
_INFINITE_LOGITS = [(s * np.inf, t) for s in (1, -1) for t in (0.0, 0.25, 0.5, 1.0)]


def _bce_limit(p: float, t: float) -> float:
    """bce_with_logits at p = +-1e400 in mpmath (float: +-inf or the value), from
    PyTorch's documented form max(p, 0) - p*t + log(1 + exp(-|p|))."""
    import mpmath

    with mpmath.workdps(50):
        pm = mpmath.mpf("1e400") * (1 if p > 0 else -1)
        tm = mpmath.mpf(t)
        v = max(pm, 0) - pm * tm + mpmath.log1p(mpmath.exp(-abs(pm)))
        return float(v)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_bce_with_logits_has_its_limit_at_infinite_logits(backend, dtype):
    """PyTorch gives NaN at (inf, 1), (-inf, 0) and (-inf, 1) (limits 0, 0 and inf);
    symnb gives the limit at every target, and NaN for a NaN target."""
    torch = pytest.importorskip("torch")
    from symnb.backends.select import status

    usable = status(backend)
    if not usable.usable:
        pytest.skip(f"backend {backend} not usable here: {usable.reason}")
    kernel = symnb.loss("bce_with_logits").compile(backend=backend, dtype=dtype)
    for p, t in _INFINITE_LOGITS:
        got = kernel.value(np.array([p], dtype), np.array([t], dtype))
        want = _bce_limit(p, t)
        assert got == want, f"bce_with_logits({p}, {t}) = {got}, limit {want}"
        theirs = torch.nn.functional.binary_cross_entropy_with_logits(
            torch.tensor([p]), torch.tensor([t]), reduction="none"
        ).item()
        assert np.isnan(theirs) or theirs == got
        grad = kernel.gradient(np.array([p], dtype), np.array([t], dtype))
        assert grad[0] == (1.0 if p > 0 else 0.0) - t
    nan = kernel.value(np.array([np.inf], dtype), np.array([np.nan], dtype))
    assert np.isnan(nan)
