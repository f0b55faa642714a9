"""Run many trainings (activation x data set x seed) serially or on a Dask cluster.

One run is one task. What travels to a worker is plain data: the activation as formula
text with its constants (the ``MLP.save`` format, :mod:`symnb.nn.serialize`), the data
set (arrays, scattered once per data set), the seed and the settings; never a pickled SymPy
object or a compiled kernel. Each worker parses the formula again and compiles through
its own kernel cache (the disk cache makes that cheap and race-safe). Results come back
as plain records, are written to the :class:`~symnb.nn.store.RunStore` by this process
as they complete, and feed a ``tqdm.auto`` bar with the current best.

Faults: Dask reruns the tasks of a worker that died; a run whose loss became NaN/inf is
recorded with status ``"diverged"``; an activation that fails to compile (any
``symnb.SymnbError`` while building or training the model) is recorded with status
``"error"`` and its message. Other exceptions (bad options) stop the sweep; the runs
finished so far stay in the store.
"""

from __future__ import annotations

import copy
import functools
import gc
import json
import math
import os
import pickle
import sqlite3
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Run",
    "encode_activation",
    "execute",
    "local_cluster",
    "open_client",
    "train_run",
]


# ----------------------------------------------------------------- wire format


def _formula_entry(formula: Any) -> dict[str, Any]:
    """An Activation or Loss as text, name, constants (learnable ones marked with
    their ``per``), given derivative and surrogate."""
    learn = dict(getattr(formula, "learnable", None) or {})
    # the named activations its text calls (symnb.formula.compose): a worker process
    # has none of this process's names, so they travel with it
    uses = dict(getattr(formula, "_users", None) or {})
    return {
        "uses": {name: _formula_entry(act) for name, act in uses.items()},
        "text": formula.text,
        "name": formula.name,
        "constants": {k: float(v) for k, v in formula.constants.items()},
        "learnable": {k: v.per for k, v in learn.items()},
        "derivative": getattr(formula, "derivative_text", None),
        "surrogate": getattr(formula, "surrogate", None),
    }


def _formula_from(entry: dict[str, Any], cls: Any) -> Any:
    import symnb

    constants: dict[str, Any] = dict(entry["constants"])
    for name, per in entry.get("learnable", {}).items():
        constants[name] = symnb.learnable(constants[name], per=per)
    options: dict[str, Any] = {
        k: entry[k] for k in ("derivative", "surrogate") if entry.get(k)
    }
    if entry.get("uses"):
        options["_users"] = {
            name: _formula_from(dep, symnb.Activation)
            for name, dep in entry["uses"].items()
        }
    return cls(entry["text"], name=entry["name"], **options, **constants)


def encode_activation(spec: Any) -> Any:
    """An activation spec (as ``MLP`` accepts it) as JSON-able data: names and
    formula texts stay strings, ``Activation`` objects become their text and
    constants, per-layer/per-neuron lists stay lists."""
    if spec is None or isinstance(spec, str):
        return spec
    if isinstance(spec, (list, tuple)):
        return [encode_activation(s) for s in spec]
    if hasattr(spec, "expr") and hasattr(spec, "text"):
        return {"formula": _formula_entry(spec)}
    raise TypeError(
        "an activation is a symnb.Activation, a library name or a formula text, "
        f"not {spec!r}"
    )


@functools.lru_cache(maxsize=256)
def _rebuild_cached(entry_json: str) -> Any:
    import symnb

    return _formula_from(json.loads(entry_json), symnb.Activation)


def decode_activation(data: Any) -> Any:
    """The inverse of :func:`encode_activation` (formulas parsed again, safely, once
    per process)."""
    if data is None or isinstance(data, str):
        return data
    if isinstance(data, list):
        return [decode_activation(d) for d in data]
    return _rebuild_cached(json.dumps(data["formula"], sort_keys=True))


