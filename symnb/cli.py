"""The ``symnb`` console command: formulas, derivatives and kernels outside notebooks.

Examples::

    symnb show "x*sigmoid(beta*x)" --const beta=1
    symnb show gelu                                  # a library activation by name
    symnb show "(y_pred - y_true)**2" --loss
    symnb compile "x*sigmoid(beta*x)" --const beta=1 --backend cpp --emit-source
    symnb info
    symnb cache [clear]

Exit codes
----------
0  success
1  the formula (or a constant) is wrong: the message gives the position and a hint
2  bad command line (unknown option, malformed ``--const``, a value out of range such
   as ``--device -1``): one line on stderr
3  the backend asked for is not available here (with ``--strict``, or no fallback left)
4  the compiler rejected the generated source (the message names the saved source)
5  a system error reading or writing files, e.g. the output (``> /dev/full``)
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import warnings
from typing import Any, NoReturn

from symnb.backends.select import check_dtype
from symnb.checks import nonzero_literal
from symnb.notebook.state import BACKEND_CHOICES

EXIT_OK = 0
EXIT_FORMULA = 1
EXIT_USAGE = 2
EXIT_BACKEND = 3
EXIT_COMPILE = 4
EXIT_OUTPUT = 5


def _constant(text: str) -> tuple[str, float]:
    name, eq, value = text.partition("=")
    name = name.strip()
    if not eq or not name.isidentifier():
        raise argparse.ArgumentTypeError(
            f"expected NAME=VALUE (e.g. beta=1.0), not {text!r}"
        )
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"the value of {name!r} must be a number, not {value.strip()!r}"
        ) from None
    if not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"the value of {name!r} must be finite")
    if number == 0 and nonzero_literal(value.strip()):
        # -c a=1e-400 read as 0.0 (%%symact and formulas refuse it)
        raise argparse.ArgumentTypeError(
            f"the value of {name!r} = {value.strip()!r} is too small for a float "
            "(it would be 0); the smallest nonzero magnitude is about 5e-324"
        )
    return name, number


def _device(text: str) -> int:
    """``--device``: the magic's and the API's rules (``0``, ``cuda``, ``cuda:1``)."""
    from symnb.backends.select import device_from_text

    try:
        return device_from_text(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _dtype(text: str) -> str:
    """``--dtype`` through the API's one check (``compile(dtype=...)`` takes the same)."""
    try:
        return check_dtype(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (no usage block): what is wrong and where to
    read more, then exit code 2 (EXIT_USAGE)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} -h)\n")


def _parser() -> argparse.ArgumentParser:
    from symnb import __version__

    parser = _Parser(
        prog="symnb",
        description="Activation and loss functions from formulas: f, f', LaTeX, "
        "kernels.",
        epilog="exit codes: 0 ok, 1 bad formula, 2 bad command line, "
        "3 backend unavailable, 4 compile error",
    )
    parser.add_argument("--version", action="version", version=f"symnb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def formula_args(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "formula",
            help="formula text in x (losses: y_pred, y_true), or a library name",
        )
        p.add_argument(
            "--const",
            "-c",
            action="append",
            type=_constant,
            default=[],
            metavar="NAME=VALUE",
            help="a constant of the formula (repeatable)",
        )
        p.add_argument("--name", default=None, help="display name")
        p.add_argument(
            "--loss",
            action="store_true",
            help="the formula is a loss l(y_pred, y_true)",
        )

    show = sub.add_parser("show", help="print f, f', their LaTeX and stability notes")
    formula_args(show)

    comp = sub.add_parser("compile", help="compile a kernel and report how")
    formula_args(comp)
    comp.add_argument("--backend", default="auto", choices=BACKEND_CHOICES)
    comp.add_argument("--device", type=_device, default=0, help="CUDA device index")
    comp.add_argument(
        "--dtype",
        default="float32",
        type=_dtype,
        help="float32 (default) or float64 (NumPy's names: f8, double)",
    )
    comp.add_argument(
        "--strict", action="store_true", help="fail instead of falling back"
    )
    comp.add_argument(
        "--emit-source", action="store_true", help="print the generated source"
    )

    sub.add_parser("info", help="which backends are usable here, and why not")
    cache = sub.add_parser("cache", help="show (or clear) the kernel cache")
    cache.add_argument("action", nargs="?", choices=["clear"], help="clear the cache")
    return parser


