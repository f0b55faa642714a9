"""Rich output of the notebook faces: LaTeX of f and f', plots, compile status, source.

Every object here has a ``text/plain`` form next to its rich one, so outputs stay
readable in a terminal IPython and in a notebook saved headless (nbclient). Images are
PNG bytes from matplotlib's Agg canvas (:mod:`symnb.plotting`), wrapped in
``IPython.display.Image``.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

import sympy as sp


def _latex_name(name: str) -> str:
    safe = "".join(ch for ch in name if ch.isalnum() or ch == "_") or "f"
    return r"\mathrm{" + safe.replace("_", r"\_") + "}"


@dataclass
class MathView:
    """A formula shown as ``$$...$$`` LaTeX, with a plain-text fallback."""

    latex: str
    plain: str

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        return {"text/latex": f"$${self.latex}$$", "text/plain": self.plain}

    def _repr_latex_(self) -> str:
        return f"$${self.latex}$$"

    def __repr__(self) -> str:
        return self.plain


def _plain(expr: Any) -> str:
    try:
        return sp.sstr(expr)
    except Exception:  # noqa: BLE001 - a display must never fail
        return str(expr)


def formula_views(obj: Any) -> tuple[MathView, MathView]:
    """LaTeX views of f and f' (activation) or of l and dl/dy_pred (loss)."""
    name = getattr(obj, "name", "f")
    head = _latex_name(name) + r":\quad "
    f_latex = getattr(obj, "latex", None) or sp.latex(obj.expr)
    d_latex = getattr(obj, "derivative_latex", None) or sp.latex(obj.derivative)
    if getattr(obj, "kind", "activation") == "loss":
        args = r"y_{pred}, y_{true}"
        return (
            MathView(
                head + rf"\ell({args}) = {f_latex}",
                f"{name}: l(y_pred, y_true) = {_plain(obj.expr)}",
            ),
            MathView(
                head
                + rf"\frac{{\partial \ell}}{{\partial y_{{pred}}}}({args}) = {d_latex}",
                f"{name}: dl/dy_pred = {_plain(obj.derivative)}",
            ),
        )
    return (
        MathView(head + f"f(x) = {f_latex}", f"{name}: f(x) = {_plain(obj.expr)}"),
        MathView(
            head + f"f'(x) = {d_latex}", f"{name}: f'(x) = {_plain(obj.derivative)}"
        ),
    )


@dataclass
class CompileStatus:
    """One line saying what was defined and how its kernel was built."""

    signature: str
    kind: str = "activation"
    backend: str | None = None  # None: not compiled
    device: int | None = None
    dtype: str = "float32"
    seconds: float | None = None
    cache_hit: bool | None = None
    messages: list[str] = field(default_factory=list)  # warnings and stability notes

    @classmethod
    def from_kernel(
        cls, signature: str, kind: str, kernel: Any, messages: list[str]
    ) -> CompileStatus:
        backend = getattr(kernel, "backend", None)
        device = getattr(kernel, "device", None) if backend == "cuda" else None
        return cls(
            signature=signature,
            kind=kind,
            backend=backend,
            device=device,
            dtype=str(getattr(kernel, "dtype", "float32")),
            seconds=getattr(kernel, "compile_seconds", None),
            cache_hit=getattr(kernel, "cache_hit", None),
            messages=list(messages),
        )

    def summary(self) -> str:
        if self.backend is None:
            return "not compiled"
        parts = [f"backend {self.backend}"]
        parts.append(f"device {self.device}" if self.device is not None else "CPU")
        parts.append(self.dtype)
        if self.seconds is not None:
            parts.append(f"compiled in {self.seconds:.3f} s")
        if self.cache_hit is not None:
            parts.append("cache hit" if self.cache_hit else "cache miss")
        return ", ".join(parts)

    def _plain(self) -> str:
        lines = [f"{self.kind} {self.signature}: {self.summary()}"]
        lines += [f"  warning: {m}" for m in self.messages]
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        rows = "".join(
            f"<div style='color:#a15c00'>&#9888; {html.escape(m)}</div>"
            for m in self.messages
        )
        ok = "#2e7d32" if self.backend else "#555"
        body = (
            f"<div><b>{html.escape(self.kind)} "
            f"<code>{html.escape(self.signature)}</code></b> &mdash; "
            f"<span style='color:{ok}'>{html.escape(self.summary())}</span></div>"
            f"{rows}"
        )
        return {"text/html": body, "text/plain": self._plain()}

    def __repr__(self) -> str:
        return self._plain()


