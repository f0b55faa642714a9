"""What every backend shares: its availability report and the Program it builds.

A backend module (numpy_, cpp, cuda) provides ``probe() -> BackendStatus`` and
``build(forms, kind, dtype, device) -> Program``. Programs are raw: the public kernel objects
in ``symnb.backends.kernel`` check every argument before calling them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class BackendStatus:
    """Whether a backend can be used here and, if not, why and how to fix it."""

    name: str
    usable: bool
    reason: str = ""
    fix: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        if self.usable:
            extra = ", ".join(f"{k}={v}" for k, v in self.details.items())
            return f"{self.name}: usable" + (f" ({extra})" if extra else "")
        text = f"{self.name}: not usable: {self.reason}"
        return text + (f" (fix: {self.fix})" if self.fix else "")


class Program:
    """Raw compiled callables of one backend (see docs/CONTRACTS.md section 3).

    Attributes every Program sets: ``source`` (str), ``cache_hit`` (bool),
    ``compile_seconds`` (float), ``backend`` (str), ``device`` (int or None).
    """

    source: str = ""
    cache_hit: bool = False
    compile_seconds: float = 0.0
    backend: str = ""
    device: int | None = None
    #: layer programs with ``layer_planes_*`` entry points (a feature axis followed by
    #: more axes, computed in place of a transposed copy)
    has_planes: bool = False
    #: the parts of the form that depend only on its constants, passed after the
    #: constants (:mod:`symnb.codegen.constant_parts`); None: none
    constant_parts: Any = None
    #: a layer's: one ConstantParts (or None) per form
    layer_parts: Any = None
