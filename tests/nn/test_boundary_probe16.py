"""Boundary uses of ``symnb.nn.search`` found by the sixteenth probe.

An included formula equal to a baseline (``max(x, 0)`` with the baseline relu, or
``x*sigmoid(x)`` with ``silu``) trained a second time under another name, and the
leaderboard listed the same function twice, without the warning the docstring
promises for duplicates ("trains once"). Drawn candidates equal to a baseline
did the same. The baselines now take part in the canonical-form dedup."""

from __future__ import annotations

import os
import re
import signal
import threading
import warnings

import numpy as np
import pytest

from symnb import nn
from symnb.nn.layers import resolve_activation

OPTIONS = {
    "hidden": (4,),
    "epochs": 2,
    "backend": "numpy",
    "progress": False,
    "seeds": (0,),
}


def _same_function(a, b) -> bool:
    """Whether two activations agree in float64 on a grid (NumPy evaluation of each;
    the grid avoids 0, where kinks differ only in their derivative)."""
    x = np.linspace(-5, 5, 100)
    values = [
        resolve_activation(f).compile(backend="numpy", dtype="float64").forward(x)
        for f in (a, b)
    ]
    return bool(np.allclose(values[0], values[1], rtol=1e-12, atol=1e-12))


@pytest.mark.parametrize(
    ("baseline", "included"),
    [("relu", "max(x, 0)"), ("silu", "sigmoid(x)*x"), ("tanh", "tanh(x)")],
)
def test_an_included_baseline_trains_once_with_a_warning(baseline, included, counted):
    assert _same_function(baseline, included)  # the premise, checked independently
    with pytest.warns(UserWarning, match=f"the baseline '{baseline}', trained once"):
        board = nn.search(
            "xor", budget=1, include=[included], baselines=[baseline], **OPTIONS
        )
    trained = [c[0] for c in counted]
    assert trained.count(baseline) == 1
    assert not any(
        _same_function(baseline, name) for name in trained if name != baseline
    )
    assert sum(_same_function(baseline, f) for f in board.formulas()) == 1


def test_drawn_candidates_equal_to_a_baseline_are_duplicates(counted):
    """The space b(u1(x), u2(x)) with u in {x, relu} and b = max holds max(x, x) =
    x (linear, rejected), max(x, relu(x)) = relu(x) and max(relu(x), relu(x)) =
    relu(x): with the baseline relu, nothing new is left to train."""
    with pytest.warns(UserWarning, match="no new candidate"):
        board = nn.search(
            "xor",
            budget=4,
            unary=("x", "relu"),
            binary=("max",),
            units=(1,),
            baselines=["relu"],
            strategy="random",
            **OPTIONS,
        )
    trained = [c[0] for c in counted]
    assert trained == ["relu"]
    assert board.duplicates >= 1
    assert [f for f in board.formulas()] == ["relu"]


def test_a_baseline_with_constants_hides_no_candidate(counted):
    """leaky_relu with its slope is another function than relu: max(x, 0) trains."""
    nn.search(
        "xor", budget=1, include=["max(x, 0)"], baselines=["leaky_relu"], **OPTIONS
    )
    trained = [c[0] for c in counted]
    assert len(trained) == 2 and "leaky_relu" in trained


def test_a_store_of_another_symnb_version_says_why_it_trains_again(
    tmp_path, monkeypatch, counted
):
    """A run's key includes the symnb version: after an upgrade the same sweep on
    the same store trained every run again without a word (a resume that started
    over). The runs still train (results may differ), with a warning that counts
    them and names both versions."""
    import symnb
    from symnb import datasets

    data = datasets.two_moons(40, seed=0)
    options = dict(OPTIONS, seeds=(0, 1), store=tmp_path / "runs.db")
    nn.compare(["relu", "tanh"], data, **options)
    assert len(counted) == 4
    old = symnb.__version__
    monkeypatch.setattr(symnb, "__version__", old + ".post1")
    with pytest.warns(RuntimeWarning) as caught:
        nn.compare(["relu", "tanh", "sin"], data, **options)
    text = " ".join(str(w.message) for w in caught)
    assert "holds 4 of these 6 runs" in text and f"symnb {old}" in text
    assert len(counted) == 4 + 6
    assert len(nn.RunStore(tmp_path / "runs.db")) == 4 + 6
    with warnings.catch_warnings():  # the same version again: all found, no word
        warnings.simplefilter("error")
        nn.compare(["relu", "tanh", "sin"], data, **options)
    assert len(counted) == 10


def _mixed_tasks():
    from symnb import datasets

    X, y = datasets.two_moons(40, seed=0)
    return {"moons": (X, y), "line": (X, 2.0 * X[:, 0] - X[:, 1])}


def test_compare_of_both_kinds_ranks_by_loss_and_names_what_lacks_accuracy():
    """A classification and a regression data set: every default score was NaN
    (accuracy averaged over a data set without accuracy), best() said "no values of
    'accuracy' to rank". The default is the loss both record; asking for accuracy
    names the data set that lacks it."""
    result = nn.compare(["relu", "tanh"], _mixed_tasks(), **OPTIONS)
    runs = result.runs_to_pandas()
    want = runs.groupby(["activation", "dataset"])["final_loss"].mean()
    want = want.groupby("activation").mean()  # loss averaged over the data sets
    scores = result.scores()
    for name in ("relu", "tanh"):
        assert scores[name] == pytest.approx(want[name], rel=1e-12)
    assert result.best() == min(want.index, key=lambda n: want[n])
    with pytest.raises(ValueError, match=r"not recorded on data set\(s\) \['line'\]"):
        result.best("accuracy")


