"""A relative ``SYMNB_CACHE_DIR`` (``cache``) followed the working directory: a
notebook that changed it (``os.chdir``, ``%cd``) read and wrote another cache. It
is now made absolute once, against the working directory when first read."""

from __future__ import annotations

import uuid

import pytest

from symnb import config
from symnb.backends import cache


@pytest.fixture
def relative(tmp_path, monkeypatch):
    """A fresh relative SYMNB_CACHE_DIR, read from folder a; folder b is the next."""
    name = f"cache-{uuid.uuid4().hex}"
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    monkeypatch.setenv("SYMNB_CACHE_DIR", name)
    monkeypatch.chdir(first)
    return name, first, second


def test_relative_setting_is_resolved_once(relative, monkeypatch) -> None:
    name, first, second = relative
    assert config.cache_dir() == first / name
    monkeypatch.chdir(second)
    assert config.cache_dir() == first / name


def test_the_kernel_cache_stays_where_it_was_opened(relative, monkeypatch) -> None:
    name, first, second = relative
    cache._reset_default_cache()
    try:
        root = cache.default_cache().root
        monkeypatch.chdir(second)
        again = cache.default_cache().root
        assert root.is_absolute() and again == root
        assert root.resolve() == (first / name).resolve()
        assert not (second / name).exists()
    finally:
        cache._reset_default_cache()


def test_xdg_relative_base_is_absolute_too(tmp_path, monkeypatch) -> None:
    name = f"xdg-{uuid.uuid4().hex}"
    monkeypatch.delenv("SYMNB_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", name)
    monkeypatch.chdir(tmp_path)
    assert config.cache_dir() == tmp_path / name / "symnb"


def test_absolute_and_home_settings_are_kept(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SYMNB_CACHE_DIR", str(tmp_path / "c"))
    assert config.cache_dir() == tmp_path / "c"
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("SYMNB_CACHE_DIR", "~/k")
    assert config.cache_dir() == tmp_path / "k"


@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_a_blank_setting_is_unset(tmp_path, monkeypatch, blank) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("SYMNB_CACHE_DIR", blank)
    monkeypatch.chdir(tmp_path)
    assert config.cache_dir() == tmp_path / "xdg" / "symnb"
