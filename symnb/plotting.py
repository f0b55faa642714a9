"""Plots of an activation and its derivative (or a loss and its gradient).

Pure functions: they draw on the ``Axes`` you pass (or on a new ``Figure`` that is not
registered with pyplot, so nothing is shown twice and headless runs need no display),
and return the figure. :func:`figure_to_png` turns a figure into PNG bytes (Agg canvas).

The values plotted are the ones a compiled kernel computes: pass ``kernel=`` to plot a
kernel you already have; otherwise a NumPy kernel is compiled for the plot.
"""

from __future__ import annotations

import io
import math
import numbers
from typing import Any

import numpy as np

from symnb.checks import check_flag

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
        raise ValueError(f"a range needs finite LOW < HIGH, e.g. -4:4, not {text!r}")
    return low, high


#: Most sample points of one curve: a plot needs no more, and a loss is evaluated
#: point by point (10**7 points took minutes, 10**10 asked NumPy for 75 GiB).
MAX_POINTS = 20_000
#: Largest resolution of :func:`figure_to_png` (100,000 dpi: std::bad_alloc).
MAX_DPI = 1200


def _checked_points(points: Any) -> int:
    if (
        isinstance(points, bool)
        or not isinstance(points, numbers.Integral)
        or not 2 <= points <= MAX_POINTS
    ):
        raise ValueError(
            f"points must be a whole number from 2 to {MAX_POINTS:,}, got {points!r}"
        )
    return int(points)


def checked_range(span: Any, dtype: Any, what: str) -> tuple[float, float]:
    """``span`` as ``(low, high)``: finite numbers, low < high, and a grid of them
    in ``dtype`` finite and not one single value (NaN or inf ends drew an empty or
    all-NaN plot; 1e39 overflowed a float32 grid with NumPy warnings).

    ``span`` is a pair of numbers (``x_range=(-4, 4)``) or the text ``"LOW:HIGH"``
    (``%%symact --range -4:4``); the one check of a plot range for every face, its
    messages name ``what`` and show an example in the form given."""
    if isinstance(span, str):
        try:
            low, high = parse_range(span)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
        given, example = f"{what} {span!r:.60}", f"{what} -4:4"
    else:
        try:
            low, high = (float(v) for v in span)
        except (TypeError, ValueError):
            raise TypeError(
                f"{what} must be a pair (low, high) of numbers, e.g. (-4, 4); got "
                f"{span!r:.60}"
            ) from None
        given, example = f"{what}={span!r:.60}", f"{what}=(-4, 4)"
    if not (low < high and math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"{given} needs finite low < high, e.g. {example}")
    kind = np.dtype(dtype)
    limit = float(np.finfo(kind).max)
    # high - low may overflow (-1.7e308, 1.7e308): :func:`_grid` spaces it anyway
    if max(abs(low), abs(high)) > limit:
        raise ValueError(
            f"{given} does not fit the {kind} plot grid: low and high must stay "
            f"within {limit:.4g} in magnitude (the kernel's {kind}), e.g. {example}"
        )
    if kind.type(low) == kind.type(high):
        raise ValueError(
            f"{given} is narrower than {kind} can tell apart around {low:.6g}: "
            "every point of the plot would be the same x; widen it"
        )
    return low, high


def _checked_formula(function: Any, kind: str, plotter: str) -> Any:
    """An Activation (``kind="activation"``) or Loss; a library name is looked up."""
    import symnb

    if isinstance(function, str):
        factory = symnb.activation if kind == "activation" else symnb.loss
        return factory(function)
    found = getattr(function, "kind", None)
    if found != kind:
        article = {"activation": "an activation", "loss": "a loss"}
        other = {"activation": "plot_activation", "loss": "plot_loss"}.get(found)
        hint = f"; {article[found]} is drawn by {other}" if other else ""
        raise TypeError(
            f"{plotter} draws {article[kind]} (a symnb.{kind.title()} or a library "
            f"name), got {type(function).__name__}{hint}"
        )
    return function


def _to_numpy(a: Any) -> np.ndarray:
    get = getattr(a, "get", None)
    return np.asarray(get() if callable(get) else a, dtype=np.float64)


def _kernel_and_grid(
    function: Any,
    span: tuple[float, float],
    kernel: Any,
    points: int,
    kind: str = "activation",
    plotter: str = "plot_activation",
) -> tuple[Any, Any, np.ndarray]:
    """``(kernel, xp, grid)``: ``kernel`` (default: ``function``'s NumPy kernel), its
    array module, and ``points`` evenly spaced values of ``span`` in its dtype."""
    _checked_formula(function, kind, plotter)
    points = _checked_points(points)
    needs = "forward_with_derivative" if kind == "activation" else "gradient"
    if kernel is not None and not hasattr(kernel, needs):
        raise TypeError(
            f"{plotter}: kernel= must be a compiled {kind} (with .{needs}), got "
            f"{type(kernel).__name__}"
        )
    _check_kernel_formula(function, kernel, kind, plotter)
    dtype = getattr(kernel, "dtype", None) or "float32"
    low, high = checked_range(
        span, dtype, "x_range" if kind == "activation" else "p_range"
    )
    if kernel is None:
        kernel = function.compile(backend="numpy")
    xp = getattr(kernel, "xp", np)
    return kernel, xp, _grid(low, high, points).astype(dtype)


