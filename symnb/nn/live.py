"""``fit(..., live=True)``: a live loss curve in the notebook cell and a progress bar.

The figure is drawn into ONE display (``display(..., display_id=True)`` then
``update``), at most ``max_rate`` times a second plus once at the end, so a long run
does not print a figure per epoch or flood the front end. The progress bar is
``tqdm.auto`` (a widget in Jupyter, text in a terminal) when tqdm is installed, else a
one-line text counter. Outside IPython only the progress bar is shown.
"""

from __future__ import annotations

import numbers
import sys
import time
from typing import Any

from symnb.checks import check_flag

from .compare import check_list
from .train import Callback

__all__ = ["LiveProgress"]

DEFAULT_METRICS = ("loss", "val_loss")


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


class _TextBar:
    """Fallback progress bar without tqdm."""

    def __init__(self, total: int, stream: Any = None) -> None:
        self.total = total
        self.n = 0
        self.stream = stream or sys.stderr
        self.postfix = ""

    def update(self, k: int = 1) -> None:
        self.n += k
        self.stream.write(f"\repoch {self.n}/{self.total} {self.postfix}")
        self.stream.flush()

    def set_postfix_str(self, text: str) -> None:
        self.postfix = text

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


class LiveProgress(Callback):
    """Progress bar (epochs) with the latest metrics, plus a live loss plot.

    Parameters
    ----------
    plot:
        draw the train (and validation) loss curve; only inside a notebook kernel.
    max_rate:
        at most this many plot updates per second (the final state is always drawn).
    metrics:
        which logged values to plot (default ``loss`` and ``val_loss``).
    """

    def __init__(
        self,
        plot: bool = True,
        max_rate: float = 4.0,
        metrics: tuple[str, ...] = DEFAULT_METRICS,
    ) -> None:
        self.plot = check_flag(plot, "LiveProgress: plot")
        # checked now: max_rate=0 divided by zero at the first epoch's redraw, in
        # the middle of fit; metrics="loss" plotted the keys 'l', 'o', 's', 's'
        rate = "a number of plot updates per second > 0 (inf: every epoch)"
        if isinstance(max_rate, bool) or not isinstance(max_rate, numbers.Real):
            raise TypeError(
                f"LiveProgress: max_rate must be {rate}, got {max_rate!r:.60}"
            )
        if not max_rate > 0:
            raise ValueError(
                f"LiveProgress: max_rate must be {rate}, got {max_rate!r:.60}"
            )
        names = check_list(metrics, "metrics", "('loss', 'val_loss')")
        if not all(isinstance(n, str) for n in names):
            raise TypeError(
                "LiveProgress: metrics must be names of logged values such as "
                f"('loss', 'val_loss'), got {metrics!r:.80}"
            )
        self.max_rate = float(max_rate)
        self.metrics = tuple(names)
        self._bar: Any = None
        self._handle: Any = None
        self._fig: Any = None
        self._last = 0.0
        self.updates = 0  # number of figure refreshes (for tests and curiosity)

    def unreported(self, reported: list[str], validation: bool) -> list[str]:
        """The metrics to plot that a fit reporting ``reported`` never logs (the
        default ``val_loss`` is skipped quietly when there is no validation data)."""
        quiet = self.metrics == DEFAULT_METRICS and not validation
        return [
            k
            for k in self.metrics
            if k not in reported and not (quiet and k.startswith("val_"))
        ]

    # -- progress bar
    def on_train_begin(self, logs):
        total = int(logs.get("epochs", 0))
        try:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, desc="training", unit="epoch", leave=True)
        except ImportError:
            self._bar = _TextBar(total)
        if self.plot and _in_ipython():
            self._start_plot()

    def on_epoch_end(self, epoch, logs):
        if self._bar is not None:
            shown = {k: v for k, v in logs.items() if k != "time"}
            self._bar.set_postfix_str(
                ", ".join(f"{k}={v:.4g}" for k, v in shown.items())
            )
            self._bar.update(1)
        now = time.perf_counter()
        if self._fig is not None and now - self._last >= 1.0 / self.max_rate:
            self._redraw()
            self._last = now

    def on_train_end(self, logs):
        if self._bar is not None:
            self._bar.close()
        if self._fig is not None:
            self._redraw()

    # -- plot
    def _start_plot(self) -> None:
        from IPython.display import display
        from matplotlib.figure import Figure

        # a Figure not managed by pyplot: no duplicate inline display at the cell's end
        fig = Figure(figsize=(5, 3))
        self._fig = fig
        self._ax = fig.add_subplot(1, 1, 1)
        self._handle = display(self._png(), display_id=True)

    def _png(self) -> Any:
        import io

        from IPython.display import Image

        buf = io.BytesIO()
        self._fig.savefig(buf, format="png", dpi=80)
        return Image(data=buf.getvalue(), format="png")

    def _redraw(self) -> None:
        ax = self._ax
        ax.clear()
        hist = self.history
        if hist is not None:
            for key in self.metrics:
                if key in hist.history:
                    ax.plot(hist.epochs, hist.history[key], label=key)
        ax.set_xlabel("epoch")
        ax.set_ylabel("loss")
        if ax.lines:
            ax.legend(loc="upper right")
            if all(v > 0 for line in ax.lines for v in line.get_ydata()):
                ax.set_yscale("log")
        self._fig.tight_layout()
        if self._handle is not None:
            self._handle.update(self._png())
        self.updates += 1
