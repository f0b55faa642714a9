"""A tenth corpus: activations of 2017-2025 papers and code (SMU, ErfAct, Serf, GCU,
ASU, Dice, PDELU, StarReLU, Padé units, Kumaraswamy and Gompertz squashes, library
spellings of TensorFlow, Keras and JAX) and losses of the residual, the margin or a
rate (wing and adaptive wing, balanced L1, Cauchy, Welsch and Charbonnier at extreme
scales, Tsallis entmax pieces, KL and Poisson pieces, gamma and Tweedie deviances,
Gumbel, Weibull, log-logistic and Laplace likelihoods, asymmetric and class-weighted
cross-entropy), typed as users paste them: PyTorch ``torch.*``/``F.*``/tensor methods,
NumPy, JAX, TensorFlow, Keras, SciPy, ``math``, a lambda, a ``def`` with locals,
conditional expressions and LaTeX, with constants from 1e-8 to 1e8, zero and negative.

Same fields and references as the first corpus (``tests/robust/corpus_reference.py``);
the judge is ``tests/robust/test_corpus10.py``. ``REFERENCE_TEXT`` gives the same
function in a form SymPy's parser reads and mpmath evaluates at every sample point,
written from the published definition, for every entry whose text is not plain formula
syntax.
"""

from __future__ import annotations

import math

from tests.robust.corpus import Published

P = Published

# Feng et al. 2018 (wing loss), w = 10, epsilon = 2: C joins the two pieces at |x| = w.
_WING_W, _WING_E = 10.0, 2.0
_WING_C = _WING_W - _WING_W * math.log(1 + _WING_W / _WING_E)

# Wang et al. 2019 (adaptive wing loss), omega = 14, theta = 0.5, epsilon = 1,
# alpha = 2.1, target y = 0.5 (exponent alpha - y = 1.6); A and C as in the paper.
_AW_OMEGA, _AW_THETA, _AW_EPS, _AW_POW = 14.0, 0.5, 1.0, 1.6
_AW_A = (
    _AW_OMEGA
    / (1 + (_AW_THETA / _AW_EPS) ** _AW_POW)
    * _AW_POW
    * (_AW_THETA / _AW_EPS) ** (_AW_POW - 1)
    / _AW_EPS
)
_AW_C = _AW_THETA * _AW_A - _AW_OMEGA * math.log(1 + (_AW_THETA / _AW_EPS) ** _AW_POW)

# Pang et al. 2019 (balanced L1, Libra R-CNN), alpha = 0.5, gamma = 1.5,
# b = e^(gamma/alpha) - 1; the linear piece's constant gamma/b - alpha joins at |x| = 1.
_BL1_ALPHA, _BL1_GAMMA = 0.5, 1.5
_BL1_B = math.exp(_BL1_GAMMA / _BL1_ALPHA) - 1

_PAU_44 = "(a0 + a1*x + a2*x**2 + a3*x**3 + a4*x**4)/(1 + abs(b1*x) + abs(b2*x**2) + abs(b3*x**3) + abs(b4*x**4))"

