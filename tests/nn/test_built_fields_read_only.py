"""MLP.sizes, dtype, task, backend... were plain attributes: ``m.sizes = [2, 5, 1]``
was kept and the next fit failed inside NumPy ("output array has wrong
dimensions"); ``m.dtype = "float16"`` failed with "'str' object has no attribute
'itemsize'". They describe the network as built: assigning one is now an
AttributeError naming it and saying to build a new network; the model still
trains, pickles, copies, saves and loads."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from symnb import nn

X = np.random.default_rng(0).normal(size=(16, 2))
Y = X[:, 0]


@pytest.mark.parametrize(
    ("attr", "value"),
    [
        ("sizes", [2, 5, 1]),
        ("dtype", "float16"),
        ("task", "binary"),
        ("backend", "cpp"),
        ("layers", []),
    ],
)
def test_assigning_a_built_field_is_refused_by_name(attr, value) -> None:
    model = nn.MLP([2, 3, 1], backend="numpy", seed=0)
    before = getattr(model, attr)
    with pytest.raises(AttributeError, match=rf"MLP\.{attr} is fixed"):
        setattr(model, attr, value)
    assert getattr(model, attr) is before
    model.fit(X, Y, epochs=1)


def test_the_model_still_copies_pickles_and_loads(tmp_path) -> None:
    model = nn.MLP([2, 3, 1], backend="numpy", seed=0)
    model.fit(X, Y, epochs=1)
    model.seed = 5  # not a built field
    for clone in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        np.testing.assert_array_equal(clone.predict(X), model.predict(X))
    model.save(tmp_path / "m.npz")
    loaded = nn.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    loaded.fit(X, Y, epochs=1)
