"""Faults around the C++ compiler: its own deadline, Ctrl-C, a full cache disk, and
temporary directories left behind (issue 9, items 5, 7, 8).

The compiler is replaced by small shell scripts (``SYMNB_CXX``); the Python side runs in
a child process where the test needs to kill or interrupt it.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import symnb
from symnb.backends import cache as cache_mod
from symnb.backends import cpp

pytestmark = pytest.mark.skipif(
    not cpp.probe().usable, reason="cpp backend: no usable C++ compiler here"
)

ROOT = Path(__file__).resolve().parents[2]


def _sleeping_compiler(tmp_path: Path) -> tuple[Path, Path]:
    """A 'compiler' that records its pid and sleeps for a minute."""
    pidfile = tmp_path / "cxx.pid"
    fake = tmp_path / "sleepy-cxx"
    fake.write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec sleep 60\n")
    fake.chmod(0o755)
    return fake, pidfile


def _child(code: str, env: dict[str, str]) -> subprocess.Popen:
    full_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=str(ROOT),
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait_for(path: Path, seconds: float = 30.0) -> int:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _gone_within(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return not _alive(pid)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


_COMPILE = """
import tempfile
from pathlib import Path
from symnb.backends import cpp
from symnb.backends.base import BackendStatus
cpp.DEADLINE_GRACE = 0.5
if {no_timeout}:  # as on a system without coreutils' timeout: the Python watchdog
    which = cpp.shutil.which
    cpp.shutil.which = lambda name: None if name == "timeout" else which(name)
try:
    cpp.compile_source("int x;", Path(tempfile.gettempdir()) / "never.so",
                       BackendStatus("cpp", True), timeout={timeout})
except KeyboardInterrupt:
    print("interrupted")
"""


@pytest.mark.parametrize("no_timeout", [False, True], ids=["timeout", "watchdog"])
def test_compiler_deadline_holds_after_python_is_killed(tmp_path, no_timeout) -> None:
    """A SIGKILLed Python cannot enforce its timeout: the compiler's own deadline does."""
    fake, pidfile = _sleeping_compiler(tmp_path)
    code = _COMPILE.format(timeout=1.5, no_timeout=no_timeout)
    proc = _child(code, {"SYMNB_CXX": str(fake)})
    pid = _wait_for(pidfile)
    try:
        proc.kill()
        proc.wait(timeout=10)
        assert _alive(pid), "the fake compiler should still run right after the kill"
        assert _gone_within(pid, 15.0), "the compiler outlived its deadline"
    finally:
        _kill(pid)


def test_ctrl_c_during_compile_leaves_no_work_directory(tmp_path: Path) -> None:
    fake, pidfile = _sleeping_compiler(tmp_path)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    proc = _child(
        _COMPILE.format(timeout=60, no_timeout=False),
        {"SYMNB_CXX": str(fake), "TMPDIR": str(tmpdir)},
    )
    pid = _wait_for(pidfile)
    try:
        assert list(tmpdir.glob("symnb-cpp-*")), "the compile should have started"
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
        assert "interrupted" in out
        assert not list(tmpdir.glob("symnb-cpp-*"))
        assert _gone_within(pid, 5.0), "Ctrl-C left the compiler running"
    finally:
        _kill(pid)


def test_fallback_cache_directory_is_removed_at_exit(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "cache-is-a-file"
    not_a_dir.write_text("")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    proc = _child(
        """
        import warnings
        warnings.simplefilter("ignore")
        from symnb.backends.cache import default_cache
        cache = default_cache()
        cache.get_or_build({"k": "v"}, ".bin", lambda p: p.write_bytes(b"kernel"))
        print(cache.fallback_reason is not None, cache.root)
        """,
        {"SYMNB_CACHE_DIR": str(not_a_dir), "TMPDIR": str(tmpdir)},
    )
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    fell_back, root = out.strip().splitlines()[-1].split(" ", 1)
    assert fell_back == "True" and root.startswith(str(tmpdir))
    assert not Path(root).exists()
    assert not list(tmpdir.glob("symnb-cache-*"))


@pytest.fixture
def fresh_cache(monkeypatch, tmp_path):
    root = tmp_path / "cache"
    monkeypatch.setenv("SYMNB_CACHE_DIR", str(root))
    cache_mod._reset_default_cache()
    yield root
    cache_mod._reset_default_cache()


def test_full_disk_when_writing_the_library_falls_back(fresh_cache, monkeypatch):
    """The write probe fits, the library does not: use a temporary cache, not fail."""
    real_copy = shutil.copyfile

    def disk_full(src, dst, *args, **kwargs):
        if Path(dst).parent == fresh_cache:
            raise OSError(errno.ENOSPC, "No space left on device", str(dst))
        return real_copy(src, dst, *args, **kwargs)

    monkeypatch.setattr(shutil, "copyfile", disk_full)
    act = symnb.Activation("x*tanh(x) + 0.4471*x")  # not in the in-process cache
    with pytest.warns(RuntimeWarning, match="No space left.*temporary cache"):
        kernel = act.compile(backend="cpp", strict=True)
    assert kernel.backend == "cpp" and not kernel.cache_hit
    assert cache_mod.default_cache().root != fresh_cache
    x = np.linspace(-3, 3, 11, dtype=np.float32)
    expected = act.compile(backend="numpy").forward(x)
    np.testing.assert_allclose(kernel.forward(x), expected, rtol=1e-6, atol=1e-7)


def test_a_compiler_whose_version_check_fails_is_named_in_one_line(
    tmp_path, monkeypatch
) -> None:
    # SYMNB_CXX=false put GNU false's whole --version page (licence, authors) into the
    # reason, the fallback warning and the BackendUnavailable message
    fake = tmp_path / "noisy-cxx"
    fake.write_text("#!/bin/sh\necho 'noisy 1.0'\necho Copyright\necho more\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setenv("SYMNB_CXX", str(fake))
    try:
        status = cpp._probe_uncached()
    finally:
        cpp._reset_probe()
    assert not status.usable
    assert status.reason == f"{fake} --version failed (exit status 3): noisy 1.0"
