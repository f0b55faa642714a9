"""Parts of a formula that depend only on its constants are computed in float64.

``(exp((1 - t)*x) - 1)/(1 - t)`` with t = 0.99999999 was NaN at every x in float32:
the kernel held t as float32 (1.0) and computed 1 - t = 0 there, so 0/0. The value is
about x (mpmath with t as typed). ``symnb.codegen.constant_parts`` passes such parts
(``1 - t``, ``sqrt(1 - a)``, ``a - b``) that cancel in float32 at the constants compiled
as extra constants computed from the constants' float64 values once per change of
them, hoisted before the engine's analysis (so the analysed form is the one compiled:
the generalised Charbonnier loss in ``test_roots_and_squares`` holds this); these tests hold the kernels to issue 8's rule against SymPy +
mpmath references (``corpus_reference``) on NumPy and C++, after the constant is
changed once compiled (``set_constants``, ``params =``, ``write_params``, in place,
pickling), and compile the CUDA kernel with NVRTC and run its translation unit on
the CPU (as ``tests/backends/test_cuda_compile.py`` does).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import symnb
from symnb.backends import select
from symnb.robust import engine
from tests.backends import test_cuda_compile as cuda_checks
from tests.robust.corpus import Published
from tests.robust.corpus_reference import reference, sample_points
from tests.robust.test_corpus import rule_problems

_NEAR_ONE = 0.99999999  # float32 rounds it to 1.0

CASES = [
    Published("expm1_over_1mt", "(exp((1 - t)*x) - 1)/(1 - t)", "", {"t": _NEAR_ONE}),
    Published("root_of_1ma", "sqrt(1 - a)*x", "", {"a": _NEAR_ONE}),
    # the reciprocal stays a division (x*(1/c) overflows where x/c does not); its
    # base 1 - t is the part computed in float64
    Published("x_over_1mt", "x/(1 - t)", "", {"t": _NEAR_ONE}),
    # a function of a constant: log(t) is -1e-8, log(1.0) = 0 in float32
    Published("x_log_t", "x*log(t)", "", {"t": _NEAR_ONE}),
    # a difference of two constants that float32 holds as equal (2.0)
    Published(
        "expm1_over_a_minus_b",
        "(exp((a - b)*x) - 1)/(a - b)",
        "",
        {"a": 2.00000001, "b": 2.0},
    ),
]


def _problems(entry, kernel, dtype, constants=None):
    if constants is not None:
        entry = Published(entry.name, entry.text, "", constants)
    xs, check_df = sample_points(entry, dtype)
    ref = reference(entry, xs.astype(np.float64))
    return rule_problems(kernel, xs, check_df, ref, dtype)


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("entry", CASES, ids=[e.name for e in CASES])
def test_constant_parts_meet_the_rule(entry, dtype, backend):
    kernel = symnb.Activation(entry.text, **entry.constants).compile(
        backend=backend, dtype=dtype
    )
    problems = _problems(entry, kernel, dtype)
    assert not problems, f"{entry.name} {backend} {dtype}:\n" + "\n".join(problems)


def _set_by_name(kernel, value):
    kernel.set_constants(t=value)


def _set_params(kernel, value):
    kernel.params = np.array([value])


def _write_params(kernel, value):
    kernel.write_params(np.array([value]))


def _write_position(kernel, value):
    kernel.write_params(np.array([value]), np.array([0]))


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize(
    "setter", [_set_by_name, _set_params, _write_params, _write_position]
)
def test_constant_moved_after_compile(setter, backend):
    """Compiled at t = 0.99999999 and moved to 0.25 (and back): the parts follow."""
    entry = CASES[0]
    kernel = symnb.Activation(entry.text, **entry.constants).compile(
        backend=backend, dtype="float32"
    )
    setter(kernel, 0.25)
    problems = _problems(entry, kernel, "float32", {"t": 0.25})
    assert not problems, "moved to 0.25:\n" + "\n".join(problems)
    setter(kernel, _NEAR_ONE)
    problems = _problems(entry, kernel, "float32")
    assert not problems, "moved back to 0.99999999:\n" + "\n".join(problems)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forms_without_a_cancelling_part_are_unchanged(dtype):
    """At t = 0.5 (1 - t exact in float32) and in float64 nothing is hoisted: the
    form analysed is the formula's own, as before the constant parts."""
    act = symnb.Activation(CASES[0].text, t=0.5)
    forms = (act.internal,)
    assert select._hoisted(forms, "elementwise", dtype) == (forms, None)
    act = symnb.Activation(CASES[0].text, **CASES[0].constants)
    if dtype == "float64":
        assert select._hoisted((act.internal,), "elementwise", dtype)[1] is None


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_change_in_place_and_pickle(backend):
    """``params[0] = 0.5`` in place counts as t = 0.5; a pickled kernel keeps
    t = 0.99999999 as given, not as the float32 params hold it (1.0)."""
    entry = CASES[0]
    kernel = symnb.Activation(entry.text, **entry.constants).compile(
        backend=backend, dtype="float32"
    )
    copy = pickle.loads(pickle.dumps(kernel))
    problems = _problems(entry, copy, "float32")
    assert not problems, "pickled:\n" + "\n".join(problems)
    kernel.params[0] = 0.5
    problems = _problems(entry, kernel, "float32", {"t": 0.5})
    assert not problems, "changed in place to 0.5:\n" + "\n".join(problems)


