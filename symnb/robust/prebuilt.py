"""Analyses of the library's formulas, made ahead of time and shipped with symnb.

Every test, notebook and training run compiles library activations; their analysis (at the
library's default constants) is stored in ``library_analysis.json`` next to this module, in
the disk cache's own format (structural encoding, no pickle). An entry is used only when its
key matches (same engine version, formula, constants and dtype, and SymPy printing the form
the same way); otherwise the formula is analysed as any other.

Regenerate after changing the engine or the library::

    python -m symnb.robust.prebuilt
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

PATH = Path(__file__).with_name("library_analysis.json")


@lru_cache(maxsize=1)
def table() -> dict[str, str]:
    """key -> stored record (JSON text); empty when the file is missing or unreadable."""
    try:
        data = json.loads(PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def library_forms() -> list:
    """The InternalForms of every library activation and loss at default constants."""
    import symnb

    objs = [symnb.activation(n) for n in symnb.library_activations()]
    objs += [symnb.loss(n) for n in symnb.library_losses()]
    return [o.internal for o in objs]


def generate(path: Path = PATH, budget: float = 60.0) -> dict[str, str]:
    """Analyse every library form in both dtypes and write the table."""
    from symnb.robust import engine, measure

    out: dict[str, str] = {}
    for form in library_forms():
        for dtype in measure.DTYPES:
            new, report = engine.analyse(form, dtype, budget)
            if report.analysed:
                out[engine._key(form, dtype)] = engine._store(
                    form, new, report
                ).decode()
    path.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    table.cache_clear()
    return out


if __name__ == "__main__":
    print(f"{len(generate())} analyses written to {PATH}")