def _checked_constants(pairs: list[tuple[str, float]]) -> dict[str, float]:
    """``--const`` pairs as a dict; a name given twice or one that the formula
    language already uses (``pi``, ``exp``) is a command-line mistake (``ValueError``,
    exit code 2): the last value silently won, and ``pi=2`` made the kernels compute
    2 where the LaTeX showed pi."""
    from symnb.notebook.syntax import _reserved_names

    constants: dict[str, float] = {}
    for name, value in pairs:
        if name in constants:
            raise ValueError(
                f"--const {name} is given twice ({name}={constants[name]:g} and "
                f"{name}={value:g}); give it once"
            )
        if name in _reserved_names():
            raise ValueError(
                f"--const {name}={value:g}: {name!r} is a function or constant of the "
                f"formula language; rename the constant (e.g. {name}_) in the formula "
                "and here"
            )
        constants[name] = value
    return constants


def _kind_hint(args: argparse.Namespace) -> str | None:
    """What to add when a formula failed because it is of the other kind: a library
    loss without ``--loss`` (``symnb show mse``), a library activation with it, or
    ``y_pred``/``y_true`` in an activation."""
    import symnb

    text = str(args.formula).strip()
    if not args.loss and text in symnb.library_losses():
        return f"{text!r} is a library loss: add --loss"
    if args.loss and text in symnb.library_activations():
        return f"{text!r} is a library activation: leave out --loss"
    if not args.loss and re.search(r"\by_(pred|true)\b", text):
        return "a formula in y_pred and y_true is a loss: add --loss"
    return None


def _build(args: argparse.Namespace) -> Any:
    import symnb

    constants = _checked_constants(args.const)
    text = args.formula.strip()
    names = symnb.library_losses() if args.loss else symnb.library_activations()
    if text.isidentifier() and text in names:
        factory = symnb.loss if args.loss else symnb.activation
        obj = factory(text, **constants)
    else:
        cls = symnb.Loss if args.loss else symnb.Activation
        obj = cls(args.formula, name=args.name, **constants)
    if args.name and obj.name != args.name:
        try:
            obj.name = args.name
        except AttributeError:
            pass
    return obj


def _show(obj: Any, out: Any) -> None:
    import sympy as sp

    loss = getattr(obj, "kind", "activation") == "loss"
    f_head, d_head = ("l(y_pred, y_true)", "dl/dy_pred") if loss else ("f(x)", "f'(x)")
    print(f"name:      {obj.name}", file=out)
    if obj.constants:
        consts = ", ".join(f"{k}={v:g}" for k, v in obj.constants.items())
        print(f"constants: {consts}", file=out)
    print(f"{f_head} = {sp.sstr(obj.expr)}", file=out)
    print(f"{d_head} = {sp.sstr(obj.derivative)}", file=out)
    print(f"LaTeX {f_head}: {obj.latex}", file=out)
    print(f"LaTeX {d_head}: {obj.derivative_latex}", file=out)


def _notes(obj: Any, caught: list[warnings.WarningMessage], out: Any) -> None:
    seen: list[str] = []
    for w in caught:
        seen.append(str(w.message))
    for note in getattr(obj, "notes", None) or []:
        if not any(note in s for s in seen):
            seen.append(note)
    for text in seen:
        print(f"warning: {text}", file=out)


_FLAGS = {"-h", "--help", "--loss", "--strict", "--emit-source"}
_VALUED = {"--const", "-c", "--name", "--backend", "--device", "--dtype"}


