"""``Activation`` and ``Loss``: a formula, its constants, its derivatives and their LaTeX.

A formula is parsed safely (``symnb.formula.parse``), rewritten into float32-stable form
(``symnb.formula.stability``), differentiated with real symbols, and given PyTorch's
conventions at kinks (relu'(0) = 0) and surrogate gradients where a step makes f jump
(``symnb.formula.steps``). Library and named activations can be called inside formulas
(``symnb.formula.compose``). The whole symbolic stage runs under one time budget
(``symnb.formula.budget``). Constants stay symbols (kernel arguments), so changing a value
never re-parses or recompiles anything.
"""

from __future__ import annotations

import difflib
import math
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from symnb.checks import (
    check_constant_count,
    check_flag,
    check_name,
    check_no_underflow,
    real_value,
    refuse_constant_attribute,
)
from symnb.errors import FormulaError
from symnb.formula import compose, from_object, library
from symnb.formula.branches import local_branches
from symnb.formula.budget import SYMBOLIC_TIME_BUDGET, Budget
from symnb.formula.code_constants import declared
from symnb.formula.compose import expand_composed
from symnb.formula.display import fold_equal_branches
from symnb.formula.expanded_edge import expand_edge_arguments
from symnb.formula.functions import (
    ALLOWED_CONSTANTS,
    ALLOWED_FUNCTIONS,
    logsigmoid,
    sigmoid,
    softplus,
)
from symnb.formula.internal import InternalForm, P, T, X, param_symbol
from symnb.formula.latex import formula_latex, operator_name
from symnb.formula.log_edges import log_edge_points
from symnb.formula.parse import adopt_sympy, check_length
from symnb.formula.powers import power_limits_at_zero
from symnb.formula.realdiff import real_diff
from symnb.formula.stability import stabilize, stabilize_derivative
from symnb.formula.steps import drop_continuous_steps
from symnb.formula.xlogy import zero_weight_logs

#: Operation count above which a derivative is refused before any compiler sees it.
MAX_OPERATIONS = 4000
#: Longest text read as pasted code for its constants and name (longer: the formula).
_MAX_PASTED_CODE = 100_000

_FORBIDDEN = (sp.re, sp.im, sp.Derivative, sp.Subs, sp.DiracDelta)


@dataclass(frozen=True)
class Learnable:
    """A constant value that training may change, shared per layer or one per neuron."""

    value: float
    per: str = "layer"

    def __post_init__(self) -> None:
        if self.per not in ("layer", "neuron"):
            raise ValueError(
                f"learnable(per={self.per!r}): per must be 'layer' or 'neuron'"
            )
        _learnable_value(self.value)


def _initial_values(constants: Mapping[str, Any]) -> dict[str, Any]:
    """``constants`` with each learnable marker as its initial value, for the
    library's domain tests: ``softplus(beta=learnable(0.0))`` passed them (a marker
    is no 0) and failed only at compile time, as a write to the kernel's params."""
    return {k: v.value if isinstance(v, Learnable) else v for k, v in constants.items()}


def learnable(value: float, per: str = "layer") -> Learnable:
    """Mark a constant as trainable: ``Activation("x*sigmoid(beta*x)", beta=learnable(1.0))``.

    ``per="layer"`` shares one value per layer, ``per="neuron"`` gives each neuron its own.
    ``value`` must be a finite real number (``FormulaError`` otherwise).
    """
    return Learnable(_learnable_value(value), per)


def _learnable_value(value: Any) -> float:
    v = _finite_real(value)
    if v is None:
        raise FormulaError(
            "learnable's initial value must be a finite real number, got "
            + _shown(value),
            suggestion="pass a number, e.g. learnable(1.0)",
        )
    check_no_underflow("learnable's initial value", value, v)
    return v


def _finite_real(value: Any) -> float | None:
    """``value`` as a finite float, or None (not a real number, or not finite as a
    float: 10**400 overflows)."""
    v = real_value(value)
    return v if v is not None and math.isfinite(v) else None


def _shown(value: Any) -> str:
    """``repr(value)``, shortened (a 400-digit integer is not a message)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_constant_value(name: str, value: Any) -> float:
    if isinstance(value, Learnable):
        return value.value
    v = _finite_real(value)
    if v is None:
        hint = f"pass a finite number, e.g. {name}=1.0"
        # derivatve='1 - tanh(x)**2' was refused as a constant with the hint to
        # pass derivatve=1.0, not pointed at the option it misspells
        option = difflib.get_close_matches(name, _OPTIONS, n=1, cutoff=0.7)
        if name in _FOREIGN_OPTIONS:
            hint = f"{_FOREIGN_OPTIONS[name]}; drop {name}= (or {hint}, as a constant)"
        elif option:
            hint = (
                f"did you mean the option {option[0]}=? Other keyword arguments "
                f"are constants of the formula; or {hint}"
            )
        raise FormulaError(
            f"constant {name!r} must be a finite real number, got {_shown(value)}",
            suggestion=hint,
        )
    check_no_underflow(f"constant {name!r}", value, v)
    return v


#: keyword options of Activation and Loss (every other keyword names a constant)
_OPTIONS = ("name", "derivative", "surrogate", "replace")

#: PyTorch's options of losses and layers, passed along as if symnb had them
_FOREIGN_OPTIONS = {
    "reduction": "symnb's losses are the mean over the batch (PyTorch's "
    "reduction='mean'): a summed loss is that mean times the batch size",
    "size_average": "symnb's losses are the mean over the batch (PyTorch's "
    "size_average=True)",
    "reduce": "symnb's losses are the mean over the batch (PyTorch's reduce=True)",
    "inplace": "a formula has no in-place form (PyTorch's inplace=True only saves "
    "memory)",
}


# ---------------------------------------------------------------- surrogate gradients


def _surrogate_atan(u: sp.Expr, alpha: float = 2.0) -> sp.Expr:
    """spikingjelly's ATan: d/du of (1/pi) atan(pi/2 alpha u) + 1/2."""
    a = sp.Float(alpha)
    return (a / 2) / (1 + (sp.pi / 2 * a * u) ** 2)


