"""Which lowered form each neuron of a heterogeneous layer runs, by its constants.

A layer's program holds one form per formula, lowered at the constants of the
formula's first neuron; every neuron of that formula ran it, whatever its own
constants. The forms are only right for constants like those
(:mod:`symnb.backends.constant_assumptions`): a neuron whose constant is 0 where
the first neuron's is 1 (``x*exp(-c*x**2)``: NaN from |x| = 1e20 in float32), or
whose float32 part ``1 - t`` cancels where the first neuron's does not, computed
NaN. Here each neuron gets a key (formula, the signs and scales of its constants
(``constant_assumptions.scale_class``), which of
the formula's float32-sensitive constant parts cancel at them), and the program
holds one form per key present, lowered at the first such neuron's constants
(a :class:`Plan`). ``backends.kernel.LayerKernel`` checks each change of the
constants with :func:`holds` (vectorised: a few microseconds) and builds a new
plan (and program, through the caches) only where a neuron left its key.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
import sympy as sp

from symnb.backends.constant_assumptions import _watch, scale_classes
from symnb.codegen import constant_parts


@dataclass(frozen=True)
class Plan:
    """``keys[r]`` and ``values[r]``: program form r's key and the constants it
    is lowered at (``forms[keys[r][0]]`` with them); ``run_ids[j]``: the program
    form of neuron j; ``slot_signs``: the scale class each entry of ``params`` had in its
    neuron's key; ``flags[i]``: for formula i, the cancel flags its neurons had
    (rows in the order of its neurons), or None without sensitive parts;
    ``parts[i]``: formula i's float32-sensitive constant parts."""

    keys: tuple
    values: tuple
    run_ids: np.ndarray
    slot_signs: np.ndarray
    flags: tuple
    parts: tuple


@lru_cache(maxsize=256)
def _sensitive_parts(form: Any, dtype: str) -> tuple[sp.Expr, ...]:
    """The float32-sensitive constant-only parts of ``form`` (f, f' and the
    constants' gradients as derived), in its own constants."""
    if dtype not in constant_parts.DTYPES or not form.params:
        return ()
    found: dict[sp.Expr, None] = {}
    own = frozenset(form.params)
    for e in (form.f, form.df, *form.dparams):
        _watch(e, own, found)
    return tuple(found)


def _cancel_flags(parts: tuple, args: tuple, columns: list[np.ndarray]) -> np.ndarray:
    """(n, len(parts)) booleans: part k cancels in float32 at the constants of
    row i (``constant_parts._cancels``, over all rows at once)."""
    from symnb.backends.numpy_ import _lambdify

    n = columns[0].size if columns else 0
    out = np.zeros((n, len(parts)), dtype=bool)
    for k, part in enumerate(parts):
        try:
            fn = _lambdify(part, args)
            with np.errstate(all="ignore"):
                exact = np.broadcast_to(np.asarray(fn(*columns), dtype=float), (n,))
                got = np.broadcast_to(
                    np.asarray(
                        fn(*[c.astype(np.float32) for c in columns]), dtype=float
                    ),
                    (n,),
                )
        except Exception:  # noqa: BLE001, S112 - not computable: as constant_parts
            continue
        out[:, k] = constant_parts.lost(exact, got)
    return out


def _columns(form: Any, cols: np.ndarray, offsets: np.ndarray, given: np.ndarray):
    """Constant k of ``form`` at each of the neurons ``cols``."""
    start = offsets[cols]
    return [given[start + k] for k in range(len(form.params))]


def holds(plan: Plan, forms: tuple, ids: np.ndarray, offsets, given) -> bool:
    """Whether every neuron still has the key of the form it runs (``given``:
    the constants as given, float64; without sensitive parts, as held)."""
    if not np.array_equal(scale_classes(given), plan.slot_signs):
        return False
    for i, form in enumerate(forms):
        parts = plan.parts[i]
        if parts:
            cols = np.flatnonzero(ids == i)
            flags = _cancel_flags(
                parts, tuple(form.params), _columns(form, cols, offsets, given)
            )
            if not np.array_equal(flags, plan.flags[i]):
                return False
    return True


def plan(
    forms: tuple, ids: np.ndarray, offsets, given: np.ndarray, dtype: str, old: Any
) -> Plan:
    """The plan for the constants ``given`` (float64, ``params``' layout): one
    program form per key present; a key of ``old`` keeps its constants (so its
    lowering comes from the caches), a new one takes its first neuron's (the
    formula's own values where that is its first neuron: the compiled program)."""
    signs = scale_classes(given)
    keys: list = []
    values: list = []
    known = {} if old is None else dict(zip(old.keys, old.values))
    run_ids = np.zeros(ids.size, dtype=np.int32)
    all_flags: list = []
    all_parts = tuple(_sensitive_parts(form, dtype) for form in forms)
    for i, form in enumerate(forms):
        cols = np.flatnonzero(ids == i)
        columns = _columns(form, cols, offsets, given)
        parts = all_parts[i]
        flags = _cancel_flags(parts, tuple(form.params), columns) if parts else None
        all_flags.append(flags)
        for row, j in enumerate(cols):
            start = int(offsets[j])
            sl = slice(start, start + len(form.params))
            key = (
                i,
                tuple(int(s) for s in signs[sl]),
                () if flags is None else tuple(bool(f) for f in flags[row]),
            )
            if key not in keys:
                own = tuple(float(v) for v in given[sl])
                if row == 0 and old is None:
                    own = tuple(form.param_values)
                keys.append(key)
                values.append(known.get(key, own))
            run_ids[j] = keys.index(key)
    return Plan(
        tuple(keys), tuple(values), run_ids, signs.copy(), tuple(all_flags), all_parts
    )


def initial(activations: list, forms: tuple, ids: np.ndarray, dtype: str):
    """(plan, forms to compile) of a layer about to be compiled: neuron j uses
    ``activations[j]``, of formula ``forms[ids[j]]``, at its own constants."""
    counts = [len(a.internal.param_names) for a in activations]
    offsets = np.zeros(len(activations), dtype=np.int64)
    if len(activations) > 1:
        offsets[1:] = np.cumsum(counts[:-1])
    given = np.array(
        [float(v) for a in activations for v in a.internal.param_values], dtype=float
    )
    first = plan(tuple(forms), np.asarray(ids), offsets, given, dtype, None)
    return first, run_forms(forms, first)


def run_forms(forms: tuple, layer_plan: Plan) -> tuple:
    """The program's forms of ``layer_plan``: formula ``key[0]`` at its values."""
    return tuple(
        replace(forms[key[0]], param_values=values)
        if tuple(forms[key[0]].param_values) != values
        else forms[key[0]]
        for key, values in zip(layer_plan.keys, layer_plan.values)
    )
