"""Messages from the Playground's browser view with missing or mistyped fields (a
view of another symnb version, e.g. a page not reloaded after an upgrade). Before:
KeyError 'layer', "'>' not supported between instances of 'str' and 'int'",
"invalid literal for int()" tracebacks; now one ValueError naming the field."""

from __future__ import annotations

import pytest

from symnb.widgets import Playground


@pytest.fixture
def pg(fake_nn):
    p = Playground(frame_interval=0.0)
    yield p
    p.pause()


def deliver(pg: Playground, msg: dict) -> None:
    pg._sink.guard(pg._on_message)(msg)  # as PlaygroundView.listen routes it


@pytest.mark.parametrize(
    ("msg", "field"),
    [
        ({"kind": "neurons", "delta": 1}, "no 'layer'"),
        ({"kind": "neurons", "layer": "a", "delta": 1}, "layer='a'"),
        ({"kind": "neurons", "layer": 0.5, "delta": 1}, "layer=0.5"),
        ({"kind": "neurons", "layer": 0, "delta": "x"}, "delta='x'"),
        ({"kind": "layers", "delta": None}, "delta=None"),
        ({"kind": "activation", "layer": 0, "neuron": "1", "name": "relu"}, "neuron"),
        ({"kind": "activation", "layer": "0", "name": "relu"}, "layer='0'"),
        ({"kind": "activation", "layer": 0, "name": 5}, "name=5"),
        ({"kind": "activation", "layer": 0, "name": "relu", "seq": "5"}, "seq='5'"),
        ({"kind": "weight", "layer": 0}, "no 'source'"),
        ({"kind": "weight", "layer": 0, "source": 0, "target": 0, "value": "1"}, "'1'"),
        (
            {"kind": "weight", "layer": 0, "source": 0, "target": 0, "value": None},
            "value=None",
        ),
    ],
)
def test_malformed_view_message_is_named(pg, msg, field) -> None:
    before = (list(pg._hidden), [list(r) for r in pg._neuron_acts], pg._layer_acts[:])
    weights = [w.copy() for w in pg.snapshot().weights]
    deliver(pg, msg)
    (error,) = pg.errors
    assert isinstance(error, ValueError)
    text = str(error)
    assert field in text and repr(msg["kind"]) in text and "reload" in text
    after = (list(pg._hidden), [list(r) for r in pg._neuron_acts], pg._layer_acts[:])
    assert after == before
    for w0, w1 in zip(weights, pg.snapshot().weights, strict=True):
        assert (w0 == w1).all()


def test_well_formed_messages_still_work(pg) -> None:
    deliver(pg, {"kind": "neurons", "layer": 0, "delta": 1, "seq": 3})
    deliver(pg, {"kind": "neurons", "layer": 1.0, "delta": -1.0, "seq": 4})
    assert pg._hidden == [5, 1] and pg.view.ack == 4
    neuron = {"kind": "activation", "layer": 0, "neuron": 2, "name": "relu"}
    deliver(pg, {**neuron, "seq": 5, "session": "s"})
    layer = {"kind": "activation", "layer": 1, "neuron": -1, "name": "sigmoid"}
    deliver(pg, {**layer, "seq": 6, "session": "s"})
    assert pg._neuron_acts[0][2] == "relu" and pg._layer_acts[1] == "sigmoid"
    deliver(pg, {"kind": "layers", "delta": 1})
    assert len(pg._hidden) == 3
    deliver(pg, {"kind": "weight", "layer": 0, "source": 1, "target": 0, "value": 0.25})
    assert pg.snapshot().weights[0][1, 0] == pytest.approx(0.25)
    assert pg.errors == []


def test_optimizer_choices_do_not_wait_for_a_long_epoch(fake_nn) -> None:
    """With large data of your own an epoch takes seconds; a learning-rate or
    optimizer click waited for it on the kernel's main thread (measured: 4.5 s with
    20,000 points and batch size 1), so the whole notebook froze."""
    import time

    pg = Playground(frame_interval=0.0)
    fake_nn.delay = 3.0
    pg.play()
    time.sleep(0.2)  # inside the first epoch
    training = pg.model
    assert training.active  # the epoch runs
    t0 = time.monotonic()
    pg.learning_rate.value = 0.1
    pg.optimizer.value = "adam"
    pg.learning_rate.value = 0.3
    pg.optimizer.value = "momentum"
    pg.learning_rate.value = 0.01
    waited = time.monotonic() - t0
    # the clicks returned while the epoch still ran (not a time limit: a loaded
    # machine made "waited < 0.3 s" fail where nothing waited)
    assert training.active, waited
    assert pg.pause(10)
    assert pg._optimizer.name == "momentum" and pg._optimizer.lr == 0.01
    assert all(m.violations == [] for m in fake_nn.instances)
    fake_nn.delay = 0.0
    pg.optimizer.value = "sgd"  # not running: built at once
    assert pg._optimizer.name == "sgd" and pg._optimizer.lr == 0.01
    pg.step()
    last = fake_nn.instances[-1].train_calls[-1]["optimizer"]
    assert last is pg._optimizer
    assert pg.errors == []


