"""What a kernel says about input NumPy can only hold as Python objects (probe 17).

Before, every such input got "x has dtype object ... convert it to numbers first (e.g.
.astype(float))": a generator has no ``.astype`` (and ``np.asarray`` of one is a single
object), and ``None`` or a dict cannot be converted at all. Now the message names what
was found and what works; entries that ``float()`` converts keep the conversion advice.
"""

from __future__ import annotations

import fractions

import numpy as np
import pytest

import symnb


@pytest.fixture(scope="module")
def kernel():
    return symnb.Activation("x*sigmoid(x)").compile(backend="numpy", dtype="float64")


def _values():
    yield 1.0
    yield 2.0


def test_a_generator_is_named_with_the_conversions_that_work(kernel):
    with pytest.raises(TypeError, match=r"generator.*list\(x\).*np\.fromiter"):
        kernel.forward(_values())
    # the advice is right: both conversions compute
    want = np.array([1.0, 2.0]) / (1 + np.exp(-np.array([1.0, 2.0])))
    assert np.allclose(kernel.forward(list(_values())), want, rtol=1e-15)
    assert np.allclose(
        kernel.forward(np.fromiter(_values(), dtype=float)),
        want,
        rtol=1e-15,
    )


def test_a_missing_value_is_named_with_its_index(kernel):
    with pytest.raises(TypeError, match=r"None at index 1 \(a missing value\)"):
        kernel.forward(np.array([1.0, None, 3.0], dtype=object))
    with pytest.raises(TypeError, match=r"None at index \(1, 0\)"):
        kernel.backward([[1.0], [None]], [[1.0], [1.0]])


def test_an_entry_of_another_type_is_named(kernel):
    with pytest.raises(TypeError, match=r"holds a dict at index 0"):
        kernel.forward({1: 2})


def test_fractions_keep_the_conversion_advice(kernel):
    x = np.array([fractions.Fraction(1, 3)], dtype=object)
    with pytest.raises(TypeError, match=r"np\.asarray\(x, dtype=float\)"):
        kernel.forward(x)
    assert np.allclose(
        kernel.forward(np.asarray(x, dtype=float)), (1 / 3) / (1 + np.exp(-1 / 3))
    )
