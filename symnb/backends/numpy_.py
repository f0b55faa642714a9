"""NumPy backend: ``sympy.lambdify`` kernels, vectorised, for every kind of kernel.

Works everywhere. Heterogeneous layers are grouped by activation: one vectorised call per
distinct formula (not per neuron). Exact numbers (``sqrt(2)``, ``pi``) are turned into Python
floats before printing so float32 inputs stay float32 (NumPy scalars would upcast).
float32 transcendental calls (exp, log, tanh, sin, ...) are computed in float64 and rounded
once: NumPy's own float32 loops are 1.4-2.4 ulps at worst, worse than PyTorch's (issue 8).
``erf`` comes from SciPy when it is installed, else from a vectorised float32-accurate
implementation (float64 then falls back to ``math.erf`` per element, slow but exact).
"""

from __future__ import annotations

import functools
import math
import threading
import time
from functools import lru_cache
from typing import Any

import numpy as np
import sympy as sp
from sympy.printing.numpy import NumPyPrinter

from symnb.backends import numpy_gamma
from symnb.backends.base import BackendStatus, Program
from symnb.codegen.printer import KEEP_ARGUMENT, ProductsAsKernels
from symnb.codegen.rare import rare_condition, split_rare
from symnb.forksafe import instance_lock
from symnb.formula.internal import InternalForm

# ------------------------------------------------------------------ stable helpers


def _widened(fn: Any) -> Any:
    """``fn`` computed in float64 for float32 arrays, rounded to float32 once."""

    def call(u: Any) -> Any:
        if isinstance(u, (np.ndarray, np.floating)) and u.dtype == np.float32:
            return np.asarray(fn(u.astype(np.float64))).astype(np.float32)
        return fn(u)

    call.__name__ = f"wide_{fn.__name__}"
    return call


def _sigmoid(u: Any) -> Any:
    u = np.asarray(u)
    e = np.exp(-np.abs(u))
    return np.where(u >= 0, 1 / (1 + e), e / (1 + e))


def _softplus(u: Any) -> Any:
    u = np.asarray(u)
    return np.maximum(u, 0) + np.log1p(np.exp(-np.abs(u)))


def _logsigmoid(u: Any) -> Any:
    """-|min(u, 0) - log1p(exp(-|u|))|: logsigmoid is negative, also where it
    underflows (-0.0, not 0.0, so x/logsigmoid(u) keeps the sign of its infinity)."""
    u = np.asarray(u)
    return -np.abs(np.minimum(u, 0) - np.log1p(np.exp(-np.abs(u))))


def _heaviside(u: Any, h0: Any = 0.0) -> Any:
    """Heaviside step with value ``h0`` at 0 (``numpy.heaviside``), in ``u``'s dtype."""
    u = np.asarray(u)
    dtype = u.dtype if u.dtype.kind == "f" else np.float64
    return np.heaviside(u, np.asarray(h0, dtype=dtype))


def _erf_fallback(u: Any) -> Any:
    """erf without SciPy: series near 0, Abramowitz-Stegun 7.1.26 elsewhere (float32)."""
    u = np.asarray(u)
    if u.dtype == np.float64:
        return np.vectorize(math.erf, otypes=[np.float64])(u)
    a = np.abs(u)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592
        + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    big = 1.0 - poly * np.exp(-a * a)
    a2 = a * a
    small = a * (
        1.1283791670955126
        * (1 - a2 / 3 * (1 - a2 * 3 / 10 * (1 - a2 * 5 / 21 * (1 - a2 * 7 / 36))))
    )
    r = np.where(a < 0.5, small, big).astype(u.dtype, copy=False)
    return np.copysign(r, u)


def _erf_impl():
    try:
        from scipy.special import erf, erfc

        return erf, erfc
    except ImportError:
        return _erf_fallback, lambda u: 1 - _erf_fallback(u)


_ERF, _ERFC = _erf_impl()