def _surrogate_sigmoid(u: sp.Expr, alpha: float = 4.0) -> sp.Expr:
    """spikingjelly's Sigmoid: d/du of sigmoid(alpha u)."""
    a = sp.Float(alpha)
    s = sigmoid(a * u)
    return a * s * (1 - s)


def _surrogate_straight_through(u: sp.Expr) -> sp.Expr:
    """Straight-through estimator: 1 where |u| < 1, else 0."""
    return sp.Piecewise((1, sp.Abs(u) < 1), (0, True))


def _surrogate_zero(u: sp.Expr) -> sp.Expr:
    return sp.Integer(0)


SURROGATES: dict[str, Callable[[sp.Expr], sp.Expr]] = {
    "atan": _surrogate_atan,
    "sigmoid": _surrogate_sigmoid,
    "straight_through": _surrogate_straight_through,
    "zero": _surrogate_zero,
}


# ---------------------------------------------------------------- symbolic helpers


def _extreme_term(v: sp.Expr):
    """The one ``-Max(...)`` or ``+Min(...)`` term of ``v`` (a sum), if there is one."""
    terms = sp.Add.make_args(v)
    found = [
        t
        for t in terms
        if isinstance(t, sp.Min)
        or (isinstance(-t, sp.Max) and t.could_extract_minus_sign())
    ]
    return found[0] if len(found) == 1 else None


def _split_extreme_step(h: sp.Heaviside) -> sp.Expr:
    """H(c - max(a, b)) = H(c - a) H(c - b), and H(c + min(a, b)) likewise.

    Exact for H(u, 0) (u > 0 for every argument), NaN included. It matters in float
    arithmetic: hardswish's derivative tested ``6 - max(x + 3, 0) > 0``, and x + 3
    rounds to 6 one ulp below the kink, which picked the wrong slope; ``3 - x > 0``
    does not round.
    """
    v = h.args[0]
    term = _extreme_term(v)
    rest = v - term
    inner = term.args if isinstance(term, sp.Min) else (-term).args
    sign = 1 if isinstance(term, sp.Min) else -1
    return sp.Mul(*[sp.Heaviside(rest + sign * a, 0) for a in inner])


def _fix_kinks(
    expr: sp.Expr, surrogate: str, what: str, var: sp.Symbol
) -> tuple[sp.Expr, list[str]]:
    """Replace what codegen cannot print: H(u) -> H(u, 0), DiracDelta -> 0 where the
    function is continuous (``symnb.formula.steps``), else -> the surrogate gradient."""
    notes: list[str] = []
    expr = expr.replace(
        lambda e: isinstance(e, sp.Heaviside) and len(e.args) == 1,
        lambda e: sp.Heaviside(e.args[0], 0),
    )
    expr = expr.replace(
        lambda e: isinstance(e, sp.Heaviside) and len(e.args) == 2 and e.args[1] != 0,
        lambda e: sp.Heaviside(e.args[0], 0),
    )
    expr = expr.replace(
        lambda e: isinstance(e, sp.Heaviside) and _extreme_term(e.args[0]) is not None,
        _split_extreme_step,
    )
    expr, continuous = drop_continuous_steps(expr, var)
    if continuous:
        notes.append(
            "the function is continuous where "
            + ", ".join(sp.sstr(u) for u in continuous)
            + " = 0: its exact derivative is used there (no surrogate gradient)"
        )
    if expr.has(sp.DiracDelta):
        if surrogate not in SURROGATES:
            raise FormulaError(
                f"unknown surrogate gradient {surrogate!r}",
                suggestion=f"use one of {', '.join(SURROGATES)} or pass derivative=...",
            )
        fn = SURROGATES[surrogate]

        def delta(*args: sp.Expr) -> sp.Expr:
            if len(args) > 1 and args[1] != 0:
                raise FormulaError(
                    f"could not differentiate {what}: a step's derivative of order "
                    f"{args[1]} has no surrogate",
                    suggestion="give the derivative explicitly with derivative=...",
                )
            return fn(args[0])

        gated = any(p.has(sp.DiracDelta) for p in expr.atoms(sp.Piecewise))
        expr = expr.replace(sp.DiracDelta, delta)
        if surrogate == "zero":
            notes.append(
                "the derivative of a step is 0 almost everywhere: weights before it "
                "will not learn (choose surrogate='atan' to train through it)"
            )
        else:
            notes.append(
                f"the step's derivative uses the {surrogate!r} surrogate gradient"
            )
        if gated:
            notes.append(
                "whether the function jumps at its step depends on the constants: "
                "the surrogate applies only for values where it does"
            )
    # floor/ceiling: their derivative 0 comes from real_diff (symnb.formula.realdiff)
    return expr, notes


#: What a built formula was read from (saved with models): refused once built.
_FORMULA_FIELDS = frozenset(
    {"text", "derivative_text", "surrogate", "param_names", "variables", "kind"}
)

_NO_EFFECT = "so its value has no effect"


def _unused_constant_notes(
    names: tuple[str, ...], symbols: dict, used: set, called: dict
) -> list[str]:
    """A note (and a warning) for each constant the formula never reads:
    ``Activation("x*sigmoid(x)", beta=2.0)`` computed with no beta, and
    ``Activation("swb(x)", beta=3.0)`` with swb's own beta, both without a word."""
    notes = []
    for name in names:
        if symbols[name] in used:
            continue
        owners = [
            f"{n} keeps the {name}={act.constants[name]:g} it was defined with"
            for n, act in called.items()
            if name in getattr(act, "constants", {})
        ]
        why = f" ({'; '.join(owners)})" if owners else ""
        notes.append(
            f"the formula does not depend on constant {name!r}{why}, {_NO_EFFECT}"
        )
    return notes


def _constant_note(kind: str, variable: str) -> str:
    """The note for a formula that does not depend on its input (``2``, ``y_true**2``):
    its derivative is 0 everywhere."""
    if kind == "loss":
        return (
            f"the loss does not depend on {variable}: its gradient is 0 everywhere, so "
            "a network trained with it will not learn"
        )
    return (
        f"f does not depend on {variable}: f' is 0 everywhere, so the weights before "
        "this activation will not learn"
    )


