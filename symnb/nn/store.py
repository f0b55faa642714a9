"""``RunStore``: finished training runs in one SQLite file, so sweeps resume.

A sweep writes each run as it completes (one row, committed at once), keyed by a hash of
everything that decides its result: the activation's formula and constants, the data
set, the seed and the sweep settings (architecture, loss, epochs, optimizer options,
backend, dtype, symnb version). A rerun with the same store skips the runs it finds;
changed settings give new keys, so old and new results never mix.

The file opens anywhere SQLite does (``sqlite3 runs.db``, ``pandas.read_sql``); the
``runs`` table has one column per scalar result and the full record (learning curves
included) as JSON in ``record``; ``checks`` keeps the outcome of the checks a search runs
before training (formula, problem or NULL). Only the process that drives the sweep writes (Dask
workers return their results to it), so there is one writer per sweep; SQLite's own
locking keeps two sweeps sharing a file safe. The file is in write-ahead-log mode
(``runs.db-wal`` beside it until the last connection closes): a commit survives a
killed process without an fsync per run.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
import stat
import threading
import time
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
from typing_extensions import Self

from symnb.checks import check_no_nul, is_list_like, real_value

from .optional import require

__all__ = ["RunStore", "run_key"]

SCHEMA_VERSION = 1

_COLUMNS = (
    ("key", "TEXT PRIMARY KEY"),
    ("finished", "REAL"),
    ("activation", "TEXT"),
    ("formula", "TEXT"),
    ("dataset", "TEXT"),
    ("seed", "INTEGER"),
    ("status", "TEXT"),
    ("final_loss", "REAL"),
    ("accuracy", "REAL"),
    ("epochs_to_target", "REAL"),
    ("time_s", "REAL"),
    ("error", "TEXT"),
    ("settings", "TEXT"),
    ("record", "TEXT"),
)


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def run_key(spec: dict[str, Any]) -> str:
    """The store key of one run: sha256 of its canonical JSON description."""
    return hashlib.sha256(_canonical_json(spec).encode()).hexdigest()


def _finite_or_none(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


#: what every stored record holds (``symnb.nn.sweep.train_run`` writes them all)
_RECORD_KEYS = frozenset(
    ("activation", "dataset", "seed", "status", "final_loss", "accuracy")
    + ("epochs_to_target", "time", "error")
)


def _readable(text: Any) -> dict[str, Any] | None:
    """A stored record as written, or ``None`` when it is damaged (not JSON, not an
    object, a key or the status missing): such a run counts as not done."""
    try:
        record = json.loads(text)
    except (TypeError, ValueError):
        return None
    if not isinstance(record, dict) or not _RECORD_KEYS <= record.keys():
        return None
    if record["status"] not in ("ok", "diverged", "error"):
        return None
    return record


def _cannot_write(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite failed for want of write access (not a lock or a bad file)."""
    name = getattr(exc, "sqlite_errorname", "")  # Python >= 3.11
    if name:
        return name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM"))
    text = str(exc).lower()
    return "unable to open" in text or "readonly" in text or "read-only" in text


def _read_only_file_system(path: str) -> bool:
    try:
        flags = os.statvfs(os.path.dirname(os.path.abspath(path))).f_flag
    except (OSError, AttributeError):  # no statvfs (Windows)
        return False
    return bool(flags & getattr(os, "ST_RDONLY", 1))


#: Record fields stored in their own columns, with the types SQLite takes there.
_TEXT_FIELDS = ("activation", "formula", "dataset", "status", "error")


def _checked_keys(keys: Any) -> list[str]:
    """``keys`` as a list of run keys (text): None raised "'NoneType' object is not
    iterable", and a single string was read as its characters."""
    if isinstance(keys, (str, bytes)) or not is_list_like(keys):
        raise TypeError(
            f"keys must be a list of run keys (text), got {keys!r:.60}; e.g. "
            "store.get_many([key])"
        )
    keys = list(keys)
    for key in keys:
        if not isinstance(key, str):
            raise TypeError(f"a run key is text, got {key!r:.60}")
    return keys


def _checked_items(items: Any) -> list[Any]:
    if not is_list_like(items) or isinstance(items, (str, bytes, dict)):
        raise TypeError(
            f"put_many takes a list of (key, record, settings) triples, got "
            f"{items!r:.60}"
        )
    return list(items)


