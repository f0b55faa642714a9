"""symnb modules called from several threads (a live trainer's background thread and
the notebook's own calls, a thread pool serving a model). Modules of one formula share
its compiled kernel; layers and the numpy backend wrote each module's constants into
the kernel's ``params`` and then ran it, so another thread's write in between gave
this module's output with the other's constants, without a word (15 of 600 calls
here). The CPU fast path passes constants by address from a cache that other
threads' new vectors could evict (and free) before the call had read them."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import symnb
from symnb.interop import native as native_module

torch = pytest.importorskip("torch")

ACT = symnb.Activation("x*sigmoid(beta*x)", beta=1.0, name="sw_threads")
X = torch.linspace(-4, 4, 20000).reshape(10000, 2)


def hammer(modules, calls=150):
    """Each module in its own thread, ``calls`` times forward and backward; the
    calls whose output or constants' gradient differ from a lone call's."""
    expected = []
    for module in modules:
        module.zero_grad()
        module(X).sum().backward()
        expected.append(
            (module(X).detach(), [p.grad.clone() for p in module.parameters()])
        )
    wrong = []

    def work(module, want):
        for _ in range(calls):
            module.zero_grad()
            y = module(X)
            y.sum().backward()
            grads = [p.grad for p in module.parameters()]
            same = torch.equal(y.detach(), want[0]) and all(
                torch.equal(a, b) for a, b in zip(grads, want[1])
            )
            if not same:
                wrong.append(module)

    threads = [
        threading.Thread(target=work, args=(m, e)) for m, e in zip(modules, expected)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return wrong


def two(make):
    first, second = make(), make()
    with torch.no_grad():
        for p in second.parameters():
            p.fill_(3.0)
    return [first, second]


def test_layers_of_one_formula_in_two_threads():
    layers = two(lambda: symnb.to_torch_layer([ACT, ACT], dim=-1, learnable=True))
    assert hammer(layers) == []


def test_numpy_backend_activations_in_two_threads():
    acts = two(lambda: ACT.to_torch(learnable=True, backend="numpy"))
    assert hammer(acts) == []


def test_cpp_activations_in_two_threads():
    acts = two(lambda: ACT.to_torch(learnable=True, backend="cpp"))
    assert hammer(acts) == []


def test_a_constants_address_stays_valid_while_other_threads_fill_the_cache():
    kernel = ACT.compile(backend="cpp", dtype="float64")
    native = native_module.NativeElementwise.of(kernel)
    if native is None:
        pytest.skip("no cpp kernel (no compiler)")
    address = native.constants_address([0.625])

    def churn():
        for k in range(3 * native_module.CONSTANT_BUFFERS):
            native.constants_address([1.0 + k])

    thread = threading.Thread(target=churn)
    thread.start()
    thread.join()
    # this thread has not asked for another vector: its last one is still held
    held = native_module._view(address, 1, np.dtype(np.float64))
    assert held[0] == 0.625