def _check_printable(expr: sp.Expr, what: str) -> None:
    bad = [
        a
        for a in expr.atoms(sp.Function, sp.Derivative, sp.Subs)
        if isinstance(a, _FORBIDDEN)
    ]
    if bad or expr.has(sp.I) or expr.has(sp.nan) or expr.has(sp.zoo):
        shown = sp.sstr(bad[0]) if bad else sp.sstr(expr)
        raise FormulaError(
            f"could not differentiate/compile {what}: the result contains {shown[:120]}",
            suggestion="give the derivative explicitly with derivative=..., or "
            "rewrite the formula with real-valued functions",
        )


def _count_ops(expr: sp.Expr) -> int:
    return int(sp.count_ops(expr, visual=False))


def _denominator_points(expr: sp.Expr, var: sp.Symbol) -> list[sp.Expr]:
    """Real zeros other than 0 of the polynomial denominators of ``expr`` (degree <= 2),
    where a 0/0 can have a finite limit: ``sin(x - 1)/(x - 1)`` at 1."""
    points: list[sp.Expr] = []
    for node in sp.preorder_traversal(expr):
        if not (
            isinstance(node, sp.Pow)
            and node.exp.is_number
            and node.exp.is_negative
            and var in node.base.free_symbols
        ):
            continue
        try:
            poly = sp.Poly(node.base, var)
        except sp.PolynomialError:
            continue
        if poly.degree() > 2 or len(points) > 8:
            continue
        try:
            roots = sp.roots(poly)
        except Exception:  # noqa: BLE001, S112 - no roots: no point
            continue
        for r in roots:
            fresh = r not in points and var not in r.free_symbols
            if fresh and r.is_real and not r.is_zero:
                points.append(r)
    return points


def _remove_removable_singularities(
    expr: sp.Expr, var: sp.Symbol, what: str, show=sp.sstr
) -> tuple[sp.Expr, list[str]]:
    """sin(x)/x at 0 -> 1, x*log(x) at 0 -> 0: use the limit where the value is undefined.

    The same at the other real zeros of polynomial denominators (``sin(x - 1)/(x - 1)``
    at 1 was NaN, as ``tanh(x - 2)/(x - 2)`` at 2)."""
    if not expr.has(var):
        return expr, []
    notes: list[str] = []
    for point in (sp.Integer(0), *_denominator_points(expr, var)):
        expr, more = _remove_singularity_at(expr, var, what, point, show(point))
        notes += more
    for point, side in log_edge_points(expr, var):
        expr, more = _one_sided_limit_at(expr, var, what, point, side, show(point))
        notes += more
    return expr, notes


def _undefined_at(
    expr: sp.Expr, var: sp.Symbol, point: sp.Expr, infinite: bool = True
) -> bool:
    """Whether SymPy finds expr NaN (or, with ``infinite``, complex infinity) at the
    point; False where it cannot substitute (the expression is left alone)."""
    try:
        at = expr.subs(var, point)
    except Exception:  # noqa: BLE001 - any SymPy failure: leave the expression alone
        return False
    return at.has(sp.nan) or (infinite and at.has(sp.zoo))


def _one_sided_limit_at(
    expr: sp.Expr, var: sp.Symbol, what: str, point: sp.Expr, side: str, shown: str
) -> tuple[sp.Expr, list[str]]:
    """expr at a logarithm's domain edge ``point`` (``log_edges``) as its limit from
    the domain's ``side``, where expr is undefined there (0*log(0), 0/0 - inf) and the
    limit is a number or +-oo that IEEE's value there is not; otherwise expr. Only
    where SymPy finds NaN (0*zoo): a complex infinity alone (log(0) + 1, log(0)**2)
    is IEEE's signed inf, right as it is."""
    if not _undefined_at(expr, var, point, infinite=False):
        return expr, []
    try:
        with Budget(f"find the limit of {what} at {shown}", seconds=3.0):
            body = local_branches(expr, var, float(point))
            lim = sp.limit(body, var, point, side)
    except Exception:  # noqa: BLE001 - SymPy could not (or too slowly): IEEE's value
        return expr, []
    if not _signed_number(lim) or lim.free_symbols:
        return expr, []
    if _ieee_at(expr, var, float(point)) == float(lim):  # IEEE's value is right
        return expr, []
    word = "right" if side == "+" else "left"
    return (
        sp.Piecewise((lim, sp.Eq(var, point)), (expr, True)),
        [f"{what} at {shown} is its limit from the {word}, {sp.sstr(lim)}"],
    )


#: symnb's stable functions with an exp spelling SymPy can take limits of
_STABLE_FUNCTIONS = (sigmoid, softplus, logsigmoid)


def _limit_through_exp(
    body: sp.Expr, var: sp.Symbol, point: sp.Expr, side: str = "+"
) -> sp.Expr | None:
    """The limit of body with sigmoid/softplus/logsigmoid spelled through exp, or
    None (no such function, or no limit found). SymPy knows no limit of sigmoid(u) as
    u -> -oo: the derivative of log(1 + x**2*exp(x))'s stable form, (1 + 2/x)*
    sigmoid(x + 2 log|x|), was NaN at 0 (its limit took 1.7 s to give up, past the
    budget on a loaded machine); through exp, 1/(1 + exp(-x)/x**2), it is found at
    once. Timeouts (FormulaError) propagate."""
    if not body.has(*_STABLE_FUNCTIONS):
        return None
    try:
        lim = sp.limit(body.rewrite(list(_STABLE_FUNCTIONS), sp.exp), var, point, side)
    except FormulaError:
        raise
    except Exception:  # noqa: BLE001 - SymPy could not this way: the other spelling
        return None
    return None if lim.has(sp.Limit) else lim


def _left_limit(body: sp.Expr, var: sp.Symbol) -> sp.Expr | None:
    """The limit of body at 0 from the left (SymPy's limit is from the right); None
    when SymPy cannot find it in time."""
    try:
        with Budget("find the limit from the left at 0", seconds=2.0):
            return sp.limit(body, var, 0, "-")
    except Exception:  # noqa: BLE001 - SymPy could not: no branch, the IEEE value
        return None


def _signed_number(lim: sp.Expr) -> bool:
    """lim is a real number or +-oo (a value a float can hold, inf included)."""
    return lim in (sp.oo, -sp.oo) or (lim.is_number and lim.is_extended_real is True)