def _checked_item(item: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """One ``(key, record, settings)`` a row can hold, or a TypeError naming the
    part: a record of None raised "'NoneType' object has no attribute 'get'", a
    seed of [1] SQLite's "Error binding parameter 6", and a key of None was
    stored (a run no rerun can find)."""
    if not (isinstance(item, tuple) and len(item) == 3):
        raise TypeError(f"a run is a (key, record, settings) triple, got {item!r:.60}")
    key, record, settings = item
    if not isinstance(key, str) or not key:
        raise TypeError(f"a run key is non-empty text, got {key!r:.60}")
    for what, value in (("record", record), ("settings", settings)):
        if not isinstance(value, dict):
            raise TypeError(
                f"run {key!r:.40}: {what} must be a dict, got {type(value).__name__}"
            )
    for field in _TEXT_FIELDS:
        value = record.get(field)
        if value is not None and not isinstance(value, str):
            raise TypeError(
                f"run {key!r:.40}: record[{field!r}] must be text or None, got "
                f"{value!r:.60}"
            )
    seed = record.get("seed")
    if seed is not None and (
        isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))
    ):
        raise TypeError(
            f"run {key!r:.40}: record['seed'] must be an integer or None, got "
            f"{seed!r:.60}"
        )
    if isinstance(seed, np.integer):  # SQLite binds Python ints only
        record = {**record, "seed": int(seed)}
    _check_record_fields(key, record)
    return key, record, settings


#: Record fields stored as numbers in their own columns (None where not measured).
_NUMBER_FIELDS = ("final_loss", "accuracy", "epochs_to_target", "time")
_STATUSES = ("ok", "diverged", "error")


def _check_record_fields(key: str, record: dict[str, Any]) -> None:
    """A ValueError or TypeError naming the run and the field when ``record`` is no
    run that a rerun could read back: a record without ``status`` or ``accuracy``
    was stored, then read as damaged and trained again (the work was lost without
    a word); a ``final_loss`` of "abc" failed inside ``float()`` with a message that
    named neither; ``time=True`` was stored as 1.0."""
    missing = sorted(_RECORD_KEYS - record.keys())
    if missing:
        raise ValueError(
            f"run {key!r:.40}: record lacks {missing}; a stored run holds "
            f"{sorted(_RECORD_KEYS)} (None where a value was not measured)"
        )
    if record["status"] not in _STATUSES:
        raise ValueError(
            f"run {key!r:.40}: record['status'] must be one of {list(_STATUSES)}, "
            f"got {record['status']!r:.60}"
        )
    for field in _NUMBER_FIELDS:
        value = record[field]
        if value is not None and real_value(value) is None:
            raise TypeError(
                f"run {key!r:.40}: record[{field!r}] must be a real number or None, "
                f"got {value!r:.60} ({type(value).__name__})"
            )