def encode_loss(loss: Any) -> Any:
    """A loss spec as JSON-able data (names, ``symnb.Loss`` formulas, the training
    losses ``ElementwiseLoss`` and ``SoftmaxCrossEntropy``)."""
    from .losses import ElementwiseLoss, SoftmaxCrossEntropy

    if loss is None or isinstance(loss, str):
        return loss
    if isinstance(loss, SoftmaxCrossEntropy):
        return {"softmax": {"label_smoothing": float(loss.label_smoothing)}}
    if isinstance(loss, ElementwiseLoss):
        return {
            "elementwise": _formula_entry(loss.loss),
            "task": loss.task,
            "logits": bool(loss.logits),
        }
    if hasattr(loss, "expr") and getattr(loss, "kind", None) == "loss":
        return {"formula": _formula_entry(loss)}
    raise TypeError(
        "loss must be a name, a symnb.Loss, an ElementwiseLoss or a "
        f"SoftmaxCrossEntropy, not {loss!r}"
    )


def decode_loss(data: Any) -> Any:
    """The inverse of :func:`encode_loss`."""
    import symnb

    from .losses import ElementwiseLoss, SoftmaxCrossEntropy

    if data is None or isinstance(data, str):
        return data
    if "softmax" in data:
        return SoftmaxCrossEntropy(**data["softmax"])
    if "elementwise" in data:
        formula = _formula_from(data["elementwise"], symnb.Loss)
        return ElementwiseLoss(formula, task=data["task"], logits=data["logits"])
    return _formula_from(data["formula"], symnb.Loss)


# ----------------------------------------------------------------- one run


@dataclass
class Run:
    """One training run to do: what the store key covers (``spec``) and what the
    serial path uses directly (the user's objects)."""

    key: str
    activation_name: str
    activation: Any  # the user's object (serial path)
    dataset_name: str
    data: Any  # (X, y, val): arrays (val None or a pair)
    seed: int
    plan: dict[str, Any]  # sizes, loss, epochs, target..., fit options
    spec: dict[str, Any] = field(default_factory=dict)


def _formula_text(act: Any) -> str:
    if isinstance(act, str) or act is None:
        return str(act)
    if isinstance(act, dict):  # the wire format
        return str(act["formula"]["text"])
    if isinstance(act, (list, tuple)):
        return "[" + ", ".join(_formula_text(a) for a in act) + "]"
    return str(getattr(act, "text", act))


@functools.lru_cache(maxsize=256)
def _resolve_name(text: str) -> Any:
    from .layers import resolve_activation

    return resolve_activation(text)


def resolve_spec(spec: Any) -> Any:
    """Library names and formula texts as ``Activation`` objects, built once per
    process (MLP would parse them again for every run)."""
    if isinstance(spec, str):
        return _resolve_name(spec)
    if isinstance(spec, (list, tuple)):
        return [resolve_spec(s) for s in spec]
    return spec


#: Library loss names that ``MLP`` treats specially besides resolving them (``bce``
#: adds a sigmoid output layer): passed on as names, not as a cached loss.
_LOSS_NAMES_AS_TEXT = ("bce", "binary_cross_entropy")


@functools.lru_cache(maxsize=64)
def _loss_prototype(name: str) -> Any:
    from .losses import resolve_loss

    return resolve_loss(name)


def resolve_loss_spec(loss: Any) -> Any:
    """A library loss name as a fresh training loss whose ``symnb.Loss`` formula is
    parsed once per process (``symnb.loss`` takes ~1.5 ms, as long as a small run's
    training); anything else unchanged. Each run gets its own shallow copy (its
    compiled kernel is per model), sharing only the immutable formula."""
    if not isinstance(loss, str) or loss.strip().lower() in _LOSS_NAMES_AS_TEXT:
        return loss
    fresh = copy.copy(_loss_prototype(loss))
    if hasattr(fresh, "kernel"):
        fresh.kernel = None
    return fresh


