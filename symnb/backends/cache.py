"""Content-addressed disk cache for compiled kernels (shared objects, cubins, PTX).

Layout of a cache directory (private to the user, mode 0700)::

    <root>/<sha256><suffix>           the artifact (e.g. ``3fa1...e0.so``)
    <root>/<sha256><suffix>.meta      JSON sidecar: the artifact's sha256 and size
    <root>/<sha256>.lock              a ``filelock`` lock, present while someone builds
    <root>/.tmp-*                     files being written (removed on failure)

Rules, and why:

* The file name is the sha256 of every key part (source digest, compiler version,
  flags, CPU features, ...) plus :data:`CACHE_VERSION`, ``symnb.__version__`` and the
  suffix, so one path never holds two different programs (glibc returns the library
  already loaded for a path it has seen, whatever is on disk now).
* Writes are atomic: the build writes a unique temp file in the cache directory; the
  sidecar is written to a temp file too; the sidecar is moved into place first and the
  artifact last, both with :func:`os.replace`. A reader that looks between the two moves
  sees a sidecar that does not match the (old or missing) artifact, treats the entry as
  absent, waits on the key's lock and finds the finished pair.
* Reads are validated: size and sha256 of the artifact are compared with the sidecar
  before the path is returned (a truncated ``.so`` kills the process with SIGBUS at
  ``dlopen``); a corrupt entry is rebuilt.
* Nothing is ever unpickled; the sidecar is plain JSON and only compared.
* The directory's owner and mode are checked before anything in it is used.
* When the directory cannot be used (not ours, not writable, disk full), the cache warns
  once and moves to a per-session temporary directory.
* The total size is capped; the least recently used entries are evicted, never the entry
  just built or returned.
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path

import filelock

import symnb
from symnb import config
from symnb.errors import SymnbError
from symnb.forksafe import instance_lock, module_lock

#: Bumped whenever the layout of entries or the meaning of a key changes.
CACHE_VERSION = "1"

#: Default cap on the total size of artifacts in one cache directory.
DEFAULT_MAX_BYTES = 500 * 1024 * 1024

#: How long a process waits for another one building the same key before it builds
#: without the lock (the result is still written atomically).
LOCK_TIMEOUT_SECONDS = 600.0

#: Temp files older than this are leftovers of killed processes and are removed.
STALE_TEMP_SECONDS = 3600.0

_META_SUFFIX = ".meta"
_TEMP_PREFIX = ".tmp-"
# errno values meaning "this directory cannot take our files", as opposed to a bug.
_UNUSABLE_ERRNOS = {
    errno.EACCES,
    errno.EPERM,
    errno.EROFS,
    errno.ENOSPC,
    errno.EDQUOT,
    errno.ENOENT,
    errno.ENOTDIR,
}


# The names the cache gives its entries: a sha256 in hex, then the suffix. Nothing else
# in the directory is ever listed or removed: SYMNB_CACHE_DIR may name a folder that
# also holds the user's own files (``cache clear`` deleted them).
_ENTRY_NAME = re.compile(r"[0-9a-f]{64}(\.[^/]+)?")


def _is_entry_name(name: str) -> bool:
    return _ENTRY_NAME.fullmatch(name) is not None


class CacheDirectoryError(SymnbError, RuntimeError):
    """The cache directory cannot be used safely (wrong owner, not writable, ...)."""


# --------------------------------------------------------------------------------------
# Fault-injection points. Tests monkeypatch these (CI runs as root, where chmod-based
# read-only directories prove nothing).


def probe_writable(root: Path) -> str | None:
    """Try to create and remove a file in ``root``.

    Returns ``None`` when that works, otherwise the reason as text.
    """
    try:
        fd, name = tempfile.mkstemp(dir=root, prefix=_TEMP_PREFIX + "probe-")
    except OSError as exc:
        return f"cannot create files in {root}: {exc.strerror or exc}"
    try:
        os.write(fd, b"symnb")
    except OSError as exc:
        return f"cannot write files in {root}: {exc.strerror or exc}"
    finally:
        os.close(fd)
        try:
            os.unlink(name)
        except OSError:
            pass
    return None


def create_temp_file(root: Path, prefix: str, suffix: str) -> Path:
    """Create an empty, unique file in ``root`` (mode 0600) and return its path."""
    fd, name = tempfile.mkstemp(dir=root, prefix=prefix, suffix=suffix)
    os.close(fd)
    return Path(name)


class ArtifactWriteError(OSError):
    """Writing a built artifact into the cache directory failed for a reason of the
    directory (disk full, quota, read-only). The cache then moves to a temporary
    directory, as it does when its write probe fails."""


def write_artifact(tmp_path: Path, data: bytes | Path) -> None:
    """Write ``data`` (bytes, or the file at a path) to ``tmp_path`` in the cache.

    Builders call this for their final write, so that a full or read-only cache disk is
    told apart from a failing build: such errors become :class:`ArtifactWriteError`.
    """
    try:
        if isinstance(data, bytes):
            with open(tmp_path, "wb") as fh:
                fh.write(data)
        else:
            shutil.copyfile(data, tmp_path)
    except OSError as exc:
        if exc.errno in _UNUSABLE_ERRNOS:
            raise ArtifactWriteError(
                exc.errno, f"cannot write {tmp_path}: {exc.strerror or exc}"
            ) from exc
        raise


# --------------------------------------------------------------------------------------


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cache_key(key_parts: Mapping[str, str], suffix: str) -> str:
    """The sha256 hex name of an entry: key parts, suffix, cache and symnb versions.

    The encoding is canonical JSON (sorted keys, no whitespace, ASCII), so a value
    cannot imitate a key boundary.
    """
    for name, value in key_parts.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError(
                "cache key parts must be str -> str; got "
                f"{type(name).__name__} -> {type(value).__name__} for {name!r}"
            )
    payload = json.dumps(
        {
            "parts": sorted(key_parts.items()),
            "suffix": suffix,
            "cache_version": CACHE_VERSION,
            "symnb_version": symnb.__version__,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )
    return hashlib.sha256(payload.encode("ascii")).hexdigest()


def _check_private(root: Path) -> str | None:
    """``None`` if ``root`` is a directory owned by us and closed to others (after
    tightening its mode if we own it), else the reason it must not be used."""
    try:
        st = os.stat(root)
    except OSError as exc:
        return f"cannot stat {root}: {exc.strerror or exc}"
    if not stat.S_ISDIR(st.st_mode):
        return f"{root} is not a directory"
    uid = os.geteuid()
    if st.st_uid != uid:
        return f"{root} is owned by uid {st.st_uid}, not by this user (uid {uid})"
    if st.st_mode & 0o077:
        refused = _not_ours_alone(root, st)
        if refused is not None:
            return refused
        try:
            os.chmod(root, 0o700)
        except OSError as exc:
            return (
                f"{root} has mode {stat.S_IMODE(st.st_mode):04o} and cannot be made "
                f"private: {exc.strerror or exc}"
            )
        st = os.stat(root)
        if st.st_mode & 0o077:
            return f"{root} has mode {stat.S_IMODE(st.st_mode):04o}; expected 0700"
    return None


def _not_ours_alone(root: Path, st: os.stat_result) -> str | None:
    """Why the mode of ``root`` must not be tightened, or ``None``: chmod 0700 on a
    shared folder (``SYMNB_CACHE_DIR=/tmp``, mode 1777) or on one holding other files
    (a home or project folder) locked everyone else out of it."""
    mode = f"{stat.S_IMODE(st.st_mode):04o}"
    fix = (
        "symnb makes only a folder of its own private (mode 0700): point "
        f"SYMNB_CACHE_DIR at one, e.g. {root / 'symnb'}"
    )
    if st.st_mode & stat.S_ISVTX:
        return f"{root} is a shared folder (mode {mode}); {fix}"
    try:
        names = os.listdir(root)
    except OSError as exc:
        return f"cannot list {root}: {exc.strerror or exc}"
    others = sorted(
        n for n in names if not (_is_entry_name(n) or n.startswith(_TEMP_PREFIX))
    )
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        return f"{root} (mode {mode}) holds files that are not symnb's ({shown}); {fix}"
    return None


def _ensure_private_dir(root: Path) -> str | None:
    """Create ``root`` (mode 0700) if needed and check it: ``None`` or why not."""
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create {root}: {exc.strerror or exc}"
    return _check_private(root)


def _clear_empty_dir(path: Path) -> None:
    """Remove an empty directory standing where a cache file belongs (``os.replace``
    cannot put a file over a directory); anything else is left to the caller."""
    if path.is_dir() and not path.is_symlink():
        try:
            path.rmdir()
        except OSError:
            pass


def _blocked(path: Path) -> str:
    """Why a cache entry cannot be written: a directory holds its file's place."""
    return (
        f"{path} is a directory where the cache keeps a file; remove it "
        f"(rm -r '{path}')"
    )


