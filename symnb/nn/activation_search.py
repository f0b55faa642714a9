"""``search``: look for activation functions built from unary and binary blocks.

The search space is the one of Ramachandran, Zoph & Le, "Searching for Activation
Functions" (2017): a *core unit* is ``binary(unary1(a), unary2(b))``; a candidate is one
core unit on ``x``, or two, the second taking the first's output. Candidates are drawn at
random or evolved (tournament selection over everything trained so far, then one block
mutated), and each one is

* put in canonical form by SymPy, so equal formulas (``x*sigmoid(x)`` and
  ``sigmoid(x)*x``) train once; constant and linear functions are dropped;
* checked before any training (:func:`float32_problem`): rejected when its float32
  accuracy report (:func:`symnb.robust.accuracy`) fails, or when the function is
  undefined on the training range;
* trained by :func:`symnb.nn.compare` on every data set and seed (same ``client``,
  ``store``, progress bar), and scored by its mean accuracy (loss for regression).

The result is a :class:`Leaderboard` (formula, LaTeX, scores over seeds) that renders as
a table in a notebook. For a given ``seed`` and a budget in runs the search is
reproducible (the draws come from one ``numpy`` generator and training is
deterministic); a ``time_budget`` stops after the batch that passes it.
"""

from __future__ import annotations

import html
import math
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import FormulaError
from ..formula import compose
from .compare import check_integer, check_list
from .optional import require

__all__ = ["BINARY", "UNARY", "Leaderboard", "float32_problem", "search"]

#: Unary blocks: name -> template on ``{a}``.
UNARY: dict[str, str] = {
    "x": "{a}",
    "-x": "-({a})",
    "|x|": "Abs({a})",
    "x^2": "({a})**2",
    "x^3": "({a})**3",
    "sqrt": "sqrt({a})",
    "exp": "exp({a})",
    "sin": "sin({a})",
    "sigmoid": "sigmoid({a})",
    "tanh": "tanh({a})",
    "erf": "erf({a})",
    "relu": "Max({a}, 0)",
}

#: Binary blocks: name -> template on ``{a}``, ``{b}``.
BINARY: dict[str, str] = {
    "+": "({a}) + ({b})",
    "*": "({a})*({b})",
    "-": "({a}) - ({b})",
    "max": "Max({a}, {b})",
    "min": "Min({a}, {b})",
    "sigmoid_gate": "sigmoid({a})*({b})",
}


# ----------------------------------------------------------------- candidates
# A core unit is ("unit", binary, unary1, unary2, left, right): left/right are "x" or a
# core unit. Nested tuples keep mutation simple and make candidates hashable.


def _text(node: Any) -> str:
    if node == "x":
        return "x"
    _, b, u1, u2, left, right = node
    a = UNARY[u1].format(a=_text(left))
    c = UNARY[u2].format(a=_text(right))
    return BINARY[b].format(a=a, b=c)


def _random_unit(rng: np.random.Generator, unary, binary, inner: Any = "x") -> tuple:
    right = inner if inner == "x" or rng.random() < 0.5 else "x"
    return (
        "unit",
        binary[rng.integers(len(binary))],
        unary[rng.integers(len(unary))],
        unary[rng.integers(len(unary))],
        inner,
        right,
    )


def _random_candidate(rng, unary, binary, units: Sequence[int]) -> tuple:
    depth = int(units[rng.integers(len(units))])
    node: Any = "x"
    for _ in range(depth):
        node = _random_unit(rng, unary, binary, node)
    return node


def _mutate(node: tuple, rng, unary, binary) -> tuple:
    """Replace one block (a unary or the binary one) of one core unit."""
    units = []
    cur: Any = node
    while cur != "x":
        units.append(cur)
        cur = cur[4]
    depth = rng.integers(len(units))
    target = list(units[depth])
    slot = int(rng.integers(3)) + 1  # 1: binary, 2/3: unary
    table = binary if slot == 1 else unary
    target[slot] = table[rng.integers(len(table))]
    replaced = tuple(target)

    def rebuild(cur: Any, level: int) -> Any:
        if level == depth:
            return replaced
        inner = rebuild(cur[4], level + 1)
        right = inner if cur[5] == cur[4] else cur[5]
        return (*cur[:4], inner, right)

    return rebuild(node, 0)