@dataclass
class SourceView:
    """Generated kernel source, numbered, as ``text/plain`` and an HTML ``<pre>``."""

    title: str
    source: str

    def _numbered(self) -> str:
        return "\n".join(
            f"{i:4d}  {line}" for i, line in enumerate(self.source.splitlines(), 1)
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        pre = html.escape(self.source)
        body = (
            f"<details open><summary>{html.escape(self.title)}</summary>"
            f"<pre style='font-size:85%;max-height:30em;overflow:auto'>{pre}</pre>"
            "</details>"
        )
        return {"text/html": body, "text/plain": f"{self.title}\n{self._numbered()}"}

    def __repr__(self) -> str:
        return f"{self.title}\n{self._numbered()}"


def plot_image(
    obj: Any,
    x_range: tuple[float, float],
    kernel: Any = None,
    dpi: int = 80,
    dtype: str | None = None,
) -> Any:
    """An ``IPython.display.Image`` (PNG) of f and f' (or a loss and its gradient).

    Without ``kernel`` (or when it cannot plot) a NumPy kernel of ``dtype`` (default:
    the kernel's, else float32) computes the curves: ``%%symact --dtype float64
    --no-compile --range -1e39:1e39`` was drawn in float32, all inf."""
    from IPython.display import Image

    from symnb import plotting

    dtype = str(dtype or getattr(kernel, "dtype", None) or "float32")
    loss = getattr(obj, "kind", "activation") == "loss"
    draw = plotting.plot_loss if loss else plotting.plot_activation
    if kernel is None:
        kernel = obj.compile(backend="numpy", dtype=dtype)
        fig = draw(obj, x_range, kernel=kernel)
    else:
        try:
            fig = draw(obj, x_range, kernel=kernel)
        except Exception:  # noqa: BLE001 - e.g. a device gone: NumPy draws it
            fig = draw(obj, x_range, kernel=obj.compile(backend="numpy", dtype=dtype))
    return Image(plotting.figure_to_png(fig, dpi=dpi), format="png")


def _no_plot(obj: Any, x_range: tuple[float, float], exc: Exception) -> str:
    """The note shown instead of a plot that could not be drawn."""
    reason = (str(exc).splitlines() or [type(exc).__name__])[0]
    low, high = x_range
    return (
        f"no plot of {obj.name} over [{low:g}, {high:g}]: {reason[:300]} "
        "(narrow --range, use --dtype float64, or --no-plot)"
    )


def definition_outputs(
    obj: Any,
    status: CompileStatus,
    *,
    kernel: Any = None,
    x_range: tuple[float, float] | None = (-4.0, 4.0),
    show_code: bool = False,
    dtype: str | None = None,
) -> list[Any]:
    """Everything ``%%symact`` shows for one definition, in order (``dtype``: that of
    the plot when there is no ``kernel``)."""
    outputs: list[Any] = [status, *formula_views(obj)]
    if x_range is not None:
        try:
            outputs.append(plot_image(obj, x_range, kernel=kernel, dtype=dtype))
        except (ValueError, ArithmeticError) as exc:
            # the definition is bound: a plot that cannot be drawn is a note, not a
            # traceback (a constant beyond the plot's float32 raised FormulaError;
            # values near the float64 limit broke matplotlib's ticks and transforms)
            status.messages.append(_no_plot(obj, x_range, exc))
    if show_code:
        source = getattr(kernel, "source", None) if kernel is not None else None
        if source:
            outputs.append(SourceView(f"{status.backend} source of {obj.name}", source))
        else:
            outputs.append(
                SourceView(f"source of {obj.name}", "(not compiled: no source)")
            )
    return outputs


def show(outputs: list[Any]) -> None:
    """Display a list of outputs in the current cell."""
    from IPython.display import display

    for out in outputs:
        display(out)
