"""Other libraries' spellings of formula functions: ``np.tanh(x)``, ``F.silu(x)``, ``expit``.

Users paste formulas from NumPy, PyTorch, JAX, TensorFlow, SciPy and ``math`` code.
The parser reads a call ``<module>.<name>(...)`` (or ``np.pi``) whose module path is
one of :data:`MODULES` as symnb's own function: nothing is imported or evaluated, the
dotted name is only looked up in the tables here. A name is mapped only where the
library's default arguments give exactly symnb's function (``jax.nn.gelu`` defaults to
the tanh approximation, TensorFlow's ``leaky_relu`` to slope 0.2: neither is symnb's
default, so the first maps to ``gelu_tanh`` and the second is refused with a hint).

Some spellings have no symnb function of their own (``np.square``, ``np.power``,
``np.logaddexp``, ``np.sinc``, ``scipy.special.ndtr``); :func:`rewrite_call` turns them
into the formula syntax tree symnb reads, so every check of that syntax applies.
"""

from __future__ import annotations

import ast
from collections.abc import Container, Sequence

from symnb.formula import foreign_losses

#: Module paths a formula may prefix a function with (``torch.nn.functional.silu``).
MODULES = frozenset(
    {
        "np",
        "numpy",
        "math",
        "torch",
        "F",
        "nn.functional",
        "torch.nn.functional",
        "torch.special",
        "jnp",
        "jax.numpy",
        "jax.nn",
        "jax.scipy.special",
        "tf",
        "tf.math",
        "tf.nn",
        "scipy.special",
        "special",
        "sp",
        "sympy",
        "tf.keras.activations",
        "keras.activations",
        "keras.ops",
        "keras.losses",
        "tf.keras.losses",
        "optax",
        "scipy.stats.norm",
        "stats.norm",
        "norm",
        "K",
        "keras.backend",
        "tf.keras.backend",
        "torchvision.ops",
        "jax.lax",
    }
)

#: Modules whose max/min are elementwise functions of their arguments, never
#: reductions over an array (``sp.Max(x, 0)``, ``jax.lax.max(x, 0.)``).
SYMBOLIC_MODULES = frozenset({"sp", "sympy", "jax.lax"})

#: name -> symnb function, for every module (where the meaning is the same everywhere).
_COMMON = {
    "maximum": "max",
    "minimum": "min",
    "fabs": "abs",
    "absolute": "abs",
    "expit": "sigmoid",
    "logistic": "sigmoid",
    "log_sigmoid": "logsigmoid",
    "log_expit": "logsigmoid",
    "soft_sign": "softsign",
    "hard_tanh": "hardtanh",
    "hard_sigmoid": "hardsigmoid",
    "hard_swish": "hardswish",
    "hard_silu": "hardswish",
    "swish": "silu",  # tf.nn.swish, jax.nn.swish: x*sigmoid(x)
    "clamp": "clip",
    "clip_by_value": "clip",
    "fmax": "max",  # NumPy's NaN-ignoring maximum: the same for numbers
    "fmin": "min",
    "tanh_shrink": "tanhshrink",  # keras.ops
    "soft_shrink": "softshrink",
    "hard_shrink": "hardshrink",
    "exponential": "exp",  # keras.activations
    # the gamma family (symnb.formula.gamma): SciPy's, math's and SymPy's names
    "gammaln": "lgamma",
    "gamma": "tgamma",
    "psi": "digamma",
}

#: (module, name) -> symnb function where a module's default differs from the others.
_BY_MODULE = {
    ("jax.nn", "gelu"): "gelu_tanh",  # jax.nn.gelu(x, approximate=True)
    ("keras.ops", "gelu"): "gelu_tanh",  # keras.ops.gelu(x, approximate=True)
}

#: (module, name) -> why it is refused (a default unlike symnb's library function).
_REFUSED = {
    ("tf.nn", "leaky_relu"): (
        "tf.nn.leaky_relu defaults to slope 0.2 (symnb's leaky_relu: 0.01)",
        "write where(x > 0, x, 0.2*x)",
    ),
    **{
        (keras, "leaky_relu"): (
            f"{keras}.leaky_relu defaults to slope 0.2 (symnb's leaky_relu: 0.01)",
            "write where(x > 0, x, 0.2*x)",
        )
        for keras in ("tf.keras.activations", "keras.activations", "keras.ops")
    },
    **{
        (keras, "hard_sigmoid"): (
            (
                f"{keras}.hard_sigmoid is clip(0.2*x + 0.5, 0, 1) in Keras 2 but "
                "relu6(x + 3)/6 in Keras 3"
            ),
            "write the one you use: clip(0.2*x + 0.5, 0, 1) or hardsigmoid(x)",
        )
        for keras in ("tf.keras.activations", "keras.activations", "keras.ops")
    },
}

