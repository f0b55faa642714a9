"""save/load of a path the file system refuses name the action and the fix.

Before, a file used as a folder gave the bare "[Errno 20] Not a directory: ..." and a
name past the file system's limit "[Errno 36] File name too long: ...": neither said
what was being done nor what to change. The errno and exception type stay the same.
"""

from __future__ import annotations

import errno

import pytest

from symnb import nn


@pytest.fixture(scope="module")
def model():
    return nn.MLP([2, 3, 1], backend="numpy")


def _paths(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    return {
        "file as folder": (afile / "model.npz", errno.ENOTDIR, "a part of the path"),
        "name too long": (
            tmp_path / ("m" * 300 + ".npz"),
            errno.ENAMETOOLONG,
            "choose a shorter name",
        ),
    }


@pytest.mark.parametrize("case", ["file as folder", "name too long"])
def test_save_and_load_name_the_action_and_the_fix(model, tmp_path, case):
    path, number, fix = _paths(tmp_path)[case]
    actions = {
        "cannot save the model as": lambda: model.save(path),
        "cannot load a model from": lambda: nn.load(path),
    }
    for words, call in actions.items():
        with pytest.raises(OSError) as info:
            call()
        assert info.value.errno == number
        assert f"{words} {str(path)!r}" in str(info.value)
        assert fix in str(info.value)
