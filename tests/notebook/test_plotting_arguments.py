"""``symnb.plotting`` arguments that drew a wrong picture or failed from inside.

* ``plot_activation('tanh', kernel=relu_kernel)`` drew relu's curves labelled tanh.
* ``loss_values(mse, target=1e39)`` on a float32 kernel plotted inf everywhere.
* ``plot_loss(targets=1.0)`` raised "'float' object is not iterable", ``targets=()``
  "need at least one array to concatenate", and ``targets='ab'`` was read per letter.
* ``plot_curves(log='no')`` and ``figure_to_png(tight='no')`` took the text as True.
* ``figure_to_png(None)`` raised "'NoneType' object has no attribute 'canvas'"."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import plotting


def test_a_kernel_of_another_activation_is_refused() -> None:
    relu = symnb.activation("relu").compile(backend="numpy")
    with pytest.raises(ValueError) as info:
        plotting.plot_activation("tanh", kernel=relu)
    message = str(info.value)
    assert "kernel= was compiled from activation 'relu'" in message
    assert "not from 'tanh'" in message


def test_a_kernel_with_other_constant_values_plots_its_own() -> None:
    swish = symnb.Activation("x*sigmoid(beta*x)", name="sw", beta=1.0)
    kernel = swish.compile(backend="numpy", dtype="float64")
    kernel.set_constants(beta=2.0)
    x, y, dy = plotting.activation_values(swish, (-3, 3), kernel=kernel, points=7)
    s = 1.0 / (1.0 + np.exp(-2.0 * x))
    np.testing.assert_allclose(y, x * s, rtol=1e-12)
    np.testing.assert_allclose(dy, s + 2.0 * x * s * (1 - s), rtol=1e-12)


def test_a_loss_of_another_formula_is_refused() -> None:
    mae = symnb.loss("mae").compile(backend="numpy")
    with pytest.raises(ValueError, match=r"kernel= was compiled from loss 'mae'"):
        plotting.loss_values(symnb.loss("mse"), kernel=mae)


@pytest.mark.parametrize("target", [1e39, -1e39, 1e-50])
def test_a_target_the_kernel_cannot_hold_is_refused(target) -> None:
    with pytest.raises(ValueError) as info:
        plotting.loss_values(symnb.loss("mse"), target=target)
    assert f"target={target!r} does not fit the kernel's float32" in str(info.value)


def test_a_float64_kernel_takes_the_large_target() -> None:
    mse = symnb.loss("mse")
    kernel = mse.compile(backend="numpy", dtype="float64")
    p, values, grad = plotting.loss_values(mse, target=1e39, kernel=kernel, points=3)
    np.testing.assert_allclose(values, (p - 1e39) ** 2, rtol=1e-12)
    np.testing.assert_allclose(grad, 2 * (p - 1e39), rtol=1e-12)


@pytest.mark.parametrize(
    ("targets", "error", "words"),
    [
        (1.0, TypeError, "targets must be a list of target values"),
        ("ab", TypeError, "targets must be a list of target values"),
        (None, TypeError, "targets must be a list of target values"),
        ((), ValueError, "targets is empty"),
    ],
)
def test_plot_loss_targets_must_be_a_list(targets, error, words) -> None:
    with pytest.raises(error) as info:
        plotting.plot_loss("mse", targets=targets)
    assert str(info.value).startswith("plot_loss: ") and words in str(info.value)


def test_flags_must_be_booleans() -> None:
    with pytest.raises(TypeError, match=r"plot_curves: log must be True or False"):
        plotting.plot_curves({"a": [1.0, 0.5]}, log="no")
    fig = plotting.plot_curves({"a": [1.0, 0.5]})
    with pytest.raises(TypeError, match=r"figure_to_png: tight must be True or False"):
        plotting.figure_to_png(fig, tight="no")


@pytest.mark.parametrize("fig", [None, "fig", 3])
def test_figure_to_png_needs_a_figure(fig) -> None:
    with pytest.raises(TypeError, match=r"figure_to_png takes a matplotlib Figure"):
        plotting.figure_to_png(fig)