def _check_kernel_formula(function: Any, kernel: Any, kind: str, plotter: str) -> None:
    """A ``ValueError`` when ``kernel`` was compiled from another formula than
    ``function`` (``plot_activation('tanh', kernel=relu_kernel)`` drew relu's curves
    labelled tanh). Its constants may differ: a kernel's own values are plotted."""
    source = getattr(kernel, kind, None) if kernel is not None else None
    internal = getattr(source, "internal", None)
    if internal is None or internal.signature() == function.internal.signature():
        return
    raise ValueError(
        f"{plotter}: kernel= was compiled from {kind} {source.name!r} "
        f"({source.text}), not from {function.name!r} ({function.text}); pass "
        f"a kernel of {function.name!r}, or leave kernel= out"
    )


def _grid(low: float, high: float, points: int) -> np.ndarray:
    """``points`` evenly spaced float64 values from ``low`` to ``high``, also when
    ``high - low`` overflows (np.linspace(-1.7e308, 1.7e308) is inf and NaN; near
    the maximum, NumPy's own steps overflow with a warning)."""
    if max(abs(low), abs(high)) <= PLAIN_LIMIT:
        return np.linspace(low, high, points)
    grid = np.linspace(low / 2, high / 2, points) * 2
    grid[0], grid[-1] = low, high
    return grid


#: Largest magnitude drawn as it is: matplotlib's ticks and transforms overflow near
#: the float64 maximum (LinAlgError 'Singular matrix', 'arange: cannot compute
#: length', OverflowError), so larger values are drawn in units of a power of ten.
PLAIN_LIMIT = 1e300


def _axis_scale(*arrays: np.ndarray) -> tuple[float, str]:
    """``(scale, note)``: divide the values by ``scale`` to draw them; ``note`` says
    so in the axis label (``" (×1e+308)"``), empty when they are drawn as they are."""
    values = np.concatenate([np.ravel(a) for a in arrays])
    finite = np.abs(values[np.isfinite(values)])
    if finite.size == 0 or float(finite.max()) <= PLAIN_LIMIT:
        return 1.0, ""
    exponent = math.floor(math.log10(float(finite.max())))
    return 10.0**exponent, f" (×1e{exponent:+d})"


def literal_text(name: str) -> str:
    """``name`` for a matplotlib text, its dollar signs shown as such: a name such as
    'a$$b' or '$\\foo$' was read as mathtext and raised matplotlib's ValueError
    ('Unknown symbol') when the figure was drawn."""
    return str(name).replace("$", r"\$")


def _curve_label(label: str, values: np.ndarray) -> str:
    """The legend entry of a curve, saying so when no value of it can be drawn."""
    if not np.isfinite(values).any():
        return f"{label}: NaN or inf over this whole range"
    return label