def _session_temp_dir() -> Path:
    """A private temporary cache directory, removed when this process exits."""
    root = Path(tempfile.mkdtemp(prefix="symnb-cache-"))  # mkdtemp: mode 0700
    atexit.register(_remove_session_dir, root, os.getpid())
    return root


def _remove_session_dir(root: Path, owner_pid: int) -> None:
    if os.getpid() == owner_pid:  # not in a forked child that inherited the handler
        shutil.rmtree(root, ignore_errors=True)


class KernelCache:
    """A content-addressed cache of compiled artifacts in one directory.

    Parameters
    ----------
    root:
        The cache directory. Created with mode 0700 if missing.
    max_bytes:
        Cap on the total size of artifacts; least recently used entries are evicted.
    fallback:
        When ``True`` (the default for :func:`default_cache`), a directory that cannot
        be used makes the cache warn and continue in a per-session temporary directory.
        When ``False``, :class:`CacheDirectoryError` is raised instead.

    Attributes
    ----------
    last_hit:
        Whether the last :meth:`get_or_build` found a valid entry (``False`` after a
        build).
    root:
        The directory in use now (it changes when the cache falls back).
    requested_root:
        The directory the cache was created for.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        fallback: bool = False,
    ) -> None:
        self.requested_root = Path(root).expanduser()
        self.root = self.requested_root
        self.max_bytes = int(max_bytes)
        self.fallback = fallback
        self.last_hit = False
        self.fallback_reason: str | None = None
        self._lock = instance_lock(self, "_lock", threading.RLock)  # forksafe
        reason = _ensure_private_dir(self.root) or probe_writable(self.root)
        if reason is not None:
            self._fall_back(reason)

    # -- directory management ----------------------------------------------------------

    def _fall_back(self, reason: str) -> None:
        if not self.fallback:
            raise CacheDirectoryError(f"kernel cache unusable: {reason}")
        old = self.root
        self.root = _session_temp_dir()
        self.fallback_reason = reason
        warnings.warn(
            f"symnb kernel cache: {reason}; using a temporary cache for this session "
            f"at {self.root} (compiled kernels will not be kept). Fix: make {old} a "
            "writable directory owned by you, or set SYMNB_CACHE_DIR.",
            RuntimeWarning,
            stacklevel=3,
        )

    def _check_root(self) -> None:
        reason = _check_private(self.root)
        if reason is not None:
            self._fall_back(reason)
            reason = _check_private(self.root)
            if reason is not None:  # pragma: no cover - a fresh mkdtemp is private
                raise CacheDirectoryError(f"kernel cache unusable: {reason}")

    # -- paths -------------------------------------------------------------------------

    def path_for(self, key_parts: Mapping[str, str], suffix: str) -> Path:
        """Where the entry for ``key_parts`` lives (whether or not it exists yet)."""
        return self.root / (cache_key(key_parts, suffix) + suffix)

    @staticmethod
    def _meta_path(artifact: Path) -> Path:
        return artifact.with_name(artifact.name + _META_SUFFIX)

    def _lock_path(self, digest: str) -> Path:
        return self.root / (digest + ".lock")

    # -- validation --------------------------------------------------------------------

    def _valid(self, artifact: Path) -> bool:
        """True when ``artifact`` and its sidecar exist, are ours, and agree."""
        meta_path = self._meta_path(artifact)
        try:
            st = os.stat(artifact)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                return False
            with open(meta_path, encoding="ascii") as fh:
                meta = json.loads(fh.read(4096))
            if not isinstance(meta, dict):
                return False
            if meta.get("size") != st.st_size or st.st_size == 0:
                return False
            expected = meta.get("sha256")
            if not isinstance(expected, str):
                return False
            return _sha256_file(artifact) == expected
        except (OSError, ValueError, UnicodeDecodeError):
            return False

    def has(self, key_parts: Mapping[str, str], suffix: str) -> bool:
        """Whether a valid entry for ``key_parts`` is in the cache now."""
        with self._lock:
            return self._valid(self.path_for(key_parts, suffix))

    def _touch(self, artifact: Path) -> None:
        try:
            os.utime(artifact)
        except OSError:
            pass

    # -- the main entry point ----------------------------------------------------------

    def get_or_build(
        self,
        key_parts: Mapping[str, str],
        suffix: str,
        build: Callable[[Path], None],
    ) -> Path:
        """Return the path of a valid artifact for ``key_parts``, building it if needed.

        Parameters
        ----------
        key_parts:
            Everything that changes the artifact, as text (source digest, compiler and
            its version, flags, target, ...).
        suffix:
            The file suffix, e.g. ``".so"`` or ``".cubin"`` (part of the key).
        build:
            ``build(tmp_path)`` writes the artifact to ``tmp_path`` (an existing empty
            file in the cache directory) or raises. Exceptions propagate unchanged;
            the temp file is removed.

        Returns
        -------
        pathlib.Path
            The final, validated path. ``self.last_hit`` says whether it was built now.
        """
        if suffix and not suffix.startswith("."):
            raise ValueError(f"suffix must start with '.', got {suffix!r}")
        if "/" in suffix or "\0" in suffix:
            raise ValueError(f"bad suffix {suffix!r}")
        with self._lock:
            for _attempt in range(2):
                try:
                    return self._get_or_build_in_root(key_parts, suffix, build)
                except _RootUnusable as exc:
                    # A filesystem fault while writing our own files: fall back once.
                    self._fall_back(exc.reason)
            raise CacheDirectoryError(  # pragma: no cover - temp dir failed too
                "kernel cache unusable, even the temporary directory"
            )

    def _get_or_build_in_root(
        self,
        key_parts: Mapping[str, str],
        suffix: str,
        build: Callable[[Path], None],
    ) -> Path:
        self._check_root()
        digest = cache_key(key_parts, suffix)
        artifact = self.root / (digest + suffix)
        if self._valid(artifact):
            self._touch(artifact)
            self.last_hit = True
            return artifact

        lock = filelock.FileLock(
            str(self._lock_path(digest)), timeout=LOCK_TIMEOUT_SECONDS, mode=0o600
        )
        try:
            lock.acquire()
        except filelock.Timeout:
            warnings.warn(
                f"symnb kernel cache: waited {LOCK_TIMEOUT_SECONDS:.0f} s for another "
                f"process building {artifact.name}; building without the lock",
                RuntimeWarning,
                stacklevel=4,
            )
            lock = None
        except OSError as exc:
            if exc.errno == errno.EISDIR:
                raise _RootUnusable(_blocked(self._lock_path(digest))) from exc
            if exc.errno in _UNUSABLE_ERRNOS:
                raise _RootUnusable(
                    f"cannot create a lock file in {self.root}: {exc.strerror or exc}"
                ) from exc
            raise
        try:
            # Someone may have finished the entry while we waited.
            if self._valid(artifact):
                self._touch(artifact)
                self.last_hit = True
                return artifact
            self._build_into_place(digest, artifact, key_parts, build)
            self.last_hit = False
        finally:
            if lock is not None:
                lock.release()
        self._evict(keep=artifact)
        return artifact

    def _build_into_place(
        self,
        digest: str,
        artifact: Path,
        key_parts: Mapping[str, str],
        build: Callable[[Path], None],
    ) -> None:
        prefix = f"{_TEMP_PREFIX}{digest[:16]}-"
        tmp: Path | None = None
        tmp_meta: Path | None = None
        try:
            try:
                tmp = create_temp_file(self.root, prefix, artifact.suffix)
            except OSError as exc:
                if exc.errno in _UNUSABLE_ERRNOS:
                    raise _RootUnusable(
                        f"cannot create files in {self.root}: {exc.strerror or exc}"
                    ) from exc
                raise
            try:
                build(tmp)  # the builder's exceptions propagate as they are ...
            except ArtifactWriteError as exc:  # ... except a cache disk fault
                raise _RootUnusable(str(exc.strerror or exc)) from exc
            try:
                size = os.stat(tmp).st_size
            except FileNotFoundError:
                size = 0
            if size == 0:
                raise RuntimeError(
                    f"the build for {artifact.name} wrote nothing to {tmp}"
                )
            meta = {
                "sha256": _sha256_file(tmp),
                "size": size,
                "cache_version": CACHE_VERSION,
                "symnb_version": symnb.__version__,
                "created": time.time(),
                "key_parts": dict(sorted(key_parts.items())),
            }
            try:
                tmp_meta = create_temp_file(self.root, prefix, _META_SUFFIX)
                with open(tmp_meta, "w", encoding="ascii") as fh:
                    fh.write(json.dumps(meta, sort_keys=True, ensure_ascii=True))
                    fh.flush()
                    os.fsync(fh.fileno())
                with open(tmp, "rb") as fh:
                    os.fsync(fh.fileno())
                os.chmod(tmp, 0o700 if artifact.suffix == ".so" else 0o600)
                # Sidecar first, artifact last: until the artifact lands, readers see a
                # mismatch and wait on the lock we hold.
                _clear_empty_dir(self._meta_path(artifact))
                os.replace(tmp_meta, self._meta_path(artifact))
                tmp_meta = None
                _clear_empty_dir(artifact)
                os.replace(tmp, artifact)
                tmp = None
            except OSError as exc:
                if exc.errno in (errno.EISDIR, errno.ENOTEMPTY):
                    raise _RootUnusable(
                        _blocked(Path(exc.filename2 or exc.filename or artifact))
                    ) from exc
                if exc.errno in _UNUSABLE_ERRNOS:
                    raise _RootUnusable(
                        f"cannot write to {self.root}: {exc.strerror or exc}"
                    ) from exc
                raise
        finally:
            for leftover in (tmp, tmp_meta):
                if leftover is not None:
                    try:
                        os.unlink(leftover)
                    except OSError:
                        pass

    # -- inspection and housekeeping -------------------------------------------------

    def entries(self) -> list[Path]:
        """Paths of the artifacts in the cache (complete entries only), oldest first."""
        found = []
        try:
            names = os.listdir(self.root)
        except OSError:
            return []
        for name in names:
            if not _is_entry_name(name) or name.endswith((_META_SUFFIX, ".lock")):
                continue
            path = self.root / name
            if not (self.root / (name + _META_SUFFIX)).exists():
                continue
            try:
                mtime = os.stat(path).st_mtime
            except OSError:
                continue
            found.append((mtime, path))
        found.sort()
        return [p for _, p in found]

    def size_bytes(self) -> int:
        """Total size of the artifacts and sidecars in the cache, in bytes."""
        total = 0
        for path in self.entries():
            for p in (path, self._meta_path(path)):
                try:
                    total += os.stat(p).st_size
                except OSError:
                    pass
        return total

    def _remove_entry(self, artifact: Path) -> bool:
        """Remove one entry under its lock (skipped if someone is building it)."""
        digest = artifact.name[:64]
        lock = filelock.FileLock(str(self._lock_path(digest)), timeout=0, mode=0o600)
        try:
            lock.acquire()
        except (filelock.Timeout, OSError):
            return False
        try:
            # Sidecar first: a reader then sees an invalid entry, never a valid-looking
            # half-deleted one.
            for p in (self._meta_path(artifact), artifact):
                try:
                    os.unlink(p)
                except FileNotFoundError:
                    pass
            return True
        except OSError:
            return False
        finally:
            lock.release()

    def _remove_stale_temps(self, older_than: float) -> None:
        now = time.time()
        try:
            names = os.listdir(self.root)
        except OSError:
            return
        for name in names:
            if not name.startswith(_TEMP_PREFIX):
                continue
            path = self.root / name
            try:
                if now - os.stat(path).st_mtime >= older_than:
                    os.unlink(path)
            except OSError:
                pass

    def _evict(self, keep: Path) -> None:
        """Drop least recently used entries until the cache fits ``max_bytes``."""
        self._remove_stale_temps(STALE_TEMP_SECONDS)
        entries = self.entries()
        sizes = {}
        for path in entries:
            try:
                sizes[path] = (
                    os.stat(path).st_size + os.stat(self._meta_path(path)).st_size
                )
            except OSError:
                sizes[path] = 0
        total = sum(sizes.values())
        for path in entries:  # oldest first
            if total <= self.max_bytes:
                break
            if path == keep:
                continue
            if self._remove_entry(path):
                total -= sizes[path]

    def clear(self) -> None:
        """Remove every entry (entries being built by another process are skipped)."""
        with self._lock:
            for path in self.entries():
                self._remove_entry(path)
            # Orphans: artifacts without sidecars, sidecars without artifacts.
            try:
                names = os.listdir(self.root)
            except OSError:
                names = []
            for name in names:
                path = self.root / name
                if not _is_entry_name(name):
                    continue
                if name.endswith(_META_SUFFIX):
                    artifact = path.with_name(name[: -len(_META_SUFFIX)])
                    if not artifact.exists():
                        self._remove_entry(artifact)
                elif (
                    not name.endswith(".lock")
                    and not self._meta_path(path).exists()
                    and path.is_file()
                ):
                    self._remove_entry(path)
            self._remove_stale_temps(STALE_TEMP_SECONDS)

    def __repr__(self) -> str:
        extra = f", fallback from {self.requested_root}" if self.fallback_reason else ""
        return f"KernelCache({str(self.root)!r}{extra})"


class _RootUnusable(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_default: KernelCache | None = None
_default_lock = module_lock(globals(), "_default_lock", threading.Lock)


def default_cache() -> KernelCache:
    """The process-wide cache at :func:`symnb.config.cache_dir` (created 0700).

    If that directory is not ours, not private, or not writable, this warns and uses a
    per-session temporary directory instead. The object is created once per process and
    per cache directory (a changed ``SYMNB_CACHE_DIR`` gives a new one).
    """
    global _default
    root = config.cache_dir()
    with _default_lock:
        if _default is None or _default.requested_root != root.expanduser():
            _default = KernelCache(root, fallback=True)
        return _default


def _reset_default_cache() -> None:
    """Forget the process-wide cache (tests)."""
    global _default
    with _default_lock:
        if _default is not None and _default.fallback_reason:
            shutil.rmtree(_default.root, ignore_errors=True)
        _default = None


__all__ = [
    "CACHE_VERSION",
    "DEFAULT_MAX_BYTES",
    "ArtifactWriteError",
    "CacheDirectoryError",
    "KernelCache",
    "cache_key",
    "default_cache",
    "write_artifact",
]
