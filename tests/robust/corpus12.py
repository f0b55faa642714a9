"""A twelfth corpus: spiking-network surrogates written as smooth functions (SuperSpike's
fast sigmoid, spikingjelly's ATan and piecewise-quadratic primitives, q-PseudoSpike, a
steep sigmoid), normalizing-flow log-determinants (tanh bijector, planar flow), log1mexp,
Gumbel, Weibull and Frechet pieces, robust losses (Talwar, Fair, log-cosh at c = 1e-4,
Blake-Zisserman, correntropy at sigma = 1e4), survival and count likelihoods (Gompertz,
von Mises, negative binomial), information-theoretic pieces (binary entropy with xlogy
and xlog1py, Bernoulli KL in logits, entropy of a sigmoid, SciPy's rel_entr), min/max
chains, smoothstep, a Pade [7/6] tanh, exp-of-exp forms, base-2 and base-10 softplus,
typed as users paste them: ``torch.*``/``F.*``/``torch.special.*``/tensor methods,
NumPy, JAX, Keras, SciPy, a conditional expression and LaTeX, with constants from 1e-12
to 1e12.

Kept from h91's probe of 135 formulas (at most 50, for CI time): every formula that
exposed a defect fixed with it (marked "found:" in its comment) and a varied selection
of the rest. Same fields and references as the first corpus
(``tests/robust/corpus_reference.py``); the judge is ``tests/robust/test_corpus12.py``.
``REFERENCE_TEXT`` gives the same function in a form SymPy's parser reads and mpmath
evaluates at every sample point, written from the published definition, for every
entry whose text is not plain formula syntax (the tanh log-determinant as -2 log cosh:
1 - tanh(x)**2 needs |x| digits at large |x|).
"""

from __future__ import annotations

from tests.robust.corpus import Published

P = Published

