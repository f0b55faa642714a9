"""Option names of the interop functions, read as backend names are read.

``to_source(dialect=...)`` and ``to_numba(target=...)`` compared their option with
the lower-case spellings only, while ``compile(backend='CPP')`` and
``to_torch(backend=' Cuda ')`` fold case and spaces (``select.check_backend``):
``to_numba(target='CPU')`` and ``to_source('CUDA')`` were refused.
"""

from __future__ import annotations

from typing import Any


def choose(value: Any, name: str, accepted: tuple[str, ...]) -> str:
    """``value`` as one of ``accepted`` (lower case), taken in any case and with spaces
    around; a ValueError naming ``name`` and the accepted values otherwise."""
    if isinstance(value, str) and value.strip().lower() in accepted:
        return value.strip().lower()
    listed = " or ".join(map(repr, accepted))
    raise ValueError(f"{name} must be {listed} (in any case), got {value!r}")