def _ieee_at(expr: sp.Expr, var: sp.Symbol, zero: float) -> float | None:
    """The formula's IEEE value at the signed zero ``zero`` (NumPy float64, the stable
    functions through exp), or None when it cannot be evaluated here."""
    import numpy as np

    try:
        body = expr.rewrite(list(_STABLE_FUNCTIONS), sp.exp)
        fn = sp.lambdify(var, body, modules="numpy")
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(fn(np.float64(zero)))
    except Exception:  # noqa: BLE001 - not evaluable here: no branch, as before
        return None


def _one_sided_branches(
    expr: sp.Expr, var: sp.Symbol, right: sp.Expr, left: sp.Expr
) -> tuple[sp.Expr, list[tuple[str, str, sp.Expr]]]:
    """Branches at +0.0 and -0.0 (told apart by the sign of 1/x, as IEEE does) for each
    side whose direct IEEE value is not its one-sided limit: exp(1/x)' =
    -exp(1/x)/x**2 is 0/0 = NaN at -0.0 (the limit from the left is 0), x**-3 +
    x**-2 is inf - inf there (-oo). Sides the direct formula gets right stay without
    a branch (1/x, exp(1/x) itself), so the formula reads as typed."""
    pairs, sides = [], []
    for lim, zero, cond, side in (
        (right, 0.0, 1 / var > 0, ("+0.0", "right")),
        (left, -0.0, 1 / var < 0, ("-0.0", "left")),
    ):
        if not _signed_number(lim):
            continue
        got = _ieee_at(expr, var, zero)
        if got is None or got == float(lim):
            continue
        pairs.append((lim, sp.And(sp.Eq(var, 0), cond)))
        sides.append((*side, lim))
    if not pairs:
        return expr, []
    return sp.Piecewise(*pairs, (expr, True)), sides


def _remove_singularity_at(
    expr: sp.Expr, var: sp.Symbol, what: str, point: sp.Expr, shown: str
) -> tuple[sp.Expr, list[str]]:
    if not _undefined_at(expr, var, point):
        return expr, []
    try:
        with Budget(f"find the limit of {what} at {shown}", seconds=3.0):
            # the branches of stable forms that hold around the point (SymPy's limit
            # of a Piecewise gave up on log(cosh(x))/x, which stayed NaN at 0)
            try:
                near = float(point)
            except TypeError:
                near = None
            body = expr if near is None else local_branches(expr, var, near)
            lim = _limit_through_exp(body, var, point)
            if lim is None:
                lim = sp.limit(body, var, point)
            else:
                body = body.rewrite(list(_STABLE_FUNCTIONS), sp.exp)
    except FormulaError:
        return expr, []
    except Exception:  # SymPy could not: leave the expression alone
        if point.is_zero:
            raise
        return expr, []
    if point.is_zero and _signed_number(lim):
        # SymPy's limit is from the right: 1/x, 1/sin(x), exp(1/x) have another from
        # the left (a branch with the right's made f(-0.0) = +inf, the LaTeX 'oo for
        # x = 0'); one-sided branches only where IEEE's own value at +-0 is wrong
        left = _left_limit(body, var)
        if left is not None and left != lim and _signed_number(left):
            branched, sides = _one_sided_branches(expr, var, lim, left)
            return branched, [
                f"{what} at {side} is its limit from the {word}, {sp.sstr(v)}"
                for side, word, v in sides
            ]
        if lim in (sp.oo, -sp.oo) and left != lim:
            # no limit from the left known to be the same: no branch, IEEE's values
            return expr, []
        # a finite limit whose left one SymPy did not find in time: the two-sided
        # branch, as before (log(1 + x**4*exp(-2*x))' lost its branch at 0 under load)
    if lim.has(sp.nan, sp.zoo, sp.AccumBounds, sp.Limit) or lim.has(sp.oo, -sp.oo):
        # away from 0 only finite limits: SymPy's limit is one-sided (x/(x**2 - 1)
        # at 1 is -oo from the left), and a decimal root can leave a tiny numerator
        if lim in (sp.oo, -sp.oo) and point.is_zero:  # the same from both sides
            return (
                sp.Piecewise((lim, sp.Eq(var, point)), (expr, True)),
                [f"{what} at {shown} is its limit {lim}"],
            )
        return expr, []
    return (
        sp.Piecewise((lim, sp.Eq(var, point)), (expr, True)),
        [f"{what} at {shown} uses its limit {sp.sstr(lim)} (the formula is 0/0 there)"],
    )


# ---------------------------------------------------------------- the formula objects


def _reads_euler_e(text: str, constants: Mapping[str, float]) -> bool:
    """Whether the parser read a name ``e`` in ``text`` as Euler's number."""
    return "e" not in constants and re.search(r"(?<![\w.])e(?![\w(])", text) is not None


