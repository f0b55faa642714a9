"""The fused step's update checks against the generic (NumPy) path.

SGD's native update checks the gradient and the new parameters in a pass that stores
nothing and then stores them (no backup copy); Adam's sums the new parameters in its
update loop. A step whose update would make the parameters non-finite must leave them
as before, move the optimizer's state as ``optimizer.step()`` followed by a restore
does (the generic path), and be reported as the parameters diverging, for every SGD
variant (plain, momentum, Nesterov, weight decay) and Adam.
"""

from __future__ import annotations

import numpy as np
import pytest

from symnb import nn
from symnb.backends import status

pytestmark = pytest.mark.skipif(
    not status("cpp").usable, reason=f"cpp backend: {status('cpp').reason}"
)

VARIANTS = {
    "sgd": {},
    "sgd-decay": {"weight_decay": 0.1},
    "sgd-momentum": {"momentum": 0.9},
    "sgd-nesterov-decay": {"momentum": 0.5, "nesterov": True, "weight_decay": 0.1},
}


def _data():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(24, 3))
    y = np.tanh(X @ rng.normal(size=(3, 1))) + 0.1 * rng.normal(size=(24, 1))
    return X, y


def _train(fused, dtype, make_optimizer, epochs, batch_size=8, scale=1.0):
    model = nn.MLP(
        [3, 5, 1],
        activation="x*sigmoid(x)",
        loss="mse",
        backend="cpp",
        dtype=dtype,
        seed=1,
        fused=fused,
    )
    assert model.fused is fused
    X, y = _data()
    y = y * scale
    before = model.get_flat_parameters().copy()
    optimizer = make_optimizer(model.parameters())
    history = model.fit(
        X, y, epochs=epochs, batch_size=batch_size, optimizer=optimizer, seed=0
    )
    return model, optimizer, history, before


def _state(optimizer):
    names = ("_velocity", "_m", "_v")
    return [
        np.asarray(getattr(optimizer, n)[0])
        for n in names
        if getattr(optimizer, n, None) and getattr(optimizer, n)[0] is not None
    ]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_sgd_update_that_overflows_keeps_parameters_moves_velocity(variant, dtype):
    # gradients of ~1e3 (targets scaled) times this rate overflow: the new
    # parameters are infinite while the loss and the gradient are finite
    lr = 3e38 if dtype == "float32" else 1e308
    out = []
    for fused in (True, False):
        with pytest.warns(RuntimeWarning, match="parameters became NaN or infinite"):
            out.append(
                _train(
                    fused,
                    dtype,
                    lambda p: nn.SGD(p, lr=lr, **VARIANTS[variant]),
                    3,
                    scale=1e4,
                )
            )
    (m_f, o_f, h_f, before_f), (m_g, o_g, h_g, before_g) = out
    np.testing.assert_array_equal(before_f, before_g)
    for model, history, before in ((m_f, h_f, before_f), (m_g, h_g, before_g)):
        assert history.stop_reason == "diverged" and history.steps == 0
        assert history.partial == {"epoch": 1, "step": 1}
        np.testing.assert_array_equal(model.get_flat_parameters(), before)
    assert o_f.steps == o_g.steps
    state_f, state_g = _state(o_f), _state(o_g)
    assert (
        len(state_f) == len(state_g) == (1 if VARIANTS[variant].get("momentum") else 0)
    )
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for a, b in zip(state_f, state_g):
        assert np.all(a != 0)  # the first step's gradient: it moved
        np.testing.assert_allclose(a, b, rtol=rtol, atol=0)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_sgd_variants_train_as_the_generic_path(variant):
    """Several finite steps: the two-pass native SGD gives the generic update."""
    out = [
        _train(fused, "float64", lambda p: nn.SGD(p, lr=0.05, **VARIANTS[variant]), 4)
        for fused in (True, False)
    ]
    (m_f, o_f, h_f, _), (m_g, o_g, h_g, _) = out
    assert h_f.stop_reason == h_g.stop_reason == "completed"
    np.testing.assert_allclose(h_f["loss"], h_g["loss"], rtol=1e-12)
    np.testing.assert_allclose(
        m_f.get_flat_parameters(), m_g.get_flat_parameters(), rtol=1e-11, atol=1e-14
    )
    for a, b in zip(_state(o_f), _state(o_g)):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-14)


