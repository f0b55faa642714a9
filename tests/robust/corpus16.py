"""A sixteenth corpus: the bipolar sigmoid and the scaled Elliott at 1e8 and
log1p(tanh(x)) as typed (found), GoLU at rate 1e8, TeLU, DELU, SReLU at extreme slopes,
the Gudermannian as 2 atan(e^x) - pi/2, complementary log-log, Gumbel/Weibull/
log-logistic CDFs as activations, the Richards curve at nu = 1e8, Mexican hat and
Morlet wavelets at 1e-8, the soft exponential's negative branch at alpha = -1e-8,
removable quotients, adaptive wing and Fair losses, a squared hinge at margin -1e8 and
xlogy losses, typed as users paste them: ``torch.*``/``F.*``/``torch.special.*``,
NumPy/SciPy, JAX, ``math`` and LaTeX.

Kept from h110's probe of 202 formulas (24, for CI time): every formula that exposed a
defect fixed with it (marked "found:" in its source) and a varied selection of the
rest. Same fields and references as the first corpus
(``tests/robust/corpus_reference.py``); the judge is ``tests/robust/test_corpus16.py``.
``REFERENCE_TEXT`` gives the same function in a form SymPy's parser reads and mpmath
evaluates at every sample point, written from the published definition, for every
entry whose text is not plain formula syntax.
"""

from __future__ import annotations

from tests.robust.corpus import Published

P = Published

CORPUS16: tuple[Published, ...] = (
    P(
        "bipolar_sigmoid_k_big",
        "(1 - np.exp(-k*x))/(1 + np.exp(-k*x))",
        "bipolar sigmoid (1 - e^{-kx})/(1 + e^{-kx}), k = 1e8, NumPy (found: NaN for every x < -9e-7 in float32, -7.1e-6 in float64, f and f': -expm1(-kx)*sigmoid(kx) was inf*0)",
        {"k": 100000000.0},
    ),
    P(
        "bipolar_sigmoid_torch_k_big",
        "(1 - torch.exp(-k*x))/(1 + torch.exp(-k*x))",
        "the bipolar sigmoid in torch, k = 1e8 (found: the same NaN)",
        {"k": 100000000.0},
    ),
    P(
        "elliot_s_big",
        "s*x/(1 + torch.abs(s*x))",
        "scaled Elliott sx/(1 + |sx|), s = 1e8 (found: f' 20 of 187 points off in float32, 2.29e-5 for 2.15e-5 at x = -0.0215: c/(1 + u) - cu/(1 + u)^2 cancelled)",
        {"s": 100000000.0},
        kinks=(0.0,),
    ),
    P(
        "golu_rate_c_big",
        "x*torch.exp(-b*torch.exp(-c*x))",
        "GoLU x e^{-b e^{-cx}} at rate c = 1e8",
        {"b": 1.0, "c": 100000000.0},
    ),
    P(
        "log1p_tanh_torch",
        "torch.log1p(torch.tanh(x))",
        "log1p(tanh(x)) as typed (found: -inf from x = -20 in float32 and float64, where it is about 2x + log 2)",
        {},
    ),
    P(
        "telu_latex",
        "x \\tanh\\left(e^{x}\\right)",
        "TeLU x tanh(e^x) in LaTeX",
        {},
    ),
    P(
        "delu_n_big",
        "torch.where(x > 0, (n + 0.5)*x + torch.abs(torch.exp(-x) - 1), x*torch.sigmoid(x))",
        "DELU (Pishchik 2023), n = 1e8",
        {"n": 100000000.0},
        kinks=(0.0,),
    ),
    P(
        "srelu_slopes_extreme",
        "torch.where(x >= tr, tr + ar*(x - tr), torch.where(x <= tl, tl + al*(x - tl), x))",
        "SReLU at slopes 1e-8 (left) and 1e8 (right)",
        {"tl": -1.0, "al": 1e-08, "tr": 1.0, "ar": 100000000.0},
        kinks=(-1.0, 1.0),
    ),
    P(
        "gd_two_atan_exp",
        "2*torch.atan(torch.exp(x)) - math.pi/2",
        "Gudermannian 2 atan(e^x) - pi/2 (cancels near 0)",
        {},
    ),
    P(
        "cloglog_np_scale_big",
        "1 - np.exp(-np.exp(a*x))",
        "complementary log-log 1 - exp(-exp(ax)), a = 1e8, NumPy",
        {"a": 100000000.0},
    ),
    P(
        "gumbel_cdf_beta_1e8",
        "torch.exp(-torch.exp(-(x - mu)/beta))",
        "Gumbel CDF at scale beta = 1e-8",
        {"mu": 0.5, "beta": 1e-08},
    ),
    P(
        "weibull_cdf_k_1e8",
        "torch.where(x > 0, 1 - torch.exp(-(x/lam)**k), 0.0)",
        "Weibull CDF as an activation, shape k = 1e-8",
        {"k": 1e-08, "lam": 1.0},
        kinks=(0.0,),
    ),
    P(
        "log_logistic_cdf_b_big",
        "torch.where(x > 0, x**b/(a**b + x**b), 0.0)",
        "log-logistic CDF x^b/(a^b + x^b), b = 1e8",
        {"a": 1.0, "b": 100000000.0},
        kinks=(0.0,),
    ),
    P(
        "richards_q_nu",
        "1/(1 + q*torch.exp(-b*x))**(1/nu)",
        "Richards curve 1/(1 + q e^{-bx})^{1/nu}, nu = 1e8",
        {"q": 1.0, "b": 1.0, "nu": 100000000.0},
    ),
    P(
        "mexican_hat_sigma_1e8",
        "2/(math.sqrt(3*s)*math.pi**0.25)*(1 - (x/s)**2)*torch.exp(-x**2/(2*s**2))",
        "Mexican hat (Ricker) wavelet at sigma = 1e-8",
        {"s": 1e-08},
    ),
    P(
        "morlet_corrected_w_1e8",
        "(torch.cos(w*x) - math.exp(-w**2/2))*torch.exp(-x**2/2)",
        "admissible Morlet (cos(wx) - e^{-w^2/2}) e^{-x^2/2}, w = 1e-8",
        {"w": 1e-08},
    ),
    P(
        "soft_exp_neg_branch_1e8",
        "-torch.log(1 - a*(x + a))/a",
        "soft exponential's negative branch -log(1 - a(x + a))/a, a = -1e-8",
        {"a": -1e-08},
    ),
    P(
        "expm1_minus_x_over_x2",
        "(torch.exp(x) - 1 - x)/x**2",
        "(e^x - 1 - x)/x^2, removable at 0",
        {},
        removable=(0.0,),
    ),
    P(
        "rational_removable_at_c",
        "(x**2 - c**2)/(x - c)",
        "(x^2 - c^2)/(x - c), removable at c = 1e8",
        {"c": 100000000.0},
        removable=(100000000.0,),
    ),
    P(
        "adaptive_wing_y_1e8",
        "torch.where(torch.abs(x) < th, w*torch.log1p((torch.abs(x)/e)**(a - y)), A*torch.abs(x) - C)",
        "adaptive wing loss at y = 1e-8",
        {"w": 14.0, "th": 0.5, "e": 1.0, "a": 2.1, "y": 1e-08, "A": 12.0, "C": 1.0},
        kinks=(-0.5, 0.0, 0.5),
    ),
    P(
        "fair_loss_c_1e8",
        "c**2*(torch.abs(x)/c - torch.log1p(torch.abs(x)/c))",
        "Fair loss c^2(|x|/c - log1p(|x|/c)), c = 1e-8",
        {"c": 1e-08},
        kinks=(0.0,),
    ),
    P(
        "squared_hinge_m_neg",
        "np.maximum(0, m - x)**2",
        "squared hinge max(0, m - x)^2 at margin m = -1e8, NumPy",
        {"m": -100000000.0},
        kinks=(-100000000.0,),
    ),
    P(
        "bce_xlogy_y1",
        "-(scipy.special.xlogy(y, scipy.special.expit(x)) + scipy.special.xlog1py(1 - y, -scipy.special.expit(x)))",
        "binary cross-entropy in scipy.special xlogy/xlog1py at y = 1",
        {"y": 1.0},
    ),
    P(
        "poisson_xlogy_y_big",
        "torch.exp(x) - y*x + torch.xlogy(y, y) - y",
        "Poisson deviance term e^x - yx + y log y - y, y = 1e8",
        {"y": 100000000.0},
    ),
)

