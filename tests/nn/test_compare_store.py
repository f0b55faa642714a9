"""``compare`` with a store (SQLite) and several data sets, serially: runs written as
they finish, reruns skip them, changed settings give new keys, interrupted sweeps
resume, and the wire format of formulas (text + constants) round-trips."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest
import sympy as sp

import symnb
from symnb import datasets, nn
from symnb.nn import sweep
from symnb.nn.store import RunStore

OPTIONS = {
    "hidden": (6,),
    "epochs": 4,
    "lr": 0.05,
    "backend": "numpy",
    "progress": False,
}


def test_store_holds_every_run_readable_with_sqlite(tmp_path):
    path = tmp_path / "runs.db"
    result = nn.compare(["tanh", "relu"], "xor", seeds=(0, 1), store=path, **OPTIONS)
    with sqlite3.connect(path) as db:  # an independent reader
        rows = db.execute(
            "SELECT activation, dataset, seed, status, final_loss, record FROM runs"
        ).fetchall()
    assert len(rows) == 4
    got = {(a, d, s): (st, loss, json.loads(rec)) for a, d, s, st, loss, rec in rows}
    for run in result.runs:
        status, loss, record = got[run["activation"], "xor", run["seed"]]
        assert status == "ok"
        assert loss == pytest.approx(run["final_loss"], rel=1e-12)
        assert record["history"]["history"]["loss"] == run["history"]["loss"]


def test_rerun_with_the_same_store_trains_nothing(tmp_path, counted):
    path = tmp_path / "runs.db"
    first = nn.compare(["tanh", "relu"], "xor", seeds=(0, 1), store=path, **OPTIONS)
    assert len(counted) == 4
    again = nn.compare(["tanh", "relu"], "xor", seeds=(0, 1), store=path, **OPTIONS)
    assert len(counted) == 4
    strip = [{k: v for k, v in r.items() if k != "time_mean"} for r in first.rows]
    assert strip == [
        {k: v for k, v in r.items() if k != "time_mean"} for r in again.rows
    ]
    assert [r["history"]["loss"] for r in again.runs] == [
        r["history"]["loss"] for r in first.runs
    ]


def test_stored_runs_take_the_labels_of_the_new_call(tmp_path, counted):
    path = tmp_path / "runs.db"
    first = nn.compare({"a": "tanh"}, {"one": "xor"}, seeds=(0,), store=path, **OPTIONS)
    again = nn.compare({"b": "tanh"}, {"two": "xor"}, seeds=(0,), store=path, **OPTIONS)
    assert len(counted) == 1
    assert (again.rows[0]["activation"], again.rows[0]["dataset"]) == ("b", "two")
    assert again["b", "two"]["loss_mean"] == first["a", "one"]["loss_mean"]


def test_changed_settings_get_new_keys(tmp_path, counted):
    path = tmp_path / "runs.db"
    nn.compare(["tanh"], "xor", seeds=(0,), store=path, **OPTIONS)
    nn.compare(["tanh"], "xor", seeds=(0,), store=path, **dict(OPTIONS, epochs=5))
    nn.compare(["tanh"], "xor", seeds=(0,), store=path, **dict(OPTIONS, lr=0.01))
    assert len(counted) == 3
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(DISTINCT key) FROM runs").fetchone()[0] == 3


def test_interrupted_sweep_resumes_without_losing_work(tmp_path, monkeypatch):
    path = tmp_path / "runs.db"
    calls = []
    original = sweep.train_run

    def interrupted_on_third(*args, **kwargs):
        calls.append(args[2])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(sweep, "train_run", interrupted_on_third)
    with pytest.raises(KeyboardInterrupt):
        nn.compare(["tanh"], "xor", seeds=(0, 1, 2, 3), store=path, **OPTIONS)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT seed FROM runs ORDER BY seed").fetchall() == [
            (0,),
            (1,),
        ]
    calls.clear()
    resumed = nn.compare(["tanh"], "xor", seeds=(0, 1, 2, 3), store=path, **OPTIONS)
    assert calls == [2, 3]
    monkeypatch.setattr(sweep, "train_run", original)
    fresh = nn.compare(["tanh"], "xor", seeds=(0, 1, 2, 3), **OPTIONS)
    assert [r["history"]["loss"] for r in resumed.runs] == [
        r["history"]["loss"] for r in fresh.runs
    ]


_KILLED_ON_THIRD = """
import os, signal, sys
from symnb import nn
from symnb.nn import sweep
original, calls = sweep.train_run, []
def train_run(*args, **kwargs):
    calls.append(args[2])
    if len(calls) == 3:
        os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no atexit, no close()
    return original(*args, **kwargs)