def test_search_refuses_data_sets_of_both_kinds_before_any_run(counted):
    """It trained the first batch, then failed with a bare KeyError: 'accuracy_mean'."""
    with pytest.raises(ValueError, match=r"mix classification \(\['moons'\]\)"):
        nn.search(_mixed_tasks(), budget=2, **OPTIONS)
    assert counted == []


class _CtrlCOnce(nn.Callback):
    """Sends SIGINT (as Ctrl-C does) to this process at the ``at``-th epoch end,
    once; keeps its argument, so the store can key the runs that use it."""

    count = 0

    def __init__(self, at: int) -> None:
        self.at = at

    def on_epoch_end(self, epoch, logs):
        type(self).count += 1
        if type(self).count == self.at:
            os.kill(os.getpid(), signal.SIGINT)


@pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="SIGINT reaches only the main thread",
)
def test_ctrl_c_on_a_cluster_says_what_the_store_kept(tmp_path, monkeypatch):
    """With a client, Ctrl-C raised a bare KeyboardInterrupt from Dask's gather
    loop; the serial path says how many runs finished and where they are. Both do
    now, and the count is the store's."""
    from dask.distributed import Client, LocalCluster

    monkeypatch.setattr(_CtrlCOnce, "count", 0)
    path = tmp_path / "runs.db"
    options = dict(
        OPTIONS,
        epochs=4,
        seeds=(0, 1, 2),
        store=path,
        runs_per_task=1,
        callbacks=[_CtrlCOnce(at=7)],  # in the second run
    )
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        with pytest.raises(KeyboardInterrupt) as info:
            nn.compare(["relu", "tanh"], "xor", client=client, **options)
        text = str(info.value)
        match = re.search(r"(\d) of 6 runs finished in this call", text)
        assert match and str(path) in text and "cancelled" in text
        with nn.RunStore(path) as store:
            assert len(store) == int(match.group(1)) < 6
        resumed = nn.compare(["relu", "tanh"], "xor", client=client, **options)
    assert len(resumed.runs) == 6
    assert all(r["status"] == "ok" for r in resumed.runs)


@pytest.mark.parametrize("plot", ["plot_spread", "plot_curves"])
def test_plots_of_both_kinds_name_the_data_set_without_accuracy(plot):
    """plot_curves('accuracy') failed inside History with a KeyError naming no data
    set; plot_spread('accuracy') drew an empty panel for the regression one."""
    pytest.importorskip("matplotlib")
    result = nn.compare(["relu"], _mixed_tasks(), **OPTIONS)
    with pytest.raises(ValueError, match=r"not recorded on data set\(s\) \['line'\]"):
        getattr(result, plot)("accuracy")
    figure = getattr(result, plot)()  # the default: the loss both record
    assert len(figure.axes) == 2


def test_an_exhausted_search_space_is_said_and_the_empty_board_names_its_data(counted):
    """unary=('x',), binary=('+',) holds only x + x and x + x + ... (linear, all
    rejected): the search stopped with 0 candidates of the 4 asked, said only by a
    count, and the empty board read "mean accuracy over  and seeds"."""
    from symnb import datasets

    X, _ = datasets.two_moons(40, seed=0)
    target = {"line": (X, 2.0 * X[:, 0] - X[:, 1])}  # regression: scored by loss
    with pytest.warns(UserWarning, match=r"no new candidate.*0 of the 4 candidates"):
        board = nn.search(
            target, budget=4, unary=("x",), binary=("+",), baselines=(), **OPTIONS
        )
    assert len(board) == 0 and counted == []
    assert board.datasets == ["line"] and board.metric == "loss"
    assert "mean loss over line and seeds" in repr(board)


def test_a_store_path_under_the_home_folder(tmp_path, monkeypatch, counted):
    """store='~/runs.db' looked for a folder named '~' in the working directory
    ("the folder '/work/~' does not exist"); pandas and the shell read it as the
    home folder, and so does the store now."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    nn.compare(["relu"], "xor", store="~/runs.db", **OPTIONS)
    assert (tmp_path / "runs.db").is_file()
    assert not (tmp_path / "work" / "~").exists()
    nn.compare(["relu"], "xor", store="~/runs.db", **OPTIONS)
    assert len(counted) == 1  # the second call found the run in the same file
    with nn.RunStore("~/runs.db") as store:
        assert store.path == str(tmp_path / "runs.db") and len(store) == 1


def test_repeated_activations_are_named_once_not_the_whole_list(counted):
    """The message held the whole list: 200,000 names gave 1.8 MB of text."""
    names = ["relu", "tanh"] * 100_000
    with pytest.raises(ValueError) as info:
        nn.compare(names, "xor", **OPTIONS)
    text = str(info.value)
    assert len(text) < 400 and "'relu', 'tanh'" in text and "dict" in text
    assert counted == []
