"""A thirteenth corpus: recent activations in new spellings and at extreme constants
(SMU-1 at mu = 1e6, DELU, ELiSH through keras.ops, TanhExp and Logish in LaTeX, snake
written with 1 - cos at a = 1e-9, x Phi(k x) through torch.special.ndtr), Chebyshev and
Langevin units, smooth clamps written as differences (softplus(x) - softplus(x - 5),
relu(x) - relu(x - 6)), a Hill function at k = 1e-12, the Yeo-Johnson and Box-Cox
power transforms, Student's t kernel and the compound-interest limit at large
exponents, sparse penalties (SCAD, MCP), losses (Tukey as a def, Lorentzian at
s = 1e-12, expectile in LaTeX cases, generalized cross-entropy at q = 1e-8, Taylor
cross-entropy, the log-barrier extension, Tweedie deviance, a softplus hinge at
beta = 1e6, KTO, Schulman's k3 KL estimator), typed as users paste them:
``torch.*``/``F.*``/``torch.special.*``, NumPy, JAX, Keras, TensorFlow, SciPy, ``math``,
a lambda, a def and LaTeX.

Kept from h94's probe of 140 formulas (30, for CI time): every formula that exposed a
defect fixed with it (marked "found:" in its comment) and a varied selection of the
rest. Same fields and references as the first corpus
(``tests/robust/corpus_reference.py``); the judge is ``tests/robust/test_corpus13.py``.
``REFERENCE_TEXT`` gives the same function in a form SymPy's parser reads and mpmath
evaluates at every sample point, written from the published definition, for every
entry whose text is not plain formula syntax.
"""

from __future__ import annotations

from tests.robust.corpus import Published

P = Published

CORPUS13: tuple[Published, ...] = (
    P(
        "smu1_a0_mu_1e6",
        "((1 + a)*x + torch.sqrt(((1 - a)*x)**2 + mu**2))/2",
        "SMU-1 (Biswas et al. 2022), alpha = 0, mu = 1e6, PyTorch",
        {"a": 0.0, "mu": 1000000.0},
    ),
    P(
        "x_erf_scipy_lambda",
        "lambda x: x*scipy.special.erf(x/math.sqrt(2))",
        "x erf(x/sqrt 2), a lambda with scipy.special.erf",
    ),
    P(
        "gelu_ndtr_k_1e4",
        "x*torch.special.ndtr(k*x)",
        "x Phi(k x), k = 1e4, torch.special.ndtr",
        {"k": 10000.0},
    ),
    P(
        "snake_cos_form_a_1e9",
        "x + (1 - torch.cos(2*a*x))/(2*a)",
        "Snake (Ziyin et al. 2020) as x + (1 - cos 2ax)/2a, a = 1e-9",
        {"a": 1e-09},
    ),
    P(
        "delu_n1",
        "torch.where(x <= 0, F.silu(x), (n + 0.5)*x + torch.abs(torch.exp(-x) - 1))",
        "DELU (Pishchik 2023), n = 1, torch.where with F.silu",
        {"n": 1.0},
        kinks=(0.0,),
    ),
    P(
        "elish_keras_ops",
        "keras.ops.where(x >= 0, x, keras.ops.expm1(x))*keras.ops.sigmoid(x)",
        "ELiSH (Basirat and Roth 2018), keras.ops",
    ),
    P(
        "tanhexp_latex",
        "x \\tanh\\left(e^{x}\\right)",
        "TanhExp (Liu and Di 2020), LaTeX",
    ),
    P(
        "logish_latex_frac",
        "x \\ln\\left(1 + \\frac{1}{1 + e^{-x}}\\right)",
        "Logish (Zhu et al. 2021), LaTeX with a fraction",
    ),
    P(
        "chebyshev_t3_acos_tanh",
        "torch.cos(3*torch.acos(torch.tanh(x)))",
        "Chebyshev T3 of tanh as cos(3 acos(tanh x)), PyTorch",
    ),
    P(
        "langevin",
        "1/torch.tanh(x) - 1/x",
        "Langevin function coth(x) - 1/x, PyTorch",
        {},
        removable=(0.0,),
    ),
    P(
        "langevin_latex",
        "\\coth\\left(x\\right) - \\frac{1}{x}",
        "Langevin function, LaTeX",
        {},
        removable=(0.0,),
    ),
    P(
        "softplus_difference_tf",
        "tf.math.softplus(x) - tf.math.softplus(x - 5.0)",
        "softplus(x) - softplus(x - 5), a smooth clamp to [0, 5], TensorFlow",
    ),
    P(
        "relu6_difference",
        "F.relu(x) - F.relu(x - 6)",
        "relu(x) - relu(x - 6), ReLU6 as a difference, F.relu",
        {},
        kinks=(0.0, 6.0),
    ),
    P(
        "hill_k_1e12",
        "x**4/(k**4 + x**4)",
        "Hill function x^4/(k^4 + x^4), k = 1e-12",
        {"k": 1e-12},
    ),
    P(
        "yeo_johnson_half",
        "np.where(x >= 0, ((x + 1)**lam - 1)/lam, -((1 - x)**(2 - lam) - 1)/(2 - lam))",
        "Yeo-Johnson power transform (Yeo and Johnson 2000), lambda = 0.5, np.where",
        {"lam": 0.5},
        kinks=(0.0,),
    ),
    # found: 0 for 0 < x <= 1e-4 in float32, 8e-4 off at x = 1e-8 in float64
    # (the branch's condition x > 0 was not used to rewrite the power minus one)
    P(
        "box_cox_branch_torch_pow",
        "torch.where(x > 0, (torch.pow(x + 1, lam) - 1)/lam, x)",
        "Box-Cox of 1 + x on x > 0, lambda = 1e-6, torch.pow",
        {"lam": 1e-06},
        kinks=(0.0,),
    ),
    # found: 0.011444 for 0.011109 at x = -3 in float32 (1 + x^2/nu rounded, then
    # raised to the power (nu + 1)/2)
    P(
        "student_t_density_torch_pow",
        "torch.pow(1 + x*x/nu, -(nu + 1)/2)",
        "Student's t density kernel, nu = 1e6, torch.pow",
        {"nu": 1000000.0},
    ),
    # found: 0.0075395 for 0.0076350 at x = -4.875 in float32
    P(
        "compound_np_power",
        "np.power(1 + x/n, n)",
        "compound-interest limit (1 + x/n)^n, n = 1e6, np.power",
        {"n": 1000000.0},
    ),
    P(
        "scad_penalty",
        "where(abs(x) <= l, l*abs(x), where(abs(x) <= a*l, (2*a*l*abs(x) - x**2 - l**2)/(2*(a - 1)), l**2*(a + 1)/2))",
        "SCAD penalty (Fan and Li 2001), lambda = 1, a = 3.7",
        {"l": 1.0, "a": 3.7},
        kinks=(-3.7, -1.0, 0.0, 1.0, 3.7),
    ),
    P(
        "mcp_penalty",
        "where(abs(x) <= g*l, l*abs(x) - x**2/(2*g), g*l**2/2)",
        "minimax concave penalty (Zhang 2010), lambda = 0.5, gamma = 3",
        {"l": 0.5, "g": 3.0},
        kinks=(-1.5, 0.0, 1.5),
    ),
    P(
        "tukey_def_if",
        "def tukey(x, c=4.685):\n    if abs(x) <= c:\n        return c**2/6*(1 - (1 - (x/c)**2)**3)\n    return c**2/6",
        "Tukey biweight as a Python def with if, c = 4.685",
        {},
        kinks=(-4.685, 4.685),
    ),
    P(
        "expectile_latex_cases",
        "\\begin{cases} \\tau x^{2} & x \\geq 0 \\\\ (1 - \\tau) x^{2} & x < 0 \\end{cases}",
        "expectile loss, tau = 0.9, LaTeX cases",
        {"tau": 0.9},
        kinks=(0.0,),
    ),
    P(
        "gce_q_1e8",
        "(1 - torch.sigmoid(x)**q)/q",
        "generalized cross-entropy (Zhang and Sabuncu 2018) in logits, q = 1e-8",
        {"q": 1e-08},
    ),
    P(
        "log_barrier_extension",
        "torch.where(x <= -1/t**2, -torch.log(-x)/t, t*x - math.log(1/t**2)/t + 1/t)",
        "log-barrier extension (Kervadec et al. 2022), t = 5, torch.where",
        {"t": 5.0},
        kinks=(-0.04,),
    ),
    P(
        "tweedie_p_1_01",
        "-y*torch.exp((1 - p)*x)/(1 - p) + torch.exp((2 - p)*x)/(2 - p)",
        "Tweedie deviance pieces with a log link, p = 1.01, PyTorch",
        {"y": 2.0, "p": 1.01},
    ),
    P(
        "softplus_hinge_beta_1e6",
        "F.softplus(1 - x, beta=1e6)",
        "smooth hinge F.softplus(1 - x, beta=1e6) (threshold 20)",
        {},
        kinks=(1.0,),
    ),
    P(
        "kto_desirable",
        "1 - torch.sigmoid(beta*(x - z0))",
        "KTO desirable loss 1 - sigmoid(beta (x - z0)), beta = 0.1",
        {"beta": 0.1, "z0": 0.5},
    ),
    P(
        "kl_k3_estimator",
        "(torch.exp(x) - 1) - x",
        "Schulman's k3 KL estimator (exp(x) - 1) - x of the log-ratio",
    ),
    P(
        "taylor_ce_3",
        "(1 - torch.sigmoid(x)) + (1 - torch.sigmoid(x))**2/2 + (1 - torch.sigmoid(x))**3/3",
        "Taylor cross-entropy (Feng et al. 2020), order 3, in logits",
    ),
    P(
        "lorentzian_s_1e12",
        "torch.log(1 + 0.5*(x/s)**2)",
        "Lorentzian loss log(1 + (x/s)^2/2), s = 1e-12",
        {"s": 1e-12},
    ),
)

#: entry name -> the same function in plain formula syntax (the typed text uses
#: torch/NumPy/JAX/TensorFlow/SciPy names, a lambda, a def or LaTeX)
REFERENCE_TEXT: dict[str, str] = {
    "smu1_a0_mu_1e6": "((1 + a)*x + sqrt(((1 - a)*x)**2 + mu**2))/2",
    "x_erf_scipy_lambda": "x*erf(x/sqrt(2))",
    "gelu_ndtr_k_1e4": "x*(1 + erf(k*x/sqrt(2)))/2",
    "snake_cos_form_a_1e9": "x + sin(a*x)**2/a",
    "delu_n1": "where(x <= 0, x*sigmoid(x), (n + 1/2)*x + abs(exp(-x) - 1))",
    "elish_keras_ops": "where(x >= 0, x, exp(x) - 1)*sigmoid(x)",
    "tanhexp_latex": "x*tanh(exp(x))",
    "logish_latex_frac": "x*log(1 + 1/(1 + exp(-x)))",
    "chebyshev_t3_acos_tanh": "4*tanh(x)**3 - 3*tanh(x)",
    "langevin": "1/tanh(x) - 1/x",
    "langevin_latex": "cosh(x)/sinh(x) - 1/x",
    "softplus_difference_tf": "log(1 + exp(x)) - log(1 + exp(x - 5))",
    "relu6_difference": "max(x, 0) - max(x - 6, 0)",
    "yeo_johnson_half": "where(x >= 0, ((x + 1)**lam - 1)/lam, -((1 - x)**(2 - lam) - 1)/(2 - lam))",
    "box_cox_branch_torch_pow": "where(x > 0, ((x + 1)**lam - 1)/lam, x)",
    "student_t_density_torch_pow": "(1 + x*x/nu)**(-(nu + 1)/2)",
    "compound_np_power": "(1 + x/n)**n",
    "tukey_def_if": "where(abs(x) <= 4.685, 4.685**2/6*(1 - (1 - (x/4.685)**2)**3), 4.685**2/6)",
    "expectile_latex_cases": "where(x >= 0, tau*x**2, (1 - tau)*x**2)",
    "gce_q_1e8": "(1 - sigmoid(x)**q)/q",
    "log_barrier_extension": "where(x <= -1/t**2, -log(-x)/t, t*x - log(1/t**2)/t + 1/t)",
    "tweedie_p_1_01": "-y*exp((1 - p)*x)/(1 - p) + exp((2 - p)*x)/(2 - p)",
    "softplus_hinge_beta_1e6": "where(1e6*(1 - x) > 20, 1 - x, log(1 + exp(1e6*(1 - x)))/1e6)",
    "kto_desirable": "1 - sigmoid(beta*(x - z0))",
    "kl_k3_estimator": "exp(x) - 1 - x",
    "taylor_ce_3": "(1 - sigmoid(x)) + (1 - sigmoid(x))**2/2 + (1 - sigmoid(x))**3/3",
    "lorentzian_s_1e12": "log(1 + (x/s)**2/2)",
}
