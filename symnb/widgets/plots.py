"""Matplotlib pictures for the widgets, returned as PNG bytes for ``ipywidgets.Image``.

Only the object-oriented API (``matplotlib.figure.Figure`` with the Agg canvas) is used:
no pyplot state, so pictures can be drawn from a training thread and nothing is
displayed by accident in an inline-backend notebook.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np

from symnb import plotting

#: TensorFlow Playground's colours: orange for -1, near-white for 0, blue for +1.
NEGATIVE = "#f59322"
NEUTRAL = "#e8eaeb"
POSITIVE = "#0877bd"


def _figure(width: float, height: float, dpi: int = 80):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def figure_to_png(fig, dpi: int | None = None) -> bytes:
    """Render a matplotlib figure to PNG bytes at its own size (no pyplot state)."""
    return plotting.figure_to_png(fig, dpi or fig.dpi, tight=False)


def playground_cmap():
    """The diverging orange-white-blue colour map of TensorFlow Playground."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list(
        "symnb_playground", [NEGATIVE, NEUTRAL, POSITIVE]
    )


def activation_png(
    xs: np.ndarray,
    f: np.ndarray,
    df: np.ndarray,
    title: str = "",
    width: float = 4.8,
    height: float = 3.0,
) -> bytes:
    """f and f' over ``xs`` on one axis, as PNG bytes."""
    fig = _figure(width, height)
    ax = fig.add_subplot(1, 1, 1)
    ax.axhline(0, color="0.8", lw=0.8)
    ax.axvline(0, color="0.8", lw=0.8)
    with np.errstate(all="ignore"):
        ax.plot(xs, f, label="f(x)", color=POSITIVE, lw=2)
        ax.plot(xs, df, label="f'(x)", color=NEGATIVE, lw=2, ls="--")
    finite = np.concatenate([f[np.isfinite(f)], df[np.isfinite(df)]])
    if finite.size:
        lo, hi = float(np.percentile(finite, 1)), float(np.percentile(finite, 99))
        lo, hi = min(lo, -0.1), max(hi, 1.1)
        pad = 0.08 * (hi - lo)
        ax.set_ylim(lo - pad, hi + pad)
    ax.set_xlim(float(xs[0]), float(xs[-1]))
    ax.set_xlabel("x")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.grid(alpha=0.25)
    fig.tight_layout()
    return figure_to_png(fig)


def loss_png(
    train: Sequence[float],
    test: Sequence[float],
    width: float = 3.6,
    height: float = 1.6,
) -> bytes:
    """Train (dark) and test (grey) loss against epoch, as PNG bytes."""
    fig = _figure(width, height)
    ax = fig.add_subplot(1, 1, 1)
    if len(train):
        epochs = np.arange(1, len(train) + 1)
        ax.plot(epochs, train, color="#333333", lw=1.5, label="train")
        ax.plot(epochs[: len(test)], test, color="#999999", lw=1.5, label="test")
        ax.legend(loc="upper right", fontsize=7, frameon=False)
        vals = np.asarray([*train, *test], dtype=float)
        vals = vals[np.isfinite(vals)]
        if vals.size:
            ax.set_ylim(0, max(float(vals.max()) * 1.05, 1e-6))
    else:
        ax.text(
            0.5,
            0.5,
            "no training yet",
            ha="center",
            va="center",
            color="0.5",
            transform=ax.transAxes,
            fontsize=8,
        )
    ax.set_xlabel("epoch", fontsize=7)
    ax.set_ylabel("loss", fontsize=7)
    ax.tick_params(labelsize=7)
    fig.tight_layout(pad=0.3)
    return figure_to_png(fig)


def boundary_png(
    values: np.ndarray,
    extent: tuple[float, float, float, float],
    train: tuple[np.ndarray, np.ndarray] | None = None,
    test: tuple[np.ndarray, np.ndarray] | None = None,
    discretize: bool = False,
    size: float = 3.6,
) -> bytes:
    """The network's output over the input plane with the data points, as PNG bytes.

    ``values`` is a (rows, cols) array in [-1, 1] (row 0 at the bottom); points are
    ``(X, labels)`` with labels in [-1, 1]. Test points get a black outline.
    """
    fig = _figure(size, size)
    ax = fig.add_axes([0.08, 0.08, 0.9, 0.9])
    _draw_boundary(ax, values, extent, train, test, discretize, 12, 0.6)
    return figure_to_png(fig)


def _draw_boundary(
    ax,
    values: np.ndarray,
    extent: tuple[float, float, float, float],
    train: tuple[np.ndarray, np.ndarray] | None,
    test: tuple[np.ndarray, np.ndarray] | None,
    discretize: bool,
    point_size: float,
    edge_width: float,
) -> None:
    """Output map on ``ax``, train points outlined white and test points black."""
    cmap = playground_cmap()
    shown = np.sign(values) if discretize else values
    ax.imshow(
        shown,
        origin="lower",
        extent=extent,
        cmap=cmap,
        vmin=-1,
        vmax=1,
        interpolation="bilinear",
        alpha=0.85,
        aspect="auto",
    )
    for pts, edge in ((train, "white"), (test, "black")):
        if pts is not None and len(pts[0]):
            ax.scatter(
                pts[0][:, 0],
                pts[0][:, 1],
                c=np.clip(pts[1], -1, 1),
                cmap=cmap,
                vmin=-1,
                vmax=1,
                s=point_size,
                edgecolors=edge,
                linewidths=edge_width,
            )
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.tick_params(labelsize=7)


def heatmap_png(values: np.ndarray, pixels: int = 40) -> bytes:
    """A small square map (no axes) of one neuron's output, symmetric colour scale."""
    import matplotlib.image

    vals = np.asarray(values, dtype=float)
    finite = vals[np.isfinite(vals)]
    scale = float(np.abs(finite).max()) if finite.size else 1.0
    scale = scale if scale > 0 else 1.0
    img = np.clip(np.nan_to_num(vals / scale), -1, 1)
    buf = io.BytesIO()
    matplotlib.image.imsave(
        buf, img[::-1], cmap=playground_cmap(), vmin=-1, vmax=1, format="png"
    )
    return buf.getvalue()


__all__ = [
    "activation_png",
    "boundary_png",
    "figure_to_png",
    "heatmap_png",
    "loss_png",
    "playground_cmap",
    "snapshot_png",
]


def snapshot_png(
    values: np.ndarray,
    extent: tuple[float, float, float, float],
    train: tuple[np.ndarray, np.ndarray] | None,
    test: tuple[np.ndarray, np.ndarray] | None,
    history: dict[str, list[float]],
    title: str = "",
    discretize: bool = False,
) -> bytes:
    """One picture of a playground: output map with points, and the loss curves."""
    fig = _figure(7.2, 3.2)
    ax, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.2]})
    _draw_boundary(ax, values, extent, train, test, discretize, 10, 0.5)
    train_l, test_l = history.get("train", []), history.get("test", [])
    if train_l:
        epochs = np.arange(1, len(train_l) + 1)
        ax2.plot(epochs, train_l, color="#333333", label="train")
        ax2.plot(epochs[: len(test_l)], test_l, color="#999999", label="test")
        ax2.legend(fontsize=8, frameon=False)
    ax2.set_xlabel("epoch", fontsize=8)
    ax2.set_ylabel("loss", fontsize=8)
    ax2.tick_params(labelsize=7)
    ax2.grid(alpha=0.25)
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return figure_to_png(fig)
