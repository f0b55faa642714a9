"""LaTeX of every library formula, of its powers, and of every allowed function."""

from __future__ import annotations

import re

import pytest
import sympy as sp

import symnb
from symnb.formula import functions
from symnb.formula.latex import formula_latex

x = sp.Symbol("x", real=True)


def _well_formed(text: str, readable: bool = True) -> None:
    """Balanced braces and \\left/\\right pairs, no SymPy fallbacks leaking through."""
    assert text
    depth = 0
    for ch in text.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, text
    assert depth == 0, text
    assert len(re.findall(r"\\left\b", text)) == len(re.findall(r"\\right\b", text))
    if readable:  # symnb's printer; plain SymPy prints theta(x, 0)
        assert "Heaviside" not in text and "theta" not in text, text
    assert "DiracDelta" not in text and "Derivative" not in text, text


def _forms(obj):
    f, df = obj.expr, obj.derivative
    return [f, df, f**2, 1 / f if f != 0 else f, df**2, sp.sqrt(f**2 + 1)]


LIBRARY = [("activation", n) for n in symnb.library_activations()] + [
    ("loss", n) for n in symnb.library_losses()
]


@pytest.mark.parametrize("kind, name", LIBRARY)
def test_every_library_formula_and_its_powers_render(kind, name):
    obj = symnb.activation(name) if kind == "activation" else symnb.loss(name)
    _well_formed(obj.latex)
    _well_formed(obj.derivative_latex)
    for e in _forms(obj):
        _well_formed(formula_latex(e))
        _well_formed(sp.latex(e), readable=False)  # plain SymPy works too (exp=...)
    assert obj._repr_latex_().startswith("$$")


def _call(name, fn):
    if name == "Piecewise":
        return fn((x, x > 0), (-x, True))
    if name == "where":
        return fn(x > 0, x, 2 * x)
    if name in ("max", "Max", "min", "Min"):
        return fn(x, 2 * x + 1)
    if name in ("clip", "clamp"):
        return fn(x, -1, 2)
    return fn(
        x + sp.Rational(3, 2)
    )  # inside every domain (acosh, log, atanh...) near 0


@pytest.mark.parametrize("name", sorted(functions.ALLOWED_FUNCTIONS))
def test_every_allowed_function_and_its_powers_render(name):
    e = _call(name, functions.ALLOWED_FUNCTIONS[name])
    for form in (e, e**2, e**3, 1 / e, e ** sp.Rational(1, 2)):
        _well_formed(formula_latex(form))
        _well_formed(sp.latex(form), readable=False)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("sigmoid(x)**2", r"\sigma^{2}\left(x\right)"),
        ("softplus(x)**3", r"\operatorname{softplus}^{3}\left(x\right)"),
        ("1/sigmoid(x)", r"\frac{1}{\sigma\left(x\right)}"),
        ("logsigmoid(x)**2", r"\left(\log\sigma\left(x\right)\right)^{2}"),
        ("heaviside(x)", r"H\left(x\right)"),
        ("heaviside(x, 0.5)", r"H_{0.5}\left(x\right)"),
        ("log1p(x**2)", r"\log\left(x^{2} + 1\right)"),
        ("expm1(x)**2", r"\left(e^{x} - 1\right)^{2}"),
    ],
)
def test_readable_latex(text, expected):
    assert symnb.Activation(text).latex == expected


def test_serf_and_relu_derivative_render():
    serf = symnb.Activation("x*erf(log(1 + exp(x)))")  # Serf (Nag et al., 2023)
    assert r"\operatorname{softplus}^{2}\left(x\right)" in serf.derivative_latex
    # relu' = H(x), with PyTorch's 0 at 0: printed as H(x), not theta(x, 0)
    assert symnb.activation("relu").derivative_latex == r"H\left(x\right)"


@pytest.mark.parametrize(
    "text",
    [
        "x*sigmoid(sigma*x)",
        "logsigmoid(sigma*x)",
        "exp(-x**2/(2*sigma**2))*sigmoid(x)",
    ],
)
def test_a_constant_named_sigma_is_not_confused_with_the_sigmoid(text):
    """sigmoid prints as sigma(u); a constant named sigma prints as sigma too, so
    x*sigmoid(sigma*x) read 'x sigma(sigma x)' and its f' 'sigma x sigma(-sigma x)
    sigma(sigma x) + ...'. With such a constant the function is spelled out; every
    sigma left in the LaTeX is the constant (one per occurrence of the symbol)."""
    act = symnb.Activation(text, sigma=1.5)
    for shown, expr in ((act.latex, act.expr), (act.derivative_latex, act.derivative)):
        assert r"\sigma\left(" not in shown
        assert "sigmoid" in shown
        sigma = next(s for s in expr.free_symbols if s.name == "sigma")
        powers = sum(1 for e in sp.preorder_traversal(expr) if e == sigma)
        assert len(re.findall(r"\\sigma(?![a-zA-Z])", shown)) <= powers


def test_sigmoid_still_prints_as_sigma_without_such_a_constant():
    act = symnb.Activation("x*sigmoid(beta*x)", beta=1.5)
    assert r"\sigma\left(" in act.latex and "sigmoid" not in act.latex


def test_a_float_coefficient_of_one_is_not_printed():
    # gelu_tanh's 0.5*x*(1 + tanh(u)) becomes 1.0*x*sigmoid(2u): the LaTeX read
    # "1.0 x \sigma(...)"; the value is unchanged, only the print
    x = sp.Symbol("x")
    assert symnb.activation("gelu_tanh").latex.startswith(r"x \sigma")
    assert formula_latex(sp.Float(-1.0) * x * sp.sin(x)) == formula_latex(
        -x * sp.sin(x)
    )
    assert formula_latex(sp.Float(1.0) * x) == "x"
    assert formula_latex(sp.Float(1.5) * x) == "1.5 x"
