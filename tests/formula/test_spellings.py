"""Formulas pasted from NumPy, PyTorch, JAX, SciPy and math code read as symnb's functions.

Each spelling is judged against the library it names, evaluated here (values in float64,
derivatives by PyTorch autograd or a central difference of that library's function),
so a wrong mapping (JAX's gelu is the tanh approximation, NumPy's sinc is normalised)
fails. Before this change every ``module.name(...)`` was refused as attribute access.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special
import scipy.stats

import symnb
from symnb.errors import FormulaError

# away from the kinks (0, -3, 3) so central differences are a fair reference
XS = np.array([-7.5, -3.3, -1.0, -0.4, 0.3, 0.9, 1.7, 4.0, 12.0])

torch = pytest.importorskip("torch", reason="torch extra not installed")
F = torch.nn.functional


def _torch_ref(fn):
    def ref(x):
        t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        y = fn(t)
        (g,) = torch.autograd.grad(y.sum(), t)
        return y.detach().numpy(), g.numpy()

    return ref


def _numpy_ref(fn):
    def ref(x):
        h = 1e-6 * np.maximum(1.0, np.abs(x))
        return fn(x), (fn(x + h) - fn(x - h)) / (2 * h)

    return ref


def _jax_ref(fn):
    jax = pytest.importorskip("jax", reason="jax extra not installed")
    jax.config.update("jax_enable_x64", True)

    def ref(x):
        xs = jax.numpy.asarray(x, dtype=jax.numpy.float64)
        return np.asarray(fn(xs)), np.asarray(jax.vmap(jax.grad(fn))(xs))

    return ref


CASES = {
    "x*np.clip(x + 3, 0, 6)/6": _numpy_ref(lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "np.minimum(np.maximum(x, 0), 6)": _numpy_ref(
        lambda x: np.minimum(np.maximum(x, 0), 6)
    ),
    "torch.relu(x)": _torch_ref(torch.relu),
    "x*torch.sigmoid(1.702*x)": _torch_ref(lambda t: t * torch.sigmoid(1.702 * t)),
    "x*0.5*(1 + math.erf(x/math.sqrt(2)))": _torch_ref(
        lambda t: t * 0.5 * (1 + torch.erf(t / math.sqrt(2)))
    ),
    "x - np.tanh(x)": _numpy_ref(lambda x: x - np.tanh(x)),
    "np.sinc(x)": _numpy_ref(np.sinc),
    "torch.sinc(x)": _torch_ref(torch.sinc),
    "F.silu(x)": _torch_ref(F.silu),
    "F.mish(x)": _torch_ref(F.mish),
    "F.elu(x)": _torch_ref(F.elu),
    "F.selu(x)": _torch_ref(F.selu),
    "F.hardswish(x)": _torch_ref(F.hardswish),
    "F.logsigmoid(x)": _torch_ref(F.logsigmoid),
    "F.softsign(x)": _torch_ref(F.softsign),
    "F.gelu(x)": _torch_ref(F.gelu),
    "torch.nn.functional.softplus(x)": _torch_ref(F.softplus),
    "torch.where(x > 0, x, 0.5*(torch.exp(x) - 1))": _torch_ref(
        lambda t: torch.where(t > 0, t, 0.5 * torch.expm1(t))
    ),
    # keyword and positional constants, PyTorch's names (kinks away from XS)
    "x*torch.clamp(x + 3, min=0, max=6)/6": _torch_ref(
        lambda t: t * torch.clamp(t + 3, min=0, max=6) / 6
    ),
    "torch.clamp(x, min=0.1)": _torch_ref(lambda t: torch.clamp(t, min=0.1)),
    "np.clip(x, a_min=-2, a_max=2)": _torch_ref(lambda t: torch.clamp(t, -2, 2)),
    "F.elu(x, alpha=0.5)": _torch_ref(lambda t: F.elu(t, alpha=0.5)),
    "F.leaky_relu(x, negative_slope=0.3)": _torch_ref(
        lambda t: F.leaky_relu(t, negative_slope=0.3)
    ),
    "F.softplus(x, 2, 10)": _torch_ref(lambda t: F.softplus(t, 2, 10)),
    "F.softshrink(x, 0.35)": _torch_ref(lambda t: F.softshrink(t, 0.35)),
    "F.celu(x, alpha=2.0)": _torch_ref(lambda t: F.celu(t, alpha=2.0)),
    "F.hardtanh(x, -2.0, 2.0)": _torch_ref(lambda t: F.hardtanh(t, -2.0, 2.0)),
    "np.logaddexp(0, x)": _numpy_ref(lambda x: np.logaddexp(0, x)),
    "np.logaddexp(x, 2*x)": _numpy_ref(lambda x: np.logaddexp(x, 2 * x)),
    "np.square(x) + np.power(x, 3)": _numpy_ref(lambda x: np.square(x) + x**3),
    "x*scipy.special.ndtr(x)": _numpy_ref(lambda x: x * scipy.special.ndtr(x)),
    "x*scipy.special.expit(x)": _numpy_ref(lambda x: x * scipy.special.expit(x)),
    "x*Phi(x)": _numpy_ref(lambda x: x * scipy.special.ndtr(x)),
    "x*expit(x)": _numpy_ref(lambda x: x * scipy.special.expit(x)),
    "x*logistic(x)": _numpy_ref(lambda x: x * scipy.special.expit(x)),
    "fabs(x)*np.pi + math.e": _numpy_ref(lambda x: np.abs(x) * np.pi + np.e),
    "jnp.tanh(x)*jax.nn.sigmoid(x)": "jax:tanh_sigmoid",
    "jax.nn.gelu(x)": "jax:gelu",
    "jax.nn.swish(x)": "jax:swish",
    # the libraries' approximate= argument chooses the GELU (PyTorch 'none'/'tanh',
    # JAX and TensorFlow False/True; TensorFlow's tanh form is PyTorch's formula)
    "F.gelu(x, approximate='tanh')": _torch_ref(
        lambda t: F.gelu(t, approximate="tanh")
    ),
    "F.gelu(x, approximate='none')": _torch_ref(
        lambda t: F.gelu(t, approximate="none")
    ),
    "gelu(x, approximate='tanh')": _torch_ref(lambda t: F.gelu(t, approximate="tanh")),
    "tf.nn.gelu(x, approximate=True)": _torch_ref(
        lambda t: F.gelu(t, approximate="tanh")
    ),
    "jax.nn.gelu(x, approximate=False)": "jax:gelu_exact",
    "jax.nn.gelu(x, False)": "jax:gelu_exact",
    # Keras 3's keras.ops.gelu defaults to approximate=True (JAX's formula)
    "keras.ops.gelu(x)": "jax:gelu",
    "keras.activations.gelu(x)": _torch_ref(F.gelu),
    "x*tf.keras.activations.sigmoid(x)": _torch_ref(F.silu),
    # SciPy's standard normal CDF (GELU = x*Phi(x))
    "x*scipy.stats.norm.cdf(x)": _numpy_ref(lambda x: x * scipy.stats.norm.cdf(x)),
    "x*norm.cdf(x)": _numpy_ref(lambda x: x * scipy.stats.norm.cdf(x)),
    "x*stats.norm.cdf(x)": _numpy_ref(lambda x: x * scipy.stats.norm.cdf(x)),
    # one bound of a clamp, None for no bound, in-place flags, more spellings
    "torch.clamp(x, 0)": _torch_ref(lambda t: torch.clamp(t, 0)),
    "np.clip(x, -1.5, None)": _numpy_ref(lambda x: np.clip(x, -1.5, None)),
    "np.clip(x, None, 2.0)": _numpy_ref(lambda x: np.clip(x, None, 2.0)),
    "F.relu(x, inplace=True)": _torch_ref(torch.relu),
    "F.elu(x, alpha=0.5, inplace=False)": _torch_ref(lambda t: F.elu(t, alpha=0.5)),
    "F.leaky_relu(x, 0.2, True)": _torch_ref(lambda t: F.leaky_relu(t, 0.2)),
    "torch.nn.functional.relu(x, True)": _torch_ref(torch.relu),
    "F.hardtanh(x, -2.0, 2.0, False)": _torch_ref(lambda t: F.hardtanh(t, -2.0, 2.0)),
    "F.threshold(x, 0.1, 20.0, True)": _torch_ref(lambda t: F.threshold(t, 0.1, 20.0)),
    "F.celu(x, 0.5, True)": _torch_ref(lambda t: F.celu(t, 0.5)),
    "torch.max(x, 0.25*x)": _torch_ref(lambda t: torch.max(t, 0.25 * t)),
    # SymPy's Max/Min are elementwise (were refused as reductions over the batch)
    "sp.Max(x, 0) + sympy.Min(x, 0.5*x)": _numpy_ref(
        lambda x: np.maximum(x, 0) + np.minimum(x, 0.5 * x)
    ),
    "np.fmax(x, 0.5*x) + np.fmin(x, 0)": _numpy_ref(
        lambda x: np.fmax(x, 0.5 * x) + np.fmin(x, 0)
    ),
    "np.hypot(x, 1.5)": _numpy_ref(lambda x: np.hypot(x, 1.5)),
    "np.exp2(x/4)": _numpy_ref(lambda x: np.exp2(x / 4)),
    "np.reciprocal(1 + x**2)": _numpy_ref(lambda x: np.reciprocal(1 + x**2)),
    "torch.rsqrt(1 + x**2)": _torch_ref(lambda t: torch.rsqrt(1 + t**2)),
    "torch.special.logit(1/(2 + x**2))": _torch_ref(
        lambda t: torch.special.logit(1 / (2 + t**2))
    ),
    "F.hardshrink(x)": _torch_ref(F.hardshrink),
    "F.hardshrink(x, lambd=0.35)": _torch_ref(lambda t: F.hardshrink(t, lambd=0.35)),
    "F.threshold(x, 0.1, 20.0)": _torch_ref(lambda t: F.threshold(t, 0.1, 20.0)),
    "jax.nn.squareplus(x)": "jax:squareplus",
    "jax.nn.squareplus(x, b=1.5)": "jax:squareplus_1.5",
    "jax.nn.sparse_plus(x)": "jax:sparse_plus",
    # the log of the normal CDF (symnb.formula.log_erfc: exact where ndtr rounds)
    "torch.special.log_ndtr(x)": _torch_ref(torch.special.log_ndtr),
    "scipy.special.log_ndtr(x)": _numpy_ref(scipy.special.log_ndtr),
    "log_ndtr(2*x)": _numpy_ref(lambda x: scipy.special.log_ndtr(2 * x)),
    "scipy.stats.norm.logcdf(x)": _numpy_ref(scipy.stats.norm.logcdf),
    "jax.scipy.special.log_ndtr(x)": "jax:log_ndtr",
    # x*log(y) and -u*log(u), 0 where the factor is 0 (were "no symnb equivalent")
    "torch.special.xlogy(x, 1 + x**2)": _torch_ref(
        lambda t: torch.special.xlogy(t, 1 + t**2)
    ),
    "xlogy(x, 2 + sin(x))": _torch_ref(lambda t: torch.xlogy(t, 2 + torch.sin(t))),
    "scipy.special.xlog1py(x, x**2)": _numpy_ref(
        lambda x: scipy.special.xlog1py(x, x**2)
    ),
    # calls with options (spellings.WITH_OPTIONS), given where they are given
    "keras.activations.relu(x, negative_slope=0.1, max_value=6.0, threshold=0.5)": (
        _numpy_ref(lambda x: _keras_relu(x, 0.1, 6.0, 0.5))
    ),
    "keras.activations.relu(x, max_value=6)": _torch_ref(F.relu6),
    "tf.nn.leaky_relu(x, alpha=0.3)": _torch_ref(lambda t: F.leaky_relu(t, 0.3)),
    "keras.ops.leaky_relu(x, negative_slope=0.2)": _torch_ref(
        lambda t: F.leaky_relu(t, 0.2)
    ),
    "tf.nn.silu(x, beta=1.5)": _torch_ref(lambda t: t * torch.sigmoid(1.5 * t)),
    "torch.clamp_min(x, 0.5) + torch.clamp_max(x, max=2.0)": _torch_ref(
        lambda t: torch.clamp_min(t, 0.5) + torch.clamp_max(t, max=2.0)
    ),
    "np.copysign(1.5, x)*x + np.negative(x) + np.float_power(1 + x**2, 0.5)": (
        _numpy_ref(
            lambda x: np.copysign(1.5, x) * x - x + np.float_power(1 + x**2, 0.5)
        )
    ),
    "jax.lax.max(x, 0.1*x) + jax.lax.logistic(x)": _numpy_ref(
        lambda x: np.maximum(x, 0.1 * x) + scipy.special.expit(x)
    ),
    "keras.ops.soft_shrink(x) + keras.ops.hard_shrink(x) + keras.ops.tanh_shrink(x)": (
        _torch_ref(lambda t: F.softshrink(t) + F.hardshrink(t) + F.tanhshrink(t))
    ),
    "keras.activations.exponential(x/4) + keras.activations.linear(x)": _numpy_ref(
        lambda x: np.exp(x / 4) + x
    ),
    "scipy.special.exprel(x/4)": _numpy_ref(lambda x: scipy.special.exprel(x / 4)),
    "torch.special.erfcx(x/4)": _torch_ref(lambda t: torch.special.erfcx(t / 4)),
    "torch.special.entr(1/(1 + x**2))": _torch_ref(
        lambda t: torch.special.entr(1 / (1 + t**2))
    ),
    # refused before h91 ("has no symnb equivalent", "has no argument 'threshold'")
    "scipy.special.rel_entr(1/(1 + x**2), 0.25)": _numpy_ref(
        lambda x: scipy.special.rel_entr(1 / (1 + x**2), 0.25)
    ),
    "np.logaddexp2(0, x) + np.logaddexp2(x, -x/2)": _numpy_ref(
        lambda x: np.logaddexp2(0, x) + np.logaddexp2(x, -x / 2)
    ),
    # JAX's documented formula (kinks at x/5 = +-1, away from XS)
    "jax.nn.sparse_sigmoid(x/5)": _numpy_ref(lambda x: np.clip((x / 5 + 1) / 2, 0, 1)),
    "keras.ops.soft_shrink(x, threshold=0.35)": _torch_ref(
        lambda t: F.softshrink(t, 0.35)
    ),
    "keras.ops.hard_shrink(x, threshold=0.35)": _torch_ref(
        lambda t: F.hardshrink(t, 0.35)
    ),
    # a cast comparison is a number wherever it stands (refused as a where branch)
    "torch.where(x.abs() > 1, (x > 0).double(), x/2 + 0.5)": _torch_ref(
        lambda t: torch.where(t.abs() > 1, (t > 0).double(), t / 2 + 0.5)
    ),
    "torch.sigmoid((x > 0).to(x.dtype) + x)": _torch_ref(
        lambda t: torch.sigmoid((t > 0).to(t.dtype) + t)
    ),
    # F.rrelu in evaluation mode (PyTorch's default training=False): the mean slope
    "F.rrelu(x) + F.rrelu(x/2, 0.1, 0.3, training=False)": _torch_ref(
        lambda t: F.rrelu(t) + F.rrelu(t / 2, 0.1, 0.3, training=False)
    ),
    "torch.log1p(torch.special.exp2(x))": _torch_ref(
        lambda t: torch.log1p(torch.special.exp2(t))
    ),
}


def _keras_relu(x, slope, cap, threshold):
    """Keras 3's activations.relu, as its source computes it (keras/src/activations)."""
    y = x * (x > threshold) if threshold != 0 else np.maximum(x, 0)
    if cap is not None:
        y = np.clip(y, 0, cap)
    return y - slope * np.maximum(threshold - x, 0) if slope != 0 else y


