"""A seventh corpus: activations and losses from papers and framework documentation, typed
as a user would, with constant values the earlier corpora do not use (large and small
inverse temperatures, scales and thresholds: 20, 100, 1e-3, 1e-6) and shapes they do not
have (PyTorch's softplus threshold, logit soft-capping, xIELU, StarReLU, spline bumps,
Dice, Wing/Fair/Andrews losses, KL terms, Poisson/Gaussian NLL of a log-rate ...).

Same fields and references as the first corpus (``tests/robust/corpus_reference.py``);
the judge is ``tests/robust/test_corpus7.py``. ``REFERENCE_TEXT`` gives, for a few
entries, the same function in a form mpmath can evaluate at every sample point.
"""

from __future__ import annotations

import math

from tests.robust.corpus import Published

P = Published

_WING_C = 10.0 - 10.0 * math.log(1 + 10.0 / 2.0)
_SMELU = "where(x <= -b, 0, where(x >= b, x, (x + b)**2/(4*b)))"
_BARRON = "abs(a - 2)/a*(((x/c)**2/abs(a - 2) + 1)**(a/2) - 1)"
_CELU = "max(0, x) + min(0, alpha*(exp(x/alpha) - 1))"
#: Molina et al. 2020's safe PAU 3/2, leaky-ReLU initialisation
PAU_3_2 = "(a0 + a1*x + a2*x**2 + a3*x**3)/(1 + abs(b1*x) + abs(b2*x**2))"
PAU_3_2_CONSTANTS = {
    "a0": 0.02557,
    "a1": 0.66182,
    "a2": 1.58182,
    "a3": 2.94478,
    "b1": 0.95287,
    "b2": 4.18378,
}