def _checked_name(name: Any, kind: str) -> str | None:
    """``name`` of a ``kind`` (activation, loss) as given to the constructor or
    assigned later: a string within ``check_name``'s rules, or None (also for a blank
    name, which means the default); a ``TypeError`` for anything but str and None."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(
            f"{kind} name must be a string (or None for the default), got "
            f"{type(name).__name__} ({_shown(name)})"
        )
    check_name(name, f"{kind} name")
    return name if name.strip() else None


class _Formula:
    """Shared machinery of Activation and Loss."""

    kind = "activation"
    variables: tuple[str, ...] = ("x",)
    _internal_inputs: tuple[sp.Symbol, ...] = (X,)
    _library: Mapping[str, library.Entry] = library.ACTIVATIONS

    def __init__(
        self,
        expr: str | sp.Expr,
        /,
        name: str | None = None,
        *,
        derivative: str | sp.Expr | None = None,
        surrogate: str | None = None,
        replace: bool = False,
        _register: bool = True,
        _users: Mapping[str, Any] | None = None,
        **constants: Any,
    ) -> None:
        from symnb.formula.parse import parse_formula

        _refuse_options_as_constants(
            type(self).__name__,
            expr,
            name=name,
            derivative=derivative,
            surrogate=surrogate,
            replace=replace,
        )
        name = _checked_name(name, self.kind)
        # replace='no' was truthy: the library's gelu became the user's for the session
        replace = check_flag(replace, "replace")
        shown_name = None
        held: dict[str, tuple[float, bool]] = {}
        if from_object.is_code_object(expr):  # a function, class or module object
            expr, held, shown_name = from_object.read(expr)
        if isinstance(expr, str) and len(expr) <= _MAX_PASTED_CODE:
            shown_name = self._adopt_code_constants(expr, constants, held) or shown_name
        check_constant_count(
            len(constants), self.kind if name is None else f"{self.kind} {name!r}"
        )
        self._learnable: dict[str, Learnable] = {}
        values: dict[str, float] = {}
        for cname, value in constants.items():
            check_name(cname, "constant name")
            if cname in self.variables:
                raise FormulaError(
                    f"constant {cname!r} has the name of the variable",
                    suggestion="rename the constant",
                )
            if cname in ALLOWED_CONSTANTS:
                # the symbol would replace the number in the kernels while the LaTeX
                # still shows the number's sign (pi=2.0: kernels 2x, LaTeX \pi x)
                raise FormulaError(
                    f"constant {cname!r} has the name of the number {cname} of the "
                    "formula language",
                    suggestion="rename the constant (e.g. 'c' or 'scale')",
                )
            values[cname] = _check_constant_value(cname, value)
            if isinstance(value, Learnable):
                self._learnable[cname] = value
        self._constants = values
        if surrogate is not None and not isinstance(surrogate, str):
            # surrogate=0 or False silently meant "atan"
            raise TypeError(
                f"surrogate must be a name such as 'atan' or None, got {surrogate!r:.60}"
            )
        self.surrogate = "atan" if surrogate is None else surrogate
        if self.surrogate not in SURROGATES:
            raise FormulaError(
                f"unknown surrogate gradient {self.surrogate!r}",
                suggestion=f"use one of {', '.join(SURROGATES)} or pass derivative=...",
            )

        for label, given in (("formula", expr), ("derivative", derivative)):
            if isinstance(given, str):
                check_length(given, label)  # before anything reads the text
            elif not isinstance(given, sp.Basic) and (
                label == "formula" or given is not None
            ):
                raise TypeError(
                    f"{type(self).__name__} expects {label} text or a SymPy "
                    f"expression, got {type(given).__name__} ({_shown(given)})"
                )
        # the named activations this formula may call, as they are now
        users = compose.registered() if _users is None else dict(_users)
        # SymPy objects get the text's checks before anything prints or walks them
        # recursively (a 300-deep expression broke sstr with a RecursionError)
        if not isinstance(expr, str):
            expr = self._adopt_sympy(expr, users)
        if derivative is not None and not isinstance(derivative, str):
            derivative = self._adopt_sympy(derivative, users, "derivative")
        self.text = expr if isinstance(expr, str) else sp.sstr(expr)
        # a pasted function's own name is shown, not registered for later formulas
        self.name = name or shown_name or self._default_name()
        self._user_symbols = {n: sp.Symbol(n, real=True) for n in values}
        self._var_symbols = tuple(sp.Symbol(v, real=True) for v in self.variables)
        self.derivative_text = (
            derivative
            if isinstance(derivative, str) or derivative is None
            else sp.sstr(derivative)
        )
        # the ones it calls (see with_constants)
        texts = [t for t in (self.text, self.derivative_text) if isinstance(t, str)]
        self._users = compose.used_names(" ".join(texts), users)
        # one budget for the whole symbolic pipeline (parse, rewrites, diff, limits)
        with Budget(
            f"read and differentiate {self.kind} {self.name!r}", SYMBOLIC_TIME_BUDGET
        ):
            if isinstance(expr, str):
                user_expr = parse_formula(
                    expr,
                    variables=self.variables,
                    constants=tuple(values),
                    functions=self._functions(),
                )
            else:
                user_expr = expr  # adopted above
            self._build(user_expr, derivative)
        if name is not None and _register and self.kind == "activation":
            compose.register(self, replace=replace)
        self.__dict__["_built"] = True  # from here on, see __setattr__

    @property
    def name(self) -> str:
        """The name shown in LaTeX, plots, messages, layer listings and generated
        source; assigning it is checked as ``name=`` is at construction (an int or a
        name with a newline was kept and broke ``to_source``, ``compile_layer`` and
        ``MLP`` later); a blank name or None means the default."""
        return self._name

    @name.setter
    def name(self, value: str | None) -> None:
        self._name = _checked_name(value, self.kind) or self._default_name()

    def __setattr__(self, attr: str, value: Any) -> None:
        # once built: constants may share names with the fields set before
        if self.__dict__.get("_built") and attr in self._constants:
            refuse_constant_attribute(
                self,
                attr,
                self._constants,
                f"{self.kind} {self.name!r}",
                f"a formula does not change in place: use {self.kind}.with_constants("
                f"{attr}=value) for a copy with the new value, or "
                f"kernel.set_constants({attr}=value) on a compiled kernel",
            )
        if self.__dict__.get("_built") and attr in _FORMULA_FIELDS:
            # act.text = "x*2" kept x*sigmoid(x) in every kernel but MLP.save wrote
            # the new text, so the loaded model computed another function
            shown = repr(self.__dict__.get(attr, getattr(self, attr, None)))
            raise AttributeError(
                f"{self.kind}.{attr} is fixed when the formula is read ({attr}="
                f"{shown if len(shown) <= 60 else shown[:57] + '...'}); a formula "
                f"does not change in place: build a new symnb.{type(self).__name__}"
                "(...) with what you want"
            )
        super().__setattr__(attr, value)

    # -- construction -------------------------------------------------------------

    def _functions(self) -> dict[str, Any]:
        """Functions this formula may call: built-ins, library and named activations
        (``symnb.formula.compose``); its own constants and variables take precedence."""
        exclude = frozenset(self._constants) | set(self.variables)
        return compose.function_table(exclude, self._users)

    def _default_name(self) -> str:
        return "f" if self.kind == "activation" else "loss"

    def _adopt_code_constants(
        self,
        text: str,
        constants: dict[str, Any],
        held: Mapping[str, tuple[float, bool]] | None = None,
    ) -> str | None:
        """Pasted code's constants (``def f(x, beta=1.0)``, a module's ``self.beta``;
        ``held``: the values a module instance holds now, which come first) added to
        ``constants`` where the caller gave none; its function or class name when
        that can be shown (not a name of the formula language or the library)."""
        found = declared(text, n_inputs=len(self.variables))
        if found is None:
            return None
        read = {k: v for k, v in (held or {}).items() if k in found.used}
        for cname, (value, trainable) in {**found.constants, **read}.items():
            if cname not in constants and cname not in self.variables:
                constants[cname] = learnable(value) if trainable else value
        name = found.name
        if (
            name is None
            or name.startswith("_")
            or name in self._library
            or name in ALLOWED_FUNCTIONS
            or name in ALLOWED_CONSTANTS
        ):
            return None
        return name

    def _adopt_sympy(
        self, expr: sp.Basic, users: Mapping[str, Any], what: str = "formula"
    ) -> sp.Expr:
        """Accept a SymPy expression checked as text is (``parse.adopt_sympy``): its
        symbols become real symbols of the same name."""
        exclude = frozenset(self._constants) | set(self.variables)
        return adopt_sympy(
            expr,
            variables=self.variables,
            constants=tuple(self._constants),
            functions=compose.function_table(exclude, users),
            what=what,
        )

    def _build(self, user_expr: sp.Expr, derivative: str | sp.Expr | None) -> None:
        from symnb.formula.parse import parse_formula

        what = f"{self.kind} {self.name!r}"
        names = tuple(self._constants)
        self.param_names = names
        params = tuple(param_symbol(k) for k in range(len(names)))
        to_internal = {self._user_symbols[n]: params[k] for k, n in enumerate(names)}
        to_internal.update(dict(zip(self._var_symbols, self._internal_inputs)))
        self._to_user = {v: k for k, v in to_internal.items()}

        stable, notes = stabilize(user_expr)
        self.notes: list[str] = list(notes)
        if _reads_euler_e(self.text, self._constants):
            self.notes.append(
                "e is Euler's number 2.71828... (declare a constant e=... for your own)"
            )
        self._latex_cache: dict[str, str] = {}
        # keeps the names of composed activations, for LaTeX
        self._display = compose.display_form(stable)
        f = stable.xreplace(to_internal)
        if self.kind == "loss":
            f, weighted = zero_weight_logs(f, self._internal_inputs[1])
            self.notes += weighted
        _check_printable(f, what)
        var = self._internal_inputs[0]
        with Budget(f"differentiate {what}"):
            if derivative is None:
                df, steps = real_diff(f, var)
                df = power_limits_at_zero(expand_composed(df))
                self.notes += steps
            else:
                if isinstance(derivative, str):
                    try:
                        dexpr = parse_formula(
                            derivative,
                            variables=self.variables,
                            constants=names,
                            functions=self._functions(),
                        )
                    except FormulaError as exc:
                        # derivative='' said only "empty formula": which one?
                        raise FormulaError(
                            f"derivative={_shown(derivative)}: {exc.message}",
                            text=exc.text,
                            line=exc.line,
                            column=exc.column,
                            suggestion=exc.suggestion,
                        ) from None
                else:
                    dexpr = derivative  # adopted in __init__
                df = expand_composed(stabilize(dexpr)[0].xreplace(to_internal))
                self.notes.append("the derivative is the one given (derivative=...)")
                self._note_a_given_derivative_that_differs(f, df, params, what)
            df, n1 = _fix_kinks(stabilize_derivative(df), self.surrogate, what, var)
            dparams = []
            for c in params:
                dc = power_limits_at_zero(expand_composed(real_diff(f, c)[0]))
                d, _ = _fix_kinks(stabilize_derivative(dc), self.surrogate, what, c)
                dparams.append(d)
        self.notes += [n for n in n1 if n not in self.notes]
        given = dexpr.free_symbols if derivative is not None else set()
        self.notes += _unused_constant_notes(
            names, self._user_symbols, user_expr.free_symbols | given, self._users
        )
        f = expand_composed(f)

        def show(e: sp.Expr) -> str:
            return sp.sstr(self._user(e))

        f, df = (expand_edge_arguments(e, var) for e in (f, df))
        f, n2 = _remove_removable_singularities(f, var, what, show)
        df, n3 = _remove_removable_singularities(
            df, var, f"the derivative of {what}", show
        )
        self.notes += n2 + n3
        if var not in f.free_symbols:
            self.notes.append(_constant_note(self.kind, self.variables[0]))
        for e, label in [(f, what), (df, f"the derivative of {what}")] + [
            (d, f"the derivative of {what} w.r.t. {n}") for d, n in zip(dparams, names)
        ]:
            _check_printable(e, label)
            ops = _count_ops(e)
            if ops > MAX_OPERATIONS:
                raise FormulaError(
                    f"could not compile {label}: {ops} operations (limit {MAX_OPERATIONS})",
                    suggestion="simplify the formula or give its derivative explicitly",
                )
        self._f, self._df, self._dparams = f, df, tuple(dparams)
        self._internal = InternalForm(
            kind=self.kind,
            name=self.name,
            inputs=self._internal_inputs,
            params=params,
            param_names=names,
            param_values=tuple(self._constants[n] for n in names),
            f=f,
            df=df,
            dparams=tuple(dparams),
        )
        for n in self.notes:
            if "will not learn" in n or n.endswith(_NO_EFFECT):
                warnings.warn(f"{what}: {n}", UserWarning, stacklevel=4)

    def _note_a_given_derivative_that_differs(
        self, f: sp.Expr, df: sp.Expr, params: tuple, what: str
    ) -> None:
        from symnb.formula.given_derivative import differs_note

        values = {p: self._constants[n] for p, n in zip(params, self.param_names)}
        note, warn = differs_note(
            expand_composed(f),
            df,
            self._internal_inputs[0],
            values,
            tuple(self._internal_inputs[1:]),
            self.variables[0],
        )
        if note is not None:
            self.notes.append(note)
            if warn:
                warnings.warn(f"{what}: {note}", UserWarning, stacklevel=5)

    # -- public properties ----------------------------------------------------------

    def _user(self, e: sp.Expr) -> sp.Expr:
        return e.xreplace(self._to_user)

    @property
    def expr(self) -> sp.Expr:
        """The function, in the user's symbols (after stability rewrites)."""
        return self._user(self._f)

    @property
    def derivative(self) -> sp.Expr:
        """Its derivative w.r.t. the (first) variable, as the kernels compute it."""
        return self._user(self._df)

    @property
    def constants(self) -> dict[str, float]:
        """Constant values by name (a copy)."""
        return dict(self._constants)

    @property
    def constant_derivatives(self) -> dict[str, sp.Expr]:
        """Derivative w.r.t. each constant, by constant name."""
        return {n: self._user(d) for n, d in zip(self.param_names, self._dparams)}

    @property
    def learnable(self) -> dict[str, Learnable]:
        """The constants marked trainable with ``symnb.learnable``."""
        return dict(self._learnable)

    @property
    def internal(self) -> InternalForm:
        """The compiler-facing form (internal symbols only)."""
        return self._internal

    @property
    def latex(self) -> str:
        """LaTeX of the function (composed activations keep their names; branches that
        only the arithmetic needs are folded, :mod:`symnb.formula.display`)."""
        if "f" not in self._latex_cache:
            shown = self._display if self._display.atoms(AppliedUndef) else self.expr
            self._latex_cache["f"] = formula_latex(fold_equal_branches(shown))
        return self._latex_cache["f"]

    @property
    def derivative_latex(self) -> str:
        """LaTeX of the derivative (numerical-only branches folded, as :attr:`latex`)."""
        if "df" not in self._latex_cache:
            shown = fold_equal_branches(self.derivative)
            self._latex_cache["df"] = formula_latex(shown)
        return self._latex_cache["df"]

    def _head(self) -> str:
        return operator_name(self.name if self.name.isidentifier() else "f")

    def _repr_latex_(self) -> str:
        args = ", ".join(self.variables)
        head = self._head()
        d = "'" if self.kind == "activation" else ""
        var0 = self.variables[0].replace("_", r"\_")
        dvar = "" if self.kind == "activation" else rf"\partial_{{{var0}}}"
        return (
            r"$$\begin{aligned}"
            rf"{head}({args}) &= {self.latex} \\"
            rf"{dvar}{head}{d}({args}) &= {self.derivative_latex}"
            r"\end{aligned}$$"
        )

    def __repr__(self) -> str:
        consts = "".join(f", {k}={v!r}" for k, v in self._constants.items())
        return f"{type(self).__name__}({self.text!r}, name={self.name!r}{consts})"

    @property
    def has_domain(self) -> bool:
        """Whether this is a library formula whose constants have domain tests (a
        compiled kernel then checks its ``params`` against them)."""
        entry = self._library.get(self.name)
        return entry is not None and entry.text == self.text and bool(entry.domain)

    def check_domain(self, values: Mapping[str, Any]) -> None:
        """A FormulaError when a library formula's constants leave its domain.

        ``symnb.loss("huber", delta=-1)`` is refused (PyTorch refuses it: a loss
        that falls as the error grows), but ``loss("huber").with_constants(
        delta=-1)`` and a compiled kernel's ``set_constants(delta=-1)`` were taken,
        and trained towards ever larger errors without a word. ``values`` are the
        constants being changed; the others keep their current values."""
        if not self.has_domain:
            return  # not the library's formula (a user's of the same name)
        entry = self._library[self.name]
        current = {**self._constants, **dict(values)}
        problem = library.domain_problem(entry, _initial_values(current))
        if problem is not None:
            raise FormulaError(problem)

    def with_constants(self, **values: Any) -> _Formula:
        """A new object with the same formula and some constants changed."""
        unknown = [k for k in values if k not in self._constants]
        if unknown:
            raise FormulaError.unknown_constant(
                f"{self.kind} {self.name!r}", unknown[0], self._constants
            )
        self.check_domain(values)
        merged: dict[str, Any] = {**self._constants, **self._learnable, **values}
        return type(self)(
            self.text,
            name=self.name,
            derivative=self.derivative_text,
            surrogate=self.surrogate,
            _register=False,  # a variant: later formulas keep the registered values
            _users=self._users,  # the same definitions, even if a name was redefined
            **merged,
        )

    def compile(
        self,
        backend: str = "auto",
        device: int = 0,
        dtype: str = "float32",
        strict: bool = False,
        accuracy: str = "permissive",
    ):
        """Compile kernels on a backend ("auto", "numpy", "cpp", "cuda").

        ``strict=True`` raises ``BackendUnavailable`` instead of falling back.
        ``accuracy="strict"`` raises ``symnb.robust.AccuracyError`` (a ``FormulaError``
        holding the report) when the error in ``dtype`` stays above the accuracy rule.
        """
        from symnb import robust
        from symnb.backends import select

        robust.before_compile(self, dtype, accuracy)
        fn = (
            select.compile_activation
            if self.kind == "activation"
            else select.compile_loss
        )
        kernel = fn(self, backend=backend, device=device, dtype=dtype, strict=strict)
        robust.after_compile(self, dtype)
        return kernel

    def accuracy(self, dtypes=("float32", "float64")):
        """Measured error of the kernels' f and f' (``symnb.robust.AccuracyReport``)."""
        from symnb import robust

        return robust.accuracy(self, dtypes)


