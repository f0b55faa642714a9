"""``%%symact`` / ``%symnb`` option lines with invisible characters or look-alike
dashes (a hostile-input probe, 2026-12-06). Before the fix a NUL on the line was
"unrecognized arguments:  " (the character itself invisible in the message) and
``--range −4:4`` (U+2212 MINUS SIGN, as pasted from a document) was "not a range"
with nothing to tell the minus from '-'."""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from symnb.notebook import state


@pytest.fixture(autouse=True)
def _fresh(shell):
    state.backend = "auto"
    shell.user_ns.pop("hm", None)
    yield
    shell.user_ns.pop("hm", None)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("-q --range \u22124:4", "MINUS SIGN (U+2212) at column 12; type '-' instead"),
        ("-q --range \u20134:4", "EN DASH (U+2013)"),
        ("-q \x00", "(U+0000) at column 4; delete it"),
        ("-q --backend\u200b numpy", "ZERO WIDTH SPACE (U+200B)"),
    ],
)
def test_odd_characters_on_the_symact_line_are_named(shell, line, words) -> None:
    with pytest.raises(UsageError) as info:
        shell.run_cell_magic("symact", line, "hm(x) = 2*x")
    assert str(info.value).startswith("%%symact: the options hold")
    assert words in str(info.value)
    assert "hm" not in shell.user_ns  # nothing bound


def test_the_symnb_line_magic_names_them_too(shell) -> None:
    with pytest.raises(UsageError, match=r"%symnb: the options hold .*U\+0000"):
        shell.run_line_magic("symnb", "backend \x00")


def test_a_comment_may_hold_them_and_the_definition_is_bound(shell) -> None:
    with capture_output():
        shell.run_cell_magic(
            "symact", "-q --no-compile  # from \u22124 to 4", "hm(x) = 2*x"
        )
    # the bound activation computes 2*x
    kernel = shell.user_ns["hm"].compile(backend="numpy")
    x = np.array([-1.5, 0.25, 3.0])
    np.testing.assert_allclose(kernel.forward(x), 2.0 * x, rtol=1e-6)
