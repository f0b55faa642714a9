"""``%%symact`` with names of millions of characters: a 3,000,000-character name was
bound in the notebook and shown whole in the status and LaTeX outputs (6 MB each), an
input or constant of that length came back inside a multi-megabyte UsageError. Names,
inputs and constants now have at most 100 characters, and the messages show a cut
copy."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

MAX_NAME_CHARS = 100  # symnb.notebook.syntax.MAX_NAME_CHARS

LONG = 3_000_000


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("f" + "g" * LONG + "(x) = x", "name 'fggg"),
        ("f(" + "z" * LONG + ") = z", "input 'zzz"),
        ("f(x; " + "a" * LONG + "=1) = x", "constant 'aaa"),
        ("f(x; " + "a" * LONG + ") = x", "needs a value"),
        ("f(x; " + "1" * LONG + "=1) = x", "is not a name"),
        ("f(" + "1" * LONG + ") = x", "is not a name"),
    ],
)
def test_huge_names_give_short_messages(shell, body, words) -> None:
    before = set(shell.user_ns)
    with pytest.raises(UsageError) as info, capture_output():
        shell.run_cell_magic("symact", "--no-plot --no-compile", body)
    message = str(info.value)
    assert words in message
    assert len(message) < 400
    assert set(shell.user_ns) == before


def test_names_up_to_the_limit_are_bound(shell) -> None:
    name = "f" * MAX_NAME_CHARS
    with capture_output():
        shell.run_cell_magic(
            "symact", "--no-plot --no-compile", f"{name}(x; {'b' * 100}=2) = x"
        )
    assert shell.user_ns[name].constants == {"b" * 100: 2.0}
    shell.user_ns.pop(name)
