"""Activation / Loss objects: constants, derivatives, conventions, rewrites, errors."""

from __future__ import annotations

import subprocess
import sys

import mpmath
import numpy as np
import pytest
import sympy as sp

import symnb
from symnb import FormulaError
from symnb.backends.select import status

x = sp.Symbol("x", real=True)
beta = sp.Symbol("beta", real=True)


def test_swish_expr_derivative_and_constant_derivative():
    a = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.0)
    s = 1 / (1 + sp.exp(-beta * x))
    ref = x * s
    got = a.expr.rewrite(sp.exp)
    assert sp.simplify(got - ref) == 0
    assert sp.simplify(a.derivative.rewrite(sp.exp) - sp.diff(ref, x)) == 0
    assert (
        sp.simplify(a.constant_derivatives["beta"].rewrite(sp.exp) - sp.diff(ref, beta))
        == 0
    )
    assert a.constants == {"beta": 1.0}
    assert a.name == "swish"
    assert all(s.is_real for s in a.expr.free_symbols)


def test_latex_and_repr_latex_show_f_and_f_prime():
    a = symnb.Activation("x*sigmoid(beta*x)", name="swish", beta=1.0)
    assert r"\sigma" in a.latex and r"\beta" in a.latex
    text = a._repr_latex_()
    assert text.startswith("$$") and "swish" in text and "swish}'" in text
    assert a.derivative_latex in text


def test_constants_must_be_finite_numbers():
    for bad in (float("inf"), float("nan"), "1.0", None, True, 1j):
        with pytest.raises(FormulaError, match="beta"):
            symnb.Activation("x*sigmoid(beta*x)", beta=bad)


def test_constant_named_like_the_variable_is_refused():
    with pytest.raises(FormulaError, match="variable"):
        symnb.Activation("x", x=1.0)


def test_library_unknown_names_and_constants():
    with pytest.raises(FormulaError, match="did you mean 'sigmoid'"):
        symnb.activation("sigmod")
    with pytest.raises(FormulaError, match="no constant 'beta'"):
        symnb.activation("relu", beta=1.0)
    with pytest.raises(FormulaError, match="unknown loss"):
        symnb.loss("msee")


def test_library_lookup_of_a_formula_points_to_the_formula_class():
    """symnb.activation("x*sigmoid(beta*x)", beta=1) listed the library's names only;
    the hint now says that a formula goes to symnb.Activation (and Loss the same)."""
    with pytest.raises(FormulaError, match=r"formula text goes to symnb\.Activation"):
        symnb.activation("x*sigmoid(beta*x)", beta=1.0)
    with pytest.raises(FormulaError, match=r"formula text goes to symnb\.Loss"):
        symnb.loss("(y_pred - y_true)**2")
    # the formula itself reads as typed through the class the hint names
    act = symnb.Activation("x*sigmoid(beta*x)", beta=1.0)
    assert act.constants == {"beta": 1.0}


def test_library_defaults_match_pytorch_docs():
    assert symnb.activation("leaky_relu").constants == {"alpha": 0.01}
    assert symnb.activation("elu").constants == {"alpha": 1.0}
    assert symnb.activation("softplus").constants == {"beta": 1.0, "threshold": 20.0}
    assert symnb.activation("softshrink").constants == {"lambd": 0.5}
    assert symnb.activation("hardtanh").constants == {"min_val": -1.0, "max_val": 1.0}
    assert symnb.loss("huber").constants == {"delta": 1.0}


def test_with_constants_returns_new_object_same_formula():
    a = symnb.activation("leaky_relu", alpha=0.2)
    b = a.with_constants(alpha=0.3)
    assert a.constants["alpha"] == 0.2 and b.constants["alpha"] == 0.3
    assert a.internal.signature() == b.internal.signature()


