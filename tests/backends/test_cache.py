"""The content-addressed kernel cache: hits, keys, corruption, concurrency, faults."""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import stat
import time
from pathlib import Path

import pytest

from symnb.backends import cache as cache_mod
from symnb.backends.cache import CacheDirectoryError, KernelCache, default_cache

KEY = {"source": "abc123", "compiler": "g++ 12.2", "flags": "-O3 -fPIC"}


def _writer(payload: bytes, calls: list | None = None):
    def build(path: Path) -> None:
        if calls is not None:
            calls.append(path)
        path.write_bytes(payload)

    return build


def _temps(root: Path) -> list[str]:
    return [n for n in os.listdir(root) if n.startswith(".tmp-")]


def _files(root: Path) -> list[str]:
    """Everything in the cache dir except lock files (filelock may leave those)."""
    return [n for n in os.listdir(root) if not n.endswith(".lock")]


def test_miss_then_hit(tmp_path):
    cache = KernelCache(tmp_path / "c")
    calls: list = []
    p1 = cache.get_or_build(KEY, ".so", _writer(b"first", calls))
    assert cache.last_hit is False
    assert p1.read_bytes() == b"first"
    p2 = cache.get_or_build(KEY, ".so", _writer(b"second", calls))
    assert cache.last_hit is True
    assert p2 == p1 and p2.read_bytes() == b"first"
    assert len(calls) == 1
    assert cache.entries() == [p1]
    assert cache.size_bytes() >= len(b"first")


def test_build_gets_a_temp_file_in_the_cache_dir(tmp_path):
    cache = KernelCache(tmp_path / "c")
    seen: list = []
    final = cache.get_or_build(KEY, ".so", _writer(b"x", seen))
    assert seen[0].parent == cache.root
    assert seen[0] != final and not seen[0].exists()
    assert final.name.endswith(".so") and len(final.name) == 64 + 3


def test_every_key_part_changes_the_path(tmp_path):
    cache = KernelCache(tmp_path / "c")
    base = cache.path_for(KEY, ".so")
    for name, value in KEY.items():
        changed = dict(KEY, **{name: value + " "})
        assert cache.path_for(changed, ".so") != base, name
    assert cache.path_for(dict(KEY, extra=""), ".so") != base
    assert cache.path_for(KEY, ".cubin").stem != base.stem
    # order of the dict does not matter
    assert cache.path_for(dict(reversed(list(KEY.items()))), ".so") == base
    # values cannot imitate key boundaries
    assert cache.path_for({"a": "b", "c": "d"}, ".so") != cache.path_for(
        {"a": 'b", "c": "d'}, ".so"
    )


def test_versions_are_in_the_key(tmp_path, monkeypatch):
    cache = KernelCache(tmp_path / "c")
    base = cache.path_for(KEY, ".so")
    monkeypatch.setattr(cache_mod, "CACHE_VERSION", "999")
    assert cache.path_for(KEY, ".so") != base
    monkeypatch.undo()
    import symnb

    monkeypatch.setattr(symnb, "__version__", "0.0.0-test")
    assert cache.path_for(KEY, ".so") != base


def test_non_string_key_parts_refused(tmp_path):
    cache = KernelCache(tmp_path / "c")
    with pytest.raises(TypeError):
        cache.get_or_build({"n": 3}, ".so", _writer(b"x"))  # type: ignore[dict-item]


@pytest.mark.parametrize("damage", ["truncate", "flip", "delete_meta", "bad_meta"])
def test_corrupt_entry_is_rebuilt(tmp_path, damage):
    cache = KernelCache(tmp_path / "c")
    payload = os.urandom(4096)
    path = cache.get_or_build(KEY, ".so", _writer(payload))
    meta = path.with_name(path.name + ".meta")
    if damage == "truncate":
        with open(path, "r+b") as fh:
            fh.truncate(1000)
    elif damage == "flip":
        data = bytearray(path.read_bytes())
        data[100] ^= 0xFF
        path.write_bytes(bytes(data))
    elif damage == "delete_meta":
        meta.unlink()
    else:
        meta.write_text("{not json")
    calls: list = []
    again = cache.get_or_build(KEY, ".so", _writer(payload, calls))
    assert cache.last_hit is False and len(calls) == 1
    assert again == path and again.read_bytes() == payload
    assert json.loads(meta.read_text())["size"] == len(payload)
    assert _temps(cache.root) == []


