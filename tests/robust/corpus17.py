"""A seventeenth corpus: a tanh rescaled to the range [-1e8, 1e8], a smooth max of
three affine pieces at temperature 1e-3 and mellowmax at w = 1e-8 (found), soft
clipping at 1e8, the soft root sign, the square nonlinearity, symlog, erfcx and the
erfc spelling of GELU, log-sum-exp at 1e8, Tukey's biweight at c = 1e-8, Student-t and
generalized cross entropy losses at 1e-8, higher-order removable quotients, cubed
ReLU and hard Mish in a def and clamps, Barron's loss at alpha = 1e8, typed as users
paste them: ``torch.*``/``F.*``/``torch.special.*``, NumPy/SciPy, JAX, ``math``, a
``def`` with local variables and LaTeX.

Kept from h115's probe of 196 formulas (24, for CI time): every formula that exposed a
defect fixed with it (marked "found:" in its source) and a varied selection of the
rest. Same fields and references as the first corpus
(``tests/robust/corpus_reference.py``); the judge is ``tests/robust/test_corpus17.py``.
``REFERENCE_TEXT`` gives the same function in a form SymPy's parser reads and mpmath
evaluates at every sample point, written from the published definition, for every
entry whose text is not plain formula syntax.
"""

from __future__ import annotations

from tests.robust.corpus import Published

P = Published

CORPUS17: tuple[Published, ...] = (
    P(
        "tanh_range_lo_hi_1e8",
        "lo + (hi - lo)*(torch.tanh(x) + 1)/2",
        "a tanh rescaled to [lo, hi] = [-1e8, 1e8] (found: f 100008 for 99999.97 at x = 1e-3 and -4640 for -4641.6 at x = -4.6e-5 in float32, 14 points off in float64: the constant cancelled against the scaled sigmoid)",
        {"lo": -100000000.0, "hi": 100000000.0},
    ),
    P(
        "smooth_max_three_affine_t_1e3",
        "t*torch.log(torch.exp(x/t) + torch.exp((2*x - 1)/t) + torch.exp(-x/t))",
        "smooth max (log-sum-exp) of x, 2x - 1 and -x at temperature t = 1e-3 (found: f inf and f' NaN from x = 0.1 in float32, at t = 1e-8 for x in [1e-6, 0.24] and past 0.54 in float32, from 1e-5 in float64: the front end's 2 cosh(x/t) hid the log-sum-exp of three terms)",
        {"t": 0.001},
    ),
    P(
        "mellowmax_pair_w_tiny",
        "torch.log((torch.exp(w*x) + torch.exp(w*0))/2)/w",
        "mellowmax of x and 0 (Asadi & Littman 2017), log(mean(e^{w x}, 1))/w at w = 1e-8 (found: f -500.68 for -499.999 at x = -1000 in float32, 83 points 1e-8 relative off in float64: the log of a mean near 1)",
        {"w": 1e-08},
    ),
    P(
        "soft_clipping_a_1e8",
        "torch.log((1 + torch.exp(a*x))/(1 + torch.exp(a*(x - 1))))/a",
        "soft clipping (Klimek & Perelstein 2020) at sharpness a = 1e8",
        {"a": 100000000.0},
        kinks=(0.0, 1.0),
    ),
    P(
        "soft_clipping_def_softplus",
        "def softclip(x):\n    lo = torch.nn.functional.softplus(a*x)\n    hi = torch.nn.functional.softplus(a*(x - 1))\n    return (lo - hi)/a",
        "soft clipping as a def with local softplus terms, a = 100",
        {"a": 100.0},
    ),
    P(
        "soft_root_sign_b_tiny",
        "x/(x/a + torch.exp(-x/b))",
        "soft root sign x/(x/a + e^{-x/b}) (Zhou et al. 2020), b = 1e-8",
        {"a": 2.0, "b": 1e-08},
    ),
    P(
        "sqnl_nested_where",
        "torch.where(x > 2, 1.0, torch.where(x >= 0, x - x**2/4, torch.where(x >= -2, x + x**2/4, -1.0)))",
        "square nonlinearity SQNL (Wuraola & Patel 2018) as nested torch.where",
        {},
        kinks=(-2.0, 0.0, 2.0),
    ),
    P(
        "symlog_c_tiny",
        "np.sign(x)*np.log1p(np.abs(x)/c)",
        "symmetric log transform sign(x) log(1 + |x|/c), c = 1e-8, NumPy",
        {"c": 1e-08},
        kinks=(0.0,),
    ),
    P(
        "erfcx_special_call",
        "torch.special.erfcx(x)",
        "the scaled complementary error function e^{x^2} erfc(x) as torch.special.erfcx",
        {},
    ),
    P(
        "gelu_erfc_half_spelling",
        "0.5*x*torch.erfc(-x/math.sqrt(2))",
        "GELU typed with erfc: x/2 erfc(-x/sqrt 2)",
        {},
    ),
    P(
        "log_cosh_logaddexp_a_1e8",
        "np.logaddexp(a*x, -a*x)/a",
        "log(e^{ax} + e^{-ax})/a by np.logaddexp, a = 1e8",
        {"a": 100000000.0},
        kinks=(0.0,),
    ),
    P(
        "tukey_biweight_c_tiny",
        "torch.where(torch.abs(x) <= c, c**2/6*(1 - (1 - (x/c)**2)**3), c**2/6)",
        "Tukey's biweight loss at c = 1e-8",
        {"c": 1e-08},
        kinks=(-1e-08, 1e-08),
    ),
    P(
        "student_t_nll_nu_tiny",
        "(nu + 1)/2*torch.log1p(x**2/nu)",
        "Student-t negative log-likelihood (nu + 1)/2 log(1 + x^2/nu), nu = 1e-8",
        {"nu": 1e-08},
    ),
    P(
        "gce_logits_q_tiny",
        "(1 - torch.sigmoid(x)**q)/q",
        "generalized cross entropy (Zhang & Sabuncu 2018) of a logit, q = 1e-8",
        {"q": 1e-08},
    ),
    P(
        "exp_minus_one_minus_x_over_x_squared",
        "(torch.exp(x) - 1 - x)/x**2",
        "(e^x - 1 - x)/x^2, removable at 0",
        {},
        removable=(0.0,),
    ),
    P(
        "tanh_minus_x_over_x3",
        "(torch.tanh(x) - x)/x**3",
        "(tanh x - x)/x^3, removable at 0",
        {},
        removable=(0.0,),
    ),
    P(
        "relu_cubed_def_locals",
        "def relu3(x):\n    r = np.maximum(x, 0)\n    return r*r*r",
        "cubed ReLU as a def with a local variable",
        {},
        kinks=(0.0,),
    ),
    P(
        "relu_squared_jnp_square",
        "jnp.square(jax.nn.relu(x))",
        "squared ReLU (So et al. 2021, Primer) in JAX",
        {},
        kinks=(0.0,),
    ),
    P(
        "hard_mish_clamp",
        "x/2*torch.clamp(x + 2, 0, 2)",
        "Hard-Mish x/2 min(max(x + 2, 0), 2)",
        {},
        kinks=(-2.0, 0.0),
    ),
    P(
        "barron_general_alpha_1e8",
        "abs(a - 2)/a*(((x/c)**2/abs(a - 2) + 1)**(a/2) - 1)",
        "Barron's general robust loss at alpha = 1e8",
        {"a": 100000000.0, "c": 1.0},
    ),
    P(
        "serf_scaled_b_1e8",
        "x*torch.erf(F.softplus(b*x))",
        "Serf x erf(softplus(bx)) at b = 1e8",
        {"b": 100000000.0},
        kinks=(0.0,),
    ),
    P(
        "staircase_of_tanh_1e8",
        " + ".join(f"torch.tanh(a*(x - {k}))" for k in range(-3, 4)),
        "a staircase of seven tanh steps at sharpness a = 1e8",
        {"a": 100000000.0},
        kinks=tuple(float(k) for k in range(-3, 4)),
    ),
    P(
        "latex_soft_clipping_frac",
        "\\frac{1}{a}\\ln\\frac{1 + e^{a x}}{1 + e^{a (x - 1)}}",
        "soft clipping in LaTeX, a = 20",
        {"a": 20.0},
    ),
    P(
        "latex_tukey_cases",
        "\\begin{cases} \\frac{c^2}{6}\\left(1-\\left(1-\\left(\\frac{x}{c}\\right)^2\\right)^3\\right) & |x| \\le c \\\\ \\frac{c^2}{6} & \\text{otherwise} \\end{cases}",
        "Tukey's biweight in LaTeX cases, c = 2",
        {"c": 2.0},
        kinks=(-2.0, 2.0),
    ),
)