#: Modules of one distribution (SciPy's ``norm``): only these names, which differ
#: from the same names elsewhere (``norm.cdf`` is the standard normal CDF).
_DISTRIBUTIONS = {
    module: {"cdf": "ndtr", "logcdf": "log_ndtr"}
    for module in ("scipy.stats.norm", "stats.norm", "norm")
}

#: PyTorch's functional losses (``F.mse_loss(input, target)``) -> symnb's library loss
#: of the same elementwise formula (PyTorch's default reduction is the mean, as symnb's).
LOSS_FUNCTIONS = {
    "mse_loss": "mse",
    "l1_loss": "mae",
    "huber_loss": "huber",
    "binary_cross_entropy": "bce",
    "binary_cross_entropy_with_logits": "bce_with_logits",
}
_LOSS_MODULES = ("F", "nn.functional", "torch.nn.functional")

#: PyTorch's functional activations whose ``inplace`` flag may be passed by position
#: (``F.leaky_relu(x, 0.2, True)``): the flag's position in the signature.
TORCH_INPLACE_POSITION = {
    "relu": 1,
    "relu6": 1,
    "selu": 1,
    "silu": 1,
    "mish": 1,
    "hardswish": 1,
    "hardsigmoid": 1,
    "elu": 2,
    "celu": 2,
    "leaky_relu": 2,
    "hardtanh": 3,
    "threshold": 3,
}


def inplace_position(module: str, name: str) -> int | None:
    """Where ``module.name`` (a PyTorch functional) takes ``inplace`` by position."""
    return TORCH_INPLACE_POSITION.get(name) if module in _LOSS_MODULES else None


#: Other libraries' losses of the same elementwise formula -> (symnb's loss, the
#: library's argument names in order as symnb's: y_pred, y_true or a constant).
#: Keras takes (y_true, y_pred); optax (predictions, targets) and (logits, labels).
_KERAS_LOSSES = {
    "mean_squared_error": "mse",
    "mse": "mse",
    "MSE": "mse",
    "mean_absolute_error": "mae",
    "mae": "mae",
    "MAE": "mae",
    "huber": "huber",
    "log_cosh": "log_cosh",
    "logcosh": "log_cosh",
}
FOREIGN_LOSSES = {
    **{
        (module, name): (loss, ("y_true", "y_pred", "delta"))
        for module in ("keras.losses", "tf.keras.losses")
        for name, loss in _KERAS_LOSSES.items()
    },
    ("tf.nn", "sigmoid_cross_entropy_with_logits"): (
        "bce_with_logits",
        ("labels", "logits"),
    ),
    ("optax", "sigmoid_binary_cross_entropy"): (
        "bce_with_logits",
        ("logits", "labels"),
    ),
    ("optax", "squared_error"): ("mse", ("predictions", "targets")),
    ("optax", "huber_loss"): ("huber", ("predictions", "targets", "delta")),
    ("optax", "log_cosh"): ("log_cosh", ("predictions", "targets")),
    ("optax", "hinge_loss"): ("hinge", ("predictor_outputs", "targets")),
}
#: The foreign argument names as symnb's.
_LOSS_ARGUMENT_NAMES = {
    "labels": "y_true",
    "logits": "y_pred",
    "predictions": "y_pred",
    "targets": "y_true",
    "predictor_outputs": "y_pred",
    "input": "y_pred",
    "target": "y_true",
    "inputs": "y_pred",
}

#: Reductions over an array (``torch.mean(...)``, ``np.sum(np.exp(x))``): refused, as
#: a formula is elementwise and a loss is averaged by symnb.
_REDUCTIONS = frozenset(
    {
        "mean",
        "sum",
        "reduce_mean",
        "reduce_sum",
        "reduce_max",
        "reduce_min",
        "reduce_prod",
        "average",
        "nanmean",
        "nansum",
        "logsumexp",
        "amax",
        "amin",
        "nanmax",
        "nanmin",
        "prod",
        "std",
        "var",
        "median",
        "cumsum",
        "cumprod",
    }
)

#: ``torch.max``, ``np.min``...: a reduction with one argument or a number second
#: argument (PyTorch's ``dim``, NumPy's ``axis``), elementwise only against a tensor.
MAX_MIN = frozenset({"max", "min"})

#: Constants: ``np.pi``, ``math.e``.
CONSTANTS = {"pi": "pi", "e": "E", "E": "E"}

#: Spellings without a symnb function, rewritten into formula syntax: name -> the
#: library's argument names (the rewrite's arity).
_REWRITTEN = {
    "square": ("x",),
    "power": ("x1", "x2"),
    "pow": ("x1", "x2"),
    "logaddexp": ("x1", "x2"),
    "logaddexp2": ("x1", "x2"),  # NumPy: log2(2**x1 + 2**x2)
    "sinc": ("x",),
    "ndtr": ("x",),
    "log_ndtr": ("x",),  # torch.special, scipy.special, jax.scipy.special
    "hypot": ("x1", "x2"),
    "exp2": ("x",),
    "reciprocal": ("x",),
    "rsqrt": ("x",),
    "logit": ("x", "eps"),  # torch.logit(x, eps): x clamped to [eps, 1 - eps] first
    "squareplus": ("x", "b"),  # jax.nn.squareplus
    "sparse_plus": ("x",),  # jax.nn.sparse_plus
    "sparse_sigmoid": ("x",),  # jax.nn.sparse_sigmoid: (x + 1)/2 clipped to [0, 1]
    "hardshrink": ("x", "lambd"),  # F.hardshrink
    "threshold": ("x", "threshold", "value"),  # F.threshold
    "rrelu": ("x", "lower", "upper", "training"),  # F.rrelu, evaluation mode only
    "xlogy": ("x", "y"),  # torch, torch.special, scipy.special, jax.scipy.special
    "xlog1py": ("x", "y"),
    "entr": ("x",),  # torch.special, scipy.special, jax.scipy.special
    "rel_entr": ("x", "y"),  # scipy.special, jax.scipy.special
    "clamp_min": ("x", "min"),  # torch.clamp_min(x, 0)
    "clamp_max": ("x", "max"),
    "positive": ("x",),  # np.positive, np.negative
    "negative": ("x",),
    "float_power": ("x1", "x2"),
    "copysign": ("x1", "x2"),
    # calls with options, only where the options are given (WITH_OPTIONS)
    "keras_relu": ("x", "negative_slope", "max_value", "threshold"),
    "silu_beta": ("x", "beta"),
    "exprel": ("x",),  # scipy.special: (exp(x) - 1)/x
    "erfcx": ("x",),  # torch.special, scipy.special: exp(x**2)*erfc(x)
    "linear": ("x",),  # keras.activations: the identity
    # arithmetic as functions: torch.mul(a, b), tf.multiply, np.add, torch.sub(a, b,
    # alpha=2), torch.neg (and as tensor methods: symnb.formula.tensor_methods)
    "multiply": ("x1", "x2"),
    "mul": ("x1", "x2"),
    "divide": ("x1", "x2"),
    "div": ("x1", "x2"),
    "true_divide": ("x1", "x2"),
    "add": ("x1", "x2", "alpha"),
    "subtract": ("x1", "x2", "alpha"),
    "sub": ("x1", "x2", "alpha"),
    "neg": ("x",),
    # steps (floor and ceiling underneath: derivative 0 between the steps)
    "trunc": ("x",),  # np.trunc, torch.trunc, math.trunc
    "fix": ("x",),  # np.fix, torch.fix
    "frac": ("x",),  # torch.frac: x - trunc(x)
    "rint": ("x",),  # np.rint: round half to even
    "round": ("x", "decimals"),  # np.round, torch.round(x, decimals=0)
    "around": ("x", "decimals"),
    "arctan2": ("x1", "x2"),  # np.arctan2(y, x), torch.atan2, math.atan2
    "atan2": ("x1", "x2"),
}

#: Remainders: refused (formulas have no modulo; see :func:`function_name`).
_REMAINDERS = frozenset(
    {"fmod", "mod", "remainder", "floor_divide", "floormod", "truncatediv"}
)

_KERAS_ACTIVATIONS = ("tf.keras.activations", "keras.activations")

#: (module, name) -> the spelling that reads the options, for a call that gives more
#: than the input (``keras.activations.relu(x, max_value=6)``, ``tf.nn.silu(x,
#: beta=1.5)``, ``tf.nn.leaky_relu(x, alpha=0.2)``: refused without a slope, as the
#: default differs from symnb's).
WITH_OPTIONS = {
    **{(keras, "relu"): "keras_relu" for keras in _KERAS_ACTIVATIONS},
    **{
        (module, "leaky_relu"): "leaky_relu"
        for module in (*_KERAS_ACTIVATIONS, "keras.ops", "tf.nn")
    },
    ("tf.nn", "silu"): "silu_beta",
    ("tf.nn", "swish"): "silu_beta",
}


def with_options(parts: tuple[str, str] | None, node: ast.Call) -> str | None:
    """The name in :data:`WITH_OPTIONS` for ``node``, a call with options, else None."""
    if parts not in WITH_OPTIONS or (len(node.args) < 2 and not node.keywords):
        return None
    return WITH_OPTIONS[parts]


#: Rewritten spellings whose arguments may be given by keyword, with the library's
#: defaults (None: required).
KEYWORD_DEFAULTS = {
    "logit": {"eps": ""},  # None (here ""): no clamp
    "squareplus": {"b": 4},
    "hardshrink": {"lambd": 0.5},
    "threshold": {"threshold": None, "value": None},
    "rrelu": {"lower": 1 / 8, "upper": 1 / 3, "training": False},
    "clamp_min": {"min": None},
    "clamp_max": {"max": None},
    # Keras's relu: max_value None (here "") is no cap
    "keras_relu": {"negative_slope": 0.0, "max_value": "", "threshold": 0.0},
    "silu_beta": {"beta": 1.0},
    "add": {"alpha": 1},
    "subtract": {"alpha": 1},
    "sub": {"alpha": 1},
    "round": {"decimals": 0},
    "around": {"decimals": 0},
}

#: Bare names (no module) read as symnb functions; they never shadow a user's constant.
BARE = {
    "expit": "sigmoid",
    "logistic": "sigmoid",
    "fabs": "abs",
    "Phi": "ndtr",  # the standard normal CDF, as in GELU's x*Phi(x)
    "ndtr": "ndtr",
    "log_ndtr": "log_ndtr",
    # the same function in every library that has it (rewritten, see _REWRITTEN)
    "square": "square",
    "power": "power",
    "pow": "pow",
    "logaddexp": "logaddexp",
    "logaddexp2": "logaddexp2",
    "hypot": "hypot",
    "exp2": "exp2",
    "reciprocal": "reciprocal",
    "rsqrt": "rsqrt",
    "logit": "logit",
    "squareplus": "squareplus",
    "sparse_plus": "sparse_plus",
    "sparse_sigmoid": "sparse_sigmoid",
    "hardshrink": "hardshrink",
    "xlogy": "xlogy",
    "xlog1py": "xlog1py",
    "trunc": "trunc",
    "rint": "rint",
    "round": "round",  # Python's round: half to even, as NumPy's
    "atan2": "atan2",
    "arctan2": "arctan2",
    # SciPy's and math's names of the gamma family (a constant named gamma or psi
    # stays the constant)
    "gamma": "tgamma",
    "gammaln": "lgamma",
    "psi": "digamma",
}

#: Bare function names refused because libraries disagree on them: name -> (why, fix).
AMBIGUOUS = {
    "sinc": (
        (
            "sinc is ambiguous: sin(x)/x in mathematics and SymPy, sin(pi*x)/(pi*x) "
            "in NumPy and PyTorch"
        ),
        "write sin(x)/x, or np.sinc(x) (or sin(pi*x)/(pi*x)) for NumPy's",
    ),
}

#: A loss's variables under other common names (PyTorch's input/target, y and y_hat).
LOSS_VARIABLES = {
    "y_hat": "y_pred",
    "yhat": "y_pred",
    "pred": "y_pred",
    "prediction": "y_pred",
    "output": "y_pred",
    "input": "y_pred",
    "y": "y_true",
    "target": "y_true",
    "label": "y_true",
}


#: An activation's input under the names libraries and papers give it (PyTorch's
#: ``input``, Keras's ``inputs``, ``z`` for a pre-activation), read as x in a formula
#: that has no x and declares no constant of that name.
INPUT_NAMES = ("input", "inputs", "z", "tensor", "features")


def input_alias(
    tree: ast.AST,
    variables: tuple[str, ...],
    constants: Sequence[str],
    parameter: str | None = None,
) -> str | None:
    """The one name of :data:`INPUT_NAMES` that stands for x in ``tree`` (or
    ``parameter``, a pasted function's input), else None."""
    if tuple(variables) != ("x",):
        return None
    if parameter is not None:
        return parameter if parameter not in (*constants, "x") else None
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    found = [n for n in INPUT_NAMES if n in names and n not in constants]
    return found[0] if "x" not in names and len(found) == 1 else None


#: Short names of model code (MobileNet's hswish/hsigmoid) for library activations.
_SHORT_NAMES = {"hswish": "hardswish", "hsigmoid": "hardsigmoid", "lrelu": "leaky_relu"}


def folded_name(name: str, functions: Container[str]) -> str | None:
    """The one function of ``functions`` that ``name`` spells with other capitals
    or underscores, as papers and layer classes write them (``ReLU``, ``GELU``,
    ``SiLU``, ``LeakyReLU``, ``hard_swish``, ``log_sigmoid``), or a short name of
    model code (``hswish``); None when there is none or more than one."""
    key = name.replace("_", "").lower()
    if key in _SHORT_NAMES and _SHORT_NAMES[key] in functions:
        return _SHORT_NAMES[key]
    found = [
        f
        for f in functions
        if not f.startswith("_") and f.replace("_", "").lower() == key and f != name
    ]
    return found[0] if len(found) == 1 else None


def loss_inputs(params: Sequence[str], variables: tuple[str, ...]) -> dict[str, str]:
    """A pasted loss function's first two parameters -> ``y_pred`` / ``y_true``: by
    name where the name says which (``target``, ``y_hat``; Keras's ``(y_true,
    y_pred)`` order), else by position (``forward(self, x, y)``: prediction first,
    as PyTorch's losses take them)."""
    canonical = ("y_pred", "y_true")
    if tuple(variables) != canonical or len(params) < 2:
        return {}
    named = {p: p if p in canonical else LOSS_VARIABLES.get(p) for p in params[:2]}
    free = [c for c in canonical if c not in named.values()]
    for p in params[:2]:
        if named[p] is None and free:
            named[p] = free.pop(0)
    return {p: a for p, a in named.items() if a is not None and p != a}


def variable_alias(name: str, variables: tuple[str, ...]) -> str | None:
    """The loss variable ``name`` stands for (``y_hat`` -> ``y_pred``), else None."""
    if tuple(variables) != ("y_pred", "y_true"):
        return None
    return LOSS_VARIABLES.get(name)


def attribute_of(node: ast.AST, owner: str = "self") -> str | None:
    """``name`` where ``node`` is ``owner.name`` (``self.beta``: ``"beta"``), else
    None: a module's attribute in pasted code."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == owner
    ):
        return node.attr
    return None


def call_name(node: ast.AST) -> str | None:
    """The last name of a call's function (``torch.nn.Parameter(...)``:
    ``Parameter``), else None (not a call, or a call of a call)."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def dotted(node: ast.AST) -> str | None:
    """``"torch.nn.functional.silu"`` for that attribute chain of names, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def split(node: ast.AST) -> tuple[str, str] | None:
    """(module, name) of ``module.name`` where the module is one of :data:`MODULES`."""
    path = dotted(node)
    if path is None or "." not in path:
        return None
    module, _, name = path.rpartition(".")
    return (module, name) if module in MODULES else None


def function_name(module: str, name: str, functions) -> str:
    """symnb's function for ``module.name``: a key of ``functions``, or a rewrite name.

    Raises ``LookupError(message, hint)`` where the spelling is known to differ or unknown.
    """
    if (module, name) in _REFUSED:
        raise LookupError(*_REFUSED[(module, name)])
    if (module, name) in foreign_losses.REFUSED:
        raise LookupError(*foreign_losses.REFUSED[(module, name)])
    if module in _LOSS_MODULES and name in LOSS_FUNCTIONS:
        return LOSS_FUNCTIONS[name]
    if (module, name) in FOREIGN_LOSSES:
        return FOREIGN_LOSSES[(module, name)][0]
    if (module, name) in foreign_losses.LOSSES:
        return foreign_losses.LOSSES[(module, name)][0]
    if module in _DISTRIBUTIONS:
        if name in _DISTRIBUTIONS[module]:
            return _DISTRIBUTIONS[module][name]
        raise LookupError(
            f"{module}.{name} has no symnb equivalent",
            f"{module}.cdf(x) is the standard normal CDF ({module}.logcdf(x) its "
            "log); write the density as "
            "exp(-x**2/2)/sqrt(2*pi)",
        )
    if name in _REMAINDERS:
        raise LookupError(
            f"{module}.{name} has no symnb equivalent: formulas have no remainder "
            "(C's fmod is exact; the same from floor/trunc rounds x/c, so near a "
            "multiple of c it can be off by c)",
            "where that rounding is acceptable, write x - c*trunc(x/c) (fmod, "
            "the sign of x) or x - c*floor(x/c) (mod, the sign of c)",
        )
    if name in _REDUCTIONS:
        raise LookupError(
            f"{module}.{name} reduces over the batch; a formula is elementwise",
            "write the per-element formula (a loss, e.g. (y_pred - y_true)**2: symnb "
            "takes the mean over the samples itself)",
        )
    mapped = _BY_MODULE.get((module, name), _COMMON.get(name, name))
    if name in _REWRITTEN and (module, name) not in _BY_MODULE:
        return name
    if mapped in _REWRITTEN:  # keras.ops.hard_shrink -> hardshrink
        return mapped
    if mapped in functions and not mapped.startswith("_"):
        return mapped
    raise LookupError(
        f"{module}.{name} has no symnb equivalent",
        "write the formula with symnb's functions (e.g. tanh(x), sigmoid(x), "
        "max(x, 0))",
    )


def loss_arguments(node: ast.AST, constants: Sequence[str]) -> tuple[list, dict, list]:
    """(positional names, keyword aliases, keyword-only names) of a library loss
    called as ``node.func``: symnb's and PyTorch's (y_pred, y_true, constants...),
    Keras's (y_true, y_pred, ...), TensorFlow's (labels, logits), optax's
    (predictions, targets); a formula of :mod:`foreign_losses` takes the constants
    that its library's signature does not list by position as keywords."""
    parts = split(node)
    table = {**FOREIGN_LOSSES, **foreign_losses.LOSSES}
    if parts in table:
        order = table[parts][1]
        names = [_LOSS_ARGUMENT_NAMES.get(a, a) for a in order]
        aliases = {
            a: _LOSS_ARGUMENT_NAMES[a] for a in order if a in _LOSS_ARGUMENT_NAMES
        }
        positional = [n for n in names if n in ("y_pred", "y_true", *constants)]
        keyword_only = (
            [c for c in constants if c not in positional]
            if parts in foreign_losses.LOSSES
            else []
        )
        return positional, aliases, keyword_only
    aliases = {"input": "y_pred", "target": "y_true"}
    keyword_only = [c for c in constants if c in foreign_losses.KEYWORD_ONLY]
    positional = [c for c in constants if c not in keyword_only]
    return ["y_pred", "y_true", *positional], aliases, keyword_only


