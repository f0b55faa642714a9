"""``to_source(dialect=...)`` and ``to_numba(target=...)`` read their option as
backend names are read (``select.check_backend``: any case, spaces around);
``to_numba(target='CPU')`` and ``to_source('CUDA')`` were refused. Anything else is a
ValueError naming the option and the accepted values."""

from __future__ import annotations

import math

import pytest

import symnb
from symnb.interop.source import to_source

ACT = symnb.Activation("x*sigmoid(beta*x)", beta=1.5, name="sw_option")


@pytest.mark.parametrize("spelling", ["CUDA", "Cuda", " cuda ", "cuda"])
def test_to_source_dialect_in_any_case(spelling):
    assert ACT.to_source(spelling) == ACT.to_source("cuda")
    assert to_source(ACT, dialect=spelling) == ACT.to_source("cuda")


@pytest.mark.parametrize("spelling", ["CPP", "Cpp", "cpp\n"])
def test_to_source_cpp_in_any_case(spelling):
    assert ACT.to_source(spelling) == ACT.to_source("cpp")


@pytest.mark.parametrize("dialect", ["c++", "opencl", "", ["cuda"], None])
def test_to_source_other_dialects_name_the_accepted(dialect):
    with pytest.raises(ValueError, match=r"dialect must be 'cpp' or 'cuda'"):
        ACT.to_source(dialect)


@pytest.mark.parametrize("spelling", ["CPU", "Cpu", " cpu "])
def test_to_numba_target_in_any_case(spelling):
    pytest.importorskip("numba")
    fns = ACT.to_numba(target=spelling)
    assert fns.target == "cpu"
    x = 0.75
    assert fns.f(x) == pytest.approx(x / (1 + math.exp(-1.5 * x)), rel=1e-14)


@pytest.mark.parametrize("target", ["gpu", "cpu0", 1, None])
def test_to_numba_other_targets_name_the_accepted(target):
    with pytest.raises(ValueError, match=r"target must be 'cpu' or 'cuda'"):
        ACT.to_numba(target=target)
