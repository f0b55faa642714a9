"""Kernels whose constants change after compiling stay right.

The forms are lowered at the constants compiled; a kernel compiled with c != 0 and
moved to c = 0 ran forms chosen for c != 0: ``x*exp(-c*x**2)`` was NaN at c = 0 from
|x| = 1e20 in float32 (and at x = inf in float64) where it is x, ``log(1 + c*x**2)``
gave -inf where it is 0, ``x*erf(c*x)`` and ``asinh(c*x)`` NaN where they are 0.
A float32 kernel compiled at t = 0.5 computed ``1 - t`` in float32 and was NaN at
every x once moved to t = 0.99999999. Judged against the definitions at the moved
constants, against a fresh compile there, and against mpmath (``text_judge``).
"""

from __future__ import annotations

import time
import warnings

import mpmath
import numpy as np
import pytest

import symnb
from symnb.backends import select
from tests.conftest import backend_params
from tests.robust.text_judge import rule_problems_of

X = [0.0, 1.0, -1.0, 1e20, -1e20, 3e38, -3e38, np.inf, -np.inf]

# (text, constant, compiled at, moved to, f and f' at the moved constant as the
# published definitions give them there)
AT_ZERO = [
    ("x*exp(-c*x**2)", "c", 1.0, 0.0, lambda x: x, lambda x: 1.0),
    ("x*erf(c*x)", "c", 1.0, 0.0, lambda x: 0.0, lambda x: 0.0),
    ("asinh(c*x)", "c", 1.0, 0.0, lambda x: 0.0, lambda x: 0.0),
    ("log(1+c*x**2)", "c", 1.0, 0.0, lambda x: 0.0, lambda x: 0.0),
]


def _quiet_compile(text, backend, dtype, **constants):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return symnb.Activation(text, **constants).compile(backend, dtype=dtype)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", AT_ZERO, ids=[c[0] for c in AT_ZERO])
def test_a_constant_moved_to_zero(case, dtype, backend):
    text, name, compiled, moved, f, df = case
    kernel = _quiet_compile(text, backend, dtype, **{name: compiled})
    kernel.set_constants(**{name: moved})
    x = np.array(X, dtype=dtype)
    fresh = _quiet_compile(text, backend, dtype, **{name: moved})
    with np.errstate(all="ignore"):
        got, dgot = kernel.forward(x), kernel.backward(x, np.ones_like(x))
        want = np.array([f(v) for v in x], dtype=dtype)
        dwant = np.array([df(v) for v in x], dtype=dtype)
    np.testing.assert_array_equal(got, want, err_msg=f"{text} f at {name}={moved}")
    np.testing.assert_array_equal(dgot, dwant, err_msg=f"{text} f' at {name}={moved}")
    np.testing.assert_array_equal(got, fresh.forward(x))


@pytest.mark.parametrize("backend", backend_params())
def test_a_part_that_cancels_only_at_the_moved_constant(backend):
    """(exp((1 - t)*x) - 1)/(1 - t) compiled at t = 0.5, moved to t = 0.99999999:
    NaN at every x in float32 before (1 - t computed in float32 is 0)."""
    text, t = "(exp((1-t)*x) - 1)/(1 - t)", 0.99999999
    kernel = _quiet_compile(text, backend, "float32", t=0.5)
    kernel.set_constants(t=t)
    x = np.array([0.5, 1.0, -1.0, 5.0, -30.0, 1e3], dtype=np.float32)
    got = kernel.forward(x)
    mpmath.mp.dps = 50
    s = 1 - mpmath.mpf(t)
    ref = np.array([float(mpmath.expm1(s * mpmath.mpf(float(v))) / s) for v in x])
    np.testing.assert_allclose(got, ref, rtol=2e-5)
    assert not rule_problems_of(text, backend, "float32", {"t": 0.5}, {"t": t})


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_moved_to_zero_meets_the_rule_against_mpmath(dtype, backend):
    problems = []
    for text, name, compiled, moved, _, _ in AT_ZERO:
        found = rule_problems_of(text, backend, dtype, {name: compiled}, {name: moved})
        problems += [f"{text} {name}={compiled}->{moved}: {p}" for p in found]
    assert not problems, "\n".join(problems)


