"""The ``%%symact`` cell magic and the ``%symnb`` line magic.

Thin by design: options come from ``IPython.core.magic_arguments``, user errors are
``UsageError`` (one short message, no traceback), and all the work is done by the public
``symnb`` API (``symnb.Activation``, ``symnb.Loss``, ``.compile``, ``symnb.backends``).

``%%symact`` — see :mod:`symnb.notebook.syntax` for the definition language::

    %%symact --backend cpp --range -3:3
    swish(x; beta=1.0) = x*sigmoid(beta*x)
    bump(x) = exp(-x**2)

binds ``swish`` and ``bump`` in the notebook as ``symnb.Activation`` objects whose
compiled kernel is ``swish.kernel``. The cell is all-or-nothing: when any definition is
wrong, nothing is bound and earlier bindings of those names are left as they were.

``%symnb`` — ``info``, ``backend NAME``, ``device N``, ``cache``, ``cache clear``,
``library``, ``--help``; with no argument it prints the session defaults.
"""

from __future__ import annotations

import re
import shlex
import unicodedata
import warnings
from collections.abc import Callable
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from symnb.backends.select import check_dtype
from symnb.notebook import state
from symnb.plotting import checked_range

#: a value that starts with '-' but is no option: a number or a range (-4:4, -inf)
_NEGATIVE_VALUE = re.compile(r"-(\d|\.\d|inf|nan)", re.IGNORECASE)


def _join_negative_values(argv: list[str]) -> list[str]:
    """``--range -4:4`` -> ``--range=-4:4`` (argparse takes ``-4:4`` for an option),
    also when the value was quoted (``--range "-4:4"``)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if (
            token.startswith("--")
            and "=" not in token
            and i + 1 < len(argv)
            and _NEGATIVE_VALUE.match(argv[i + 1])
        ):
            out.append(f"{token}={argv[i + 1]}")
            i += 2
            continue
        out.append(token)
        i += 1
    return out


#: dashes that look like '-' in a pasted option line (``--range −4:4``)
_DASHES = {"\u2212": "MINUS SIGN", "\u2013": "EN DASH", "\u2014": "EM DASH"}


def _refuse_odd_characters(line: str, name: str) -> None:
    """A ``UsageError`` naming an invisible or control character (NUL was shown
    as "unrecognized arguments:  ", a blank) or a dash that is not '-' (``−4:4``
    was "not a range" with the difference invisible) on the magic's line, before
    any ``# comment`` (which may hold anything)."""
    for column, ch in enumerate(line.split("#", 1)[0], start=1):
        if ch in _DASHES:
            raise UsageError(
                f"{name}: the options hold a {_DASHES[ch]} (U+{ord(ch):04X}) at "
                f"column {column}; type '-' instead"
            )
        if ch != "\t" and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            label = unicodedata.name(ch, "a control character")
            raise UsageError(
                f"{name}: the options hold {label} (U+{ord(ch):04X}) at column "
                f"{column}; delete it (an invisible character, e.g. from a "
                "copy-paste)"
            )


def _parse_options(magic: Callable[..., Any], line: str, name: str) -> Any:
    """The options of ``line``, split as a shell does: quotes are removed
    (``--backend "cpp"`` is ``cpp``; IPython's own splitting kept them, and the
    value was then refused as 'unknown backend \'"cpp"\''), ``#`` starts a comment
    as in the cell below. A quoting mistake (``'unterminated``) or an unknown or
    incomplete option is a one-line ``UsageError`` that points to ``--help``."""
    _refuse_odd_characters(line, name)
    try:
        argv = shlex.split(line, comments=True, posix=True)
    except ValueError as exc:
        raise UsageError(
            f"{name}: cannot read the options {line.strip()!r}: {exc} "
            f"(see {name} --help)"
        ) from None
    parser = getattr(magic, "parser", None)
    if parser is None:  # pragma: no cover - magic_arguments always sets it
        return parse_argstring(magic, line)
    try:
        return parser.parse_args(_join_negative_values(argv))
    except UsageError as exc:
        raise UsageError(f"{name}: {exc} (see {name} --help)") from None