def _reference(text):
    ref = CASES[text]
    if isinstance(ref, str):
        import jax

        fn = {
            "jax:tanh_sigmoid": lambda t: jax.numpy.tanh(t) * jax.nn.sigmoid(t),
            "jax:gelu": jax.nn.gelu,  # approximate=True by default: the tanh form
            "jax:swish": jax.nn.swish,
            "jax:gelu_exact": lambda t: jax.nn.gelu(t, approximate=False),
            "jax:squareplus": jax.nn.squareplus,
            "jax:squareplus_1.5": lambda t: jax.nn.squareplus(t, b=1.5),
            "jax:sparse_plus": jax.nn.sparse_plus,
            "jax:log_ndtr": jax.scipy.special.log_ndtr,
        }[ref]
        ref = _jax_ref(fn)
    return ref(XS.copy())


@pytest.mark.parametrize("text", list(CASES))
def test_library_spelling_matches_that_library(text):
    ref_f, ref_df = _reference(text)
    k = symnb.Activation(text).compile(backend="numpy", dtype="float64")
    f, df = k.forward_with_derivative(XS.copy())
    np.testing.assert_allclose(f, ref_f, rtol=1e-12, atol=1e-14, err_msg=text)
    # the central difference is good to ~1e-8 of the scale
    np.testing.assert_allclose(df, ref_df, rtol=2e-6, atol=2e-7, err_msg=text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tf.nn.leaky_relu(x)", "slope 0.2"),
        ("np.foo(x)", "np.foo has no symnb equivalent"),
        ("os.system(x)", "attribute access ('.system') is not allowed"),
        ("x.real", "attribute access ('.real') is not allowed"),
        ("(x).__class__", "attribute access ('.__class__') is not allowed"),
        ("np.random.rand(x)", "attribute access"),
        ("np.sinc(x, 2)", "np.sinc takes 1 argument(s), 2 given"),
        ("np.square(x, out=x)", "by position only"),
        ("np.power(x, 9**9**9)", "exponent is too large"),
        ("np.inf*x", "attribute access ('.inf') is not allowed"),
        ("sinc(x)", "sinc is ambiguous"),
        # a tensor method or a layer object without an elementwise reading (the
        # elementwise ones are read: tests/formula/test_pasted_idioms.py)
        ("x.logsumexp(0)", "attribute access ('.logsumexp')"),
        ("nn.PReLU()(x)", "calling a layer object"),
        ("F.gelu(x, approximate='fast')", "approximate must be 'none' or 'tanh'"),
        ("norm.pdf(x)", "norm.pdf has no symnb equivalent"),
        # defaults that changed between Keras versions or differ from symnb's
        ("keras.activations.hard_sigmoid(x)", "in Keras 3"),
        ("keras.ops.leaky_relu(x)", "slope 0.2"),
        # LaTeX from a paper is read (tests/formula/test_latex_input.py), except
        # what has no formula reading
        ("\\int_0^x e^{-t^2} dt", "LaTeX command \\int has no formula reading"),
        ("\\begin{pmatrix} x \\end{pmatrix}", "type that part as code"),
        # a reduction over the batch (symnb averages a loss itself)
        ("exp(x)/np.sum(np.exp(x))", "np.sum reduces over the batch"),
        ("torch.mean(x**2)", "write the per-element formula"),
        ("np.amax(x)", "np.amax reduces over the batch"),
        # max/min of one argument, or PyTorch's dim / NumPy's axis: a reduction
        # (read as the elementwise max, x - torch.max(x) was silently 0)
        ("x - max(x)", "max(...) here is a maximum over the batch"),
        ("x - torch.max(x)", "torch.max(...) here is a maximum over the batch"),
        ("torch.max(x, 0)", "PyTorch's dim"),
        ("np.min(x, axis=0)", "np.min(...) here is a minimum over the batch"),
        ("torch.max(x, dim=1)", "write max(x, 0)"),
        # a clamp with no bound, a flag that is not a bool, a missing argument
        ("torch.clamp(x)", "torch.clamp() needs a bound"),
        ("np.clip(x, None, None)", "needs a bound"),
        ("F.relu(x, inplace=1)", "inplace must be True or False"),
        ("F.leaky_relu(x, 0.2, 3)", "inplace must be True or False"),
        # too many arguments: named, not a leaked Python TypeError
        ("F.relu(x, True, 2)", "relu takes 1 argument, 3 given"),
        ("F.threshold(x, 0.1)", "needs its argument 'value'"),
        ("jax.nn.squareplus(x, c=1)", "has no argument 'c'"),
        # a loss of another library whose formula differs: not mapped
        ("optax.poly_loss_cross_entropy(y_pred, y_true)", "has no symnb equivalent"),
        # a loss whose value is not a formula of one sample, or over classes
        ("keras.losses.hinge(y_true, y_pred)", "only when the whole batch is 0/1"),
        ("F.cross_entropy(y_pred, y_true)", "takes class indices"),
        # a loss object with positional (legacy) options: the functional spelling to
        # write (with keyword options it is read: tests/formula/test_pasted_idioms.py)
        (
            "nn.SmoothL1Loss(True)(y_pred, y_true)",
            "write F.smooth_l1_loss(y_pred, y_true",
        ),
    ],
)
def test_unknown_or_ambiguous_spelling_is_refused_clearly(text, message):
    # a user activation named sinc (tests/robust's corpus compiles one under that
    # name in the same worker) is the user's sinc, rightly: forget those names here
    from symnb.formula import compose

    for name in ("sinc", "ReLU", "GELU"):
        compose.unregister(name)
    with pytest.raises(FormulaError) as info:
        symnb.Activation(text)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "text, message",
    [
        # a batch reduction symnb does not take, an option without a formula
        ("F.mse_loss(y_pred, y_true, reduction='sum')", "symnb averages a loss"),
        ("F.poisson_nll_loss(y_pred, y_true, full=True)", "full must be False"),
        (
            "keras.losses.binary_crossentropy(y_true, y_pred, from_logits=1.5)",
            "from_logits must be",
        ),
    ],
)
def test_a_loss_option_without_a_formula_is_refused(text, message):
    with pytest.raises(FormulaError) as info:
        symnb.Loss(text)
    assert message in str(info.value)


