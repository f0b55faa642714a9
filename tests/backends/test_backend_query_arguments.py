"""``symnb.backends.status/available/resolve`` read their flags with ``bool()``:
``available(refresh="no")`` re-probed every backend, ``resolve("cuda",
strict="no")`` raised where a fallback was asked for; ``status(3)`` was a
ValueError ('unknown backend 3') and ``status("CPP")`` unknown though
``resolve("CPP")`` is cpp. Flags are now checked (TypeError), names are strings in
any case."""

from __future__ import annotations

import pytest

from symnb import backends


@pytest.mark.parametrize(
    "call",
    [
        lambda: backends.available(refresh="no"),
        lambda: backends.status("numpy", refresh="no"),
        lambda: backends.resolve("numpy", strict="no"),
    ],
)
def test_flags_are_checked(call) -> None:
    with pytest.raises(TypeError, match="must be True or False"):
        call()


def test_status_takes_names_as_resolve_does() -> None:
    assert backends.status(" NumPy ").name == "numpy"
    assert backends.status("CPP") is backends.status("cpp")
    with pytest.raises(TypeError, match="backend must be a string, got int"):
        backends.status(3)
