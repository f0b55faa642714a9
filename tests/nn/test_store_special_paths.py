"""A store path that leads to a FIFO, a device, or through a link to a missing folder
is named as such.

Before, SQLite's "disk I/O error" came with "if another process holds it, wait for
it" for a FIFO or /dev/null, and a dangling link said "the folder ... is read-only or
not writable" of a writable folder.
"""

from __future__ import annotations

import os

import pytest

from symnb.nn.store import RunStore


def test_a_fifo_is_named(tmp_path):
    fifo = tmp_path / "runs.db"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"runs.db' is a FIFO, not a regular file"):
        RunStore(fifo)


def test_a_device_is_named():
    with pytest.raises(ValueError, match=r"'/dev/null' is a device, not a regular"):
        RunStore("/dev/null")


def test_a_link_to_a_missing_folder_names_the_folder(tmp_path):
    link = tmp_path / "runs.db"
    missing = tmp_path / "gone" / "runs.db"
    link.symlink_to(missing)
    with pytest.raises(FileNotFoundError) as info:
        RunStore(link)
    text = str(info.value)
    assert f"a link to {str(missing)!r}" in text
    assert f"the folder {str(missing.parent)!r} does not exist" in text


def test_a_link_to_a_new_file_in_a_folder_creates_it(tmp_path):
    (tmp_path / "data").mkdir()
    link = tmp_path / "runs.db"
    link.symlink_to(tmp_path / "data" / "runs.db")
    with RunStore(link) as store:
        assert len(store) == 0
    assert (tmp_path / "data" / "runs.db").is_file()


def test_a_file_as_folder_and_a_name_too_long_are_named(tmp_path):
    """Were "the folder '.../afile' does not exist" (it does, as a file) and "the
    folder is read-only or not writable" (it is writable)."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(NotADirectoryError, match="a part of the path is a file"):
        RunStore(afile / "runs.db")
    with pytest.raises(OSError, match="File name too long; choose a shorter name"):
        RunStore(tmp_path / ("r" * 300 + ".db"))
