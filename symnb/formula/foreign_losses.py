"""Other libraries' elementwise losses that symnb's library lacks, as formulas.

``F.smooth_l1_loss(y_pred, y_true)`` or ``keras.losses.binary_crossentropy(y_true,
y_pred)`` pasted into a loss formula is read as the library's documented per-element
formula (its defaults included: Keras clips probabilities to [1e-7, 1 - 1e-7]), built
like a library loss from the text here. A boolean option that changes the formula
(``from_logits``, ``log_input``, ``log_target``) picks another text; PyTorch's
``reduction`` is the batch reduction, which symnb does itself (the mean).

A keyword that switches a formula on (:func:`keyword_switch`): PyTorch's
``pos_weight``, the focal losses' ``alpha`` (torchvision's default 0.25, optax's None,
a negative alpha: no class weight).

Not mapped, because their value depends on more than the two numbers: Keras's
``hinge``/``squared_hinge`` (they turn 0/1 labels into -1/+1 when the whole batch is
0/1), class-indexed losses (``cross_entropy``, ``nll_loss``) and ones with a third
input (``margin_ranking_loss``, ``gaussian_nll_loss``).
"""

from __future__ import annotations

from symnb.formula.library import Entry

#: PyTorch's, Keras's and optax's module paths, as in :mod:`symnb.formula.spellings`.
TORCH = ("F", "nn.functional", "torch.nn.functional")
#: Modules whose ``reduction`` keyword is PyTorch's.
TORCH_REDUCTION = (*TORCH, "torchvision.ops")
KERAS = ("keras.losses", "tf.keras.losses")

#: Keras's epsilon (``keras.config.epsilon()``), used by its clipping losses.
_KERAS_EPS = "1e-7"
_P = f"clip(y_pred, {_KERAS_EPS}, 1 - {_KERAS_EPS})"

#: Binary cross-entropy of a logit, and the focal losses' modulating factor (1 - p_t),
#: both written without 1 - sigmoid (stable for any logit and any target in [0, 1]).
_BCE_LOGITS = "(softplus(y_pred) - y_pred*y_true)"
_ONE_MINUS_PT = "(sigmoid(y_pred)*(1 - y_true) + sigmoid(-y_pred)*y_true)"

#: Formula key -> the formula (keys hold a ':' so they never meet a user's name).
ENTRIES = {
    "torch:bce_with_logits_pos_weight": Entry(
        "pos_weight*y_true*softplus(-y_pred) + (1 - y_true)*softplus(y_pred)",
        {"pos_weight": 1.0},
        doc="PyTorch BCEWithLogitsLoss with pos_weight (TensorFlow's "
        "weighted_cross_entropy_with_logits)",
    ),
    "focal:alpha": Entry(
        f"(alpha*y_true + (1 - alpha)*(1 - y_true))*{_BCE_LOGITS}*{_ONE_MINUS_PT}**gamma",
        {"alpha": 0.25, "gamma": 2.0},
        doc="sigmoid focal loss (Lin et al. 2017) of a logit, class weight alpha",
    ),
    "focal": Entry(
        f"{_BCE_LOGITS}*{_ONE_MINUS_PT}**gamma",
        {"gamma": 2.0},
        doc="sigmoid focal loss (Lin et al. 2017) of a logit, no class weight",
    ),
    "torch:smooth_l1_loss": Entry(
        "where(abs(y_pred - y_true) < beta, 0.5*(y_pred - y_true)**2/beta, "
        "abs(y_pred - y_true) - 0.5*beta)",
        {"beta": 1.0},
        doc="PyTorch SmoothL1Loss",
        domain=(
            (
                lambda c: c["beta"] > 0,
                (
                    "smooth_l1_loss's beta must be > 0 here (for beta = 0, PyTorch's L1 "
                    "loss, write F.l1_loss(y_pred, y_true))"
                ),
            ),
        ),
    ),
    "torch:soft_margin_loss": Entry(
        "softplus(-y_true*y_pred)", doc="PyTorch SoftMarginLoss: log(1 + exp(-y x))"
    ),
    "torch:poisson_nll_loss": Entry(
        "exp(y_pred) - y_true*y_pred", doc="PyTorch PoissonNLLLoss, log_input=True"
    ),
    "torch:poisson_nll_loss_linear": Entry(
        "y_pred - y_true*log(y_pred + eps)",
        {"eps": 1e-8},
        doc="PyTorch PoissonNLLLoss, log_input=False",
    ),
    "torch:kl_div": Entry(
        "y_true*(log(y_true) - y_pred)",
        doc="PyTorch KLDivLoss: y_pred is a log-probability, 0 where y_true = 0",
    ),
    "torch:kl_div_log_target": Entry(
        "exp(y_true)*(y_true - y_pred)", doc="PyTorch KLDivLoss, log_target=True"
    ),
    "torch:hinge_embedding_loss": Entry(
        "where(y_true != 1, max(0, margin - y_pred), 0) "
        "+ where(y_true != -1, y_pred, 0)",
        {"margin": 1.0},
        doc="PyTorch HingeEmbeddingLoss (labels -1 and 1)",
    ),
    "keras:binary_crossentropy": Entry(
        f"-(y_true*log({_P}) + (1 - y_true)*log(1 - {_P}))",
        doc="Keras binary_crossentropy, probabilities clipped to [1e-7, 1 - 1e-7]",
    ),
    "keras:binary_crossentropy_logits": Entry(
        "softplus(y_pred) - y_pred*y_true", doc="Keras, from_logits=True"
    ),
    "keras:poisson": Entry(f"y_pred - y_true*log(y_pred + {_KERAS_EPS})"),
    "keras:kl_divergence": Entry(
        f"clip(y_true, {_KERAS_EPS}, 1)*log(clip(y_true, {_KERAS_EPS}, 1)"
        f"/clip(y_pred, {_KERAS_EPS}, 1))",
        doc="Keras kl_divergence, both clipped to [1e-7, 1]",
    ),
    "keras:mean_squared_logarithmic_error": Entry(
        f"(log(max(y_pred, {_KERAS_EPS}) + 1) - log(max(y_true, {_KERAS_EPS}) + 1))**2"
    ),
    "keras:mean_absolute_percentage_error": Entry(
        f"100*abs(y_true - y_pred)/max(abs(y_true), {_KERAS_EPS})"
    ),
    "optax:l2_loss": Entry("0.5*(y_pred - y_true)**2", doc="optax.l2_loss"),
}

