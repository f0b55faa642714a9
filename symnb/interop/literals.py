"""Integer literals the JAX and numba faces print.

A SymPy Integer prints as a Python int, which JAX (without x64) reads as int32 and
numba as int64: a series coefficient 9512680905 in log_ndtr's far form made JAX raise
OverflowError in every call. Beyond the target's integers it prints as a float, the
value the computation takes it as anyway.
"""

from __future__ import annotations

import sympy as sp


def big_integer(expr: sp.Integer, bits: int) -> str | None:
    """``expr`` as a float literal where it does not fit a signed ``bits``-bit integer
    plus sign; ``None`` (print it as an int) where it fits."""
    n = int(expr)
    if -(2**bits) <= n < 2**bits:
        return None
    return repr(float(n))