@pytest.mark.parametrize("where", [".so", ".so.meta"])
def test_empty_directory_in_an_entrys_place_is_cleared(tmp_path, where):
    # a directory standing where the artifact or its sidecar belongs made os.replace
    # raise a bare IsADirectoryError on every compile, in every later session
    cache = KernelCache(tmp_path / "c")
    blocker = cache.root / (cache_mod.cache_key(KEY, ".so") + where)
    blocker.mkdir()
    path = cache.get_or_build(KEY, ".so", _writer(b"payload"))
    assert path.read_bytes() == b"payload" and cache.has(KEY, ".so")
    assert _temps(cache.root) == []


@pytest.mark.parametrize("where", [".so", ".so.meta", ".lock"])
def test_full_directory_in_an_entrys_place_falls_back_naming_it(tmp_path, where):
    cache = KernelCache(tmp_path / "c", fallback=True)
    digest = cache_mod.cache_key(KEY, ".so")
    blocker = cache.root / (digest + where)
    blocker.mkdir()
    (blocker / "keep").write_bytes(b"x")
    with pytest.warns(RuntimeWarning, match="is a directory where the cache keeps"):
        path = cache.get_or_build(KEY, ".so", _writer(b"payload"))
    assert path.read_bytes() == b"payload" and path.parent == cache.root
    assert cache.root != tmp_path / "c" and (blocker / "keep").exists()
    strict = KernelCache(tmp_path / "c")
    with pytest.raises(CacheDirectoryError, match=f"{digest}{where} is a directory"):
        strict.get_or_build(KEY, ".so", _writer(b"payload"))


class BuildFailed(Exception):
    pass


def test_failing_build_leaves_no_temp_file(tmp_path):
    cache = KernelCache(tmp_path / "c")

    def build(path: Path) -> None:
        path.write_bytes(b"half")
        raise BuildFailed("compiler said no")

    with pytest.raises(BuildFailed):
        cache.get_or_build(KEY, ".so", build)
    assert _files(cache.root) == []
    # ... and the next build works
    path = cache.get_or_build(KEY, ".so", _writer(b"ok"))
    assert path.read_bytes() == b"ok" and cache.last_hit is False


