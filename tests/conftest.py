"""Shared test fixtures: an isolated kernel cache per test session, backend parametrisation."""

from __future__ import annotations

import os
import tempfile

import pytest

# Every test run gets its own cache directory unless one was given explicitly.
if "SYMNB_CACHE_DIR" not in os.environ:
    os.environ["SYMNB_CACHE_DIR"] = tempfile.mkdtemp(prefix="symnb-test-cache-")


def backend_params() -> list:
    """numpy always; cpp and cuda when usable (the skip reason says why not)."""
    from symnb.backends import status

    params = [pytest.param("numpy", id="numpy")]
    st = status("cpp")
    params.append(
        pytest.param(
            "cpp",
            id="cpp",
            marks=[]
            if st.usable
            else [pytest.mark.skip(reason=f"cpp backend: {st.reason}")],
        )
    )
    st = status("cuda")
    params.append(
        pytest.param(
            "cuda",
            id="cuda",
            marks=[]
            if st.usable
            else [pytest.mark.skip(reason=f"no CUDA GPU here: {st.reason}")],
        )
    )
    return params


@pytest.fixture(autouse=True)
def _user_activation_names_per_test():
    """The activation names a test registers (``Activation(..., name="hard_swish")``
    makes ``hard_swish(x)`` call it in later formulas) are forgotten after it: a
    corpus test's "hard_swish" made test_parse's ``hard_swish(x)`` read as the
    corpus's formula when both ran in one worker. Names registered before the test
    (module fixtures) stay."""
    from symnb.formula import compose

    before = compose.registered()
    yield
    with compose._lock:
        compose._user.clear()
        compose._user.update(before)
