"""``symnb.plotting`` with arguments out of range (a hostile-input probe,
2026-12-04). Before: ``points=10**10`` asked NumPy for 75 GiB (MemoryError),
``loss_values(points=10**7)`` ran for minutes (one kernel call per point), a NaN or
inf range drew an all-NaN plot without a word, 1e39 overflowed the float32 grid,
``plot_activation(a_loss)`` / ``plot_loss(an_activation)`` / ``plot_curves([...])``
failed with AttributeError from inside, and ``figure_to_png(dpi=100000)`` raised
std::bad_alloc."""

from __future__ import annotations

import numpy as np
import pytest

import symnb
from symnb import plotting


@pytest.fixture(scope="module")
def swish():
    return symnb.Activation("x*sigmoid(x)", name="sw")


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.mark.parametrize("points", [0, 1, -5, 2.5, "10", True, 10**10, 20_001])
def test_points_out_of_range(swish, points) -> None:
    with pytest.raises(ValueError) as info:
        plotting.activation_values(swish, points=points)
    assert "points must be a whole number from 2 to 20,000" in str(info.value)


def test_many_loss_points_are_refused_quickly() -> None:
    import time

    t0 = time.monotonic()
    with pytest.raises(ValueError):
        plotting.loss_values(symnb.loss("mse"), points=10**7)
    assert time.monotonic() - t0 < 5


@pytest.mark.parametrize(
    ("span", "error", "words"),
    [
        ((4, -4), ValueError, "low < high"),
        ((float("nan"), 1), ValueError, "finite"),
        ((-float("inf"), 1), ValueError, "finite"),
        ((-1e39, 1e39), ValueError, "3.403e+38"),
        ((1.0, 1.00000001), ValueError, "narrower than float32"),
        (("a", 1), TypeError, "pair (low, high)"),
        ((1, 2, 3), TypeError, "pair (low, high)"),
        (None, TypeError, "pair (low, high)"),
    ],
)
def test_range_is_checked(swish, span, error, words) -> None:
    with pytest.raises(error) as info:
        plotting.activation_values(swish, span)
    assert words in str(info.value) and "x_range" in str(info.value)


def test_float64_kernel_takes_a_float64_range(swish) -> None:
    kernel = swish.compile(backend="numpy", dtype="float64")
    x, _y, _dy = plotting.activation_values(swish, (-1e39, 1e39), kernel=kernel)
    assert np.isfinite(x).all() and x[0] == -1e39


def test_values_match_numpy(swish) -> None:
    x, y, dy = plotting.activation_values(swish, (-6, 6), points=101)
    s = _sigmoid(x)
    np.testing.assert_allclose(y, x * s, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dy, s + x * s * (1 - s), rtol=1e-5, atol=1e-6)
    x, y, dy = plotting.activation_values("relu", (-2, 2), points=5)  # a name
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    p, v, g = plotting.loss_values("mse", (-2, 2), target=0.5, points=5)
    np.testing.assert_allclose(v, (p - 0.5) ** 2, rtol=1e-6)
    np.testing.assert_allclose(g, 2 * (p - 0.5), rtol=1e-5, atol=1e-6)


def test_activation_and_loss_are_not_mixed_up(swish) -> None:
    with pytest.raises(TypeError) as info:
        plotting.plot_activation(symnb.loss("mse"))
    assert "a loss is drawn by plot_loss" in str(info.value)
    with pytest.raises(TypeError) as info:
        plotting.plot_loss(swish)
    assert "an activation is drawn by plot_activation" in str(info.value)
    with pytest.raises(TypeError) as info:
        plotting.activation_values(swish, kernel=symnb.loss("mse").compile("numpy"))
    assert "kernel=" in str(info.value)
    with pytest.raises(TypeError):
        plotting.plot_activation(42)


@pytest.mark.parametrize("target", [float("nan"), float("inf"), "a", None])
def test_loss_target_is_checked(target) -> None:
    with pytest.raises(ValueError) as info:
        plotting.loss_values(symnb.loss("mse"), target=target)
    assert "target" in str(info.value)


def test_curves_are_checked() -> None:
    with pytest.raises(TypeError) as info:
        plotting.plot_curves([1, 2, 3])
    assert "dict" in str(info.value)
    with pytest.raises(ValueError) as info:
        plotting.plot_curves({"a": ["x", "y"]})
    assert "curves['a']" in str(info.value)
    fig = plotting.plot_curves({"a": [np.nan, np.inf, 1.0], "b": []}, log=True)
    assert plotting.figure_to_png(fig)[:4] == b"\x89PNG"


@pytest.mark.parametrize("dpi", [0, -5, 100_000, float("nan"), "90"])
def test_png_dpi_is_checked(swish, dpi) -> None:
    fig = plotting.plot_activation(swish)
    with pytest.raises(ValueError) as info:
        plotting.figure_to_png(fig, dpi=dpi)
    assert "dpi" in str(info.value)


def test_plot_near_the_float64_maximum_draws_without_warnings(swish) -> None:
    """``%%symact --range 1e300:1e308 --dtype float64`` showed matplotlib's tick
    locator warning "overflow encountered in multiply" under the picture."""
    import warnings

    kernel = swish.compile(backend="numpy", dtype="float64")
    fig = plotting.plot_activation(swish, (1e300, 1e308), kernel=kernel)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        png = plotting.figure_to_png(fig)
    assert png.startswith(b"\x89PNG") and len(png) > 1000


