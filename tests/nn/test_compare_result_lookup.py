"""CompareResult lookups: ``result["relu", "circles"]`` on a comparison of one data
set returned relu's row whatever the label (another data set's name too), without a
word; unknown names were a bare KeyError. Both now name what there is."""

from __future__ import annotations

import pytest

from symnb import nn

OPTIONS = {"hidden": (4,), "epochs": 1, "progress": False, "seeds": [0]}


@pytest.fixture(scope="module")
def single():
    return nn.compare(["relu", "tanh"], "xor", **OPTIONS)


@pytest.fixture(scope="module")
def several():
    return nn.compare(["relu"], ["xor", "circles"], **OPTIONS)


def test_a_label_of_another_data_set_is_refused(single):
    assert single["relu", "xor"] is single["relu"]
    with pytest.raises(KeyError, match=r"'circles'.*not a data set.*\['xor'\]"):
        single["relu", "circles"]


def test_unknown_names_are_named_with_what_there_is(single, several):
    with pytest.raises(
        KeyError, match=r"'selu'.*not an activation.*\['relu', 'tanh'\]"
    ):
        single["selu"]
    with pytest.raises(KeyError, match=r"'selu'.*\['relu'\]"):
        several["selu", "xor"]
    with pytest.raises(KeyError, match=r"'moons'.*\['xor', 'circles'\]"):
        several["relu", "moons"]
    with pytest.raises(KeyError, match=r"\(activation, data set\)"):
        several["relu", "xor", "extra"]
    assert several["relu", "circles"]["dataset"] == "circles"