def canonical(text: str) -> Any:
    """The SymPy expression of a formula text, in SymPy's canonical form (sums and
    products ordered, ``x - x`` = 0), through symnb's safe parser. As in
    ``symnb.Activation``, library activations (``gelu(x)``) and named ones are
    functions; their calls stay calls (``sp.sstr`` gives the text back)."""
    from ..formula.parse import parse_formula

    return parse_formula(
        text, variables=("x",), functions=compose.function_table(frozenset({"x"}))
    )


def _identity(expr: Any) -> str:
    """Equal functions, equal strings: composed calls replaced by their definitions
    (``silu(x)`` and ``x*sigmoid(x)`` are one candidate)."""
    import sympy as sp

    return sp.srepr(compose.expand_composed(expr))


def _structural_problem(expr: Any) -> str | None:
    import sympy as sp

    expr = compose.expand_composed(expr)
    x = sp.Symbol("x", real=True)
    if x not in expr.free_symbols:
        return "constant function"
    if expr.is_polynomial(x) and sp.degree(expr, x) <= 1:
        return "linear function"
    return None


# ----------------------------------------------------------------- float32 check

_TRAINING_RANGE = np.linspace(-10.0, 10.0, 401)
_WIDE = np.concatenate(
    [-np.logspace(4, -4, 161), [0.0], np.logspace(-4, 4, 161), _TRAINING_RANGE]
)


#: Seconds the accuracy analysis (:func:`symnb.robust.accuracy`) may take a candidate.
ACCURACY_BUDGET = 1.5


def _kernel_values(activation: Any) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    values = {}
    for dtype in ("float32", "float64"):
        kernel = activation.compile(backend="numpy", dtype=dtype)
        with np.errstate(all="ignore"):
            f, df = kernel.forward_with_derivative(_WIDE.astype(dtype))
        values[dtype] = (np.asarray(f, np.float64), np.asarray(df, np.float64))
    return values


def check_formula(formula: str) -> str | None:
    """:func:`float32_problem` of a formula text (a task a Dask worker can run: text
    in, text out), or the error building it."""
    import symnb

    try:
        return float32_problem(symnb.Activation(formula, name=formula))
    except symnb.SymnbError as exc:
        return f"{type(exc).__name__}: {exc}"


def float32_problem(activation: Any) -> str | None:
    """Why ``activation`` should not be trained in float32, or ``None``.

    1. Undefined on the training range: f or f' (numpy backend, float64) is not
       finite somewhere on ``[-10, 10]`` (``sqrt(x)`` for x < 0).
    2. The float32 accuracy report of :func:`symnb.robust.accuracy` fails: f or f'
       as the kernels compute them is off the mpmath reference by more than the
       rule somewhere on the float32 range.
    3. When that analysis does not finish within :data:`ACCURACY_BUDGET` seconds: the
       float32 kernel gives inf/NaN where the float64 one is finite on
       ``[-1e4, 1e4]`` (overflow, 0*inf, inf-inf).
    """
    from ..robust import accuracy

    values = _kernel_values(activation)
    in_range = np.abs(_WIDE) <= 10.0
    for label, v64 in zip(("f", "f'"), values["float64"]):
        bad = ~np.isfinite(v64) & in_range
        if bad.any():
            return f"{label} is not finite at x = {_WIDE[bad][0]:.3g} (float64)"
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # the analysis probes overflow
        report = accuracy(activation, ("float32",), budget=ACCURACY_BUDGET)
    if report.analysed:
        for row in report.rows():
            if row["failing"]:
                where = f", {row['regions'][0]}" if row["regions"] else ""
                return (
                    f"float32 accuracy report fails: {row['what']} is above the rule "
                    f"at {row['failing']} of {row['points']} points{where}"
                )
        return None
    for label, v32, v64 in zip(("f", "f'"), values["float32"], values["float64"]):
        bad = ~np.isfinite(v32) & np.isfinite(v64)
        if bad.any():
            return (
                f"{label} is not finite in float32 at x = {_WIDE[bad][0]:.3g} where "
                "float64 is finite (accuracy analysis over its time budget)"
            )
    return None


# ----------------------------------------------------------------- leaderboard


@dataclass
class _Entry:
    formula: str
    latex: str
    origin: str  # "search", "include" or "baseline"
    scores: dict[str, tuple[float, float]]  # data set -> (mean, std over seeds)
    score: float  # mean over data sets (NaN: no usable run)
    status: str  # "ok", "diverged in k runs", or the error