def _erfcx_fallback(u: Any) -> Any:
    """exp(u^2)*erfc(u) without SciPy: as typed up to u = 4, past it the continued
    fraction of symnb.formula.log_erfc (both in float64)."""
    v = np.asarray(u, dtype=np.float64)
    with np.errstate(all="ignore"):
        out = np.asarray(_erfcx_fallback_fn()(v))
    return out.astype(np.result_type(u, np.float32), copy=False)


@functools.cache
def _erfcx_fallback_fn() -> Any:
    from symnb.formula.erfcx import piecewise_erfcx

    s = sp.Symbol("s", real=True)
    return sp.lambdify(s, piecewise_erfcx(s), modules=[{"erfc": _ERFC}, "numpy"])


def _exp_square(v: np.ndarray) -> np.ndarray:
    """exp(v^2) of float64 v, with v^2 = h + l exactly (Dekker's product) and exp(h +
    l) = exp(h)(1 + l): exp(fl(v^2)) is off by v^2 rounding errors (SciPy's erfcx, 474
    ulps at -23.7)."""
    h = v * v
    c = v * 134217729.0  # 2^27 + 1: Veltkamp's split v = hi + lo
    hi = c - (c - v)
    lo = v - hi
    l = ((hi * hi - h) + 2 * hi * lo) + lo * lo
    return np.exp(h) * (1 + l)


def _scipy_erfcx(erfcx):
    """SciPy's erfcx for u > 0; erfc(u) exp(u^2) (exact square) for u <= 0."""

    def fn(u: Any) -> Any:
        v = np.asarray(u, dtype=np.float64)
        with np.errstate(all="ignore"):
            neg = np.where(v < -27.0, np.inf, _ERFC(v) * _exp_square(v))
            out = np.where(v > 0, erfcx(v), neg)
        return out.astype(np.result_type(u, np.float32), copy=False)

    return fn


def _erfcx_impl():
    try:
        from scipy.special import erfcx

        return _scipy_erfcx(erfcx)
    except ImportError:
        return _erfcx_fallback


_ERFCX = _erfcx_impl()


@functools.cache
def _tail_polynomials() -> tuple[np.ndarray, np.ndarray]:
    from symnb.formula.log_erfc import _tail_coefficients

    p, q = _tail_coefficients()
    return (
        np.array([float(c) for c in p[::-1]]),
        np.array([float(c) for c in q[::-1]]),
    )


#: 1/sqrt(pi), erfcx's limit of u*erfcx(u) at +inf
_RSQRTPI = 1 / math.sqrt(math.pi)


def _ierfcx(u: Any) -> Any:
    """1/sqrt(pi) - u*erfcx(u) (erfcx' = -2 ierfcx) in float64: as written up to u = 4,
    past it (1/sqrt(pi)) t P(t)/(Q(t) + t P(t)), t = 1/u^2 (no cancellation)."""
    v = np.asarray(u, dtype=np.float64)
    p, q = _tail_polynomials()
    with np.errstate(all="ignore"):
        near = _RSQRTPI - v * _ERFCX(v)
        t = 1.0 / (v * v)
        tp = t * np.polyval(p, t)
        far = _RSQRTPI * tp / (np.polyval(q, t) + tp)
        out = np.where(v <= 4.0, near, far)
    return out.astype(np.result_type(u, np.float32), copy=False)


def _real_power(b: Any, q: Any) -> Any:
    """b**q for a non-integer q: NaN for every b < 0, -inf included. NumPy's
    power follows IEEE pow, which gives +0 or +inf at b = -inf (acos(x)' =
    -(1 - x**2)**-0.5 was -0.0 for |x| > 1.8e19 in float32 where x**2 overflows,
    NaN below; the C kernels' roots were NaN there)."""
    with np.errstate(invalid="ignore"):
        r = np.power(b, q)
        # a constant's symbol may hold an integer (x**c at c = 2: +inf at -inf)
        negative = np.less(b, 0) & (np.floor(q) != q)
    return np.where(negative, np.nan, r).astype(r.dtype, copy=False)


# SymPy class name -> NumPy ufunc computed wide for float32 (one rounding)
_WIDE = {
    "exp": np.exp,
    "log": np.log,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "atan": np.arctan,
    "asinh": np.arcsinh,
}

NAMESPACE: dict[str, Any] = {
    "functools": functools,
    "sigmoid": _widened(_sigmoid),
    "softplus": _widened(_softplus),
    "logsigmoid": _widened(_logsigmoid),
    **{f"wide_{name}": _widened(fn) for name, fn in _WIDE.items()},
    "heaviside0": _heaviside,
    "real_power": _real_power,
    "heaviside": _heaviside,
    "erf": _ERF,
    "erfc": _ERFC,
    "erfcx": _ERFCX,
    "ierfcx": _ierfcx,
    "log1p": _widened(np.log1p),
    "expm1": _widened(np.expm1),
    **numpy_gamma.FUNCTIONS,
}


class ConditionsAsWritten:
    """Print ``ITE`` conditions as selects instead of simplifying them first.

    SymPy writes a comparison of a Piecewise (``where(abs(log(cosh(u))) < c, ...)``
    with the stable log-cosh branches) as an ``ITE``, and SymPy's NumPy printer hands
    every condition holding one to ``simplify_logic``, which simplified each relational
    with trigsimp: one such loss took 56-106 s to compile on the numpy backend. The
    ITE is printed as it is, ``where(c, a, b)`` (the C printer's ``c ? a : b``)."""

    def _print_ITE(self, expr: sp.Expr) -> str:
        c, a, b = (self._print(arg) for arg in expr.args)
        return f"{self._module_format(self._module + '.where')}({c}, {a}, {b})"

    def _print_And(self, expr: sp.Expr) -> str:
        return self._binary_chain(expr, "logical_and")

    def _print_Or(self, expr: sp.Expr) -> str:
        return self._binary_chain(expr, "logical_or")

    def _binary_chain(self, expr: sp.Expr, name: str) -> str:
        """``logical_and(a, logical_and(b, c))``: SymPy's ``logical_and.reduce((a,
        b))`` stacks its operands into one array, which fails ("inhomogeneous shape")
        when one is a scalar (a condition on a constant: ``(a > 0.5) & (x > 1)``)."""
        fn = self._module_format(f"{self._module}.{name}")
        *rest, last = (self._print(arg) for arg in expr.args)
        text = last
        for arg in reversed(rest):
            text = f"{fn}({arg}, {text})"
        return text

    def _print_Piecewise(self, expr: sp.Piecewise) -> str:
        exprs = ",".join(self._print(arg.expr) for arg in expr.args)
        conds = ",".join(self._print(arg.cond) for arg in expr.args)
        select = self._module_format(self._module + ".select")
        return f"{select}([{conds}], [{exprs}], default={self._print(sp.nan)})"


class _Printer(ProductsAsKernels, ConditionsAsWritten, NumPyPrinter):
    """NumPy printer with symnb's helpers and conventions (Heaviside(u, h0), stable fns)."""

    def _print_Heaviside(self, expr: sp.Heaviside) -> str:
        # H(0) is the second argument (symnb's Heaviside(u) is Heaviside(u, 0)); it was
        # dropped, so heaviside(x, 1) gave 0 at x = 0 here and 1 in the C kernels
        u = self._print(expr.args[0])
        h0 = expr.args[1] if len(expr.args) > 1 else sp.S.Zero
        if h0 == 0:
            return f"heaviside0({u})"
        return f"heaviside({u}, {self._print(h0)})"

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        q = expr.exp
        if q.is_Number and not q.is_Integer and q != sp.S.Half and q.is_finite:
            # a non-integer power of a negative base (-inf included) is NaN
            return f"real_power({self._print(expr.base)}, {self._print(q)})"
        if not q.is_Number and expr.base.is_nonnegative is not True:
            # a constant's symbol as the exponent: x**c at c = 0.5 was +inf at x = -inf
            # here (IEEE pow) and NaN in the C kernels and at every other x < 0
            return f"real_power({self._print(expr.base)}, {self._print(q)})"
        return super()._print_Pow(expr, rational=rational)

    def _print_sigmoid(self, expr: sp.Expr) -> str:
        return f"sigmoid({self._print(expr.args[0])})"

    def _print_softplus(self, expr: sp.Expr) -> str:
        return f"softplus({self._print(expr.args[0])})"

    def _print_logsigmoid(self, expr: sp.Expr) -> str:
        return f"logsigmoid({self._print(expr.args[0])})"

    def _print_log1p(self, expr: sp.Expr) -> str:
        return f"log1p({self._print(expr.args[0])})"

    def _print_expm1(self, expr: sp.Expr) -> str:
        return f"expm1({self._print(expr.args[0])})"

    def _print_erf(self, expr: sp.Expr) -> str:
        return f"erf({self._print(expr.args[0])})"

    def _print_erfc(self, expr: sp.Expr) -> str:
        return f"erfc({self._print(expr.args[0])})"

    def _print_erfcx(self, expr: sp.Expr) -> str:
        return f"erfcx({self._print(expr.args[0])})"

    def _print_ierfcx(self, expr: sp.Expr) -> str:
        return f"ierfcx({self._print(expr.args[0])})"

    def _print_gamma_family(self, expr: sp.Expr) -> str:
        return f"{type(expr).__name__}({self._print(expr.args[0])})"

    _print_lgamma = _print_tgamma = _print_gamma_family
    _print_digamma = _print_trigamma = _print_gamma_family


def _print_wide(self: _Printer, expr: sp.Expr) -> str:
    return f"wide_{type(expr).__name__}({self._print(expr.args[0])})"


for _name in _WIDE:
    setattr(_Printer, f"_print_{_name}", _print_wide)


def floatify(expr: sp.Expr) -> sp.Expr:
    """Exact non-integer numbers -> Floats, keeping integer exponents integral."""

    def conv(e: sp.Expr, keep_rationals: bool = False) -> sp.Expr:
        if e.is_Number or isinstance(e, sp.NumberSymbol):
            if e.is_Integer or (keep_rationals and e.is_Rational):
                return e
            return sp.Float(sp.N(e, 17), 17)
        if not e.args:
            return e
        if (
            not e.free_symbols
            and e.is_real
            and not isinstance(e, sp.logic.boolalg.Boolean)
        ):
            try:
                return sp.Float(sp.N(e, 17), 17)
            except (TypeError, ValueError):
                pass
        if isinstance(e, sp.Pow) and e.exp.is_Integer:
            return sp.Pow(conv(e.base), e.exp, evaluate=False)
        keep = keep_rationals or isinstance(e, KEEP_ARGUMENT)  # printed as 1/2
        return e.func(*[conv(a, keep) for a in e.args])

    return conv(expr)


def _needs_nan_guard(expr: sp.Expr, inputs: tuple[sp.Symbol, ...]) -> bool:
    """Piecewise selects and input-free results drop NaN inputs: those get a guard."""
    return expr.has(sp.Piecewise) or not (expr.free_symbols & set(inputs))


@lru_cache(maxsize=512)
def _lambdify(expr: sp.Expr, args: tuple[sp.Symbol, ...]):
    fn = sp.lambdify(
        args, floatify(expr), modules=[NAMESPACE, "numpy"], printer=_Printer
    )
    return fn


class _Rare:
    """A lambdified expression with rare far-|x| branches (:mod:`symnb.codegen.rare`):
    the near form over all elements, the whole one only over those where a rare
    condition holds (none: no second evaluation)."""

    def __init__(self, near: Any, condition: Any, whole: Any) -> None:
        self.near, self.condition, self.whole = near, condition, whole

    def __call__(self, x: Any, *consts: Any) -> Any:
        r = self.near(x, *consts)
        far = np.broadcast_to(self.condition(x, *consts), np.shape(x))
        if not far.any():
            return r
        r = np.array(np.broadcast_to(r, np.shape(x)))
        sub = [
            np.broadcast_to(c, np.shape(x))[far] if np.ndim(c) else c for c in consts
        ]
        r[far] = self.whole(x[far], *sub)
        return r


def _lambdify_rare(expr: sp.Expr, inputs: tuple, args: tuple) -> Any:
    """:func:`_lambdify`, or a :class:`_Rare` where ``expr`` has rare branches."""
    split = split_rare((expr,), inputs[0]) if len(inputs) == 1 else None
    if split is None:
        return _lambdify(expr, args)
    (near,), conditions = split
    return _Rare(
        _lambdify(near, args),
        _lambdify(rare_condition(conditions), args),
        _lambdify(expr, args),
    )


class _Compiled:
    """Lambdified f, df and dc_k of one form, with the NaN guard where needed.

    ``whole``: makes the forms of the whole program with their constants' gradients
    lowered, called when dc is first asked for; this form is number ``index`` there.
    None: ``form``'s own dparams."""

    def __init__(self, form: InternalForm, whole=None, index: int = 0) -> None:
        self._ins = tuple(form.inputs)
        self._args = self._ins + tuple(form.params)
        self.form = form
        self.n_constants = len(form.params)
        self.f = _lambdify_rare(form.f, self._ins, self._args)
        self.df = _lambdify_rare(form.df, self._ins, self._args)
        self.guard_f = _needs_nan_guard(form.f, self._ins)
        self.guard_df = _needs_nan_guard(form.df, self._ins)
        self._whole, self._index = whole, index
        self._dc: tuple[list, list] | None = None
        self._dc_lock = instance_lock(self, "_dc_lock", threading.Lock)  # forksafe

    @property
    def gradient_form(self) -> InternalForm:
        """The form whose dparams dc computes (same inputs and constants as ``form``)."""
        return self.form if self._whole is None else self._whole()[self._index]

    def _dc_pair(self) -> tuple[list, list]:
        with self._dc_lock:
            if self._dc is None:
                dparams = self.gradient_form.dparams
                self._dc = (
                    [_lambdify_rare(d, self._ins, self._args) for d in dparams],
                    [_needs_nan_guard(d, self._ins) for d in dparams],
                )
            return self._dc

    @property
    def dc(self) -> list:
        """The constants' gradients, lambdified on first use."""
        return self._dc_pair()[0]

    @property
    def guard_dc(self) -> list:
        return self._dc_pair()[1]

    @staticmethod
    def run(fn, guard: bool, inputs: tuple, consts: list, out: np.ndarray) -> None:
        """``out[...] = fn(*inputs, *consts)``, in blocks of about :data:`BLOCK`
        elements: the whole array at once held one temporary of its size per
        operation of the formula (mish: about ten), so an array that fit memory
        several times over (2**31 elements: 8 GiB in, 8 GiB out) made the system kill
        the process. The formulas are elementwise, so each block gives the same
        values as the whole."""
        for block in _blocks(out, inputs, consts):
            _Compiled._run_block(fn, guard, *block)

    @staticmethod
    def _run_block(fn, guard: bool, inputs: tuple, consts: list, out) -> None:
        with np.errstate(all="ignore"):
            r = fn(*inputs, *consts)
            if guard:
                bad = np.isnan(inputs[0])
                for extra in inputs[1:]:
                    bad = bad | np.isnan(extra)
                r = np.where(bad, np.nan, r)
        out[...] = r


#: Elements per NumPy pass of a lambdified formula (see :meth:`_Compiled.run`).
BLOCK = 1 << 18