def train_run(
    activation: Any,
    data: Any,
    seed: int,
    plan: dict[str, Any],
    activation_name: str,
    dataset_name: str,
    keep_model: bool = False,
    encoded: bool = False,
) -> dict[str, Any]:
    """Train one model and describe the run as a plain record (JSON-able except the
    ``model`` entry that ``keep_model`` adds). ``encoded``: activation and loss are
    in the wire format (rebuilt here, so that a formula a worker cannot read is
    recorded as that run's error)."""
    from ..errors import SymnbError
    from .model import MLP

    X, y, val = data
    prefix = "val_" if val is not None else ""
    record: dict[str, Any] = {
        "activation": activation_name,
        "formula": _formula_text(activation),
        "dataset": dataset_name,
        "seed": int(seed),
        "status": "ok",
        "final_loss": float("nan"),
        "accuracy": float("nan") if plan["classify"] else None,
        "epochs_to_target": None,
        "time": 0.0,
        "history": None,
        "stop_reason": None,
        "error": None,
    }
    t0 = time.perf_counter()
    try:
        if encoded:
            activation = decode_activation(activation)
            plan = dict(plan, loss=decode_loss(plan["loss"]))
        model = MLP(
            plan["sizes"],
            activation=resolve_spec(activation),
            loss=resolve_loss_spec(plan["loss"]),
            backend=plan["backend"],
            seed=seed,
            dtype=plan["dtype"],
        )
        t0 = time.perf_counter()
        history = model.fit(
            X,
            y,
            epochs=plan["epochs"],
            validation_data=val,
            seed=seed,
            **plan["fit_options"],
        )
    except SymnbError as exc:
        record["status"] = "error"
        record["error"] = f"{type(exc).__name__}: {exc}"
        record["time"] = time.perf_counter() - t0
        return record
    record["time"] = time.perf_counter() - t0
    last = history.last
    record["final_loss"] = float(last.get(prefix + "loss", float("nan")))
    if plan["classify"]:
        record["accuracy"] = float(last.get(prefix + "accuracy", float("nan")))
    target = plan["target"]
    if target is not None:
        record["epochs_to_target"] = history.epochs_to(plan["target_metric"], target)
    record["history"] = history.as_dict()
    record["stop_reason"] = history.stop_reason
    if history.stop_reason == "diverged":
        record["status"] = "diverged"
        record["error"] = history.message
    if keep_model:
        record["model"] = model
    return record


def _data_of(data: Any) -> Any:
    """The identity, as a task: a data set held by the scheduler as a task result
    (recomputed if its worker dies, unlike ``client.scatter``)."""
    return data


def train_remote(jobs: list[tuple], data: Any) -> bytes:
    """The task a Dask worker runs: for each job ``(activation, seed, plan,
    activation_name, dataset_name)`` on ``data``, rebuild the formulas from text and
    :func:`train_run`. One job per task unless ``runs_per_task`` asks for more.

    The records come back as one pickled list: a ``bytes`` object costs Dask nothing
    to size (``sizeof`` walks every list of a record's learning curves) or to
    serialise, in the worker and in the process that gathers it."""
    import pickle
    import warnings

    with warnings.catch_warnings():
        # a diverged run is recorded in the result; no warning in the worker log
        warnings.simplefilter("ignore", RuntimeWarning)
        records = [
            train_run(act, data, seed, plan, act_name, data_name, encoded=True)
            for act, seed, plan, act_name, data_name in jobs
        ]
    return pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL)


# ----------------------------------------------------------------- cluster


def _dask_missing(exc: ImportError) -> ImportError:
    return ImportError(
        f"client=... needs Dask ({exc}); install it with: pip install symnb[dask]"
    )