CORPUS7: tuple[Published, ...] = (
    # ------------------------------------------------------------ softplus family
    # PyTorch nn.Softplus(beta, threshold): linear above beta*x > threshold
    P(
        "torch_softplus_20",
        "where(beta*x > threshold, x, log(1 + exp(beta*x))/beta)",
        "torch.nn.Softplus(beta=20, threshold=20)",
        {"beta": 20.0, "threshold": 20.0},
        kinks=(1.0,),
    ),
    P(
        "torch_softplus_default",
        "where(x*beta > threshold, x, 1/beta*log1p(exp(beta*x)))",
        "torch.nn.Softplus() documentation",
        {"beta": 1.0, "threshold": 20.0},
        kinks=(20.0,),
    ),
    P(
        "softplus_beta_100",
        "softplus(beta*x)/beta",
        "softplus, beta = 100",
        {"beta": 100.0},
    ),
    P(
        "softplus_beta_small",
        "log(1 + exp(beta*x))/beta",
        "softplus, beta = 1e-3",
        {"beta": 1e-3},
    ),
    P(
        "smooth_relu_temperature",
        "t*log(1 + exp(x/t))",
        "softplus with temperature t = 1e-3",
        {"t": 1e-3},
    ),
    P(
        "logsigmoid_beta",
        "-log(1 + exp(-beta*x))/beta",
        "log-sigmoid with beta = 20",
        {"beta": 20.0},
    ),
    P(
        "soft_clipping_softplus",
        "(softplus(a*x) - softplus(a*(x - 1)))/a",
        "Klimek & Perelstein 2018, with softplus, a = 5",
        {"a": 5.0},
    ),
    # ------------------------------------------------------------ swish family
    P("swish_beta_20", "x*sigmoid(beta*x)", "swish, beta = 20", {"beta": 20.0}),
    P("swish_beta_100", "x/(1 + exp(-beta*x))", "swish, beta = 100", {"beta": 100.0}),
    P("swish_beta_small", "x*sigmoid(beta*x)", "swish, beta = 1e-3", {"beta": 1e-3}),
    P(
        "swish_shifted",
        "(x + c)*sigmoid(beta*x)",
        "swish with a learnable offset",
        {"c": 0.5, "beta": 1.5},
    ),
    P(
        "aptx",
        "(alpha + tanh(beta*x))*gamma*x",
        "Kumar 2022 (APTx)",
        {"alpha": 1.0, "beta": 1.0, "gamma": 0.5},
    ),
    P(
        "sigmoid_temperature",
        "sigmoid(x/t)",
        "sigmoid with temperature t = 1e-3",
        {"t": 1e-3},
    ),
    P(
        "dice",
        "x*sigmoid((x - m)/sqrt(v + eps)) + alpha*x*(1 - sigmoid((x - m)/sqrt(v + eps)))",
        "Zhou et al. 2018 (Dice, inference statistics)",
        {"m": 0.1, "v": 1.5, "eps": 1e-8, "alpha": 0.25},
    ),
    P(
        "gelu_tanh_literal",
        "0.5*x*(1 + tanh(0.7978845608028654*(x + 0.044715*x**3)))",
        "Hendrycks & Gimpel 2016 (tanh approximation, literal constant)",
    ),
    P(
        "gelu_erfc_literal",
        "x*0.5*erfc(-x*0.7071067811865476)",
        "GELU as jax.nn.gelu(approximate=False) writes it",
    ),
    P(
        "mish_softplus",
        "x*tanh(softplus(x))",
        "Misra 2019 with softplus",
    ),
    P(
        "mish_beta",
        "x*tanh(log(1 + exp(beta*x))/beta)",
        "Mish with softplus beta = 20",
        {"beta": 20.0},
    ),
    P(
        "silu_exp_ratio",
        "x*exp(beta*x)/(exp(beta*x) + 1)",
        "swish as exp ratio, beta = 20",
        {"beta": 20.0},
    ),
    # ------------------------------------------------------------ exponential units
    P(
        "elu_expm1_small",
        "where(x > 0, x, alpha*expm1(x))",
        "ELU, alpha = 1e-3",
        {"alpha": 1e-3},
        kinks=(0.0,),
    ),
    P(
        "celu_small",
        _CELU,
        "CELU, alpha = 1e-3",
        {"alpha": 1e-3},
        kinks=(0.0,),
    ),
    P(
        "celu_large",
        _CELU,
        "CELU, alpha = 100",
        {"alpha": 100.0},
        kinks=(0.0,),
    ),
    P(
        "selu_named",
        "scale*(max(0, x) + min(0, alpha*(exp(x) - 1)))",
        "torch.nn.SELU documentation",
        {"scale": 1.0507009873554804, "alpha": 1.6732632423543772},
        kinks=(0.0,),
    ),
    P(
        "hexpo_scaled",
        "where(x >= 0, -a*(exp(-x/b) - 1), c*(exp(x/d) - 1))",
        "Kong & Takatsuka 2017, a=2, b=5, c=0.5, d=0.2",
        {"a": 2.0, "b": 5.0, "c": 0.5, "d": 0.2},
        kinks=(0.0,),
    ),
    P(
        "xielu",
        "where(x > 0, alpha_p*x**2 + beta*x, "
        "alpha_n*(expm1(min(x, eps)) - x) + beta*x)",
        "Huang et al. 2024 (xIELU)",
        {"alpha_p": 0.8, "alpha_n": 0.8, "beta": 0.5, "eps": -1e-6},
        kinks=(0.0, -1e-6),
    ),
    P(
        "gompertz",
        "a*exp(-b*exp(-c*x))",
        "Gompertz function",
        {"a": 1.0, "b": 2.0, "c": 0.5},
    ),
    P(
        "gompertz_steep",
        "exp(-b*exp(-c*x))",
        "Gompertz function, c = 20",
        {"b": 1.0, "c": 20.0},
    ),
    P(
        "exp_loglog_neg",
        "1 - exp(-exp(c*x))",
        "complementary log-log, c = 10",
        {"c": 10.0},
    ),
    # ------------------------------------------------------------ rectifiers
    P(
        "star_relu",
        "s*max(0, x)**2 + b",
        "Yu et al. 2022 (StarReLU)",
        {"s": 0.8944, "b": -0.4472},
        kinks=(0.0,),
    ),
    P("relu_squared", "relu(x)**2", "So et al. 2021 (Primer)", kinks=(0.0,)),
    P(
        "leaky_relu_max",
        "max(x, negative_slope*x)",
        "torch.nn.LeakyReLU(0.2)",
        {"negative_slope": 0.2},
        kinks=(0.0,),
    ),
    P(
        "relu6_hard_sigmoid",
        "min(max(x + 3, 0), 6)/6",
        "torch.nn.Hardsigmoid",
        kinks=(-3.0, 3.0),
    ),
    P(
        "hardtanh_named",
        "clip(x, min_val, max_val)",
        "torch.nn.Hardtanh(-2, 3)",
        {"min_val": -2.0, "max_val": 3.0},
        kinks=(-2.0, 3.0),
    ),
    P(
        "hard_mish",
        "x/2*min(2, max(0, x + 2))",
        "Hard Mish",
        kinks=(-2.0, 0.0),
    ),
    P(
        "smelu",
        _SMELU,
        "Shamir et al. 2020 (SmeLU), b = 2",
        {"b": 2.0},
        kinks=(-2.0, 2.0),
    ),
    P(
        "smelu_small",
        _SMELU,
        "SmeLU, b = 1e-3",
        {"b": 1e-3},
        kinks=(-1e-3, 1e-3),
    ),
    P(
        "relu_if_else",
        "x if x > 0 else 0.01*x",
        "leaky ReLU pasted from Python",
        kinks=(0.0,),
    ),
    P(
        "shifted_relu",
        "max(x, -1)",
        "shifted ReLU (Clevert et al. 2015's baseline)",
        kinks=(-1.0,),
    ),
    P(
        "bounded_relu",
        "min(max(0, x), a)",
        "bounded ReLU, a = 100",
        {"a": 100.0},
        kinks=(0.0, 100.0),
    ),
    # ------------------------------------------------------------ squashing
    P(
        "logit_softcap",
        "cap*tanh(x/cap)",
        "Gemma 2 logit soft-capping, cap = 30",
        {"cap": 30.0},
    ),
    P(
        "softcap_small",
        "c*tanh(x/c)",
        "soft-capping, c = 1e-3",
        {"c": 1e-3},
    ),
    P(
        "elliott_scaled",
        "s*x/(1 + abs(s*x))",
        "Elliott 1993, steepness s = 100",
        {"s": 100.0},
        kinks=(0.0,),
    ),
    P(
        "isru_general",
        "x/(1 + abs(x)**p)**(1/p)",
        "generalised ISRU, p = 3",
        {"p": 3.0},
        kinks=(0.0,),
    ),
    P("isru_small", "x/sqrt(1 + a*x**2)", "ISRU, alpha = 1e-6", {"a": 1e-6}),
    P(
        "soft_abs_tanh",
        "x*tanh(x/eps)",
        "smooth |x| by tanh, eps = 1e-3",
        {"eps": 1e-3},
    ),
    P(
        "soft_sign_power",
        "x/(1 + x**2)",
        "rational bump",
    ),
    P("tanh_scaled_sigmoid", "2*sigmoid(x) - 1", "bipolar sigmoid with sigmoid"),
    P(
        "arctan_scaled",
        "atan(k*x)/k",
        "arctan, k = 1e-3",
        {"k": 1e-3},
    ),
    P(
        "softsign_sqrt",
        "x/sqrt(1 + x**2)",
        "algebraic sigmoid",
    ),
    P(
        "erf_scaled",
        "erf(a*x)",
        "erf activation, a = 20",
        {"a": 20.0},
    ),
    # ------------------------------------------------------------ periodic and bumps
    P("asu", "x*sin(x)", "Rahman et al. 2021 (amplifying sine unit)"),
    P("snake_half", "x + sin(a*x)**2/a", "Liu Ziyin et al. 2020, a = 0.5", {"a": 0.5}),
    P(
        "snake_cos",
        "x + (1 - cos(2*a*x))/(2*a)",
        "Snake with the double-angle identity, a = 1",
        {"a": 1.0},
    ),
    P(
        "snake_beta",
        "x + 1/(b + 1e-9)*sin(a*x)**2",
        "SnakeBeta (BigVGAN) with its epsilon",
        {"a": 1.0, "b": 1.0},
    ),
    P("sin_plus_x", "x + sin(x)", "sinusoidal residual"),
    P(
        "gaussian_sigma_small",
        "exp(-x**2/(2*s**2))",
        "Gaussian RBF, sigma = 1e-3",
        {"s": 1e-3},
    ),
    P(
        "gaussian_sigma_large",
        "exp(-x**2/(2*s**2))",
        "Gaussian RBF, sigma = 100",
        {"s": 100.0},
    ),
    P(
        "cauchy_activation",
        "l1*x/(x**2 + d**2) + l2/(x**2 + d**2)",
        "Li et al. 2024 (XNet Cauchy activation)",
        {"l1": 1.0, "l2": 0.5, "d": 1.0},
    ),
    P(
        "bspline3",
        "where(abs(x) >= 2, 0, where(abs(x) >= 1, (2 - abs(x))**3/6, "
        "2/3 - x**2 + abs(x)**3/2))",
        "cubic B-spline basis (KAN-style)",
        kinks=(-2.0, -1.0, 0.0, 1.0, 2.0),
    ),
    P(
        "bspline1_piecewise",
        "Piecewise((0, x < -1), (1 + x, x < 0), (1 - x, x < 1), (0, True))",
        "hat function (linear B-spline)",
        kinks=(-1.0, 0.0, 1.0),
    ),
    # ------------------------------------------------------------ rational
    P(
        "pau_3_2",
        PAU_3_2,
        "Molina et al. 2020, PAU 3/2 (leaky ReLU init)",
        PAU_3_2_CONSTANTS,
    ),
    P(
        "rational_unsafe",
        "(x**3 + 2*x**2 + x)/(x**2 + 1)",
        "rational activation without abs",
    ),
    P(
        "rational_lrelu",
        "(1.1915 + 1.5957*x + 0.5*x**2 + 0.0218*x**3)/(1 + 2.383*x**2)",
        "Boulle et al. 2020 (rational, ReLU approximation)",
    ),
    # ------------------------------------------------------------ robust losses
    P(
        "huber_small",
        "where(abs(x) <= d, x**2/2, d*(abs(x) - d/2))",
        "Huber, delta = 1e-3",
        {"d": 1e-3},
        kinks=(-1e-3, 1e-3),
    ),
    P(
        "huber_large",
        "where(abs(x) < delta, 0.5*x**2, delta*(abs(x) - 0.5*delta))",
        "torch.nn.HuberLoss(delta=100)",
        {"delta": 100.0},
        kinks=(-100.0, 100.0),
    ),
    P(
        "smooth_l1_beta",
        "where(abs(x) < beta, 0.5*x**2/beta, abs(x) - 0.5*beta)",
        "torch.nn.SmoothL1Loss(beta=0.1)",
        {"beta": 0.1},
        kinks=(-0.1, 0.1),
    ),
    P(
        "log_cosh_scaled",
        "c**2*log(cosh(x/c))",
        "log-cosh with scale c = 1e-3",
        {"c": 1e-3},
    ),
    P(
        "charbonnier_general",
        "(x**2 + eps**2)**alpha",
        "Sun et al. 2010, generalised Charbonnier, alpha = 0.45",
        {"eps": 1e-3, "alpha": 0.45},
    ),
    P(
        "charbonnier_tiny",
        "sqrt(x**2 + eps)",
        "Charbonnier, eps = 1e-6 (added, not squared)",
        {"eps": 1e-6},
    ),
    P(
        "cauchy_large",
        "c**2/2*log(1 + (x/c)**2)",
        "Cauchy loss, c = 100",
        {"c": 100.0},
    ),
    P(
        "geman_mcclure_plain",
        "x**2/(x**2 + s**2)",
        "Geman & McClure, sigma = 0.5",
        {"s": 0.5},
    ),
    P(
        "welsch_small",
        "c**2/2*(1 - exp(-(x/c)**2))",
        "Welsch, c = 1e-3",
        {"c": 1e-3},
    ),
    P(
        "tukey_where",
        "where(abs(x) <= c, c**2/6*(1 - (1 - x**2/c**2)**3), c**2/6)",
        "Tukey biweight, c = 4.6851",
        {"c": 4.6851},
        kinks=(-4.6851, 4.6851),
    ),
    P(
        "fair",
        "c**2*(abs(x)/c - log(1 + abs(x)/c))",
        "Fair loss, c = 1.3998",
        {"c": 1.3998},
    ),
    P(
        "andrews_wave",
        "where(abs(x) <= pi*c, c**2*(1 - cos(x/c)), 2*c**2)",
        "Andrews 1974, c = 1.339",
        {"c": 1.339},
        kinks=(-math.pi * 1.339, math.pi * 1.339),
    ),
    P(
        "wing",
        "where(abs(x) < w, w*log(1 + abs(x)/eps), abs(x) - C)",
        "Feng et al. 2018 (Wing loss)",
        {"w": 10.0, "eps": 2.0, "C": _WING_C},
        kinks=(-10.0, 0.0, 10.0),
    ),
    P(
        "l1_l2",
        "2*(sqrt(1 + x**2/2) - 1)",
        "L1-L2 loss",
    ),
    P(
        "barron_alpha_4",
        _BARRON,
        "Barron 2019, alpha = 4",
        {"a": 4.0, "c": 1.0},
    ),
    P(
        "barron_alpha_minus_10",
        _BARRON,
        "Barron 2019, alpha = -10, c = 0.1",
        {"a": -10.0, "c": 0.1},
    ),
    P(
        "barron_alpha_1",
        _BARRON,
        "Barron 2019, alpha = 1 (pseudo-Huber)",
        {"a": 1.0, "c": 2.0},
    ),
    P(
        "quantile_where",
        "where(x >= 0, q*x, (q - 1)*x)",
        "pinball loss, q = 0.1",
        {"q": 0.1},
        kinks=(0.0,),
    ),
    P(
        "quantile_huber",
        "where(x >= 0, q, 1 - q)*where(abs(x) <= k, x**2/(2*k), abs(x) - k/2)",
        "quantile Huber (Dabney et al. 2018), q = 0.25, kappa = 1",
        {"q": 0.25, "k": 1.0},
        kinks=(-1.0, 0.0, 1.0),
    ),
    P(
        "eps_insensitive_squared",
        "max(0, abs(x) - eps)**2",
        "squared epsilon-insensitive loss",
        {"eps": 0.5},
        kinks=(-0.5, 0.5),
    ),
    # ------------------------------------------------------------ losses of a margin/logit
    P(
        "focal_gamma_half",
        "-alpha*(1 - sigmoid(x))**gamma*log(sigmoid(x))",
        "Lin et al. 2017, gamma = 0.5, alpha = 0.25",
        {"alpha": 0.25, "gamma": 0.5},
    ),
    P(
        "focal_gamma_5",
        "-(1 - sigmoid(x))**gamma*log(sigmoid(x))",
        "Lin et al. 2017, gamma = 5",
        {"gamma": 5.0},
    ),
    P("exponential_loss", "exp(-x)", "AdaBoost exponential loss"),
    P(
        "modified_huber",
        "where(x >= -1, max(0, 1 - x)**2, -4*x)",
        "Zhang 2004 (modified Huber)",
        kinks=(-1.0, 1.0),
    ),
    P(
        "smooth_hinge",
        "where(x <= 0, 0.5 - x, where(x < 1, (1 - x)**2/2, 0))",
        "Rennie & Srebro 2005 (smooth hinge)",
        kinks=(0.0, 1.0),
    ),
    P(
        "logistic_margin_neg",
        "log1p(exp(-y*x))",
        "logistic loss with label y = -1",
        {"y": -1.0},
    ),
    P(
        "bce_label_smoothing",
        "-(t*log(sigmoid(x)) + (1 - t)*log(1 - sigmoid(x)))",
        "BCE with label smoothing, t = 0.95",
        {"t": 0.95},
    ),
    P(
        "bernoulli_kl",
        "t*log(t/sigmoid(x)) + (1 - t)*log((1 - t)/(1 - sigmoid(x)))",
        "KL(Bernoulli(t) || Bernoulli(sigmoid(x))), t = 0.2",
        {"t": 0.2},
    ),
    P(
        "vae_kl_logvar",
        "-0.5*(1 + x - mu**2 - exp(x))",
        "Kingma & Welling 2014, KL term in the log-variance",
        {"mu": 0.3},
    ),
    P(
        "poisson_nll_log",
        "exp(x) - y*x",
        "torch.nn.PoissonNLLLoss(log_input=True), y = 3",
        {"y": 3.0},
    ),
    P(
        "gaussian_nll_logvar",
        "0.5*(x + r**2*exp(-x))",
        "Gaussian NLL in the log-variance, residual r = 2",
        {"r": 2.0},
    ),
    P(
        "tweedie",
        "-y*exp((1 - p)*x)/(1 - p) + exp((2 - p)*x)/(2 - p)",
        "Tweedie deviance in the log-mean, p = 1.5",
        {"y": 2.0, "p": 1.5},
    ),
    P(
        "siglip",
        "-logsigmoid(z*(t*x + b))",
        "Zhai et al. 2023 (SigLIP), negative pair",
        {"z": -1.0, "t": 10.0, "b": -10.0},
    ),
    P(
        "squared_log_error",
        "(log1p(x) - log1p(y))**2",
        "squared logarithmic error, y = 2",
        {"y": 2.0},
        kinks=(-1.0,),  # the domain's edge: f' is -inf from the right
    ),
    P(
        "log_barrier",
        "-log(1 - x**2)",
        "log barrier on (-1, 1)",
        kinks=(-1.0, 1.0),  # the domain's edges: f' is -inf and +inf
    ),
    # ------------------------------------------------------------ pasted code, extremes
    P(
        "hardswish_if_else",
        "0 if x < -3 else (x if x > 3 else x*(x + 3)/6)",
        "Howard et al. 2019 pasted from Python",
        kinks=(-3.0, 3.0),
    ),
    P(
        "torch_where_leaky",
        "torch.where(x > 0, x, 0.2*x)",
        "leaky ReLU pasted from PyTorch",
        kinks=(0.0,),
    ),
    P(
        "np_maximum_leaky",
        "np.maximum(x, 0.1*x)",
        "leaky ReLU pasted from NumPy",
        kinks=(0.0,),
    ),
    P("functional_softplus", "F.softplus(x, beta=2)", "torch.nn.functional.softplus"),
    P(
        "hat_and_conditions",
        "Piecewise((x, (x > 0) & (x < 1)), (1, x >= 1), (0, True))",
        "clipped ramp with a conjunction",
        kinks=(0.0, 1.0),
    ),
    P("cubic_relu", "max(x, 0)**3/6", "truncated power basis, degree 3", kinks=(0.0,)),
    P("cos_laplace", "cos(x)*exp(-abs(x))", "damped cosine", kinks=(0.0,)),
    P(
        "logaddexp_two_slopes",
        "log(exp(a*x) + exp(b*x))",
        "log-sum-exp of two lines",
        {"a": 1.0, "b": -2.0},
    ),
    P(
        "log_cosh_beta",
        "log(cosh(beta*x))/beta",
        "log-cosh with beta = 20",
        {"beta": 20.0},
    ),
    P("sigmoid_power", "sigmoid(x)**k", "sigmoid power, k = 0.3", {"k": 0.3}),
    P(
        "swish_beta_tiny",
        "x*sigmoid(beta*x)",
        "swish, beta = 1e-30",
        {"beta": 1e-30},
    ),
    P(
        "softplus_beta_huge",
        "log(1 + exp(beta*x))/beta",
        "softplus, beta = 1e20",
        {"beta": 1e20},
    ),
    P("celu_tiny", _CELU, "CELU, alpha = 1e-20", {"alpha": 1e-20}, kinks=(0.0,)),
    P(
        "elu_huge_alpha",
        "where(x > 0, x, alpha*(exp(x) - 1))",
        "ELU, alpha = 1e30",
        {"alpha": 1e30},
        kinks=(0.0,),
    ),
    P(
        "gelu_scaled",
        "0.5*x*(1 + erf(x/(s*sqrt(2))))",
        "GELU of x/s, s = 1e-3",
        {"s": 1e-3},
    ),
    P(
        "logsigmoid_beta_small",
        "log(sigmoid(beta*x))/beta",
        "log-sigmoid, beta = 1e-3",
        {"beta": 1e-3},
    ),
    P(
        "pseudo_huber_tiny",
        "d**2*(sqrt(1 + (x/d)**2) - 1)",
        "pseudo-Huber, delta = 1e-6",
        {"d": 1e-6},
    ),
    P(
        "welsch_large",
        "c**2/2*(1 - exp(-(x/c)**2))",
        "Welsch, c = 1e10",
        {"c": 1e10},
    ),
    P(
        "sigmoid_entropy",
        "-(sigmoid(x)*log(sigmoid(x)) + (1 - sigmoid(x))*log(1 - sigmoid(x)))",
        "entropy of a Bernoulli(sigmoid(x))",
    ),
    P("x_erfc", "x*erfc(x)", "x erfc(x)"),
    P("erfcx_typed", "exp(x**2)*erfc(x)", "scaled complementary error function"),
    P(
        "inverse_mills",
        "exp(-x**2/2)/erfc(x/sqrt(2))",
        "inverse Mills ratio (normal hazard times sqrt(pi/2))",
    ),
    P(
        "barron_alpha_small",
        _BARRON,
        "Barron 2019, alpha = 0.01",
        {"a": 0.01, "c": 1.0},
    ),
    P(
        "charbonnier_shifted_large",
        "sqrt(x**2 + eps**2) - eps",
        "shifted Charbonnier, eps = 1e10",
        {"eps": 1e10},
    ),
)

#: Same functions in a form mpmath evaluates at every sample point.
REFERENCE_TEXT: dict[str, str] = {
    "relu_if_else": "where(x > 0, x, 0.01*x)",
    "bernoulli_kl": "t*log(t) + (1 - t)*log(1 - t) + t*log(1 + exp(-x))"
    " + (1 - t)*log(1 + exp(x))",
    "bce_label_smoothing": "t*log(1 + exp(-x)) + (1 - t)*log(1 + exp(x))",
    "focal_gamma_half": "alpha*sigmoid(-x)**gamma*log(1 + exp(-x))",
    "focal_gamma_5": "sigmoid(-x)**gamma*log(1 + exp(-x))",
    # Python's conditional, PyTorch and NumPy spellings: SymPy's parser cannot read them
    "hardswish_if_else": "where(x < -3, 0, where(x > 3, x, x*(x + 3)/6))",
    "torch_where_leaky": "where(x > 0, x, 0.2*x)",
    "np_maximum_leaky": "max(x, 0.1*x)",
    "functional_softplus": "log(1 + exp(2*x))/2",
    "sigmoid_entropy": "sigmoid(x)*log(1 + exp(-x)) + sigmoid(-x)*log(1 + exp(x))",
}