def _protect_leading_minus(argv: list[str]) -> bool:
    """``symnb show "-x*tanh(x)"``: keep a formula that starts with '-' positional
    (argparse would take it for an option). Returns whether it was changed."""
    if not argv or argv[0] not in ("show", "compile"):
        return False
    i = 1
    while i < len(argv):
        token = argv[i]
        if token == "--" or not token.startswith("-"):
            return False  # the formula does not start with '-'
        key = token.split("=", 1)[0]
        if key in _FLAGS:
            i += 1
        elif key in _VALUED:
            i += 1 if "=" in token else 2
        else:
            argv[i] = " " + token
            return True
    return False


def _flush(out: Any) -> None:
    """Flush stdout inside ``main``, so that a write error (a full disk) is reported
    there in one line instead of as a traceback at exit; no stdout (``>&-``) is fine."""
    if out is not None:
        out.flush()


def _drop_unwritten(out: Any) -> None:
    """Point a real stdout whose writes failed at /dev/null, so that Python's flush at
    exit does not fail again and print a traceback (as the docs advise for SIGPIPE)."""
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (e.g. captured)
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def main(argv: list[str] | None = None) -> int:
    """Run the ``symnb`` command; returns the exit code (see the module docstring)."""
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    shifted = _protect_leading_minus(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version exit 0, errors exit 2
        return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_USAGE
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    if shifted and getattr(args, "formula", None) is not None:
        args.formula = args.formula[1:]

    from symnb.errors import BackendUnavailable, CompileError, FormulaError

    out, err = sys.stdout, sys.stderr
    try:
        if args.command in ("info", "cache"):
            from symnb.notebook.magics import cache_text, info_text

            # a cache directory that cannot be used warns: one line, not Python's
            # warning format with a line of symnb's source
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                text = (
                    info_text()
                    if args.command == "info"
                    else cache_text(clear=args.action == "clear")
                )
            for message in dict.fromkeys(str(w.message) for w in caught):
                print(f"symnb: warning: {message}", file=err)
            print(text, file=out)
            _flush(out)
            return EXIT_OK
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            obj = _build(args)
            if args.command == "show":
                _show(obj, out)
                _notes(obj, caught, out)
                _flush(out)
                return EXIT_OK
            kernel = obj.compile(
                backend=args.backend,
                device=args.device,
                dtype=args.dtype,
                strict=args.strict,
            )
        _show(obj, out)
        _notes(obj, caught, out)
        backend = getattr(kernel, "backend", args.backend)
        where = f" (device {kernel.device})" if backend == "cuda" else ""
        hit = getattr(kernel, "cache_hit", None)
        seconds = getattr(kernel, "compile_seconds", None)
        print(
            f"compiled: backend {backend}{where}, "
            f"{getattr(kernel, 'dtype', args.dtype)}"
            + (f", {seconds:.3f} s" if seconds is not None else "")
            + ("" if hit is None else (", cache hit" if hit else ", cache miss")),
            file=out,
        )
        if args.emit_source:
            print(f"--- {backend} source ---", file=out)
            print(getattr(kernel, "source", "") or "(no source)", file=out)
        _flush(out)
        return EXIT_OK
    except FormulaError as exc:
        text = str(exc)
        hint = _kind_hint(args)
        if hint:  # instead of "declare it as a constant" for 'mse' or 'y_pred'
            lines = [line for line in text.splitlines() if not line.startswith("hint:")]
            text = "\n".join([*lines, f"hint: {hint}"])
        print(f"symnb: error: {text}", file=err)
        return EXIT_FORMULA
    except BackendUnavailable as exc:
        print(f"symnb: error: {exc}", file=err)
        return EXIT_BACKEND
    except CompileError as exc:
        print(f"symnb: error: {exc}", file=err)
        return EXIT_COMPILE
    except ValueError as exc:  # an argument value the library refuses
        print(f"symnb: error: {exc}", file=err)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("symnb: interrupted", file=err)
        return 130
    except BrokenPipeError:  # e.g. piped into head
        return EXIT_OK
    except OSError as exc:  # e.g. writing the output to a full disk: no traceback
        try:
            print(f"symnb: error: {exc}", file=err)
        except OSError:
            pass
        _drop_unwritten(out)
        return EXIT_OUTPUT


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
