"""Names of activations and data sets that are not strings. Data set labels were
written as text, so ``{1: A, "1": B}`` gave two data sets the label '1': B replaced
A, and both rows reported B's runs (A was never trained, without a word).
Activation names were kept as given: a tuple or object key trained its first run,
then writing it to the store raised sqlite3's ProgrammingError, which ended the
sweep and lost the runs. Keys that are not strings are now refused before any run
(tests/nn/test_boundary_probe15b.py): ``{1: "relu"}`` gave a row named '1' that
``result[1]`` did not find."""

from __future__ import annotations

import numpy as np
import pytest

from symnb import nn

RNG = np.random.default_rng(0)
XA = RNG.normal(size=(40, 2))
YA = (XA[:, 0] > 0).astype(int)
XB = RNG.normal(size=(40, 2))
YB = (XB[:, 1] > 0).astype(int)
OPTIONS = {"hidden": (4,), "epochs": 2, "progress": False, "seeds": [0]}


def test_data_set_labels_that_read_the_same_are_refused(counted):
    with pytest.raises(TypeError, match=r"dataset has the data set label 1 \(int\)"):
        nn.compare(["tanh"], {1: (XA, YA), "1": (XB, YB)}, **OPTIONS)
    assert counted == []


def test_data_set_labels_that_differ_keep_their_own_runs():
    both = nn.compare(["tanh"], {"1": (XA, YA), "2": (XB, YB)}, **OPTIONS)
    alone_a = nn.compare(["tanh"], (XA, YA), **OPTIONS)
    alone_b = nn.compare(["tanh"], (XB, YB), **OPTIONS)
    rows = {row["dataset"]: row["accuracy_mean"] for row in both.rows}
    assert rows == {
        "1": alone_a.scores()["tanh"],
        "2": alone_b.scores()["tanh"],
    }


def test_activation_names_that_read_the_same_are_refused(counted):
    with pytest.raises(TypeError, match=r"activation name 1 \(int\)"):
        nn.compare({1: "tanh", "1": "relu"}, (XA, YA), **OPTIONS)
    assert counted == []


@pytest.mark.parametrize("name", [(2,), 7, None])
def test_an_activation_name_that_is_no_string_is_refused(tmp_path, name, counted):
    store = tmp_path / "runs.db"
    with pytest.raises(TypeError, match="give text"):
        nn.compare({name: "tanh", "b": "relu"}, (XA, YA), store=store, **OPTIONS)
    assert counted == []
    result = nn.compare(
        {str(name): "tanh", "b": "relu"}, (XA, YA), store=store, **OPTIONS
    )
    assert set(result.scores()) == {str(name), "b"}
    with nn.RunStore(store) as runs:
        assert sorted(runs.to_pandas()["activation"]) == sorted([str(name), "b"])


@pytest.mark.parametrize(
    ("activations", "dataset", "words"),
    [
        ({"x" * 10_000: "relu"}, "xor", "compare: activation name 'xxx"),
        ({"a\nb": "relu"}, "xor", "compare: activation name 'a\\nb' holds"),
        (["relu"], {"x" * 101: "xor"}, "compare: data set label 'xxx"),
        (["relu"], {"moons\t2": "two_moons"}, "compare: data set label 'moons\\t2'"),
    ],
)
def test_labels_are_checked_as_names(activations, dataset, words):
    """compare({'x' * 10_000: 'relu'}, ...) trained, then plot_spread took a minute
    to draw the label; a newline in a label was kept. Labels now follow the rules of
    activation names (at most 100 printable characters)."""
    from symnb.errors import FormulaError

    with pytest.raises(FormulaError) as info:
        nn.compare(activations, dataset, seeds=[0], epochs=1, progress=False)
    assert words in str(info.value)
