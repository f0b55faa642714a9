"""Optional dependencies of the result tables, imported when first used.

A missing one is a one-line ``ImportError`` naming what needed it and the extra that
installs it (a bare ``ModuleNotFoundError: No module named 'pandas'`` from inside
``to_pandas`` said neither).
"""

from __future__ import annotations

import importlib
from typing import Any

#: optional module -> the symnb extra that installs it
EXTRAS = {"pandas": "pandas"}


def require(module: str, what: str) -> Any:
    """``import module``, or an ImportError saying that ``what`` needs it and how to
    install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        extra = EXTRAS.get(module, module)
        raise ImportError(
            f"{what} needs {module}, which is not installed ({exc}); install it with: "
            f"pip install 'symnb[{extra}]' (or pip install {module})"
        ) from None
