"""Size limits of ``symnb.Activation``/``symnb.Loss`` in the Python API, as in
``%%symact``: a 10 MB name was kept (and shown whole in every message), 100,000
constants took 10 s to read, and 5,000 unused ones ran g++ past its timeout."""

from __future__ import annotations

import time

import numpy as np
import pytest

import symnb
from symnb.checks import MAX_CONSTANTS, MAX_NAME_CHARS
from symnb.errors import FormulaError
from symnb.notebook import syntax


def test_the_magic_and_the_api_share_the_name_limit() -> None:
    assert syntax.MAX_NAME_CHARS == MAX_NAME_CHARS == 100


@pytest.mark.parametrize("cls", [symnb.Activation, symnb.Loss])
def test_a_huge_name_is_refused_fast(cls) -> None:
    text = "x" if cls is symnb.Activation else "(y_pred - y_true)**2"
    start = time.perf_counter()
    with pytest.raises(FormulaError) as info:
        cls(text, name="a" * 10_000_000, _register=False)
    assert time.perf_counter() - start < 1.0
    message = str(info.value)
    assert "name" in message and "10,000,000 characters" in message
    assert "at most 100" in message and len(message) < 400


def test_a_name_at_the_limit_is_kept() -> None:
    act = symnb.Activation("2*x", name="n" * MAX_NAME_CHARS, _register=False)
    assert act.name == "n" * MAX_NAME_CHARS


def test_a_long_constant_name_is_refused() -> None:
    with pytest.raises(FormulaError, match="constant name .* 101 characters"):
        symnb.Activation("x", **{"c" * 101: 1.0})


def test_too_many_constants_are_refused_fast() -> None:
    constants = {f"c{i}": 1.0 for i in range(100_000)}
    start = time.perf_counter()
    with pytest.raises(FormulaError) as info:
        symnb.Activation("x*c0", **constants)
    assert time.perf_counter() - start < 1.0
    assert "100,000 constants" in str(info.value)
    assert f"at most {MAX_CONSTANTS}" in str(info.value)


def test_the_most_constants_allowed_still_work() -> None:
    constants = {f"c{i}": 1.0 for i in range(MAX_CONSTANTS)}
    constants["c0"] = 3.0
    act = symnb.Activation("x*c0", **constants)
    kernel = act.compile("numpy", dtype="float64")
    np.testing.assert_array_equal(kernel.forward(np.array([1.0, -2.0])), [3.0, -6.0])


@pytest.mark.parametrize("name", ["my swish", "λ-swish", "élu (α = 0.5)", "ReLU²"])
def test_display_names_with_spaces_and_letters_are_kept(name) -> None:
    assert symnb.Activation("2*x", name=name, _register=False).name == name