def _blocks(out: np.ndarray, inputs: tuple, consts: list):
    """``(inputs, consts, out)`` for consecutive blocks of about :data:`BLOCK`
    elements: flat slices where the constants are scalars, whole rows where they
    hold one value per column (a heterogeneous layer), else everything at once."""
    n = out.size
    arrays = (out, *inputs)
    if n <= BLOCK or any(a.shape != out.shape for a in inputs):
        yield inputs, consts, out
    elif all(np.ndim(c) == 0 for c in consts) and all(
        a.flags.c_contiguous for a in arrays
    ):
        flat = [a.reshape(-1) for a in arrays]
        for s in range(0, n, BLOCK):
            part = [a[s : s + BLOCK] for a in flat]
            yield tuple(part[1:]), consts, part[0]
    elif out.ndim == 2 and all(np.ndim(c) <= 1 for c in consts):
        rows = max(1, BLOCK // max(1, out.shape[1]))
        for s in range(0, out.shape[0], rows):
            yield tuple(a[s : s + rows] for a in inputs), consts, out[s : s + rows]
    else:
        yield inputs, consts, out


def _listing(forms: tuple[InternalForm, ...]) -> str:
    lines = ["# numpy backend: lambdified expressions (internal symbols)"]
    for i, form in enumerate(forms):
        printer = _Printer()
        lines.append(f"# form {i}: {form.name}")
        lines.append(f"f  = {printer.doprint(floatify(form.f))}")
        lines.append(f"df = {printer.doprint(floatify(form.df))}")
        for k, d in enumerate(form.dparams):
            lines.append(f"dc{k} = {printer.doprint(floatify(d))}")
    return "\n".join(lines) + "\n"


def _product(a: Any, b: Any, out: np.ndarray) -> None:
    """``out = a * b`` without NumPy's "invalid value encountered in multiply" for
    0 * inf (f'(x) = 0 against an infinite grad): the result is NaN, as the cpp and
    cuda kernels give it, silently."""
    with np.errstate(all="ignore"):
        np.multiply(a, b, out=out)


def _scratch_if_aliased(out: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``out`` itself, or a scratch array when ``out`` is (a view of) ``g``."""
    return np.empty_like(out) if np.shares_memory(out, g) else out


class NumpyProgram(Program):
    """Program of the numpy backend (see docs/CONTRACTS.md section 3)."""

    backend = "numpy"

    def __init__(
        self, forms: tuple[InternalForm, ...], kind: str, dtype: str, whole=None
    ) -> None:
        t0 = time.perf_counter()
        self.kind = kind
        self.dtype = np.dtype(dtype)
        self.compiled = [_Compiled(f, whole, i) for i, f in enumerate(forms)]
        self.compile_seconds = time.perf_counter() - t0
        self.cache_hit = False
        self.device = None
        self._group_cache: dict[bytes, list] = {}

    @property
    def source(self) -> str:
        """The lambdified expressions (the constants' gradients as dc computes them)."""
        return _listing(tuple(c.gradient_form for c in self.compiled))

    # -- elementwise --------------------------------------------------------------
    def _consts(self, params: np.ndarray) -> list:
        return [params[k] for k in range(len(params))]

    def forward(self, x, y, params):
        c = self.compiled[0]
        c.run(c.f, c.guard_f, (x,), self._consts(params), y)

    def backward(self, x, g, dx, params):
        c = self.compiled[0]
        d = _scratch_if_aliased(dx, g)  # f' must not overwrite g before the product
        c.run(c.df, c.guard_df, (x,), self._consts(params), d)
        _product(d, g, dx)

    def forward_derivative(self, x, y, dy, params):
        c = self.compiled[0]
        consts = self._consts(params)
        # Each pass reads all of x before writing: the pass writing into x goes last.
        order = [(c.f, c.guard_f, y), (c.df, c.guard_df, dy)]
        if np.shares_memory(y, x):
            order.reverse()
        for fn, guard, out in order:
            c.run(fn, guard, (x,), consts, out)

    def forward_backward(self, x, g, y, dx, params):
        c = self.compiled[0]
        consts = self._consts(params)
        # y and dx may each be x or g: compute into scratch where an output would
        # overwrite an input that a later pass still reads
        fy = _scratch_if_aliased(_scratch_if_aliased(y, x), g)
        c.run(c.f, c.guard_f, (x,), consts, fy)
        d = _scratch_if_aliased(_scratch_if_aliased(dx, x), g)
        c.run(c.df, c.guard_df, (x,), consts, d)
        _product(d, g, d)
        if fy is not y:
            y[...] = fy
        if d is not dx:
            dx[...] = d

    def constant_gradient(self, x, g, params):
        c = self.compiled[0]
        consts = self._consts(params)
        out = np.zeros(c.n_constants, dtype=np.float64)
        tmp = np.empty_like(x)
        for k, (fn, guard) in enumerate(zip(c.dc, c.guard_dc)):
            c.run(fn, guard, (x,), consts, tmp)
            out[k] = np.dot(
                tmp.ravel().astype(np.float64), g.ravel().astype(np.float64)
            )
        return out

    # -- heterogeneous layer --------------------------------------------------------
    def _groups(self, ids: np.ndarray, offsets: np.ndarray) -> list:
        key = ids.tobytes() + b"|" + offsets.tobytes()
        groups = self._group_cache.get(key)
        if groups is None:
            groups = []
            for form_id in np.unique(ids):
                cols = np.flatnonzero(ids == form_id)
                whole = len(cols) == len(ids)
                groups.append((int(form_id), cols, offsets[cols], whole))
            if len(self._group_cache) > 64:
                self._group_cache.clear()
            self._group_cache[key] = groups
        return groups

    def _layer_apply(self, which: str, x, out, ids, offsets, params):
        for form_id, cols, offs, whole in self._groups(ids, offsets):
            c = self.compiled[form_id]
            fn, guard = (c.f, c.guard_f) if which == "f" else (c.df, c.guard_df)
            consts = [params[offs + k] for k in range(c.n_constants)]
            if whole:
                c.run(fn, guard, (x,), consts, out)
            else:
                tmp = np.empty((x.shape[0], len(cols)), dtype=x.dtype)
                c.run(fn, guard, (x[:, cols],), consts, tmp)
                out[:, cols] = tmp

    def layer_forward(self, x, y, ids, offsets, params):
        self._layer_apply("f", x, y, ids, offsets, params)

    def layer_backward(self, x, g, dx, ids, offsets, params):
        d = _scratch_if_aliased(dx, g)
        self._layer_apply("df", x, d, ids, offsets, params)
        _product(d, g, dx)

    def layer_forward_derivative(self, x, y, dy, ids, offsets, params):
        order = [("f", y), ("df", dy)]
        if np.shares_memory(y, x):  # the pass writing into x goes last
            order.reverse()
        for which, out in order:
            self._layer_apply(which, x, out, ids, offsets, params)

    def layer_constant_gradient(self, x, g, ids, offsets, params):
        out = np.zeros(len(params), dtype=np.float64)
        for form_id, cols, offs, _whole in self._groups(ids, offsets):
            c = self.compiled[form_id]
            consts = [params[offs + k] for k in range(c.n_constants)]
            xs = x[:, cols]
            gs = g[:, cols].astype(np.float64)
            tmp = np.empty_like(xs)
            for k, (fn, guard) in enumerate(zip(c.dc, c.guard_dc)):
                c.run(fn, guard, (xs,), consts, tmp)
                out[offs + k] = np.einsum("ij,ij->j", tmp.astype(np.float64), gs)
        return out

    # -- loss -----------------------------------------------------------------------
    def loss_value(self, p, t, params):
        c = self.compiled[0]
        tmp = np.empty_like(p)
        c.run(c.f, c.guard_f, (p, t), self._consts(params), tmp)
        return float(np.sum(tmp, dtype=np.float64))

    def loss_gradient(self, p, t, g, params, scale):
        c = self.compiled[0]
        c.run(c.df, c.guard_df, (p, t), self._consts(params), g)
        _product(g, g.dtype.type(scale), g)


def probe() -> BackendStatus:
    """The numpy backend is always usable."""
    try:
        import scipy  # noqa: F401

        erf = "scipy.special.erf"
    except ImportError:
        erf = "built-in float32 approximation (install scipy for exact erf)"
    return BackendStatus("numpy", True, details={"numpy": np.__version__, "erf": erf})


def build(forms, kind: str, dtype: str, device=None, whole=None) -> NumpyProgram:
    """Build the numpy Program for ``forms``; ``whole``: makes the forms with the
    constants' gradients lowered, called when one is first asked for."""
    return NumpyProgram(tuple(forms), kind, dtype, whole)