def test_naive_softplus_is_rewritten_with_a_note_and_stays_finite():
    a = symnb.Activation("log(1 + exp(x))")
    assert any("softplus" in n for n in a.notes)
    k = a.compile(backend="numpy")
    y = k.forward(np.array([100.0, 1e4, -1e4], dtype=np.float32))
    np.testing.assert_allclose(y, [100.0, 1e4, 0.0], rtol=1e-6)


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
def test_log1p_of_exp_is_softplus_inside_a_product(backend):
    """x*log1p(exp(-x)) was -inf at x = -100 in float32 (exp(100) overflows; the
    value is -1e4): log1p(exp(u)) is rewritten as softplus(u). Values and
    derivatives against mpmath (60 digits)."""
    if backend == "cpp" and not status("cpp").usable:
        pytest.skip(f"cpp backend: {status('cpp').reason}")
    a = symnb.Activation("x*log1p(exp(-x))")
    assert any("log1p(exp(-x)) as softplus(-x)" in n for n in a.notes)
    xs = [-1e4, -100.0, -30.0, -3.0, -1e-3, 0.0, 0.5, 3.0, 30.0, 100.0]
    k = a.compile(backend=backend, dtype="float32")
    y, dy = k.forward_with_derivative(np.array(xs, np.float32))
    mpmath.mp.dps = 60
    for xi, yi, di in zip(xs, y, dy):
        t = mpmath.mpf(xi)
        f = lambda v: v * mpmath.log1p(mpmath.exp(-v))  # noqa: E731
        ref, dref = f(t), mpmath.diff(f, t)
        assert abs(yi - float(ref)) <= 2e-5 * abs(float(ref)) + 1e-6 * max(1, abs(xi))
        scale = max(1.0, abs(xi), abs(xi * float(dref)))
        assert abs(di - float(dref)) <= 2e-5 * abs(float(dref)) + 1e-6 * scale


def test_naive_sigmoid_and_log_cosh_are_stable_in_float32():
    k = symnb.Activation("1/(1 + exp(-x))").compile(backend="numpy")
    y, dy = k.forward_with_derivative(np.array([-100.0, 100.0, -1e4], dtype=np.float32))
    assert np.isfinite(y).all() and np.isfinite(dy).all()
    lc = symnb.Loss("log(cosh(y_pred - y_true))").compile(backend="numpy")
    assert np.isclose(
        lc.value(np.array([1e4], np.float32), np.array([0.0], np.float32)),
        1e4 - np.log(2),
        rtol=1e-6,
    )


def test_removable_singularity_at_zero_uses_the_limit():
    k = symnb.Activation("sin(x)/x").compile(backend="numpy", dtype="float64")
    y, dy = k.forward_with_derivative(np.array([0.0, 1e-3]))
    assert y[0] == 1.0 and dy[0] == 0.0
    np.testing.assert_allclose(y[1], np.sin(1e-3) / 1e-3)
    k2 = symnb.Activation("x*log(x)").compile(backend="numpy", dtype="float64")
    assert k2.forward(np.array([0.0]))[0] == 0.0


def test_abs_derivative_is_sign_without_re_im():
    a = symnb.Activation("abs(x)")
    assert not a.derivative.has(sp.re, sp.im, sp.Derivative)
    k = a.compile(backend="numpy")
    _, dy = k.forward_with_derivative(np.array([-2.0, 0.0, 3.0], np.float32))
    np.testing.assert_array_equal(dy, [-1.0, 0.0, 1.0])


def test_relu_via_max_has_zero_derivative_at_zero():
    k = symnb.Activation("max(0, x)").compile(backend="numpy")
    _, dy = k.forward_with_derivative(np.array([-1.0, 0.0, 1.0], np.float32))
    np.testing.assert_array_equal(dy, [0.0, 0.0, 1.0])


def test_step_surrogates_are_selectable_and_zero_warns():
    xs = np.array([0.0, 0.5], dtype=np.float64)
    k = symnb.Activation("heaviside(x)", surrogate="sigmoid").compile(
        "numpy", dtype="float64"
    )
    s = 1 / (1 + np.exp(-4 * xs))
    np.testing.assert_allclose(k.forward_with_derivative(xs)[1], 4 * s * (1 - s))
    with pytest.warns(UserWarning, match="will not learn"):
        z = symnb.Activation("heaviside(x)", surrogate="zero")
    assert z.derivative == 0
    with pytest.raises(FormulaError, match="surrogate"):
        symnb.Activation("heaviside(x)", surrogate="magic")


def test_floor_derivative_is_zero_with_warning():
    with pytest.warns(UserWarning, match="will not learn"):
        a = symnb.Activation("floor(x)")
    assert a.derivative == 0