CORPUS12: tuple[Published, ...] = (
    # found: a cast comparison ((x > 0).float()) as a where branch was refused
    P(
        "piecewise_quadratic_surrogate",
        "torch.where(x.abs() > 1/a, (x > 0).float(), -a**2/2*x*x.abs() + a*x + 0.5)",
        "spikingjelly PiecewiseQuadratic surrogate primitive (alpha = 1), PyTorch with a cast mask",
        {"a": 1.0},
        kinks=(-1.0, 1.0),
    ),
    # found: -inf from |x| = 9 in float32 (19 in float64)
    P(
        "flow_tanh_logdet_log1p",
        "torch.log1p(-x.tanh().pow(2))",
        "normalizing-flow tanh bijector log-determinant log(1 - tanh(x)^2), tensor methods",
    ),
    # found: -inf from |x| = 9 in float32, as the log1p spelling
    P(
        "latex_tanh_logdet",
        "\\log\\left(1 - \\tanh^{2}(x)\\right)",
        "tanh bijector log-determinant, LaTeX",
    ),
    # found: -inf at x = 1e-8 in float32 instead of log(1e-8)
    P(
        "log1mexp_naive",
        "np.log1p(-np.exp(-x))",
        "log1mexp (Maechler 2012) typed as log1p(-exp(-x)), NumPy",
        kinks=(0.0,),
    ),
    P(
        "log1mexp_expm1",
        "torch.log(-torch.expm1(-x))",
        "log1mexp (Maechler 2012), log(-expm1(-x)), PyTorch",
        kinks=(0.0,),
    ),
    # found: inf from |x| = 89 in float32 (710 in float64)
    P(
        "log_sinh_over_x",
        "torch.log(torch.sinh(x)/x)",
        "log(sinh(x)/x), the log-partition of a von Mises-Fisher/Langevin piece",
        removable=(0.0,),
    ),
    # found: inf from x = 1024 in float64
    P(
        "torch_special_exp2_softplus",
        "torch.log1p(torch.special.exp2(x))",
        "base-2 softplus log1p(2^x), torch.special.exp2",
    ),
    # found: refused (no symnb equivalent)
    P(
        "scipy_rel_entr_q",
        "scipy.special.rel_entr(x, q)",
        "relative entropy x log(x/q), scipy.special.rel_entr, q = 0.25",
        {"q": 0.25},
        kinks=(0.0,),
    ),
    # found: refused (no symnb equivalent)
    P(
        "logaddexp2_zero",
        "np.logaddexp2(0, x)",
        "np.logaddexp2(0, x), log2(1 + 2^x)",
    ),
    # found: refused (no symnb equivalent)
    P(
        "jax_nn_sparse_sigmoid",
        "jax.nn.sparse_sigmoid(x)",
        "jax.nn.sparse_sigmoid (sparsemax of [x, 0]), JAX",
        kinks=(-1.0, 1.0),
    ),
    # found: refused (softshrink has no argument 'threshold')
    P(
        "keras_ops_soft_shrink",
        "keras.ops.soft_shrink(x, threshold=0.5)",
        "keras.ops.soft_shrink(x, threshold=0.5)",
        kinks=(-0.5, 0.5),
    ),
    P(
        "superspike_fast_sigmoid_grad",
        "1/(k*torch.abs(x) + 1.0)**2",
        "Zenke & Ganguli 2018 (SuperSpike) fast-sigmoid surrogate gradient, slope 100",
        {"k": 100.0},
        kinks=(0.0,),
    ),
    P(
        "spikingjelly_atan_primitive",
        "torch.atan(math.pi/2*alpha*x)/math.pi + 0.5",
        "spikingjelly ATan surrogate primitive, alpha = 2",
        {"alpha": 2.0},
    ),
    # found: f' (a difference of sigmoids) cancelled near 0, 4e-5 relative off at
    # x = -1e-4 in float32
    P(
        "surrogate_sigmoid_prime_k25",
        "k*torch.sigmoid(k*x)*(1 - torch.sigmoid(k*x))",
        "snnTorch-style sigmoid surrogate gradient k sigmoid(k x)(1 - sigmoid(k x)), k = 25, PyTorch",
        {"k": 25.0},
    ),
    P(
        "q_pseudo_spike",
        "where(x < 0, 0.5*(1 - 2*x/(a - 1))**(1 - a), 1 - 0.5*(1 + 2*x/(a - 1))**(1 - a))",
        "Herranz-Celotti & Rouat 2024 q-PseudoSpike primitive, alpha = 2",
        {"a": 2.0},
        kinks=(0.0,),
    ),
    P(
        "flow_tanh_logdet_stable",
        "2*(math.log(2) - x - F.softplus(-2*x))",
        "TFP/SAC stable tanh log-determinant 2(log 2 - x - softplus(-2x))",
    ),
    P(
        "planar_flow_logdet",
        "torch.log(torch.abs(1 + u*w*(1 - torch.tanh(w*x + b)**2)))",
        "Rezende & Mohamed 2015 planar flow log|1 + u w h'(w x + b)|",
        {"u": 0.5, "w": 2.0, "b": 0.1},
    ),
    P(
        "gumbel_cdf_torch",
        "torch.exp(-torch.exp(-(x - mu)/beta))",
        "Gumbel CDF, mu = 0.5, beta = 2, PyTorch",
        {"mu": 0.5, "beta": 2.0},
    ),
    P(
        "gumbel_min_pdf_product",
        "torch.exp(x)*torch.exp(-torch.exp(x))",
        "Gumbel-min density typed as exp(x)*exp(-exp(x))",
    ),
    P(
        "gumbel_max_pdf_product",
        "np.exp(-x)*np.exp(-np.exp(-x))",
        "Gumbel-max density typed as exp(-x)*exp(-exp(-x)), NumPy",
    ),
    P(
        "weibull_cdf",
        "where(x > 0, 1 - exp(-(x/lam)**k), 0)",
        "Weibull CDF, k = 1.5, lambda = 2",
        {"k": 1.5, "lam": 2.0},
        kinks=(0.0,),
    ),
    P(
        "talwar",
        "where(abs(x) <= c, x**2/2, c**2/2)",
        "Talwar (truncated quadratic) loss, c = 2",
        {"c": 2.0},
        kinks=(-2.0, 2.0),
    ),
    P(
        "fair_c_tiny",
        "c**2*(abs(x)/c - log(1 + abs(x)/c))",
        "Fair loss, c = 1e-3",
        {"c": 0.001},
        kinks=(0.0,),
    ),
    P(
        "logcosh_c_tiny_torch",
        "c**2*torch.log(torch.cosh(x/c))",
        "scaled log-cosh loss c^2 log cosh(x/c), c = 1e-4",
        {"c": 0.0001},
    ),
    P(
        "blake_zisserman",
        "-log(exp(-x**2) + eps)",
        "Blake-Zisserman robust loss -log(exp(-x^2) + eps), eps = 1e-3",
        {"eps": 0.001},
    ),
    P(
        "correntropy_sigma_1e4",
        "1 - np.exp(-x**2/(2*sigma**2))",
        "correntropy (Welsch) loss 1 - exp(-x^2/(2 sigma^2)), sigma = 1e4, NumPy",
        {"sigma": 10000.0},
    ),
    P(
        "gompertz_nll",
        "-math.log(b) - math.log(eta) - eta - b*x + eta*torch.exp(b*x)",
        "Gompertz survival NLL in the time, b = 0.5, eta = 0.1",
        {"b": 0.5, "eta": 0.1},
    ),
    P(
        "von_mises_nll",
        "-k*torch.cos(x - mu) + c",
        "von Mises NLL, kappa = 4, mu = 0.3, log(2 pi I0(4)) as a constant",
        {"k": 4.0, "mu": 0.3, "c": 4.2628498619248045},
    ),
    P(
        "nb_nll_logmean",
        "-y*x + (y + r)*torch.log(r + torch.exp(x))",
        "negative-binomial NLL in the log-mean, y = 3, r = 2",
        {"y": 3.0, "r": 2.0},
    ),
    P(
        "binary_entropy_xlog1py",
        "-(torch.special.xlogy(x, x) + torch.special.xlog1py(1 - x, -x))",
        "binary entropy with torch.special.xlogy and xlog1py",
        kinks=(0.0, 1.0),
    ),
    P(
        "bernoulli_kl_logit",
        "p*math.log(p) + (1 - p)*math.log(1 - p) - p*F.logsigmoid(x) - (1 - p)*F.logsigmoid(-x)",
        "KL(Bernoulli(p) || Bernoulli(sigmoid(x))), p = 0.3, F.logsigmoid",
        {"p": 0.3},
    ),
    P(
        "entropy_of_sigmoid_logsig",
        "-(torch.sigmoid(x)*F.logsigmoid(x) + torch.sigmoid(-x)*F.logsigmoid(-x))",
        "entropy of sigmoid(x) with log-sigmoids, PyTorch",
    ),
    P(
        "minmax_chain",
        "min(max(x, -1), max(0.5*x, -0.2))",
        "a min/max chain (Maxout/APL-like), min(max(x, -1), max(0.5 x, -0.2))",
        kinks=(-1.0, -0.4, 0.0),
    ),
    P(
        "smoothstep_cubic",
        "where(x <= 0, 0, where(x >= 1, 1, 3*x**2 - 2*x**3))",
        "smoothstep 3x^2 - 2x^3 clamped to [0, 1]",
        kinks=(0.0, 1.0),
    ),
    P(
        "pade_tanh_7_6",
        "x*(135135 + 17325*x**2 + 378*x**4 + x**6)/(135135 + 62370*x**2 + 3150*x**4 + 28*x**6)",
        "Pade [7/6] approximant of tanh",
    ),
    P(
        "double_exp_decay",
        "torch.exp(-torch.exp(x))",
        "double exponential exp(-exp(x)) (Gumbel-min survival)",
    ),
    P(
        "softplus_of_exp",
        "F.softplus(torch.exp(x))",
        "F.softplus(torch.exp(x))",
    ),
    P(
        "hermite_function_3",
        "(8*x**3 - 12*x)*exp(-x**2/2)",
        "Hermite function (8x^3 - 12x) exp(-x^2/2)",
    ),
    # found: f' NaN at tiny x (x^(-a-1) inf times exp(-x^-a) 0; float32 from
    # 1e-38)
    P(
        "frechet_cdf",
        "where(x > 0, exp(-x**(-a)), 0)",
        "Frechet CDF exp(-x^-a) for x > 0, a = 2",
        {"a": 2.0},
        kinks=(0.0,),
    ),
    P(
        "x_minus_tanh_over_x3",
        "(x - tanh(x))/x**3",
        "(x - tanh(x))/x^3, removable at 0",
        removable=(0.0,),
    ),
    P(
        "softmax_temperature_tiny",
        "t*torch.log(torch.exp(x/t) + torch.exp(c/t))",
        "two-way softmax temperature t log(e^(x/t) + e^(c/t)), t = 1e-3",
        {"t": 0.001, "c": 0.5},
    ),
    P(
        "log10_softplus_pow10",
        "np.log10(1 + 10**x)",
        "base-10 softplus log10(1 + 10^x), NumPy",
    ),
    P(
        "silu_tensor_mul",
        "x.sigmoid().mul(x)",
        "SiLU as tensor methods x.sigmoid().mul(x)",
    ),
    P(
        "softplus_tensor_chain_naive",
        "x.exp().log1p()",
        "naive softplus as tensor methods x.exp().log1p()",
    ),
    P(
        "softplus_beta_threshold_kw",
        "F.softplus(x, beta=0.5, threshold=10)",
        "F.softplus(x, beta=0.5, threshold=10)",
        kinks=(20.0,),
    ),
    P(
        "keras_ops_hard_silu",
        "keras.ops.hard_silu(x)",
        "keras.ops.hard_silu",
        kinks=(-3.0, 3.0),
    ),
    P(
        "selu_conditional_np",
        "scale*(x if x > 0 else alpha*(np.exp(x) - 1))",
        "SELU as a conditional expression with NumPy",
        {"scale": 1.0507009873554805, "alpha": 1.6732632423543772},
        kinks=(0.0,),
    ),
    P(
        "latex_gelu_brackets",
        "\\frac{x}{2}\\left[1+\\tanh\\left(\\sqrt{\\frac{2}{\\pi}}\\left(x+0.044715x^{3}\\right)\\right)\\right]",
        "GELU tanh approximation in LaTeX with square brackets",
    ),
    P(
        "swish_beta_1e_12",
        "x*sigmoid(b*x)",
        "Swish with beta = 1e-12",
        {"b": 1e-12},
    ),
    P(
        "softplus_k_1e12",
        "log1p(exp(k*x))/k",
        "softplus with sharpness k = 1e12, log1p(exp(k x))/k",
        {"k": 1000000000000.0},
    ),
)