_KERAS_NAMES = {
    "binary_crossentropy": "keras:binary_crossentropy",
    "poisson": "keras:poisson",
    "kl_divergence": "keras:kl_divergence",
    "kld": "keras:kl_divergence",
    "KLD": "keras:kl_divergence",
    "mean_squared_logarithmic_error": "keras:mean_squared_logarithmic_error",
    "msle": "keras:mean_squared_logarithmic_error",
    "MSLE": "keras:mean_squared_logarithmic_error",
    "mean_absolute_percentage_error": "keras:mean_absolute_percentage_error",
    "mape": "keras:mean_absolute_percentage_error",
    "MAPE": "keras:mean_absolute_percentage_error",
}

_TORCH_ORDER = ("input", "target")

#: (module, name) -> (formula key, the library's positional argument names in order);
#: the formula's other constants are keyword-only (``beta`` of ``smooth_l1_loss``
#: comes after ``reduction`` in PyTorch's signature).
LOSSES = {
    **{
        (module, name): (f"torch:{name}", (*_TORCH_ORDER, *positional))
        for module in TORCH
        for name, positional in (
            ("smooth_l1_loss", ()),
            ("soft_margin_loss", ()),
            ("poisson_nll_loss", ()),
            ("kl_div", ()),
            ("hinge_embedding_loss", ("margin",)),
        )
    },
    **{
        (module, name): (key, ("y_true", "y_pred"))
        for module in KERAS
        for name, key in _KERAS_NAMES.items()
    },
    ("optax", "l2_loss"): ("optax:l2_loss", ("predictions", "targets")),
    ("optax", "sigmoid_focal_loss"): ("focal", ("logits", "labels", "alpha", "gamma")),
    ("torchvision.ops", "sigmoid_focal_loss"): (
        "focal:alpha",
        ("inputs", "targets", "alpha", "gamma"),
    ),
    ("tf.nn", "weighted_cross_entropy_with_logits"): (
        "torch:bce_with_logits_pos_weight",
        ("labels", "logits", "pos_weight"),
    ),
}

#: Constants that a library takes by keyword only where symnb's own loss of that
#: name has none (``F.binary_cross_entropy_with_logits(x, y, pos_weight=2.0)``).
KEYWORD_ONLY = frozenset({"pos_weight"})