@pytest.mark.parametrize(
    "text, learns",
    [
        ("floor(x)", False),
        ("ceiling(2*x)/2", False),
        ("x - floor(x)", True),
        (r"x \bmod 1", True),
        ("x*floor(x)", True),
    ],
)
def test_the_step_note_says_will_not_learn_only_when_f_prime_is_zero(text, learns):
    """``x - floor(x)`` (LaTeX ``x \bmod 1``) has slope 1 between its jumps, yet it was
    told "weights before them will not learn". The note follows the derivative, read
    here by central differences at points away from the jumps."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        act = symnb.Activation(text)
    warned = any("will not learn" in str(w.message) for w in caught)
    kernel = act.compile("numpy", dtype="float64")
    xs = np.array([-2.7, -1.3, 0.25, 1.6, 3.3])
    h = 1e-6
    slope = (kernel(xs + h) - kernel(xs - h)) / (2 * h)
    assert bool(np.any(np.abs(slope) > 1e-3)) is learns
    assert warned is not learns
    assert any("floor/ceiling" in n for n in act.notes)
    np.testing.assert_allclose(kernel.forward_with_derivative(xs)[1], slope, atol=1e-6)


def test_user_given_derivative_is_used():
    a = symnb.Activation("x**3", derivative="3*x**2 + 1")
    k = a.compile("numpy", dtype="float64")
    assert k.forward_with_derivative(np.array([2.0]))[1][0] == 13.0


def test_derivative_explosion_is_refused_before_compiling():
    text = "x"
    for _ in range(9):
        text = f"sin({text})*exp({text})"
    with pytest.raises(FormulaError, match="operations|could not"):
        symnb.Activation(text)


def test_learnable_constant_marks_and_values():
    a = symnb.Activation("x*sigmoid(beta*x)", beta=symnb.learnable(1.5, per="neuron"))
    assert a.constants == {"beta": 1.5}
    assert a.learnable["beta"].per == "neuron"
    with pytest.raises(ValueError, match="per"):
        symnb.learnable(1.0, per="everything")


def test_loss_is_in_y_pred_and_y_true():
    lo = symnb.Loss("(y_pred - y_true)**2", name="my_mse")
    yp, yt = sp.symbols("y_pred y_true", real=True)
    assert sp.simplify(lo.derivative - 2 * (yp - yt)) == 0
    with pytest.raises(FormulaError):
        symnb.Loss("(x - y_true)**2")


def test_accepts_sympy_expressions():
    xs = sp.Symbol("x")
    a = symnb.Activation(xs * sp.tanh(xs))
    assert a.expr == x * sp.tanh(x)


def test_import_symnb_without_ipython_or_ipywidgets():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('IPython', 'ipywidgets', 'matplotlib'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import numpy as np, symnb\n"
        "k = symnb.activation('gelu').compile(backend='numpy')\n"
        "print(k.forward(np.array([1.0], dtype=np.float32))[0])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert abs(float(out.stdout) - 0.8413447) < 1e-5


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_cosh_is_finite_and_exact_up_to_the_float_range_of_both_signs(backend, dtype):
    """log(cosh(u)) is even: the stable form must not overflow at u = -max (it did, as
    u + softplus(-2u) - log 2), nor cancel near 0. Reference: mpmath at 120 digits."""
    if not status(backend).usable:
        pytest.skip(f"{backend} backend not usable here: {status(backend).reason}")
    big = float(np.finfo(dtype).max)
    u = np.array(
        [-big, -1e30, -1e4, -3.0, -1.0, -0.999, -1e-3, -1e-20, 0.0, 1e-3, 0.5, 1.001, 3.0,
         1e4, 1e30, big],
        dtype,
    )
    lc = symnb.Loss("log(cosh(y_pred - y_true))").compile(backend=backend, dtype=dtype)
    zero = np.zeros(1, dtype)
    with mpmath.workdps(120):  # cosh(1e-20) = 1 + 5e-41: 50 digits would leave 9
        for ui in u:
            v = lc.value(np.array([ui], dtype), zero)
            g = lc.gradient(np.array([ui], dtype), zero)[0]
            m = mpmath.mpf(float(ui))
            ref_v = float(mpmath.log(mpmath.cosh(m)))
            ref_g = float(mpmath.tanh(m))
            assert np.isfinite(v) and np.isfinite(g), (ui, v, g)
            rel = 2e-5 if dtype == "float32" else 1e-9
            # relative everywhere: near 0 the value is u^2/2, and a form that cancels
            # (|u| + softplus(-2|u|) - log 2) loses every digit there
            rel_v = 1e-6 if dtype == "float32" else 1e-14
            tiny = float(np.finfo(dtype).smallest_subnormal)  # u^2/2 can be subnormal
            assert abs(v - ref_v) <= rel_v * abs(ref_v) + tiny, (ui, v, ref_v)
            assert abs(g - ref_g) <= rel * abs(ref_g) + 1e-12, (ui, g, ref_g)


@pytest.mark.parametrize(
    "text, f, df",
    [
        # the "stable" spellings: exact at the kink of their parts
        ("max(x, 0) + log(1 + exp(-abs(x)))", lambda x: np.logaddexp(0, x),
         lambda x: 1 / (1 + np.exp(-x))),
        ("min(x, 0) - log1p(exp(-abs(x)))", lambda x: -np.logaddexp(0, -x),
         lambda x: 1 / (1 + np.exp(x))),
        ("3*max(-x, 0) + 3*log(exp(-abs(x)) + 1)", lambda x: 3 * np.logaddexp(0, -x),
         lambda x: -3 / (1 + np.exp(x))),
        ("Max(x, 0) + Min(x, 0)", lambda x: x, lambda x: np.ones_like(x)),
        ("Max(x, 0) - Max(-x, 0)", lambda x: x, lambda x: np.ones_like(x)),
    ],
)
def test_smooth_sums_of_kinked_parts_have_the_exact_derivative_at_the_kink(
    text, f, df
) -> None:
    """Differentiated part by part, max(x,0) and |x| take relu'(0) = |.|'(0) = 0, so
    the stable softplus spelling had f'(0) = 0 instead of 0.5; now its sum is one
    smooth term (a note says so). f and f' against float64 on both backends, x = 0
    included."""
    import symnb
    from symnb.backends import status

    act = symnb.Activation(text)
    assert any("no kink" in n for n in act.notes), act.notes
    x = np.array([0.0, -0.0, 1e-8, -3.0, 3.0, -40.0, 40.0])
    backends = ["numpy"] + (["cpp"] if status("cpp").usable else [])
    for backend in backends:
        y, dy = act.compile(backend=backend, dtype="float64").forward_with_derivative(x)
        assert np.allclose(y, f(x), rtol=1e-12, atol=1e-300), (backend, y)
        assert np.allclose(dy, df(x), rtol=1e-12, atol=1e-300), (backend, dy)


def test_stable_bce_with_logits_gradient_at_a_zero_logit_matches_pytorch() -> None:
    """max(z,0) - z*y + log(1 + exp(-|z|)) (PyTorch's own formula for BCE with logits):
    its gradient at z = 0 is sigmoid(0) - y = +0.25 for y = 0.25 (was -0.25, the wrong
    sign, at the zero logits common at initialisation)."""
    import symnb
    from symnb.backends import status

    loss = symnb.Loss("max(y_pred, 0) - y_pred*y_true + log(1 + exp(-abs(y_pred)))")
    z = np.array([0.0, 0.0, 2.0, -2.0])
    t = np.array([0.25, 1.0, 0.0, 1.0])
    # d/dz of the mean BCE with logits (PyTorch's default reduction), by definition
    want = (1 / (1 + np.exp(-z)) - t) / z.size
    backends = ["numpy"] + (["cpp"] if status("cpp").usable else [])
    for backend in backends:
        got = loss.compile(backend=backend, dtype="float64").gradient(z, t)
        assert np.allclose(got, want, rtol=1e-12), (backend, got)


def test_kinked_sum_that_is_not_smooth_keeps_its_parts() -> None:
    """max(x,0) + log(1 + exp(-|2x|)) is not softplus (a real kink at 0): no rewrite."""
    import symnb

    act = symnb.Activation("max(x, 0) + log(1 + exp(-abs(2*x)))")
    assert not any("no kink" in n for n in act.notes)
    assert act.expr.has(sp.Max)


@pytest.mark.parametrize(
    "text, ref",
    [
        # cloglog's inverse link: 1 - exp(-exp(x)) was 0 for x < -17 (float32)
        ("1 - exp(-exp(x))", lambda v: -mpmath.expm1(-mpmath.exp(v))),
        ("2 - 2*exp(x)", lambda v: -2 * mpmath.expm1(v)),
        # sigmoid spelled with tanh: 0 at x = -20 in float32 (true 2e-9)
        ("(1 + tanh(x/2))/2", lambda v: 1 / (1 + mpmath.exp(-v))),
        ("0.5 - 0.5*tanh(x)", lambda v: 1 / (1 + mpmath.exp(2 * v))),
        ("tanh(x) - 1", lambda v: mpmath.tanh(v) - 1),
        ("(1 + erf(x/sqrt(2)))/2", lambda v: mpmath.ncdf(v)),
        ("3 - 3*erf(x)", lambda v: 3 * mpmath.erfc(v)),
        # LeCun's tanh: f' = c - c*tanh^2 was 0 at x = -20 (true 1.2e-11)
        ("1.7159*tanh(2*x/3)", lambda v: mpmath.mpf("1.7159") * mpmath.tanh(2 * v / 3)),
    ],
)
def test_scaled_unit_sums_do_not_cancel_in_the_tail(text, ref) -> None:
    """c + m*f(u) with c = +-m (f = exp, tanh, erf) is m*expm1, a sigmoid or an erfc; a
    derivative c - c*tanh(u)^2 is c/cosh(u)^2. f and f' in float32 on both backends, to
    a few ulps of mpmath in the tails where the spelled-out forms cancelled to 0."""
    act = symnb.Activation(text)
    x = np.array([-100, -40, -20, -5, -0.5, 0, 0.5, 3, 20], dtype=np.float32)
    backends = ["numpy"] + (["cpp"] if status("cpp").usable else [])
    for backend in backends:
        y, dy = act.compile(backend=backend, dtype="float32").forward_with_derivative(x)
        for v, yi, di in zip(x.tolist(), y.tolist(), dy.tolist()):
            with mpmath.workdps(50):
                want = float(ref(mpmath.mpf(v)))
                dwant = float(mpmath.diff(ref, mpmath.mpf(v)))
            if abs(want) < 3e38:
                assert abs(yi - want) <= 4e-6 * abs(want) + 1e-38, (backend, v, yi, want)
                assert abs(di - dwant) <= 4e-6 * abs(dwant) + 1e-38, (backend, v, di, dwant)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_derivative_terms_with_one_base_are_combined(dtype) -> None:
    """ISRU x/sqrt(1 + a x^2): SymPy's f' = (1 + a x^2)^(-1/2) - a x^2 (1 + a x^2)^(-3/2)
    cancelled, every digit lost from |x| ~ 1e4 in float32 and the wrong sign at 1e5
    (-9.6e-13 for 2.8e-15). Combined over the common base it is (1 + a x^2)^(-3/2);
    x*(1 + x^2)^(-1/3) likewise. Against mpmath on both backends."""
    cases = [
        ("x/sqrt(1 + a*x**2)", {"a": 0.5},
         lambda v: (1 + mpmath.mpf("0.5") * v**2) ** mpmath.mpf(-1.5)),
        ("x*(1 + x**2)**(-1/3)", {},
         lambda v: (v**2 / 3 + 1) / (v**2 + 1) ** (mpmath.mpf(4) / 3)),
    ]
    x = np.array([-1e8, -1e5, -30.0, -0.5, 0.0, 2.0, 1e4, 1e5, 1e8], dtype=dtype)
    backends = ["numpy"] + (["cpp"] if status("cpp").usable else [])
    rel = 1e-5 if dtype == "float32" else 1e-12
    for text, consts, dref in cases:
        act = symnb.Activation(text, **consts)
        for backend in backends:
            _, dy = act.compile(backend=backend, dtype=dtype).forward_with_derivative(x)
            for v, d in zip(x.tolist(), dy.tolist()):
                with mpmath.workdps(60):
                    want = float(dref(mpmath.mpf(v)))
                assert abs(d - want) <= rel * abs(want), (text, backend, dtype, v, d, want)


@pytest.mark.parametrize(
    ("cls", "text", "constants"),
    [
        (symnb.Activation, "2", {}),
        (symnb.Activation, "c*pi", {"c": 1.5}),
        (symnb.Loss, "y_true**2", {}),
        (symnb.Loss, "log(1 + exp(-y_true))", {}),
    ],
)
def test_a_formula_without_its_input_warns_that_nothing_learns(cls, text, constants):
    """A loss that does not depend on y_pred (or an activation without x) has a zero
    gradient everywhere: it was accepted silently and training did nothing. Its
    compiled derivative is 0 at every point, and the user is told why."""
    with pytest.warns(UserWarning, match="will not learn"):
        obj = cls(text, **constants)
    kernel = obj.compile(backend="numpy", dtype="float64")
    x = np.array([-3.0, 0.0, 0.5, 7.0])
    if cls is symnb.Loss:
        grad = kernel.gradient(x, np.array([1.0, 0.0, -1.0, 2.0]))
    else:
        grad = kernel.forward_with_derivative(x)[1]
    np.testing.assert_array_equal(grad, np.zeros_like(x))


@pytest.mark.parametrize(
    ("cls", "text"),
    [(symnb.Activation, "x*0.5 + 1"), (symnb.Loss, "(y_pred - y_true)**2")],
)
def test_a_formula_of_its_input_does_not_warn(cls, text):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cls(text)