def method_function(name: str, functions) -> str | None:
    """symnb's function for a tensor method ``x.name()`` (``x.sigmoid()``), else None."""
    mapped = _COMMON.get(name, name)
    if mapped in functions and not mapped.startswith("_"):
        return mapped
    if name in _REWRITTEN:  # x.pow(2), x.square()
        return name
    return None


def is_rewritten(name: str) -> bool:
    """Whether ``name`` (from :func:`function_name`) is built by :func:`rewrite_call`."""
    return name in _REWRITTEN


def argument_names(name: str) -> tuple[str, ...]:
    """The library's names of a rewritten spelling's arguments, in order."""
    return _REWRITTEN[name]


def rewrite_call(name: str, node: ast.Call, args: Sequence[ast.AST] = ()) -> ast.AST:
    """The formula syntax tree of a rewritten spelling applied to ``args`` (by
    default ``node.args``; ``node`` gives the source position).

    ``square(u) = u**2``, ``power(a, b) = a**b``, ``logaddexp(a, b) = a + softplus(b
    - a)`` (exact, and stable for any a, b; ``logaddexp2`` the same in base 2),
    NumPy's and PyTorch's normalised ``sinc(u) = sin(pi u)/(pi u)``, ``ndtr(u) = (1
    + erf(u/sqrt(2)))/2``, ``log_ndtr(u) = log(ndtr(u))`` (stable:
    :mod:`symnb.formula.log_erfc`), ``hypot(a, b) = sqrt(a**2 + b**2)``, ``exp2(u) =
    2**u``, ``reciprocal(u) = 1/u``, ``rsqrt(u) = 1/sqrt(u)``, ``logit(u) = log(u) -
    log(1 - u)``, JAX's ``squareplus(x, b) = (x + sqrt(x**2 + b))/2``,
    ``sparse_plus`` (0, (x + 1)**2/4, x) and ``sparse_sigmoid`` ((x + 1)/2 clipped
    to [0, 1]), PyTorch's ``hardshrink`` (x where |x| > lambd, else 0),
    ``threshold`` (x where x > threshold, else value) and ``rrelu`` in evaluation
    mode (slope (lower + upper)/2 for x < 0), ``xlogy(a, b) = a*log(b)``
    and ``xlog1py(a, b) = a*log1p(b)`` (0 where a = 0, as in PyTorch, SciPy and
    JAX), ``entr(u) = -u*log(u)`` (0 at u = 0; NaN for u < 0, where the libraries
    give -inf), SciPy's ``rel_entr(a, b) = a*log(a/b)`` (0 where a = 0; NaN where
    a/b < 0, where SciPy gives inf).
    """
    args = list(args) or node.args

    def call(fn: str, *a: ast.AST) -> ast.Call:
        return ast.Call(func=ast.Name(fn, ast.Load()), args=list(a), keywords=[])

    def num(v: float) -> ast.Constant:
        return ast.Constant(v)

    if name == "square":
        tree: ast.AST = ast.BinOp(args[0], ast.Pow(), num(2))
    elif name in ("power", "pow"):
        tree = ast.BinOp(args[0], ast.Pow(), args[1])
    elif name == "logaddexp":
        tree = ast.BinOp(
            args[0], ast.Add(), call("softplus", ast.BinOp(args[1], ast.Sub(), args[0]))
        )
    elif name == "logaddexp2":  # a + softplus((b - a) log 2)/log 2
        ln2 = call("log", num(2))
        scaled = ast.BinOp(ast.BinOp(args[1], ast.Sub(), args[0]), ast.Mult(), ln2)
        tree = ast.BinOp(
            args[0], ast.Add(), ast.BinOp(call("softplus", scaled), ast.Div(), ln2)
        )
    elif name == "sinc":
        pu = ast.BinOp(ast.Name("pi", ast.Load()), ast.Mult(), args[0])
        tree = ast.BinOp(call("sin", pu), ast.Div(), pu)
    elif name in ("ndtr", "log_ndtr"):
        scaled = ast.BinOp(args[0], ast.Div(), call("sqrt", num(2)))
        tree = ast.BinOp(
            ast.BinOp(num(1), ast.Add(), call("erf", scaled)), ast.Div(), num(2)
        )
        tree = call("log", tree) if name == "log_ndtr" else tree
    else:
        tree = _rewrite_more(name, args, call, num)
    for sub in ast.walk(tree):
        if not hasattr(sub, "lineno"):
            ast.copy_location(sub, node)
            sub.end_lineno, sub.end_col_offset = node.end_lineno, node.end_col_offset
    return tree


