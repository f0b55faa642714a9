"""The exceptions symnb raises: one small hierarchy, each naming the input and the fix."""

from __future__ import annotations

import unicodedata


class SymnbError(Exception):
    """Base class of every error symnb raises on purpose."""


class FormulaError(SymnbError, ValueError):
    """A formula text (or its constants) cannot be turned into a usable function.

    Parameters
    ----------
    message:
        What is wrong, in one sentence.
    text:
        The formula text (or ``None`` when the error is not tied to a position).
    line, column:
        1-based position of the offending character in ``text``.
    suggestion:
        What to type instead (a did-you-mean, or how to declare a constant).
    """

    def __init__(
        self,
        message: str,
        text: str | None = None,
        line: int | None = None,
        column: int | None = None,
        suggestion: str | None = None,
    ) -> None:
        self.message = message
        self.text = text
        self.line = line
        self.column = column
        self.suggestion = suggestion
        super().__init__(self._render())

    @classmethod
    def unknown_constant(cls, owner: str, name: str, known) -> FormulaError:
        """The error for a constant ``owner`` does not have, listing the ones it has."""
        return cls(
            f"{owner} has no constant {name!r}",
            suggestion=f"its constants are: {', '.join(known) or 'none'}",
        )

    def _render(self) -> str:
        parts = [self.message]
        if self.line is not None and self.column is not None:
            parts[0] = f"{self.message} (line {self.line}, column {self.column})"
        if self.text is not None and self.line is not None and self.column is not None:
            lines = self.text.splitlines() or [""]
            if 1 <= self.line <= len(lines):
                src = lines[self.line - 1]
                if len(src) <= 200:
                    parts.append("    " + _shown_line(src))
                    parts.append("    " + " " * (self.column - 1) + "^")
        if self.suggestion:
            parts.append(f"hint: {self.suggestion}")
        return "\n".join(parts)


class UnknownConstantError(FormulaError, KeyError):
    """A constant name the formula does not have, where a mapping-like API promised a
    ``KeyError`` (``ActivationEditor.set_constants``): both kinds catch it, and its
    text is FormulaError's, not KeyError's quoted repr."""

    __str__ = FormulaError.__str__


def _shown_line(src: str) -> str:
    """A formula line as the excerpt under a message shows it: a tab as a space, and
    each control, invisible or surrogate character (the ones the message is about)
    as U+FFFD, one column each so that the caret stays under it. Printed raw, NUL and
    ESC reached the terminal, and a lone surrogate (U+D800) made the message itself
    unprintable: print(err) and a notebook's error display failed with
    UnicodeEncodeError."""
    return "".join(
        " "
        if ch == "\t"
        else "\ufffd"
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")
        else ch
        for ch in src
    )


class BackendUnavailable(SymnbError, RuntimeError):
    """A backend cannot be used here; ``reason`` says why and ``fix`` how to get it."""

    def __init__(self, backend: str, reason: str, fix: str | None = None) -> None:
        self.backend = backend
        self.reason = reason
        self.fix = fix
        msg = f"backend {backend!r} is not available: {reason}"
        if fix:
            msg += f" (fix: {fix})"
        super().__init__(msg)


class CompileError(SymnbError, RuntimeError):
    """A compiler rejected generated source.

    Keeps the compiler's message, the command, and the path of the saved source so the
    user (or a bug report) can reproduce it. ``dump()`` returns numbered source.
    """

    def __init__(
        self,
        message: str,
        *,
        compiler: str,
        command: list[str] | None = None,
        log: str = "",
        source: str = "",
        source_path: str | None = None,
    ) -> None:
        self.compiler = compiler
        self.command = command or []
        self.log = log
        self.source = source
        self.source_path = source_path
        first = "\n".join(log.strip().splitlines()[:8])
        msg = f"{compiler}: {message}"
        if source_path:
            msg += f"\nsource saved at {source_path}"
        if first:
            msg += "\n" + first
        super().__init__(msg)

    def dump(self) -> str:
        """The generated source with line numbers, for reading next to the log."""
        return "\n".join(
            f"{i:4d}  {line}" for i, line in enumerate(self.source.splitlines(), 1)
        )


class ModelFileError(SymnbError, ValueError):
    """A model file (written by ``MLP.save``) cannot be loaded.

    ``path`` is the file and ``problem`` says what is wrong with it, in one sentence.
    """

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")