def _empty_symact_body(lines: list[str]) -> list[str]:
    """Input transformer: a ``%%symact ...`` cell with nothing below the magic line
    gets an empty body line, so that ``%%symact --help`` alone in a cell reaches the
    magic (IPython itself refuses a cell magic whose body is empty); a tab after
    ``%%symact`` becomes a space (IPython split the name at spaces only: "Cell
    magic `%%symact<tab>--no-plot` not found")."""
    if lines and re.match(r"%%symact[^\S\n]", lines[0]):
        lines = [re.sub(r"^%%symact[^\S\n]+", "%%symact ", lines[0]), *lines[1:]]
    if (
        lines
        and re.match(r"%%symact(\s|$)", lines[0])
        and all(not line.strip() for line in lines[1:])
    ):
        return [lines[0].rstrip("\n") + "\n", "\n"]
    return lines


def _warning_text(w: warnings.WarningMessage) -> str:
    return str(w.message)


def _format_formula_error(
    exc: Exception, definition: Any, moves: Any, lines: list[str]
) -> str:
    """One short message for a FormulaError raised by the core for a cell definition."""
    message = getattr(exc, "message", None) or str(exc)
    column = getattr(exc, "column", None)
    line, col = definition.cell_position(column, moves)
    out = [f"{definition.name}: {message} (line {line}, column {col})"]
    if 1 <= line <= len(lines) and len(lines[line - 1]) <= 200:
        out.append("    " + lines[line - 1])
        if column is not None:
            out.append("    " + " " * (col - 1) + "^")
    suggestion = getattr(exc, "suggestion", None)
    unknown = re.match(r"unknown symbol '(\w+)'", message)
    if unknown:  # say how to declare it in this cell's syntax
        consts = [str(c) for c in definition.constants] + [f"{unknown.group(1)}=1.0"]
        suggestion = (
            f"declare it as a constant: {definition.name}"
            f"({', '.join(definition.inputs)}; {', '.join(consts)}) = ..."
        )
    if suggestion:  # in a cell, replace=True is spelled --replace
        suggestion = suggestion.replace(
            "pass replace=True", "add --replace to the %%symact line"
        )
        out.append(f"hint: {suggestion}")
    return "\n".join(out)


def _short(exc: Exception) -> str:
    text = str(exc).strip()
    lines = text.splitlines()
    if len(lines) > 12:
        text = "\n".join(lines[:12] + ["..."])
    return text


