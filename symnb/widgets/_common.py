"""Pieces the editor and the playground share: backend choices, error routing, and the
activations the user defined in this session."""

from __future__ import annotations

import ast
import difflib
import functools
import html
import inspect
import threading
import traceback
import weakref
from collections.abc import Callable
from typing import Any

import ipywidgets as W


def escape(text: object) -> str:
    """HTML-escape any text shown in an HTML widget (formulas come from users)."""
    return html.escape(str(text), quote=True)


def error_html(exc: BaseException | str) -> str:
    """An inline error box (monospace, so FormulaError's caret lines up)."""
    msg = str(exc) if not isinstance(exc, str) else exc
    kind = type(exc).__name__ if not isinstance(exc, str) else "Error"
    return (
        '<div class="symnb-error-box" style="color:#b00020;background:#fff0f0;'
        'border-left:3px solid #b00020;padding:4px 8px;margin:2px 0">'
        f'<b>{escape(kind)}</b><pre style="margin:2px 0;white-space:pre-wrap;'
        f'font-size:90%">{escape(msg)}</pre></div>'
    )


class ErrorSink:
    """Routes exceptions from widget callbacks into an ``Output`` the widget owns.

    ``ipywidgets`` swallows callback exceptions into the log console; users never see
    them. ``append_stderr`` works from any thread (the training thread too), unlike
    ``with output:`` which needs the kernel's current parent message.
    """

    def __init__(self, output: W.Output) -> None:
        self.output = output
        self.last: BaseException | None = None
        self.count = 0
        #: the exceptions shown since the last :meth:`clear`
        self.exceptions: list[BaseException] = []

    def report(self, exc: BaseException) -> None:
        """Show ``exc`` (with its traceback) in the owned Output."""
        self.last = exc
        self.count += 1
        self.exceptions.append(exc)
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.output.append_stderr(text)

    def clear(self) -> None:
        """Empty the Output and forget the exceptions shown (a Reset)."""
        self.exceptions = []
        self.last = None
        self.output.outputs = ()

    def guard(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Wrap a callback so its exceptions are reported, not lost."""

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - shown to the user
                self.report(exc)
                return None

        return wrapper


def check_widget_options(cls: type, options: dict[str, Any]) -> None:
    """The extra keyword arguments a widget ``cls`` hands on to ``ipywidgets.VBox``
    must be VBox traits (``layout``, ``box_style``, ...). A misspelled option
    (``Playground(confg={...})``, ``ActivationEditor(formla=...)``) was handed on and
    ignored: traitlets only warns, with a DeprecationWarning a notebook hides."""
    traits = set(W.VBox.class_trait_names())
    unknown = [key for key in options if key not in traits]
    if not unknown:
        return
    own = [
        name
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if name != "self" and p.kind is not p.VAR_KEYWORD
    ]
    key = str(unknown[0])
    close = difflib.get_close_matches(key, own, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}=? " if close else ""
    raise TypeError(
        f"{cls.__name__}() got an unexpected keyword argument {key!r}; {hint}"
        f"its options are {', '.join(own)} (and ipywidgets layout options such "
        "as layout=)"
    )


def close_tree(widget: W.Widget) -> None:
    """Close a widget and every widget below it (ipywidgets keeps each widget alive in
    ``Widget.widgets`` until it is closed; rebuilt parts would otherwise pile up)."""
    for child in list(getattr(widget, "children", ()) or ()):
        close_tree(child)
    parts = [getattr(widget, "layout", None), getattr(widget, "style", None)]
    widget.close()
    for part in parts:
        if isinstance(part, W.Widget):
            part.close()


# ------------------------------------------------------------------------------------
# Backends
# ------------------------------------------------------------------------------------


def backend_statuses() -> dict[str, Any]:
    """``symnb.backends.available()``; empty when the core is not importable."""
    try:
        from symnb import backends

        return dict(backends.available())
    except Exception:  # noqa: BLE001 - the dropdown then offers only numpy
        return {}


def backend_choices() -> tuple[list[tuple[str, str]], str]:
    """Dropdown options (usable backends and "auto") and an HTML note on the others."""
    statuses = backend_statuses()
    options = [("auto", "auto")]
    notes = []
    for name, st in statuses.items():
        if getattr(st, "usable", False):
            options.append((name, name))
        else:
            reason = getattr(st, "reason", "") or "not usable"
            fix = getattr(st, "fix", "") or ""
            note = f"<b>{escape(name)}</b>: {escape(reason)}"
            if fix:
                note += f" <i>(fix: {escape(fix)})</i>"
            notes.append(note)
    if not statuses:
        options.append(("numpy", "numpy"))
    note_html = ""
    if notes:
        note_html = (
            '<div style="font-size:85%;color:#666">not offered: '
            + "; ".join(notes)
            + "</div>"
        )
    return options, note_html


def device_choices(backend: str) -> list[tuple[str, Any]]:
    """Devices of a backend: GPUs for cuda (from the status details), else the CPU."""
    if backend != "cuda":
        return [("cpu", "cpu")] if backend != "auto" else [("default", "default")]
    st = backend_statuses().get("cuda")
    details = dict(getattr(st, "details", {}) or {})
    devices = details.get("devices")
    out: list[tuple[str, Any]] = []
    if isinstance(devices, dict):
        devices = list(devices.items())
    if isinstance(devices, (list, tuple)):
        for i, dev in enumerate(devices):
            if isinstance(dev, (tuple, list)) and len(dev) == 2:
                index, label = dev
            elif isinstance(dev, dict):
                index = dev.get("id", dev.get("index", i))
                label = dev.get("name", f"GPU {index}")
            else:
                index, label = i, dev
            out.append((f"{index}: {label}", int(index)))
    if not out:
        count = details.get("device_count") or details.get("count") or 1
        out = [(f"GPU {i}", i) for i in range(int(count))]
    return out


def device_argument(backend: str, device: Any) -> dict[str, Any]:
    """The ``device=`` keyword for ``compile``/``MLP`` (only cuda takes one)."""
    if backend == "cuda" and isinstance(device, int):
        return {"device": device}
    return {}


# ------------------------------------------------------------------------------------
# Formula helpers
# ------------------------------------------------------------------------------------


def constant_names(text: str, variables: tuple[str, ...] = ("x",)) -> list[str]:
    """Names in a formula that are not the variable, a function or a known constant.

    Only ``ast.parse`` is used (nothing is evaluated); when the text does not parse the
    list is empty and the core's parser reports the error with its position.
    """
    if len(text) > 5000:
        return []
    try:
        from symnb.formula.functions import ALLOWED_CONSTANTS, ALLOWED_FUNCTIONS
    except Exception:  # noqa: BLE001
        ALLOWED_CONSTANTS, ALLOWED_FUNCTIONS = {}, {}
    try:
        tree = ast.parse(text.replace("^", "**").strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    from symnb.formula import spellings

    called: set[int] = set()  # function names, and np of np.tanh (never constants)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.add(id(node.func))
        if isinstance(node, ast.Attribute) and spellings.split(node) is not None:
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            called.add(id(root))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in called:
            n = node.id
            if n in variables or n in ALLOWED_CONSTANTS or n in names:
                continue
            if n == "e" or spellings.variable_alias(n, tuple(variables)):
                continue  # Euler's number; a loss's y_hat, target...
            if n in ALLOWED_FUNCTIONS:
                continue
            names.append(n)
    # ast.walk is breadth first; order by first position in the text instead
    names.sort(key=lambda n: _first_pos(tree, n))
    return names


def _first_pos(tree: ast.AST, name: str) -> tuple[int, int]:
    best = (1 << 30, 0)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name:
            best = min(best, (node.lineno, node.col_offset))
    return best


def constant_value(value: Any) -> float:
    """A constant's number (``symnb.Learnable`` carries it in ``.value``)."""
    return float(getattr(value, "value", value))


# ------------------------------------------------------------------------------------
# Activations the user defined: editors, %%symact, variables in the notebook
# ------------------------------------------------------------------------------------

_REGISTRY: dict[str, Any] = {}
_REGISTRY_LOCK = threading.Lock()
#: name -> the editor that last produced a valid activation of that name
_EDITORS: dict[str, weakref.ref[Any]] = {}


def editor_defined(editor: Any, name: str) -> None:
    """Record that ``editor`` defines the activation ``name`` (the latest wins)."""
    with _REGISTRY_LOCK:
        for key, ref in list(_EDITORS.items()):
            if ref() is editor or ref() is None:
                del _EDITORS[key]
        _EDITORS[name] = weakref.ref(editor)


def check_offered_activation(act: Any, what: str, key: str) -> None:
    """``act`` (``what``, offered as ``key``) is a symnb.Activation or a library
    name, checked now, not when a menu first offers it and training fails."""
    import symnb

    if isinstance(act, symnb.Activation):
        return
    if not isinstance(act, str):
        raise TypeError(
            f"{what} must be a symnb.Activation or a library name such as 'relu', "
            f"got {type(act).__name__}"
        )
    try:
        symnb.activation(act)
    except symnb.FormulaError as exc:
        raise ValueError(
            f"{what} = {act!r:.60} is no library activation "
            f"({str(exc).splitlines()[0]}); pass a library name such as 'relu' or a "
            f"symnb.Activation, e.g. symnb.Activation('x*tanh(x)', name={key!r})"
        ) from None


def register_activation(activation: Any, name: str | None = None) -> str:
    """Offer an activation in every Playground of this session; returns its name.

    ``activation`` is a symnb.Activation or a library name (``register_activation(3)``
    was kept as 'custom', and the Playground offering it failed when chosen)."""
    from symnb.checks import check_name

    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise TypeError(
            f"register_activation: name must be a non-empty string or None, got "
            f"{name!r:.60}"
        )
    key = name or getattr(activation, "name", None) or "custom"
    check_offered_activation(activation, "register_activation: activation", key)
    check_name(key, "register_activation: name")
    with _REGISTRY_LOCK:
        _REGISTRY[str(key)] = activation
    return str(key)


def _is_activation(obj: Any) -> bool:
    try:
        import symnb

        cls = getattr(symnb, "Activation", None)
        return cls is not None and isinstance(obj, cls)
    except Exception:  # noqa: BLE001
        return False


def user_activations() -> dict[str, Any]:
    """Activations defined in this session, by name.

    Sources, later ones winning: activations found in the notebook's namespace (what
    ``%%symact`` and ``symnb.Activation(...)`` assignments leave there), a registry the
    core may offer (``symnb.registered_activations()``), editors with a valid formula,
    and :func:`register_activation`.
    """
    found: dict[str, Any] = {}
    try:
        from IPython import get_ipython

        ip = get_ipython()
        if ip is not None:
            for var, obj in list(ip.user_ns.items()):
                if not var.startswith("_") and _is_activation(obj):
                    name = getattr(obj, "name", None)
                    # an unnamed Activation is called "f": list it by its variable
                    found[str(var if name in (None, "", "f") else name)] = obj
    except Exception:  # noqa: BLE001, S110 - discovery is best effort
        pass
    try:
        import symnb

        reg = getattr(symnb, "registered_activations", None)
        if callable(reg):
            for key, obj in dict(reg()).items():
                found[str(key)] = obj
    except Exception:  # noqa: BLE001, S110 - discovery is best effort
        pass
    with _REGISTRY_LOCK:
        editors = list(_EDITORS.items())
    for key, ref in editors:
        editor = ref()
        act = getattr(editor, "activation", None) if editor is not None else None
        if act is not None and editor.name == key:
            found[key] = act
    with _REGISTRY_LOCK:
        found.update(_REGISTRY)
    return found
