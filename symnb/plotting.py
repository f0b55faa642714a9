"""Plots of an activation and its derivative (or a loss and its gradient).

Pure functions: they draw on the ``Axes`` you pass (or on a new ``Figure`` that is not
registered with pyplot, so nothing is shown twice and headless runs need no display),
and return the figure. :func:`figure_to_png` turns a figure into PNG bytes (Agg canvas).

The values plotted are the ones a compiled kernel computes: pass ``kernel=`` to plot a
kernel you already have; otherwise a NumPy kernel is compiled for the plot.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

DEFAULT_RANGE = (-4.0, 4.0)
F_COLOR = "#1f77b4"
DF_COLOR = "#d62728"


def parse_range(text: str) -> tuple[float, float]:
    """``"-4:4"`` -> ``(-4.0, 4.0)``; raises ``ValueError`` with a readable message."""
    parts = str(text).split(":")
    if len(parts) != 2:
        raise ValueError(f"a range is LOW:HIGH, e.g. -4:4, not {text!r}")
    try:
        low, high = float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(
            f"a range is two numbers LOW:HIGH, e.g. -4:4, not {text!r}"
        ) from None
    if not (np.isfinite(low) and np.isfinite(high)) or not low < high:
        raise ValueError(f"a range needs finite LOW < HIGH, not {text!r}")
    return low, high


def _to_numpy(a: Any) -> np.ndarray:
    get = getattr(a, "get", None)
    return np.asarray(get() if callable(get) else a, dtype=np.float64)


def _kernel_and_grid(
    function: Any, span: tuple[float, float], kernel: Any, points: int
) -> tuple[Any, Any, np.ndarray]:
    """``(kernel, xp, grid)``: ``kernel`` (default: ``function``'s NumPy kernel), its
    array module, and ``points`` evenly spaced values of ``span`` in its dtype."""
    low, high = float(span[0]), float(span[1])
    if kernel is None:
        kernel = function.compile(backend="numpy")
    xp = getattr(kernel, "xp", np)
    dtype = getattr(kernel, "dtype", "float32")
    return kernel, xp, np.linspace(low, high, int(points)).astype(dtype)


def activation_values(
    activation: Any,
    x_range: tuple[float, float] = DEFAULT_RANGE,
    *,
    kernel: Any = None,
    points: int = 401,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, f(x), f'(x))`` at ``points`` points of ``x_range``, from a kernel."""
    kernel, xp, x = _kernel_and_grid(activation, x_range, kernel, points)
    y, dy = kernel.forward_with_derivative(xp.asarray(x))
    return x.astype(np.float64), _to_numpy(y), _to_numpy(dy)


def plot_activation(
    activation: Any,
    x_range: tuple[float, float] = DEFAULT_RANGE,
    *,
    kernel: Any = None,
    ax: Any = None,
    points: int = 401,
    title: str | None = None,
) -> Any:
    """Plot f and f' of ``activation`` over ``x_range``.

    Parameters
    ----------
    activation:
        A :class:`symnb.Activation`.
    x_range:
        ``(low, high)`` of the x axis.
    kernel:
        A compiled kernel of ``activation`` to evaluate (default: a NumPy kernel).
    ax:
        Axes to draw on; a new figure (not managed by pyplot) when omitted.
    points:
        Number of sample points.
    title:
        The title (default: the activation's name).

    Returns
    -------
    matplotlib.figure.Figure
    """
    x, y, dy = activation_values(activation, x_range, kernel=kernel, points=points)
    fig, ax = _figure_and_axes(ax)
    name = getattr(activation, "name", "f")
    ax.plot(x, y, color=F_COLOR, lw=2, label=f"{name}(x)")
    ax.plot(x, dy, color=DF_COLOR, lw=1.6, ls="--", label=f"{name}'(x)")
    _decorate(ax, title if title is not None else name, "x")
    return fig


def loss_values(
    loss: Any,
    p_range: tuple[float, float] = DEFAULT_RANGE,
    *,
    target: float = 1.0,
    kernel: Any = None,
    points: int = 201,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(y_pred, l(y_pred, target), dl/dy_pred)`` elementwise, for one target value."""
    kernel, xp, p = _kernel_and_grid(loss, p_range, kernel, points)
    t = np.full_like(p, target)
    values = np.array(
        [
            kernel.value(xp.asarray(p[i : i + 1]), xp.asarray(t[i : i + 1]))
            for i in range(p.size)
        ],
        dtype=np.float64,
    )
    grad = _to_numpy(kernel.gradient(xp.asarray(p), xp.asarray(t))) * p.size
    return p.astype(np.float64), values, grad


def plot_loss(
    loss: Any,
    p_range: tuple[float, float] = DEFAULT_RANGE,
    *,
    targets: tuple[float, ...] = (0.0, 1.0),
    kernel: Any = None,
    ax: Any = None,
    points: int = 201,
    title: str | None = None,
) -> Any:
    """Plot a loss and its gradient w.r.t. the prediction, for each of ``targets``."""
    fig, ax = _figure_and_axes(ax)
    name = getattr(loss, "name", "loss")
    styles = ["-", ":", "-.", (0, (5, 1))]
    for k, target in enumerate(targets):
        p, v, g = loss_values(
            loss, p_range, target=target, kernel=kernel, points=points
        )
        ls = styles[k % len(styles)]
        ax.plot(p, v, color=F_COLOR, lw=2, ls=ls, label=f"{name}(y_pred, {target:g})")
        ax.plot(
            p, g, color=DF_COLOR, lw=1.4, ls=ls, label=f"d/dy_pred, y_true={target:g}"
        )
    _decorate(ax, title if title is not None else name, "y_pred")
    return fig


def plot_curves(
    curves: dict[str, Any],
    *,
    ax: Any = None,
    title: str = "loss",
    xlabel: str = "epoch",
    ylabel: str = "loss",
    log: bool = False,
) -> Any:
    """Plot named sequences (e.g. loss curves per activation) on one axes."""
    fig, ax = _figure_and_axes(ax)
    for label, values in curves.items():
        ax.plot(
            np.arange(1, len(values) + 1), np.asarray(values, dtype=float), label=label
        )
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if curves:
        ax.legend(fontsize="small")
    return fig


def figure_to_png(fig: Any, dpi: float = 90, *, tight: bool = True) -> bytes:
    """PNG bytes of a matplotlib figure (rendered with the Agg canvas).

    ``tight`` crops the picture to its drawn content (``bbox_inches="tight"``); without
    it the picture keeps the figure's size.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight" if tight else None)
    return buf.getvalue()


def _figure_and_axes(ax: Any) -> tuple[Any, Any]:
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 3.4))
    return fig, fig.subplots()


def _decorate(ax: Any, title: str, xlabel: str) -> None:
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.axvline(0.0, color="0.6", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="best")