@magics_class
class SymnbMagics(Magics):
    """``%%symact`` and ``%symnb``."""

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        cleanup = getattr(shell, "input_transformers_cleanup", None)
        if cleanup is not None and _empty_symact_body not in cleanup:
            cleanup.append(_empty_symact_body)

    # ------------------------------------------------------------------ %%symact

    @magic_arguments()
    @argument(
        "--loss",
        action="store_true",
        help="define losses name(y_pred, y_true; k=v) = formula instead of activations",
    )
    @argument(
        "--backend",
        default=None,
        help="auto, numpy, cpp or cuda (default: the session's, see %%symnb backend)",
    )
    @argument(
        "--device",
        default=None,
        help="CUDA device index (default: the session's, see %%symnb device)",
    )
    @argument(
        "--dtype",
        default="float32",
        help="kernel dtype: float32 (default) or float64 (NumPy's names: f8, double)",
    )
    @argument(
        "--range",
        default="-4:4",
        help="plot range LOW:HIGH (default -4:4)",
    )
    @argument("--no-plot", action="store_true", help="do not plot f and f'")
    @argument("--code", action="store_true", help="show the generated kernel source")
    @argument(
        "--no-compile",
        action="store_true",
        help="only parse and differentiate (no kernel; plots use NumPy)",
    )
    @argument(
        "--strict",
        action="store_true",
        help="fail instead of falling back when the backend is not available",
    )
    @argument(
        "-q", "--quiet", action="store_true", help="show only one status line each"
    )
    @argument(
        "--replace",
        action="store_true",
        help="let a definition replace a library activation of the same name "
        "(later formulas then use yours) or a notebook variable that is not an "
        "activation or loss (a model, a list...)",
    )
    @argument("-h", "--help", action="store_true", help="show this help")
    @line_cell_magic
    def symact(self, line: str, cell: str | None = None) -> None:
        """Define activations (or losses) from formulas, show f and f', compile them.

        ::

            %%symact --backend cpp --range -3:3
            swish(x; beta=1.0) = x*sigmoid(beta*x)     # comments are fine
            bump(x) = exp(-x**2)
            prelu(x; a=learnable(0.25)) = Max(0, x) + a*Min(0, x)

            %%symact --loss
            my_mse(y_pred, y_true) = (y_pred - y_true)**2

        One definition per line, ``name(x; k=v, ...) = formula``; blank lines and ``\\``
        line continuations are allowed (see ``symnb.notebook.syntax``). A definition
        may call another of the cell written below it (not in a circle). A name that
        shadows a library activation with a different function (``gelu(x) = 2*x``) is
        refused unless ``--replace`` is given; then later formulas use yours. Each name is
        bound in the notebook as a ``symnb.Activation`` (``--loss``: ``symnb.Loss``)
        whose compiled kernel is its ``.kernel``; when a definition is wrong, nothing is
        bound. A name may rebind an earlier activation or loss, but a notebook variable
        of another kind (a trained model, a list) is kept and the cell refused unless
        ``--replace`` is given.
        """
        from symnb.errors import FormulaError
        from symnb.notebook import display as views
        from symnb.notebook.syntax import parse_cell

        as_line = (
            "%%symact is a cell magic: write the options on the %%symact line and "
            "one definition per line below it (%symact --help for the options)"
        )
        try:
            args = _parse_options(self.symact, line, "%%symact")
        except UsageError:
            if cell is None:  # '%symact f(x) = x': a definition on the line
                raise UsageError(as_line) from None
            raise
        if args.help:
            print(self.symact.__doc__)
            return
        if cell is None:
            raise UsageError(as_line)
        try:
            # --backend '' named no backend and silently meant the session's
            given = state.backend if args.backend is None else args.backend
            backend = state.backend_name(given)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        device = state.device
        if args.device is not None:
            try:
                device = state.device_index(args.device)
            except ValueError as exc:
                raise UsageError(f"--device: {exc}") from None
        try:  # the API's one dtype check (FLOAT64 and f8 alike)
            args.dtype = check_dtype(args.dtype)
        except ValueError as exc:
            raise UsageError(f"--dtype: {exc}") from None
        # read even when nothing is plotted ('--range garbage -q' passed); only a
        # plot needs the range to fit a grid in --dtype
        plotted = not (args.no_plot or args.quiet)
        try:
            x_range = checked_range(
                args.range, args.dtype if plotted else "float64", "--range"
            )
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        x_range = x_range if plotted else None

        try:
            definitions = parse_cell(cell, loss=args.loss)
        except FormulaError as exc:
            raise UsageError(str(exc)) from None
        self._refuse_shell_names(definitions)
        if not definitions:
            example = (
                "my_mse(y_pred, y_true) = (y_pred - y_true)**2"
                if args.loss
                else "swish(x; beta=1.0) = x*sigmoid(beta*x)"
            )
            raise UsageError(
                f"%%symact: the cell defines nothing; write e.g. {example}"
            )

        cell_lines = [f"%%symact {line}".rstrip()] + cell.replace("\r\n", "\n").split(
            "\n"
        )
        built = self._build_all(definitions, cell_lines, args.loss, args.replace)
        if not args.replace:  # after the formula errors, before compiling
            self._refuse_user_variables(definitions)
        kernels = self._compile_all(built, args, backend, device)

        # all definitions are good: bind them, then show them
        ns = self.shell.user_ns
        for (definition, obj, messages), kernel in zip(built, kernels):
            previous = ns.get(definition.name)
            if previous is not None and not _is_formula(previous):
                messages.append(
                    f"{definition.name!r} replaces a {type(previous).__name__} "
                    "of the same name in the notebook"
                )
            if kernel is not None:
                try:
                    obj.kernel = kernel
                except AttributeError:  # pragma: no cover - the core allows it
                    pass
            ns[definition.name] = obj
            status = views.CompileStatus(
                signature=definition.signature, kind=definition.kind, messages=messages
            )
            if kernel is not None:
                status = views.CompileStatus.from_kernel(
                    definition.signature, definition.kind, kernel, messages
                )
                state.last_compile = {
                    "name": definition.name,
                    "backend": status.backend,
                    "device": status.device,
                    "seconds": status.seconds,
                    "cache_hit": status.cache_hit,
                }
            if args.quiet:
                outputs = [status]
            else:
                outputs = views.definition_outputs(
                    obj,
                    status,
                    kernel=kernel,
                    x_range=x_range,
                    show_code=args.code,
                    dtype=args.dtype,
                )
            views.show(outputs)

    def _refuse_shell_names(self, definitions: list[Any]) -> None:
        """A definition may not bind a name the shell keeps for itself (``In``,
        ``get_ipython``...: rebinding them breaks every later cell)."""
        hidden = getattr(self.shell, "user_ns_hidden", None) or {}
        taken = [d for d in definitions if d.name in hidden]
        if taken:
            raise UsageError(
                "\n".join(
                    f"{d.name} (line {d.line}): {d.name!r} belongs to the IPython "
                    f"shell; choose another name, e.g. my_{d.name}"
                    for d in taken
                )
                + "\n(nothing was bound)"
            )

    def _refuse_user_variables(self, definitions: list[Any]) -> None:
        """A definition may not silently replace a notebook variable that is not an
        activation or loss (a trained model would be lost); ``--replace`` allows it."""
        ns = self.shell.user_ns
        taken = [
            d
            for d in definitions
            if ns.get(d.name) is not None and not _is_formula(ns[d.name])
        ]
        if taken:
            raise UsageError(
                "\n".join(
                    f"{d.name} (line {d.line}): {d.name!r} already names a notebook "
                    f"variable of type {type(ns[d.name]).__name__}, which this cell "
                    f"would replace; choose another name (e.g. {d.name}_act) or add "
                    "--replace to the %%symact line to replace it"
                    for d in taken
                )
                + "\n(nothing was bound)"
            )

    def _build_all(
        self,
        definitions: list[Any],
        cell_lines: list[str],
        loss: bool,
        replace: bool = False,
    ) -> list[tuple[Any, Any, list[str]]]:
        """Build every Activation/Loss; on any FormulaError, raise one UsageError.

        ``replace`` (``--replace``) lets a name shadow a library activation."""
        import symnb
        from symnb.errors import FormulaError

        cls = symnb.Loss if loss else symnb.Activation
        built: list[tuple[Any, Any, list[str]]] = []
        errors: list[str] = []
        calls = _cell_calls(definitions)
        failed: set[str] = set()
        for d in _in_build_order(definitions, calls):
            broken = [n for n in calls[d.name] if n in failed]
            if broken:  # not "unknown function": the callee's own error says why
                failed.add(d.name)
                errors.append(
                    f"{d.name} (line {d.line}): not built, it calls "
                    f"{', '.join(broken)}, which has an error (above)"
                )
                continue
            text, moves = d.canonical_formula()
            try:
                constants = {c.name: c.as_value() for c in d.constants}
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    obj = cls(text, name=d.name, replace=replace, **constants)
            except FormulaError as exc:
                failed.add(d.name)
                errors.append(_format_formula_error(exc, d, moves, cell_lines))
                continue
            except (ValueError, TypeError) as exc:
                failed.add(d.name)
                errors.append(f"{d.name} (line {d.line}): {exc}")
                continue
            messages = list(d.warnings)
            for w in caught:
                text_w = _warning_text(w)
                if text_w not in messages:
                    messages.append(text_w)
            for note in getattr(obj, "notes", None) or []:
                if not any(note in m for m in messages):
                    messages.append(note)
            built.append((d, obj, messages))
        order = {d.name: i for i, d in enumerate(definitions)}
        built.sort(key=lambda item: order[item[0].name])  # shown as written
        if errors:
            names = sorted({d.name for d in definitions})
            if len(names) > 8:  # a cell of 50 definitions listed all 50 here
                shown = f"{', '.join(names[:8])} and {len(names) - 8} more"
            else:
                shown = ", ".join(names)
            tail = (
                f"\n(nothing was bound; {names[0]} keeps its previous value)"
                if len(names) == 1
                else f"\n(nothing was bound; {shown} keep their previous values)"
            )
            raise UsageError("\n\n".join(errors) + tail)
        return built

    def _compile_all(
        self,
        built: list[tuple[Any, Any, list[str]]],
        args: Any,
        backend: str,
        device: int,
    ) -> list[Any]:
        """Compile every definition; on a backend or compiler error, one UsageError."""
        from symnb.errors import BackendUnavailable, CompileError, FormulaError

        if args.no_compile:
            return [None] * len(built)
        kernels: list[Any] = []
        for d, obj, messages in built:
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    kernel = obj.compile(
                        backend=backend,
                        device=device,
                        dtype=args.dtype,
                        strict=args.strict,
                    )
            except BackendUnavailable as exc:
                raise UsageError(
                    f"{d.name}: {_short(exc)}\n(nothing was bound; use --backend auto "
                    "or see %symnb info)"
                ) from None
            except CompileError as exc:
                raise UsageError(
                    f"{d.name}: compiling failed: {_short(exc)}\n(nothing was bound)"
                ) from None
            except FormulaError as exc:
                raise UsageError(
                    f"{d.name}: {_short(exc)}\n(nothing was bound)"
                ) from None
            for w in caught:
                text_w = _warning_text(w)
                if text_w not in messages:
                    messages.append(text_w)
            kernels.append(kernel)
        return kernels

    # ------------------------------------------------------------------ %symnb

    @magic_arguments()
    @argument("-h", "--help", action="store_true", help="show this help")
    @argument(
        "command",
        nargs="?",
        default=None,
        help="info | backend [NAME] | device [N] | cache [clear] | library "
        "(nothing: the session defaults)",
    )
    @argument("value", nargs="*", help="argument of the command")
    @line_magic
    def symnb(self, line: str) -> None:
        """symnb settings and diagnostics.

        %symnb               session defaults (backend, device, extension loaded)
        %symnb info          every backend: usable or why not; compiler, OpenMP threads,
                             CUDA devices
        %symnb backend NAME  default backend of later %%symact cells (auto, numpy, cpp,
                             cuda)
        %symnb device N      default CUDA device of later cells
        %symnb cache         the kernel cache: directory, entries, size
        %symnb cache clear   delete every cached kernel
        %symnb library       the named activations and losses of symnb
        %symnb names         the names you defined that formulas can call
        %symnb forget NAME.. formulas stop calling NAME (they are kept for the whole
                             kernel session, even after `del NAME`)
        """
        args = _parse_options(self.symnb, line, "%symnb")
        if args.help:
            print(self.symnb.__doc__)
            return
        command = (args.command or "").lower()
        values = args.value
        if command in ("", "status"):
            self._expect(values, 0, command or "%symnb")
            print(_status_text())
        elif command == "info":
            self._expect(values, 0, "info")
            print(info_text())
        elif command == "backend":
            name = self._show_or_set("backend", values, state.set_backend)
            if name is not None and name != "auto":
                status = _backend_statuses().get(name)
                if status is not None and not getattr(status, "usable", True):
                    print(
                        f"warning: {name} is not usable here: {status.reason}; "
                        "cells will fall back to another backend unless --strict"
                    )
        elif command == "device":
            index = self._show_or_set("device", values, state.set_device)
            if index is None:
                return
            count = _cuda_device_count()
            if count is not None and index >= count:
                print(
                    f"warning: this machine has {count} CUDA device(s); device {index} "
                    "does not exist"
                )
        elif command == "cache":
            self._expect(values, 1, "cache", allow_fewer=True)
            print(
                cache_text(
                    clear=bool(values) and values[0].lower() == "clear",
                    argument=values[0] if values else None,
                )
            )
        elif command == "library":
            self._expect(values, 0, "library")
            import symnb

            print("activations: " + ", ".join(symnb.library_activations()))
            print("losses:      " + ", ".join(symnb.library_losses()))
        elif command == "names":
            self._expect(values, 0, "names")
            print(names_text())
        elif command == "forget":
            print(forget_text(values))
        else:
            raise UsageError(
                f"%symnb: unknown command {args.command!r}; use info, backend, device, "
                "cache, library, names, forget or --help"
            )

    def _show_or_set(
        self, setting: str, values: list[str], setter: Callable[[str], Any]
    ) -> Any:
        """``%symnb backend|device [VALUE]``: print the session default of ``setting``
        (None back) or set it to VALUE with ``setter`` and print it (the value back)."""
        self._expect(values, 1, setting, allow_fewer=True)
        if not values:
            print(f"default {setting}: {getattr(state, setting)}")
            return None
        try:
            value = setter(values[0])
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        print(f"default {setting}: {value}")
        return value

    @staticmethod
    def _expect(
        values: list[str], n: int, command: str, allow_fewer: bool = False
    ) -> None:
        if len(values) > n or (len(values) < n and not allow_fewer):
            raise UsageError(
                f"%symnb {command}: expected {'at most ' if allow_fewer else ''}{n} "
                f"argument(s), got {len(values)}; see %symnb --help"
            )