class Leaderboard:
    """Candidates ranked by score (best first) with their LaTeX and scores per data
    set (mean ± std over seeds); ``rejected`` lists the candidates dropped before
    training (formula, reason); ``result`` is the :class:`CompareResult` of all the
    training runs (plots: ``result.plot_spread()``, ``result.plot_curves()``)."""

    def __init__(
        self,
        entries: list[_Entry],
        rejected: list[tuple[str, str]],
        result: Any,
        metric: str,
        duplicates: int,
        seconds: float,
    ) -> None:
        sign = -1.0 if metric == "accuracy" else 1.0
        self.entries = sorted(
            entries,
            key=lambda e: (
                math.isnan(e.score),
                0.0 if math.isnan(e.score) else sign * e.score,
            ),
        )
        self.rejected = rejected
        self.result = result
        self.metric = metric
        self.duplicates = duplicates
        self.seconds = seconds
        self.datasets = result.datasets if result is not None else []

    def __len__(self) -> int:
        return len(self.entries)

    def formulas(self, top: int | None = None) -> list[str]:
        """The formulas, best first (``top`` of them: a positive integer, or None for
        all)."""
        if top is not None:
            top = check_integer(top, "top", 1, "3")
        return [e.formula for e in self.entries[:top]]

    def best(self, top: int = 1) -> list[Any]:
        """The ``top`` (a positive integer) best candidates as ``symnb.Activation``
        objects."""
        from .layers import resolve_activation

        top = check_integer(top, "top", 1, "3")
        return [resolve_activation(e.formula) for e in self.entries[:top]]

    def rank_of(self, formula: str) -> int:
        """1-based rank of a formula (as shown in the table)."""
        for i, e in enumerate(self.entries):
            if e.formula == formula:
                return i + 1
        # was KeyError('x*tanh(x)'): the formula alone, not what was wrong
        shown = ", ".join(repr(f) for f in self.formulas()[:5])
        more = ", ..." if len(self) > 5 else ""
        raise KeyError(
            f"{formula!r} is not on this leaderboard (formulas are matched as "
            f"written in formulas(): {shown}{more})"
        )

    def to_pandas(self):
        """One row per candidate: formula, latex, origin, score, per-data-set mean and
        std, status."""
        pd = require("pandas", "Leaderboard.to_pandas")

        rows = []
        for i, e in enumerate(self.entries):
            row = {"rank": i + 1, "formula": e.formula, "latex": e.latex}
            row["origin"], row["score"] = e.origin, e.score
            for d, (m, s) in e.scores.items():
                row[f"{d} mean"], row[f"{d} std"] = m, s
            row["status"] = e.status
            rows.append(row)
        # the columns named even without rows (an empty board's frame had no "rank")
        columns = ["rank", "formula", "latex", "origin", "score"]
        for d in self.datasets:
            columns += [f"{d} mean", f"{d} std"]
        columns += [k for row in rows for k in row if k != "status"]
        columns = [*dict.fromkeys(columns), "status"]
        return pd.DataFrame(rows, columns=columns).set_index("rank")

    def _summary(self) -> str:
        baselines = sum(e.origin == "baseline" for e in self.entries)
        return (
            f"{len(self.entries) - baselines} candidates and {baselines} baseline(s) "
            f"trained ({self.duplicates} duplicates skipped, {len(self.rejected)} "
            "rejected before training) in "
            f"{self.seconds:.1f} s; score: mean {self.metric} over "
            f"{', '.join(self.datasets)} and seeds"
        )

    def __repr__(self) -> str:
        lines = [self._summary()]
        for i, e in enumerate(self.entries):
            per = "  ".join(f"{d} {m:.4g}±{s:.2g}" for d, (m, s) in e.scores.items())
            lines.append(
                f"{i + 1:>3}. {e.score:.4g}  {e.formula}  [{per}]"
                + (f"  ({e.origin})" if e.origin != "search" else "")
                + (f"  {e.status}" if e.status != "ok" else "")
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        heads = ["#", "formula", "f(x)", "score", *self.datasets, "status"]
        head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
        body = []
        for i, e in enumerate(self.entries):
            cells = [
                str(i + 1),
                html.escape(e.formula)
                + (f" <i>({e.origin})</i>" if e.origin != "search" else ""),
                f"${html.escape(e.latex)}$",
                "-" if math.isnan(e.score) else f"{e.score:.4g}",
            ]
            for d in self.datasets:
                m, s = e.scores.get(d, (math.nan, math.nan))
                cells.append("-" if math.isnan(m) else f"{m:.4g} ± {s:.2g}")
            cells.append(html.escape(e.status))
            body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        return (
            f"<p>{html.escape(self._summary())}</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody>"
            "</table>"
        )


# ----------------------------------------------------------------- the search


def _check_formulas(include: Any) -> list[str]:
    """``include`` as a list of formula texts that parse (as ``symnb.Activation``
    reads them: ``gelu(x)`` calls the library's gelu); a ``TypeError`` for a bare
    string or an item that is no text, a ``ValueError`` naming the formula that does
    not parse and why."""
    texts = check_list(include, "include", '["x*tanh(x)"]', ordered=True)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(
                f"include[{i}] must be a formula text in x such as 'x*tanh(x)', got "
                f"{text!r}"
            )
        try:
            canonical(text)
        except FormulaError as exc:
            raise ValueError(
                f"include[{i}]={text!r} is not a formula the search can train: {exc}"
            ) from exc
    return texts


def _check_baselines(baselines: Any) -> list[Any]:
    """``baselines`` as a list of library names, formula texts or Activations, each
    checked (a ``TypeError``/``ValueError`` naming the one that is wrong)."""
    from .layers import activation_key, resolve_activation

    acts = check_list(baselines, "baselines", '["relu"]', ordered=True)
    seen: dict[tuple, int] = {}
    for i, act in enumerate(acts):
        try:
            key = activation_key(resolve_activation(act))
        except ValueError as exc:
            raise ValueError(f"baselines[{i}]={act!r}: {exc}") from exc
        except TypeError as exc:
            raise TypeError(f"baselines[{i}]={act!r}: {exc}") from exc
        if key in seen:  # it was trained twice and listed twice on the board
            raise ValueError(
                f"baselines[{i}]={act!r} repeats baselines[{seen[key]}]="
                f"{acts[seen[key]]!r}: the same activation gives the same runs; "
                "give each baseline once"
            )
        seen[key] = i
    return acts


def _baseline_identities(baselines: list[Any]) -> dict[str, str]:
    """Canonical key (:func:`_identity`) -> the baseline's name, for the baselines
    without constants (a formula with constants is another function for other
    values; it is left out, so it never hides a candidate)."""
    from .layers import _learnable_of, resolve_activation

    out: dict[str, str] = {}
    for act in baselines:
        resolved = resolve_activation(act)
        if resolved is None or resolved.constants or _learnable_of(resolved):
            continue
        try:
            key = _identity(canonical(resolved.text))
        except FormulaError:  # a text only the Activation reads (kept apart)
            continue
        out.setdefault(key, f"the baseline {getattr(act, 'name', act)!r}")
    return out


def _not_trained(text: str, formula: str, problem: str) -> str:
    """The warning for an included formula that the search's checks reject: it is
    not trained (by design: the leaderboard ranks what passes the checks the drawn
    candidates pass, so that scores compare like with like), but not silently."""
    shown = repr(text) if text == formula else f"{text!r} (= {formula!r})"
    return (
        f"search: include={shown} is not trained: {problem}. The search trains "
        "only formulas that pass the checks its own candidates pass (non-constant, "
        "non-linear, float32_problem); to train it anyway use "
        f"symnb.nn.compare([{formula!r}], ...)"
    )


def _check_blocks(given: Iterable[str], table: dict[str, str], what: str) -> list[str]:
    blocks = check_list(given, what, f"[{next(iter(table))!r}]", ordered=True)
    unknown = [b for b in blocks if b not in table]
    if unknown or not blocks:
        raise ValueError(
            f"{what}: unknown block(s) {unknown}; choose from {', '.join(table)}"
            if unknown
            else f"{what}: give at least one block"
        )
    return blocks


def search(
    dataset: Any,
    budget: int | None = None,
    *,
    time_budget: float | None = None,
    strategy: str = "evolution",
    seeds: Iterable[int] = (0, 1, 2),
    seed: int = 0,
    unary: Iterable[str] = tuple(UNARY),
    binary: Iterable[str] = tuple(BINARY),
    units: Sequence[int] = (1, 2),
    population: int = 8,
    include: Iterable[str] = (),
    baselines: Iterable[str] = ("relu",),
    hidden: Sequence[int] = (16,),
    epochs: int = 30,
    client: Any = None,
    store: Any = None,
    progress: bool = True,
    **options: Any,
) -> Leaderboard:
    """Search for activations on ``dataset`` (one or several, as ``compare`` takes).

    Parameters
    ----------
    budget:
        training runs to spend on candidates (each costs one run per data set and
        seed); default: 24 candidates' worth. Baselines are trained on top.
    time_budget:
        seconds (>= 0); no new batch starts after it (the search is then
        reproducible only up to where it stopped).
    strategy:
        ``"random"`` (independent draws) or ``"evolution"`` (tournament of three
        over all trained candidates, then one block mutated).
    seeds, seed:
        training seeds of every candidate; ``seed`` (an integer >= 0) fixes the
        draws.
    unary, binary, units:
        the building blocks (names in :data:`UNARY`, :data:`BINARY`) and the allowed
        numbers of core units (1: ``b(u1(x), u2(x))``; 2: one more unit on top).
    population:
        candidates per batch (one batch = one generation).
    include, baselines:
        lists, trained first: ``include`` formula texts in ``x`` compete (read as
        ``symnb.Activation`` reads them: ``"gelu(x) * tanh(x)"`` calls library and
        named activations); ``baselines`` (library names such as ``"relu"``, formula
        texts or ``Activation`` objects) are shown for reference. A bare string is a
        ``TypeError`` (write ``["x*tanh(x)"]``); an included formula that does not
        parse is a ``ValueError`` naming it, before any work. An included formula
        that parses but fails the checks every drawn candidate must pass (constant or
        linear, :func:`float32_problem`) is not trained, by design, so that the
        leaderboard compares like with like: a ``UserWarning`` names it and the
        reason (also in ``rejected``); train it with :func:`symnb.nn.compare`.
        A duplicate (same function as an earlier one) trains once, with a warning.
    hidden, epochs, options:
        the network and training, passed to :func:`symnb.nn.compare` (``lr``,
        ``batch_size``, ``optimizer``..., and ``runs_per_task`` with a client).
    client, store, progress:
        as for :func:`symnb.nn.compare`; one cluster and one store serve the whole
        search.
    """
    import symnb
    from symnb.checks import check_flag

    from .compare import (
        _split_datasets,
        check_options,
        check_seeds,
        compare,
    )
    from .store import RunStore, run_key
    from .sweep import _Progress, check_client, encode_activation, open_client

    if strategy not in ("random", "evolution"):
        raise ValueError(f"strategy must be 'random' or 'evolution', got {strategy!r}")
    unary = _check_blocks(unary, UNARY, "unary")
    binary = _check_blocks(binary, BINARY, "binary")
    if isinstance(units, (int, np.integer)) and not isinstance(units, bool):
        units = [units]
    units = [
        check_integer(u, "units", 1, "(1, 2)")
        for u in check_list(units, "units", "(1, 2)", wrap=False, ordered=True)
    ]
    if not units or any(u not in (1, 2) for u in units):
        raise ValueError(f"units must hold 1 and/or 2, got {units}")
    seeds = check_seeds(seeds, 1)  # ints >= 0, at least one
    progress = check_flag(progress, "progress")
    check_client(client)
    seed = check_integer(seed, "seed", 0, "0")
    population = check_integer(population, "population", 1, "8")
    if time_budget is not None and (
        isinstance(time_budget, bool)
        or not isinstance(time_budget, (int, float, np.number))
        or not time_budget >= 0  # NaN too
    ):
        raise ValueError(
            f"time_budget must be a number of seconds >= 0 or None, got "
            f"{time_budget!r}; e.g. time_budget=600"
        )
    include = _check_formulas(include)
    baselines = _check_baselines(baselines)
    if isinstance(store, RunStore):
        store.check_open()  # before check_options' trial fit
    classify = check_options(dataset, hidden, epochs, options)
    labels = [label for label, _ in _split_datasets(dataset)[0]]
    n_data = len(labels)
    per_candidate = n_data * len(seeds)
    if budget is None:
        budget = 24 * per_candidate
    budget = check_integer(budget, "budget", 1, f"{24 * per_candidate}")
    if budget < per_candidate:
        raise ValueError(
            f"budget={budget} runs is less than one candidate ({per_candidate} runs: "
            f"{n_data} data set(s) x {len(seeds)} seed(s))"
        )
    max_candidates = budget // per_candidate
    rng = np.random.default_rng(seed)
    started = time.perf_counter()

    # canonical key -> what it is, as messages name it; the baselines first: an
    # included or drawn formula equal to one (``max(x, 0)`` and the baseline relu)
    # trained a second time under another name, and the board listed the same
    # function twice without a word
    seen: dict[str, str] = _baseline_identities(baselines)
    rejected: list[tuple[str, str]] = []
    trees: dict[str, tuple] = {}  # formula -> tree (for mutation)
    duplicates = 0
    not_trained: list[str] = []  # why an included formula is not trained
    given: dict[str, str] = {}  # included formula -> the text as given

    def propose(text: str, included: bool = False) -> str | None:
        """The canonical formula of a new, non-trivial candidate, or None (an
        included formula: with a warning saying why)."""
        nonlocal duplicates
        import sympy as sp

        try:
            expr = canonical(text)
        except symnb.FormulaError as exc:
            rejected.append((text, f"does not parse: {exc}"))
            return None
        key = _identity(expr)
        if key in seen:
            duplicates += 1
            if included:
                not_trained.append(
                    f"search: include={text!r} is the same function as "
                    f"{seen[key]}, trained once"
                )
            return None
        formula = sp.sstr(expr)
        seen[key] = repr(formula)
        problem = _structural_problem(expr)
        if problem is not None:
            rejected.append((formula, problem))
            if included:
                not_trained.append(_not_trained(text, formula, problem))
            return None
        if included:
            given[formula] = text
        return formula

    def admit(formulas: list[str], included: bool = False) -> list[tuple[str, Any]]:
        """(formula, Activation) of those that pass the checks (run on the cluster
        when there is one: the accuracy analysis costs up to a second each; here for
        a formula calling activations named in this process, which workers lack)."""
        named = compose.registered()
        uses = {f: compose.used_names(f, named) for f in formulas}
        keys = {}
        for f in formulas:
            spec: dict[str, Any] = {"check": f, "symnb": symnb.__version__}
            if uses[f]:  # a name means its definition: part of the key
                spec["uses"] = encode_activation(list(uses[f].values()))
            keys[f] = run_key(spec)
        known = run_store.get_checks(keys) if run_store is not None else {}
        todo = [f for f in formulas if f not in known]
        remote = [f for f in todo if not uses[f]]
        problems: dict[str, str | None] = {}
        if client_obj is not None and len(remote) > 1:
            futures = client_obj.map(check_formula, remote, pure=False)
            problems = dict(zip(remote, client_obj.gather(futures)))
        problems.update({f: check_formula(f) for f in todo if f not in problems})
        if run_store is not None:
            for f in todo:
                run_store.put_check(keys[f], f, problems[f])
        problems.update(known)
        out = []
        for formula in formulas:
            problem = problems[formula]
            if problem is None:
                try:
                    out.append((formula, symnb.Activation(formula, name=formula)))
                    continue
                except symnb.SymnbError as exc:
                    problem = f"{type(exc).__name__}: {exc}"
            rejected.append((formula, problem))
            if included:
                not_trained.append(_not_trained(given[formula], formula, problem))
        return out

    def draw(count: int, scores: dict[str, float], higher: bool) -> list[tuple]:
        out: list[tuple] = []
        misses = 0
        while len(out) < count and misses < 200:
            proposals: list[tuple[str, tuple]] = []
            while len(out) + len(proposals) < count and misses < 200:
                # parents: drawn candidates (``include`` formulas have no block tree)
                drawn = [f for f in scores if f in trees]
                if strategy == "evolution" and len(drawn) >= 2:
                    ranked = [f for f in drawn if not math.isnan(scores[f])]
                    pool = ranked or drawn
                    picks = rng.choice(len(pool), size=min(3, len(pool)), replace=False)
                    parent = max(
                        (pool[i] for i in picks),
                        key=lambda f: (
                            _nan_low(scores[f], higher) * (1 if higher else -1)
                        ),
                    )
                    tree = _mutate(trees[parent], rng, unary, binary)
                else:
                    tree = _random_candidate(rng, unary, binary, units)
                formula = propose(_text(tree))
                if formula is None:
                    misses += 1
                    continue
                misses = 0
                proposals.append((formula, tree))
            trees_of = dict(proposals)
            for formula, act in admit([f for f, _ in proposals]):
                trees[formula] = trees_of[formula]
                out.append((formula, act))
        return out

    # the store first: opened after the client, a store that failed to open left
    # the cluster of client="local" running
    run_store = (
        RunStore(store)
        if store is not None and not isinstance(store, RunStore)
        else store
    )
    client_obj, close_client = (None, lambda: None)
    entries: list[_Entry] = []
    results = []
    scores: dict[str, float] = {}
    bar = None
    try:
        if client is not None:
            client_obj, close_client = open_client(client)
        first: list[tuple[str, Any, str]] = [
            (getattr(act, "name", act), act, "baseline") for act in baselines
        ]
        proposed = [propose(text, included=True) for text in include]
        for formula, act in admit([f for f in proposed if f is not None], True):
            first.append((formula, act, "include"))
        for message in not_trained:
            warnings.warn(message, UserWarning, stacklevel=2)
        bar = _Progress(
            (len(first) + max_candidates) * per_candidate, 0, progress, True
        )
        trained = 0
        batch: list[tuple[str, Any, str]] = first
        higher = classify
        while True:
            candidates = sum(1 for b in batch if b[2] != "baseline")
            if batch:
                if trained + candidates > max_candidates:
                    batch = batch[
                        : len(batch) - (trained + candidates - max_candidates)
                    ]
                result = compare(
                    {name: act for name, act, _ in batch},
                    dataset,
                    seeds=seeds,
                    hidden=hidden,
                    epochs=epochs,
                    client=client_obj,
                    store=run_store,
                    progress=bar,
                    **options,
                )
                results.append(result)
                higher = "accuracy_mean" in result.rows[0]
                metric = "accuracy" if higher else "loss"
                batch_scores = result.scores(metric)
                for name, act, origin in batch:
                    entries.append(_entry(name, act, origin, result, metric))
                    if origin != "baseline":
                        scores[name] = batch_scores[name]
                trained += sum(1 for b in batch if b[2] != "baseline")
            if trained >= max_candidates:
                break
            if time_budget is not None and time.perf_counter() - started > time_budget:
                break
            batch = [
                (f, a, "search")
                for f, a in draw(
                    min(population, max_candidates - trained), scores, higher
                )
            ]
            if not batch:  # the space is exhausted: said, not only counted
                warnings.warn(
                    f"search: the building blocks give no new candidate (200 draws "
                    f"in a row were duplicates or failed the checks), so "
                    f"{trained} of the {max_candidates} candidates the budget allows "
                    "were trained; widen unary=, binary= or units= for more",
                    UserWarning,
                    stacklevel=2,
                )
                break
    finally:
        if bar is not None:
            bar.close()
        close_client()
        if run_store is not None and run_store is not store:
            run_store.close()
    merged = _merge(results)
    board = Leaderboard(
        entries,
        rejected,
        merged,
        "accuracy" if higher else "loss",
        duplicates,
        time.perf_counter() - started,
    )
    board.datasets = board.datasets or labels  # nothing trained: still named
    return board


def _nan_low(value: float, higher: bool) -> float:
    if math.isnan(value):
        return -math.inf if higher else math.inf
    return value


def _entry(name: str, act: Any, origin: str, result: Any, metric: str) -> _Entry:

    key = f"{metric}_mean"
    per: dict[str, tuple[float, float]] = {}
    rows = [r for r in result.rows if r["activation"] == name]
    for row in rows:
        per[row.get("dataset", result.datasets[0])] = (
            row[key],
            row[f"{metric}_std"],
        )
    means = [m for m, _ in per.values()]
    score = (
        float(np.mean(means))
        if means and not any(map(math.isnan, means))
        else (math.nan)
    )
    failed = sum(r["failed"] for r in rows)
    diverged = sum(r["diverged"] for r in rows)
    if failed:
        status = next(r["error"] for r in rows if r["error"])
    elif diverged:
        status = f"diverged in {diverged} run(s)"
    else:
        status = "ok"
    if isinstance(act, str):
        from .layers import resolve_activation

        act = resolve_activation(act)
    # the activation's own LaTeX (numerical-only branches folded, symnb's spellings)
    return _Entry(name, act.latex, origin, per, score, status)


def _merge(results: list[Any]) -> Any:
    from .compare import CompareResult

    if not results:
        return None
    first = results[0]
    rows = [row for r in results for row in r.rows]
    runs = [run for r in results for run in r.runs]
    return CompareResult(
        rows, runs, first.target_metric, first.target, datasets=first.datasets
    )