#: entry name -> the same function in plain formula syntax (the typed text uses
#: torch/NumPy/JAX/SciPy names or LaTeX)
REFERENCE_TEXT: dict[str, str] = {
    "bipolar_sigmoid_k_big": "(1 - exp(-k*x))/(1 + exp(-k*x))",
    "bipolar_sigmoid_torch_k_big": "(1 - exp(-k*x))/(1 + exp(-k*x))",
    "elliot_s_big": "s*x/(1 + abs(s*x))",
    "golu_rate_c_big": "x*exp(-b*exp(-c*x))",
    "log1p_tanh_torch": "log(2/(1 + exp(-2*x)))",
    "telu_latex": "x*tanh(exp(x))",
    "delu_n_big": "where(x > 0, (n + 0.5)*x + abs(exp(-x) - 1), x*sigmoid(x))",
    "srelu_slopes_extreme": "where(x >= tr, tr + ar*(x - tr), where(x <= tl, tl + al*(x - tl), x))",
    "gd_two_atan_exp": "2*atan(exp(x)) - pi/2",
    "cloglog_np_scale_big": "1 - exp(-exp(a*x))",
    "gumbel_cdf_beta_1e8": "exp(-exp(-(x - mu)/beta))",
    "weibull_cdf_k_1e8": "where(x > 0, 1 - exp(-(x/lam)**k), 0)",
    "log_logistic_cdf_b_big": "where(x > 0, 1/(1 + (x/a)**(-b)), 0)",
    "richards_q_nu": "1/(1 + q*exp(-b*x))**(1/nu)",
    "mexican_hat_sigma_1e8": "2/(sqrt(3*s)*pi**0.25)*(1 - (x/s)**2)*exp(-x**2/(2*s**2))",
    "morlet_corrected_w_1e8": "(cos(w*x) - exp(-w**2/2))*exp(-x**2/2)",
    "soft_exp_neg_branch_1e8": "-log(1 - a*(x + a))/a",
    "expm1_minus_x_over_x2": "(exp(x) - 1 - x)/x**2",
    "adaptive_wing_y_1e8": "where(abs(x) < th, w*log1p((abs(x)/e)**(a - y)), A*abs(x) - C)",
    "fair_loss_c_1e8": "c**2*(abs(x)/c - log1p(abs(x)/c))",
    "squared_hinge_m_neg": "max(m - x, 0)**2",
    "bce_xlogy_y1": "-logsigmoid(x)",
    "poisson_xlogy_y_big": "exp(x) - y*x + y*log(y) - y",
}