def _cell_calls(definitions: list[Any]) -> dict[str, list[str]]:
    """Name -> the other definitions of the cell its formula calls."""
    from symnb.formula.compose import used_names

    names = {d.name: d for d in definitions}
    return {
        d.name: [n for n in used_names(d.canonical_formula()[0], names) if n != d.name]
        for d in definitions
    }


def _in_build_order(
    definitions: list[Any], calls: dict[str, list[str]] | None = None
) -> list[Any]:
    """The cell's definitions ordered so that each comes after those of the cell it
    calls (``n1(x) = n2(x) + 1`` above ``n2(x) = x*x`` failed with "unknown function
    'n2'" and a list of sixty allowed functions). A definition calling its own name
    means the earlier one of the notebook (``h(x) = h(x)*2``), as before. Definitions
    that call each other in a circle are a ``UsageError`` naming them. ``calls`` is
    :func:`_cell_calls` of the definitions, where the caller has it already."""
    index = {d.name: i for i, d in enumerate(definitions)}
    calls = _cell_calls(definitions) if calls is None else calls
    ordered: list[Any] = []
    done: set[str] = set()
    for d in definitions:  # depth first, without recursion (a long chain)
        if d.name in done:
            continue
        path, on_path = [d.name], {d.name}
        stack = [(d.name, iter(calls[d.name]))]
        while stack:
            name, pending = stack[-1]
            callee = next((c for c in pending if c not in done), None)
            if callee is None:
                stack.pop()
                on_path.discard(path.pop())
                done.add(name)
                ordered.append(definitions[index[name]])
            elif callee in on_path:
                circle = path[path.index(callee) :] + [callee]
                lines = ", ".join(
                    f"{n} (line {definitions[index[n]].line})" for n in circle[:-1]
                )
                raise UsageError(
                    f"{' -> '.join(circle)}: these definitions call each other in a "
                    f"circle ({lines}), so none of them can be built; write one of "
                    "them without the others\n(nothing was bound)"
                )
            else:
                path.append(callee)
                on_path.add(callee)
                stack.append((callee, iter(calls[callee])))
    return ordered