#: Dask settings of the clusters that ``client="local"`` starts. Spawn, never fork:
#: forking a process in which OpenMP ran can hang libgomp. Dask's monitors (the
#: worker's statistical profiler every 10 ms, the event-loop tick every 20 ms, the
#: memory and system monitors) cost an idle 2-worker ``LocalCluster`` about 130 ms of
#: CPU per second, 6 % of a 2-core machine; at these intervals about 20 ms. The
#: dashboard's profile page stays empty. One OpenMP/BLAS thread per worker (Dask's
#: default too, stated here so that a site config cannot undo it): two workers with
#: a thread per core each would oversubscribe the cores.
LOCAL_CLUSTER_CONFIG = {
    "distributed.nanny.pre-spawn-environ.OMP_NUM_THREADS": 1,
    "distributed.nanny.pre-spawn-environ.MKL_NUM_THREADS": 1,
    "distributed.nanny.pre-spawn-environ.OPENBLAS_NUM_THREADS": 1,
    "distributed.worker.multiprocessing-method": "spawn",
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.worker.memory.monitor-interval": "500ms",
    "distributed.admin.system-monitor.interval": "1s",
}


def local_cluster(n_workers: int | None = None, **options: Any) -> Any:
    """The ``LocalCluster`` that ``client="local"`` starts: ``n_workers`` (default:
    one per CPU) single-threaded worker processes, :data:`LOCAL_CLUSTER_CONFIG`, the
    dashboard on any free port; ``options`` go to ``LocalCluster``."""
    from .compare import check_integer

    cpus = max(1, os.cpu_count() or 1)
    if n_workers is not None:
        # -1 started a cluster of no worker (a sweep on it waited forever), 0 one
        # per CPU, '2' a TypeError inside dask, 10**6 as many processes
        n_workers = check_integer(n_workers, "n_workers", 1, "4")
        if n_workers > 4 * cpus:
            raise ValueError(
                f"n_workers={n_workers} is more than 4 worker processes per CPU "
                f"({cpus} CPUs here); use at most {4 * cpus}, or None for one per CPU"
            )
    try:
        import dask
        from dask.distributed import LocalCluster
    except ImportError as exc:
        raise _dask_missing(exc) from None
    settings: dict[str, Any] = {
        "n_workers": n_workers or cpus,
        "threads_per_worker": 1,
        "processes": True,
        # any free port: None still binds the scheduler's HTTP server to the
        # default 8787 (a warning when another cluster holds it)
        "dashboard_address": ":0",
    }
    with dask.config.set(LOCAL_CLUSTER_CONFIG):
        return LocalCluster(**{**settings, **options})


def check_client(client: Any) -> None:
    """Refuse, before any work, a ``client`` that :func:`open_client` cannot use,
    naming it: not None, a ``dask.distributed.Client``, ``"local"`` or a scheduler
    address (an array was NumPy's "truth value of an array is ambiguous"; a
    ``LocalCluster`` is named with the way to its client), or a closed client."""
    if client is None:
        return
    if isinstance(client, str) and (client == "local" or "://" in client):
        return
    try:
        from dask.distributed import Client
    except ImportError as exc:
        raise _dask_missing(exc) from None
    if isinstance(client, Client):
        if client.status in ("closing", "closed"):
            raise ValueError(
                "client is closed: pass an open dask.distributed.Client, "
                "client='local' or None (serial)"
            )
        return
    if hasattr(client, "scheduler_address"):  # a LocalCluster, SpecCluster, ...
        raise TypeError(
            f"client must be a dask.distributed.Client, got the cluster {client!r}; "
            "pass its client: client=dask.distributed.Client(cluster)"
        )
    raise TypeError(
        "client must be None (serial), 'local', a scheduler address like "
        f"'tcp://scheduler:8786', or a dask.distributed.Client; got {client!r:.80}"
    )


def open_client(client: Any) -> tuple[Any, Callable[[], None]]:
    """``(client, close)`` for ``client`` given as a ``dask.distributed.Client``,
    ``"local"`` (a :func:`local_cluster`: one single-threaded worker process per CPU)
    or a scheduler address such as ``"tcp://scheduler:8786"``."""
    check_client(client)
    try:
        from dask.distributed import Client
    except ImportError as exc:
        raise _dask_missing(exc) from None
    if isinstance(client, Client):
        return client, lambda: None
    if client == "local":
        cluster = local_cluster()
        started = Client(cluster)

        def close() -> None:
            import logging

            # a busy machine makes the nanny log "still alive after 4 s, killing"
            nanny = logging.getLogger("distributed.nanny")
            level = nanny.level
            nanny.setLevel(logging.ERROR)
            try:
                started.close()
                cluster.close()
            finally:
                nanny.setLevel(level)

        return started, close
    return _connect(Client, client)  # an address (check_client)