def test_sgd_gradient_not_finite_changes_nothing():
    """A non-finite gradient with a finite loss (x**(1/3) has an infinite slope at
    0, where every hidden input is) stops before any update: parameters as before,
    no step counted, reported as the gradient, as on the generic path."""
    out = []
    for fused in (True, False):
        model = nn.MLP(
            [1, 2, 1],
            activation="x**(1/3)",
            loss="mse",
            backend="cpp",
            dtype="float32",
            seed=0,
            fused=fused,
        )
        model.set_flat_parameters(np.zeros(model.n_parameters))
        opt = nn.SGD(model.parameters(), lr=1e-3, momentum=0.9)
        X, y = np.zeros((4, 1)), np.ones((4, 1))
        with pytest.warns(RuntimeWarning, match="NaN or infinite") as record:
            h = model.fit(X, y, epochs=1, batch_size=2, optimizer=opt)
        out.append((str(record[0].message), h, model, opt))
    for message, h, model, opt in out:
        assert "the gradient became" in message and h.stop_reason == "diverged"
        np.testing.assert_array_equal(model.get_flat_parameters(), 0.0)
        assert opt.steps == 0
        velocity = opt._velocity[0]
        assert velocity is None or not np.any(velocity)
    assert out[0][0] == out[1][0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adam_update_that_overflows_keeps_parameters_moves_moments(dtype):
    big = 1e38 if dtype == "float32" else 1e307
    out = []
    for fused in (True, False):
        with pytest.warns(RuntimeWarning, match="parameters became NaN or infinite"):
            # Adam's first step is about lr per parameter: lr = big * 10 overflows
            out.append(_train(fused, dtype, lambda p: nn.Adam(p, lr=big * 10.0), 2))
    (m_f, o_f, h_f, before_f), (_, o_g, h_g, _) = out
    assert h_f.partial == h_g.partial == {"epoch": 1, "step": 1}
    np.testing.assert_array_equal(m_f.get_flat_parameters(), before_f)
    assert o_f.steps == o_g.steps == 1
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for a, b in zip(_state(o_f), _state(o_g), strict=True):
        assert np.any(a != 0)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=0)


def test_fit_reuses_one_epoch_function_for_new_arrays_of_the_same_layout():
    """Each fit converts X and y anew; the configured epoch function is reused (its
    data pointers repointed), and the new data is what it trains on."""
    model = nn.MLP([3, 5, 1], loss="mse", backend="cpp", seed=1, fused=True)
    X, y = _data()
    opt = nn.SGD(model.parameters(), lr=0.05)
    model.fit(X, y, epochs=1, batch_size=8, optimizer=opt, seed=0)
    impl = model._fused_step()
    first = impl._epoch_cache[3]
    reference = nn.MLP([3, 5, 1], loss="mse", backend="cpp", seed=1, fused=False)
    ref_opt = nn.SGD(reference.parameters(), lr=0.05)
    reference.fit(X, y, epochs=1, batch_size=8, optimizer=ref_opt, seed=0)
    # different data of the same shape: must train on it, not on the first arrays
    X2, y2 = X[::-1] * 0.5, -y
    h = model.fit(X2, y2, epochs=2, batch_size=8, optimizer=opt, seed=1)
    h_ref = reference.fit(X2, y2, epochs=2, batch_size=8, optimizer=ref_opt, seed=1)
    assert impl._epoch_cache[3] is first
    np.testing.assert_allclose(h["loss"], h_ref["loss"], rtol=1e-5)
    np.testing.assert_allclose(
        model.get_flat_parameters(),
        reference.get_flat_parameters(),
        rtol=1e-4,
        atol=1e-6,
    )
    # the cached function holds no reference to earlier fits' converted arrays
    data = impl._epoch_cache[4]
    assert data[0].base is None and np.array_equal(data[0], np.asarray(X2, "f4"))
