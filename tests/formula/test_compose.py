"""Activations as functions inside formulas: library ones, user-named ones, shadowing."""

from __future__ import annotations

import math
import shutil

import mpmath
import numpy as np
import pytest
import sympy as sp

import symnb
from symnb import FormulaError
from symnb.formula import compose
from symnb.formula.functions import ALLOWED_FUNCTIONS

# the functions InternalForm may contain (docs/CONTRACTS.md section 1)
PRINTABLE = {
    "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
    "asinh", "acosh", "atanh", "erf", "erfc", "Abs", "sign", "Max", "Min", "Piecewise",
    "Heaviside", "floor", "ceiling", "sigmoid", "softplus", "logsigmoid", "log1p", "expm1",
}  # fmt: skip

XS = np.array([-7.3, -3.1, -1.05, -0.37, 0.0, 0.21, 0.49, 0.93, 1.7, 2.6, 6.2])


@pytest.fixture(autouse=True)
def _registry():
    """Each test starts and ends with the user names it found."""
    saved = compose.registered()
    compose.clear()
    yield
    compose.clear()
    for act in saved.values():
        compose.register(act, replace=True)


def _f64(act):
    return act.compile("numpy", dtype="float64")


def _only_printable(act):
    form = act.internal
    for e in (form.f, form.df, *form.dparams):
        names = {type(a).__name__ for a in e.atoms(sp.Function)}
        assert names <= PRINTABLE, names - PRINTABLE


COMPOSABLE = [n for n in symnb.library_activations() if n not in ALLOWED_FUNCTIONS]


@pytest.mark.parametrize("name", COMPOSABLE)
def test_every_library_activation_composes_with_the_chain_rule(name):
    lib = _f64(symnb.activation(name))
    act = symnb.Activation(f"{name}(2*x - 0.5)")
    _only_printable(act)
    y, dy = _f64(act).forward_with_derivative(XS)
    ly, ldy = lib.forward_with_derivative(2 * XS - 0.5)
    # issue 8's float64 rule (|got - ref| <= 1e-9 |ref| + 1e-12 S): the compile-time
    # accuracy stage may choose different regimes for the two spellings
    scale = 1 + np.abs(2 * XS - 0.5)
    assert np.all(np.abs(y - ly) <= 1e-9 * np.abs(ly) + 1e-12 * scale)
    assert np.all(np.abs(dy - 2 * ldy) <= 1e-9 * np.abs(2 * ldy) + 1e-12 * scale)


def _mp_gelu(t):
    return t / 2 * (1 + mpmath.erf(t / mpmath.sqrt(2)))


def _mp_silu(t):
    return t / (1 + mpmath.exp(-t))


def _mp_mish(t):
    return t * mpmath.tanh(mpmath.log(1 + mpmath.exp(t)))


MP_REFERENCES = {
    "gelu(x) + silu(x)": lambda t: _mp_gelu(t) + _mp_silu(t),
    "mish(2*x)": lambda t: _mp_mish(2 * t),
    "x*selu(x) - celu(x/2)": lambda t: (
        t
        * 1.0507009873554804934193349852946
        * (t if t > 0 else 1.6732632423543772848170429916717 * mpmath.expm1(t))
        - (t / 2 if t > 0 else mpmath.expm1(t / 2))
    ),
    "softsign(3*x)*hardswish(x)": lambda t: (
        3 * t / (1 + abs(3 * t)) * (0 if t < -3 else (t * (t + 3) / 6 if t <= 3 else t))
    ),
}


@pytest.mark.parametrize("text", list(MP_REFERENCES))
def test_composed_values_and_derivatives_match_mpmath(text):
    k = _f64(symnb.Activation(text))
    y, dy = k.forward_with_derivative(XS)
    ref = MP_REFERENCES[text]
    with mpmath.workdps(40):
        want = [float(ref(mpmath.mpf(v))) for v in XS]
        dwant = [float(mpmath.diff(ref, mpmath.mpf(v))) for v in XS if v not in (0.0,)]
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(dy[XS != 0.0], dwant, rtol=1e-9, atol=1e-12)