def _connect(client_type: Any, address: str) -> tuple[Any, Callable[[], None]]:
    """A client of the scheduler at ``address``, or a ValueError that names it
    (Dask says only ``KeyError: 'distributed'`` for an unknown protocol or no host)."""
    failure: Exception | None = None
    try:
        started = client_type(address)
    except OSError as exc:
        failure = OSError(
            f"client={address!r}: no Dask scheduler answered ({exc}); check the "
            "address and that the scheduler runs, or raise Dask's "
            "'distributed.comm.timeouts.connect' for a slow network"
        )
    except (KeyError, ValueError, TypeError) as exc:
        failure = ValueError(
            f"client={address!r} is not a scheduler address Dask can use ({exc!r}); "
            "write it like 'tcp://scheduler:8786'"
        )
    if failure is not None:
        # The half-built Client stays in a reference cycle with the traceback. Left to
        # a later garbage collection, its __del__ could run inside the next Client's
        # start, which holds the same non-reentrant LoopRunner lock that close() takes:
        # the test process hung there. Collect it now, outside any Dask lock.
        gc.collect()
        raise failure
    return started, started.close


# ----------------------------------------------------------------- the sweep


class _Progress:
    """A tqdm.auto bar over runs with the best run so far in its postfix."""

    def __init__(self, total: int, done: int, enabled: bool, higher: bool) -> None:
        self.higher = higher
        self.best: tuple[float, str] | None = None
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, initial=done, desc="runs", unit="run")

    def update(self, record: dict[str, Any], count: bool = True) -> None:
        value = record.get("accuracy") if self.higher else record.get("final_loss")
        if value is not None and math.isfinite(value):
            score = value if self.higher else -value
            if self.best is None or score > self.best[0]:
                self.best = (score, f"{record['activation']}/{record['dataset']}")
        if self.bar is None:
            return
        if self.best is not None:
            label = "acc" if self.higher else "loss"
            shown = self.best[0] if self.higher else -self.best[0]
            self.bar.set_postfix_str(f"best {self.best[1]} {label}={shown:.4g}")
        if count:
            self.bar.update(1)

    def advance(self, count: int) -> None:
        if self.bar is not None and count:
            self.bar.update(count)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _StoreWriter:
    """Writes finished runs to the store; when it cannot (another process holds its
    lock past SQLite's timeout, a read-only or full disk), the sweep goes on: the runs
    are kept in memory, written at the end if the store frees, and are in the result
    either way (a raw ``sqlite3.OperationalError`` ended the sweep and lost the run
    just trained and every later one)."""

    LATER = (
        "the sweep goes on; the finished runs are kept in memory and written at the "
        "end if it frees (they are in the result either way)"
    )
    LAST = "they are in the result; run again once the store is writable to keep them"

    def __init__(self, store: Any) -> None:
        self.store = store
        self.pending: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
        # a store opened read-only warned when it opened: the runs wait for the
        # end, where one warning counts them
        self.failed = bool(getattr(store, "read_only", False))

    def put(self, items: Iterable[tuple[str, dict[str, Any], dict[str, Any]]]) -> None:
        self.pending.extend(items)
        if not self.failed:  # once failed, wait for the end (each try waits ~30 s)
            self._write(self.LATER)

    def flush(self) -> None:
        if self.pending:
            self._write(self.LAST)

    def _write(self, then: str) -> None:
        try:
            self.store.put_many(self.pending)
        except sqlite3.OperationalError as exc:
            self.failed = True
            warnings.warn(
                f"store={self.store.path!r} cannot be written ({exc}; another "
                "process may hold it, or its disk is read-only or full): "
                f"{len(self.pending)} finished run(s) not written; {then}",
                RuntimeWarning,
                stacklevel=4,
            )
        except (sqlite3.Error, OverflowError, ValueError, TypeError) as exc:
            # any other failure to write (a value SQLite cannot bind, a damaged
            # file): the raw error ended the sweep and lost its runs
            self.failed = True
            warnings.warn(
                f"store={self.store.path!r} could not be written "
                f"({type(exc).__name__}: {exc}): {len(self.pending)} finished "
                f"run(s) not written; {then}",
                RuntimeWarning,
                stacklevel=4,
            )
        else:
            self.pending.clear()


