"""MLP.save when the write or the rename fails (a full disk, a refused rename) raised
the bare OSError ("[Errno 28] No space left on device") naming no file. Now the error
keeps its type and errno, names the path, and says the previous file is unchanged;
no temporary file is left behind. Faults are injected (CI runs as root)."""

from __future__ import annotations

import errno
import io
import os

import numpy as np
import pytest

from symnb.nn import MLP, load


class _FullDisk(io.RawIOBase):
    def __init__(self, fd: int) -> None:
        self._fd = fd

    def write(self, data) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def __exit__(self, *exc) -> None:
        os.close(self._fd)


def _model() -> MLP:
    return MLP([2, 3, 1], seed=0)


def test_full_disk_names_the_path_and_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "model.npz"
    old = _model()
    old.save(path)
    new = MLP([2, 3, 1], seed=1)
    monkeypatch.setattr(os, "fdopen", lambda fd, mode: _FullDisk(fd))
    with pytest.raises(OSError) as info:
        new.save(path)
    monkeypatch.undo()
    assert info.value.errno == errno.ENOSPC
    assert str(path) in str(info.value) and "unchanged" in str(info.value)
    assert sorted(os.listdir(tmp_path)) == ["model.npz"]
    np.testing.assert_array_equal(
        load(path).get_flat_parameters(), old.get_flat_parameters()
    )


def test_refused_rename_names_the_path(tmp_path, monkeypatch):
    path = tmp_path / "new.npz"

    def refuse(src, dst):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(PermissionError) as info:
        _model().save(path)
    assert str(path) in str(info.value) and "nothing was written" in str(info.value)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []
