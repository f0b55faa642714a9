"""An independent corpus of published activation functions, typed as their papers write them.

Each :class:`Published` entry is the formula text a researcher would type into symnb (only
functions of ``symnb.formula.functions.ALLOWED_FUNCTIONS``), its constants with the paper's
defaults, and what a tester needs to know about it: where it has kinks (f' jumps), where it
has a removable singularity (0/0 with a finite limit), and whether f itself jumps (then f' is
the surrogate gradient, not the classical derivative). The paper and year are in ``source``
and in a comment above each entry.

The corpus is the judge of symnb's numerical-robustness stage (issue 8); its references are in
``tests/robust/corpus_reference.py`` and share no code with symnb.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Published:
    """One published activation, as typed by a user."""

    name: str
    text: str
    source: str
    constants: dict[str, float] = field(default_factory=dict)
    #: points where f or f' is not differentiable (f' is not checked exactly there)
    kinks: tuple[float, ...] = ()
    #: points where the formula is 0/0 and the value is the limit
    removable: tuple[float, ...] = ()
    #: f itself jumps: f' is spikingjelly's ATan surrogate (alpha = 2) times the jump
    jumps: bool = False
    #: the formula calls symnb library activations by name (composition)
    library: bool = False


_SAFE_PAU_NUMERATOR = (
    0.0549891645,
    0.505004092,
    1.24178396,
    1.25790914,
    0.518128693,
    0.0784309418,
)
_SAFE_PAU_DENOMINATOR = (1.76585345e-05, 2.49089658, 8.24388417e-07, 0.155309717)


def _safe_pau_text() -> str:
    """PAU 5/4 "safe" form P(x)/(1 + |b1 x + ... + b4 x^4|), written out as a user would."""
    num = " + ".join(
        f"a{k}*x**{k}" if k > 1 else ("a1*x" if k else "a0") for k in range(6)
    )
    den = " + ".join(f"b{k}*x**{k}" if k > 1 else "b1*x" for k in range(1, 5))
    return f"({num})/(1 + abs({den}))"


_SAFE_PAU_CONSTANTS = {f"a{k}": v for k, v in enumerate(_SAFE_PAU_NUMERATOR)} | {
    f"b{k + 1}": v for k, v in enumerate(_SAFE_PAU_DENOMINATOR)
}

CORPUS: tuple[Published, ...] = (
    # ---------------------------------------------------------------- rectifiers
    # Nair & Hinton 2010, "Rectified linear units improve restricted Boltzmann machines"
    Published("relu", "max(0, x)", "Nair & Hinton 2010", kinks=(0.0,)),
    # Maas, Hannun & Ng 2013, "Rectifier nonlinearities improve neural network acoustic models"
    Published(
        "leaky_relu",
        "max(alpha*x, x)",
        "Maas et al. 2013",
        {"alpha": 0.01},
        kinks=(0.0,),
    ),
    # He, Zhang, Ren & Sun 2015, "Delving deep into rectifiers" (PReLU, a = 0.25 init)
    Published("prelu", "where(x >= 0, x, a*x)", "He et al. 2015", {"a": 0.25}, (0.0,)),
    # Xu, Wang, Chen & Li 2015, "Empirical evaluation of rectified activations" (RReLU,
    # test-time slope (l + u)/2 with l = 1/8, u = 1/3)
    Published(
        "rrelu_eval",
        "where(x >= 0, x, x*(lower + upper)/2)",
        "Xu et al. 2015",
        {"lower": 0.125, "upper": 1 / 3},
        (0.0,),
    ),
    # Krizhevsky 2010, "Convolutional deep belief networks on CIFAR-10" (ReLU6)
    Published("relu6", "min(max(0, x), 6)", "Krizhevsky 2010", kinks=(0.0, 6.0)),
    # Li, Tang & Xu 2019, "Better approximations of high dimensional smooth functions by
    # deep neural networks with rectified power units" (RePU, p = 2)
    Published("repu", "max(0, x)**2", "Li et al. 2019", kinks=(0.0,)),
    # Liu, Chen & Deng 2019, "Natural-logarithm-rectified activation function" (NLReLU)
    Published(
        "nlrelu", "log(1 + beta*max(0, x))", "Liu et al. 2019", {"beta": 1.0}, (0.0,)
    ),
    # Jin, Xu, Feng et al. 2016, "Deep learning with S-shaped rectified linear activation
    # units" (SReLU; thresholds and slopes are learnable, values here are an example init)
    Published(
        "srelu",
        "where(x >= tr, tr + ar*(x - tr), where(x > tl, x, tl + al*(x - tl)))",
        "Jin et al. 2016",
        {"tl": -0.4, "al": 0.2, "tr": 0.4, "ar": 0.5},
        (-0.4, 0.4),
    ),
    # ---------------------------------------------------------------- exponential units
    # Clevert, Unterthiner & Hochreiter 2015, "Fast and accurate deep network learning by
    # exponential linear units (ELUs)"
    Published(
        "elu",
        "where(x > 0, x, alpha*(exp(x) - 1))",
        "Clevert et al. 2015",
        {"alpha": 1.0},
        (0.0,),
    ),
    # Klambauer, Unterthiner, Mayr & Hochreiter 2017, "Self-normalizing neural networks"
    Published(
        "selu",
        "1.0507009873554804934193349852946*where(x > 0, x, "
        "1.6732632423543772848170429916717*(exp(x) - 1))",
        "Klambauer et al. 2017",
        kinks=(0.0,),
    ),
    # Barron 2017, "Continuously differentiable exponential linear units", as PyTorch's
    # documentation writes CELU
    Published(
        "celu",
        "max(0, x) + min(0, alpha*(exp(x/alpha) - 1))",
        "Barron 2017",
        {"alpha": 1.0},
        (0.0,),
    ),
    # Trottier, Giguere & Chaib-draa 2017, "Parametric exponential linear unit for deep
    # convolutional neural networks" (PELU; a = b = sqrt(0.1) as in reference code)
    Published(
        "pelu",
        "where(x >= 0, a/b*x, a*(exp(x/b) - 1))",
        "Trottier et al. 2017",
        {"a": math.sqrt(0.1), "b": math.sqrt(0.1)},
        (0.0,),
    ),
    # Zhang & Li 2018, "Effectiveness of scaled exponentially-regularized linear units"
    Published(
        "serlu",
        "where(x >= 0, lambd*x, lambd*alpha*x*exp(x))",
        "Zhang & Li 2018",
        {"lambd": 1.07862, "alpha": 2.90427},
        (0.0,),
    ),
    # Basirat & Roth 2018, "The quest for the golden activation function" (ELiSH)
    Published(
        "elish",
        "where(x >= 0, x/(1 + exp(-x)), (exp(x) - 1)/(1 + exp(-x)))",
        "Basirat & Roth 2018",
        kinks=(0.0,),
    ),
    # Basirat & Roth 2018 (HardELiSH)
    Published(
        "hard_elish",
        "where(x >= 0, x*max(0, min(1, (x + 1)/2)), "
        "(exp(x) - 1)*max(0, min(1, (x + 1)/2)))",
        "Basirat & Roth 2018",
        kinks=(-1.0, 0.0, 1.0),
    ),
    # Godfrey & Gashler 2015, "A continuum among logarithmic, linear, and exponential
    # functions" (soft exponential, alpha > 0 branch)
    Published(
        "soft_exponential",
        "(exp(alpha*x) - 1)/alpha + alpha",
        "Godfrey & Gashler 2015",
        {"alpha": 0.5},
    ),
    # ---------------------------------------------------------------- softplus family
    # Dugas, Bengio, Belisle, Nadeau & Garcia 2001, "Incorporating second-order functional
    # knowledge for better option pricing"
    Published("softplus", "log(1 + exp(x))", "Dugas et al. 2001"),
    # PyTorch's documented Softplus with beta (Dugas et al. 2001 family)
    Published(
        "softplus_beta", "log(1 + exp(beta*x))/beta", "Dugas et al. 2001", {"beta": 2.0}
    ),
    # Schuett, Kindermans, Sauceda et al. 2017, "SchNet" (shifted softplus)
    Published("shifted_softplus", "log(0.5*exp(x) + 0.5)", "Schuett et al. 2017"),
    # Klimek & Perelstein 2020, "Neural network-based approach to phase space integration"
    # (soft clipping)
    Published(
        "soft_clipping",
        "log((1 + exp(a*x))/(1 + exp(a*(x - 1))))/a",
        "Klimek & Perelstein 2020",
        {"a": 50.0},
    ),
    # Barron 2021, "Squareplus: a softplus-like algebraic rectifier"
    Published("squareplus", "(x + sqrt(x**2 + b))/2", "Barron 2021", {"b": 4.0}),
    # ---------------------------------------------------------------- sigmoids and tanh
    # Rumelhart, Hinton & Williams 1986, "Learning representations by back-propagating errors"
    Published("sigmoid", "1/(1 + exp(-x))", "Rumelhart et al. 1986"),
    # logistic log-likelihood as an activation (PyTorch LogSigmoid; Rumelhart et al. 1986)
    Published("logsigmoid", "log(1/(1 + exp(-x)))", "Rumelhart et al. 1986"),
    # LeCun, Bottou, Orr & Mueller 1998, "Efficient BackProp" (tanh typed as exponentials)
    Published(
        "tanh_exponentials",
        "(exp(x) - exp(-x))/(exp(x) + exp(-x))",
        "LeCun et al. 1998",
    ),
    # LeCun et al. 1998, "Efficient BackProp" (scaled tanh)
    Published("lecun_tanh", "1.7159*tanh(2*x/3)", "LeCun et al. 1998"),
    # Fausett 1994, "Fundamentals of Neural Networks" (bipolar sigmoid)
    Published("bipolar_sigmoid", "(1 - exp(-x))/(1 + exp(-x))", "Fausett 1994"),
    # Elliott 1993, "A better activation function for artificial neural networks"
    Published("elliott", "0.5*x/(1 + abs(x)) + 0.5", "Elliott 1993", kinks=(0.0,)),
    # Turian, Bergstra & Bengio 2009, "Quadratic features and deep architectures for
    # chunking" (softsign)
    Published("softsign", "x/(1 + abs(x))", "Turian et al. 2009", kinks=(0.0,)),
    # arctan as an activation (in the search space of Ramachandran, Zoph & Le 2017)
    Published("arctan", "atan(x)", "Ramachandran et al. 2017"),
    # Carlile, Delamarter, Kinney, Marti & Whitney 2017, "Improving deep learning by inverse
    # square root linear units (ISRLUs)" (ISRU)
    Published("isru", "x/sqrt(1 + alpha*x**2)", "Carlile et al. 2017", {"alpha": 1.0}),
    # Carlile et al. 2017 (ISRLU)
    Published(
        "isrlu",
        "where(x >= 0, x, x/sqrt(1 + alpha*x**2))",
        "Carlile et al. 2017",
        {"alpha": 1.0},
        (0.0,),
    ),
    # Xu, Huang & Li 2016, "Revise saturated activation functions" (penalized tanh)
    Published(
        "penalized_tanh",
        "where(x > 0, tanh(x), a*tanh(x))",
        "Xu et al. 2016",
        {"a": 0.25},
        (0.0,),
    ),
    # Duggal & Gupta 2017, "P-TELU: parametric tan hyperbolic linear unit"
    Published(
        "ptelu",
        "where(x >= 0, x, alpha*tanh(beta*x))",
        "Duggal & Gupta 2017",
        {"alpha": 1.0, "beta": 1.0},
        (0.0,),
    ),
    # Gomes, Ludermir & Lima 2011, "Comparison of new activation functions in neural network
    # for forecasting financial time series" (complementary log-log)
    Published("cloglog", "1 - exp(-exp(x))", "Gomes et al. 2011"),
    # Gomes et al. 2011 (log-log)
    Published("loglog", "exp(-exp(-x))", "Gomes et al. 2011"),
    # Gomes et al. 2011 (probit: the normal distribution function)
    Published("probit", "0.5*(1 + erf(x/sqrt(2)))", "Gomes et al. 2011"),
    # Gomes et al. 2011 (Aranda-Ordaz, lambda = 2)
    Published(
        "aranda_ordaz",
        "1 - (1 + lambd*exp(x))**(-1/lambd)",
        "Gomes et al. 2011",
        {"lambd": 2.0},
    ),
    # ---------------------------------------------------------------- hard approximations
    # Courbariaux, Bengio & David 2015, "BinaryConnect" (hard sigmoid)
    Published(
        "hard_sigmoid",
        "max(0, min(1, (x + 1)/2))",
        "Courbariaux et al. 2015",
        kinks=(-1.0, 1.0),
    ),
    # Collobert 2004, "Large scale machine learning" (hard tanh)
    Published("hard_tanh", "max(-1, min(1, x))", "Collobert 2004", kinks=(-1.0, 1.0)),
    # Howard, Sandler, Chu et al. 2019, "Searching for MobileNetV3" (hard swish)
    Published(
        "hard_swish",
        "x*min(max(x + 3, 0), 6)/6",
        "Howard et al. 2019",
        kinks=(-3.0, 3.0),
    ),
    # Wuraola & Patel 2018, "SQNL: a new computationally efficient activation function"
    Published(
        "sqnl",
        "where(x > 2, 1, where(x >= 0, x - x**2/4, where(x >= -2, x + x**2/4, -1)))",
        "Wuraola & Patel 2018",
        kinks=(-2.0, 0.0, 2.0),
    ),
    # Donoho 1995, "De-noising by soft-thresholding" (softshrink)
    Published(
        "softshrink",
        "where(x > lambd, x - lambd, where(x < -lambd, x + lambd, 0))",
        "Donoho 1995",
        {"lambd": 0.5},
        (-0.5, 0.5),
    ),
    # Donoho & Johnstone 1994, "Ideal spatial adaptation by wavelet shrinkage" (hardshrink)
    Published(
        "hardshrink",
        "where(abs(x) > lambd, x, 0)",
        "Donoho & Johnstone 1994",
        {"lambd": 0.5},
        (-0.5, 0.5),
    ),
    # ---------------------------------------------------------------- self-gated
    # Ramachandran, Zoph & Le 2017, "Searching for activation functions" (Swish)
    Published("swish", "x*sigmoid(beta*x)", "Ramachandran et al. 2017", {"beta": 1.0}),
    # Elfwing, Uchibe & Doya 2018, "Sigmoid-weighted linear units for neural network
    # function approximation in reinforcement learning" (SiLU)
    Published("silu", "x/(1 + exp(-x))", "Elfwing et al. 2018"),
    # Elfwing et al. 2018 (dSiLU, the derivative of the SiLU)
    Published("dsilu", "sigmoid(x)*(1 + x*(1 - sigmoid(x)))", "Elfwing et al. 2018"),
    # Alcaide 2018, "E-swish: adjusting activations to different network depths"
    Published("eswish", "beta*x*sigmoid(x)", "Alcaide 2018", {"beta": 1.375}),
    # Chieng, Wahid, Pauline & Perla 2018, "Flatten-T Swish"
    Published(
        "flatten_t_swish",
        "where(x >= 0, x*sigmoid(x) + T, T)",
        "Chieng et al. 2018",
        {"T": -0.2},
        (0.0,),
    ),
    # Hendrycks & Gimpel 2016, "Gaussian error linear units (GELUs)" (sigmoid approximation)
    Published("gelu_sigmoid", "x*sigmoid(1.702*x)", "Hendrycks & Gimpel 2016"),
    # Hendrycks & Gimpel 2016 (exact, erf form)
    Published("gelu", "0.5*x*(1 + erf(x/sqrt(2)))", "Hendrycks & Gimpel 2016"),
    # Hendrycks & Gimpel 2016 (tanh approximation)
    Published(
        "gelu_tanh",
        "0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x**3)))",
        "Hendrycks & Gimpel 2016",
    ),
    # Misra 2019, "Mish: a self regularized non-monotonic activation function"
    Published("mish", "x*tanh(log(1 + exp(x)))", "Misra 2019"),
    # Misra 2019, Mila (Mish with a shift beta, from the Mish repository)
    Published("mila", "x*tanh(log(1 + exp(beta + x)))", "Misra 2019", {"beta": -0.25}),
    # Liu & Di 2020, "TanhExp: a smooth activation function with high convergence speed"
    Published("tanhexp", "x*tanh(exp(x))", "Liu & Di 2020"),
    # Biswas, Banerjee & Pandey 2020, "TanhSoft" (TanhSoft-1)
    Published(
        "tanhsoft1",
        "tanh(alpha*x)*log(1 + exp(x))",
        "Biswas et al. 2020",
        {"alpha": 0.87},
    ),
    # Biswas et al. 2020, "TanhSoft" (TanhSoft-2)
    Published(
        "tanhsoft2",
        "x*tanh(beta*exp(c*x))",
        "Biswas et al. 2020",
        {"beta": 0.6, "c": 1.0},
    ),
    # Biswas, Banerjee & Pandey 2021, "ErfAct and Pserf: non-monotonic smooth trainable
    # activation functions" (ErfAct)
    Published(
        "erfact",
        "x*erf(alpha*exp(beta*x))",
        "Biswas et al. 2021",
        {"alpha": 0.75, "beta": 0.75},
    ),
    # Biswas et al. 2021 (Pserf)
    Published(
        "pserf",
        "x*erf(c*log(1 + exp(d*x)))",
        "Biswas et al. 2021",
        {"c": 1.25, "d": 0.85},
    ),
    # Nag & Bhattacharyya 2021, "SERF: towards better training of deep neural networks using
    # log-Softplus ERror activation Function"
    Published("serf", "x*erf(log(1 + exp(x)))", "Nag & Bhattacharyya 2021"),
    # Zhou, Li, Ding & Tao 2020, "Soft-root-sign activation function"
    Published(
        "soft_root_sign",
        "x/(x/alpha + exp(-x/beta))",
        "Zhou et al. 2020",
        {"alpha": 2.0, "beta": 3.0},
    ),
    # Zhu, Zeng, Huang & Zeng 2021, "Logish: a new nonlinear nonmonotonic activation function"
    Published("logish", "x*log(1 + sigmoid(x))", "Zhu et al. 2021"),
    # Wang, Ren & Wang 2022, "Smish: a novel activation function for deep learning methods"
    Published(
        "smish",
        "alpha*x*tanh(log(1 + sigmoid(beta*x)))",
        "Wang et al. 2022",
        {"alpha": 1.0, "beta": 1.0},
    ),
    # Zhu, Zhou & Li 2021, "PFLU and FPFLU: two novel non-monotonic activation functions"
    Published("pflu", "x*0.5*(1 + x/sqrt(1 + x**2))", "Zhu et al. 2021"),
    # Ma, Zhang, Liu, Zhang & Sun 2021, "Activate or not: learning customized activation"
    # (ACON-C)
    Published(
        "acon_c",
        "(p1 - p2)*x*sigmoid(beta*(p1 - p2)*x) + p2*x",
        "Ma et al. 2021",
        {"p1": 1.0, "p2": 0.25, "beta": 1.0},
    ),
    # x times Richards' generalised logistic, Richards 1959, "A flexible growth function for
    # empirical use" (a generalised swish)
    Published(
        "generalized_swish",
        "x*(1 + exp(-beta*x))**(-alpha)",
        "Richards 1959",
        {"alpha": 1.5, "beta": 1.0},
    ),
    # Roy, Manna, Dubey & Chaudhuri 2019, "LiSHT: non-parametric linearly scaled hyperbolic
    # tangent activation function"
    Published("lisht", "x*tanh(x)", "Roy et al. 2019"),
    # ---------------------------------------------------------------- oscillating, bumps
    # Noel, Trivedi, Dandekar & Bhardwaj 2021, "Growing cosine unit"
    Published("gcu", "x*cos(x)", "Noel et al. 2021"),
    # Ziyin, Hartwig & Ueda 2020, "Neural networks fail to learn periodic functions and how
    # to fix it" (Snake)
    Published("snake", "x + sin(a*x)**2/a", "Ziyin et al. 2020", {"a": 1.0}),
    # Sitzmann, Martel, Bergman, Lindell & Wetzstein 2020, "Implicit neural representations
    # with periodic activation functions" (SIREN, w0 = 30)
    Published("siren", "sin(w0*x)", "Sitzmann et al. 2020", {"w0": 30.0}),
    # Broomhead & Lowe 1988, "Multivariable functional interpolation and adaptive networks"
    # (Gaussian)
    Published("gaussian", "exp(-x**2)", "Broomhead & Lowe 1988"),
    # sinc, in the search space of Ramachandran et al. 2017 (removable singularity at 0)
    Published("sinc", "sin(x)/x", "Ramachandran et al. 2017", removable=(0.0,)),
    # Chen & Manning 2014, "A fast and accurate dependency parser using neural networks"
    # (cube activation)
    Published("cube", "x**3", "Chen & Manning 2014"),
    # ---------------------------------------------------------------- rational, shrink
    # Molina, Schramowski & Kersting 2019, "Padé activation units" (safe PAU 5/4,
    # coefficients of the leaky-ReLU initialisation of the reference implementation)
    Published(
        "pau_5_4",
        _safe_pau_text(),
        "Molina et al. 2019",
        _SAFE_PAU_CONSTANTS,
        kinks=(0.0,),
    ),
    # Bent identity (as tabulated with Tanhshrink and SQNL in Wuraola & Patel 2018)
    Published("bent_identity", "(sqrt(x**2 + 1) - 1)/2 + x", "Wuraola & Patel 2018"),
    # PyTorch's Tanhshrink (Donoho 1995 shrinkage family)
    Published("tanhshrink", "x - tanh(x)", "Donoho 1995"),
    # ---------------------------------------------------------------- step pairs
    # Hafner, Pasukonis, Ba & Lillicrap 2023, "Mastering diverse domains through world
    # models" (DreamerV3 symlog): continuous, exact derivative 1/(1 + |x|)
    Published("symlog", "sign(x)*log(1 + abs(x))", "Hafner et al. 2023", kinks=(0.0,)),
    # Courbariaux, Hubara, Soudry, El-Yaniv & Bengio 2016, "Binarized neural networks":
    # sign jumps, so f' is the surrogate
    Published(
        "binary_sign", "sign(x)", "Courbariaux et al. 2016", kinks=(0.0,), jumps=True
    ),
    # ReLU written with a step: continuous (the step's factor x vanishes at 0)
    Published("relu_heaviside", "x*heaviside(x)", "Nair & Hinton 2010", kinks=(0.0,)),
    # McCulloch & Pitts 1943, "A logical calculus of the ideas immanent in nervous
    # activity" (threshold unit): jumps
    Published(
        "threshold_unit",
        "heaviside(x)",
        "McCulloch & Pitts 1943",
        kinks=(0.0,),
        jumps=True,
    ),
    # Neftci, Mostafa & Zenke 2019, "Surrogate gradient learning in spiking neural networks"
    # (spike at threshold theta): jumps
    Published(
        "spike",
        "heaviside(x - theta)",
        "Neftci et al. 2019",
        {"theta": 1.0},
        kinks=(1.0,),
        jumps=True,
    ),
    # the same threshold with a linear response above it: continuous
    Published(
        "thresholded_linear",
        "(x - theta)*heaviside(x - theta)",
        "Neftci et al. 2019",
        {"theta": 1.0},
        kinks=(1.0,),
    ),
    # absolute value written with sign (Ramachandran et al. 2017 search space |x|):
    # continuous
    Published("abs_sign", "x*sign(x)", "Ramachandran et al. 2017", kinks=(0.0,)),
)

#: Constructed checks (not from papers): removable singularities and cancellation.
REMOVABLE: tuple[Published, ...] = (
    Published(
        "shifted_sinc",
        "pi*sin(x - pi)/(x - pi)",
        "issue 8 (removable singularity away from 0)",
        removable=(math.pi,),
    ),
    Published(
        "normalized_sinc", "sin(pi*x)/(pi*x)", "Shannon 1949 (sinc)", removable=(0.0,)
    ),
    Published("exprel", "(exp(x) - 1)/x", "constructed (0/0 at 0)", removable=(0.0,)),
    Published(
        "bernoulli_generating",
        "x/(exp(x) - 1)",
        "constructed (0/0 at 0)",
        removable=(0.0,),
    ),
    Published(
        "one_minus_cos", "(1 - cos(x))/x**2", "constructed (0/0 at 0)", removable=(0.0,)
    ),
    Published("tanh_over_x", "tanh(x)/x", "constructed (0/0 at 0)", removable=(0.0,)),
)

#: Library activations used inside formulas (issue 8, "Composition").
COMPOSITION: tuple[Published, ...] = (
    Published("gelu_plus_silu", "gelu(x) + silu(x)", "issue 8", library=True),
    Published("mish_2x", "mish(2*x)", "issue 8", library=True),
    # Naveen 2022, "Phish: a novel hyper-optimizable activation function"
    Published("phish", "x*tanh(gelu(x))", "Naveen 2022", library=True),
    Published(
        "hardswish_silu_mean",
        "0.5*(hardswish(x) + silu(x))",
        "composition",
        kinks=(-3.0, 3.0),
        library=True,
    ),
    Published(
        "elu_shifted", "elu(x - 1) + 1", "composition", kinks=(1.0,), library=True
    ),
    Published(
        "softsign_3x", "softsign(3*x)", "composition", kinks=(0.0,), library=True
    ),
)

ALL: tuple[Published, ...] = CORPUS + REMOVABLE + COMPOSITION

_names = [e.name for e in ALL]
assert len(_names) == len(set(_names)), "corpus names must be unique"