def test_kink_conventions_are_pytorchs():
    _, dy = _f64(symnb.Activation("relu(x - 1)")).forward_with_derivative(
        np.array([1.0, 1.5])
    )
    assert list(dy) == [0.0, 1.0]  # relu'(0) = 0
    leaky = _f64(symnb.Activation("leaky_relu(x)"))
    y, dy = leaky.forward_with_derivative(np.array([-2.0, 0.0, 3.0]))
    np.testing.assert_allclose(y, [-0.02, 0.0, 3.0])  # default slope 0.01
    np.testing.assert_allclose(dy, [0.01, 0.01, 1.0])  # leaky_relu'(0) = slope
    _, dy = _f64(symnb.Activation("elu(x)")).forward_with_derivative(np.array([0.0]))
    assert dy[0] == 1.0  # elu'(0) = alpha


def test_stable_forms_are_kept_in_float32():
    k = symnb.Activation("mish(2*x) + silu(x)").compile("numpy")
    xs = np.array([-1e4, -100.0, -50.0, 50.0, 100.0, 1e4], dtype=np.float32)
    y, dy = k.forward_with_derivative(xs)
    assert np.isfinite(y).all() and np.isfinite(dy).all()
    np.testing.assert_allclose(y[3:], 3 * xs[3:], rtol=1e-6)
    # softsign keeps the library's own derivative 1/(1+|u|)^2: no cancellation at 1e4
    s = symnb.Activation("softsign(3*x)").compile("numpy")
    _, d = s.forward_with_derivative(np.array([1e4], np.float32))
    np.testing.assert_allclose(d, 3 / (1 + 3e4) ** 2, rtol=1e-6)


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ on this machine")
def test_composed_formula_compiles_in_cpp():
    act = symnb.Activation("gelu(x) + silu(beta*x)", beta=1.5)
    k = act.compile("cpp", dtype="float64", strict=True)
    ref = _f64(act)
    np.testing.assert_allclose(k.forward(XS), ref.forward(XS), rtol=1e-14)
    g = np.ones_like(XS)
    assert math.isclose(
        k.constant_gradient(XS, g)["beta"], ref.constant_gradient(XS, g)["beta"]
    )


def test_user_named_activation_is_usable_with_its_own_constants():
    symnb.Activation("exp(-a*x**2)", name="bump", a=2.0)
    later = symnb.Activation("bump(3*x) + x")
    _only_printable(later)
    y, dy = _f64(later).forward_with_derivative(XS)
    np.testing.assert_allclose(y, np.exp(-18 * XS**2) + XS, rtol=1e-13)
    np.testing.assert_allclose(dy, -36 * XS * np.exp(-18 * XS**2) + 1, rtol=1e-12)
    assert r"\operatorname{bump}\left(3 x\right)" in later.latex


def test_redefining_a_user_name_affects_only_later_formulas():
    symnb.Activation("2*x", name="scale")
    before = symnb.Activation("scale(x)")
    symnb.Activation("3*x", name="scale")
    after = symnb.Activation("scale(x)")
    assert before.expr == 2 * sp.Symbol("x", real=True)
    assert after.expr == 3 * sp.Symbol("x", real=True)


def test_with_constants_does_not_change_the_registered_values():
    sw = symnb.Activation("x*sigmoid(b*x)", name="myswish", b=2.0)
    sw.with_constants(b=5.0)
    expr = symnb.Activation("myswish(x)").expr
    x = sp.Symbol("x", real=True)
    assert expr == x * symnb.formula.functions.sigmoid(2.0 * x)


def test_a_constant_of_the_formula_wins_over_an_activation_name():
    symnb.Activation("x**2", name="k")
    act = symnb.Activation("k*x", k=3.0)
    assert act.constants == {"k": 3.0}
    assert act.derivative == sp.Symbol("k", real=True)