CORPUS10: tuple[Published, ...] = (
    # ------------------------------------------------------------ smooth ReLU approximations
    P(
        "smu_mu_1e6",
        "((1 + a)*x + (1 - a)*x*torch.erf(mu*(1 - a)*x))/2",
        "Biswas et al. 2022 (SMU), alpha = 0.25, mu = 1e6",
        {"a": 0.25, "mu": 1e6},
    ),
    P(
        "smu1_mu_tiny",
        "((1 + a)*x + torch.sqrt(((1 - a)*x)**2 + mu**2))/2",
        "Biswas et al. 2022 (SMU-1), alpha = 0.25, mu = 1e-8",
        {"a": 0.25, "mu": 1e-8},
    ),
    P(
        "smu_latex",
        r"\frac{(1 + \alpha) x + (1 - \alpha) x \operatorname{erf}\left(\mu (1 - \alpha)"
        r" x\right)}{2}",
        "Biswas et al. 2022 (SMU), LaTeX, alpha = 0.01, mu = 2.5",
        {"alpha": 0.01, "mu": 2.5},
    ),
    P(
        "erfact_jnp",
        "x*jax.scipy.special.erf(a*jnp.exp(b*x))",
        "Biswas et al. 2021 (ErfAct), JAX, alpha = 0.75, beta = 0.75",
        {"a": 0.75, "b": 0.75},
    ),
    P(
        "pserf_logaddexp",
        "x*scipy.special.erf(g*np.logaddexp(0, d*x))",
        "Biswas et al. 2021 (Pserf), NumPy/SciPy, gamma = 1.25, delta = 0.85",
        {"g": 1.25, "d": 0.85},
    ),
    P(
        "serf_jax_softplus",
        "x*jax.scipy.special.erf(jax.nn.softplus(x))",
        "Nag et al. 2023 (Serf), JAX",
    ),
    P(
        "logish_np_log1p",
        "x*np.log1p(1/(1 + np.exp(-x)))",
        "Zhu et al. 2021 (Logish), NumPy",
    ),
    P(
        "smish_def_locals",
        "def smish(x):\n    s = torch.sigmoid(x)\n    l = torch.log(1 + s)\n"
        "    return x * torch.tanh(l)",
        "Wang et al. 2022 (Smish) as a def with locals",
    ),
    P(
        "tanhexp_lambda",
        "lambda x: x * torch.tanh(torch.exp(x))",
        "Liu & Di 2020 (TanhExp) as a lambda",
    ),
    P(
        "phish_torch",
        "x*torch.tanh(F.gelu(x))",
        "Naveen 2022 (Phish), PyTorch",
    ),
    P(
        "aptx_beta_1e3",
        "(a + torch.tanh(b*x))*g*x",
        "Kumar 2022 (APTx), alpha = 1, beta = 1e3, gamma = 0.5 (a sharp ReLU)",
        {"a": 1.0, "b": 1e3, "g": 0.5},
    ),
    P(
        "silu_zero_at_shift",
        "F.silu(x + b) - F.silu(torch.tensor(b))",
        "SiLU shifted by b = 1 and lowered to pass through 0",
        {"b": 1.0},
    ),
    P(
        "sigmoid_bump_pair",
        "torch.sigmoid(x + w) - torch.sigmoid(x - w)",
        "difference of logistics (a smooth bump), w = 1",
        {"w": 1.0},
    ),
    P(
        "squared_relu_square_call",
        "torch.square(F.relu(x))",
        "So et al. 2021 (Primer squared ReLU), torch.square",
        kinks=(0.0,),
    ),
    P(
        "star_relu_metaformer",
        "s*torch.pow(F.relu(x), 2) + b",
        "Yu et al. 2022 (MetaFormer StarReLU), s = 0.8944, b = -0.4472, torch.pow",
        {"s": 0.8944, "b": -0.4472},
        kinks=(0.0,),
    ),
    P(
        "dice_tiny_variance",
        "torch.sigmoid((x - m)/torch.sqrt(v + eps))*x"
        " + (1 - torch.sigmoid((x - m)/torch.sqrt(v + eps)))*a*x",
        "Zhou et al. 2018 (Dice) at batch mean 0.1, variance 0, eps = 1e-8, alpha = 0.25",
        {"m": 0.1, "v": 0.0, "eps": 1e-8, "a": 0.25},
    ),
    P(
        "pdelu_t_1_5",
        "where(x > 0, x, a*((1 + (1 - t)*x)**(1/(1 - t)) - 1))",
        "Cheng et al. 2020 (PDELU), alpha = 1, t = 1.5",
        {"a": 1.0, "t": 1.5},
        kinks=(0.0,),
    ),
    P(
        "celu_alpha_1e8",
        "F.celu(x, alpha=1e8)",
        "Barron 2017 (CELU), alpha = 1e8 (linear on both sides), PyTorch",
        kinks=(0.0,),
    ),
    P(
        "gelu_sigma_tiny",
        "x*(1 + erf(x/(s*sqrt(2))))/2",
        "GELU of a Gaussian with sigma = 1e-8 (a ReLU)",
        {"s": 1e-8},
        kinks=(0.0,),
    ),
    P(
        "elish_torch_where",
        "torch.where(x >= 0, x*torch.sigmoid(x), (torch.exp(x) - 1)*torch.sigmoid(x))",
        "Basirat & Roth 2018 (ELiSH), PyTorch",
        kinks=(0.0,),
    ),
    P(
        "soft_root_sign_a2_b3",
        "x/(x/a + torch.exp(-x/b))",
        "Zhou et al. 2020 (soft-root-sign), alpha = 2, beta = 3",
        {"a": 2.0, "b": 3.0},
    ),
    P(
        "atan_gated_linear",
        "x*(0.5 + torch.atan(x)/math.pi)",
        "arctangent-gated linear unit (Cauchy CDF gate)",
    ),
    P(
        "keras_gelu_approximate",
        "keras.activations.gelu(x, approximate=True)",
        "GELU tanh approximation, Keras",
    ),
    P("tf_relu6", "tf.nn.relu6(x)", "ReLU6, TensorFlow", kinks=(0.0, 6.0)),
    P("jax_hard_tanh", "jax.nn.hard_tanh(x)", "hard tanh, jax.nn", kinks=(-1.0, 1.0)),
    P(
        "silu_shift_huge",
        "(x - s)*torch.sigmoid(x - s)",
        "SiLU shifted by s = 1e8",
        {"s": 1e8},
    ),
    P(
        "leaky_relu_slope_negative",
        "F.leaky_relu(x, negative_slope=-0.5)",
        "leaky ReLU with a negative slope (a V shape), PyTorch",
        kinks=(0.0,),
    ),
    P(
        "relu_cap_tiny",
        "torch.clamp(x, min=0, max=c)",
        "ReLU capped at c = 1e-8",
        {"c": 1e-8},
        kinks=(0.0, 1e-8),
    ),
    P(
        "relu_tanh",
        "np.maximum(0, np.tanh(x))",
        "rectified tanh, NumPy",
        kinks=(0.0,),
    ),
    P(
        "sqrt_relu_eps",
        "torch.sqrt(F.relu(x) + 1e-8)",
        "square root of ReLU with a floor 1e-8",
        kinks=(0.0,),
    ),
    # ------------------------------------------------------------ squashes, sigmoids
    P(
        "kumaraswamy_sigmoid",
        "1 - (1 - torch.sigmoid(x)**a)**b",
        "Kumaraswamy CDF of a sigmoid, a = 2, b = 3",
        {"a": 2.0, "b": 3.0},
    ),
    P(
        "gompertz_tiny_b",
        "a*np.exp(-b*np.exp(-c*x))",
        "Gompertz curve, a = 1, b = 1e-8, c = 2",
        {"a": 1.0, "b": 1e-8, "c": 2.0},
    ),
    P(
        "gompertz_latex",
        r"a e^{-b e^{-c x}}",
        "Gompertz curve, LaTeX, a = 2, b = 5, c = 0.5",
        {"a": 2.0, "b": 5.0, "c": 0.5},
    ),
    P(
        "softsign_generalized_p3",
        "x/(1 + abs(x)**p)**(1/p)",
        "generalized softsign, p = 3",
        {"p": 3.0},
        kinks=(0.0,),
    ),
    P(
        "isru_alpha_1e8",
        "x/tf.sqrt(1 + a*x*x)",
        "Carlile et al. 2017 (ISRU), alpha = 1e8, TensorFlow",
        {"a": 1e8},
    ),
    P(
        "isrlu_rsqrt",
        "torch.where(x >= 0, x, x*torch.rsqrt(1 + a*x**2))",
        "Carlile et al. 2017 (ISRLU) with rsqrt, alpha = 3",
        {"a": 3.0},
        kinks=(0.0,),
    ),
    P(
        "hexpo_asymmetric",
        "where(x >= 0, -a*(exp(-x/b) - 1), c*(exp(x/d) - 1))",
        "Kong & Takatsuka 2017 (Hexpo), a = 2, b = 1e3, c = 0.5, d = 1e-3",
        {"a": 2.0, "b": 1e3, "c": 0.5, "d": 1e-3},
        kinks=(0.0,),
    ),
    P(
        "tanh_steep_1e8",
        "torch.tanh(k*x)",
        "steep tanh, k = 1e8",
        {"k": 1e8},
    ),
    P(
        "tanh_softcap_1e8",
        "c*torch.tanh(x/c)",
        "tanh soft cap at c = 1e8",
        {"c": 1e8},
    ),
    P(
        "sigmoid_shift_1e8",
        "torch.sigmoid(x - s)",
        "sigmoid shifted by s = 1e8",
        {"s": 1e8},
    ),
    P(
        "softmax_pair_exp",
        "np.exp(x)/(np.exp(x) + np.exp(c))",
        "two-way softmax against a logit c = 1e3, NumPy (exp(c) overflows)",
        {"c": 1e3},
    ),
    P(
        "log_softmax_pair",
        "x - torch.log(torch.exp(x) + torch.exp(c))",
        "two-way log-softmax against a logit c = -50",
        {"c": -50.0},
    ),
    P(
        "erf_unit_slope",
        "math.sqrt(math.pi)/2*math.erf(x)",
        "error function with unit slope at 0, math",
    ),
    P(
        "arctan_unit_slope",
        "2/np.pi*np.arctan(np.pi/2*x)",
        "arctangent squash with unit slope at 0, NumPy",
    ),
    P(
        "capsule_squash_scalar",
        "x**2/(1 + x**2)*x/torch.abs(x)",
        "Sabour et al. 2017 (capsule squash) of one component",
        kinks=(0.0,),
        removable=(0.0,),
    ),
    P(
        "softsign_scaled_latex",
        r"\frac{x}{c + \left| x \right|}",
        "softsign with a scale, LaTeX, c = 1e-8",
        {"c": 1e-8},
        kinks=(0.0,),
    ),
    # ------------------------------------------------------------ oscillating units, Padé
    P(
        "gcu_freq_1e3",
        "x*torch.cos(w*x)",
        "Noel et al. 2021 (GCU) with frequency w = 1e3",
        {"w": 1e3},
    ),
    P(
        "snake_a_1e3",
        "x + torch.sin(a*x)**2/a",
        "Ziyin et al. 2020 (Snake), a = 1e3",
        {"a": 1e3},
    ),
    P(
        "snake_cos_form",
        "x + (1 - torch.cos(2*a*x))/(2*a)",
        "Ziyin et al. 2020 (Snake) in the cosine form, a = 0.2",
        {"a": 0.2},
    ),
    P(
        "sinc_np_wide",
        "np.sinc(x/w)",
        "NumPy sinc with width w = 1e4",
        {"w": 1e4},
        removable=(0.0,),
    ),
    P(
        "cosid",
        "torch.cos(x) - x",
        "cosid (cosine minus the identity)",
    ),
    P(
        "sine_gated_linear",
        "x*(1 + torch.sin(x))/2",
        "sine-gated linear unit",
    ),
    P(
        "pau_4_4_negative",
        _PAU_44,
        "Molina et al. 2020 (PAU 4/4, safe) with negative coefficients",
        {
            "a0": -0.0335,
            "a1": 0.5,
            "a2": 1.1856,
            "a3": -0.4223,
            "a4": 0.1062,
            "b1": -0.7651,
            "b2": 0.5032,
            "b3": -0.0518,
            "b4": 0.2121,
        },
        kinks=(0.0,),
    ),
    P(
        "rational_odd_3_2",
        "(x**3 - 2*x)/(x**2 + 1)",
        "odd rational unit with negative coefficients",
    ),
    P(
        "pade_sigmoid_2_2",
        "(x**2 + 6*x + 12)/(2*(x**2 + 12))",
        "a [2/2] rational sigmoid, 1/2 + x/(4 + x^2/3) written over one denominator",
    ),
    # ------------------------------------------------------------ residual losses
    P(
        "wing_torch_methods",
        "torch.where(x.abs() < w, w*torch.log(1 + x.abs()/e), x.abs() - C)",
        "Feng et al. 2018 (wing loss), w = 10, epsilon = 2, tensor methods",
        {"w": _WING_W, "e": _WING_E, "C": _WING_C},
        kinks=(-10.0, 0.0, 10.0),
    ),
    P(
        "adaptive_wing_y_half",
        "where(abs(x) < t, o*log(1 + abs(x/e)**p), A*abs(x) - C)",
        "Wang et al. 2019 (adaptive wing), omega = 14, theta = 0.5, eps = 1,"
        " alpha = 2.1, y = 0.5",
        {
            "t": _AW_THETA,
            "o": _AW_OMEGA,
            "e": _AW_EPS,
            "p": _AW_POW,
            "A": _AW_A,
            "C": _AW_C,
        },
        kinks=(-0.5, 0.0, 0.5),
    ),
    P(
        "balanced_l1",
        "torch.where(torch.abs(x) < 1, a/b*(b*torch.abs(x) + 1)*torch.log(b*torch.abs(x)"
        " + 1) - a*torch.abs(x), g*torch.abs(x) + g/b - a)",
        "Pang et al. 2019 (balanced L1), alpha = 0.5, gamma = 1.5",
        {"a": _BL1_ALPHA, "g": _BL1_GAMMA, "b": _BL1_B},
        kinks=(-1.0, 0.0, 1.0),
    ),
    P(
        "cauchy_c_tiny",
        "c**2/2*torch.log1p((x/c)**2)",
        "Cauchy/Lorentzian loss, c = 1e-8",
        {"c": 1e-8},
    ),
    P(
        "cauchy_nll_gamma_1e4",
        "math.log(math.pi*g) + torch.log1p((x/g)**2)",
        "Cauchy negative log-likelihood, gamma = 1e4",
        {"g": 1e4},
    ),
    P(
        "welsch_c_tiny",
        "c**2/2*(1 - torch.exp(-(x/c)**2))",
        "Welsch loss, c = 1e-8",
        {"c": 1e-8},
    ),
    P(
        "geman_mcclure_two",
        "2*x**2/(x**2 + 4)",
        "Geman-McClure as in Barron 2019 (alpha = -2), c = 1",
    ),
    P(
        "charbonnier_pwcnet",
        "(x**2 + eps**2)**q",
        "Sun et al. 2018 (PWC-Net robust loss), eps = 0.01, q = 0.4",
        {"eps": 0.01, "q": 0.4},
    ),
    P(
        "charbonnier_eps_1e8_latex",
        r"\sqrt{x^{2} + \varepsilon^{2}}",
        "Charbonnier, LaTeX, epsilon = 1e8",
        {"varepsilon": 1e8},
    ),
    P(
        "logcosh_keras_softplus",
        "x + tf.nn.softplus(-2.0*x) - tf.math.log(2.0)",
        "log-cosh as Keras computes it, TensorFlow",
    ),
    P(
        "logcosh_jnp",
        "jnp.log(jnp.cosh(x))",
        "log-cosh typed naively, JAX",
    ),
    P(
        "logcosh_a_1e8",
        "torch.log(torch.cosh(a*x))/a",
        "scaled log-cosh, a = 1e8",
        {"a": 1e8},
    ),
    P(
        "logcosh_frac_latex",
        r"\frac{1}{a}\log\left(\cosh\left(a x\right)\right)",
        "scaled log-cosh, LaTeX, a = 1e-3",
        {"a": 1e-3},
    ),
    P(
        "truncated_l1_tiny",
        "torch.clamp(x.abs(), max=t)",
        "truncated L1, t = 1e-8",
        {"t": 1e-8},
        kinks=(-1e-8, 0.0, 1e-8),
    ),
    P(
        "laplace_nll_scale_tiny",
        "torch.log(2*b) + torch.abs(x)/b",
        "Laplace negative log-likelihood, b = 1e-8",
        {"b": 1e-8},
        kinks=(0.0,),
    ),
    P(
        "quantile_torch_max",
        "torch.max(q*x, (q - 1)*x)",
        "quantile loss as an elementwise max, q = 0.99",
        {"q": 0.99},
        kinks=(0.0,),
    ),
    P(
        "quantile_latex_cases",
        r"\begin{cases} \tau x & x \ge 0 \\ (\tau - 1) x & x < 0 \end{cases}",
        "pinball loss, LaTeX cases, tau = 0.5",
        {"tau": 0.5},
        kinks=(0.0,),
    ),
    P(
        "huber_if_else_huge",
        "0.5*x**2 if abs(x) <= d else d*(abs(x) - 0.5*d)",
        "Huber as a conditional expression, delta = 1e8",
        {"d": 1e8},
        kinks=(-1e8, 1e8),
    ),
    P(
        "msle_target",
        "(torch.log1p(x) - math.log1p(y))**2",
        "squared log error against a target y = 1.5 (at y = 1 the complex logs of the"
        " reference cancel to a real -pi^2 at the sample point x = -3)",
        {"y": 1.5},
        kinks=(-1.0,),
    ),
    # ------------------------------------------------------------ margin losses
    P(
        "modified_huber_sklearn",
        "where(x >= -1, max(0, 1 - x)**2, -4*x)",
        "Zhang 2004 (modified Huber) as scikit-learn defines it",
        kinks=(-1.0, 1.0),
    ),
    P(
        "bce_pos_weight_huge",
        "pw*y*F.softplus(-x) + (1 - y)*F.softplus(x)",
        "BCE with logits, pos_weight = 1e3, target 0.5",
        {"pw": 1e3, "y": 0.5},
    ),
    P(
        "asl_negative",
        "-torch.clamp(torch.sigmoid(x) - m, min=0)**g"
        "*torch.log(1 - torch.clamp(torch.sigmoid(x) - m, min=0))",
        "Ridnik et al. 2021 (asymmetric loss), negative label, gamma = 4, m = 0.05",
        {"g": 4.0, "m": 0.05},
        kinks=(math.log(0.05 / 0.95),),
    ),
    P(
        "asl_positive",
        "-(1 - torch.sigmoid(x))**g*torch.log(torch.sigmoid(x))",
        "Ridnik et al. 2021 (asymmetric loss), positive label, gamma = 1",
        {"g": 1.0},
    ),
    P(
        "focal_alpha_quarter",
        "-alpha*(1 - torch.sigmoid(x))**gamma*F.logsigmoid(x)",
        "Lin et al. 2017 (focal loss), alpha = 0.25, gamma = 2, positive label",
        {"alpha": 0.25, "gamma": 2.0},
    ),
    P(
        "entmax15_piece",
        "torch.clamp(x/2 - tau, min=0)**2",
        "Peters et al. 2019 (1.5-entmax) probability of a score, tau = 0.3",
        {"tau": 0.3},
        kinks=(0.6,),
    ),
    P(
        "entmax_alpha_1_25",
        "F.relu((a - 1)*x - tau)**(1/(a - 1))",
        "Peters et al. 2019 (alpha-entmax), alpha = 1.25, tau = -0.1",
        {"a": 1.25, "tau": -0.1},
        kinks=(-0.4,),
    ),
    P(
        "sparsemax_piece",
        "max(x - tau, 0)",
        "Martins & Astudillo 2016 (sparsemax) of a score, tau = 1e-8",
        {"tau": 1e-8},
        kinks=(1e-8,),
    ),
    # ------------------------------------------------------------ losses of a rate, likelihoods
    P(
        "kl_prob_element",
        "y*torch.log(y/x)",
        "KL(y || x) of one element, target y = 0.3",
        {"y": 0.3},
        kinks=(0.0,),
    ),
    P(
        "generalized_kl_xlogy",
        "torch.xlogy(x, x/y) - x + y",
        "generalized KL divergence of a rate x against y = 0.5, torch.xlogy",
        {"y": 0.5},
        kinks=(0.0,),
    ),
    P(
        "poisson_nll_rate_eps",
        "x - y*torch.log(x + eps)",
        "PyTorch poisson_nll_loss(log_input=False), target 2, eps = 2^-27 (a float32"
        " holds it exactly: 1e-8 rounds, and the pole moves off the sampled -1e-8)",
        {"y": 2.0, "eps": 2.0**-27},
        kinks=(-(2.0**-27),),
    ),
    P(
        "poisson_deviance_xlogy",
        "2*(scipy.special.xlogy(y, y/x) - (y - x))",
        "Poisson deviance of a rate x, target y = 3, SciPy",
        {"y": 3.0},
        kinks=(0.0,),
    ),
    P(
        "gamma_deviance_mu",
        "2*(-np.log(y/x) + (y - x)/x)",
        "gamma deviance of a mean x, target y = 2, NumPy",
        {"y": 2.0},
        kinks=(0.0,),
    ),
    P(
        "tweedie_log_link_p1_2",
        "-y*torch.exp(x*(1 - p))/(1 - p) + torch.exp(x*(2 - p))/(2 - p)",
        "Tweedie NLL of a log-mean (LightGBM), p = 1.2, target 1",
        {"p": 1.2, "y": 1.0},
    ),
    P(
        "log_power_abs_torch",
        "torch.log1p(torch.abs(x/c)**a)",
        "log of a power of the scaled residual (a generalized Lorentzian),"
        " c = 1e-4, a = 1.5",
        {"c": 1e-4, "a": 1.5},
        kinks=(0.0,),
    ),
    P(
        "gumbel_nll",
        "(x - mu)/beta + torch.exp(-(x - mu)/beta) + math.log(beta)",
        "Gumbel negative log-likelihood, mu = 0, beta = 0.5",
        {"mu": 0.0, "beta": 0.5},
    ),
    P(
        "weibull_nll_k1_5",
        "-math.log(k/l) - (k - 1)*torch.log(x/l) + (x/l)**k",
        "Weibull negative log-likelihood, k = 1.5, lambda = 0.5",
        {"k": 1.5, "l": 0.5},
        kinks=(0.0,),
    ),
    P(
        "log_logistic_nll",
        "-np.log(b/a) - (b - 1)*np.log(x/a) + 2*np.log1p((x/a)**b)",
        "log-logistic negative log-likelihood, alpha = 1, beta = 2.5",
        {"a": 1.0, "b": 2.5},
        kinks=(0.0,),
    ),
    P(
        "gaussian_nll_sigma",
        "torch.log(x) + r**2/(2*x**2)",
        "Gaussian NLL in the standard deviation x, residual r = 1e-4",
        {"r": 1e-4},
        kinks=(0.0,),
    ),
    P(
        "lognormal_nll_logmean",
        "(math.log(t) - x)**2/(2*s**2)",
        "log-normal NLL in the log-mean, t = 5, s = 1e-3",
        {"t": 5.0, "s": 1e-3},
    ),
    P(
        "exponential_nll_lograte",
        "-x + t*torch.exp(x)",
        "exponential-distribution NLL of a log-rate, t = 1e-8",
        {"t": 1e-8},
    ),
    P(
        "bernoulli_nll_prob_eps",
        "-(y*torch.log(x + eps) + (1 - y)*torch.log(1 - x + eps))",
        "BCE of a probability with eps = 1e-12, target 0.7 (the poles at -eps and"
        " 1 + eps are not sampled: there a rounded eps or x decides NaN against inf)",
        {"y": 0.7, "eps": 1e-12},
    ),
    P(
        "dice_soft_element",
        "1 - (2*x*y + s)/(x**2 + y**2 + s)",
        "Milletari et al. 2016 (V-Net soft Dice) of one element, target 1, smooth 1",
        {"y": 1.0, "s": 1.0},
    ),
    P(
        "jaccard_soft_element",
        "1 - (x*y + s)/(x + y - x*y + s)",
        "soft Jaccard of one element, target 1, smooth 1e-8",
        {"y": 1.0, "s": 1e-8},
    ),
    P(
        "tsallis_entropy_q2",
        "(x - x**q)/(q - 1)",
        "Tsallis entropy term, q = 2",
        {"q": 2.0},
    ),
    P(
        "renyi_like_power_log",
        "torch.log(x**a)/(1 - a)",
        "log of a power over 1 - a, a = 0.5",
        {"a": 0.5},
        kinks=(0.0,),
    ),
)

