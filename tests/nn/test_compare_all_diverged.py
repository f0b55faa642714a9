"""``best()`` of a comparison whose every run diverged says so (h119's probe: it said
"no values of 'accuracy' to rank", naming neither the divergence nor the fix)."""

from __future__ import annotations

import pytest

from symnb import nn


def test_best_names_the_divergence():
    result = nn.compare(
        {"blows_up": "exp(x**2)"},
        "two_moons",
        seeds=(0,),
        hidden=[4],
        epochs=2,
        lr=100.0,
        progress=False,
    )
    assert result["blows_up"]["diverged"] == 1  # the run diverged, and is recorded
    with pytest.raises(ValueError, match=r"every run diverged or failed \(1 diverged"):
        result.best()
