"""MLP(masks=...) given something other than a list or dict of per-layer masks:
masks=3 raised "'int' object is not iterable", a string was read as one mask per
character ("could not convert string to float"), and one array as one mask per row
("masks has 2 entries but the network has 2 layers" passed, then "the mask of layer
0 has shape (4,)"). Now a TypeError says what masks is, with an example."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLP


@pytest.mark.parametrize("masks", [3, "xy", np.ones((2, 4)), 2.5], ids=repr)
def test_masks_that_are_no_list_are_refused(masks) -> None:
    with pytest.raises(TypeError, match=r"masks must be a list with one 0/1 array"):
        MLP([2, 4, 1], masks=masks, backend="numpy")


def test_a_mask_that_is_no_array_names_its_layer() -> None:
    with pytest.raises(TypeError, match=r"the mask of layer 1 must be an array"):
        MLP([2, 4, 1], masks=[None, "ab"], backend="numpy")


def test_a_list_mask_still_masks_the_weights() -> None:
    mask = np.array([[1, 0, 1, 0], [0, 1, 0, 1]], dtype=float)
    model = MLP([2, 4, 1], masks=[mask, None], backend="numpy", seed=0)
    weight = model.layers[0].weight.numpy()
    assert np.all(weight[mask == 0] == 0)
    assert np.all(weight[mask == 1] != 0)