class Activation(_Formula):
    """An activation function f(x) with named constants.

    >>> swish = Activation("x*sigmoid(beta*x)", name="swish", beta=1.0)
    >>> k = swish.compile(backend="numpy")    # a symnb.Kernel

    Formulas may call library activations (``gelu(x) + silu(x)``) and activations named
    earlier; a named Activation becomes callable in later formulas with its constant
    values. A name that shadows a library activation with a different function raises
    ``FormulaError`` unless ``replace=True`` (see ``symnb.formula.compose``).

    Steps (``sign``, ``heaviside``) get the surrogate gradient only where f jumps; where
    the factor multiplying the step vanishes there, f is continuous and its exact
    derivative is used (see ``symnb.formula.steps``).

    ``==`` and ``hash`` are by identity, as for ``torch.nn.Module``: two activations of
    the same formula stay two (their learnable constants are separate, and ``name`` may
    change while one is a dict key); compare ``a.expr == b.expr`` and ``a.constants``
    for the same function.
    """

    kernel = None  # the last kernel compiled by a notebook face (magic, editor)

    # -- interop (symnb.interop: lazy imports, thin delegation) ------------------------

    def to_torch(self, learnable: Any = None, backend: str = "auto"):
        """A ``torch.nn.Module`` over symnb's kernels (see ``symnb.interop.torch``)."""
        from symnb.interop.torch import to_torch

        return to_torch(self, learnable=learnable, backend=backend)

    def to_jax(self):
        """``f(x, **constants)`` for ``jax.jit``/``grad``/``vmap`` (``symnb.interop.jax``)."""
        from symnb.interop.jax import to_jax

        return to_jax(self)

    def to_source(self, dialect: str = "cpp", dtype: str = "float32") -> str:
        """A self-contained C++ or CUDA header with f and f' (``symnb.interop.source``)."""
        from symnb.interop.source import to_source

        return to_source(self, dialect=dialect, dtype=dtype)

    def to_numba(self, target: str = "cpu"):
        """Scalar f and f' for ``numba.njit`` or ``numba.cuda`` (``symnb.interop.numba``)."""
        from symnb.interop.numba import to_numba

        return to_numba(self, target=target)


