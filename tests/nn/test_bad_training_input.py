"""Hostile or mistaken arguments to MLP, fit, train_step/train_epoch, the optimizers,
the losses, save/load and the estimators: each gives a clear error naming the argument
(or, for pandas and bytes paths, works like the plain equivalent)."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

import symnb
from symnb import datasets, nn
from symnb.backends import status

X, Y = datasets.two_moons(40, seed=0)
CPP = pytest.mark.skipif(
    not status("cpp").usable, reason=f"cpp backend: {status('cpp').reason}"
)


def small(seed: int = 0, **kwargs) -> nn.MLP:
    kwargs.setdefault("backend", "numpy")
    return nn.MLP(
        [2, 4, 1], activation="tanh", loss="bce_with_logits", seed=seed, **kwargs
    )


# ------------------------------------------------ optimizer bound to another model
@pytest.mark.parametrize(
    "backend, fused", [("numpy", False), pytest.param("cpp", None, marks=CPP)]
)
def test_optimizer_of_another_model_is_refused(backend, fused):
    a = small(0, backend=backend, fused=fused)
    b = small(1, backend=backend, fused=fused)
    assert a.fused == (fused is None)
    before = a.get_flat_parameters()
    with pytest.raises(ValueError, match=r"not this model's.*model\.parameters\(\)"):
        a.fit(X, Y, epochs=2, optimizer=nn.Adam(b.parameters(), lr=0.05))
    for call in (a.train_step, a.train_epoch):
        with pytest.raises(ValueError, match="built on another model"):
            call(X, Y, nn.SGD(b.parameters(), lr=0.1))
    np.testing.assert_array_equal(a.get_flat_parameters(), before)


def test_optimizer_mixing_two_models_is_refused_but_a_subset_trains():
    a, b = small(0), small(1)
    mixed = [*a.parameters()[:2], *b.parameters()[2:]]
    with pytest.raises(ValueError, match="2 of 4: layers.1.weight"):
        a.fit(X, Y, epochs=1, optimizer=nn.SGD(mixed, lr=0.1))
    last_layer = nn.SGD(a.parameters()[2:], lr=0.1)  # fine-tuning the output layer
    w0, w1 = (a.parameters()[i].numpy() for i in (0, 2))
    a.fit(X, Y, epochs=1, optimizer=last_layer)
    np.testing.assert_array_equal(a.parameters()[0].numpy(), w0)
    assert not np.array_equal(a.parameters()[2].numpy(), w1)


@pytest.mark.parametrize("bad", ["sgd", None, 3])
def test_train_step_and_epoch_need_an_optimizer_instance(bad):
    model = small()
    for call in (model.train_step, model.train_epoch):
        with pytest.raises(TypeError, match=r"optimizer .*model\.parameters\(\)"):
            call(X, Y, bad)


# ------------------------------------------------ optimizer hyper-parameters
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0])
@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_weight_decay_must_be_finite(optimizer, value):
    with pytest.raises(
        ValueError, match="weight_decay must be finite and a number >= 0"
    ):
        small().fit(X, Y, epochs=1, optimizer=optimizer, weight_decay=value)
    cls = nn.Adam if optimizer == "adam" else nn.SGD
    with pytest.raises(ValueError, match="weight_decay"):
        cls(small().parameters(), weight_decay=value)
    opt = cls(small().parameters())
    with pytest.raises(ValueError, match="weight_decay"):
        opt.weight_decay = value


def test_weight_decay_override_of_an_instance_is_checked():
    model = small()
    opt = nn.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="weight_decay"):
        model.fit(X, Y, epochs=1, optimizer=opt, weight_decay=float("nan"))
    with pytest.raises(ValueError, match="momentum does not apply to Adam"):
        model.fit(X, Y, epochs=1, optimizer=nn.Adam(model.parameters()), momentum=0.9)


def test_optimizer_constructor_arguments():
    params = small().parameters()
    with pytest.raises(TypeError, match=r"betas must be a pair.*got 0.9"):
        nn.Adam(params, betas=0.9)
    with pytest.raises(ValueError, match="betas must be a pair"):
        nn.Adam(params, betas=(0.9, 0.99, 0.5))
    with pytest.raises(TypeError, match="betas must be a number"):
        nn.Adam(params, betas=("a", 0.9))
    with pytest.raises(TypeError, match=r"parameter 0 is 1.*model\.parameters\(\)"):
        nn.Adam([1, 2])
    with pytest.raises(TypeError, match="got the model itself"):
        nn.SGD(small())
    with pytest.raises(TypeError, match=r"momentum must be a number.*'a'"):
        nn.SGD(params, momentum="a")
    with pytest.raises(TypeError, match=r"eps must be a number"):
        nn.Adam(params, eps="tiny")


def test_fit_momentum_and_lr_types():
    with pytest.raises(TypeError, match=r"momentum must be a number.*'a'"):
        small().fit(X, Y, epochs=1, optimizer="sgd", momentum="a")
    with pytest.raises(TypeError, match=r"lr must be a number.*True"):
        small().fit(X, Y, epochs=1, lr=True)
    with pytest.raises(TypeError, match=r"lr must be a number.*'fast'"):
        small().fit(X, Y, epochs=1, lr="fast")
    small().fit(X, Y, epochs=1, lr=np.float32(0.01))  # NumPy numbers are fine


# ------------------------------------------------ fit arguments
def test_fit_arguments_name_themselves():
    model = small()
    with pytest.raises(TypeError, match=r"callbacks must be .*got 3"):
        model.fit(X, Y, epochs=1, callbacks=3)
    with pytest.raises(TypeError, match=r"callbacks must be .*got 'stop'"):
        model.fit(X, Y, epochs=1, callbacks="stop")
    with pytest.raises(TypeError, match=r"seed must be a non-negative integer.*'x'"):
        model.fit(X, Y, epochs=1, seed="x")
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer.*-1"):
        model.fit(X, Y, epochs=1, seed=-1)
    with pytest.raises(TypeError, match=r"l1 must be a number.*'a'"):
        model.fit(X, Y, epochs=1, l1="a")
    with pytest.raises(TypeError, match=r"l2 must be a number"):
        model.train_step(X, Y, nn.SGD(model.parameters()), l2="a")
    with pytest.raises(ValueError, match="l1 must be a finite number"):
        model.train_epoch(X, Y, nn.SGD(model.parameters()), l1=float("nan"))


@pytest.mark.parametrize("kwargs", [{"activation": 3}, {"output": 3.5}])
def test_activation_that_is_no_activation(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(TypeError, match=rf"^{name} must be a symnb.Activation"):
        nn.MLP([2, 4, 1], backend="numpy", **kwargs)


def test_an_activation_as_loss_is_refused_at_construction():
    with pytest.raises(TypeError, match=r"loss is an Activation \('relu'\)"):
        nn.MLP([2, 4, 1], backend="numpy", loss=symnb.activation("relu"))


@pytest.mark.parametrize("labels", [np.array(["a", "b"]), np.array(["a", "b"], object)])
def test_string_labels_say_how_to_encode(labels):
    with pytest.raises(ValueError, match=r"y must hold numbers.*MLPClassifier"):
        small().fit(X, labels[Y], epochs=1)
    multi = nn.MLP([2, 4, 2], loss="cross_entropy", backend="numpy")
    with pytest.raises(ValueError, match=r"y must hold numbers"):
        multi.fit(X, labels[Y], epochs=1)


def test_object_column_of_numbers_still_trains():
    history = small().fit(X, Y.astype(object), epochs=1)
    assert history.stop_reason == "completed"


def test_single_class_binary_fit_is_refused():
    with pytest.raises(ValueError, match="only class 0.*both 0 and 1"):
        small().fit(X, np.zeros_like(Y), epochs=1)
    with pytest.raises(ValueError, match="only class 1"):
        small().fit(X, np.ones_like(Y), epochs=1)
    # evaluating (or one step) on a one-class batch stays possible
    small().evaluate(X, np.zeros_like(Y))


# ------------------------------------------------ pandas and lists
def test_pandas_and_lists_work_like_arrays():
    pd = pytest.importorskip("pandas")
    ref = small()
    h_ref = ref.fit(X, Y, epochs=2, validation_data=(X, Y))
    model = small()
    h = model.fit(
        pd.DataFrame(X),
        pd.Series(Y),
        epochs=2,
        validation_data=(pd.DataFrame(X), pd.Series(Y)),
    )
    assert h.history["loss"] == h_ref.history["loss"]
    assert h.history["val_loss"] == h_ref.history["val_loss"]
    np.testing.assert_array_equal(
        model.get_flat_parameters(), ref.get_flat_parameters()
    )
    assert model.evaluate(pd.DataFrame(X), pd.Series(Y)) == ref.evaluate(X, Y)
    assert model.score(X.tolist(), Y.tolist()) == ref.score(X, Y)
    assert model.score(pd.DataFrame(X), pd.Series(Y)) == ref.score(X, Y)
    regressor = nn.MLP([2, 4, 1], backend="numpy")
    regressor.fit(X, pd.DataFrame(Y.astype(float)), epochs=1)


# ------------------------------------------------ losses
def test_bce_refuses_probabilities_outside_0_1():
    loss = nn.MLP([2, 4, 1], loss="bce", backend="numpy").loss
    ones = np.ones((3, 1), np.float32)
    with pytest.raises(ValueError, match=r"every prediction must be in \[0, 1\]"):
        loss.value(np.full((3, 1), 1.5, np.float32), ones)
    with pytest.raises(ValueError, match=r"every target must be in \[0, 1\]"):
        loss.value(np.full((3, 1), 0.5, np.float32), 2 * ones)
    grad = np.empty((3, 1), np.float32)
    with pytest.raises(ValueError, match="every prediction"):
        loss.value_and_gradient(np.full((3, 1), -0.5, np.float32), ones, grad)
    assert np.isclose(loss.value(np.full((3, 1), 0.5, np.float32), ones), np.log(2))


@pytest.mark.parametrize(
    "output, match",
    [
        ("linear", "output layer is linear"),
        ("relu", "relu gives 1.5"),
        ("tanh", "tanh gives -1"),
    ],
)
@pytest.mark.parametrize("backend", ["numpy", pytest.param("cpp", marks=CPP)])
def test_bce_refuses_an_output_layer_that_leaves_0_1(output, match, backend):
    """Refused at construction, so the fused step (which would only see a NaN loss
    and report 'diverged') and the generic one fail alike."""
    with pytest.raises(ValueError, match=rf"{match}.*output='sigmoid'"):
        nn.MLP([2, 4, 1], output=output, loss="bce", backend=backend)
    model = nn.MLP([2, 4, 1], output="sigmoid", loss="bce", backend=backend)
    assert model.fit(X, Y, epochs=1).stop_reason == "completed"


# ------------------------------------------------ estimators
@pytest.mark.parametrize(
    "labels",
    [
        np.where(Y > 0, np.nan, 0.0),
        np.where(Y > 0, np.inf, 0.0),
        np.where(Y > 0, None, "a").astype(object),
    ],
)
def test_classifier_refuses_missing_labels(labels):
    clf = nn.MLPClassifier(hidden_layer_sizes=(4,), epochs=1, backend="numpy")
    with pytest.raises(ValueError, match="missing or infinite label"):
        clf.fit(X, labels)


# ------------------------------------------------ save / load
def test_save_writes_through_a_symlink(tmp_path):
    model = small()
    target = tmp_path / "real.npz"
    target.write_bytes(b"old")
    link = tmp_path / "link.npz"
    link.symlink_to(target)
    model.save(link)
    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    np.testing.assert_array_equal(
        nn.load(target).get_flat_parameters(), model.get_flat_parameters()
    )


def test_save_through_a_dangling_symlink_creates_the_target(tmp_path):
    link = tmp_path / "link.npz"
    link.symlink_to(tmp_path / "new.npz")
    small().save(link)
    assert link.is_symlink() and (tmp_path / "new.npz").is_file()


def test_save_refuses_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="it is a FIFO, not a regular file"):
        small().save(fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    link = tmp_path / "to_pipe.npz"
    link.symlink_to(fifo)
    with pytest.raises(ValueError, match="FIFO"):
        small().save(link)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink()


def test_bytes_paths_and_directories(tmp_path):
    model = small()
    path = os.fsencode(tmp_path / "m.npz")
    model.save(path)
    np.testing.assert_array_equal(
        nn.load(path).get_flat_parameters(), model.get_flat_parameters()
    )
    with pytest.raises(IsADirectoryError, match="it is a directory; give the .npz"):
        nn.load(tmp_path)
    with pytest.raises(TypeError, match="path must be a file name"):
        model.save(3.5)
    with pytest.raises(TypeError, match="path must be a file name"):
        nn.load(None)


def test_set_flat_parameters_refuses_complex_and_strings():
    """Complex values kept their real part silently; strings gave NumPy's error."""
    model = nn.MLP([2, 4, 1], seed=0, backend="numpy")
    flat = model.get_flat_parameters()
    for bad in (flat * (1 + 5j), flat.astype(str)):
        with pytest.raises(TypeError, match=r"set_flat_parameters.*dtype.*real numbers"):
            model.set_flat_parameters(bad)
    np.testing.assert_array_equal(model.get_flat_parameters(), flat)
    model.set_flat_parameters(flat * 2)
    np.testing.assert_allclose(model.get_flat_parameters(), flat * 2, rtol=1e-7)
