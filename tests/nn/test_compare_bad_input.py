"""Bad arguments to ``compare`` and ``search``: each is a clear exception naming the
argument, the value and the fix, raised before any training (``counted`` stays
empty); and the valid spellings next to them behave (an int ``hidden``, a library
activation called in an included formula, the default ``scores`` of a regression)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symnb
from symnb import datasets, nn
from symnb.nn import sweep

X, Y = datasets.two_moons(60, seed=0)
FAST = {"seeds": (0,), "hidden": (4,), "epochs": 2, "backend": "numpy"}
FAST_SEARCH = {**FAST, "budget": 1, "population": 1, "baselines": ()}


def compare(activations=("relu",), data=(X, Y), **options):
    return nn.compare(activations, data, progress=False, **{**FAST, **options})


def search(data=(X, Y), **options):
    return nn.search(data, progress=False, **{**FAST_SEARCH, **options})


@pytest.fixture
def no_cluster(monkeypatch):
    """Fails a test that starts a Dask client: arguments are checked before."""

    def refuse(client):
        raise AssertionError(f"a cluster was started for {client!r}")

    monkeypatch.setattr(sweep, "open_client", refuse)


# ----------------------------------------------------------------- compare


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: compare("relu"), r"activations must be a list.*\['relu'\]"),
        (lambda: compare(None), "activations must be a list"),
        (lambda: search(baselines="relu"), r"baselines must be a list.*\['relu'\]"),
        (lambda: search(include="x*tanh(x)"), r"include must be a list.*x\*tanh"),
        (lambda: search(unary="sin"), r"unary must be a list.*\['sin'\]"),
        (lambda: compare(hidden="4"), r"hidden must be a list.*\(16, 16\)"),
    ],
)
def test_a_bare_string_for_a_list_is_refused(call, words, counted, no_cluster):
    with pytest.raises(TypeError, match=words):
        call()
    assert counted == []


def test_unknown_target_metric_lists_the_ones_recorded(counted):
    with pytest.raises(ValueError, match="target_metric='nope'.*loss, accuracy"):
        compare(target_metric="nope")
    # validation metrics only exist with validation data
    with pytest.raises(ValueError, match="target_metric='val_accuracy'"):
        compare(target_metric="val_accuracy")
    assert counted == []
    # a metric asked of fit is one the runs record
    result = compare(target_metric="f1", target=0.0, metrics=["f1"])
    assert result.rows[0]["epochs_to_target"] == 1.0


@pytest.mark.parametrize(
    "target, error", [(math.nan, ValueError), (math.inf, ValueError), ("a", TypeError)]
)
def test_target_must_be_a_finite_number(target, error, counted):
    with pytest.raises(error, match="target must be a"):
        compare(target=target)
    assert counted == []


@pytest.mark.parametrize(
    "data, words",
    [
        ((X, Y * 0), r"single class \(0\) in 60 row"),
        ((X[:1], Y[:1]), r"single class \(1\) in 1 row"),
        ((X[:0], Y[:0]), r"X has shape \(0, 2\); give at least one row"),
        ((X, Y[:-1]), "X has 60 rows but y has 59"),
        # NumPy's bare "setting an array element with a sequence" before
        (([[1.0, 2.0], [3.0]], [0, 1]), "X is ragged"),
        ((X, Y, [[1.0], [1.0, 2.0]], [0, 1]), "X_val is ragged"),
    ],
)
def test_unusable_data_is_named_not_the_sizes(data, words, counted, no_cluster):
    for call in (
        lambda: compare(data=data),
        lambda: search(data=data, client="local"),
    ):
        with pytest.raises(ValueError, match=f"dataset 'data': .*{words}") as info:
            call()
        assert "size" not in str(info.value)
    assert counted == []


@pytest.mark.parametrize(
    "option, words",
    [
        ({"seed": 3}, "compare sets 'seed'.*seeds="),
        (
            {"validation_data": (X, Y)},
            r"'validation_data'.*dataset=\(X_train, y_train, X_val, y_val\)",
        ),
    ],
)
def test_fit_arguments_that_compare_sets_are_refused(option, words, counted):
    with pytest.raises(TypeError, match=words):
        compare(**option)
    if "seed" not in option:  # search's own seed fixes its draws
        with pytest.raises(TypeError, match=words):
            search(**option)
    assert counted == []


def test_an_int_hidden_is_one_hidden_layer(counted):
    assert compare(hidden=4).scores() == compare(hidden=(4,)).scores()
    assert compare(hidden=np.int64(4)).scores() == compare(hidden=[4]).scores()
    for bad in ((0,), (4, -1), (2.5,), (True,)):
        with pytest.raises(ValueError, match=r"hidden\[\d\] must be an integer >= 1"):
            compare(hidden=bad)
    assert len(counted) == 4


def test_default_score_follows_the_loss():
    """A classification data set trained with loss='mse' has no accuracy: scores()
    and best() rank by the loss."""
    result = compare(["relu", "tanh"], loss="mse")
    assert "accuracy_mean" not in result.rows[0]
    by_loss = result.scores("loss")
    assert result.scores() == by_loss
    assert result.best() == min(by_loss, key=by_loss.get)
    classified = compare(["relu", "tanh"])
    assert classified.scores() == classified.scores("accuracy")


def test_plot_arguments_are_checked():
    result = compare(["relu", "tanh"])
    with pytest.raises(ValueError, match="metric='nope'.*accuracy, loss"):
        result.plot_spread(metric="nope")
    for top in (0, -1, 1.5):
        with pytest.raises(ValueError, match=f"top must be an integer >= 1, got {top}"):
            result.plot_curves(top=top)
    with pytest.raises(ValueError, match="metric='nope' was not recorded.*accuracy"):
        result.plot_curves(metric="nope")
    regression = compare(["relu"], loss="mse")
    with pytest.raises(ValueError, match="metric='accuracy'.*choose one of loss"):
        regression.plot_spread(metric="accuracy")


def test_plot_spread_defaults_to_the_loss_of_a_regression():
    """A regression's plot_spread() (no metric) was "metric='accuracy' is not a
    value of these runs": the default now follows scores() and best()."""
    regression = compare(["relu", "tanh"], loss="mse")
    ax = regression.plot_spread().axes[0]
    assert ax.get_ylabel() == regression.plot_spread("loss").axes[0].get_ylabel()
    classified = compare(["relu"])
    ax = classified.plot_spread().axes[0]
    assert ax.get_ylabel() == classified.plot_spread("accuracy").axes[0].get_ylabel()