def _rewrite_more(name: str, args: list, call, num) -> ast.AST:
    """The rewrites of :func:`rewrite_call` beyond the first six (see there)."""

    def op(a: ast.AST, o: ast.operator, b: ast.AST) -> ast.BinOp:
        return ast.BinOp(a, o, b)

    def compare(a: ast.AST, o: ast.cmpop, b: ast.AST) -> ast.Compare:
        return ast.Compare(a, [o], [b])

    u = args[0]
    if name == "hypot":
        squares = op(
            op(u, ast.Pow(), num(2)), ast.Add(), op(args[1], ast.Pow(), num(2))
        )
        return call("sqrt", squares)
    if name == "exp2":
        return op(num(2), ast.Pow(), u)
    if name == "reciprocal":
        return op(num(1), ast.Div(), u)
    if name == "rsqrt":
        return op(num(1), ast.Div(), call("sqrt", u))
    if name == "logit":
        eps = args[1] if len(args) > 1 else num("")
        if not (isinstance(eps, ast.Constant) and eps.value in ("", None)):
            u = call("min", call("max", u, eps), op(num(1), ast.Sub(), eps))
        return op(call("log", u), ast.Sub(), call("log", op(num(1), ast.Sub(), u)))
    if name == "squareplus":
        root = call("sqrt", op(op(u, ast.Pow(), num(2)), ast.Add(), args[1]))
        return op(op(u, ast.Add(), root), ast.Div(), num(2))
    if name == "sparse_plus":
        middle = op(op(op(u, ast.Add(), num(1)), ast.Pow(), num(2)), ast.Div(), num(4))
        upper = call("where", compare(u, ast.GtE(), num(1)), u, middle)
        return call("where", compare(u, ast.LtE(), num(-1)), num(0), upper)
    if name == "rrelu":  # evaluation mode: the mean slope (parse refuses training)
        slope = op(op(args[1], ast.Add(), args[2]), ast.Div(), num(2))
        return call("where", compare(u, ast.GtE(), num(0)), u, op(u, ast.Mult(), slope))
    if name == "sparse_sigmoid":
        half = op(op(u, ast.Add(), num(1)), ast.Div(), num(2))
        return call("min", call("max", half, num(0)), num(1))
    if name == "hardshrink":
        return call("where", compare(call("abs", u), ast.Gt(), args[1]), u, num(0))
    if name in ("xlogy", "xlog1py"):
        log = call("log" if name == "xlogy" else "log1p", args[1])
        return call(
            "where", compare(u, ast.Eq(), num(0)), num(0), op(u, ast.Mult(), log)
        )
    if name in ("clamp_min", "clamp_max"):
        return call("max" if name == "clamp_min" else "min", u, args[1])
    if name in ("positive", "linear"):
        return u
    if name == "exprel":
        return op(call("expm1", u), ast.Div(), u)
    if name == "erfcx":
        return op(call("exp", op(u, ast.Pow(), num(2))), ast.Mult(), call("erfc", u))
    if name in ("negative", "neg"):
        return ast.UnaryOp(ast.USub(), u)
    if name in ("trunc", "fix", "frac", "rint", "round", "around"):
        return _steps(name, args, call, op, compare, num)
    if name in ("arctan2", "atan2"):
        return _atan2(u, args[1], call, op, compare, num)
    if name in ("multiply", "mul"):
        return op(u, ast.Mult(), args[1])
    if name in ("divide", "div", "true_divide"):
        return op(u, ast.Div(), args[1])
    if name in ("add", "subtract", "sub"):
        scaled = args[2]
        other = (
            args[1]
            if isinstance(scaled, ast.Constant) and scaled.value == 1
            else op(scaled, ast.Mult(), args[1])
        )
        return op(u, ast.Add() if name == "add" else ast.Sub(), other)
    if name == "float_power":
        return op(u, ast.Pow(), args[1])
    if name == "copysign":
        magnitude = call("abs", u)
        negative = ast.UnaryOp(ast.USub(), call("abs", u))
        return call("where", compare(args[1], ast.GtE(), num(0)), magnitude, negative)
    if name == "silu_beta":
        return op(u, ast.Mult(), call("sigmoid", op(args[1], ast.Mult(), u)))
    if name == "keras_relu":
        return _keras_relu(u, *args[1:], call, op, compare, num)
    if name == "entr":
        minus_u_log_u = op(ast.UnaryOp(ast.USub(), u), ast.Mult(), call("log", u))
        return call("where", compare(u, ast.Eq(), num(0)), num(0), minus_u_log_u)
    if name == "rel_entr":
        u_log = op(u, ast.Mult(), call("log", op(u, ast.Div(), args[1])))
        return call("where", compare(u, ast.Eq(), num(0)), num(0), u_log)
    # threshold
    return call("where", compare(u, ast.Gt(), args[1]), u, args[2])