#: the same functions in plain formula syntax for the references (see the docstring)
REFERENCE_TEXT: dict[str, str] = {
    "tanh_range_lo_hi_1e8": "lo + (hi - lo)*(tanh(x) + 1)/2",
    "smooth_max_three_affine_t_1e3": "t*log(exp(x/t) + exp((2*x - 1)/t) + exp(-x/t))",
    "mellowmax_pair_w_tiny": "log((exp(w*x) + 1)/2)/w",
    "soft_clipping_a_1e8": "log((1 + exp(a*x))/(1 + exp(a*(x - 1))))/a",
    "soft_clipping_def_softplus": "(softplus(a*x) - softplus(a*(x - 1)))/a",
    "soft_root_sign_b_tiny": "x/(x/a + exp(-x/b))",
    "sqnl_nested_where": "where(x > 2, 1, where(x >= 0, x - x**2/4, where(x >= -2, x + x**2/4, -1)))",
    "symlog_c_tiny": "sign(x)*log(1+abs(x)/c)",
    "erfcx_special_call": "exp(x**2)*erfc(x)",
    "gelu_erfc_half_spelling": "x*erfc(-x/sqrt(2))/2",
    "log_cosh_logaddexp_a_1e8": "log(exp(a*x) + exp(-a*x))/a",
    "tukey_biweight_c_tiny": "where(abs(x) <= c, c**2/6*(1 - (1 - (x/c)**2)**3), c**2/6)",
    "student_t_nll_nu_tiny": "(nu + 1)/2*log(1 + x**2/nu)",
    "gce_logits_q_tiny": "(1 - sigmoid(x)**q)/q",
    "exp_minus_one_minus_x_over_x_squared": "(exp(x) - 1 - x)/x**2",
    "tanh_minus_x_over_x3": "(tanh(x) - x)/x**3",
    "relu_cubed_def_locals": "max(x, 0)**3",
    "relu_squared_jnp_square": "max(x, 0)**2",
    "hard_mish_clamp": "x/2*min(max(x + 2, 0), 2)",
    "serf_scaled_b_1e8": "x*erf(softplus(b*x))",
    "staircase_of_tanh_1e8": "tanh(a*(x - -3)) + tanh(a*(x - -2)) + tanh(a*(x - -1)) + tanh(a*(x - 0)) + tanh(a*(x - 1)) + tanh(a*(x - 2)) + tanh(a*(x - 3))",
    "latex_soft_clipping_frac": "log((1 + exp(a*x))/(1 + exp(a*(x - 1))))/a",
    "latex_tukey_cases": "where(abs(x) <= c, c**2/6*(1 - (1 - (x/c)**2)**3), c**2/6)",
}