def test_module_constant_is_the_number_even_if_a_constant_is_named_e():
    a = symnb.Activation("math.e*x + e", e=2.0)
    k = a.compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(k(np.array([1.0, 3.0])), [math.e + 2, 3 * math.e + 2])


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("(y - y_hat)**2", "(y_pred - y_true)**2"),
        ("(input - target)**2", "(y_pred - y_true)**2"),
        ("abs(output - label)", "abs(y_pred - y_true)"),
        ("softplus(-yhat*y)", "softplus(-y_pred*y_true)"),
    ],
)
def test_loss_variables_under_common_names(text, canonical):
    yp = np.array([-2.0, -0.3, 0.0, 0.7, 3.0])
    yt = np.array([1.0, -1.0, 0.5, 1.0, -1.0])
    got = symnb.Loss(text).compile(backend="numpy", dtype="float64")
    want = symnb.Loss(canonical).compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(got.value(yp, yt), want.value(yp, yt), rtol=1e-15)
    np.testing.assert_allclose(got.gradient(yp, yt), want.gradient(yp, yt), rtol=1e-15)


def test_a_declared_constant_keeps_its_name_in_a_loss():
    # 'y' declared as a constant is that constant, not the target
    loss = symnb.Loss("(y_pred - y)**2", y=0.5).compile(
        backend="numpy", dtype="float64"
    )
    yp, yt = np.array([1.0, 2.0]), np.array([7.0, 9.0])
    np.testing.assert_allclose(loss.gradient(yp, yt), (yp - 0.5))  # 2(yp - y)/n, n=2


