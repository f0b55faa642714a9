"""``python -m symnb``: the ``symnb`` command (:mod:`symnb.cli`), for environments
where the console script is not on PATH (``python -m symnb`` said "No module named
symnb.__main__")."""

from __future__ import annotations

import sys

from symnb.cli import main

if __name__ == "__main__":
    sys.exit(main())