def _is_formula(value: Any) -> bool:
    try:
        import symnb

        return isinstance(value, (symnb.Activation, symnb.Loss))
    except Exception:  # noqa: BLE001
        return False


def _status_text() -> str:
    lines = [
        f"backend: {state.backend}",
        f"device:  {state.device}",
        f"extension loaded: {state.loaded}",
    ]
    if state.last_compile:
        lc = state.last_compile
        lines.append(
            f"last compile: {lc.get('name')} on {lc.get('backend')}"
            + (f" (device {lc['device']})" if lc.get("device") is not None else "")
        )
    return "\n".join(lines)


def _backend_statuses() -> dict[str, Any]:
    try:
        from symnb.backends import available

        return dict(available())
    except Exception:  # noqa: BLE001 - diagnostics must not fail
        return {}


def _cuda_device_count() -> int | None:
    status = _backend_statuses().get("cuda")
    if status is None or not getattr(status, "usable", False):
        return None
    details = getattr(status, "details", {}) or {}
    for key in ("device_count", "devices"):
        value = details.get(key)
        if isinstance(value, int):
            return value
        if isinstance(value, (list, tuple)):
            return len(value)
    return None


def names_text() -> str:
    """``%symnb names``: the user definitions later formulas can call, by name."""
    from symnb.formula import compose

    names = sorted(compose.registered())
    if not names:
        return "no names defined: formulas call only the library's functions"
    return (
        "formulas can call: "
        + ", ".join(names)
        + "\n(kept until redefined or `%symnb forget NAME`, even after `del NAME`)"
    )