def test_activation_does_not_read_loss_names():
    with pytest.raises(FormulaError, match="unknown symbol 'y'"):
        symnb.Activation("y*x")


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("ln(1 + e^x)", lambda x: np.logaddexp(0, x)),
        ("x/(1 + e^(-x))", lambda x: x * scipy.special.expit(x)),
        ("(e^x - e^-x)/(e^x + e^-x)", np.tanh),
        ("e**(-x**2)", lambda x: np.exp(-(x**2))),
    ],
)
def test_e_is_eulers_number_unless_declared(text, reference):
    a = symnb.Activation(text)
    assert any("Euler" in n for n in a.notes)
    k = a.compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(k(XS.copy()), reference(XS), rtol=1e-13, atol=1e-300)


def test_a_constant_named_e_is_the_constant():
    a = symnb.Activation("e*x + 1e-3", e=2.0)
    assert not any("Euler" in n for n in a.notes)
    k = a.compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(k(np.array([1.0, -3.0])), [2.001, -5.999], rtol=1e-15)


def test_sigma_called_like_a_function_suggests_sigmoid():
    # papers write the logistic function as σ(x); 'sigma' would be an unknown function
    with pytest.raises(FormulaError) as info:
        symnb.Activation("x*\u03c3(x)")
    assert "type 'sigmoid' instead" in str(info.value)
    with pytest.raises(FormulaError) as info:
        symnb.Activation("exp(-x**2/\u03c3**2)")
    assert "type 'sigma' instead" in str(info.value)