class Loss(_Formula):
    """An elementwise loss l(y_pred, y_true); its value is the mean over elements.

    ``compile`` returns a ``symnb.LossKernel`` with ``value`` and ``gradient``.
    """

    kind = "loss"
    kernel = None  # the last kernel compiled by a notebook face (magic, editor)
    variables = ("y_pred", "y_true")
    _internal_inputs = (P, T)
    _library = library.LOSSES


def did_you_mean(word: str, names: list[str]) -> str:
    """``"did you mean 'x'? "`` for the closest of ``names``, or ``""``."""
    import difflib

    close = difflib.get_close_matches(word, names, n=1)
    return f"did you mean {close[0]!r}? " if close else ""


def _from_library(cls: type, name: str, constants: dict) -> _Formula:
    """A library entry of ``cls`` (Activation or Loss) by name, with constants overridden."""
    table, kind = cls._library, cls.kind
    if not isinstance(name, str):  # activation(None) read 'unknown activation None'
        raise TypeError(
            f"symnb.{kind}() takes the name of a library {kind} as a string, e.g. "
            f"{next(iter(table))!r}, got {type(name).__name__} ({_shown(name)}); "
            f"a formula text goes to symnb.{kind.title()}(...)"
        )
    if name not in table and name.strip().lower() in table:
        name = name.strip().lower()  # activation(' ReLU '), as backend names
    if name not in table:
        hint = did_you_mean(str(name), list(table))
        if not name.strip().isidentifier():  # activation("x*sigmoid(x)"): a formula
            hint = (
                f"a formula text goes to symnb.{kind.title()}({name!r:.60}, ...) "
                f"with its constants; symnb.{kind}() takes a library name; "
            )
        raise FormulaError(
            f"unknown {kind} {name!r}",
            suggestion=f"{hint}known: {', '.join(table)}",
        )
    entry = table[name]
    unknown = [k for k in constants if k not in entry.constants]
    if unknown:
        raise FormulaError.unknown_constant(
            f"{kind} {name!r}", unknown[0], entry.constants
        )
    problem = library.domain_problem(entry, _initial_values(constants))
    if problem is not None:
        raise FormulaError(problem)
    return cls(
        entry.text,
        name=name,
        derivative=entry.derivative,
        surrogate=entry.surrogate,
        _register=False,  # the library's own: its name already means it in formulas
        **{**entry.constants, **constants},
    )


