"""MLP arguments of the wrong kind. Before: ``MLP({2, 16, 1})`` built a [1, 2, 16]
network (a set iterates in its own order) and a dict its keys' order, ``MLP("2,3")``
was "every size must be a positive integer, got ['2', ',', '3']", ``MLP(b"\\x02\\x03")``
a [2, 3] network; ``dtype=None`` built a float64 network (np.dtype(None)) and
``dtype="foo"`` was NumPy's "data type 'foo' not understood"; ``fit(metrics=3)`` was
"'int' object is not iterable"."""

from __future__ import annotations

import numpy as np
import pytest

from symnb.nn import MLP


@pytest.mark.parametrize(
    "sizes", [{2, 16, 1}, {2: 0, 16: 0, 1: 0}, frozenset({2, 3}), "2,3", b"\x02\x03"]
)
def test_unordered_or_text_sizes_are_refused(sizes) -> None:
    with pytest.raises(TypeError, match="sizes must be an ordered list"):
        MLP(sizes)


@pytest.mark.parametrize("sizes", [(2, 3, 1), np.array([2, 3, 1]), range(2, 4)])
def test_ordered_sizes_still_work(sizes) -> None:
    assert MLP(sizes).sizes == [int(s) for s in sizes]


@pytest.mark.parametrize("dtype", [None, "foo", object()])
def test_dtype_of_the_wrong_kind_names_dtype(dtype) -> None:
    with pytest.raises(TypeError, match="dtype must be 'float32'"):
        MLP([2, 3, 1], dtype=dtype)


def test_dtype_names_still_work() -> None:
    assert MLP([2, 3, 1], dtype=np.float64).dtype == np.float64
    assert MLP([2, 3, 1]).dtype == np.float32


@pytest.mark.parametrize("metrics", [3, 2.5, True])
def test_metrics_of_the_wrong_kind(metrics) -> None:
    X = np.random.default_rng(0).normal(size=(20, 2))
    y = (X[:, 0] > 0).astype(float)
    model = MLP([2, 3, 1], loss="bce_with_logits")
    with pytest.raises(TypeError, match="metrics must be a metric name"):
        model.fit(X, y, epochs=1, metrics=metrics)
    with pytest.raises(TypeError, match="metrics must be a metric name"):
        model.evaluate(X, y, metrics=metrics)
    history = model.fit(X, y, epochs=1, metrics=("f1", "accuracy"))
    assert set(history.keys()) >= {"f1", "accuracy"}
    assert set(model.evaluate(X, y, metrics={"f1"})) == {"loss", "f1"}


@pytest.mark.parametrize(
    "spec",
    [{"relu", "tanh"}, frozenset({"relu", "tanh"}), {"a": "relu", "b": "tanh"}],
    ids=["set", "frozenset", "dict"],
)
@pytest.mark.parametrize("where", ["activation", "output"])
def test_activation_lists_must_be_ordered(spec, where):
    """A set of names gave layers (or neurons) their activations in the set's
    order, which string hashing changes between processes (the same script built
    relu-tanh or tanh-relu); a dict gave its keys ("unknown activation 'a'")."""
    from symnb.nn import MLP

    kwargs = {where: spec} if where == "activation" else {where: spec, "loss": "mse"}
    sizes = [2, 3, 4, 1] if where == "activation" else [2, 3, 2]
    with pytest.raises(TypeError, match=rf"^{where} must be an ordered list"):
        MLP(sizes, **kwargs)


@pytest.mark.parametrize("loss", ["mse", "huber", "log_cosh"])
@pytest.mark.parametrize("outputs", [1, 3])
def test_multiclass_task_with_an_elementwise_loss_names_the_options(
    loss, outputs
) -> None:
    """MLP(task='multiclass') with an elementwise loss (the default mse too) said
    "ElementwiseLoss: task must be 'regression' or 'binary'", naming a class the
    user never called and neither of their arguments."""
    with pytest.raises(ValueError) as info:
        MLP([2, 4, outputs], task="multiclass", loss=loss)
    message = str(info.value)
    assert message.startswith("task='multiclass' trains with loss='cross_entropy'")
    assert f"loss {loss!r} is an elementwise loss" in message
    assert "ElementwiseLoss" not in message
    assert MLP([2, 4, 3], task="multiclass", loss="cross_entropy").task == "multiclass"
