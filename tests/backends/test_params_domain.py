"""A compiled kernel's ``params`` keeps the library's domain of its constants.

``set_constants`` and ``Activation.with_constants`` refused huber's delta=-1 or
softplus's beta=0 (as PyTorch does), but the kernel's other doors took them without
a word: ``kernel.params = [-1]``, ``kernel.write_params(...)`` (what training
writes), ``kernel.params[0] = -1`` in place, and a layer's ``set_constants``. The
huber kernel then returned a loss that falls as the error grows (-1.5 at error 1
instead of PyTorch's refusal). Now each door refuses with a ``FormulaError`` that
names the door and the constant, and the kernel keeps its old constants."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import FormulaError
from tests.conftest import backend_params

BACKENDS = ["numpy", "cpp"]


def _huber(backend: str):
    return symnb.loss("huber").compile(backend=backend, dtype="float64")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("delta", [-1.0, 0.0])
def test_assigning_params_out_of_domain_is_refused(backend: str, delta: float) -> None:
    kernel = _huber(backend)
    with pytest.raises(FormulaError, match=r"^params: huber's delta must be > 0"):
        kernel.params = np.array([delta])
    assert kernel.constants == {"delta": 1.0}


@pytest.mark.parametrize("backend", BACKENDS)
def test_write_params_out_of_domain_is_refused(backend: str) -> None:
    kernel = _huber(backend)
    with pytest.raises(FormulaError, match=r"^write_params: .*delta=-1\.0"):
        kernel.write_params(np.array([-1.0]))
    with pytest.raises(FormulaError, match=r"^write_params: .*delta"):
        kernel.write_params(np.array([-2.0]), np.array([0]))
    assert kernel.constants == {"delta": 1.0}
    kernel.write_params(np.array([2.0]))  # in the domain: written
    assert kernel.constants == {"delta": 2.0}


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_in_place_change_is_refused_at_the_next_call(backend: str) -> None:
    kernel = _huber(backend)
    p = np.array([0.0, 3.0])
    t = np.zeros(2)
    kernel.params[0] = -1.0
    with pytest.raises(FormulaError, match=r"^params \(changed in place\): .*delta"):
        kernel.value(p, t)
    with pytest.raises(FormulaError, match=r"changed in place"):
        kernel.gradient(p, t)
    kernel.params[0] = 2.0
    # Huber with delta 2: 0 at error 0; 2*(3 - 1) = 4 at error 3; mean 2
    assert kernel.value(p, t) == pytest.approx(2.0, rel=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_activation_kernel_params_keep_softplus_beta_nonzero(backend: str) -> None:
    kernel = symnb.activation("softplus").compile(backend=backend)
    with pytest.raises(FormulaError, match=r"softplus's beta must not be 0"):
        kernel.params = np.array([0.0, 20.0])
    kernel.params[0] = 0.0
    with pytest.raises(FormulaError, match=r"changed in place.*beta"):
        kernel.forward(np.ones(3, np.float32))
    with pytest.raises(FormulaError, match=r"changed in place.*beta"):
        kernel.backward(np.ones(3, np.float32), np.ones(3, np.float32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_layer_kernel_checks_each_neurons_domain(backend: str) -> None:
    layer = symnb.compile_layer(
        [symnb.activation("relu"), symnb.activation("hardtanh")], backend=backend
    )
    before = np.array(layer.params).copy()
    with pytest.raises(FormulaError, match=r"neuron 1.*min_val"):
        layer.set_constants(1, min_val=2.0)  # above max_val = 1
    with pytest.raises(FormulaError, match=r"^params \(neuron 1\)"):
        layer.params = np.array([3.0, 1.0])
    np.testing.assert_array_equal(np.array(layer.params), before)
    layer.params[0] = 5.0
    with pytest.raises(FormulaError, match=r"^params \(neuron 1, changed in place\)"):
        layer.forward(np.zeros((2, 2), np.float32))


def test_formulas_without_domain_tests_keep_any_finite_value() -> None:
    kernel = symnb.Activation("a*x", a=1.0).compile(backend="numpy")
    kernel.params = np.array([-3.0])
    kernel.params[0] = 0.0
    np.testing.assert_array_equal(kernel.forward(np.ones(2, np.float32)), [0.0, 0.0])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("value", [np.nan, np.inf, 1e300])
def test_a_non_finite_constant_written_in_place_is_refused(backend, value) -> None:
    """``kernel.params[0] = np.nan`` made every output NaN without a word (the
    setter refuses NaN; an in-place write cannot be intercepted): the next call
    refuses it, naming the constant. A float32 kernel stores 1e300 as inf."""
    kernel = symnb.Activation("a*x", a=1.0).compile(backend=backend)
    x = np.ones(3, np.float32)
    with np.errstate(over="ignore"):
        kernel.params[0] = value
    with pytest.raises(
        FormulaError, match=r"^params\[0\] \(constant 'a'\) was changed"
    ):
        kernel.forward(x)
    kernel.params[0] = 2.0  # a finite value again: computed
    np.testing.assert_array_equal(kernel.forward(x), [2.0, 2.0, 2.0])


def test_a_layer_names_the_neuron_of_a_constant_written_in_place() -> None:
    layer = symnb.compile_layer(
        ["relu", symnb.Activation("a*x", a=1.0)], backend="numpy"
    )
    layer.params[0] = np.inf
    with pytest.raises(
        FormulaError, match=r"^params\[0\] \(constant 'a' of neuron 1\)"
    ):
        layer.forward(np.ones((2, 2), np.float32))


@pytest.mark.parametrize("backend", backend_params())
def test_every_backend_refuses_each_door(backend: str) -> None:
    """The setter and write_params on every backend here; the in-place check on
    the host only (CuPy's params are device arrays, and a copy to the host at
    every call would wait for the device)."""
    kernel = symnb.loss("huber").compile(backend=backend, dtype="float64")
    xp = kernel.xp
    with pytest.raises(FormulaError, match=r"^params: huber's delta"):
        kernel.params = np.array([-1.0])
    with pytest.raises(FormulaError, match=r"^write_params: huber's delta"):
        kernel.write_params(xp.asarray([-1.0]), xp.asarray([0]))
    assert kernel.constants == {"delta": 1.0}
    p, t = xp.asarray([0.0, 3.0]), xp.zeros(2)
    if xp is np:
        kernel.params[0] = -1.0
        with pytest.raises(FormulaError, match=r"changed in place"):
            kernel.value(p, t)
    kernel.params[0] = 2.0
    assert kernel.value(p, t) == pytest.approx(2.0, rel=1e-12)
