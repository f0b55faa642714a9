"""A sixth corpus: activations and robust/regression/classification losses (as functions of
the residual or the logit) from the literature, typed as a user would, none of them in
``tests/robust/corpus.py``; then textbook functions whose spelling underflows or
overflows before the value does. Same fields and references as the first corpus
(``tests/robust/corpus_reference.py``).

``REFERENCE_TEXT`` gives, for a few entries, the same function in a form mpmath can
evaluate at every sample point (a textbook identity): ``1 - sigmoid(x)`` cancels 300
digits at x = 700, beyond the reference's precision ladder, and ``Max(0, x)**0.5``'s
derivative is 0/0 on the flat side in SymPy's form.
"""

from __future__ import annotations

from tests.robust.corpus import Published

P = Published

CORPUS6: tuple[Published, ...] = (
    # ------------------------------------------------------------ smooth activations
    # Paul et al. 2022, "SinLU: Sinu-sigmoidal linear unit" (a = b = 1)
    P("sinlu", "(x + a*sin(b*x))*sigmoid(x)", "Paul et al. 2022", {"a": 1.0, "b": 1.0}),
    # Cauchy-CDF gate (arctan-based swish)
    P("atan_gate", "x*(atan(x)/pi + 0.5)", "arctan gating (Cauchy CDF)"),
    # scaled arctan with unit slope at 0
    P("scaled_atan", "2/pi*atan(pi/2*x)", "arctan sigmoid (Elliott-type)"),
    # Gudermannian function, two textbook spellings
    P("gudermannian", "2*atan(exp(x)) - pi/2", "Gudermannian (textbook)"),
    P("gudermannian_tanh", "2*atan(tanh(x/2))", "Gudermannian (textbook)"),
    # inverse hyperbolic sine, built-in and written out
    P("asinh", "asinh(x)", "arsinh activation"),
    P("asinh_log", "log(x + sqrt(x**2 + 1))", "arsinh written out"),
    # hyperbolic functions written with exp
    P("sinh_exp", "(exp(x) - exp(-x))/2", "sinh written out"),
    P("cosh_exp", "(exp(x) + exp(-x))/2", "cosh written out"),
    # logistic density (the sigmoid's derivative), both sides
    P("logistic_pdf", "exp(x)/(1 + exp(x))**2", "logistic density"),
    P("logistic_pdf_neg", "exp(-x)/(1 + exp(-x))**2", "logistic density"),
    # sigmoid and swish typed with exp(50*x) (a large inverse temperature)
    P("sigmoid_50", "exp(50*x)/(1 + exp(50*x))", "sharp logistic"),
    P("silu_ratio", "x*exp(x)/(1 + exp(x))", "SiLU spelled as a ratio"),
    P("swish_50", "x/(1 + exp(-50*x))", "Ramachandran et al. 2017, beta = 50"),
    P("softplus_50", "log(1 + exp(50*x))/50", "Dugas et al. 2001, beta = 50"),
    # GELU written with erfc, SiLU with tanh
    P("gelu_erfc", "0.5*x*erfc(-x/sqrt(2))", "Hendrycks & Gimpel 2016 (erfc)"),
    P("silu_tanh", "x*0.5*(1 + tanh(x/2))", "SiLU written with tanh"),
    P("tanh_sigmoid", "2*sigmoid(2*x) - 1", "tanh written with sigmoid"),
    # log-sum-exp family
    P("log_two_cosh", "log(exp(x) + exp(-x))", "log(2 cosh x)"),
    P("lse3", "log(1 + exp(x) + exp(2*x))", "log-sum-exp of (0, x, 2x)"),
    # f' at the domain's edge 0 is +inf from the right (the reference: undefined)
    P(
        "inverse_softplus",
        "log(exp(x) - 1)",
        "inverse softplus (PyTorch distributions)",
        kinks=(0.0,),
    ),
    P("log_sigmoid_typed", "log(sigmoid(x))", "log sigmoid typed with sigmoid"),
    P(
        "log_one_minus_sigmoid",
        "log(1 - sigmoid(x))",
        "log(1 - sigma(x)) = -softplus(x)",
    ),
    P("atan_exp", "atan(exp(x))", "arctan of exp"),
    # wavelets and bumps
    P("ricker", "(1 - x**2)*exp(-x**2/2)", "Mexican hat wavelet"),
    P("gaussian_derivative", "x*exp(-x**2/2)", "first Gaussian derivative"),
    P("laplace", "exp(-abs(x))", "Laplacian kernel", kinks=(0.0,)),
    P("cauchy_kernel", "1/(1 + x**2)", "Cauchy kernel"),
    P("morlet_real", "cos(5*x)*exp(-x**2/2)", "Morlet wavelet (real part)"),
    # ------------------------------------------------------------ rectifier family
    P(
        "hexpo",
        "where(x >= 0, -a*(exp(-x/b) - 1), c*(exp(x/d) - 1))",
        "Kong & Takatsuka 2017",
        {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0},
        kinks=(0.0,),
    ),
    P(
        "keras_hard_sigmoid",
        "max(0, min(1, 0.2*x + 0.5))",
        "Keras hard_sigmoid",
        kinks=(-2.5, 2.5),
    ),
    P(
        "keras_hard_swish",
        "x*max(0, min(1, 0.2*x + 0.5))",
        "Keras-style hard swish",
        kinks=(-2.5, 2.5),
    ),
    P("clip_tanh", "clip(x, -2, 2)", "hard tanh with clip", kinks=(-2.0, 2.0)),
    P(
        "hardswish_piecewise",
        "x*Piecewise((0, x < -3), (1, x > 3), (x/6 + 0.5, True))",
        "Howard et al. 2019 with Piecewise",
        kinks=(-3.0, 3.0),
    ),
    P(
        "signed_sqrt",
        "where(x >= 0, sqrt(x), -sqrt(-x))",
        "signed square root",
        kinks=(0.0,),
    ),
    P("relu_sqrt", "max(0, x)**0.5", "square-root ReLU", kinks=(0.0,)),
    P("relu_pow_1_5", "max(0, x)**1.5", "rectified power 1.5", kinks=(0.0,)),
    P("abs_pow_1_5", "abs(x)**1.5", "|x|^1.5", kinks=(0.0,)),
    P("signed_square", "x*abs(x)", "signed square", kinks=(0.0,)),
    P("sign_square", "sign(x)*x**2", "signed square with sign", kinks=(0.0,)),
    P("cbrt_act", "cbrt(x)", "cube-root activation", kinks=(0.0,)),
    P("hinge", "max(0, 1 - x)", "hinge loss", kinks=(1.0,)),
    P("squared_hinge", "max(0, 1 - x)**2", "squared hinge loss", kinks=(1.0,)),
    # ------------------------------------------------------------ losses of a residual
    P("log_cosh", "log(cosh(x))", "log-cosh loss"),
    P("welsch", "c**2/2*(1 - exp(-(x/c)**2/2))", "Welsch / Leclerc loss", {"c": 1.0}),
    P(
        "cauchy_loss",
        "c**2/2*log(1 + (x/c)**2/2)",
        "Cauchy / Lorentzian loss",
        {"c": 1.0},
    ),
    P("geman_mcclure", "2*(x/c)**2/((x/c)**2 + 4)", "Geman & McClure 1985", {"c": 1.0}),
    P("charbonnier", "sqrt(x**2 + eps**2)", "Charbonnier et al. 1994", {"eps": 1e-3}),
    P("pseudo_huber", "d**2*(sqrt(1 + (x/d)**2) - 1)", "pseudo-Huber loss", {"d": 1.0}),
    P(
        "barron_half",
        "abs(a - 2)/a*(((x/c)**2/abs(a - 2) + 1)**(a/2) - 1)",
        "Barron 2019, alpha = 0.5",
        {"a": 0.5, "c": 1.0},
    ),
    P(
        "barron_minus_half",
        "abs(a - 2)/a*(((x/c)**2/abs(a - 2) + 1)**(a/2) - 1)",
        "Barron 2019, alpha = -0.5",
        {"a": -0.5, "c": 1.0},
    ),
    P(
        "huber",
        "where(abs(x) <= d, x**2/2, d*(abs(x) - d/2))",
        "Huber 1964",
        {"d": 1.0},
        kinks=(-1.0, 1.0),
    ),
    P(
        "smooth_l1",
        "where(abs(x) < 1, 0.5*x**2, abs(x) - 0.5)",
        "Girshick 2015",
        kinks=(-1.0, 1.0),
    ),
    P(
        "tukey",
        "where(abs(x) <= c, c**2/6*(1 - (1 - (x/c)**2)**3), c**2/6)",
        "Tukey biweight (Beaton & Tukey 1974)",
        {"c": 4.685},
        kinks=(-4.685, 4.685),
    ),
    P(
        "pinball",
        "max(q*x, (q - 1)*x)",
        "Koenker & Bassett 1978, q = 0.9",
        {"q": 0.9},
        kinks=(0.0,),
    ),
    P(
        "eps_insensitive",
        "max(0, abs(x) - eps)",
        "Vapnik 1995",
        {"eps": 0.1},
        kinks=(-0.1, 0.1),
    ),
    # ------------------------------------------------------------ losses of a logit
    P("logistic_loss", "log(1 + exp(-x))", "logistic loss of the margin"),
    P(
        "focal_pos",
        "-(1 - sigmoid(x))**2*log(sigmoid(x))",
        "Lin et al. 2017, gamma = 2",
    ),
    P("focal_neg", "-sigmoid(x)**2*log(1 - sigmoid(x))", "Lin et al. 2017, gamma = 2"),
    P(
        "bce_logit",
        "-(y*log(sigmoid(x)) + (1 - y)*log(1 - sigmoid(x)))",
        "binary cross-entropy of a logit",
        {"y": 0.3},
    ),
    P("savage", "1/(1 + exp(x))**2", "Masnadi-Shirazi & Vasconcelos 2008"),
    P("tangent_loss", "(2*atan(x) - 1)**2", "Masnadi-Shirazi et al. 2010"),
    # ------------------------------------------------------------ helper h63's probe
    # Gudermannian function, two more textbook spellings
    P("gd_asin_tanh", "asin(tanh(x))", "Gudermannian (textbook)"),
    P("gd_atan_sinh", "atan(sinh(x))", "Gudermannian (textbook)"),
    # Mish written out in closed form (Misra 2019): (1 + exp(x))**2 overflows first
    P(
        "mish_closed_square",
        "x*((1 + exp(x))**2 - 1)/((1 + exp(x))**2 + 1)",
        "Misra 2019, tanh(log(u)) = (u^2 - 1)/(u^2 + 1)",
    ),
    P(
        "pserf",
        "x*erf(gamma*log(1 + exp(beta*x)))",
        "Biswas et al. 2022 (pserf)",
        {"gamma": 1.25, "beta": 0.85},
    ),
    P(
        "squareplus_eps",
        "(x + sqrt(x**2 + 4*eps**2))/2",
        "Barron 2021, b = 4 eps^2",
        {"eps": 0.1},
    ),
    P(
        "isrlu",
        "where(x < 0, x/sqrt(1 + alpha*x**2), x)",
        "Carlile et al. 2017",
        {"alpha": 3.0},
        kinks=(0.0,),
    ),
    P(
        "sqnl_clip",
        "clip(x, -2, 2) - sign(x)*clip(x, -2, 2)**2/4",
        "Wuraola & Patel 2018, with clip",
        kinks=(-2.0, 2.0),
    ),
    P(
        "hard_elish",
        "where(x < 0, (exp(x) - 1)*max(0, min(1, (x + 1)/2)), "
        "x*max(0, min(1, (x + 1)/2)))",
        "Basirat & Roth 2018",
        kinks=(-1.0, 0.0, 1.0),
    ),
    P(
        "srelu",
        "where(x >= tr, tr + ar*(x - tr), where(x <= tl, tl + al*(x - tl), x))",
        "Jin et al. 2016",
        {"tr": 1.0, "ar": 0.5, "tl": -1.0, "al": 0.1},
        kinks=(-1.0, 1.0),
    ),
    P(
        "apl_two_hinges",
        "max(0, x) + a1*max(0, -x + b1) + a2*max(0, -x + b2)",
        "Agostinelli et al. 2014, S = 2",
        {"a1": 0.2, "b1": 0.5, "a2": -0.1, "b2": -0.5},
        kinks=(-0.5, 0.0, 0.5),
    ),
    # pasted from scalar Python / NumPy code: a conditional expression, a comparison as
    # a number
    P(
        "elu_conditional",
        "x if x >= 0 else alpha*(exp(x) - 1)",
        "Clevert et al. 2015, as Python",
        {"alpha": 1.0},
        kinks=(0.0,),
    ),
    P("relu_indicator", "x*(x > 0)", "ReLU as NumPy code", kinks=(0.0,)),
    P(
        "leaky_indicator",
        "x*(x > 0) + 0.1*x*(x <= 0)",
        "leaky ReLU as NumPy code",
        kinks=(0.0,),
    ),
    P(
        "maxout3",
        "max(a1*x + c1, a2*x + c2, a3*x + c3)",
        "Goodfellow et al. 2013, k = 3 (one input)",
        {"a1": -0.5, "c1": -1.5, "a2": 1.0, "c2": 0.0, "a3": 2.0, "c3": -1.0},
        kinks=(-1.0, 1.0),
    ),
)

