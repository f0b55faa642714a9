"""Matplotlib pictures of the widgets for static output (executed notebooks, nbviewer,
GitHub), as PNG bytes; the live pictures are drawn by the browser.

Only the object-oriented API (``matplotlib.figure.Figure`` with the Agg canvas) is used:
no pyplot state, so pictures can be drawn from a training thread and nothing is
displayed by accident in an inline-backend notebook.
"""

from __future__ import annotations

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


__all__ = ["figure_to_png", "playground_cmap", "snapshot_png"]


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