def forget_text(names: list[str]) -> str:
    """``%symnb forget NAME...``: later formulas stop calling these definitions; a
    name that was never defined is refused, naming what can be forgotten."""
    from symnb.formula import compose

    if not names:
        raise UsageError(
            "%symnb forget: name the definitions to forget, e.g. %symnb forget bump "
            "(%symnb names lists them)"
        )
    known = compose.registered()
    unknown = [n for n in names if n not in known]
    if unknown:
        listed = ", ".join(sorted(known)) or "none"
        raise UsageError(
            f"%symnb forget: {', '.join(map(repr, unknown))} is not a name formulas "
            f"call (defined names: {listed}); nothing was forgotten"
        )
    for n in names:
        compose.unregister(n)
    return (
        f"forgot {', '.join(names)}: later formulas no longer call "
        f"{'it' if len(names) == 1 else 'them'} (notebook variables are kept; a "
        "library activation of the same name is called again)"
    )


def info_text() -> str:
    """Every backend: usable or why not, with its details (shared with the CLI)."""
    from symnb.backends import available

    lines = []
    for name, status in available().items():
        if status.usable:
            lines.append(f"{name:6s} usable")
        else:
            lines.append(f"{name:6s} not usable: {status.reason}")
            if status.fix:
                lines.append(f"       fix: {status.fix}")
        for key, value in (status.details or {}).items():
            if isinstance(value, (list, tuple)):
                value = ", ".join(str(v) for v in value) or "none"
            lines.append(f"       {key}: {value}")
    lines.append(f"session default: backend {state.backend}, device {state.device}")
    return "\n".join(lines)


def cache_text(clear: bool = False, argument: str | None = None) -> str:
    """The kernel cache's directory, entries and size; ``clear`` empties it first."""
    if argument is not None and argument.lower() != "clear":
        raise UsageError(
            f"%symnb cache: unknown argument {argument!r}; use 'cache clear'"
        )
    from symnb.backends.cache import default_cache

    cache = default_cache()
    lines = []
    if clear:
        before = len(cache.entries())
        cache.clear()
        lines.append(f"removed {before} cached kernel(s)")
    entries = cache.entries()
    size = cache.size_bytes()
    lines.append(f"cache directory: {cache.root}")
    if getattr(cache, "fallback_reason", None):
        lines.append(f"  (temporary: {cache.fallback_reason})")
    lines.append(f"entries: {len(entries)}, size: {size / 1024:.1f} KiB")
    return "\n".join(lines)
