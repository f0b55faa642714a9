"""``ActivationEditor``: type a formula, see f and f', move its constants, compile it.

Layout (top to bottom): name and formula boxes; LaTeX of f and f' (MathJax, ``$...$``);
inline error; a slider per constant found in the formula (with a box to type any value:
the slider's range grows to include it); the curves of f, f' and optional comparison
activations, drawn by the browser (:class:`~symnb.widgets.view.CurveView`: Python sends
~400 float32 samples, the browser plots them with a hover readout; a broken formula
keeps the last good curves and shows the error under them); backend and device
dropdowns (only usable backends; the others are listed with the reason); the Compile
button and its status; an ``Output`` that collects unexpected callback errors.

Typing is debounced (``debounce`` seconds after the last key), slider-driven curves are
throttled (at most ``1/plot_interval`` updates a second, the last one always sent),
and every method the callbacks use is public and synchronous, so scripts and tests drive
the editor without a browser: set ``editor.formula.value``, call ``editor.refresh()``.
"""

from __future__ import annotations

import base64
import math
import re
import threading
import warnings
from typing import Any

import ipywidgets as W
import numpy as np

from symnb import plotting
from symnb.backends.select import check_device
from symnb.checks import check_flag, is_formula_name, real_value
from symnb.errors import UnknownConstantError
from symnb.formula.formula import Learnable
from symnb.notebook.state import BACKEND_CHOICES

from ._common import (
    ErrorSink,
    backend_choices,
    check_widget_options,
    close_tree,
    constant_names,
    device_argument,
    device_choices,
    editor_defined,
    error_html,
    escape,
)
from .throttle import Debounce, Throttle, check_seconds
from .view import CurveView, f32

#: Points sampled per curve.
SAMPLES = 401
#: Colours of f, f' and the comparison curves (TensorFlow Playground's blue/orange).
COLOURS = ("#0877bd", "#f59322", "#777777", "#2ca02c", "#9467bd", "#8c564b")


#: The formula box grows to this many rows (a longer paste scrolls).
FORMULA_ROWS = 16


def formula_rows(text: str) -> int:
    """Rows of the formula box for ``text``: one per line, 1 to FORMULA_ROWS."""
    return max(1, min(FORMULA_ROWS, str(text).count("\n") + 1))


#: A note of the accuracy engine's per-dtype rewrites ("f' in float32: ...").
_PRECISION_NOTE = re.compile(r"^(?:f|f'|d/d\w+) in float(?:16|32|64)\b")


def notes_html(notes: list[str]) -> str:
    """The notes under the LaTeX: what the parser read, shown; the accuracy engine's
    rewrites per dtype folded into a ``<details>`` (a plain swish showed three
    paragraphs about x^k overflow above its sliders, in a classroom editor)."""
    if not notes:
        return ""
    shown = [n for n in notes if not _PRECISION_NOTE.match(n)]
    folded = [n for n in notes if _PRECISION_NOTE.match(n)]
    parts = ["<br>".join(escape(n) for n in shown)] if shown else []
    if folded:
        what = "rewrite" if len(folded) == 1 else "rewrites"
        parts.append(
            f"<details><summary>kept accurate at large |x|: {len(folded)} {what}"
            "</summary>" + "<br>".join(escape(n) for n in folded) + "</details>"
        )
    return '<div style="font-size:85%;color:#555">' + "".join(parts) + "</div>"


def _strip_dollars(tex: str) -> str:
    tex = str(tex).strip()
    while tex.startswith("$") and tex.endswith("$") and len(tex) >= 2:
        tex = tex[1:-1].strip()
    return tex


def _plot_with_library(act: Any, kernel: Any, x_range: tuple[float, float]) -> bytes:
    """The notebook face's plot of f and f' (``symnb.plotting``), as PNG bytes."""
    return plotting.figure_to_png(plotting.plot_activation(act, x_range, kernel=kernel))


