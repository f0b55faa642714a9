"""``compare`` with a blank name in its dicts: ``{'': 'relu', ' ': 'tanh'}`` (or a
blank data set label) gave table rows, plot legends and stored runs without a name
that tell the runs apart. Refused, naming the argument."""

from __future__ import annotations

import pytest

from symnb import datasets, nn

X, Y = datasets.two_moons(40, seed=0)
FAST = {"hidden": (3,), "epochs": 1, "seeds": [0], "progress": False}


@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_activation_name_is_refused(blank, counted) -> None:
    with pytest.raises(ValueError) as info:
        nn.compare({blank: "relu", "tanh": "tanh"}, (X, Y), **FAST)
    message = str(info.value)
    assert f"compare: activation name {blank!r} is blank" in message
    assert counted == []  # refused before any training


def test_a_blank_data_set_label_is_refused() -> None:
    with pytest.raises(ValueError, match=r"compare: data set label '' is blank"):
        nn.compare(["relu"], {"": (X, Y)}, **FAST)


def test_named_rows_keep_their_names() -> None:
    result = nn.compare({"a": "relu", "b": "tanh"}, {"moons": (X, Y)}, **FAST)
    assert result.activations == ["a", "b"]