#: Python's conditional expression, as pasted from scalar code (math.exp, ...), with
#: points away from each formula's kink.
CONDITIONALS = [
    "x if x > 0 else 0.01*x",
    "exp(x) - 1 if x < 0 else x",
    "x**2 if x > 0 else 0",
    "x if x > 1 else (0 if x < -1 else (x + 1)**2/4)",
    "(x if x >= 0 else 0.2*x)*2 + 1",
    "x if -1 <= x <= 1 else 0.5*x",
]


@pytest.mark.parametrize("text", CONDITIONALS)
def test_conditional_expression_is_where(text):
    # the reference is Python itself evaluating the pasted text on floats
    env = {"exp": math.exp}

    def fn(v):
        return eval(text, env, {"x": float(v)})  # a test literal

    xs = np.array([-7.5, -3.3, -0.4, 0.3, 0.9, 1.7, 4.0])
    h = 1e-6
    ref_f = np.array([fn(v) for v in xs])
    ref_df = np.array([(fn(v + h) - fn(v - h)) / (2 * h) for v in xs])
    k = symnb.Activation(text).compile(backend="numpy", dtype="float64")
    f, df = k.forward_with_derivative(xs.copy())
    np.testing.assert_allclose(f, ref_f, rtol=1e-13, atol=1e-15, err_msg=text)
    np.testing.assert_allclose(df, ref_df, rtol=1e-6, atol=1e-8, err_msg=text)


def test_conditional_expression_in_a_loss():
    got = symnb.Loss("(y_pred - y_true)**2 if y_pred > y_true else 0")
    want = symnb.Loss("where(y_pred > y_true, (y_pred - y_true)**2, 0)")
    yp = np.array([-2.0, -0.3, 0.7, 3.0])
    yt = np.array([1.0, -1.0, 1.0, -1.0])
    g = got.compile(backend="numpy", dtype="float64")
    w = want.compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(g.value(yp, yt), w.value(yp, yt), rtol=1e-15)
    np.testing.assert_allclose(g.gradient(yp, yt), w.gradient(yp, yt), rtol=1e-15)


#: A comparison as a number (1 where it holds, else 0), as NumPy code multiplies by it.
INDICATORS = [
    "x*(x > 0)",
    "x*(0.5 - (x < 0))",
    "x*((x > -1) & (x < 1))",
    "(x >= 0)*x**2 - (x < 0)*x",
    "x*(x > 0) + 0.01*x*(x <= 0)",
]


