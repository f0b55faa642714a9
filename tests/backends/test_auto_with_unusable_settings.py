"""backend='auto' passed over what a setting asked for without a word:
``SYMNB_CXX=/opt/gcc/bin/g++`` with a typo in the path, or ``SYMNB_BACKEND=cuda`` on
a machine without a usable GPU, made every kernel another backend's (NumPy's: ~10x
slower) and nothing said why. Now one FallbackWarning per session and setting names
the setting, the reason and the backend used; a setting that works warns nothing."""

from __future__ import annotations

import warnings

import pytest

from symnb.backends import select
from symnb.backends.base import BackendStatus


@pytest.fixture
def statuses(monkeypatch):
    def use(**usable: bool) -> None:
        def status(name: str) -> BackendStatus:
            ok = usable.get(name, name == "numpy")
            return BackendStatus(name, ok, "" if ok else f"{name} broken", "fix it")

        monkeypatch.setattr(select, "status", status)
        monkeypatch.setattr(select, "_settings_warned", set())

    return use


def test_a_broken_compiler_setting_warns_once(monkeypatch, statuses) -> None:
    monkeypatch.setenv("SYMNB_CXX", "/nonexistent/g++")
    monkeypatch.delenv("SYMNB_BACKEND", raising=False)
    statuses(cuda=False, cpp=False)
    with pytest.warns(select.FallbackWarning) as caught:
        assert select.resolve("auto") == "numpy"
    (message,) = [str(w.message) for w in caught]
    assert "SYMNB_CXX=/nonexistent/g++" in message and "cpp broken" in message
    assert "'numpy'" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert select.resolve("auto") == "numpy"  # once per session


def test_an_unusable_preferred_backend_warns(monkeypatch, statuses) -> None:
    monkeypatch.setenv("SYMNB_BACKEND", "cuda")
    monkeypatch.delenv("SYMNB_CXX", raising=False)
    statuses(cuda=False, cpp=True)
    with pytest.warns(select.FallbackWarning, match="SYMNB_BACKEND=cuda"):
        assert select.resolve("auto") == "cpp"


def test_working_settings_warn_nothing(monkeypatch, statuses) -> None:
    monkeypatch.setenv("SYMNB_CXX", "g++")
    monkeypatch.setenv("SYMNB_BACKEND", "cpp")
    statuses(cuda=False, cpp=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert select.resolve("auto") == "cpp"