def test_a_store_that_is_no_path_is_a_type_error():
    with pytest.raises(TypeError, match="store must be a file path.*got 3"):
        compare(store=3)


# ----------------------------------------------------------------- search


def test_included_formulas_call_library_activations_as_activation_does(counted):
    """README: every library activation is a function in formulas. The search reads
    include= as symnb.Activation does, and an equal spelling trains once."""
    assert symnb.Activation("gelu(x)").expr is not None  # the main parser's reading
    with pytest.warns(UserWarning, match="include='x\\*sigmoid\\(x\\)' is the same"):
        board = search(
            include=["gelu(x)", "x*softsign(x)", "silu(x)", "x*sigmoid(x)"], budget=3
        )
    assert sorted(board.formulas()) == ["gelu(x)", "silu(x)", "x*softsign(x)"]
    assert board.rejected == []
    assert sorted(c[0] for c in counted) == sorted(board.formulas())
    # the functions trained are the library's
    x = np.linspace(-3, 3, 13)
    references = {
        "gelu(x)": symnb.activation("gelu"),
        "silu(x)": symnb.activation("silu"),
        "x*softsign(x)": symnb.Activation("x*x/(1 + abs(x))"),
    }
    for formula, reference in references.items():
        got = symnb.Activation(formula).compile(backend="numpy", dtype="float64")
        want = reference.compile(backend="numpy", dtype="float64")
        assert np.allclose(got.forward(x), want.forward(x), rtol=1e-12)


def test_included_formulas_may_call_named_activations(counted):
    symnb.Activation("x*tanh(x)", name="search_bump")
    board = search(include=["search_bump(x) + sigmoid(x)"])
    assert "search_bump(x) + sigmoid(x)" in board.formulas()
    assert board.rejected == []


@pytest.mark.parametrize(
    "include, error, words",
    [
        (["x*sigmod(x)"], ValueError, r"include\[0\]='x\*sigmod\(x\)'.*'sigmoid'"),
        (["x", "gelu"], ValueError, r"include\[1\]='gelu'.*call it, e.g. gelu\(x\)"),
        (["__import__('os')"], ValueError, r"include\[0\].*not allowed"),
        ([3], TypeError, r"include\[0\] must be a formula text.*got 3"),
    ],
)
def test_an_included_formula_that_does_not_parse_is_an_error(
    include, error, words, counted, no_cluster
):
    with pytest.raises(error, match=words):
        search(include=include, client="local")
    assert counted == []


def test_a_baseline_may_be_an_activation_and_a_bad_one_is_named(counted):
    swish = symnb.Activation("x*sigmoid(b*x)", name="swish_b", b=1.5)
    board = search(baselines=[swish])
    assert "swish_b" in board.formulas()
    with pytest.raises(ValueError, match=r"baselines\[1\]='nope'.*unknown activation"):
        search(baselines=["relu", "nope"])


def test_a_baseline_given_twice_is_refused(counted, no_cluster):
    # ["relu", "relu"] trained relu twice and listed it twice on the leaderboard
    relu = symnb.activation("relu")
    for baselines in (["relu", "tanh", " relu"], ["relu", relu]):
        with pytest.raises(ValueError, match=r"\] *=.*repeats baselines\[0\]"):
            search(baselines=baselines, client="local")
    swish = symnb.Activation("x*sigmoid(b*x)", b=1.0)
    search(baselines=[swish, swish.with_constants(b=2.0)])  # other constants: fine
    assert counted != []


