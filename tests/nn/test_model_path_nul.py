"""MLP.save / symnb.nn.load with a NUL character in the path raised the OS layer's bare
"ValueError: embedded null byte", naming neither the call nor the path."""

from __future__ import annotations

import pytest

from symnb.nn import MLP, load


@pytest.mark.parametrize("path", ["model\0.npz", b"dir/\0model.npz"])
def test_nul_in_the_path_is_named(tmp_path, monkeypatch, path) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"^save: path .* contains a NUL character"):
        MLP([2, 3, 1]).save(path)
    with pytest.raises(ValueError, match=r"^load: path .* contains a NUL character"):
        load(path)
    assert list(tmp_path.iterdir()) == []