def _json_value(value: Any) -> Any:
    """What ``json.dumps`` writes for a value it has no rule for: NumPy scalars
    and arrays as their Python numbers and lists (``np.float32(0.5)`` was stored
    as the text "0.5", an array as "[0. 1. 2.]"), anything else as its text."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def _as_json(key: str, what: str, value: Any, dump: Any) -> str:
    """``dump(value)``, or a ValueError naming the run and the part when it cannot
    be JSON (a record that contains itself gave json's bare "Circular reference
    detected")."""
    try:
        return dump(value)
    except (ValueError, TypeError, RecursionError) as exc:
        raise ValueError(
            f"run {key!r:.40}: {what} cannot be stored as JSON ({exc}); store plain "
            "numbers, text, lists and dicts (no object that contains itself)"
        ) from None


class RunStore:
    """A SQLite file of finished runs (created on first use).

    Parameters
    ----------
    path:
        the file (``.db``/``.sqlite`` by convention); its folder must exist. A
        leading ``~`` is the home folder, as in pandas.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(
                "store must be a file path (str or pathlib.Path) or a "
                f"symnb.nn.RunStore, got {path!r}; e.g. store='runs.db'"
            )
        self.path = os.fspath(path)
        check_no_nul(self.path, "store")
        # '~/runs.db' as pandas and the shell read it (it was a folder named '~'
        # in the working directory: "the folder '/work/~' does not exist")
        self.path = os.path.expanduser(self.path)
        # one connection, usable from any thread (a store opened in one thread and
        # used by a compare in another raised SQLite's "objects created in a thread
        # can only be used in that same thread"); the lock keeps one use at a time
        self._lock = threading.RLock()
        if self.path in ("", ":memory:"):
            # SQLite would keep the runs in a temporary database, gone when the
            # process ends (and never seen by the Dask workers): lost work
            raise ValueError(
                f"store={self.path!r} names no file: SQLite would keep the runs in "
                "a temporary database that is lost; give a file path, e.g. "
                "store='runs.db'"
            )
        if os.path.isdir(self.path):
            raise IsADirectoryError(
                f"store={self.path!r} is a directory; give a file inside it, e.g. "
                f"store={os.path.join(self.path, 'runs.db')!r}"
            )
        self._check_target()
        folder = os.path.dirname(os.path.realpath(self.path))
        #: True when the file could only be opened for reading (a read-only disk or
        #: file): finished runs are read, new ones are not written
        self.read_only = False
        try:
            self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            # write-ahead log, synced at checkpoints: a commit costs ~0.03 ms instead
            # of an fsync (1-10 ms here, as much as a small training run) and
            # survives a killed process; a power cut may lose the last commits
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._create()
        except sqlite3.OperationalError as exc:
            # cannot open or write (a read-only disk, folder or file; a lock held
            # past the timeout): said as such, not "not a symnb run store"
            self._close_quietly()
            if not _cannot_write(exc):
                raise OSError(
                    f"store={self.path!r} could not be opened (SQLite: {exc}); if "
                    "another process holds it, wait for it or use another file"
                ) from exc
            if not os.path.isfile(self.path) or os.path.getsize(self.path) == 0:
                raise PermissionError(
                    f"store={self.path!r} cannot be created: the folder {folder!r} "
                    f"is read-only or not writable (SQLite: {exc}); choose a "
                    "writable folder"
                ) from exc
            self._open_read_only(exc)
        except sqlite3.DatabaseError as exc:
            self._close_quietly()
            raise ValueError(
                f"store={self.path!r} is not a symnb run store (SQLite): {exc}; "
                "choose a new file name"
            ) from exc

    def _check_target(self) -> None:
        """The file the path leads to (through symbolic links) is a regular file or
        can be created: a FIFO or a device was "disk I/O error; if another process
        holds it, wait", a link to a missing folder or a name too long "the folder is
        read-only", a file used as a folder "the folder does not exist"."""
        from .model import file_kind, path_error

        target = os.path.realpath(self.path)
        shown = (
            repr(self.path)
            if target == os.path.abspath(self.path)
            else f"{self.path!r} (a link to {target!r})"
        )
        try:
            mode = os.stat(target).st_mode
        except FileNotFoundError:
            mode = None
        except OSError as exc:  # a name too long, a file as a folder, no access
            raise path_error(exc, f"store={shown}") from None
        if mode is not None and not stat.S_ISREG(mode):
            raise ValueError(
                f"store={shown} is {file_kind(mode)}; give the path of a new or "
                "existing .db file, e.g. store='runs.db'"
            )
        folder = os.path.dirname(target)
        if not os.path.isdir(folder):
            raise FileNotFoundError(
                f"store={shown}: the folder {folder!r} does not exist; create it or "
                "choose another path"
            )

    def _close_quietly(self) -> None:
        if hasattr(self, "_db"):
            self._db.close()
            del self._db

    def _open_read_only(self, reason: Exception) -> None:
        """Open an existing store that cannot be written, for reading only (a store
        on read-only media, a finished sweep's file shared read-only): its finished
        runs are reused, new runs stay in the result. On a read-only file system the
        file is opened as immutable: SQLite cannot create the write-ahead log's
        shared-memory file there, and nothing can change the file."""
        from urllib.parse import quote

        uri = f"file:{quote(os.path.abspath(self.path))}?mode=ro"
        if _read_only_file_system(self.path):
            uri += "&immutable=1"
        try:
            self._db = sqlite3.connect(
                uri, uri=True, timeout=30.0, check_same_thread=False
            )
            self._check_tables(self._tables())
        except sqlite3.DatabaseError as exc:
            self._close_quietly()
            raise ValueError(
                f"store={self.path!r} cannot be written ({reason}) and is not a "
                f"symnb run store that can be read: {exc}; choose another file"
            ) from exc
        self.read_only = True
        warnings.warn(
            f"store={self.path!r} cannot be written ({reason}): opened read-only; "
            "its finished runs are used, new runs are not written (they are in the "
            "result); copy the file to a writable folder to keep them",
            RuntimeWarning,
            stacklevel=3,
        )

    def _tables(self) -> set[str]:
        return {
            r[0]
            for r in self._db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
            )
        }

    def _check_tables(self, tables: set[str]) -> None:
        """A store opened read-only: symnb's tables, schema and columns, else a
        ``sqlite3.DatabaseError`` saying what is wrong (nothing is created)."""
        missing = {"runs", "meta"} - tables
        if missing:
            raise sqlite3.DatabaseError(
                f"it has no {sorted(missing)} table (tables {sorted(tables)})"
            )
        self._check_schema()
        self._check_columns()

    def _create(self) -> None:
        cols = ", ".join(f"{name} {kind}" for name, kind in _COLUMNS)
        tables = self._tables()
        if tables and "meta" not in tables:
            # another program's database: the store's tables were added to it
            raise sqlite3.DatabaseError(
                f"it is another SQLite database (tables {sorted(tables)}), left "
                "unchanged"
            )
        with self._db:
            self._db.execute(f"CREATE TABLE IF NOT EXISTS runs ({cols})")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)"
            )
            if not self._check_schema():
                self._db.execute(
                    "INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
                )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS checks "
                "(key TEXT PRIMARY KEY, formula TEXT, problem TEXT)"
            )
            self._check_columns()

    def _check_schema(self) -> bool:
        """False when no schema version is written yet; a ``sqlite3.DatabaseError``
        for another version."""
        row = self._db.execute(
            "SELECT value FROM meta WHERE name = 'schema'"
        ).fetchone()
        if row is None:
            return False
        if not str(row[0]).isdigit():
            raise sqlite3.DatabaseError(f"schema version {row[0]!r} is no number")
        if int(row[0]) != SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"schema version {row[0]}, this symnb reads {SCHEMA_VERSION}"
            )
        return True

    def _check_columns(self) -> None:
        have = {r[1] for r in self._db.execute("PRAGMA table_info(runs)")}
        missing = [name for name, _ in _COLUMNS if name not in have]
        if missing:
            raise sqlite3.DatabaseError(f"table 'runs' lacks {missing}")

    def __repr__(self) -> str:
        return f"RunStore({self.path!r}, {len(self)} runs)"

    def __len__(self) -> int:
        self.check_open()
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def __contains__(self, key: object) -> bool:
        self.check_open()
        with self._lock:
            row = self._db.execute("SELECT 1 FROM runs WHERE key = ?", (key,))
            return row.fetchone() is not None

    def get_many(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The stored records of those ``keys`` that are finished, by key."""
        self.check_open()
        found: dict[str, dict[str, Any]] = {}
        damaged: list[str] = []
        keys = _checked_keys(keys)
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            with self._lock:
                rows = self._db.execute(
                    f"SELECT key, record FROM runs WHERE key IN ({marks})", chunk
                ).fetchall()
            for key, record in rows:
                value = _readable(record)
                if value is None:
                    damaged.append(key)
                else:
                    found[key] = value
        if damaged:
            warnings.warn(
                f"store={self.path!r}: {len(damaged)} stored run(s) have a damaged "
                "record (not the JSON this symnb writes); they are trained again and "
                "rewritten",
                RuntimeWarning,
                stacklevel=3,
            )
        return found

    def versions(self) -> list[str]:
        """The symnb versions that wrote the stored runs (each run's ``settings``
        holds its key's description, with ``symnb``), newest write first; empty when
        SQLite cannot read them (a build without its JSON functions)."""
        self.check_open()
        with self._lock:
            try:
                rows = self._db.execute(
                    "SELECT json_extract(settings, '$.symnb') AS v FROM runs "
                    "WHERE json_valid(settings) GROUP BY v ORDER BY MAX(finished) DESC"
                ).fetchall()
            except sqlite3.OperationalError:
                return []
        return [str(v) for (v,) in rows if isinstance(v, str)]

    def count(self, keys: Iterable[str]) -> int:
        """How many of ``keys`` the store holds."""
        self.check_open()
        keys = _checked_keys(keys)
        total = 0
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            with self._lock:
                total += int(
                    self._db.execute(
                        f"SELECT COUNT(*) FROM runs WHERE key IN ({marks})", chunk
                    ).fetchone()[0]
                )
        return total

    def put(self, key: str, record: dict[str, Any], settings: dict[str, Any]) -> None:
        """Write one finished run (committed at once; a rewrite replaces it)."""
        self.put_many([(key, record, settings)])

    def put_many(
        self, items: Iterable[tuple[str, dict[str, Any], dict[str, Any]]]
    ) -> None:
        """Write finished runs ``(key, record, settings)`` in one transaction:
        all or nothing. Every row is checked and encoded before the transaction
        starts (a bad row is refused naming its key and field, and no row is
        written); an error or an interrupt inside the transaction rolls it back."""
        self.check_open()
        if self.read_only:
            # SQLite's own words were "attempt to write a readonly database"
            raise sqlite3.OperationalError(
                f"store={self.path!r} was opened read-only (it cannot be written); "
                "copy the file to a writable folder and open the copy"
            )
        rows = [self._row(*_checked_item(item)) for item in _checked_items(items)]
        if not rows:
            return
        marks = ",".join("?" * len(_COLUMNS))
        with self._lock:
            try:
                with self._db:
                    self._db.executemany(
                        f"INSERT OR REPLACE INTO runs VALUES ({marks})", rows
                    )
            except BaseException:
                if self._db.in_transaction:  # an interrupt between the statements
                    self._db.rollback()
                raise

    @staticmethod
    def _row(key: str, record: dict[str, Any], settings: dict[str, Any]) -> tuple:
        return (
            key,
            time.time(),
            record.get("activation"),
            record.get("formula"),
            record.get("dataset"),
            record.get("seed"),
            record.get("status"),
            _finite_or_none(record.get("final_loss")),
            _finite_or_none(record.get("accuracy")),
            _finite_or_none(record.get("epochs_to_target")),
            _finite_or_none(record.get("time")),
            record.get("error"),
            _as_json(key, "settings", settings, _canonical_json),
            _as_json(
                key, "record", record, lambda r: json.dumps(r, default=_json_value)
            ),
        )

    def get_checks(self, keys: dict[str, str]) -> dict[str, str | None]:
        """Stored outcomes of pre-training checks (``symnb.nn.search``): ``keys`` maps
        formula -> check key; the result maps formula -> problem (``None``: passed)
        for the formulas found."""
        self.check_open()
        if not isinstance(keys, dict):  # was "'NoneType' object has no attribute"
            raise TypeError(
                f"get_checks takes a dict formula -> check key, got {keys!r:.60}"
            )
        found: dict[str, str | None] = {}
        with self._lock:
            if self.read_only and "checks" not in self._tables():
                return found  # an older store, opened read-only: nothing to create
            for formula, key in keys.items():
                row = self._db.execute(
                    "SELECT problem FROM checks WHERE key = ?", (key,)
                ).fetchone()
                if row is not None:
                    found[formula] = row[0]
        return found

    def put_check(self, key: str, formula: str, problem: str | None) -> None:
        """Keep the outcome of a pre-training check (a resumed search skips it).
        A store that cannot be written now (locked by another process, a read-only
        disk) only warns: the check is cheap to run again, the search goes on. A
        store opened read-only said so when it opened: no warning per check."""
        if self.read_only:
            return
        try:
            with self._lock, self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO checks VALUES (?, ?, ?)",
                    (key, formula, problem),
                )
        except sqlite3.OperationalError as exc:
            warnings.warn(
                f"store={self.path!r} cannot be written ({exc}); the check of "
                f"{formula!r} is not kept (a resumed search runs it again)",
                RuntimeWarning,
                stacklevel=2,
            )

    def to_pandas(self):
        """All stored runs as a ``pandas.DataFrame`` (one row per run)."""
        self.check_open()
        pd = require("pandas", "RunStore.to_pandas")

        with self._lock:
            return pd.read_sql_query("SELECT * FROM runs ORDER BY finished", self._db)

    def close(self) -> None:
        with self._lock:
            self._db.close()
            self._closed = True

    @property
    def closed(self) -> bool:
        """True after :meth:`close` (or the ``with`` block) ended the connection."""
        return getattr(self, "_closed", False)

    def check_open(self) -> None:
        """A ValueError naming the file when the store was closed (passed as
        ``store=``, or read with len(), ``in``, ``get_many`` or ``to_pandas``, it gave
        SQLite's "Cannot operate on a closed database")."""
        if self.closed:
            raise ValueError(
                f"the store {self.path!r} is a closed RunStore; open it again with "
                f"RunStore({self.path!r}), or pass the path itself as store="
            )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied as its path: the copy opens the same file (its own
        connection). Before, "cannot pickle '_thread.RLock' object"."""
        self.check_open()
        return (type(self), (self.path,))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