@pytest.mark.parametrize(
    "option, words",
    [
        ({"seed": -1}, "seed must be an integer >= 0, got -1"),
        ({"seed": "a"}, "seed must be an integer >= 0, got 'a'"),
        ({"budget": 2.5}, "budget must be an integer >= 1, got 2.5"),
        ({"population": 2.5}, "population must be an integer >= 1, got 2.5"),
        ({"time_budget": math.nan}, "time_budget must be a number of seconds >= 0"),
        ({"time_budget": -1}, "time_budget must be .* got -1"),
        ({"units": 3}, r"units must hold 1 and/or 2, got \[3\]"),
        ({"hidden": 0}, r"hidden\[0\] must be an integer >= 1, got 0"),
    ],
)
def test_bad_search_numbers_are_named_before_any_work(
    option, words, counted, no_cluster
):
    with pytest.raises(ValueError, match=words):
        search(client="local", **option)
    assert counted == []


def test_an_int_units_is_one_choice(counted):
    assert search(units=1).formulas() == search(units=(1,)).formulas()


def test_leaderboard_top_must_be_positive():
    board = search(include=["x*tanh(x)"], baselines=("relu",))
    assert len(board.best(1)) == 1 and len(board.formulas(2)) == 2
    for top in (0, -1, "a"):
        with pytest.raises(ValueError, match="top must be an integer >= 1"):
            board.best(top)
        with pytest.raises(ValueError, match="top must be an integer >= 1"):
            board.formulas(top)


@pytest.mark.parametrize(
    "option, error, words",
    [
        ({"epochs": -1}, ValueError, r"epochs must be an integer >= 1, got -1"),
        ({"epochs": 2.5}, ValueError, r"epochs must be an integer >= 1, got 2.5"),
        ({"batch_size": 0}, ValueError, r"batch_size must be a positive integer"),
        ({"lr": -1.0}, ValueError, r"lr must be finite and a positive number"),
        ({"optimizer": "sdg"}, ValueError, r"unknown optimizer 'sdg'"),
        (
            {"optimizer": "sgd", "momentum": "a"},
            TypeError,
            r"momentum must be a number",
        ),
        ({"metrics": ["nope"]}, ValueError, r"unknown metric 'nope'"),
    ],
)
def test_bad_fit_values_are_refused_before_any_run(
    option, error, words, counted, no_cluster
):
    """They reached MLP.fit only inside each run (on a cluster: after it started, each
    worker's failure wrapped in a RuntimeError; epochs=2.5 ran 2 epochs). Now MLP.fit
    itself checks them on a model that trains no epoch, before any run or cluster."""
    with pytest.raises(error, match=words):
        compare(client="local", **option)
    assert counted == []


@pytest.mark.parametrize("address", ["tcp://", "foo://bar", "tcp://:::"])
def test_an_unusable_scheduler_address_is_named(address):
    """Dask said only ``KeyError: 'distributed'`` for these."""
    with pytest.raises(
        ValueError, match=r"is not a scheduler address.*tcp://scheduler:8786"
    ):
        sweep.open_client(address)


def test_a_scheduler_that_does_not_answer_is_named():
    dask = pytest.importorskip("dask", reason="the dask extra is not installed")
    refused = r"client='tcp://127.0.0.1:1': no Dask scheduler"
    with (
        dask.config.set({"distributed.comm.timeouts.connect": "1s"}),
        pytest.raises(OSError, match=refused),
    ):
        sweep.open_client("tcp://127.0.0.1:1")


@pytest.mark.parametrize(
    "option, hint",
    [("learning_rate", "lr"), ("epoch", "epochs"), ("batchsize", "batch_size")],
)
@pytest.mark.parametrize("face", [compare, search])
def test_an_unknown_option_is_named_with_the_one_meant(face, option, hint, counted):
    """Was MLP.fit's "MLP.fit() got an unexpected keyword argument
    'learning_rate'" (of a call the user never made), with no word of the fix."""
    with pytest.raises(TypeError, match=rf"unknown option '{option}' \(did you mean "):
        face(**{option: 1})
    with pytest.raises(TypeError, match=rf"did you mean '{hint}'\?.*MLP.fit's: "):
        face(**{option: 1})
    assert counted == []


@pytest.mark.parametrize("y", [np.zeros(30), np.full(30, 2.5), np.zeros((30, 2))])
def test_constant_regression_targets_are_refused(y) -> None:
    """compare on targets that never vary trained every activation to the same
    constant and reported a table of equal scores without a word (a single class was
    already refused); now a ValueError naming the value."""
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match=r"single value .* in all 30 row"):
        nn.compare(["relu"], (X, y), loss="mse", epochs=1, progress=False, seeds=[0])
