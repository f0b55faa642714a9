"""Shared fixtures of the notebook tests."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell


@pytest.fixture(scope="module")
def shell():
    """An IPython shell with the symnb extension loaded (unloaded after the module)."""
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "symnb")
    yield ip
    ip.run_line_magic("unload_ext", "symnb")
