"""Seventeenth probe of the research faces: the tables of ``compare``.

``CompareResult.to_pandas()`` and ``runs_to_pandas()`` gave ``epochs_to_target``
dtype ``object`` (None in every row) when no run reached the target and float64 when
one did: two sweeps' frames concatenated to ``object``, and ``.mean()``,
``.plot()`` and ``.astype`` depended on the outcome. The column is float64 with
NaN for "never", whatever the runs did.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from symnb import nn

pd = pytest.importorskip("pandas")

OPTIONS = {"hidden": (4,), "backend": "numpy", "progress": False}


def _data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    y[:6] = 1 - y[:6]  # six flipped labels: accuracy 1.0 is out of reach
    return X, y


def test_epochs_to_target_is_float_when_no_run_reaches_it():
    X, y = _data()
    # all of 40 noisy labels right after 2 epochs: "never" in every run
    result = nn.compare(
        ["relu", "tanh"], (X, y), seeds=(0, 1), epochs=2, target=1.0, **OPTIONS
    )
    table = result.to_pandas()
    assert table["epochs_to_target"].dtype == np.float64
    assert table["epochs_to_target"].isna().all()
    runs = result.runs_to_pandas()
    assert runs["epochs_to_target"].dtype == np.float64
    assert runs["epochs_to_target"].isna().all()
    # the text columns stay text, the error column None
    assert runs["status"].tolist() == ["ok"] * 4
    assert runs["error"].isna().all() and runs["error"].dtype == object
    long = result.to_pandas(wide=False)
    assert long["epochs_to_target"].dtype == np.float64


def test_frames_of_two_sweeps_concatenate_as_numbers():
    X, y = _data()
    never = nn.compare(["relu"], (X, y), seeds=(0,), epochs=2, target=1.0, **OPTIONS)
    soon = nn.compare(
        ["tanh"], (X, y), seeds=(0, 1), epochs=20, target=0.3, lr=0.05, **OPTIONS
    )
    both = pd.concat([never.to_pandas(), soon.to_pandas()])
    column = both["epochs_to_target"]
    assert column.dtype == np.float64
    assert math.isnan(column["relu"])
    # the mean of the runs that reached it, from the runs themselves
    reached = [r["epochs_to_target"] for r in soon.runs if r["epochs_to_target"]]
    assert reached, "the easy target should be reached"
    assert column["tanh"] == pytest.approx(np.mean(reached))


def test_several_data_sets_wide_table_keeps_float_columns():
    X, y = _data()
    result = nn.compare(
        ["relu"],
        {"a": (X, y), "b": (X, 1 - y)},
        seeds=(0,),
        epochs=2,
        target=1.0,
        **OPTIONS,
    )
    wide = result.to_pandas()
    assert wide[("a", "epochs_to_target")].dtype == np.float64
    assert wide[("b", "epochs_to_target")].dtype == np.float64