def activation_values(
    activation: Any,
    x_range: tuple[float, float] = DEFAULT_RANGE,
    *,
    kernel: Any = None,
    points: int = 401,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, f(x), f'(x))`` at ``points`` points of ``x_range``, from a kernel."""
    activation = _checked_formula(activation, "activation", "activation_values")
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
    activation = _checked_formula(activation, "activation", "plot_activation")
    x, y, dy = activation_values(activation, x_range, kernel=kernel, points=points)
    fig, ax = _figure_and_axes(ax)
    name = literal_text(getattr(activation, "name", "f"))
    x_scale, x_note = _axis_scale(x)
    y_scale, y_note = _axis_scale(y, dy)
    x = x / x_scale
    ax.plot(x, y / y_scale, color=F_COLOR, lw=2, label=_curve_label(f"{name}(x)", y))
    ax.plot(
        x,
        dy / y_scale,
        color=DF_COLOR,
        lw=1.6,
        ls="--",
        label=_curve_label(f"{name}'(x)", dy),
    )
    if not (np.isfinite(y).any() or np.isfinite(dy).any()):
        ax.set_xlim(x[0], x[-1])  # nothing drawn: matplotlib showed (-0.05, 0.05)
    ylabel = f"{name}, {name}'{y_note}" if y_note else ""
    _decorate(ax, title if title is not None else name, "x" + x_note, ylabel)
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
    loss = _checked_formula(loss, "loss", "loss_values")
    if (
        isinstance(target, bool)
        or not isinstance(target, numbers.Real)
        or not math.isfinite(target)
    ):
        raise ValueError(f"target must be a finite number, got {target!r}")
    kernel, xp, p = _kernel_and_grid(
        loss, p_range, kernel, points, "loss", "loss_values"
    )
    with np.errstate(over="ignore", under="ignore"):
        t = np.full_like(p, target)
    if not np.isfinite(t[0]) or (target != 0 and t[0] == 0):
        # target=1e39 on a float32 kernel plotted inf everywhere, without a word
        raise ValueError(
            f"target={target!r} does not fit the kernel's {p.dtype}; use a target "
            f"within {float(np.finfo(p.dtype).max):.4g} in magnitude and not so "
            "small that it rounds to 0, or a float64 kernel (kernel=...compile("
            "dtype='float64'))"
        )
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
    if isinstance(targets, (str, bytes)) or not isinstance(
        targets, (list, tuple, np.ndarray)
    ):
        # targets=1.0 was "'float' object is not iterable"; 'ab' was read per letter
        raise TypeError(
            f"plot_loss: targets must be a list of target values, e.g. "
            f"targets=(0.0, 1.0); got {targets!r:.60}"
        )
    if len(targets) == 0:
        raise ValueError(
            "plot_loss: targets is empty; give at least one, e.g. targets=(0.0, 1.0)"
        )
    fig, ax = _figure_and_axes(ax)
    loss = _checked_formula(loss, "loss", "plot_loss")
    name = literal_text(getattr(loss, "name", "loss"))
    styles = ["-", ":", "-.", (0, (5, 1))]
    curves = [
        (
            target,
            *loss_values(loss, p_range, target=target, kernel=kernel, points=points),
        )
        for target in targets
    ]
    x_scale, x_note = _axis_scale(*(c[1] for c in curves))
    y_scale, y_note = _axis_scale(*(a for c in curves for a in c[2:]))
    for k, (target, p, v, g) in enumerate(curves):
        drawn = (
            (v, F_COLOR, 2.0, f"{name}(y_pred, {target:g})"),
            (g, DF_COLOR, 1.4, f"d/dy_pred, y_true={target:g}"),
        )
        for values, color, lw, label in drawn:
            ax.plot(
                p / x_scale,
                values / y_scale,
                color=color,
                lw=lw,
                ls=styles[k % len(styles)],
                label=_curve_label(label, values),
            )
    if curves and not any(np.isfinite(a).any() for c in curves for a in c[2:]):
        ax.set_xlim(curves[0][1][0] / x_scale, curves[0][1][-1] / x_scale)
    ylabel = f"loss, gradient{y_note}" if y_note else ""
    _decorate(ax, title if title is not None else name, "y_pred" + x_note, ylabel)
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
    if not isinstance(curves, dict):
        raise TypeError(
            "curves must be a dict {label: sequence of numbers}, e.g. "
            f"{{'relu': history['loss']}}; got {type(curves).__name__}"
        )
    series = {}
    for label, values in curves.items():
        try:
            series[label] = np.asarray(values, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(
                f"curves[{label!r}] must be a sequence of numbers, got {values!r:.60}"
            ) from None
    log = check_flag(log, "plot_curves: log")  # log='no' drew a log scale
    fig, ax = _figure_and_axes(ax)
    # a loss near the float64 maximum broke matplotlib's ticks ('arange: cannot
    # compute length') when drawn: such curves are drawn in units of a power of ten
    y_scale, y_note = _axis_scale(*series.values()) if series else (1.0, "")
    for label, values in series.items():
        ax.plot(np.arange(1, len(values) + 1), values / y_scale, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{ylabel}{y_note}")
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

    if (
        isinstance(dpi, bool)
        or not isinstance(dpi, numbers.Real)
        or not 0 < dpi <= MAX_DPI
    ):
        raise ValueError(f"dpi must be a number in (0, {MAX_DPI}], got {dpi!r}")
    from matplotlib.figure import Figure

    tight = check_flag(tight, "figure_to_png: tight")
    if not isinstance(fig, Figure):
        # figure_to_png(None) was "'NoneType' object has no attribute 'canvas'"
        raise TypeError(
            "figure_to_png takes a matplotlib Figure (what plot_activation, "
            f"plot_loss and plot_curves return), got {type(fig).__name__}"
        )
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    buf = io.BytesIO()
    # axes spanning up to the float64 maximum (``--range 1e300:1e308``): matplotlib's
    # tick locator scales its steps past it and warns "overflow encountered in
    # multiply" at the user; the picture it draws is right, so the warning is noise
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            fig.savefig(
                buf, format="png", dpi=dpi, bbox_inches="tight" if tight else None
            )
    except ValueError as exc:
        # title="$\\foo$": matplotlib's mathtext parser failed deep inside savefig
        if "Parse" not in str(exc):
            raise
        found = str(exc).strip().splitlines()
        raise ValueError(
            f"a title, label or legend text of this figure is not valid mathtext "
            f"({found[-1][:120] if found else 'unreadable'}); text between $ signs is "
            "read as math: write \\$ for a dollar sign"
        ) from None
    return buf.getvalue()


def _figure_and_axes(ax: Any) -> tuple[Any, Any]:
    if ax is not None:
        from matplotlib.axes import Axes

        if not isinstance(ax, Axes):
            # ax=3 was AttributeError "'int' object has no attribute 'figure'"
            raise TypeError(
                f"ax must be a matplotlib Axes (e.g. fig.subplots()) or None for a "
                f"new figure, got {type(ax).__name__}"
            )
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 3.4))
    return fig, fig.subplots()


def _decorate(ax: Any, title: str, xlabel: str, ylabel: str = "") -> None:
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.axvline(0.0, color="0.6", lw=0.8)
    ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="best")
