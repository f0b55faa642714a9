"""Judge one typed formula as the corpus is judged, for the small regression files.

``rule_problems_of(text, backend, dtype)`` compiles ``symnb.Activation(text)`` and
returns the rule violations of its f and f' against mpmath references over the whole
float range (``corpus_reference.references_by_dtype``, ``test_corpus.rule_problems``);
the references are computed once per formula and constants.
"""

from __future__ import annotations

import functools

import symnb
from tests.robust.corpus import Published
from tests.robust.corpus_reference import references_by_dtype
from tests.robust.test_corpus import rule_problems


@functools.cache
def _reference(text: str, constants: tuple):
    return references_by_dtype(Published("judged", text, "probe", dict(constants)))


def rule_problems_of(
    text: str,
    backend: str,
    dtype: str,
    constants: dict | None = None,
    moved: dict | None = None,
) -> list[str]:
    """The rule's complaints about ``text`` compiled with ``constants`` (then set to
    ``moved`` on the kernel, as training sets them; judged at the moved values)."""
    constants = dict(constants or {})
    judged = constants | dict(moved or {})
    xs, check_df, ref = _reference(text, tuple(sorted(judged.items())))[dtype]
    kernel = symnb.Activation(text, **constants).compile(backend, dtype=dtype)
    if moved:
        kernel.set_constants(**moved)
    return rule_problems(kernel, xs, check_df, ref, dtype)


@functools.cache
def _constant_gradient_reference(text: str, constants: tuple, dtype: str):
    """(points, {constant: (reference, scale, settled)}) of d f/d c, SymPy + mpmath
    from the text alone (``corpus_reference``'s parse and precision ladder)."""
    import numpy as np
    import sympy as sp

    from tests.robust import corpus_reference as cr

    entry = Published("judged", text, "probe", dict(constants))
    ex = cr.expressions(entry)
    xs, _ = cr.sample_points(entry, dtype)
    values = [v for _, v in constants]
    mods = [cr._MP_NAMESPACE, "mpmath"]
    out = {}
    for sym in ex.symbols:
        f = ex.f.replace(  # as typed: differentiated before log1p_exact again
            lambda a: a.func == cr._LOG1P, lambda a: sp.log(1 + a.args[0])
        )
        d = cr._drop_delta(sp.diff(f, sym), lambda u: 0)
        dd = cr._drop_delta(sp.diff(d, cr.X), lambda u: 0)
        d, dd = cr._exact_log1p(d), cr._exact_log1p(dd)
        fd, fdd = (sp.lambdify((cr.X, *ex.symbols), e, modules=mods) for e in (d, dd))
        ref, scale, settled = [], [], []
        for x in xs.astype(np.float64).tolist():
            v, ok = cr._stable_value(fd, x, values, False)
            s, _ = cr._stable_value(fdd, x, values, False, scale=True)
            ref.append(cr._to_float(v))
            scale.append(cr._scale(x, s))
            settled.append(ok)
        out[sym.name] = (np.array(ref), np.array(scale), np.array(settled))
    return xs, out


def constant_gradient_problems_of(
    text: str,
    backend: str,
    dtype: str,
    constants: dict,
    moved: dict | None = None,
) -> list[str]:
    """The rule's complaints about the constants' gradients of ``text`` (the kernel's
    ``constant_gradient`` at each sample point, one point at a time) against mpmath,
    with S = max(1, |x|, |x d(df/dc)/dx|); compiled with ``constants``, judged at
    ``moved`` when given (set on the kernel, as training moves them)."""
    import numpy as np

    from tests.robust.corpus_reference import violations

    judged = dict(constants) | dict(moved or {})
    xs, refs = _constant_gradient_reference(text, tuple(sorted(judged.items())), dtype)
    kernel = symnb.Activation(text, **constants).compile(backend, dtype=dtype)
    if moved:
        kernel.set_constants(**moved)
    one = np.ones(1, dtype=dtype)
    got = {name: np.empty(xs.size) for name in refs}
    with np.errstate(all="ignore"):
        for i in range(xs.size):
            x = xs[i : i + 1]
            if backend == "cuda":
                x, w = kernel.xp.asarray(x), kernel.xp.asarray(one)
            else:
                w = one
            for name, v in kernel.constant_gradient(x, w).items():
                got[name][i] = float(v)
    problems = []
    for name, (ref, scale, settled) in refs.items():
        bad = violations(got[name], ref, scale, dtype) & settled
        if bad.any():
            lines = [f"d/d{name}: {int(bad.sum())} of {xs.size} points break the rule"]
            for i in np.flatnonzero(bad)[:8]:
                lines.append(
                    f"  x={float(xs[i]):24.17g}  got={got[name][i]:24.17g}  "
                    f"ref={ref[i]:24.17g}"
                )
            problems.append("\n".join(lines))
    return problems