@pytest.mark.parametrize("text", INDICATORS)
def test_comparison_times_a_value_reads_as_numpy_does(text):
    # the reference is NumPy evaluating the pasted text on float64 arrays
    def fn(v):
        return eval(text, {}, {"x": v})  # a test literal

    xs = np.array([-7.5, -3.3, -0.4, 0.3, 0.9, 1.7, 4.0, 12.0])  # no jump at -1, 0, 1
    h = 1e-6
    ref_f, ref_df = fn(xs), (fn(xs + h) - fn(xs - h)) / (2 * h)
    k = symnb.Activation(text).compile(backend="numpy", dtype="float64")
    f, df = k.forward_with_derivative(xs.copy())
    np.testing.assert_allclose(f, ref_f, rtol=1e-13, atol=1e-15, err_msg=text)
    np.testing.assert_allclose(df, ref_df, rtol=1e-6, atol=1e-8, err_msg=text)


def test_rrelu_in_training_mode_is_refused_with_the_fix():
    with pytest.raises(FormulaError, match="training=True") as info:
        symnb.Activation("F.rrelu(x, training=True)")
    assert "training=False" in str(info.value)


@pytest.mark.parametrize("text", ["x > 0", "Heaviside(x > 0)", "(x > 0) & (x < 1)"])
def test_a_comparison_alone_or_as_an_argument_is_still_refused(text):
    with pytest.raises(FormulaError, match="not allowed"):
        symnb.Activation(text)


#: A library loss called in a loss formula, by symnb's name or PyTorch's functional one
#: (input, target order) -> that PyTorch loss (reduction='mean', as symnb's kernels).
LOSS_CALLS = {
    "F.mse_loss(input, target)": lambda p, t: F.mse_loss(p, t),
    "F.l1_loss(y_pred, y_true)": lambda p, t: F.l1_loss(p, t),
    "F.huber_loss(input, target, delta=0.5)": lambda p, t: F.huber_loss(
        p, t, delta=0.5
    ),
    "huber(y_pred, y_true, delta=2.0)": lambda p, t: F.huber_loss(p, t, delta=2.0),
    "F.binary_cross_entropy_with_logits(input, target)": (
        F.binary_cross_entropy_with_logits
    ),
    "mse(y_pred, y_true) + 0.1*y_pred**2": lambda p, t: (
        F.mse_loss(p, t) + 0.1 * (p**2).mean()
    ),
    # Keras takes (y_true, y_pred), TensorFlow (labels, logits), optax (predictions,
    # targets) / (logits, labels); references: the same definitions in PyTorch (Keras
    # and optax document huber as PyTorch's, optax's hinge as relu(1 - p t))
    "keras.losses.huber(y_true, y_pred, delta=0.5)": lambda p, t: F.huber_loss(
        p, t, delta=0.5
    ),
    "keras.losses.MSE(y_true, y_pred) + tf.keras.losses.mae(y_true, y_pred)": (
        lambda p, t: F.mse_loss(p, t) + F.l1_loss(p, t)
    ),
    "tf.nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)": (
        F.binary_cross_entropy_with_logits
    ),
    "optax.sigmoid_binary_cross_entropy(y_pred, y_true)": (
        F.binary_cross_entropy_with_logits
    ),
    "optax.huber_loss(y_pred, y_true, delta=2.0)": lambda p, t: F.huber_loss(
        p, t, delta=2.0
    ),
    "optax.hinge_loss(predictor_outputs=y_pred, targets=y_true)": lambda p, t: (
        torch.relu(1 - p * t).mean()
    ),
    # PyTorch's losses that symnb's library lacks (symnb.formula.foreign_losses)
    "F.smooth_l1_loss(y_pred, y_true)": F.smooth_l1_loss,
    "F.smooth_l1_loss(input=y_pred, target=y_true, beta=0.5, reduction='mean')": (
        lambda p, t: F.smooth_l1_loss(p, t, beta=0.5)
    ),
    "F.soft_margin_loss(y_pred, y_true)": F.soft_margin_loss,
    "F.poisson_nll_loss(y_pred, y_true, reduction='none')": F.poisson_nll_loss,
    "F.hinge_embedding_loss(y_pred, y_true, 0.5)": lambda p, t: F.hinge_embedding_loss(
        p, t, margin=0.5
    ),
    "optax.l2_loss(y_pred, y_true)": lambda p, t: (0.5 * (p - t) ** 2).mean(),
    # a loss pasted with its batch mean (symnb.formula.batch_means): the mean is
    # symnb's own, so the per-element formula inside (were "reduces over the batch")
    "torch.mean((y_pred - y_true)**2)": F.mse_loss,
    "jnp.mean(jnp.abs(y_pred - y_true))": F.l1_loss,
    "tf.reduce_mean(tf.square(y_true - y_pred))": F.mse_loss,
    "K.mean(K.square(y_pred - y_true), axis=-1)": F.mse_loss,
    "((y_pred - y_true)**2).mean()": F.mse_loss,
    "0.5*np.mean((y_pred - y_true)**2) + np.mean(np.abs(y_pred - y_true))/4": (
        lambda p, t: 0.5 * F.mse_loss(p, t) + F.l1_loss(p, t) / 4
    ),
    "-torch.mean(y_true*F.logsigmoid(y_pred) + (1 - y_true)*F.logsigmoid(-y_pred))": (
        F.binary_cross_entropy_with_logits
    ),
}