def test_in_place_and_write_params_changes_are_seen():
    x = np.array([1e20, -1e20], dtype=np.float32)
    kernel = _quiet_compile("x*exp(-c*x**2)", "numpy", "float32", c=1.0)
    kernel.params[0] = 0.0  # in place: seen at the next call
    np.testing.assert_array_equal(kernel.forward(x), x)
    kernel.set_constants(c=1.0)
    kernel.write_params(np.array([0.0]), domain=False)  # as the trainer writes
    np.testing.assert_array_equal(kernel.backward(x, np.ones_like(x)), [1.0, 1.0])


def test_moves_that_keep_the_forms_rebuild_nothing(monkeypatch):
    """A slider within one sign: no rebuild; across 0 and back: one per side, and
    the first program again when back (measured: a change that keeps the forms
    costs a few microseconds more than before)."""
    kernel = _quiet_compile("x*exp(-c*x**2)", "numpy", "float32", c=1.0)
    first = kernel._program
    built = []
    real = select.rebuild
    monkeypatch.setattr(
        select, "rebuild", lambda *a, **k: built.append(a[1]) or real(*a, **k)
    )
    for c in np.linspace(0.1, 3.0, 30):
        kernel.set_constants(c=float(c))
    assert built == [] and kernel._program is first
    for c in (0.0, 1.0, 0.0, 2.0):
        kernel.set_constants(c=c)
    assert len(built) == 1 and kernel._program is first
    t0 = time.perf_counter()
    for c in np.linspace(0.5, 2.0, 200):
        kernel.set_constants(c=float(c))
    assert (time.perf_counter() - t0) / 200 < 1e-3


