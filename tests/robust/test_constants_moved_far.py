"""Activations whose learnable constants training moves far from the analysed values.

The engine analyses a form at the constants it is compiled with; training moves them
(``Kernel.set_constants``) without a new analysis. Swish's f',
``c*x*sigmoid(-c*x)*sigmoid(c*x) + sigmoid(c*x)``, compiled at beta = 1 met the rule
there, and was NaN from x = -1e19 once beta reached 1e30 (``c*x = -inf`` times 0); Snake
(``x + sin(a*x)**2/a``) compiled at a = 1 was NaN from |x| = 3.4e8 in float32 at a = 1e30
(``sin(inf)``), the scaled softsign ``a*x/(b + abs(x))`` compiled at a = 2 inf from
|x| = 1.7e28 at a = 2e10 (``a*x`` overflowed; now ``(x/(b + |x|))*a``). Exact rewrites that remove such an overflow are now kept for forms with
constants wherever they fail no point more at the analysed values
(``engine.HARDENING_REWRITES``). Judged against mpmath at the moved constants
(``text_judge.rule_problems_of``).
"""

from __future__ import annotations

import pytest

import symnb
from tests.conftest import backend_params
from tests.robust.text_judge import rule_problems_of

CASES = [
    ("x*sigmoid(beta*x)", {"beta": 1.0}, {"beta": 1e30}),
    ("x*sigmoid(beta*x)", {"beta": 1.0}, {"beta": -1e30}),
    ("x + sin(a*x)**2/a", {"a": 1.0}, {"a": 1e30}),
    ("x + sin(a*x)**2/a", {"a": 1.0}, {"a": 1e-30}),
    # scaled softsign: a*x overflowed float32 from |x| = 1.7e28 at a = 2e10 (inf where
    # f is 2e10), and at x = 3.4e38 with b moved either way
    ("a*x/(b + abs(x))", {"a": 2.0, "b": 3.0}, {"a": 2e10}),
    ("a*x/(b + abs(x))", {"a": 2.0, "b": 3.0}, {"b": 3e10}),
    ("a*x/(b + abs(x))", {"a": 2.0, "b": 3.0}, {"b": 3e-10}),
    # Smish (Wang et al. 2022) with its scale a moved: NaN from x = -1e31 in float32
    ("a*x*tanh(log(1 + sigmoid(b*x)))", {"a": 1.0, "b": 1.0}, {"a": 1e10}),
]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_far_moved_constants_meet_the_rule(dtype, backend):
    failures = []
    for text, constants, moved in CASES:
        problems = rule_problems_of(text, backend, dtype, constants, moved)
        if problems:
            failures.append(f"{text} {constants} -> {moved}:\n" + "\n".join(problems))
    assert not failures, f"{backend} {dtype}:\n" + "\n".join(failures)


def test_the_kept_rewrite_is_reported():
    report = symnb.Activation("x*sigmoid(beta*x)", beta=1.0).accuracy()
    target = {t.what: t for t in report.for_dtype("float32").targets}["df"]
    assert "multiply_stepwise" in target.rewrites
    assert target.failing == 0


def test_hardening_never_makes_a_kernel_costlier(monkeypatch):
    """A hardening rewrite protects constants that training may move; it is kept only
    where it adds no operation, since it runs at every x for constants that may never
    move. Before: PAU 5/4's denominator lost Horner's rule in |x| to an expanded
    polynomial (76 -> 79 operations in f, its forward 26 -> 34 us at 1e5 elements)."""
    import sympy as sp

    from symnb.robust import engine

    coefficients = {f"a{k}": 0.1 * (k + 1) for k in range(6)}
    coefficients.update({f"b{k}": 0.2 * k for k in range(1, 5)})
    pau = symnb.Activation(
        "(a0 + a1*x + a2*x**2 + a3*x**3 + a4*x**4 + a5*x**5)"
        "/(1 + abs(b1*x) + abs(b2)*abs(x)**2 + abs(b3)*abs(x)**3 + abs(b4)*abs(x)**4)",
        **coefficients,
    )
    for dtype in ("float32", "float64"):
        hardened, _ = engine.analyse(pau.internal, dtype)
        monkeypatch.setattr(engine, "HARDENING_REWRITES", ())
        plain, _ = engine.analyse(pau.internal, dtype)
        monkeypatch.undo()
        for a, b in ((hardened.f, plain.f), (hardened.df, plain.df)):
            assert sp.count_ops(a) <= sp.count_ops(b)