def _checked_range(x_range: Any) -> tuple[float, float]:
    """``x_range`` as ``(low, high)``: finite, low < high, and a float32 grid of it
    finite and not one single value (the curves are float32 samples)."""
    try:
        return plotting.checked_range(x_range, np.float32, "x_range")
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"ActivationEditor: {exc}") from None


def _checked_constants(constants: Any) -> dict[str, float]:
    """``constants`` ({name: number}) with each value a float the kernels can hold
    (``Learnable`` too), checked as a slider's value is: ``{'beta': True}`` and
    ``{'beta': '1.5'}`` were taken as 1.0 and 1.5, and ``{'beta': 1e39}`` was
    accepted and then dropped, leaving the editor with an error and no constants."""
    if constants is None:
        return {}
    if not isinstance(constants, dict):
        raise TypeError(
            "ActivationEditor: constants must be a dict {name: value}, e.g. "
            f"{{'beta': 1.0}}; got {type(constants).__name__}"
        )
    out = {}
    for k, v in constants.items():
        _check_constant_key(k)
        out[k] = _constant_number(
            k,
            v.value if isinstance(v, Learnable) else v,
            label=f"ActivationEditor: constants[{k!r}]",
            example=f"{{{k!r}: 1.0}}",
        )
    return out


def _check_constant_key(key: Any) -> None:
    """A name the formula can read as a constant: ``{'x': 2.0}``, ``{'a b': 1.0}``
    or ``{1: 2.0}`` were kept and never used, without a word."""
    if not isinstance(key, str):
        raise TypeError(
            f"ActivationEditor: constants keys are constant names (text), got "
            f"{key!r:.40} ({type(key).__name__}); e.g. {{'beta': 1.0}}"
        )
    if key == "x":
        raise ValueError(
            "ActivationEditor: constants['x']: x is the formula's input, not a "
            "constant; give values of the other names, e.g. {'beta': 1.0}"
        )
    if not is_formula_name(key) or key.startswith("_"):
        raise ValueError(
            f"ActivationEditor: constants key {key!r:.40} is no constant name a "
            "formula can use: letters, digits and '_', starting with a letter"
        )


def _constant_number(
    name: str, value: Any, label: str | None = None, example: str | None = None
) -> float:
    """``value`` of constant ``name`` as a float that every kernel of the editor can
    hold (float32): finite, at most ~3.4e38 in magnitude, not so small that float32
    makes it 0. The kernels refuse other values with a traceback from deep inside
    ``set_constants``, and the editor kept the value: every later draw failed.
    ``label`` (default ``constant 'name'``) and ``example`` (``name=1.0``) word the
    message for where the value came from."""
    label = label or f"constant {name!r}"
    example = example or f"{name}=1.0"
    number = real_value(value)  # Fraction and Decimal too, as Activation takes
    if number is None:
        raise TypeError(
            f"{label} must be a number, got {value!r:.60} "
            f"({type(value).__name__}); e.g. {example}"
        )
    if not math.isfinite(number):
        raise ValueError(f"{label} must be finite, got {value!r}; e.g. {example}")
    info = np.finfo(np.float32)
    with np.errstate(over="ignore", under="ignore"):
        stored = float(np.float32(number))
    if not math.isfinite(stored) or (value != 0 and stored == 0.0):
        raise ValueError(
            f"{label} = {value!r:.30} does not fit the kernels' float32: "
            f"give a finite value from {info.smallest_subnormal:.3g} to "
            f"{info.max:.4g} in magnitude"
        )
    return number


