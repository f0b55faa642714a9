"""``%%symact --backend ''`` named no backend and silently meant the session's
default; it is now refused as an unknown backend, like any other name that is
not one. Leaving ``--backend`` out still means the session's default."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

from symnb.notebook import state


@pytest.mark.parametrize("value", ["''", "' '"])
def test_an_empty_backend_is_refused(shell, value) -> None:
    shell.user_ns.pop("fe", None)
    with pytest.raises(UsageError) as info, capture_output():
        shell.run_cell_magic("symact", f"-q --backend {value}", "fe(x) = 2*x")
    assert str(info.value).startswith("unknown backend ")
    assert "choose one of auto, numpy, cpp, cuda" in str(info.value)
    assert "fe" not in shell.user_ns


def test_no_backend_option_means_the_session_default(shell) -> None:
    with capture_output():
        shell.run_cell_magic("symact", "-q", "fe(x) = 2*x")
    kernel = shell.user_ns["fe"].kernel
    assert kernel is not None
    assert state.backend == "auto" or kernel.backend == state.backend
