"""The surrogate rule: a surrogate gradient only where the function itself jumps.

Continuous formulas built from steps (``sign(x)*log(1+|x|)``) must get their exact
derivative, checked against central finite differences of f away from the step;
discontinuous ones keep the surrogate, checked against the exact part (finite differences)
plus the jump size times spikingjelly's ATan surrogate written out here.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb

# points away from every step of the formulas below
XS = np.concatenate([-np.linspace(3.0, 0.15, 23), np.linspace(0.15, 3.0, 23)])
XS = XS[np.abs(np.abs(XS) - 1.0) > 0.05]  # steps at +-1 too
XS = XS[np.abs(np.sin(XS)) > 0.05]
XS = XS[np.abs(XS + 0.5671432904097838) > 0.05]  # x + exp(x) = 0


def _atan(u):
    """ATan surrogate, alpha = 2: d/du of atan(pi/2 * alpha * u)/pi."""
    return 1.0 / (1.0 + (np.pi * u) ** 2)


def _fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def _kernel(text, **constants):
    act = symnb.Activation(text, **constants)
    return act, act.compile("numpy", dtype="float64")


CONTINUOUS = {
    "sign(x)*log(1 + abs(x))": lambda x: np.sign(x) * np.log1p(np.abs(x)),
    "x*heaviside(x)": lambda x: x * (x > 0),
    "sign(x)*x**2": lambda x: np.sign(x) * x**2,
    "heaviside(x - 1)*(x - 1)**2": lambda x: (x > 1) * (x - 1) ** 2,
    "sign(x)*(exp(abs(x)) - 1)": lambda x: np.sign(x) * np.expm1(np.abs(x)),
    "heaviside(x**2 - 1)*(x**2 - 1)": lambda x: (x**2 > 1) * (x**2 - 1),
    "sign(sin(x))*sin(x)": lambda x: np.abs(np.sin(x)),
    "sign(x)*heaviside(x)*x": lambda x: np.maximum(x, 0),
    # no closed-form step location (x = -W(1)): found numerically
    "sign(x + exp(x))*(x + exp(x))": lambda x: np.abs(x + np.exp(x)),
}


@pytest.mark.parametrize("text", list(CONTINUOUS))
def test_continuous_formula_with_steps_gets_its_exact_derivative(text):
    act, k = _kernel(text)
    _, dy = k.forward_with_derivative(XS)
    np.testing.assert_allclose(dy, _fd(CONTINUOUS[text], XS), rtol=1e-6, atol=1e-7)
    assert any("continuous" in n for n in act.notes)
    assert not any("surrogate" in n and "uses" in n for n in act.notes)


def test_sign_log1p_abs_derivative_is_one_over_one_plus_abs():
    # the example: 0.529 with a surrogate, 1/(1 + 1.3) = 0.435 exactly
    _, k = _kernel("sign(x)*log(1 + abs(x))")
    _, dy = k.forward_with_derivative(np.array([1.3, -1.3, 0.0]))
    np.testing.assert_allclose(dy, [1 / 2.3, 1 / 2.3, 1.0], rtol=1e-12)


DISCONTINUOUS = {
    # text: (f, jump factor g(x) multiplying the step's derivative, u(x))
    "sign(x)": (np.sign, lambda x: 2.0 + 0 * x, lambda x: x),
    "heaviside(x)": (lambda x: (x > 0) * 1.0, lambda x: 1.0 + 0 * x, lambda x: x),
    "x + sign(x)": (lambda x: x + np.sign(x), lambda x: 2.0 + 0 * x, lambda x: x),
    "exp(x)*heaviside(x)": (lambda x: np.exp(x) * (x > 0), np.exp, lambda x: x),
    "sign(x)*cos(x)": (
        lambda x: np.sign(x) * np.cos(x),
        lambda x: 2 * np.cos(x),
        lambda x: x,
    ),
    "heaviside(x - 1)*x": (lambda x: (x > 1) * x, lambda x: x, lambda x: x - 1),
    "sign(sin(x))": (
        lambda x: np.sign(np.sin(x)),
        lambda x: 2 * np.cos(x),
        np.sin,
    ),
    "sign(x + exp(x))": (
        lambda x: np.sign(x + np.exp(x)),
        lambda x: 2 * (1 + np.exp(x)),
        lambda x: x + np.exp(x),
    ),
}


@pytest.mark.parametrize("text", list(DISCONTINUOUS))
def test_jumping_formula_keeps_the_surrogate(text):
    f, g, u = DISCONTINUOUS[text]
    act, k = _kernel(text)
    _, dy = k.forward_with_derivative(XS)
    expected = _fd(f, XS) + g(XS) * _atan(u(XS))
    np.testing.assert_allclose(dy, expected, rtol=1e-6, atol=1e-7)
    assert any("surrogate" in n for n in act.notes)


def test_constant_derivative_follows_the_same_rule():
    cont = symnb.Activation("heaviside(x - c)*(x - c)", c=0.5)
    jump = symnb.Activation("heaviside(x - c)", c=0.5)
    kc = cont.compile("numpy", dtype="float64")
    kj = jump.compile("numpy", dtype="float64")
    ones = np.ones_like(XS)
    # d/dc of H(x-c)(x-c) = -H(x-c): the sum over the points with x > c
    np.testing.assert_allclose(
        kc.constant_gradient(XS, ones)["c"], -np.sum(XS > 0.5), rtol=1e-12
    )
    # d/dc of H(x-c): minus the surrogate at x - c
    np.testing.assert_allclose(
        kj.constant_gradient(XS, ones)["c"], -np.sum(_atan(XS - 0.5)), rtol=1e-9
    )


def test_loss_with_a_continuous_step():
    lo = symnb.Loss("heaviside(y_pred - y_true)*(y_pred - y_true)**2")
    k = lo.compile("numpy", dtype="float64")
    p = np.array([0.5, 2.0, -1.0])
    t = np.array([1.0, 1.0, -2.0])
    np.testing.assert_allclose(
        k.gradient(p, t), 2 * np.maximum(p - t, 0) / len(p), rtol=1e-12
    )


def test_step_that_never_happens_has_zero_derivative():
    act = symnb.Activation("heaviside(exp(x))")
    assert act.derivative == 0


def test_jump_that_depends_on_a_constant_is_decided_by_its_value():
    # sign(x)*max(|x| - l, 0) (softshrink typed out) jumps at 0 by 2*max(0, -l): for
    # l = 0.5 it is continuous and its derivative is H(|x| - l) (was 1.089 at x = 0.9:
    # the surrogate times max(|x| - l, 0)); for l = -0.5 it jumps, keeps the surrogate
    text = "sign(x)*max(abs(x) - l, 0)"
    xs = XS[np.abs(np.abs(XS) - 0.5) > 0.05]

    def f(lv):
        return lambda x: np.sign(x) * np.maximum(np.abs(x) - lv, 0)

    for lv, jump in ((0.5, lambda x: 0.0), (-0.5, lambda x: 2 * (np.abs(x) + 0.5))):
        act = symnb.Activation(text, l=lv)
        for backend in ("numpy", "cpp"):
            k = act.compile(backend, dtype="float64")
            _, dy = k.forward_with_derivative(xs)
            expected = _fd(f(lv), xs) + jump(xs) * _atan(xs)
            np.testing.assert_allclose(dy, expected, rtol=1e-6, atol=1e-7)
            if lv > 0:  # the gated term is 0, not 0 * inf, where max(|x| - l, 0) big
                for dtype in ("float32", "float64"):
                    big = np.finfo(dtype).max
                    edge = np.array([-big, big], dtype=dtype)
                    kd = act.compile(backend, dtype=dtype)
                    np.testing.assert_array_equal(
                        kd.forward_with_derivative(edge)[1], [1.0, 1.0]
                    )
        assert any("depends on the constants" in n for n in act.notes)


def test_jump_depending_on_a_constant_follows_it_in_one_kernel():
    # heaviside(x - c)*x jumps by c at x = c: exact derivative H(x - c) for c = 0, the
    # surrogate (times x) for c = 0.5; the kernel evaluates the condition on c
    for c, extra in ((0.0, lambda x: 0.0), (0.5, lambda x: x * _atan(x - 0.5))):
        act = symnb.Activation("heaviside(x - c)*x", c=c)
        k = act.compile("numpy", dtype="float64")
        xs = XS[np.abs(XS - c) > 0.05]
        _, dy = k.forward_with_derivative(xs)
        expected = _fd(lambda x: (x > c) * x, xs) + extra(xs)
        np.testing.assert_allclose(dy, expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "text", ["heaviside(x, x)", "Heaviside(x, c)", "heaviside(x, sin(x))"]
)
def test_heaviside_value_at_zero_must_be_a_number(text):
    """numpy.heaviside(x, h0): h0 is the value at 0. A variable there had no derivative
    SymPy can print and failed with 'the result contains Derivative(Heaviside(x, 0),
    ...)'; now the call itself is refused, naming the argument, with its column."""
    with pytest.raises(symnb.FormulaError) as info:
        symnb.Activation(text, **({"c": 0.5} if "c" in text else {}))
    assert "value at 0" in str(info.value)
    assert "Derivative" not in str(info.value)
    assert info.value.column == 1


@pytest.mark.parametrize("h0", [0.0, 0.5, 1.0])
def test_heaviside_with_a_number_at_zero_matches_numpy(h0):
    x = np.array([-2.0, -1e-300, 0.0, 1e-300, 3.0])
    kernel = symnb.Activation(f"heaviside(x, {h0})").compile(
        backend="numpy", dtype="float64"
    )
    np.testing.assert_array_equal(kernel.forward(x), np.heaviside(x, h0))