def test_network_changes_do_not_wait_for_a_long_epoch(fake_nn) -> None:
    """A neuron, layer or activation click during a long epoch waited for it on the
    main thread; now it waits at most REBUILD_WAIT and the training thread makes
    the change before its next epoch."""
    import time

    from symnb.widgets import playground

    pg = Playground(frame_interval=0.0, config={"hidden": [2, 2]})
    fake_nn.delay = 5.0
    pg.play()
    time.sleep(0.2)  # inside the first epoch
    training = pg.model
    assert training.active  # the epoch runs
    t0 = time.monotonic()
    pg.add_neuron(0)
    pg.set_activation("relu", layer=1)
    pg.add_layer()
    pg.remove_neuron(1)
    waited = time.monotonic() - t0
    # each call waited at most REBUILD_WAIT (4 x 0.25 s), not for the epoch: they
    # returned while it ran (CI's limit of 1.8 s failed at 4.1 s on a loaded machine)
    assert training.active, (waited, playground.REBUILD_WAIT)
    assert pg.view.hidden == [3, 1, 2]  # the view follows at once
    assert pg.pause(10)
    model = pg.model
    assert model.sizes == [2, 3, 1, 2, 1]
    assert model.activation == ["tanh", "relu", "relu"]
    assert all(m.violations == [] for m in fake_nn.instances)
    assert pg.errors == []
    fake_nn.delay = 0.0
    pg.add_neuron(2)  # not running: made at once
    assert pg.model.sizes == [2, 3, 1, 3, 1]
    pg.step()
    assert pg.errors == [] and pg.epoch >= 1


def test_keep_weights_and_fresh_changes_merge(fake_nn) -> None:
    """An activation change keeps the weights, a structure change starts afresh;
    both during one epoch: afresh (epoch 0)."""
    import time

    pg = Playground(frame_interval=0.0, config={"hidden": [2]})
    fake_nn.delay = 0.8
    pg.play()
    time.sleep(0.1)
    pg.set_activation("relu")  # keeps weights and epochs
    pg.add_neuron(0)  # a new network
    assert pg.pause(10)
    assert pg.model.sizes == [2, 3, 1] and pg.model.activation == ["relu"]
    assert pg.epoch <= 1  # the first epoch's count may land before the rebuild


def test_weight_edits_do_not_wait_for_a_long_epoch(fake_nn) -> None:
    """A weight dragged in the browser during a long epoch waited for it on the
    main thread; now it is checked at once and written before the next epoch."""
    import time

    from symnb.widgets import playground

    pg = Playground(frame_interval=0.0, config={"hidden": [3]})
    fake_nn.delay = 2.5
    pg.play()
    time.sleep(0.2)
    t0 = time.monotonic()
    deliver(pg, {"kind": "weight", "layer": 0, "source": 1, "target": 2, "value": 7.0})
    deliver(pg, {"kind": "weight", "layer": 1, "source": 2, "target": 0, "value": -3.0})
    with pytest.raises(IndexError):
        pg.set_weight(1, 5, 0, 1.0)  # still checked at once
    waited = time.monotonic() - t0
    assert waited < 3 * playground.REBUILD_WAIT + 0.8, waited  # old: >= 2.3 s
    assert pg.pause(10)
    model = pg.model
    # written before the next epoch (or when training stopped), then trained on:
    # the fake shrinks every weight by 0.99 per epoch
    assert model.weights[0][1, 2] == pytest.approx(7.0, rel=0.02)
    assert model.weights[1][2, 0] == pytest.approx(-3.0, rel=0.02)
    assert pg.errors == [] and all(m.violations == [] for m in fake_nn.instances)
    fake_nn.delay = 0.0
    pg.set_weight(0, 0, 0, 0.5)  # not running: at once
    assert model.weights[0][0, 0] == 0.5