def execute(
    runs: Sequence[Run],
    client: Any = None,
    store: Any = None,
    progress: Any = True,
    keep_models: bool = False,
    higher_is_better: bool = True,
    runs_per_task: int | None = None,
) -> list[dict[str, Any]]:
    """Records of ``runs`` in their order: taken from ``store`` where finished there,
    computed (serially, or one Dask task each) and written to ``store`` otherwise.
    ``progress``: show a bar (bool), or an open :class:`_Progress` to advance.
    ``runs_per_task``: runs (on one data set) that one Dask task trains in turn;
    None: about :func:`auto_runs_per_task`, tapering (:func:`_tapered_chunks`)."""
    from .store import RunStore

    owned_store = store is not None and not isinstance(store, RunStore)
    if owned_store:
        store = RunStore(store)
    elif store is not None:
        store.check_open()
    try:
        found = store.get_many(r.key for r in runs) if store is not None else {}
        todo = [r for r in runs if r.key not in found]
        if store is not None and todo:
            _warn_other_versions(store, todo)
        results: dict[str, dict[str, Any]] = dict(found)
        if isinstance(progress, _Progress):
            bar, own_bar = progress, False  # a search's bar over all its batches
            bar.advance(len(found))
        else:
            bar = _Progress(len(runs), len(found), progress, higher_is_better)
            own_bar = True
        for record in found.values():
            bar.update(record, count=False)

        def finish(done: list[tuple[Run, dict[str, Any]]]) -> None:
            """Keep finished runs, write them to the store (one transaction)."""
            for run, record in done:
                record["activation"] = run.activation_name
                record["dataset"] = run.dataset_name
                results[run.key] = record
            if writer is not None:
                writer.put(
                    (run.key, {k: v for k, v in rec.items() if k != "model"}, run.spec)
                    for run, rec in done
                )
            for _, record in done:
                bar.update(record)

        writer = None if store is None else _StoreWriter(store)

        try:
            if client is None:
                for run in todo:
                    record = train_run(
                        run.activation,
                        run.data,
                        run.seed,
                        run.plan,
                        run.activation_name,
                        run.dataset_name,
                        keep_models,
                    )
                    if record.get("stop_reason") == "interrupted":
                        raise KeyboardInterrupt(
                            _interrupted(
                                run, len(results) - len(found), len(runs), store
                            )
                        )
                    finish([(run, record)])
            elif todo:
                try:
                    _execute_dask(todo, client, finish, runs_per_task)
                except KeyboardInterrupt as exc:
                    if str(exc):
                        raise
                    # a bare KeyboardInterrupt from inside Dask's gather loop,
                    # saying nothing of the runs kept (the serial path does)
                    raise KeyboardInterrupt(
                        _interrupted(None, len(results) - len(found), len(runs), store)
                    ) from None
        finally:
            if own_bar:
                bar.close()
            if writer is not None:
                writer.flush()
        # names follow this call (a key covers the formula and data, not their labels)
        return [
            dict(results[r.key], activation=r.activation_name, dataset=r.dataset_name)
            for r in runs
        ]
    finally:
        if owned_store:
            store.close()