def _refuse_options_as_constants(cls: str, expr: Any, **options: Any) -> None:
    """A FormulaError when an option of Activation/Loss (``name``,
    ``derivative``, ``surrogate``, ``replace``) gets a number or a learnable
    marker and the formula ``expr`` has a name of that option: the user meant a
    constant, which these keywords cannot pass ("activation name must be a string, got float" said nothing of it).
    ``self`` and ``expr`` are positional-only, so constants may have those names
    (``Activation("x*self", self=2)`` raised "got multiple values for argument
    'self'")."""
    for option, value in options.items():
        number = isinstance(value, Learnable) or real_value(value) is not None
        if number and re.search(rf"\b{option}\b", str(expr)):
            raise FormulaError(
                f"{option}={value!r:.40} is an option of symnb.{cls}, not a constant: "
                f"a constant cannot be called {option!r}",
                suggestion=f"rename the constant in the formula, e.g. {option}_",
            )


def activation(name: str, /, **constants: Any) -> Activation:
    """A library activation by name, e.g. ``activation("leaky_relu", alpha=0.2)``."""
    return _from_library(Activation, name, constants)


def as_activation(spec: Any, where: str = "activation") -> Activation:
    """An ``Activation`` from an ``Activation``, a library name, a formula text, or a
    function, module or layer object (:mod:`symnb.formula.from_object`).

    The one rule every face that takes "an activation" follows (``compile_layer``,
    ``to_torch_layer``, ``MLP``): a library name wins; other text that mentions ``x``
    is compiled as a formula; anything else is an error naming ``where``.
    """
    if isinstance(spec, Activation):
        return spec
    if from_object.is_code_object(spec):  # my_swish, Swish(beta=1.5), nn.SiLU()
        return Activation(spec)
    if isinstance(spec, str):
        key = spec.strip()
        if key in Activation._library:
            return activation(key)
        if "x" in key and not key.isidentifier():
            try:
                return Activation(key, name=key)
            except FormulaError as exc:
                if where == "activation" or type(exc) is not FormulaError:
                    raise
                # one of many texts (neuron 37 of a layer): say which one
                raise FormulaError(
                    f"{where}: {exc.message}",
                    exc.text,
                    exc.line,
                    exc.column,
                    exc.suggestion,
                ) from None
        hint = did_you_mean(key, list(Activation._library))
        at = "" if where == "activation" else f"{where}: "
        raise FormulaError(
            f"{at}unknown activation {spec!r}: {hint}use a library name "
            f"({', '.join(Activation._library)}), a formula text in x such as "
            "'x*sigmoid(x)', or a symnb.Activation"
        )
    raise TypeError(
        f"{where}: expected a symnb.Activation, a library name, a formula text in x "
        f"or a function or module, got {type(spec).__name__}"
    )


def loss(name: str, /, **constants: Any) -> Loss:
    """A library loss by name, e.g. ``loss("huber", delta=0.5)``."""
    return _from_library(Loss, name, constants)