def _focal(p, t, alpha, gamma):
    """Sigmoid focal loss of logits p, as torchvision.ops.sigmoid_focal_loss computes
    it (and optax's, alpha None: no class weight), averaged."""
    prob = torch.sigmoid(p)
    ce = F.binary_cross_entropy_with_logits(p, t, reduction="none")
    p_t = prob * t + (1 - prob) * (1 - t)
    loss = ce * (1 - p_t) ** gamma
    if alpha is not None and alpha >= 0:
        loss = (alpha * t + (1 - alpha) * (1 - t)) * loss
    return loss.mean()


#: Losses of probabilities or counts (positive predictions, targets in [0, 1]); Keras's
#: from its source (keras/src/losses/losses.py, epsilon 1e-7), written here in PyTorch.
_EPS = 1e-7
POSITIVE_LOSS_CALLS = {
    "F.poisson_nll_loss(y_pred, y_true, log_input=False)": lambda p, t: (
        F.poisson_nll_loss(p, t, log_input=False)
    ),
    "F.kl_div(y_pred, y_true)": lambda p, t: F.kl_div(p, t, reduction="none").mean(),
    "F.kl_div(y_pred, y_true, log_target=True)": lambda p, t: F.kl_div(
        p, t, reduction="none", log_target=True
    ).mean(),
    "keras.losses.binary_crossentropy(y_true, y_pred)": lambda p, t: (
        -(
            t * torch.log(p.clamp(_EPS, 1 - _EPS))
            + (1 - t) * torch.log(1 - p.clamp(_EPS, 1 - _EPS))
        )
    ).mean(),
    "keras.losses.binary_crossentropy(y_true, y_pred, from_logits=True)": (
        F.binary_cross_entropy_with_logits
    ),
    "keras.losses.poisson(y_true, y_pred)": lambda p, t: (
        p - t * torch.log(p + _EPS)
    ).mean(),
    "tf.keras.losses.kl_divergence(y_true, y_pred)": lambda p, t: (
        t.clamp(_EPS, 1) * torch.log(t.clamp(_EPS, 1) / p.clamp(_EPS, 1))
    ).mean(),
    "keras.losses.msle(y_true, y_pred)": lambda p, t: (
        (torch.log(p.clamp_min(_EPS) + 1) - torch.log(t.clamp_min(_EPS) + 1)) ** 2
    ).mean(),
    "keras.losses.MAPE(y_true, y_pred)": lambda p, t: (
        100 * (t - p).abs() / t.abs().clamp_min(_EPS)
    ).mean(),
    # xlogy: 0 where y_true = 0 (a KL divergence written with it)
    "torch.xlogy(y_true, y_true) - torch.xlogy(y_true, y_pred)": lambda p, t: (
        torch.xlogy(t, t) - torch.xlogy(t, p)
    ).mean(),
    "scipy.special.xlogy(y_true, y_pred)": lambda p, t: torch.xlogy(t, p).mean(),
    # a keyword that switches a formula on (foreign_losses.keyword_switch)
    "F.binary_cross_entropy_with_logits(y_pred, y_true, pos_weight=2.0)": lambda p, t: (
        F.binary_cross_entropy_with_logits(
            p, t, pos_weight=torch.tensor(2.0, dtype=p.dtype)
        )
    ),
    # TensorFlow's documented (1 - z) x + (1 + (q - 1) z) log(1 + exp(-x))
    "tf.nn.weighted_cross_entropy_with_logits(labels=y_true, logits=y_pred, "
    "pos_weight=3.0)": lambda p, t: ((1 - t) * p + (1 + 2 * t) * F.softplus(-p)).mean(),
    "torchvision.ops.sigmoid_focal_loss(y_pred, y_true)": lambda p, t: _focal(
        p, t, 0.25, 2.0
    ),
    "torchvision.ops.sigmoid_focal_loss(y_pred, y_true, alpha=-1, gamma=1.5)": (
        lambda p, t: _focal(p, t, -1.0, 1.5)
    ),
    "optax.sigmoid_focal_loss(y_pred, y_true)": lambda p, t: _focal(p, t, None, 2.0),
    "optax.sigmoid_focal_loss(y_pred, y_true, alpha=0.5, gamma=3)": lambda p, t: _focal(
        p, t, 0.5, 3.0
    ),
}


def _matches_reference(text, reference, yp, yt, rtol):
    p = torch.tensor(yp, requires_grad=True)
    ref = reference(p, torch.tensor(yt))
    (grad,) = torch.autograd.grad(ref, p)
    k = symnb.Loss(text).compile(backend="numpy", dtype="float64")
    np.testing.assert_allclose(k.value(yp, yt), ref.item(), rtol=rtol, err_msg=text)
    np.testing.assert_allclose(
        k.gradient(yp, yt), grad.numpy(), rtol=10 * rtol, atol=1e-15
    )


@pytest.mark.parametrize("text", list(POSITIVE_LOSS_CALLS))
def test_foreign_loss_of_probabilities_matches_its_library(text):
    yp = np.array([0.05, 0.3, 0.5, 0.7, 0.95, 0.999])
    yt = np.array([1.0, 0.0, 0.5, 0.25, 1.0, 0.9])
    _matches_reference(text, POSITIVE_LOSS_CALLS[text], yp, yt, 1e-12)


@pytest.mark.parametrize("text", list(LOSS_CALLS))
def test_library_loss_called_in_a_formula_matches_pytorch(text):
    yp = np.array([-2.7, -0.3, 0.2, 0.7, 3.1, 1.9])
    yt = np.array([1.0, -1.0, 0.5, 0.0, 1.0, 0.25])
    _matches_reference(text, LOSS_CALLS[text], yp, yt, 1e-13)