def _warn_other_versions(store: Any, todo: list[Run]) -> None:
    """A warning when the store holds runs of ``todo`` finished by another symnb
    version: a run's key covers the version (its results may differ), so a sweep
    resumed after an upgrade trained every run again without a word, and a user
    waiting for the resume saw the whole sweep start over."""
    import symnb

    from .store import run_key

    now = symnb.__version__
    for version in store.versions()[:5]:
        if version == now:
            continue
        keys = [run_key(dict(r.spec, symnb=version)) for r in todo if "symnb" in r.spec]
        held = store.count(keys) if keys else 0
        if held:
            warnings.warn(
                f"store={store.path!r} holds {held} of these {len(todo)} runs "
                f"finished by symnb {version}; this is symnb {now}, and a run's key "
                "includes the version (results may differ between versions), so "
                "they are trained again and kept beside the old ones. To reuse "
                f"them, run with symnb {version}; to compare, read both with "
                "RunStore(...).to_pandas()",
                RuntimeWarning,
                stacklevel=4,
            )
            return


def _interrupted(run: Run | None, finished: int, total: int, store: Any) -> str:
    """What a Ctrl-C during a sweep leaves. Serially (``run``: the one cut short),
    ``fit`` takes Ctrl-C at a step boundary and returns: its run, cut short, was
    recorded as finished ("ok", and written to the store, so a resumed sweep kept
    it) and the sweep went on. On a cluster (``run`` None) the runs not gathered yet
    are cancelled."""
    if run is None:
        where = "on the cluster (its unfinished runs are cancelled)"
    else:
        where = (
            f"while training {run.activation_name} on {run.dataset_name}, seed "
            f"{run.seed} (not recorded)"
        )
    kept = (
        f"finished runs are in store={store.path!r}; the same call with that store "
        "trains the rest"
        if store is not None
        else "pass store='runs.db' to keep finished runs across an interrupt"
    )
    return (
        f"interrupted {where}; {finished} of {total} runs finished in this call: {kept}"
    )


#: Seconds the gathering loop waits, once a run has finished, for more to finish: one
#: gather (a round trip through the scheduler to a worker, about 1 ms of CPU in each
#: process on a 2-core machine) then fetches them all. The bar and the store lag
#: that much behind. The wait ends early once every task has finished.
GATHER_WAIT = 0.05


#: Tasks per worker that an automatic ``runs_per_task`` aims at: enough that the
#: workers stay evenly loaded to the end and a killed worker loses little, few enough
#: that Dask's cost per task (milliseconds of CPU in the worker and the scheduler) is
#: shared by several short runs.
TASKS_PER_WORKER = 6


def auto_runs_per_task(n_runs: int, n_workers: int) -> int:
    """Runs per task giving about :data:`TASKS_PER_WORKER` tasks per worker (at least
    one run per task): 120 runs on 2 workers -> 10 runs per task."""
    return max(1, math.ceil(n_runs / (TASKS_PER_WORKER * max(1, n_workers))))


def check_runs_per_task(runs_per_task: Any) -> int | None:
    """``runs_per_task`` as a positive int (or None: automatic), or a clear error."""
    if runs_per_task is None:
        return None
    if (
        isinstance(runs_per_task, bool)
        or not isinstance(runs_per_task, int)
        or runs_per_task < 1
    ):
        raise ValueError(
            "runs_per_task must be a positive integer (1: one Dask task per run) "
            f"or None (automatic: about {TASKS_PER_WORKER} tasks per worker), "
            f"got {runs_per_task!r}"
        )
    return runs_per_task


def _by_data(todo: Sequence[Run]) -> list[list[Run]]:
    """``todo``'s runs grouped by data set (a task trains on one data set)."""
    by_data: dict[int, list[Run]] = {}
    for run in todo:
        by_data.setdefault(id(run.data), []).append(run)
    return list(by_data.values())


def _chunks(todo: Sequence[Run], size: int) -> list[list[Run]]:
    """``todo`` in groups of at most ``size`` runs on the same data set."""
    return [
        group[i : i + size]
        for group in _by_data(todo)
        for i in range(0, len(group), size)
    ]