def test_keyboard_interrupt_in_build_leaves_no_temp_file(tmp_path):
    cache = KernelCache(tmp_path / "c")

    def build(path: Path) -> None:
        path.write_bytes(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cache.get_or_build(KEY, ".so", build)
    assert _files(cache.root) == []


def test_empty_artifact_is_an_error(tmp_path):
    cache = KernelCache(tmp_path / "c")
    with pytest.raises(RuntimeError, match="wrote nothing"):
        cache.get_or_build(KEY, ".so", lambda path: None)
    assert _files(cache.root) == []


def test_directory_created_private(tmp_path):
    root = tmp_path / "a" / "b" / "cache"
    KernelCache(root)
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o700


def test_loose_mode_is_tightened(tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o777)
    os.chmod(root, 0o777)
    KernelCache(root)
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o700


@pytest.mark.parametrize(
    "mode, files, words",
    [
        (0o1777, [], "is a shared folder .mode 1777."),
        (0o755, [".bashrc", "notes.txt"], r"holds files that are not symnb's \(.bash"),
    ],
)
def test_a_shared_or_busy_folder_keeps_its_mode(tmp_path, mode, files, words):
    # SYMNB_CACHE_DIR=/tmp (1777) or a home folder was chmod'ed to 0700 without a word,
    # locking every other user (or web server, ...) out of it
    root = tmp_path / "shared"
    root.mkdir()
    for name in files:
        (root / name).write_text("theirs")
    (root / ("a" * 64 + ".so")).write_bytes(b"x")  # cache-named files do not count
    os.chmod(root, mode)
    with pytest.raises(CacheDirectoryError, match=words + ".*SYMNB_CACHE_DIR at one"):
        KernelCache(root)
    with pytest.warns(RuntimeWarning, match=words):
        cache = KernelCache(root, fallback=True)
    assert cache.root != root and stat.S_IMODE(os.stat(root).st_mode) == mode
    assert cache.get_or_build(KEY, ".so", _writer(b"ok")).read_bytes() == b"ok"


def test_foreign_owner_refused(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    real_geteuid = os.geteuid
    monkeypatch.setattr(os, "geteuid", lambda: real_geteuid() + 12345)
    with pytest.raises(CacheDirectoryError, match="owned by uid"):
        KernelCache(root)
    with pytest.warns(RuntimeWarning, match="owned by uid"):
        fallback = KernelCache(root, fallback=True)
    assert fallback.root != root


def _set_cache_dir(monkeypatch, path: Path) -> None:
    monkeypatch.setenv("SYMNB_CACHE_DIR", str(path))
    cache_mod._reset_default_cache()


@pytest.fixture
def fresh_default(monkeypatch, tmp_path):
    _set_cache_dir(monkeypatch, tmp_path / "default")
    yield tmp_path / "default"
    cache_mod._reset_default_cache()


def test_default_cache_uses_config_dir(fresh_default):
    cache = default_cache()
    assert cache.root == fresh_default
    assert stat.S_IMODE(os.stat(fresh_default).st_mode) == 0o700
    assert default_cache() is cache


def test_unwritable_cache_falls_back_with_warning(fresh_default, monkeypatch):
    monkeypatch.setattr(
        cache_mod, "probe_writable", lambda root: f"cannot create files in {root}: x"
    )
    with pytest.warns(RuntimeWarning, match="temporary cache"):
        cache = default_cache()
    assert cache.root != fresh_default
    assert stat.S_IMODE(os.stat(cache.root).st_mode) == 0o700
    path = cache.get_or_build(KEY, ".so", _writer(b"payload"))
    assert path.parent == cache.root and path.read_bytes() == b"payload"
    assert not any(fresh_default.iterdir())


def test_disk_full_during_write_falls_back(fresh_default, monkeypatch):
    cache = default_cache()
    real = cache_mod.create_temp_file

    def full(root, prefix, suffix):
        if Path(root) == fresh_default:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(root, prefix, suffix)

    monkeypatch.setattr(cache_mod, "create_temp_file", full)
    calls: list = []
    with pytest.warns(RuntimeWarning, match="No space left"):
        path = cache.get_or_build(KEY, ".so", _writer(b"payload", calls))
    assert cache.root != fresh_default and path.parent == cache.root
    assert path.read_bytes() == b"payload" and len(calls) == 1


def test_build_oserror_is_not_mistaken_for_a_cache_fault(tmp_path):
    cache = KernelCache(tmp_path / "c", fallback=True)

    def build(path: Path) -> None:
        raise FileNotFoundError(errno.ENOENT, "g++ not found")

    with pytest.raises(FileNotFoundError):
        cache.get_or_build(KEY, ".so", build)
    assert cache.root == tmp_path / "c"


def test_size_cap_evicts_oldest_not_newest(tmp_path):
    cache = KernelCache(tmp_path / "c", max_bytes=10_000)
    paths = []
    for i in range(5):
        paths.append(cache.get_or_build({"i": str(i)}, ".so", _writer(b"x" * 3000)))
        old = time.time() - 100 + i
        os.utime(paths[-1], (old, old))
    remaining = cache.entries()
    assert paths[-1] in remaining
    assert paths[0] not in remaining
    assert cache.size_bytes() <= 10_000
    # an entry larger than the cap is still kept when just built
    big = cache.get_or_build({"i": "big"}, ".so", _writer(b"y" * 20_000))
    assert big.exists() and cache.entries() == [big]


def test_hit_refreshes_recency(tmp_path):
    cache = KernelCache(tmp_path / "c", max_bytes=7_000)
    a = cache.get_or_build({"i": "a"}, ".so", _writer(b"x" * 3000))
    b = cache.get_or_build({"i": "b"}, ".so", _writer(b"x" * 3000))
    os.utime(a, (time.time() - 100,) * 2)
    os.utime(b, (time.time() - 50,) * 2)
    cache.get_or_build({"i": "a"}, ".so", _writer(b"unused"))  # hit: a is now recent
    assert cache.last_hit
    cache.get_or_build({"i": "c"}, ".so", _writer(b"x" * 3000))
    assert b not in cache.entries() and a in cache.entries()


def test_clear(tmp_path):
    cache = KernelCache(tmp_path / "c")
    for i in range(3):
        cache.get_or_build({"i": str(i)}, ".so", _writer(b"x"))
    (cache.root / ("f" * 64 + ".so")).write_bytes(b"orphan")
    cache.clear()
    assert cache.entries() == [] and cache.size_bytes() == 0
    assert _files(cache.root) == []


def test_clear_and_eviction_leave_the_users_own_files(tmp_path):
    # SYMNB_CACHE_DIR may name a folder holding other files: `symnb cache clear`
    # deleted every regular file in it that had no .meta beside it (notes.txt, ...)
    cache = KernelCache(tmp_path / "c", max_bytes=1)
    mine = {"notes.txt": b"mine", "model.so": b"elf", "data.so.meta": b"{}"}
    mine |= {"run": b"x", "run.meta": b"{}", "ab" * 32 + "x.so": b"near miss"}
    for name, data in mine.items():
        (cache.root / name).write_bytes(data)
    (cache.root / "sub").mkdir()
    for i in range(3):  # max_bytes=1: each build evicts the older entries
        cache.get_or_build({"i": str(i)}, ".so", _writer(b"x"))
    assert cache.entries() == [cache.path_for({"i": "2"}, ".so")]
    cache.clear()
    assert cache.entries() == []
    assert sorted(_files(cache.root)) == sorted([*mine, "sub"])
    assert all((cache.root / n).read_bytes() == d for n, d in mine.items())


def test_sidecar_is_json_not_pickle(tmp_path):
    cache = KernelCache(tmp_path / "c")
    path = cache.get_or_build(KEY, ".so", _writer(b"abc"))
    meta = json.loads(path.with_name(path.name + ".meta").read_text())
    import hashlib

    assert meta["sha256"] == hashlib.sha256(b"abc").hexdigest()
    assert meta["size"] == 3


# -- two processes, one key ------------------------------------------------------------


def _concurrent_worker(root: str, barrier, queue) -> None:
    from symnb.backends.cache import KernelCache as Cache

    cache = Cache(root)
    builds = []

    def build(path: Path) -> None:
        builds.append(os.getpid())
        with open(path, "wb") as fh:
            fh.write(b"A" * 50_000)
            fh.flush()
            time.sleep(0.5)  # hold the lock while "compiling"
            fh.write(b"B" * 50_000)

    barrier.wait(timeout=60)
    path = cache.get_or_build({"k": "same"}, ".so", build)
    data = Path(path).read_bytes()
    queue.put(
        (str(path), len(data), data == b"A" * 50_000 + b"B" * 50_000, len(builds))
    )


def test_two_processes_same_key(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    queue = ctx.Queue()
    root = str(tmp_path / "c")
    procs = [
        ctx.Process(target=_concurrent_worker, args=(root, barrier, queue))
        for _ in range(2)
    ]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert results[0][0] == results[1][0]
    assert all(ok and size == 100_000 for _, size, ok, _ in results)
    assert sum(n for *_, n in results) == 1  # the second waited and reused it
    cache = KernelCache(root)
    assert len(cache.entries()) == 1
    assert _temps(cache.root) == []