def test_a_foreign_loss_missing_an_argument_names_that_librarys_order():
    with pytest.raises(FormulaError, match=r"keras\.losses\.huber\(y_true, y_pred\)"):
        symnb.Loss("keras.losses.huber(y_true)")


def test_a_library_loss_named_alone_says_how_to_use_it():
    # before: "unknown symbol 'huber'; declare it as a constant: Loss('huber', huber=1.0)"
    with pytest.raises(
        FormulaError, match=r"library loss; call it, e.g. huber\(y_pred"
    ):
        symnb.Loss("huber")


@pytest.mark.parametrize(
    "bare, spelled",
    [
        ("logaddexp(x, 0.5*x)", "np.logaddexp(x, 0.5*x)"),
        ("hypot(x, 1.5)", "np.hypot(x, 1.5)"),
        ("logit(1/(2 + x**2))", "torch.special.logit(1/(2 + x**2))"),
        ("rsqrt(1 + x**2)", "torch.rsqrt(1 + x**2)"),
        ("square(x) + pow(x, 3) + power(x, 4)", "np.square(x) + x**3 + x**4"),
        ("exp2(x/4) + reciprocal(1 + x**2)", "np.exp2(x/4) + np.reciprocal(1 + x**2)"),
        ("squareplus(x, b=1.5)", "jax.nn.squareplus(x, b=1.5)"),
        (
            "sparse_plus(x) + hardshrink(x, 0.35)",
            "jax.nn.sparse_plus(x) + F.hardshrink(x, 0.35)",
        ),
    ],
)
def test_bare_names_read_as_the_libraries_function(bare, spelled):
    # written without a module (``from numpy import *`` style) they were "unknown
    # function" (logit: "did you mean 'log'?"); the module spellings are judged
    # against their libraries above. A user activation of the same name (tests/robust's
    # corpus defines squareplus in the same worker) would rightly win: forget those
    from symnb.formula import compose

    for name in ("squareplus", "sparse_plus", "hardshrink", "logit", "hypot"):
        compose.unregister(name)
    assert symnb.Activation(bare).expr == symnb.Activation(spelled).expr


def test_a_users_own_definition_wins_over_a_bare_name():
    from symnb.formula import compose

    own = symnb.Activation("x/(1 + abs(x))", name="logit")
    compose.register(own)
    try:
        assert symnb.Activation("logit(x)").expr == own.expr
    finally:
        compose.unregister("logit")


@pytest.mark.parametrize(
    "text",
    [
        "torch.sqrt(torch.mean((y_pred - y_true)**2))",  # an RMSE: no per-sample mean
        "torch.mean(y_pred)*y_true",
        "torch.mean((y_pred - y_true)**2)/torch.mean(y_true**2)",
        "exp(np.mean(y_pred - y_true))",
    ],
)
def test_a_batch_mean_under_a_nonlinear_operation_is_refused(text):
    # only sums and constant multiples of means are means of per-element values
    with pytest.raises(FormulaError, match="batch mean inside this formula"):
        symnb.Loss(text)


@pytest.mark.parametrize(
    "text, message",
    [
        ("np.average((y_pred - y_true)**2, weights=w)", "reduces over the batch"),
        ("torch.sum((y_pred - y_true)**2)", "reduces over the batch"),
        ("torch.mean(x)", "reduces over the batch"),  # an activation is elementwise
    ],
)
def test_other_reductions_and_means_in_activations_stay_refused(text, message):
    with pytest.raises(FormulaError, match=message):
        if "y_pred" in text:
            symnb.Loss(text, w=1.0)
        else:
            symnb.Activation(text)


@pytest.mark.parametrize(
    ("text", "eps"),
    [
        ("torch.logit(x)", None),
        ("torch.logit(x, eps=1e-3)", 1e-3),
        ("torch.special.logit(x, 0.01)", 0.01),
        ("x.logit(eps=1e-6)", 1e-6),
        ("torch.logit(x, eps=None)", None),
        # PyTorch's name of the input (was: 'torch.logit has no argument input')
        ("torch.logit(input=x, eps=1e-3)", 1e-3),
        ("torch.special.logit(eps=0.01, input=x)", 0.01),
        ("torch.logit(input=x)", None),
    ],
)
def test_logit_with_its_eps_matches_pytorch(text, eps):
    """torch.logit(x, eps) clamps x to [eps, 1 - eps] first (it was refused: 'takes
    its arguments by position only', or given by position: too many arguments)."""
    xs = np.array([-0.5, 1e-5, 0.02, 0.3, 0.5, 0.9, 0.9995, 1.5])
    if eps is None:
        xs = xs[(xs > 0) & (xs < 1)]
    ref_f, ref_df = _torch_ref(lambda t: torch.logit(t, eps=eps))(xs.copy())
    k = symnb.Activation(text).compile(backend="numpy", dtype="float64")
    f, df = k.forward_with_derivative(xs.copy())
    # above 1 - eps PyTorch's 1 - z is 1 - fl(1 - eps): 1.0000000000287557e-6 for
    # eps = 1e-6, 2e-12 of log((1 - eps)/eps) off the value symnb gives (and mpmath)
    np.testing.assert_allclose(f, ref_f, rtol=1e-11, err_msg=text)
    np.testing.assert_allclose(df, ref_df, rtol=1e-12, atol=1e-300, err_msg=text)
    if eps is not None:  # and mpmath at the upper clamp
        import mpmath as mp

        with mp.workdps(30):
            top = float(mp.log((1 - mp.mpf(eps)) / mp.mpf(eps)))
        assert abs(f[-1] - top) <= 1e-14 * abs(top), (text, f[-1], top)
