"""The compiler-facing form of a formula: internal symbols only, ready for code generation.

User names never reach generated source: the variable becomes ``x`` (or ``p``/``t`` for a
loss) and the constants ``c0, c1, ...``; code generation maps these to its own identifiers.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

X = sp.Symbol("x", real=True)
P = sp.Symbol("p", real=True)
T = sp.Symbol("t", real=True)


def param_symbol(k: int) -> sp.Symbol:
    """The internal symbol of the k-th constant."""
    return sp.Symbol(f"c{k}", real=True)


@dataclass(frozen=True)
class InternalForm:
    """f, df/dinput and df/dconstants of one activation or (elementwise) loss.

    See docs/CONTRACTS.md section 1 for what the expressions may contain.
    """

    kind: str  # "activation" | "loss"
    name: str
    inputs: tuple[sp.Symbol, ...]
    params: tuple[sp.Symbol, ...]
    param_names: tuple[str, ...]
    param_values: tuple[float, ...]
    f: sp.Expr
    df: sp.Expr
    dparams: tuple[sp.Expr, ...]

    @property
    def n_params(self) -> int:
        """Number of constants."""
        return len(self.params)

    def signature(self) -> str:
        """A text that identifies the generated code (not the constant values).

        Computed once per form (``srepr`` of large derivatives is slow, and a network
        asks once per neuron); the frozen fields cannot change under the cache.
        """
        cached = self.__dict__.get("_signature")
        if cached is None:
            cached = "|".join(
                [self.kind, sp.srepr(self.f), sp.srepr(self.df)]
                + [sp.srepr(d) for d in self.dparams]
            )
            self.__dict__["_signature"] = cached
        return cached