#: Textbook functions typed so that a power, exp or sinh under- or overflows before the
#: value does (each was wrong before symnb handled it; see the tests named in comments).
SPELLINGS: tuple[Published, ...] = (
    # test_hyperbolic_exp_spellings.py
    P(
        "sinh_over_x",
        "(exp(x) - exp(-x))/(2*x)",
        "sinh(x)/x written out",
        removable=(0.0,),
    ),
    P("sinh_over_x_builtin", "sinh(x)/x", "sinh(x)/x", removable=(0.0,)),
    P("cosh_minus_one", "cosh(x) - 1", "cosh(x) - 1"),
    P("sech_squared", "1/cosh(x)**2", "sech^2"),
    # test_float64_underflow_at_removable_points.py
    P("sinc_squared", "sin(x)**2/x**2", "Fejer kernel", removable=(0.0,)),
    P("smooth_bump", "exp(-1/x**2)", "flat function at 0", removable=(0.0,)),
    P(
        "log_cosh_over_x",
        "log(cosh(x))/x",
        "log-cosh over its argument",
        removable=(0.0,),
    ),
    P("erf_over_x", "erf(x)/x", "erf(x)/x", removable=(0.0,)),
    # tests/formula/test_log_of_even_power.py
    P(
        "thin_plate",
        "x**2*log(x**2)",
        "thin-plate spline (Duchon 1977)",
        removable=(0.0,),
    ),
    P("x_log_abs", "x*log(abs(x))", "x log|x|", removable=(0.0,)),
    P("log_one_plus_square", "log(1 + x**2)", "log(1 + x^2)"),
    P(
        "sinc_squared_pi",
        "sin(pi*x)**2/(pi*x)**2",
        "normalised Fejer kernel",
        removable=(0.0,),
    ),
)

ALL6: tuple[Published, ...] = CORPUS6 + SPELLINGS

REFERENCE_TEXT: dict[str, str] = {
    # 1/2 + atan(x)/pi = -atan(1/x)/pi for x < 0 (600 digits cancel at x = -1e300)
    "atan_gate": "where(x < 0, -x*atan(1/x)/pi, x*(atan(x)/pi + 0.5))",
    # exp(50 x) at x = 1e300 is beyond mpmath's guard: inf/inf
    "sigmoid_50": "1/(1 + exp(-50*x))",
    "log_one_minus_sigmoid": "-log(1 + exp(x))",
    "focal_neg": "sigmoid(x)**2*log(1 + exp(x))",
    "bce_logit": "y*log(1 + exp(-x)) + (1 - y)*log(1 + exp(x))",
    "relu_sqrt": "where(x > 0, sqrt(x), 0)",
    # Python's conditional and NumPy's boolean product, which SymPy's parser evaluates
    "elu_conditional": "where(x >= 0, x, alpha*(exp(x) - 1))",
    "relu_indicator": "where(x > 0, x, 0)",
    "leaky_indicator": "where(x > 0, x, 0.1*x)",
}