def test_to_torch_constant_moved_to_zero():
    torch = pytest.importorskip("torch")
    module = symnb.Activation("x*exp(-c*x**2)", c=1.0).to_torch(learnable=["c"])
    with torch.no_grad():
        for p in module.parameters():
            p.zero_()
    x = torch.tensor([1e20, -1e20, 3e38, 1.0], requires_grad=True)
    y = module(x)
    y.sum().backward()
    assert torch.equal(y.detach(), x.detach())
    assert torch.equal(x.grad, torch.ones_like(x))


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_neurons_with_constants_of_other_signs(dtype, backend):
    """A layer's form was lowered at its first neuron's constants and every neuron
    of the formula ran it: neuron 1 (c = 0) was NaN at x = 1e20 (float32) and
    x = inf, at compile and after set_constants moved neuron 0 to 0."""
    act = symnb.Activation("x*exp(-c*x**2)", c=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layer = symnb.compile_layer(
            [act, act.with_constants(c=0.0)], backend=backend, dtype=dtype
        )
    x = np.array([[1e20, 1e20], [np.inf, np.inf], [1.0, 1.0]], dtype=dtype)
    ones = np.ones_like(x)
    exp1 = np.exp(np.array(-1.0, dtype=dtype))
    np.testing.assert_array_equal(layer.forward(x)[:, 1], x[:, 1])
    np.testing.assert_array_equal(layer.backward(x, ones)[:, 1], [1.0, 1.0, 1.0])
    layer.set_constants(neuron=0, c=0.0)
    layer.set_constants(neuron=1, c=1.0)
    np.testing.assert_array_equal(layer.forward(x)[:, 0], x[:, 0])
    np.testing.assert_array_equal(layer.backward(x, ones)[:, 0], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(layer.forward(x)[2], [1.0, exp1], rtol=1e-6)


def test_layer_part_that_cancels_at_one_neuron():
    """(exp((1 - t)*x) - 1)/(1 - t): the layer hoisted 1 - t only where its first
    neuron's t made it cancel; a neuron at t = 0.99999999 was NaN in float32."""
    act = symnb.Activation("(exp((1-t)*x) - 1)/(1 - t)", t=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layer = symnb.compile_layer(
            [act, act.with_constants(t=0.99999999)], backend="numpy"
        )
    x = np.array([[2.0, 2.0]], dtype=np.float32)
    ref = [float(mpmath.expm1(mpmath.mpf(0.5) * 2) / 0.5), 2.0]  # (1-t)*x ~ 2e-8
    np.testing.assert_allclose(layer.forward(x)[0], ref, rtol=2e-5)
    layer.set_constants(neuron=[0, 1], t=0.5)
    layer.set_constants(neuron=0, t=0.99999999)
    np.testing.assert_allclose(layer.forward(x)[0], ref[::-1], rtol=2e-5)


@pytest.mark.parametrize("backend", backend_params())
def test_loss_constant_moved_to_zero(backend):
    """log(1 + c*(y_pred - y_true)**2) compiled at c = 1, moved to c = 0 (the
    loss is 0 there): -inf/NaN at errors of 1e20 in float32."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = symnb.Loss("log(1 + c*(y_pred - y_true)**2)", c=1.0)
        kernel = loss.compile(backend, dtype="float32")
    kernel.set_constants(c=0.0)
    p = np.array([1e20, -1e20, 3e38, 1.0], dtype=np.float32)
    t = np.zeros_like(p)
    assert kernel.value(p, t) == 0.0
    np.testing.assert_array_equal(kernel.gradient(p, t), np.zeros_like(p))


@pytest.mark.parametrize("per", ["layer", "neuron"])
def test_fused_training_step_follows_a_constant_across_zero(per):
    """The cpp fused training step was generated once from the forms lowered at
    the compiled constants: a learnable c moved from 1 to 0 gave a NaN loss at a
    pre-activation of 1e160 (float64) where the generic path's is 0."""
    from symnb import nn
    from symnb.backends import status

    if not status("cpp").usable:
        pytest.skip(f"cpp backend: {status('cpp').reason}")
    act = symnb.Activation("x*exp(-c*x**2)", c=symnb.learnable(1.0, per=per))
    models = [
        nn.MLP(
            [1, 1, 1],
            activation=act,
            loss="mse",
            backend="cpp",
            dtype="float64",
            seed=0,
            fused=fused,
        )
        for fused in (True, False)
    ]
    X, y = np.array([[1e160]]), np.array([[1.0]])
    for model in models:
        flat = model.get_flat_parameters()
        assert flat.size == 5
        model.set_flat_parameters(np.array([1.0, 1e-160, 0.0, 0.0, 0.0]))
    (lf, gf), (lg, gg) = (m.loss_and_gradient(X, y) for m in models)
    assert lg == 0.0 and lf == 0.0
    np.testing.assert_array_equal(gf, gg)


# (text, constant, compiled at, moved to): a constant moved by orders of magnitude
FAR = [
    # 0 at x = 0 (float32) where it is 1 - 1/e: the form lowered at lambda = 2
    ("1 - (1 + lambd*exp(x))**(-1/lambd)", "lambd", 2.0, 1e-8),
    # inf at x = 3e38 where it is 107
    ("log(1 + beta*max(0, x))", "beta", 1.0, 1e8),
]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("case", FAR, ids=[c[0] for c in FAR])
def test_a_constant_moved_by_orders_of_magnitude(case, backend):
    text, name, compiled, moved = case
    kernel = _quiet_compile(text, backend, "float32", **{name: compiled})
    kernel.set_constants(**{name: moved})
    x = np.array([0.0, 0.5, -3.0, 30.0, 1e20, 3e38], dtype=np.float32)
    mpmath.mp.dps = 60
    c = mpmath.mpf(moved)
    f = {
        FAR[0][0]: lambda v: 1 - (1 + c * mpmath.exp(v)) ** (-1 / c),
        FAR[1][0]: lambda v: mpmath.log(1 + c * max(0, v)),
    }[text]
    ref = np.array([float(f(mpmath.mpf(float(v)))) for v in x])
    np.testing.assert_allclose(kernel.forward(x), ref, rtol=2e-5, atol=1e-6)
