"""Argument checks shared across the API (one wording for one mistake)."""

from __future__ import annotations

from typing import Any

import numpy as np


def check_flag(value: Any, what: str) -> bool:
    """``value`` as a bool (NumPy's too), or a ``TypeError`` naming ``what``: a
    string such as ``"no"`` is truthy and silently meant True (``progress="no"``
    showed a bar, ``shuffle="no"`` shuffled)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be True or False, got {value!r:.80}")
    return bool(value)