sweep.train_run = train_run
nn.compare(["tanh"], "xor", seeds=(0, 1, 2, 3), store=sys.argv[1],
           hidden=(6,), epochs=4, lr=0.05, backend="numpy", progress=False)
"""


@pytest.mark.slow
def test_runs_finished_before_a_kill_survive_in_the_store(tmp_path):
    import signal
    import subprocess
    import sys

    path = tmp_path / "runs.db"
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_ON_THIRD, str(path)], check=False, timeout=300
    )
    assert done.returncode == -signal.SIGKILL
    with sqlite3.connect(path) as db:  # a fresh reader recovers the write-ahead log
        seeds = db.execute("SELECT seed, status FROM runs ORDER BY seed").fetchall()
    assert seeds == [(0, "ok"), (1, "ok")]


def test_several_data_sets_give_column_groups():
    X, y = datasets.circles(n=80, noise=0.1, seed=1)
    result = nn.compare(
        {"t": "tanh", "r": "relu"}, ["xor", (X, y)], seeds=(0, 1), **OPTIONS
    )
    assert [(r["activation"], r["dataset"]) for r in result.rows] == [
        ("t", "xor"),
        ("t", "data1"),
        ("r", "xor"),
        ("r", "data1"),
    ]
    single = nn.compare({"t": "tanh"}, (X, y), seeds=(0, 1), **OPTIONS)
    assert result["t", "data1"]["loss_mean"] == single["t"]["loss_mean"]
    table = result.to_pandas()
    assert list(table.index) == ["t", "r"]
    assert list(dict.fromkeys(table.columns.get_level_values(0))) == ["xor", "data1"]
    assert table[("data1", "accuracy_mean")]["t"] == single["t"]["accuracy_mean"]
    assert result.to_pandas(wide=False).shape[0] == 4
    assert 'colspan="' in result._repr_html_()
    with pytest.raises(KeyError, match="several data sets"):
        result["t"]
    assert result.best() in ("t", "r")


def test_plots_show_every_activation_and_the_best_curves():
    result = nn.compare(
        ["tanh", "relu", "sin"],
        {"a": "xor", "b": "two_moons"},
        seeds=(0, 1, 2),
        **OPTIONS,
    )
    fig = result.plot_spread("accuracy")
    axes = fig.axes
    assert len(axes) == 2
    labels = [t.get_text() for t in axes[0].get_xticklabels()]
    assert labels == ["tanh", "relu", "sin"]
    points = [line for line in axes[1].lines if line.get_marker() == "o"]
    assert sum(len(line.get_xdata()) for line in points) == 9  # 3 x 3 seeds
    curves = result.plot_curves(top=2)
    assert [len(ax.get_lines()) for ax in curves.axes] == [2, 2]
    best = min(
        (r for r in result.rows if r["dataset"] == "a"), key=lambda r: r["loss_mean"]
    )["activation"]
    assert curves.axes[0].get_legend().get_texts()[0].get_text().startswith(best)


@pytest.mark.parametrize("damage", ["'{bad'", "'[1, 2]'", "'{}'", "NULL", "'\"ok\"'"])
def test_damaged_stored_records_are_trained_again(tmp_path, counted, damage):
    # a damaged record made the rerun die in json (JSONDecodeError, TypeError) or in
    # the table code (AttributeError, KeyError 'status'), and so did every later rerun
    path = tmp_path / "runs.db"
    first = nn.compare(["tanh", "relu"], "xor", seeds=(0,), store=path, **OPTIONS)
    with sqlite3.connect(path) as db:
        db.execute(f"UPDATE runs SET record = {damage} WHERE activation = 'tanh'")
    with pytest.warns(RuntimeWarning, match="1 stored run.*damaged"):
        again = nn.compare(["tanh", "relu"], "xor", seeds=(0,), store=path, **OPTIONS)
    assert len(counted) == 3  # tanh trained again, relu read back
    assert again.rows == [
        dict(r, time_mean=a["time_mean"]) for r, a in zip(first.rows, again.rows)
    ]
    with sqlite3.connect(path) as db:
        (record,) = db.execute("SELECT record FROM runs WHERE activation = 'tanh'")
    assert json.loads(record[0])["status"] == "ok"  # rewritten


@pytest.mark.parametrize("frees", [True, False])
def test_a_store_that_cannot_be_written_loses_no_run(tmp_path, monkeypatch, frees):
    # another process holding the store's lock past SQLite's 30 s timeout (or a
    # read-only disk) ended the sweep with a raw sqlite3.OperationalError: 'database
    # is locked' right after the first run, losing it and every later one
    path = tmp_path / "runs.db"
    real = RunStore.put_many
    calls = []

    def locked(self, items):
        items = list(items)
        calls.append(len(items))
        if len(calls) == 1 or not frees:
            raise sqlite3.OperationalError("database is locked")
        real(self, items)

    monkeypatch.setattr(RunStore, "put_many", locked)
    with pytest.warns(RuntimeWarning, match="runs.db' cannot be written .database is"):
        result = nn.compare(["tanh", "relu"], "xor", (0, 1), store=path, **OPTIONS)
    assert len(result.runs) == 4 and all(r["status"] == "ok" for r in result.runs)
    assert calls == [1, 4]  # one try per run until the first failure, one at the end
    monkeypatch.setattr(RunStore, "put_many", real)
    with RunStore(path) as store:
        assert len(store) == (4 if frees else 0)


def test_store_with_a_schema_version_that_is_no_number_is_named(tmp_path):
    path = tmp_path / "runs.db"
    nn.compare(["tanh"], "xor", seeds=(0,), store=path, **OPTIONS)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = 'abc' WHERE name = 'schema'")
    with pytest.raises(ValueError, match="runs.db' is not a symnb run store.*'abc'"):
        nn.compare(["tanh"], "xor", seeds=(0,), store=path, **OPTIONS)


def test_bad_options_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="keep_models"):
        nn.compare(["tanh"], "xor", keep_models=True, client="local")
    with pytest.raises(TypeError, match="client must be"):
        nn.compare(["tanh"], "xor", client="bogus", **OPTIONS)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        nn.compare(["tanh"], "xor", store=tmp_path / "no" / "runs.db", **OPTIONS)
    junk = tmp_path / "junk.db"
    junk.write_text("not a database " * 100)
    with pytest.raises(ValueError, match="not a symnb run store"):
        nn.compare(["tanh"], "xor", store=junk, **OPTIONS)
    with pytest.raises(ValueError, match="share a name"):
        nn.compare(["tanh", "tanh"], "xor", **OPTIONS)
    with pytest.raises(ValueError, match="unknown activation"):
        nn.compare(["tahn"], "xor", **OPTIONS)
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="runs_per_task must be a positive"):
            nn.compare(["tanh"], "xor", runs_per_task=bad, **OPTIONS)


def test_keep_models_serial():
    result = nn.compare(["tanh"], "xor", seeds=(0,), keep_models=True, **OPTIONS)
    model = result.runs[0]["model"]
    X, y = datasets.load("xor")
    # the metrics after the last epoch are the kept model's metrics
    assert model.evaluate(X, y)["accuracy"] == result.runs[0]["accuracy"]


def test_formulas_travel_as_text_and_constants():
    act = symnb.Activation(
        "x*sigmoid(beta*x)", name="swish", beta=symnb.learnable(1.7, per="neuron")
    )
    wire = sweep.encode_activation([act, "relu", [act, "tanh"]])
    text = json.dumps(wire)  # plain JSON: no pickled SymPy objects or kernels
    back = sweep.decode_activation(json.loads(text))
    assert back[1] == "relu" and back[2][1] == "tanh"
    rebuilt = back[0]
    assert sp.simplify(rebuilt.expr - act.expr) == 0
    assert rebuilt.constants == {"beta": 1.7}
    assert rebuilt.learnable["beta"].per == "neuron"
    loss = symnb.loss("huber", delta=0.5)
    decoded = sweep.decode_loss(json.loads(json.dumps(sweep.encode_loss(loss))))
    assert decoded.constants == {"delta": 0.5}
    assert sp.simplify(decoded.expr - loss.expr) == 0
    x = np.linspace(-3, 3, 7).astype(np.float32)
    np.testing.assert_array_equal(
        rebuilt.compile(backend="numpy").forward(x),
        act.compile(backend="numpy").forward(x),
    )


def test_formulas_calling_named_activations_travel_with_them():
    from symnb.formula import compose

    bump = symnb.Activation("exp(-x**2/w)", name="bump_wire", w=2.0)
    user = symnb.Activation("x + bump_wire(x)", name="uses_bump_wire")
    wire = json.dumps(sweep.encode_activation(user))
    compose.unregister("bump_wire")  # as in a fresh worker process: the name is unknown
    rebuilt = sweep.decode_activation(json.loads(wire))
    x = np.linspace(-3, 3, 13)
    got = rebuilt.compile(backend="numpy", dtype="float64").forward(x)
    np.testing.assert_allclose(got, x + np.exp(-(x**2) / 2.0), rtol=1e-12)
    assert bump.name == "bump_wire"


def test_cached_library_loss_trains_like_the_name_and_does_not_leak_between_runs():
    """``train_run`` parses a library loss once per process; each run still gets its
    own training loss (its compiled kernel belongs to that model), and the numbers
    equal those of an MLP given the loss name."""
    X, y = datasets.load("xor")
    first = sweep.resolve_loss_spec("bce_with_logits")
    second = sweep.resolve_loss_spec("bce_with_logits")
    assert first is not second and first.loss is second.loss  # formula parsed once
    assert first.kernel is None and (first.task, first.logits) == ("binary", True)
    # bce adds a sigmoid output layer in MLP: it stays a name
    assert sweep.resolve_loss_spec("bce") == "bce"
    result = nn.compare(
        ["tanh", "relu"], "xor", seeds=(0, 1), keep_models=True, **OPTIONS
    )
    for run in result.runs:
        model = nn.MLP(
            [2, 6, 1],
            activation=run["activation"],
            loss="bce_with_logits",
            backend="numpy",
            seed=run["seed"],
            dtype="float32",
        )
        history = model.fit(X, y, epochs=4, lr=0.05, seed=run["seed"])
        assert history.as_dict()["history"]["loss"] == run["history"].history["loss"]
        # the kept model (trained before later runs) still evaluates as recorded
        assert run["model"].evaluate(X, y)["accuracy"] == run["accuracy"]
    losses = [run["model"]._loss for run in result.runs]
    assert len({id(loss) for loss in losses}) == len(losses)


def test_auto_runs_per_task_gives_about_six_tasks_per_worker():
    assert sweep.auto_runs_per_task(120, 2) == 10
    assert sweep.auto_runs_per_task(4, 2) == 1
    assert sweep.auto_runs_per_task(1000, 4) == 42
    assert sweep.auto_runs_per_task(0, 0) == 1
    assert sweep.check_runs_per_task(None) is None


def test_automatic_tasks_taper_and_keep_one_data_set_each():
    class FakeRun:
        def __init__(self, data):
            self.data = data

    a, b = object(), object()
    todo = [FakeRun(a) for _ in range(90)] + [FakeRun(b) for _ in range(30)]
    chunks = sweep._tapered_chunks(todo, 2)
    sizes = [len(c) for c in chunks]
    assert sizes == [10] * 9 + [8, 6, 4, 3, 3, 3, 3]  # 120 runs, 16 tasks
    assert sum(sizes) == 120 and sizes == sorted(sizes, reverse=True)
    assert all(len({id(r.data) for r in c}) == 1 for c in chunks)
    assert [r for c in chunks for r in c] == todo  # every run once, in order


@pytest.mark.parametrize(
    "seeds, error, words",
    [
        ([], ValueError, "seeds is empty"),
        ("ab", TypeError, "seeds must be a list of integers"),
        ([0, -1], ValueError, "integers >= 0, got -1"),
        ([0, 1.5], ValueError, "got 1.5"),
        ([True], ValueError, "got True"),
        (range(10**12), MemoryError, "1000000000000 seeds"),
    ],
)
def test_bad_seeds_are_named_before_any_run(seeds, error, words):
    """compare and search name what is wrong with seeds, before training anything (and
    before a list of 10**12 seeds is built)."""
    with pytest.raises(error, match=words):
        nn.compare(["relu"], "two_moons", seeds=seeds, epochs=1, progress=False)
    with pytest.raises(error, match=words):
        nn.search("two_moons", budget=3, seeds=seeds, epochs=1, progress=False)