class ActivationEditor(W.VBox):
    """A live formula editor for activation functions.

    Parameters
    ----------
    formula:
        The initial formula in ``x``; every other free name becomes a constant with a
        slider (default value 1.0 unless given in ``constants``).
    name:
        The activation's name (what the Playground lists it as).
    constants:
        Initial constant values, by name; a name the (parsed) formula does not have
        raises ``UnknownConstantError`` (a ``FormulaError``).
    x_range:
        The plotted interval.
    backend, device:
        Initial choices of the dropdowns.
    debounce:
        Seconds of quiet typing before the formula is parsed again.
    plot_interval:
        Minimum seconds between two plots while a slider moves.

    Attributes
    ----------
    formula, name_box, latex, error_box, sliders (dict), slider_box, plot, backend,
    device, backend_note, compile_button, status, output:
        The child widgets (stable names; DOM classes ``symnb-formula``, ``symnb-latex``,
        ``symnb-error``, ``symnb-constant``, ``symnb-plot``, ``symnb-backend``,
        ``symnb-device``, ``symnb-compile``, ``symnb-status``, ``symnb-output``).
    """

    def __init__(
        self,
        formula: str = "x*sigmoid(beta*x)",
        name: str = "custom",
        constants: dict[str, float] | None = None,
        x_range: tuple[float, float] = (-4.0, 4.0),
        backend: str = "auto",
        device: Any = None,
        debounce: float = 0.3,
        plot_interval: float = 0.02,
        compare: tuple[str, ...] | list[str] = (),
        presentation: bool = False,
        **kwargs: Any,
    ) -> None:
        check_widget_options(ActivationEditor, kwargs)
        self.x_range = _checked_range(x_range)
        for what, text, example in (
            ("formula", formula, "'x*sigmoid(beta*x)'"),
            ("name", name, "'swish_beta'"),
        ):
            if not isinstance(text, str):
                raise TypeError(
                    f"ActivationEditor: {what} must be a string, got "
                    f"{type(text).__name__} {text!r:.60}; e.g. {what}={example}"
                )
        debounce = check_seconds(debounce, "ActivationEditor: debounce")
        plot_interval = check_seconds(plot_interval, "ActivationEditor: plot_interval")
        if backend not in BACKEND_CHOICES:
            raise ValueError(
                f"ActivationEditor: unknown backend {backend!r}; choose one of "
                f"{', '.join(BACKEND_CHOICES)}"
            )
        if device is not None and device not in ("default", "cpu"):
            # device='x' was silently dropped; 'cuda:1' never matched the GPU list
            try:
                device = check_device(device)
            except ValueError as exc:
                raise ValueError(f"ActivationEditor: {exc}") from None
        self._values: dict[str, float] = _checked_constants(constants)
        self._lock = threading.RLock()
        self._compare = self._comparison_kernels(compare)
        self._presentation = check_flag(presentation, "ActivationEditor: presentation")
        self._base: Any = None  # Activation parsed from the current text
        self._preview: Any = None  # numpy kernel used for the plot
        self._kernel: Any = None
        self._error: BaseException | None = None
        self._parsed_text: tuple[str, str] | None = None

        self.name_box = W.Text(
            value=name,
            description="name",
            continuous_update=False,
            layout=W.Layout(width="260px"),
        )
        self.name_box.add_class("symnb-name")
        # a text area: pasted code (a function, a module class) keeps its lines,
        # which a one-line text box joined; one row per line, up to FORMULA_ROWS
        self.formula = W.Textarea(
            value=formula,
            description="f(x) =",
            continuous_update=True,
            placeholder="e.g. x*sigmoid(beta*x), or paste a function or module class",
            rows=formula_rows(formula),
            layout=W.Layout(width="100%"),
        )
        self.formula.add_class("symnb-formula")
        self.latex = W.HTMLMath(value="")
        self.latex.add_class("symnb-latex")
        self.error_box = W.HTML(value="")
        self.error_box.add_class("symnb-error")
        self.notes = W.HTML(value="")
        self.notes.add_class("symnb-notes")
        self.sliders: dict[str, W.FloatSlider] = {}
        self.slider_box = W.VBox([])
        self.slider_box.add_class("symnb-constants")
        self.plot = CurveView(presentation=self._presentation)
        self.plot.add_class("symnb-plot")
        # the browser's own sliders send values without waiting for the kernel
        # (ipywidgets sliders send one value per kernel round trip)
        self.value_boxes: dict[str, W.FloatText] = {}
        self._rows: dict[str, W.HBox] = {}

        options, note = backend_choices()
        values = [v for _, v in options]
        self.backend = W.Dropdown(
            options=options,
            value=backend if backend in values else "auto",
            description="backend",
            layout=W.Layout(width="200px"),
        )
        self.backend.add_class("symnb-backend")
        self.device = W.Dropdown(
            options=device_choices(self.backend.value),
            description="device",
            layout=W.Layout(width="220px"),
        )
        self.device.add_class("symnb-device")
        if device is not None and device in [v for _, v in self.device.options]:
            self.device.value = device
        self.backend_note = W.HTML(value=note)
        self.backend_note.add_class("symnb-backend-note")
        self.presentation_button = W.ToggleButton(
            value=self._presentation,
            description="Projector",
            icon="television",
            tooltip="LaTeX at display size, a large plot",
        )
        self.presentation_button.add_class("symnb-presentation")
        self.compile_button = W.Button(
            description="Compile", button_style="primary", icon="cogs"
        )
        self.compile_button.add_class("symnb-compile")
        self.status = W.HTML(value="")
        self.status.add_class("symnb-status")
        self.output = W.Output()
        self.output.add_class("symnb-output")
        self.errors = ErrorSink(self.output)
        self.plot.listen(self.errors.guard(self._on_plot_message))

        self._debounce = Debounce(self.errors.guard(self.refresh), delay=debounce)
        self._dragging = False
        self._browser_seq: dict[str, int] = {}  # newest message per browser view
        self._box_debounce = Debounce(self.errors.guard(self._sync_boxes), delay=0.25)
        self._plot_throttle = Throttle(
            self.errors.guard(self._draw_plot), interval=plot_interval
        )

        self.formula.observe(self.errors.guard(self._on_text), names="value")
        self.name_box.observe(self.errors.guard(self._on_name), names="value")
        self.backend.observe(self.errors.guard(self._on_backend), names="value")
        self.compile_button.on_click(self.errors.guard(lambda _b: self.compile()))
        self.presentation_button.observe(
            self.errors.guard(lambda c: self._apply_presentation(bool(c["new"]))),
            names="value",
        )

        super().__init__(
            [
                self.name_box,
                self.formula,
                self.latex,
                self.error_box,
                self.notes,
                self.slider_box,
                self.plot,
                W.HBox(
                    [
                        self.backend,
                        self.device,
                        self.compile_button,
                        self.presentation_button,
                    ]
                ),
                self.backend_note,
                self.status,
                self.output,
            ],
            **kwargs,
        )
        self.add_class("symnb-editor")
        self.refresh()
        self._refuse_unused_constants(constants)
        self._apply_given_constants(_checked_constants(constants))

    def _refuse_unused_constants(self, given: dict[str, Any] | None) -> None:
        """``constants`` names the formula does not have: ``constants={'gamma': 2}``
        for ``x*sigmoid(beta*x)`` was dropped without a word (no slider, no value).
        Checked once the formula is parsed (pasted code declares its constants); a
        formula with an error shows it and keeps the values for when it parses."""
        if not given or self._base is None:
            return
        known = list(self._base.constants)
        unused = [k for k in given if k not in known]
        if unused:
            self._plot_throttle.cancel()
            self._debounce.cancel()
            raise UnknownConstantError(
                f"ActivationEditor: constants names {', '.join(map(repr, unused))}, "
                f"which formula {self.formula.value!r:.80} does not use",
                suggestion=f"its constants are: {', '.join(known) or 'none'}; "
                "remove the name from constants= or use it in the formula",
            )

    def _apply_given_constants(self, given: dict[str, float]) -> None:
        """``constants=`` wins over the defaults pasted code declares: for
        ``def f(x, a=1.2)`` with ``constants={'a': 2.0}`` the slider and the plot
        showed 1.2, the given 2.0 dropped without a word."""
        if self._base is None:
            return
        differ = {
            k: v
            for k, v in given.items()
            if k in self.sliders and float(self.sliders[k].value) != v
        }
        if differ:
            self.set_constants(**differ)

    # ------------------------------------------------------------------ results
    @property
    def name(self) -> str:
        """The activation's name (from the name box)."""
        return self.name_box.value.strip() or "custom"

    @property
    def activation(self) -> Any:
        """The ``symnb.Activation`` of the current formula and slider values.

        ``None`` while the formula has an error (see :attr:`error`).
        """
        with self._lock:
            if self._base is None:
                return None
            vals = self.constants
            return self._base.with_constants(**vals) if vals else self._base

    @property
    def kernel(self) -> Any:
        """The kernel made by the last Compile (its constants follow the sliders).

        ``None`` before Compile and after the formula changed.
        """
        return self._kernel

    @property
    def error(self) -> BaseException | None:
        """The error of the current formula (or of the last compile), else ``None``."""
        return self._error

    @property
    def constants(self) -> dict[str, float]:
        """The slider values, by constant name."""
        return {k: float(s.value) for k, s in self._slider_items()}

    def _slider_items(self) -> list[tuple[str, W.FloatSlider]]:
        """The sliders as a list taken at once: a debounced refresh rebuilds
        ``sliders`` in its timer thread while callbacks read it in the main thread
        (iterating the dict itself raised "dictionary changed size during
        iteration")."""
        return list(self.sliders.items())

    def set_constants(self, **values: float) -> None:
        """Move sliders (unknown names raise ``symnb.errors.UnknownConstantError``,
        both a ``KeyError`` and a ``FormulaError``; values that the kernels cannot
        hold ``ValueError``); the plot follows."""
        checked = {}
        for k, v in values.items():
            if k not in self.sliders:
                # a KeyError as documented, and a FormulaError as a kernel's
                # set_constants raises for a name it lacks
                raise UnknownConstantError.unknown_constant(
                    "ActivationEditor: the formula", k, list(self.sliders)
                )
            checked[k] = _constant_number(k, v)
        with self.hold_sync():
            for k, v in checked.items():
                self._ensure_range(self.sliders[k], v)
                self.sliders[k].value = v
        self._plot_throttle.flush()

    @property
    def x_range(self) -> tuple[float, float]:
        """The plotted x interval ``(low, high)``; assigning it is checked as
        ``x_range=`` is at construction and redraws the plot (a plain attribute
        took ``(5, 1)`` or ``"abc"`` without a word, and the next plot drew
        nothing or failed)."""
        return self._x_range

    @x_range.setter
    def x_range(self, value: Any) -> None:
        self._x_range = _checked_range(value)
        throttle = self.__dict__.get("_plot_throttle")
        if throttle is not None:
            throttle()
            throttle.flush()

    # ------------------------------------------------------------------ parsing
    def _on_text(self, change: dict) -> None:
        rows = formula_rows(change["new"])
        if self.formula.rows != rows:
            self.formula.rows = rows
        self._debounce()

    def _on_name(self, change: dict) -> None:
        self._parsed_text = None
        self.refresh()

    def refresh(self) -> None:
        """Parse the formula now (no debounce) and update LaTeX, sliders and plot."""
        self._debounce.cancel()
        with self._lock:
            text = self.formula.value
            key = (text, self.name)
            unchanged = key == self._parsed_text and self._base is not None
        if unchanged:
            # outside the lock: the throttle's timer thread holds its run lock and
            # waits for ours in curves(); flushing under ours deadlocked the kernel
            self._plot_throttle.flush()
            return
        with self._lock:
            import symnb

            names = constant_names(text)
            for k, s in self.sliders.items():
                self._values[k] = float(s.value)
            consts = {k: self._values.get(k, 1.0) for k in names}
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    act = symnb.Activation(text, name=self.name, **consts)
                    preview = act.compile(backend="numpy")
            except Exception as exc:  # noqa: BLE001 - shown inline
                self._show_error(exc)
                return
            old_kernel = self._kernel
            self._base = act
            self._preview = preview
            self._parsed_text = key
            self._error = None
            self._kernel = None
            editor_defined(self, self.name)
            f_tex = _strip_dollars(act.latex)
            df_tex = _strip_dollars(act.derivative_latex)
            notes = list(getattr(act, "notes", []) or [])
            stray = [k for k in act.constants if k in ("y_pred", "y_true")]
            if stray:  # a loss typed here: its inputs became two constants
                notes.append(
                    f"{' and '.join(stray)} are constants (sliders) here: this "
                    "editor makes activations of x; define losses with symnb.Loss "
                    "or %%symact --loss"
                )
            notes += [str(w.message) for w in caught if str(w.message) not in notes]
            # values pasted code declares (``def f(x, beta=1.2)``, a module's
            # __init__) are the code's, not the last slider's or 1.0: the sliders
            # showed 1.0 and the plot used it while the code said 1.2
            declared = {
                k: float(v) for k, v in act.constants.items() if k not in consts
            }
            self._values.update(declared)
            with self.hold_sync():
                # sliders first: when the LaTeX changes, the rest is in place
                self._sync_sliders(list(act.constants))
                for k, v in declared.items():
                    slider = self.sliders.get(k)
                    if slider is not None and float(slider.value) != v:
                        self._ensure_range(slider, v)
                        slider.value = v
                self.error_box.value = ""
                # HTML-escaped: MathJax reads the text after the browser parsed the
                # HTML, so "x < 0" in a Piecewise condition must not start a tag
                self.latex.value = self._latex_html(escape(f_tex), escape(df_tex))
                self.notes.value = notes_html(notes)
                if old_kernel is not None:
                    self.status.value = (
                        '<span style="color:#a60">formula changed: press Compile</span>'
                    )
        self._draw_plot()

    def _latex_html(self, f_tex: str, df_tex: str) -> str:
        if not self._presentation:
            return f"$f(x) = {f_tex}$<br>$f'(x) = {df_tex}$"
        return (
            '<div class="symnb-latex-display" style="font-size:180%">'
            f"$$f(x) = {f_tex}$$$$f'(x) = {df_tex}$$</div>"
        )

    def _show_error(self, exc: BaseException) -> None:
        """Show the error under the last good curves (which stay on screen)."""
        self._base = None
        self._preview = None
        self._parsed_text = None
        self._error = exc
        self._kernel = None
        with self.hold_sync():
            self.error_box.value = error_html(exc)
            self.latex.value = ""
        self.plot.error = f"{type(exc).__name__}: {exc}"

    def _ensure_range(self, slider: W.FloatSlider, value: float) -> None:
        """Grow the slider's range (symmetric about 0) so that it includes ``value``."""
        value = _constant_number(slider.description, value)
        if value < slider.min or value > slider.max:
            span = max(5.0, 2.0 * abs(value))
            with slider.hold_trait_notifications():
                slider.max = span
                slider.min = -span
            self._publish_constants()

    def _refuse_value(self, exc: BaseException) -> None:
        """A constant value the kernels cannot take: said under the curves and in
        the status line (the sliders keep their last good values)."""
        self.plot.error = str(exc)
        self.status.value = error_html(exc)

    def _constants_state(self) -> list[dict]:
        """Names, values and ranges of the constants for the browser's sliders."""
        return [
            {"name": k, "value": s.value, "min": s.min, "max": s.max, "step": s.step}
            for k, s in self._slider_items()
        ]

    def _publish_constants(self) -> None:
        self.plot.constants = self._constants_state()

    def _on_plot_message(self, msg: dict) -> None:
        """A value from the browser's slider."""
        name = msg.get("name")
        session, seq = str(msg.get("session")), msg.get("seq")
        if isinstance(seq, int):  # messages can arrive out of order: newest wins
            if seq <= self._browser_seq.get(session, 0):
                return
            self._browser_seq[session] = seq
        if msg.get("kind") == "constant" and name in self.sliders:
            try:
                value = _constant_number(name, msg.get("value"))
            except (TypeError, ValueError) as exc:
                self._refuse_value(exc)
                self._publish_constants()  # the browser's slider goes back
                return
            self._ensure_range(self.sliders[name], value)
            self._dragging = True  # the typed box follows once the drag pauses
            try:
                self.sliders[name].value = value
            finally:
                self._dragging = False
            self._box_debounce()

    def _sync_sliders(self, names: list[str]) -> None:
        old: list[W.Widget] = []
        for k in list(self.sliders):
            if k not in names:
                slider = self.sliders.pop(k)
                self._values[k] = float(slider.value)
                self.value_boxes.pop(k)
                old.append(self._rows.pop(k))
        for k in names:
            if k in self.sliders:
                continue
            v = self._values.get(k, 1.0)
            span = max(5.0, 2.0 * abs(v))
            s = W.FloatSlider(
                value=v,
                min=-span,
                max=span,
                step=0.01,
                description=k,
                continuous_update=True,
                readout=False,
                layout=W.Layout(width="400px", display="none"),
            )
            s.add_class("symnb-constant")
            s.observe(self.errors.guard(self._on_slider), names="value")
            box = W.FloatText(
                value=v,
                description=f"{k} =",
                style={"description_width": "initial"},
                layout=W.Layout(width="160px"),
            )
            box.add_class("symnb-constant-value")
            box.observe(self.errors.guard(self._on_value_box), names="value")
            self.sliders[k] = s
            self.value_boxes[k] = box
            self._rows[k] = W.HBox([s, box])
        self.slider_box.children = tuple(self._rows[k] for k in names)
        for widget in old:
            close_tree(widget)
        self._publish_constants()

    def _on_value_box(self, change: dict) -> None:
        """A typed value: the slider's range grows to include it."""
        for k, box in list(self.value_boxes.items()):
            if box is change["owner"]:
                slider = self.sliders.get(k)
                if slider is None:  # removed by a refresh meanwhile
                    return
                try:
                    value = _constant_number(k, change["new"])
                except (TypeError, ValueError) as exc:
                    self._refuse_value(exc)
                    box.value = round(float(slider.value), 6)  # back to the slider's
                    return
                if value != slider.value:
                    self._ensure_range(slider, value)
                    slider.value = value
                return

    def _on_slider(self, change: dict) -> None:
        try:
            _constant_number(change["owner"].description, change["new"])
        except (TypeError, ValueError) as exc:  # set from code: NaN, 1e39...
            self._refuse_value(exc)
            try:  # back to the last good value (if it was one)
                old = _constant_number(change["owner"].description, change["old"])
            except (TypeError, ValueError):
                return
            change["owner"].value = old
            return
        with self._lock:
            vals = self.constants
            self._values.update(vals)
            if self._kernel is not None:
                self._kernel.set_constants(**vals)
        if not self._dragging:
            self._sync_boxes()
        self._plot_throttle()

    def _sync_boxes(self) -> None:
        """The typed-value boxes show the sliders' values."""
        for k, slider in self._slider_items():
            box = self.value_boxes.get(k)
            if box is not None:
                box.value = round(float(slider.value), 6)

    # ------------------------------------------------------------------ plot
    @staticmethod
    def _comparison_kernels(names: Any) -> list[tuple[str, Any]]:
        """numpy kernels of the comparison activations (library names)."""
        if isinstance(names, str):
            names = [names]
        import symnb

        out = []
        for name in names or ():
            out.append(
                (str(name), symnb.activation(str(name)).compile(backend="numpy"))
            )
        return out

    def curves(self) -> dict[str, np.ndarray]:
        """The sampled curves sent to the browser: ``x``, ``f``, ``f'`` and the
        comparison activations (float32, :data:`SAMPLES` points)."""
        with self._lock:
            if self._base is None:
                return {}
            vals = self.constants
            if vals:
                self._preview.set_constants(**vals)
            xs = np.linspace(*self.x_range, SAMPLES).astype(np.float32)
            y, dy = self._preview.forward_with_derivative(xs)
            out = {"x": xs, "f": np.asarray(y), "f'": np.asarray(dy)}
            for name, kernel in self._compare:
                out[name] = np.asarray(kernel.forward(xs))
            return out

    def _draw_plot(self) -> None:
        curves = self.curves()
        if not curves:
            return
        xs = curves.pop("x")
        names = list(curves)
        vals = self.constants
        title = self.name + (
            "  (" + ", ".join(f"{k}={v:.3g}" for k, v in vals.items()) + ")"
            if vals
            else ""
        )
        v = self.plot
        with v.hold_sync():
            v.xs = f32(xs)
            v.ys = b"".join(f32(curves[n]) for n in names)
            v.names = names
            v.colours = list(COLOURS[: len(names)])
            v.dashed = [n == "f'" for n in names]
            v.title = title
            v.error = ""
            v.constants = self._constants_state()
            v.frame = v.frame + 1

    def plot_png(self) -> bytes | None:
        """A PNG of f and f' (the static picture of executed notebooks)."""
        with self._lock:
            act, kernel = self.activation, self._preview
            if act is None:
                return None
            if self.constants:
                kernel.set_constants(**self.constants)
            return _plot_with_library(act, kernel, self.x_range)

    @property
    def presentation(self) -> bool:
        """Projector mode: the LaTeX at display size, a large plot."""
        return self._presentation

    @presentation.setter
    def presentation(self, on: bool) -> None:
        # bool(on) read the string "no" (or "off") as True: projector mode on
        on = check_flag(on, "ActivationEditor: presentation")
        if self.presentation_button.value != on:
            self.presentation_button.value = on  # its observer applies it
        else:
            self._apply_presentation(on)

    def _apply_presentation(self, on: bool) -> None:
        self._presentation = on
        self.plot.presentation = on
        self._parsed_text = None
        self.refresh()

    # ------------------------------------------------------------------ compile
    def _on_backend(self, change: dict) -> None:
        self.device.options = device_choices(change["new"])

    def compile(self) -> Any:
        """Compile the current formula with the chosen backend and device.

        Returns the kernel (also :attr:`kernel`), or ``None`` with the error shown in
        the status line (and in :attr:`error`).
        """
        self.refresh()
        act = self.activation
        if act is None:
            self.status.value = error_html("fix the formula first")
            return None
        backend = self.backend.value
        self.status.value = f"compiling with {escape(backend)}…"
        kwargs = device_argument(backend, self.device.value)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                kernel = act.compile(
                    backend=backend, strict=backend != "auto", **kwargs
                )
        except Exception as exc:  # noqa: BLE001 - shown inline
            self._error = exc
            self._kernel = None
            self.status.value = error_html(exc)
            return None
        self._kernel = kernel
        self._error = None
        hit = getattr(kernel, "cache_hit", False)
        secs = getattr(kernel, "compile_seconds", 0.0) or 0.0
        device = getattr(kernel, "device", None)
        where = f"{kernel.backend}" + (
            f", device {device}" if device not in (None, "cpu") else ""
        )
        self.status.value = (
            f'<span style="color:#070">compiled <b>{escape(act.name)}</b> with '
            f"{escape(where)} ({'cache hit' if hit else f'{secs:.2f} s'})</span>"
        )
        messages = list(dict.fromkeys(str(w.message) for w in caught))
        if messages:  # e.g. a fallback to another backend, and why
            self.status.value += (
                '<div style="color:#a60;font-size:90%">'
                + "<br>".join(escape(m) for m in messages)
                + "</div>"
            )
        return kernel

    def close(self) -> None:
        """Cancel pending updates and close the editor and all its parts (also on an
        editor whose construction failed half-way: ``Widget.__del__`` calls this)."""
        for name in ("_debounce", "_box_debounce", "_plot_throttle"):
            pending = getattr(self, name, None)
            if pending is not None:
                pending.cancel()
        for child in list(self.children):
            close_tree(child)
        super().close()

    # ------------------------------------------------------------------ display
    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        data = super()._repr_mimebundle_(**kwargs)
        try:
            png = self.plot_png()
        except Exception:  # noqa: BLE001 - the widget view is still there
            png = None
        if png:
            data["image/png"] = base64.b64encode(png).decode("ascii")
        act = self._base
        if act is not None:
            data["text/plain"] = (
                f"ActivationEditor: f(x) = {self.formula.value}   "
                f"f'(x) = {act.derivative}"
            )
        return data

    def __repr__(self) -> str:
        return f"ActivationEditor(formula={self.formula.value!r}, name={self.name!r})"