def _cuda_form(entry, dtype):
    """The form the CUDA backend compiles (parts hoisted, then lowered) and the
    constants it is called with (the constants, then the parts, rounded to dtype)."""
    act = symnb.Activation(entry.text, **entry.constants)
    forms, parts = select._hoisted((act.internal,), "elementwise", dtype)
    (form,) = engine.lower_all(forms, dtype)
    return form, parts, np.array(form.param_values, dtype=dtype)


@cuda_checks.needs_nvrtc
@pytest.mark.parametrize("entry", CASES, ids=[e.name for e in CASES])
def test_cuda_kernel_compiles_with_nvrtc(entry):
    form, parts, _ = _cuda_form(entry, "float32")
    assert parts, "no constant part was hoisted"
    source = cuda_checks.render_program(
        (form,), "elementwise", dialect="cuda", dtype="float32"
    )
    cuda_checks._nvrtc_check(source, "float32")


@cuda_checks.needs_cxx
@pytest.mark.parametrize("entry", CASES, ids=[e.name for e in CASES])
def test_cuda_translation_unit_on_the_host(entry, tmp_path):
    """The CUDA source, built as C++ and called with the constants and their parts
    as ``CudaProgram`` passes them, meets the rule in float32."""
    form, _, c = _cuda_form(entry, "float32")
    source = cuda_checks.render_program(
        (form,), "elementwise", dialect="cuda", dtype="float32"
    )
    lib = cuda_checks._host_library(source.text, str(tmp_path))
    xs, check_df = sample_points(entry, "float32")
    ref = reference(entry, xs.astype(np.float64))

    class _Host:
        def forward_with_derivative(self, x):
            y, dy = np.zeros_like(x), np.zeros_like(x)
            ptr = cuda_checks._ptr
            lib.symnb_forward_derivative(
                ptr(x), ptr(y), ptr(dy), cuda_checks._I64(x.size), ptr(c)
            )
            return y, dy

    problems = rule_problems(_Host(), xs, check_df, ref, "float32")
    assert not problems, f"{entry.name} CUDA on the host:\n" + "\n".join(problems)


class _Column:
    """Neuron ``j`` of a layer kernel as an elementwise kernel (for rule_problems)."""

    def __init__(self, layer, j):
        self.layer, self.j = layer, j

    def forward_with_derivative(self, xs):
        x = np.repeat(xs[:, None], self.layer.n, axis=1)
        y, dy = self.layer.forward_with_derivative(x)
        return y[:, self.j], dy[:, self.j]


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_layer_neurons_get_their_parts(backend):
    """A layer of neurons with constant parts (and one without: relu), each with
    its own constants (the parts computed for each), and one neuron's constant moved
    after compile."""
    near = CASES[0]
    root = CASES[1]
    acts = [
        symnb.Activation(near.text, **near.constants),
        "relu",
        symnb.Activation(root.text, **root.constants),
        symnb.Activation(near.text, t=0.5),
    ]
    layer = select.compile_layer(acts, backend=backend, dtype="float32")
    layer.set_constants(2, a=0.5)
    layer.set_constants(2, a=_NEAR_ONE)
    for j, entry in (
        (0, near),
        (2, root),
        (3, Published("", near.text, "", {"t": 0.5})),
    ):
        problems = _problems(entry, _Column(layer, j), "float32")
        assert not problems, f"neuron {j}:\n" + "\n".join(problems)
    x = np.array([[0.5, -1.0, 2.0, 1.0], [2.0, 3.0, 4.0, 5.0]], dtype=np.float32)
    grad = layer.constant_gradient(x, np.ones_like(x))
    # d/da sqrt(1 - a)*x = -x/(2 sqrt(1 - a)): -(2 + 4)/(2e-4) at a = 0.99999999
    assert grad.shape == layer.params.shape
    assert grad[1] == pytest.approx(-6.0 / (2 * np.sqrt(1 - _NEAR_ONE)), rel=1e-4)