def _tapered_chunks(todo: Sequence[Run], n_workers: int) -> list[list[Run]]:
    """The automatic grouping: :func:`auto_runs_per_task` runs per task, smaller
    towards the end of the sweep (at most half of a worker's share of the runs
    left, at least a third of the full size), so that the workers finish together
    instead of one waiting for the other's last long task. One data set per task."""
    size = auto_runs_per_task(len(todo), n_workers)
    smallest = max(1, size // 3)
    left, chunks = len(todo), []
    for group in _by_data(todo):
        i = 0
        while i < len(group):
            share = math.ceil(left / (2 * max(1, n_workers)))
            step = min(size, max(smallest, share))
            chunks.append(group[i : i + step])
            i += step
            left -= len(chunks[-1])
    return chunks


def _wait_for_more(futures: Any) -> None:
    """Sleep up to :data:`GATHER_WAIT` for more runs to finish, but not past the moment
    every task has finished: a fixed sleep held the sweep's last batch back by up to
    50 ms (8% of a 120-run sweep on two workers)."""
    deadline = time.monotonic() + GATHER_WAIT
    while time.monotonic() < deadline and not all(f.done() for f in futures):
        time.sleep(0.002)


def _raise_failed(run: Run, future: Any) -> None:
    """Raise the error of a task that failed other than by a recorded fault (a bad
    option, a bug), naming its run."""
    try:
        future.result()
    except Exception as exc:
        raise RuntimeError(
            f"run {run.activation_name!r} on {run.dataset_name!r} with seed "
            f"{run.seed} failed on the cluster: {type(exc).__name__}: {exc}"
        ) from exc
    raise RuntimeError(  # pragma: no cover - a finished future
        f"run {run.activation_name!r}: the cluster reported no result"
    )


def _execute_dask(
    todo: Sequence[Run],
    client: Any,
    finish: Callable[[list[tuple[Run, dict]]], None],
    runs_per_task: int | None = None,
) -> None:
    from dask.distributed import as_completed

    client, close = open_client(client)
    try:
        scattered: dict[int, Any] = {}
        for run in todo:
            # arrays travel once per data set, as a task of their own: unlike
            # scattered data, the scheduler can recompute it when its worker dies
            if id(run.data) not in scattered:
                scattered[id(run.data)] = client.submit(
                    _data_of, run.data, key=f"symnb-data-{uuid.uuid4().hex}"
                )
        if runs_per_task is None:
            chunks = _tapered_chunks(todo, len(client.nthreads()))
        else:
            chunks = _chunks(todo, runs_per_task)
        # one map call: one message to the scheduler for the whole sweep
        submitted = client.map(
            train_remote,
            [
                [
                    (
                        encode_activation(run.activation),
                        run.seed,
                        dict(run.plan, loss=encode_loss(run.plan["loss"])),
                        run.activation_name,
                        run.dataset_name,
                    )
                    for run in chunk
                ]
                for chunk in chunks
            ],
            [scattered[id(chunk[0].data)] for chunk in chunks],
            key=[
                f"symnb-run-{chunk[0].key[:12]}-{uuid.uuid4().hex[:8]}"
                for chunk in chunks
            ],
            pure=False,
        )
        futures = dict(zip(submitted, chunks))
        pending = as_completed(futures)
        try:
            for batch in pending.batches():
                if pending.count():  # let more finish: one gather for all
                    _wait_for_more(futures)
                    batch += pending.next_batch(block=False)
                # statuses first: a released future reads as "cancelled"
                ok = [f for f in batch if f.status == "finished"]
                failed = [f for f in batch if f.status != "finished"]
                done = []
                for future, payload in zip(ok, client.gather(ok)):
                    done += zip(futures[future], pickle.loads(payload))
                    future.release()
                finish(done)  # the runs that finished are kept before any error
                if failed:
                    _raise_failed(futures[failed[0]][0], failed[0])
        finally:
            for future in futures:
                if not future.done():
                    future.cancel()
    finally:
        close()