def keyword_switch(parts: tuple[str, str] | None, keyword: str, value: object):
    """(formula key or None to keep the call's, whether the keyword stays as a
    constant) where ``keyword=value`` chooses the formula, else None."""
    if parts is None:
        return None
    module, name = parts
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    bce = module in TORCH and name == "binary_cross_entropy_with_logits"
    if bce and keyword == "pos_weight":
        if value is None:
            return (None, False)
        return ("torch:bce_with_logits_pos_weight", True)
    if name == "sigmoid_focal_loss" and keyword == "alpha":
        if value is None:
            return ("focal", False)  # optax's default: no class weight
        if number and value < 0:
            return ("focal", False)  # torchvision: a negative alpha, no weight
        return ("focal:alpha", True)
    return None


#: (module, name) -> {option: {value: formula key}}: a keyword option that picks
#: another formula. A value not listed is refused, naming those that are.
OPTIONS = {
    **{
        (module, "poisson_nll_loss"): {
            "log_input": {
                True: "torch:poisson_nll_loss",
                False: "torch:poisson_nll_loss_linear",
            },
            "full": {False: "torch:poisson_nll_loss"},
        }
        for module in TORCH
    },
    **{
        (module, "kl_div"): {
            "log_target": {False: "torch:kl_div", True: "torch:kl_div_log_target"}
        }
        for module in TORCH
    },
    **{
        (module, "binary_crossentropy"): {
            "from_logits": {
                False: "keras:binary_crossentropy",
                True: "keras:binary_crossentropy_logits",
            },
            "label_smoothing": {0: "keras:binary_crossentropy"},
        }
        for module in KERAS
    },
}

#: PyTorch's reduction over the batch: symnb takes the mean itself.
REDUCTIONS_KEPT = ("mean", "none", "batchmean")

#: Loss classes called on the two inputs (``nn.MSELoss()(y_pred, y_true)``) -> the
#: functional spelling to write instead.
CLASSES = {
    "MSELoss": "F.mse_loss",
    "L1Loss": "F.l1_loss",
    "HuberLoss": "F.huber_loss",
    "SmoothL1Loss": "F.smooth_l1_loss",
    "BCELoss": "F.binary_cross_entropy",
    "BCEWithLogitsLoss": "F.binary_cross_entropy_with_logits",
    "SoftMarginLoss": "F.soft_margin_loss",
    "PoissonNLLLoss": "F.poisson_nll_loss",
    "KLDivLoss": "F.kl_div",
    "HingeEmbeddingLoss": "F.hinge_embedding_loss",
    "MeanSquaredError": "keras.losses.mean_squared_error",
    "MeanAbsoluteError": "keras.losses.mean_absolute_error",
    "Huber": "keras.losses.huber",
    "LogCosh": "keras.losses.log_cosh",
    "BinaryCrossentropy": "keras.losses.binary_crossentropy",
    "Poisson": "keras.losses.poisson",
    "KLDivergence": "keras.losses.kl_divergence",
    "MeanSquaredLogarithmicError": "keras.losses.mean_squared_logarithmic_error",
    "MeanAbsolutePercentageError": "keras.losses.mean_absolute_percentage_error",
}


def class_hint(path: str, arguments: list[str]) -> str | None:
    """What to write for a loss object called on ``arguments``, else None."""
    module, _, cls = path.rpartition(".")
    if cls in CLASSES:
        return f"write {CLASSES[cls]}({', '.join(arguments)})"
    if cls.endswith("Loss") or module.endswith("losses"):
        return "write the loss as a formula of y_pred and y_true, e.g. (y_pred - y_true)**2"
    return None


#: (module, name) -> (why it is refused, what to write): losses of another library
#: whose value is not a formula of one prediction and one target.
REFUSED = {
    **{
        (module, name): (
            (
                f"{module}.{name} turns 0/1 labels into -1/+1 only when the whole batch "
                "is 0/1, so its value is not a formula of one sample"
            ),
            f"for labels -1/+1 write max(0, 1 - y_true*y_pred){power}",
        )
        for module in KERAS
        for name, power in (("hinge", ""), ("squared_hinge", "**2"))
    },
    **{
        (module, name): (
            (
                f"{module}.{name} takes class indices or a vector of class scores; a "
                "symnb loss is a formula of one prediction and one target"
            ),
            "for two classes write F.binary_cross_entropy_with_logits(y_pred, y_true)",
        )
        for module in TORCH
        for name in ("cross_entropy", "nll_loss", "multi_margin_loss")
    },
}
