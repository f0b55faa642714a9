"""Interop arguments spelled as other parts of symnb accept them, or refused naming
the argument: ``to_source(dtype=np.float32)`` (compile takes it; to_source said
"must be 'float32'", and ``dtype=['float32']`` was "unhashable type: 'list'"), a
to_numba function called with an integer beyond 64 bits (numba's "non-precise type
pyobject" from deep inside its typing), ``to_torch_layer(dim=np.int64(1))`` (an
index taken from a NumPy shape was refused)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symnb

ACT = symnb.Activation("x*sigmoid(beta*x)", beta=1.5, name="sw_spell")


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        (np.float32, "float32"),
        (np.dtype("float32"), "float32"),
        ("f4", "float32"),
        (np.float64, "float64"),
        (np.dtype("float64"), "float64"),
        ("double", "float64"),
    ],
)
def test_to_source_takes_the_dtype_spellings_compile_takes(spelling, name):
    assert ACT.to_source(dtype=spelling) == ACT.to_source(dtype=name)
    assert ACT.compile(backend="numpy", dtype=spelling).dtype == np.dtype(name)


@pytest.mark.parametrize("dtype", [["float32"], None, "float16", {"a": 1}])
def test_to_source_names_a_bad_dtype(dtype):
    with pytest.raises(ValueError, match="dtype"):
        ACT.to_source(dtype=dtype)


@pytest.mark.parametrize("dialect", [["cpp"], None, {"cpp": 1}, b"cpp"])
def test_to_source_names_a_bad_dialect(dialect):
    with pytest.raises(ValueError, match="dialect must be 'cpp' or 'cuda'"):
        ACT.to_source(dialect=dialect)


def test_numba_names_an_integer_beyond_64_bits():
    pytest.importorskip("numba")
    nb = ACT.to_numba()
    with pytest.raises(TypeError, match=r"x is an integer beyond 64 bits.*float\(x\)"):
        nb.f(10**30)
    with pytest.raises(TypeError, match=r"beta is an integer beyond 64 bits"):
        nb.f(1.0, -(10**30))
    big = 2**64 - 1  # numba's uint64
    assert nb.f(big) == pytest.approx(big / (1 + math.exp(-1.5 * big)))
    assert nb.f(float(10**30)) == pytest.approx(1e30)


def test_torch_layer_takes_a_numpy_integer_dim():
    torch = pytest.importorskip("torch")
    x = torch.linspace(-2, 2, 12).reshape(2, 3, 2)
    for dim in (np.int64(1), np.int32(-2)):
        layer = symnb.to_torch_layer([ACT, "tanh", "relu"], dim=dim)
        assert type(layer.dim) is int
        want = symnb.to_torch_layer([ACT, "tanh", "relu"], dim=1)(x)
        torch.testing.assert_close(layer(x), want)
    for bad in (True, 1.0, "1", np.float64(1.0)):
        with pytest.raises(TypeError, match="dim must be an int"):
            symnb.to_torch_layer([ACT], dim=bad)