#: entry typed in a spelling SymPy cannot read (or that mpmath cannot evaluate as typed).
REFERENCE_TEXT: dict[str, str] = {
    "piecewise_quadratic_surrogate": "where(abs(x) > 1/a, where(x > 0, 1, 0), -a**2/2*x*abs(x) + a*x + 1/2)",
    "flow_tanh_logdet_log1p": "-2*log(cosh(x))",
    "latex_tanh_logdet": "-2*log(cosh(x))",
    "log1mexp_naive": "log(1 - exp(-x))",
    "log1mexp_expm1": "log(1 - exp(-x))",
    "log_sinh_over_x": "log(sinh(x)/x)",
    "torch_special_exp2_softplus": "log(1 + 2**x)",
    "scipy_rel_entr_q": "where(x > 0, x*log(x/q), where(x < 0, x*log(x/q), 0))",
    "logaddexp2_zero": "log(1 + 2**x)/log(2)",
    "jax_nn_sparse_sigmoid": "clip(x + 1, 0, 2)/2",
    "keras_ops_soft_shrink": "where(x > 0.5, x - 0.5, where(x < -0.5, x + 0.5, 0))",
    "superspike_fast_sigmoid_grad": "1/(k*abs(x) + 1)**2",
    "spikingjelly_atan_primitive": "atan(pi/2*alpha*x)/pi + 1/2",
    "surrogate_sigmoid_prime_k25": "k*sigmoid(k*x)*(1 - sigmoid(k*x))",
    "flow_tanh_logdet_stable": "2*(log(2) - x - log(1 + exp(-2*x)))",
    "planar_flow_logdet": "log(abs(1 + u*w*(1 - tanh(w*x + b)**2)))",
    "gumbel_cdf_torch": "exp(-exp(-(x - mu)/beta))",
    "gumbel_min_pdf_product": "exp(x - exp(x))",
    "gumbel_max_pdf_product": "exp(-x - exp(-x))",
    "logcosh_c_tiny_torch": "c**2*log(cosh(x/c))",
    "correntropy_sigma_1e4": "1 - exp(-x**2/(2*sigma**2))",
    "gompertz_nll": "-log(b) - log(eta) - eta - b*x + eta*exp(b*x)",
    "von_mises_nll": "-k*cos(x - mu) + c",
    "nb_nll_logmean": "-y*x + (y + r)*log(r + exp(x))",
    "binary_entropy_xlog1py": "-(where(x > 0, x*log(x), where(x < 0, x*log(x), 0)) + where(x < 1, (1 - x)*log(1 - x), where(x > 1, (1 - x)*log(1 - x), 0)))",
    "bernoulli_kl_logit": "p*log(p) + (1 - p)*log(1 - p) + p*log(1 + exp(-x)) + (1 - p)*log(1 + exp(x))",
    "entropy_of_sigmoid_logsig": "sigmoid(x)*log(1 + exp(-x)) + sigmoid(-x)*log(1 + exp(x))",
    "double_exp_decay": "exp(-exp(x))",
    "softplus_of_exp": "log(1 + exp(exp(x)))",
    "softmax_temperature_tiny": "t*log(exp(x/t) + exp(c/t))",
    "log10_softplus_pow10": "log(1 + 10**x)/log(10)",
    "silu_tensor_mul": "x*sigmoid(x)",
    "softplus_tensor_chain_naive": "log(1 + exp(x))",
    "softplus_beta_threshold_kw": "where(x*0.5 > 10, x, log(1 + exp(0.5*x))/0.5)",
    "keras_ops_hard_silu": "x*clip(x + 3, 0, 6)/6",
    "selu_conditional_np": "scale*where(x > 0, x, alpha*(exp(x) - 1))",
    "latex_gelu_brackets": "x/2*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x**3)))",
    "softplus_k_1e12": "log(1 + exp(k*x))/k",
}