#: The same functions as SymPy's parser reads them (published definitions), for every
#: entry typed in a spelling SymPy cannot read.
REFERENCE_TEXT: dict[str, str] = {
    "smu_mu_1e6": "((1 + a)*x + (1 - a)*x*erf(mu*(1 - a)*x))/2",
    "smu1_mu_tiny": "((1 + a)*x + sqrt(((1 - a)*x)**2 + mu**2))/2",
    "smu_latex": "((1 + alpha)*x + (1 - alpha)*x*erf(mu*(1 - alpha)*x))/2",
    "erfact_jnp": "x*erf(a*exp(b*x))",
    "pserf_logaddexp": "x*erf(g*log(1 + exp(d*x)))",
    "serf_jax_softplus": "x*erf(log(1 + exp(x)))",
    "logish_np_log1p": "x*log(1 + sigmoid(x))",
    "smish_def_locals": "x*tanh(log(1 + sigmoid(x)))",
    "tanhexp_lambda": "x*tanh(exp(x))",
    "phish_torch": "x*tanh(gelu(x))",
    "aptx_beta_1e3": "(a + tanh(b*x))*g*x",
    "silu_zero_at_shift": "(x + b)*sigmoid(x + b) - b*sigmoid(b)",
    "sigmoid_bump_pair": "sigmoid(x + w) - sigmoid(x - w)",
    "squared_relu_square_call": "max(0, x)**2",
    "star_relu_metaformer": "s*max(0, x)**2 + b",
    "dice_tiny_variance": "sigmoid((x - m)/sqrt(v + eps))*x"
    " + (1 - sigmoid((x - m)/sqrt(v + eps)))*a*x",
    "celu_alpha_1e8": "max(0, x) + min(0, 100000000*(exp(x/100000000) - 1))",
    "elish_torch_where": "where(x >= 0, x*sigmoid(x), (exp(x) - 1)*sigmoid(x))",
    "soft_root_sign_a2_b3": "x/(x/a + exp(-x/b))",
    "atan_gated_linear": "x*(1/2 + atan(x)/pi)",
    "keras_gelu_approximate": "x/2*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x**3)))",
    "tf_relu6": "min(max(0, x), 6)",
    "jax_hard_tanh": "clip(x, -1, 1)",
    "silu_shift_huge": "(x - s)*sigmoid(x - s)",
    "leaky_relu_slope_negative": "where(x >= 0, x, -0.5*x)",
    "relu_cap_tiny": "clip(x, 0, c)",
    "relu_tanh": "max(0, tanh(x))",
    "sqrt_relu_eps": "sqrt(max(0, x) + 1e-8)",
    # a = 2, b = 3: 1 - s^2 = (1 - s)(1 + s) without the cancellation of 1 - s
    "kumaraswamy_sigmoid": "1 - (sigmoid(-x)*(1 + sigmoid(x)))**3",
    "gompertz_tiny_b": "a*exp(-b*exp(-c*x))",
    "gompertz_latex": "a*exp(-b*exp(-c*x))",
    "isru_alpha_1e8": "x/sqrt(1 + a*x*x)",
    "isrlu_rsqrt": "where(x >= 0, x, x/sqrt(1 + a*x**2))",
    "tanh_steep_1e8": "tanh(k*x)",
    "tanh_softcap_1e8": "c*tanh(x/c)",
    "sigmoid_shift_1e8": "sigmoid(x - s)",
    "softmax_pair_exp": "sigmoid(x - c)",
    "log_softmax_pair": "-log(1 + exp(c - x))",
    "erf_unit_slope": "sqrt(pi)/2*erf(x)",
    "arctan_unit_slope": "2/pi*atan(pi/2*x)",
    "capsule_squash_scalar": "x*abs(x)/(1 + x**2)",
    "softsign_scaled_latex": "x/(c + abs(x))",
    "gcu_freq_1e3": "x*cos(w*x)",
    "snake_a_1e3": "x + sin(a*x)**2/a",
    "snake_cos_form": "x + (1 - cos(2*a*x))/(2*a)",
    "sinc_np_wide": "sin(pi*x/w)/(pi*x/w)",
    "cosid": "cos(x) - x",
    "sine_gated_linear": "x*(1 + sin(x))/2",
    "wing_torch_methods": "where(abs(x) < w, w*log(1 + abs(x)/e), abs(x) - C)",
    "balanced_l1": "where(abs(x) < 1, a/b*(b*abs(x) + 1)*log(b*abs(x) + 1)"
    " - a*abs(x), g*abs(x) + g/b - a)",
    "cauchy_c_tiny": "c**2/2*log(1 + (x/c)**2)",
    "cauchy_nll_gamma_1e4": "log(pi*g) + log(1 + (x/g)**2)",
    "welsch_c_tiny": "c**2/2*(1 - exp(-(x/c)**2))",
    "charbonnier_eps_1e8_latex": "sqrt(x**2 + varepsilon**2)",
    "logcosh_keras_softplus": "log(cosh(x))",
    "logcosh_jnp": "log(cosh(x))",
    "logcosh_a_1e8": "log(cosh(a*x))/a",
    "logcosh_frac_latex": "log(cosh(a*x))/a",
    "truncated_l1_tiny": "min(abs(x), t)",
    "laplace_nll_scale_tiny": "log(2*b) + abs(x)/b",
    "quantile_torch_max": "max(q*x, (q - 1)*x)",
    "quantile_latex_cases": "where(x >= 0, tau*x, (tau - 1)*x)",
    "huber_if_else_huge": "where(abs(x) <= d, x**2/2, d*(abs(x) - d/2))",
    "msle_target": "(log(1 + x) - log(1 + y))**2",
    "bce_pos_weight_huge": "pw*y*log(1 + exp(-x)) + (1 - y)*log(1 + exp(x))",
    "asl_negative": "-max(sigmoid(x) - m, 0)**4*log(1 - max(sigmoid(x) - m, 0))",
    "asl_positive": "sigmoid(-x)**g*log(1 + exp(-x))",
    "focal_alpha_quarter": "alpha*sigmoid(-x)**gamma*log(1 + exp(-x))",
    "entmax15_piece": "max(x/2 - tau, 0)**2",
    "entmax_alpha_1_25": "max(0, x/4 - tau)**4",
    "kl_prob_element": "y*(log(y) - log(x))",
    # xlogy(0, .) = 0
    "generalized_kl_xlogy": "where(x > 0, x*log(x/y), where(x < 0, x*log(x/y), 0))"
    " - x + y",
    "poisson_nll_rate_eps": "x - y*log(x + eps)",
    "poisson_deviance_xlogy": "2*(y*(log(y) - log(x)) - (y - x))",
    "gamma_deviance_mu": "2*(-log(y/x) + (y - x)/x)",
    # epsilon = 1 and the exponent as a number: SymPy's derivative of abs(x/e)**p kept
    # an unevaluated Derivative that mpmath cannot print
    "adaptive_wing_y_half": "where(abs(x) < t, o*log(1 + abs(x)**(8/5)), A*abs(x) - C)",
    "tsallis_entropy_q2": "(x - x**2)/(q - 1)",
    "tweedie_log_link_p1_2": "-y*exp(x*(1 - p))/(1 - p) + exp(x*(2 - p))/(2 - p)",
    "log_power_abs_torch": "log(1 + (abs(x)/c)**(3/2))",
    "gumbel_nll": "(x - mu)/beta + exp(-(x - mu)/beta) + log(beta)",
    "weibull_nll_k1_5": "-log(k/l) - (k - 1)*log(x/l) + (x/l)**k",
    "log_logistic_nll": "-log(b/a) - (b - 1)*log(x/a) + 2*log(1 + (x/a)**b)",
    "gaussian_nll_sigma": "log(x) + r**2/(2*x**2)",
    "lognormal_nll_logmean": "(log(t) - x)**2/(2*s**2)",
    "exponential_nll_lograte": "-x + t*exp(x)",
    "bernoulli_nll_prob_eps": "-(y*log(x + eps) + (1 - y)*log(1 - x + eps))",
    "renyi_like_power_log": "log(x**a)/(1 - a)",
    # the exponents as numbers: with a named one, SymPy's f' is 0/0 where the base is 0
    "pdelu_t_1_5": "where(x > 0, x, a*((1 - x/2)**(-2) - 1))",
}
