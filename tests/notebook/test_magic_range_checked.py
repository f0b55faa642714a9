"""``%%symact --range`` was read only when a plot was drawn: ``--range garbage``
with ``-q`` or ``--no-plot`` was ignored without a word. Now it is always read,
and a bad value is a UsageError naming --range and the LOW:HIGH form."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output


@pytest.mark.parametrize("flags", ["-q", "--no-plot", "-q --no-plot"])
@pytest.mark.parametrize("value", ["garbage", "1:0", "1:2:3", "''", "nan:1"])
def test_bad_range_is_refused_without_a_plot(shell, flags, value) -> None:
    shell.user_ns.pop("fr", None)
    with pytest.raises(UsageError) as info, capture_output():
        shell.run_cell_magic(
            "symact", f"{flags} --no-compile --range {value}", "fr(x) = 2*x"
        )
    message = str(info.value)
    assert message.startswith("--range:") and "LOW" in message and "-4:4" in message
    assert "fr" not in shell.user_ns


def test_good_range_without_a_plot_binds(shell) -> None:
    with capture_output():
        shell.run_cell_magic(
            "symact", "-q --no-compile --range -1e39:1e39", "fr(x) = 2*x"
        )
    assert shell.user_ns["fr"].name == "fr"
