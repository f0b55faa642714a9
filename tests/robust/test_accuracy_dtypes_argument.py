"""``Activation.accuracy(dtypes=...)`` / ``symnb.robust.accuracy``: a dtypes value
that is no dtype name or list of them is refused naming ``dtypes``. Before,
``dtypes=None`` and ``dtypes=5`` raised "'NoneType' object is not iterable" from
inside, and ``dtypes=()`` returned a report that "passes" having measured nothing."""

from __future__ import annotations

import numpy as np
import pytest

import symnb


@pytest.fixture(scope="module")
def tanh():
    return symnb.activation("tanh")


@pytest.mark.parametrize("dtypes", [None, 5, (), []])
def test_dtypes_that_name_no_dtype_are_refused(tanh, dtypes) -> None:
    with pytest.raises(TypeError) as info:
        tanh.accuracy(dtypes=dtypes)
    assert str(info.value).startswith("dtypes must be 'float32', 'float64' or a ")


@pytest.mark.parametrize("dtypes", ["float32", np.float32, np.dtype("float32")])
def test_one_dtype_is_one_report(tanh, dtypes) -> None:
    report = tanh.accuracy(dtypes=dtypes)
    assert report.passes
    assert repr(report) == repr(tanh.accuracy(dtypes=("float32",)))