def _scale(label: str) -> float:
    """The unit an axis label names ("x (×1e+308)" -> 1e308), else 1."""
    return float(label.rsplit("×", 1)[1].rstrip(")")) if "×" in label else 1.0


@pytest.mark.parametrize(
    ("formula", "span"),
    [
        ("x*1e300", (-1e10, 1e10)),  # values up to 1.8e308: LinAlgError
        ("x", (-1.7e308, 1.7e308)),  # high - low overflows: refused as not finite
        ("x", (0.7e308, 0.9e308)),  # 'arange: cannot compute length'
        ("x", (-1.6e308, -1.1e308)),
        ("x**2", (1e300, 1e308)),  # overflow warnings from matplotlib's margins
    ],
)
def test_plots_near_the_float64_maximum_are_drawn_to_scale(formula, span) -> None:
    """Values or ranges near the float64 maximum broke matplotlib's ticks and
    transforms (LinAlgError 'Singular matrix', ValueError 'arange: cannot compute
    length', OverflowError) when the figure was drawn, and a range whose width
    overflowed was refused although both ends fit. Now they are drawn in units of a
    power of ten, said in the axis label."""
    import warnings

    act = symnb.Activation(formula, name="big")
    kernel = act.compile(backend="numpy", dtype="float64")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plotting.plot_activation(act, span, kernel=kernel)
        png = plotting.figure_to_png(fig)
    assert png.startswith(b"\x89PNG")
    ax = fig.axes[0]
    x, y, _dy = plotting.activation_values(act, span, kernel=kernel)
    line_x, line_y = ax.lines[0].get_data()
    x_scale = _scale(ax.get_xlabel())
    y_scale = _scale(ax.get_ylabel())
    assert y_scale > 1
    assert x[0] == span[0] and x[-1] == span[1] and np.isfinite(x).all()
    np.testing.assert_allclose(line_x * x_scale, x, rtol=1e-14)
    np.testing.assert_allclose(line_y * y_scale, y, rtol=1e-14)


def test_a_curve_with_no_finite_value_says_so(swish) -> None:
    """sqrt over negative x drew empty axes over (-0.05, 0.05) without a word."""
    fig = plotting.plot_activation(symnb.Activation("sqrt(x)", name="r"), (-2, -1))
    ax = fig.axes[0]
    assert ax.get_xlim() == (-2.0, -1.0)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [
        "r(x): NaN or inf over this whole range",
        "r'(x): NaN or inf over this whole range",
    ]
    fig = plotting.plot_activation(swish)  # finite: no note, no label
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == [
        "sw(x)",
        "sw'(x)",
    ]
    assert fig.axes[0].get_ylabel() == ""


def test_a_loss_near_the_float64_maximum_is_drawn_to_scale() -> None:
    import warnings

    mse = symnb.loss("mse")
    kernel = mse.compile(backend="numpy", dtype="float64")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plotting.plot_loss(mse, (-1.7e308, 1.7e308), kernel=kernel, points=21)
        assert plotting.figure_to_png(fig).startswith(b"\x89PNG")
    assert fig.axes[0].get_xlabel() == "y_pred (×1e+308)"


@pytest.mark.parametrize("log", [False, True])
def test_loss_curves_near_the_float64_maximum_are_drawn_to_scale(log) -> None:
    """A loss curve reaching 1.7e308 raised matplotlib's ValueError 'arange: cannot
    compute length' when the figure was drawn."""
    import warnings

    values = [1e308, 1.7e308, 1.0, np.nan]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plotting.plot_curves({"a": values, "b": []}, log=log)
        assert plotting.figure_to_png(fig).startswith(b"\x89PNG")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "loss (×1e+308)"
    np.testing.assert_allclose(ax.lines[0].get_ydata() * 1e308, values, rtol=1e-14)
    plain = plotting.plot_curves({"a": [3.0, 2.0]})
    assert plain.axes[0].get_ylabel() == "loss"
    assert list(plain.axes[0].lines[0].get_ydata()) == [3.0, 2.0]


@pytest.mark.parametrize("ax", [3, "ax", object()])
def test_ax_that_is_no_axes_is_refused(swish, ax) -> None:
    """ax=3 was AttributeError "'int' object has no attribute 'figure'"."""
    for draw in (
        lambda: plotting.plot_activation(swish, ax=ax),
        lambda: plotting.plot_loss(symnb.loss("mse"), ax=ax),
        lambda: plotting.plot_curves({"a": [1.0]}, ax=ax),
    ):
        with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
            draw()


@pytest.mark.parametrize("title", ["$\\foo$", "$x^$", "a$$b"])
def test_a_title_that_is_no_mathtext_is_a_clear_error(swish, title) -> None:
    """title='$\\foo$' raised matplotlib's ValueError with a pyparsing dump from
    deep inside savefig."""
    fig = plotting.plot_activation(swish, title=title)
    with pytest.raises(ValueError) as info:
        plotting.figure_to_png(fig)
    message = str(info.value)
    assert message.startswith("a title, label or legend text of this figure is not")
    assert "write \\$ for a dollar sign" in message and "\n" not in message
    fig = plotting.plot_activation(swish, title="$\\alpha$")  # valid mathtext
    assert plotting.figure_to_png(fig).startswith(b"\x89PNG")