def _round_half_even(u, call, op, compare, num) -> ast.AST:
    """NumPy's and PyTorch's round (``np.rint``): to the nearest integer, ties to the
    even one. From f = floor(u) and d = u - f (exact in floating point; u + 0.5 is not:
    floor(0.49999999999999994 + 0.5) is 1); |u| >= 2**52 is an integer already (and
    inf stays inf)."""
    f = call("floor", u)
    d = op(u, ast.Sub(), f)
    odd = op(
        f, ast.Sub(), op(num(2), ast.Mult(), call("floor", op(f, ast.Div(), num(2))))
    )
    tie = call("where", compare(d, ast.Lt(), num(0.5)), f, op(f, ast.Add(), odd))
    nearest = call(
        "where", compare(d, ast.Gt(), num(0.5)), op(f, ast.Add(), num(1)), tie
    )
    big = compare(call("abs", u), ast.GtE(), num(2.0**52))
    return call("where", big, u, nearest)


def _steps(name: str, args: list, call, op, compare, num) -> ast.AST:
    """trunc (toward 0), frac (u - trunc(u), PyTorch's), rint/round (half to even;
    ``decimals`` d as NumPy computes it: rint(u*10**d)/10**d)."""
    u = args[0]
    if name in ("trunc", "fix", "frac"):
        trunc = call(
            "where", compare(u, ast.GtE(), num(0)), call("floor", u), call("ceil", u)
        )
        return op(u, ast.Sub(), trunc) if name == "frac" else trunc
    decimals = args[1] if len(args) > 1 else num(0)
    if isinstance(decimals, ast.Constant) and decimals.value == 0:
        return _round_half_even(u, call, op, compare, num)
    scale = op(num(10), ast.Pow(), decimals)
    scaled = _round_half_even(op(u, ast.Mult(), scale), call, op, compare, num)
    return op(scaled, ast.Div(), scale)


def _atan2(y, x, call, op, compare, num) -> ast.AST:
    """atan2(y, x), the angle of (x, y) in (-pi, pi]: atan(y/x) for x > 0, +-pi more
    for x < 0 (by the sign of y), +-pi/2 or 0 on x = 0 (NumPy's values, signed zeros
    aside: atan2(-0.0, -1) is pi here, -pi in NumPy)."""
    pi = ast.Name("pi", ast.Load())
    ratio = call("atan", op(y, ast.Div(), x))
    left = call(
        "where",
        compare(y, ast.GtE(), num(0)),
        op(ratio, ast.Add(), pi),
        op(ratio, ast.Sub(), pi),
    )
    # x = 0: pi/2 - atan(x/y) (+-pi/2 there, and its derivative in x is -1/y, not
    # the 0 of a constant branch); a literal 0 gets no quotient by it
    half = op(pi, ast.Div(), num(2))

    def zero(n: ast.AST) -> bool:
        return isinstance(n, ast.Constant) and n.value == 0

    def side(y_positive: ast.AST, y_negative: ast.AST) -> ast.AST:
        return call(
            "where",
            compare(y, ast.Gt(), num(0)),
            y_positive,
            call("where", compare(y, ast.Lt(), num(0)), y_negative, num(0)),
        )

    if zero(x):
        return side(half, ast.UnaryOp(ast.USub(), half))
    turned = num(0) if zero(y) else call("atan", op(x, ast.Div(), y))
    axis = side(
        op(half, ast.Sub(), turned),
        op(ast.UnaryOp(ast.USub(), half), ast.Sub(), turned),
    )
    return call(
        "where",
        compare(x, ast.Gt(), num(0)),
        ratio,
        call("where", compare(x, ast.Lt(), num(0)), left, axis),
    )


def _keras_relu(u, slope, cap, threshold, call, op, compare, num) -> ast.AST:
    """Keras 3's ``relu(x, negative_slope, max_value, threshold)`` as its source
    computes it: x where x > threshold (else 0), clipped to [0, max_value] when a cap
    is given, minus negative_slope*relu(threshold - x)."""
    positive = call("where", compare(u, ast.Gt(), threshold), u, num(0))
    if not (isinstance(cap, ast.Constant) and cap.value in ("", None)):
        positive = call("min", call("max", positive, num(0)), cap)
    below = call("max", op(threshold, ast.Sub(), u), num(0))
    return op(positive, ast.Sub(), op(slope, ast.Mult(), below))


__all__ = [
    "AMBIGUOUS",
    "BARE",
    "CONSTANTS",
    "FOREIGN_LOSSES",
    "KEYWORD_DEFAULTS",
    "LOSS_FUNCTIONS",
    "LOSS_VARIABLES",
    "MAX_MIN",
    "MODULES",
    "argument_names",
    "attribute_of",
    "call_name",
    "dotted",
    "function_name",
    "is_rewritten",
    "loss_arguments",
    "method_function",
    "rewrite_call",
    "split",
    "variable_alias",
]