def test_composed_user_activation_with_a_step_follows_the_surrogate_rule():
    symnb.Activation("sign(x)", name="sgn")
    cont = symnb.Activation("sgn(x)*log(1 + abs(x))")
    jump = symnb.Activation("sgn(x) + x")
    assert any("continuous" in n for n in cont.notes)
    assert any("surrogate" in n for n in jump.notes)
    _, dy = _f64(cont).forward_with_derivative(np.array([1.3]))
    np.testing.assert_allclose(dy, [1 / 2.3])


def test_shadowing_a_library_name_is_an_error_unless_replace():
    with pytest.raises(FormulaError, match="replace=True"):
        symnb.Activation("2*x", name="gelu")
    assert "gelu" not in compose.registered()
    symnb.Activation("2*x", name="gelu", replace=True)
    assert symnb.Activation("gelu(x)").expr == 2 * sp.Symbol("x", real=True)
    compose.unregister("gelu")
    assert symnb.Activation("gelu(x)").expr.has(sp.erfc)
    # the brief's example: a relu of your own, made explicit
    with pytest.raises(FormulaError, match="shadows the library activation 'relu'"):
        symnb.Activation("x*heaviside(x) + 0.1*x", name="relu")
    symnb.Activation("x*heaviside(x) + 0.1*x", name="relu", replace=True)
    y = _f64(symnb.Activation("relu(x - 1)")).forward(np.array([0.0, 3.0]))
    np.testing.assert_allclose(y, [-0.1, 2.2])
    assert symnb.Activation("max(0, x)").expr == sp.Max(0, sp.Symbol("x", real=True))


def test_library_formula_under_its_own_name_is_not_a_shadow():
    # the documented example: the library's swish, with another beta
    sw = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=2.0)
    assert sw.constants == {"beta": 2.0}
    symnb.Activation("x/(1 + exp(-x))", name="silu")  # same function, other spelling
    symnb.Activation("max(0, x)", name="relu")
    symnb.Activation("exp(x)", name="exp")
    x = sp.Symbol("x", real=True)
    # later formulas keep the library's meaning (default constants)
    assert symnb.Activation("swish(x)").expr == x * symnb.formula.functions.sigmoid(
        1.0 * x
    )
    assert compose.registered() == {}


def test_builtin_function_and_constant_names_cannot_be_replaced():
    with pytest.raises(FormulaError, match="built-in function"):
        symnb.Activation("x**2", name="exp", replace=True)
    with pytest.raises(FormulaError, match="named constant"):
        symnb.Activation("x", name="pi")


def test_names_formulas_cannot_call_are_display_names_only():
    symnb.Activation("x", name="my activation")
    symnb.Activation("x", name="lambda")
    assert compose.registered() == {}


def test_unknown_composed_name_still_suggests():
    with pytest.raises(FormulaError, match="did you mean 'gelu'"):
        symnb.Activation("gelw(x)")


def test_composed_activation_pickles_and_prints_its_powers():
    import pickle

    act = symnb.Activation("gelu(x) + leaky_relu(2*x)**2")
    back = pickle.loads(pickle.dumps(act))
    assert back.expr == act.expr and back.derivative == act.derivative
    assert back.latex == (
        r"\operatorname{gelu}\left(x\right) + \operatorname{\mathrm{leaky\_relu}}^{2}"
        r"\left(2 x\right)"
    )


def test_losses_can_call_activations():
    lo = symnb.Loss("softsign(y_pred - y_true)**2")
    k = lo.compile("numpy", dtype="float64")
    p, t = np.array([0.5, -2.0]), np.array([1.0, 1.0])
    d = p - t
    s = d / (1 + np.abs(d))
    np.testing.assert_allclose(k.value(p, t), np.mean(s**2), rtol=1e-13)
    np.testing.assert_allclose(
        k.gradient(p, t), 2 * s / (1 + np.abs(d)) ** 2 / len(p), rtol=1e-12
    )


def test_with_constants_keeps_the_definitions_the_formula_was_built_with():
    symnb.Activation("2*x", name="scale")
    act = symnb.Activation("beta*scale(x)", beta=1.0)
    symnb.Activation("3*x", name="scale")  # redefined afterwards
    x = sp.Symbol("x", real=True)
    assert act.with_constants(beta=5.0).expr == 2 * x * sp.Symbol("beta", real=True)
