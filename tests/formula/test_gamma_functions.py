"""The gamma family (lgamma, gamma, digamma) as users paste it: every spelling, f and
f' on every backend against SciPy and PyTorch, the poles as SciPy/PyTorch give them,
LaTeX, and the formulas it was asked for (Student-t's normaliser with a learnable nu,
Poisson's log(y!)). Before: 'unknown function' / 'has no symnb equivalent'."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sc

import symnb
from symnb.errors import FormulaError
from tests.conftest import backend_params

torch = pytest.importorskip("torch")

# away from the poles and from digamma's negative roots (relative accuracy there is
# a property of the reflection's cancellation: tests/codegen/test_gamma_c.py)
XS = np.array([-3.7, -2.2, -0.6, 0.03, 0.5, 1.0, 1.46, 2.0, 3.3, 7.9, 25.0, 170.2])

SPELLINGS = {
    "lgamma(x)": "lgamma",
    "torch.lgamma(x)": "lgamma",
    "torch.special.gammaln(x)": "lgamma",
    "scipy.special.gammaln(x)": "lgamma",
    "gammaln(x)": "lgamma",
    "math.lgamma(x)": "lgamma",
    "jax.scipy.special.gammaln(x)": "lgamma",
    "x.lgamma()": "lgamma",
    "gamma(x)": "gamma",
    "tgamma(x)": "gamma",
    "math.gamma(x)": "gamma",
    "scipy.special.gamma(x)": "gamma",
    "digamma(x)": "digamma",
    "psi(x)": "digamma",
    "torch.digamma(x)": "digamma",
    "torch.special.digamma(x)": "digamma",
    "torch.special.psi(x)": "digamma",
    "scipy.special.digamma(x)": "digamma",
    "scipy.special.psi(x)": "digamma",
    "x.digamma()": "digamma",
}

# SciPy: value and derivative (d lgamma = psi, d gamma = gamma psi, d psi = psi_1)
SCIPY = {
    "lgamma": (sc.gammaln, sc.psi),
    "gamma": (sc.gamma, lambda x: sc.gamma(x) * sc.psi(x)),
    "digamma": (sc.psi, lambda x: sc.polygamma(1, x)),
}
TORCH = {"lgamma": torch.lgamma, "gamma": None, "digamma": torch.digamma}

TOL = {"float32": 3e-5, "float64": 1e-12}


@pytest.mark.parametrize("text", list(SPELLINGS))
def test_spelling_reads_as_the_function(text):
    k = symnb.Activation(text).compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(
        k.forward(XS.copy()), SCIPY[SPELLINGS[text]][0](XS), rtol=1e-13, err_msg=text
    )


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("which", list(SCIPY))
def test_value_and_derivative_match_scipy(which, dtype, backend):
    xs = XS[XS < 30] if which == "gamma" and dtype == "float32" else XS
    k = symnb.Activation(f"{which}(x)").compile(backend=backend, dtype=dtype)
    f, df = k.forward_with_derivative(xs.astype(dtype))
    ref_f, ref_df = (g(xs) for g in SCIPY[which])
    np.testing.assert_allclose(f, ref_f, rtol=TOL[dtype])
    np.testing.assert_allclose(df, ref_df, rtol=TOL[dtype] * 10)


@pytest.mark.parametrize(("which", "rtol"), [("lgamma", 1e-12), ("digamma", 1e-8)])
def test_derivative_matches_pytorch_autograd(which, rtol):
    """PyTorch's own trigamma (digamma's backward) is good to about 5e-10 relative
    (trigamma(1) = pi^2/6 = 1.6449340668482264: PyTorch 1.6449340676383375)."""
    t = torch.tensor(XS, dtype=torch.float64, requires_grad=True)
    TORCH[which](t).sum().backward()
    k = symnb.Activation(f"{which}(x)").compile(backend="numpy", dtype="float64")
    _, df = k.forward_with_derivative(XS.copy())
    np.testing.assert_allclose(df, t.grad.numpy(), rtol=rtol)


POLES = np.array([0.0, -0.0, -1.0, -2.0, -1e20, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_poles_and_infinities_as_pytorch_and_scipy(dtype, backend):
    """lgamma +inf at the poles and at -inf (PyTorch, C); gamma +-inf at +-0 and NaN
    at the negative integers and -inf (SciPy); digamma -inf at +0, +inf at -0, NaN at
    the negative integers and -inf (SciPy and PyTorch agree)."""
    xs = POLES.astype(dtype)
    lg = symnb.Activation("lgamma(x)").compile(backend=backend, dtype=dtype)
    np.testing.assert_array_equal(
        lg.forward(xs.copy()), torch.lgamma(torch.tensor(xs)).numpy()
    )
    g = symnb.Activation("gamma(x)").compile(backend=backend, dtype=dtype)
    np.testing.assert_array_equal(g.forward(xs.copy()), sc.gamma(xs))
    dg = symnb.Activation("digamma(x)").compile(backend=backend, dtype=dtype)
    np.testing.assert_array_equal(
        dg.forward(xs.copy()), torch.digamma(torch.tensor(xs)).numpy()
    )
    # digamma' = trigamma: +inf at the poles (SciPy's polygamma(1, .)), 0 at +inf
    _, d1 = dg.forward_with_derivative(xs[:5].copy())
    np.testing.assert_array_equal(d1, sc.polygamma(1, xs[:5].astype(np.float64)))


@pytest.mark.parametrize("backend", backend_params())
def test_subnormal_arguments(backend):
    """lgamma(1e-320) = 736.8 (C and PyTorch; SciPy's gammaln gives inf there)."""
    xs = np.array([1e-320, -1e-320, 5e-324])
    k = symnb.Activation("lgamma(x)").compile(backend=backend, dtype="float64")
    np.testing.assert_allclose(
        k.forward(xs.copy()), torch.lgamma(torch.tensor(xs)).numpy(), rtol=1e-14
    )


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_student_t_normaliser_learns_nu(dtype, backend):
    """-log of Student-t's density with a learnable nu: d/dnu by central finite
    differences of SciPy's log-pdf (an independent formula)."""
    from scipy import stats

    text = (
        "-(lgamma((nu + 1)/2) - lgamma(nu/2) - log(nu*pi)/2"
        " - (nu + 1)/2*log(1 + x**2/nu))"
    )
    nu = 3.5
    act = symnb.Activation(text, nu=symnb.learnable(nu))
    k = act.compile(backend=backend, dtype=dtype)
    xs = np.array([-4.0, -1.0, 0.0, 0.3, 2.0, 9.0])
    np.testing.assert_allclose(
        k.forward(xs.astype(dtype)), -stats.t.logpdf(xs, nu), rtol=TOL[dtype] * 10
    )
    h = 1e-5
    fd = -(stats.t.logpdf(xs, nu + h) - stats.t.logpdf(xs, nu - h)) / (2 * h)
    grads = k.constant_gradient(xs.astype(dtype), np.ones_like(xs, dtype=dtype))
    np.testing.assert_allclose(grads["nu"], np.sum(fd), rtol=1e-5)


@pytest.mark.parametrize("backend", backend_params())
def test_poisson_nll_with_log_factorial(backend):
    """Poisson's -log p(y | rate) = rate - y log(rate) + log(y!), log(y!) = lgamma(y+1);
    reference: SciPy's poisson.logpmf."""
    from scipy import stats

    loss = symnb.Loss("y_pred - y_true*log(y_pred) + torch.lgamma(y_true + 1)")
    k = loss.compile(backend=backend, dtype="float64")
    rate = np.array([0.5, 1.0, 3.0, 10.0, 40.0])
    y = np.array([0.0, 2.0, 3.0, 7.0, 55.0])
    reference = -stats.poisson.logpmf(y, rate)
    assert k.value(rate.copy(), y.copy()) == pytest.approx(reference.mean(), rel=1e-12)
    # d/drate = 1 - y/rate (lgamma(y + 1) does not depend on the prediction)
    np.testing.assert_allclose(
        k.gradient(rate.copy(), y.copy()), (1 - y / rate) / rate.size, rtol=1e-12
    )


def test_latex():
    assert symnb.Activation("lgamma(x)").latex == r"\ln\Gamma\left(x\right)"
    assert symnb.Activation("gamma(x)").latex == r"\Gamma\left(x\right)"
    assert symnb.Activation("digamma(x)").latex == r"\psi\left(x\right)"
    assert r"\psi_1\left(x\right)" in symnb.Activation("digamma(x)").derivative_latex


def test_a_constant_named_gamma_stays_a_constant():
    a = symnb.Activation("gamma*x", gamma=2.0)
    k = a.compile(backend="numpy", dtype="float64")
    assert k.forward(np.array([3.0]))[0] == 6.0
    with pytest.raises(FormulaError, match="'gamma' is not a function"):
        symnb.Activation("gamma(x)", gamma=2.0)


@pytest.mark.parametrize("text", ["lgamma(0)", "gamma(-2)", "digamma(-1) + x"])
def test_a_constant_at_a_pole_is_refused(text):
    with pytest.raises(FormulaError, match="not a finite real number"):
        symnb.Activation(text)


def test_numbers_are_evaluated():
    a = symnb.Activation("x + lgamma(3.5) + digamma(2)")
    k = a.compile(backend="numpy", dtype="float64")
    expected = 1.0 + sc.gammaln(3.5) + sc.psi(2.0)
    assert k.forward(np.array([1.0]))[0] == pytest.approx(expected, rel=1e-15)


def test_jax_interop_matches_scipy():
    pytest.importorskip("jax")
    import jax
    import jax.numpy as jnp

    from symnb.interop.jax import to_jax

    f = to_jax(symnb.Activation("lgamma(x) + digamma(x) + gamma(x/4)"))
    xs = np.array([0.5, 1.5, 3.0, -2.5])
    np.testing.assert_allclose(
        f(jnp.array(xs, dtype=jnp.float32)),
        sc.gammaln(xs) + sc.psi(xs) + sc.gamma(xs / 4),
        rtol=1e-5,
    )
    np.testing.assert_allclose(
        jax.vmap(jax.grad(f))(jnp.array(xs, dtype=jnp.float32)),
        sc.psi(xs) + sc.polygamma(1, xs) + sc.gamma(xs / 4) * sc.psi(xs / 4) / 4,
        rtol=1e-5,
    )


def test_numba_interop_says_digamma_is_missing():
    pytest.importorskip("numba")
    from symnb.interop.numba import to_numba

    with pytest.raises(FormulaError, match="digamma .*numba's math"):
        to_numba(symnb.Activation("lgamma(x)"))


def test_numpy_backend_without_scipy(monkeypatch):
    """SciPy is optional: math.lgamma/math.gamma element by element, the same values
    (poles included)."""
    from symnb.backends import numpy_gamma

    xs = np.array(
        [-3.7, -0.6, 0.5, 2.0, 30.5, 0.0, -0.0, -2.0, np.inf, -np.inf, np.nan]
    )
    with_scipy = (numpy_gamma.lgamma(xs), numpy_gamma.tgamma(xs))
    monkeypatch.setattr(numpy_gamma, "_special", None)
    np.testing.assert_allclose(numpy_gamma.lgamma(xs), with_scipy[0], rtol=1e-14)
    np.testing.assert_allclose(numpy_gamma.tgamma(xs), with_scipy[1], rtol=1e-14)
    assert numpy_gamma.lgamma(np.array([1.0, 3.0], np.float32)).dtype == np.float32
