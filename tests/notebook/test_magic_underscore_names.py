"""``%%symact`` with ``_`` as a name: it was refused as "a Python keyword" (``_`` is a
soft keyword) with the hint "e.g. __", itself a refused name. Now the underscore rule
answers, with a suggestion the parser accepts."""

from __future__ import annotations

import re

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output


def _run(shell, body: str) -> None:
    with capture_output():
        shell.run_cell_magic("symact", "--no-plot --no-compile", body)


@pytest.mark.parametrize(
    ("body", "what"),
    [("_(x) = x", "name"), ("f(x; _=1) = x", "constant"), ("f(_) = _", "input")],
)
def test_underscore_is_named_with_a_usable_suggestion(shell, body, what) -> None:
    with pytest.raises(UsageError) as info:
        _run(shell, body)
    message = str(info.value)
    assert f"{what} '_' starts with an underscore" in message
    assert "Python keyword" not in message
    suggested = re.search(r"e\.g\. (\w+)", message).group(1)
    _run(shell, body.replace("_", suggested))
