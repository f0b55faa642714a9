"""``Activation.to_numba``: scalar f and f' for ``numba.njit`` code and CUDA kernels.

The stable form is printed as scalar Python (``math`` functions, conditional
expressions) with symnb's helpers (stable sigmoid/softplus/logsigmoid, NaN-propagating
max/min, sign(0) = 0, Heaviside(u, h0) with its value h0 at 0), then compiled by numba: ``target="cpu"`` gives
``numba.njit`` functions, ``target="cuda"`` ``numba.cuda.jit(device=True)`` functions
to call from one's own ``@cuda.jit`` kernels. The derivative is symnb's (kinks and
surrogate gradients as on every backend); NaN in gives NaN out. Each function carries
its helpers as inner functions, so it is self-contained: ``numba.cuda.compile_ptx`` can
compile a dispatcher's ``py_func`` without a GPU.

Constants are trailing parameters named as the constants: ``f(x, beta, ...)`` in the
order of ``constant_names``, defaulting to the activation's values (``f(x)`` and
``f(x, beta=2.0)`` work too, from Python and inside ``njit`` code); a constant whose
name would shadow what the functions use (``x``, ``math``, a builtin such as ``float``,
``symnb_*``) is the parameter ``c<k>`` instead. ``bind(**values)`` gives
``f(x)``/``df(x)`` with other values baked in. The object itself can be used in
``njit`` code (``r.df(x)``, ``r.dconstants[0](x)``; ``symnb.interop.numba_typing``).
"""

from __future__ import annotations

import builtins
import math
import textwrap
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp
from sympy.printing.pycode import PythonCodePrinter

from symnb.backends.kernel import check_constants
from symnb.backends.numpy_ import floatify
from symnb.codegen.printer import ProductsAsKernels
from symnb.errors import FormulaError
from symnb.interop import require
from symnb.interop.literals import big_integer
from symnb.interop.options import choose
from symnb.interop.wide import wide_factors

TARGETS = ("cpu", "cuda")

_HELPERS = """
def symnb_sigmoid(u):
    e = math.exp(-abs(u))
    return 1.0 / (1.0 + e) if u >= 0 else e / (1.0 + e)

def symnb_softplus(u):
    return (u if u > 0 else 0.0) + math.log1p(math.exp(-abs(u)))

def symnb_logsigmoid(u):
    return (u if u < 0 else 0.0) - math.log1p(math.exp(-abs(u)))

def symnb_max(a, b):
    return a + b if (a != a or b != b) else (a if a > b else b)

def symnb_min(a, b):
    return a + b if (a != a or b != b) else (a if a < b else b)

def symnb_sign(u):
    return 1.0 if u > 0 else (-1.0 if u < 0 else u)

def symnb_heaviside(u, at0):
    return 1.0 if u > 0 else (at0 if u == 0 else 0.0)

def symnb_floor(u):
    if abs(u) < 4503599627370496.0:
        return math.copysign(float(math.floor(u)), u)
    return u

def symnb_ceil(u):
    if abs(u) < 4503599627370496.0:
        return math.copysign(float(math.ceil(u)), u)
    return u

"""


#: only in functions that call it (a helper that calls another helper and is not
#: called itself fails numba's typing: "cannot capture ... a function that may escape")
_WIDE_HELPER = """
def symnb_wide(a, b, which):
    # sin (which 0), cos (1) or tan (2) of a*b where the product overflows, as the
    # C kernels' symnb_wide_* (symnb.codegen.printer): the smaller factor as m*2**e,
    # m*b = h + lo exactly (Dekker's product of the mantissas, Veltkamp's split),
    # sin and cos of h + lo, then e angle doublings, each put back on the unit circle
    a = a * 1.0
    b = b * 1.0
    if abs(a) > abs(b):
        a, b = b, a
    m, e = math.frexp(a)
    mb, k = math.frexp(b)
    p = m * mb
    t = 134217729.0 * m
    mh = t - (t - m)
    ml = m - mh
    t = 134217729.0 * mb
    bh = t - (t - mb)
    bl = mb - bh
    err = ((mh * bh - p) + mh * bl + ml * bh) + ml * bl
    h = math.ldexp(p, k)
    lo = math.ldexp(err, k)
    sh = math.sin(h)
    ch = math.cos(h)
    sl = math.sin(lo)
    cl = math.cos(lo)
    s = sh * cl + ch * sl
    c = ch * cl - sh * sl
    for _ in range(e):
        t = 2.0 * s * c
        c = (c - s) * (c + s)
        s = t
        r = 1.0 / math.sqrt(s * s + c * c)
        s *= r
        c *= r
    return s if which == 0 else (c if which == 1 else s / c)
"""

_WHICH = {"sin": 0, "cos": 1, "tan": 2}


class _Printer(ProductsAsKernels, PythonCodePrinter):
    """Scalar Python for numba: symnb's helpers, NaN where no Piecewise branch applies."""

    def _call(self, name: str, expr: sp.Expr) -> str:
        return f"{name}({', '.join(self._print(a) for a in expr.args)})"

    def _print_sigmoid(self, expr):
        return self._call("symnb_sigmoid", expr)

    def _print_softplus(self, expr):
        return self._call("symnb_softplus", expr)

    def _print_logsigmoid(self, expr):
        return self._call("symnb_logsigmoid", expr)

    def _print_sign(self, expr):
        return self._call("symnb_sign", expr)

    def _print_Heaviside(self, expr):
        at0 = self._print(expr.args[1]) if len(expr.args) > 1 else "0.0"
        return f"symnb_heaviside({self._print(expr.args[0])}, {at0})"

    def _nest(self, name: str, args: tuple) -> str:
        out = self._print(args[0])
        for a in args[1:]:
            out = f"{name}({out}, {self._print(a)})"
        return out

    def _print_Max(self, expr):
        return self._nest("symnb_max", expr.args)

    def _print_Pow(self, expr, rational=False):
        # a negative power as a division: numba raised ZeroDivisionError for
        # 0.0**-1 (error_model="numpy" covers only /; focal loss -(1-x)**g*log(x)
        # at x = 0), where NumPy and the kernels give inf
        e = expr.exp
        if e.is_number and e.is_extended_negative:
            positive = sp.Pow(expr.base, -e, evaluate=False)
            return f"(1.0/({self._print(positive)}))"
        return super()._print_Pow(expr, rational)

    def _print_Integer(self, expr):
        return big_integer(expr, 63) or super()._print_Integer(expr)

    def _print_Min(self, expr):
        return self._nest("symnb_min", expr.args)

    # numba's math.floor/ceil return int64: floor(1e300) was -9.2e18 and floor(inf)
    # garbage; from 2**52 on every float is an integer already (and inf, NaN stay);
    # the sign of u kept as C's floor keeps it (floor(-0.0), ceil(-0.5): -0.0)
    def _print_floor(self, expr):
        return self._call("symnb_floor", expr)

    def _print_ceiling(self, expr):
        return self._call("symnb_ceil", expr)

    def _print_log1p(self, expr):
        return self._call("math.log1p", expr)

    def _print_expm1(self, expr):
        return self._call("math.expm1", expr)

    def _print_erfcx(self, expr):
        # no erfcx here: exp and erfc as typed up to 4, a continued fraction past it
        from symnb.formula.erfcx import piecewise_erfcx

        return self._print(piecewise_erfcx(expr.args[0]))

    def _print_ierfcx(self, expr):
        from symnb.formula.erfcx import piecewise_ierfcx

        return self._print(piecewise_ierfcx(expr.args[0]))

    def _print_erfc(self, expr):
        return self._call("math.erfc", expr)

    def _print_lgamma(self, expr):
        return self._call("math.lgamma", expr)

    def _print_tgamma(self, expr):
        return self._call("math.gamma", expr)

    def _print_digamma(self, expr):
        raise FormulaError(
            "to_numba: digamma (the derivative of lgamma and gamma; trigamma is "
            "digamma's) has no implementation in numba's math; use the cpp or numpy "
            "backend, or symnb.interop.jax"
        )

    _print_trigamma = _print_digamma

    def _wide(self, expr, name: str) -> str:
        # the product; only where it is inf, the wide computation (as the C kernels)
        prod = "*".join(f"({self._print(a)})" for a in expr.args)
        a, b = (self._print(u) for u in wide_factors(expr))
        return (
            f"(symnb_wide({a}, {b}, {_WHICH[name]}) if math.isinf({prod}) "
            f"else math.{name}({prod}))"
        )

    def _print_wide_sin(self, expr):
        return self._wide(expr, "sin")

    def _print_wide_cos(self, expr):
        return self._wide(expr, "cos")

    def _print_wide_tan(self, expr):
        return self._wide(expr, "tan")

    def _print_Piecewise(self, expr):
        out = "math.nan"
        for value, cond in reversed(expr.args):
            if cond == sp.true:
                out = f"({self._print(value)})"
            else:
                out = f"(({self._print(value)}) if ({self._print(cond)}) else {out})"
        return out


@dataclass
class NumbaActivation:
    """Compiled scalar functions of one activation (see the module docstring)."""

    f: Any
    df: Any
    dconstants: tuple
    constant_names: tuple
    _constants: dict  # the defaults f and df were compiled with: see constants
    target: str
    source: str
    _activation: Any = field(repr=False, default=None)

    @property
    def constants(self) -> dict:
        """The constants' default values (a copy, as ``Activation.constants``): a
        dict of the object's own let ``fns.constants["beta"] = 5.0`` change what
        ``bind()`` compiled, unchecked (NaN passed), while ``f``, compiled with
        the old value, kept it."""
        return dict(self._constants)

    def bind(self, **values: float) -> NumbaActivation:
        """Functions ``f(x)``/``df(x)`` with the constants fixed (default: current)."""
        # the same checks as Kernel.set_constants: known names, real finite numbers
        # (float64, the precision of the functions numba compiles here)
        check_constants(
            f"activation {self._activation.name!r}",
            self.constant_names,
            values,
            np.dtype(np.float64),
        )
        self._activation.check_domain(values)  # softplus's beta != 0, ...
        merged = {**self._constants, **values}
        bound = {n: float(merged[n]) for n in self.constant_names}
        return _build(self._activation, self.target, bound)


def parameter_names(names: tuple) -> tuple:
    """The functions' parameter for each constant: its own name, so that
    ``f(x, beta=2.0)`` works (before, the parameters were c0, c1, ... and the call
    failed with numba's bare "some keyword arguments unexpected"), or ``c<k>`` where
    the name would shadow what the generated code uses (x, math, builtins such as
    abs and float, the symnb_* helpers). Constant names are identifiers and not
    Python keywords (the formula parser's rule)."""
    taken = {"x", "math", *dir(builtins)}
    return tuple(
        f"c{k}" if n in taken or n.startswith("symnb_") or not n.isidentifier() else n
        for k, n in enumerate(names)
    )


def _source(form: Any, bound: dict | None) -> str:
    printer = _Printer({"fully_qualified_modules": True})
    x = sp.Symbol("x", real=True)
    params = [sp.Symbol(n, real=True) for n in parameter_names(tuple(form.param_names))]
    mapping = {form.inputs[0]: x, **dict(zip(form.params, params))}
    if bound is not None:
        mapping.update(
            {p: sp.Float(bound[n]) for p, n in zip(form.params, form.param_names)}
        )
        args = "x"
    else:
        defaults = [repr(float(v)) for v in form.param_values]
        args = ", ".join(["x"] + [f"{p}={d}" for p, d in zip(params, defaults)])
    # integer and boolean arguments computed in numba's integer types: x*x was 0.0
    # at x = 2**40 (int64 wrapped), -x was 253.0 at np.uint8(3); 1.0 * makes every
    # argument a float first (and keeps -0.0, inf and NaN as they are)
    floats = "".join(
        f"    {a} = 1.0 * {a}\n" for a in ["x"] + ([] if bound is not None else params)
    )
    lines = []
    exprs = [("symnb_f", form.f), ("symnb_df", form.df)]
    exprs += [(f"symnb_dc{k}", d) for k, d in enumerate(form.dparams)]
    for name, e in exprs:
        body = printer.doprint(floatify(e.xreplace(mapping)))
        wide = _WIDE_HELPER if "symnb_wide(" in body else ""
        helpers = textwrap.indent(_HELPERS + wide, "    ")
        lines.append(
            f"def {name}({args}):\n{helpers}\n{floats}"
            # 1.0 * makes an integer result a float; the former + 0.0 * x made
            # every value at x = +-inf NaN (0 * inf), even f(x) = x
            f"    return x if x != x else 1.0 * ({body})\n"
        )
    return "\n".join(lines)


def _build(activation: Any, target: str, bound: dict | None) -> NumbaActivation:
    target = choose(target, "target", TARGETS)  # 'CPU' as backend names are read
    numba = require("numba")
    if target == "cpu":
        # IEEE division as the kernels (1/0 = inf, 0/0 = NaN): njit's default
        # error_model "python" raised ZeroDivisionError (inverse_softplus at 0);
        # numba-cuda compiles with "numpy" unless debug
        decorate = numba.njit(cache=False, error_model="numpy")
        # r.f(x), r.df(x) inside njit code (symnb.interop.numba_typing)
        from symnb.interop.numba_typing import register

        register(NumbaActivation)
    else:
        cuda = require("numba.cuda")
        decorate = cuda.jit(device=True)
    from symnb.robust import lower  # the form the kernels compile (issue 8)

    # the float64 kernels' rewritten form (the functions compute in float64, the
    # precision of numba's float literals): the plain x/sqrt(1 + a*x**2) gave 0 at
    # |x| = 1e200 where the kernels give 1/sqrt(a); branches tied to the constants'
    # values are guarded by them
    form = lower(activation.internal, "float64")
    namespace: dict[str, Any] = {"math": math}
    source = _source(form, bound)
    # the text comes from SymPy's printer over internal symbols (x, c0, ...) and
    # the constants' names, which are identifiers (parameter_names): no other user
    # text reaches it
    exec(compile(source, f"<symnb {target} activation>", "exec"), namespace)  # noqa: S102
    k = len(form.params)
    fns = {
        n: decorate(namespace[n])
        for n in ["symnb_f", "symnb_df"] + [f"symnb_dc{q}" for q in range(k)]
    }
    if target == "cpu":
        names = ("x",) if bound is not None else ("x", *form.param_names)
        params = ("x",) + parameter_names(names[1:])
        for n, fn in fns.items():
            label = {"symnb_f": "f", "symnb_df": "df"}.get(n, f"dconstants[{n[8:]}]")
            what = f"{label} of activation {activation.name!r}"
            _scalars_only(fn, what, names)
            # bind()'s functions: x only
            note = (
                "; bind() fixed the constants"
                if len(names) < len(form.params) + 1
                else ""
            )
            check = None if bound is not None else _constant_check(activation)
            _keywords_by_name(fn, what, dict(zip(names, params)), note, check)
    return NumbaActivation(
        f=fns["symnb_f"],
        df=fns["symnb_df"],
        dconstants=tuple(fns[f"symnb_dc{q}"] for q in range(k)),
        constant_names=tuple(form.param_names) if bound is None else (),
        _constants=dict(zip(form.param_names, form.param_values))
        if bound is None
        else {},
        target=target,
        source=source,
        _activation=activation,
    )


def _constant_check(activation: Any) -> Any:
    """``check(values)`` for constants passed to the functions from Python: the
    checks of ``bind`` (finite, softplus's beta != 0, hardtanh's min_val <=
    max_val, ...): ``f(0.5, beta=0.0)`` was softplus inf and ``f(0.5,
    min_val=2.0, max_val=-2.0)`` hardtanh -2.0 without a word, where ``bind``
    and the kernels refuse them. Values other than plain real numbers are left
    to :func:`_scalars_only`'s message; calls inside ``njit`` code are not
    checked (numba compiles them without this hook)."""
    owner = f"activation {activation.name!r}"
    names = tuple(activation.internal.param_names)

    def plain(v: Any) -> bool:
        if isinstance(v, (bool, np.bool_)):
            return False
        if isinstance(v, (int, np.integer)):
            return -(2**63) <= int(v) < 2**64  # beyond: _scalars_only names it
        return isinstance(v, (float, np.floating)) and not isinstance(v, np.float16)

    def check(values: dict) -> None:
        numbers = {k: v for k, v in values.items() if plain(v)}
        if numbers:
            check_constants(owner, names, numbers, np.dtype(np.float64))
            activation.check_domain(numbers)

    return check


def _scalars_only(dispatcher: Any, what: str, names: tuple) -> None:
    """Called from Python with an array (or None, a complex, a string), a numba
    dispatcher fails to type its body and raises a TypingError from deep inside
    numba ("No implementation of function abs(array(float64, 1d, C))"); check the
    arguments before numba compiles for them instead. Typing inside ``njit`` code is
    untouched (it does not go through this hook)."""
    compile_for_args = dispatcher._compile_for_args
    omitted = require("numba.core.dispatcher").OmittedArg

    def check_then_compile(*args: Any, **kws: Any) -> Any:
        for name, value in zip(names, args):
            if isinstance(value, int) and not -(2**63) <= value < 2**64:
                # numba types no such int: "non-precise type pyobject" from deep
                # inside its typing
                raise TypeError(
                    f"{what}: {name} is an integer beyond 64 bits ({value:.3e}); "
                    f"pass it as a float, e.g. float({name})"
                )
            if isinstance(value, np.float16):
                # numba has no float16 arithmetic on the CPU: NotImplementedError
                # ("float16") from deep inside its lowering
                raise TypeError(
                    f"{what}: {name} is a float16 number, which numba cannot compute "
                    f"with; pass float({name}) (or a float32/float64 number)"
                )
            if isinstance(value, (omitted, int, float, np.integer, np.floating)):
                continue
            kind = f"{value!r:.40} ({type(value).__name__})"
            if isinstance(value, np.ndarray):
                kind = f"an array of shape {value.shape}"
            raise TypeError(
                f"{what}: {name} is {kind}, but to_numba's functions take one real "
                "number per argument (scalar functions for numba.njit code); call "
                "them per element inside an @numba.njit loop, or use "
                "Activation.compile(), to_torch() or to_jax() for whole arrays"
            )
        return compile_for_args(*args, **kws)

    dispatcher._compile_for_args = check_then_compile
    dispatcher._symnb_check_types = _typing_check(what, names)


def _typing_check(what: str, names: tuple) -> Any:
    """``check(args, kws)`` on the numba types of a call inside ``njit`` code: an
    array argument failed deep in the function's body with numba's "No
    implementation of function abs(array(float64, 1d, C))"; named here instead
    (the dispatcher's ``get_call_template``, see :func:`_keywords_by_name`)."""
    types = require("numba.core.types")
    errors = require("numba.core.errors")

    def check(args: tuple, kws: dict) -> None:
        given = [*zip(names, args), *kws.items()]
        for name, kind in given:
            if isinstance(kind, (types.Array, types.BaseTuple, types.List)):
                raise errors.TypingError(
                    f"{what}: {name} is {kind} inside numba code, but to_numba's "
                    "functions take one real number per argument; call them per "
                    "element (for i in range(x.size): out[i] = f(x[i])), or wrap "
                    "them in numba.vectorize"
                )

    return check


_KEYWORDS_CHECKED: dict = {}


def _keywords_by_name(
    dispatcher: Any,
    what: str,
    params: dict,
    note: str = "",
    check: Any = None,
) -> None:
    """Keyword arguments from Python by the constants' names: numba folds keywords
    into positions in C and answered a misspelt one (or a constant whose parameter
    is c<k>, see parameter_names) with a bare "some keyword arguments unexpected".
    The dispatcher becomes an instance of a subclass whose ``__call__`` renames the
    keywords or names the unknown one and the known ones; numba types it as its
    base class inside ``njit`` code. ``check(values)``: called with the constants
    a Python call passes (by their names), to refuse what the kernels refuse."""
    base = type(dispatcher)
    cls = _KEYWORDS_CHECKED.get(base)
    if cls is None:

        def __call__(*args: Any, **kws: Any) -> Any:
            # no named self: a constant may be called self; f(x) checks nothing
            if kws or len(args) != 2:
                kws = args[0]._symnb_keywords(args[1:], kws)
            try:
                return base.__call__(*args, **kws)
            except OverflowError:
                # an int beyond 64 bits once a signature was compiled: numba's
                # bare "int too big to convert" (the first call: _scalars_only)
                args[0]._symnb_too_big(args[1:], kws)
                raise

        def get_call_template(self: Any, args: tuple, kws: dict) -> Any:
            # a call from njit code: its argument types, before numba compiles
            # the body for them (_typing_check)
            self._symnb_check_types(args, kws)
            return base.get_call_template(self, args, kws)

        cls = type(
            base.__name__,
            (base,),
            {"__call__": __call__, "get_call_template": get_call_template},
        )
        _KEYWORDS_CHECKED[base] = cls
    accepted = {**params, **{p: p for p in params.values()}}

    arguments = f"{', '.join(params)} (by position or by these names)"

    user = {p: n for n, p in params.items()}  # parameter -> constant name

    def rename(args: tuple, kws: dict) -> dict:
        positional = len(args)
        unknown = [k for k in kws if k not in accepted]
        if unknown:
            raise TypeError(
                f"{what}: unknown keyword argument {unknown[0]!r}; the arguments are "
                f"{arguments}"
            )
        # numba's own words were "too many arguments: expected 2, got 3" and "not
        # enough arguments: expected at least 1, got 0", naming no function
        if positional > len(params):
            raise TypeError(
                f"{what} takes at most {len(params)} argument(s), got {positional} by "
                f"position; the arguments are {arguments}{note}"
            )
        twice = [k for k in kws if accepted[k] in list(params.values())[:positional]]
        if twice:  # numba's words: "some keyword arguments unexpected"
            raise TypeError(
                f"{what}: {twice[0]!r} was given by position and by name; the "
                f"arguments are {arguments}"
            )
        if positional == 0 and "x" not in kws:
            raise TypeError(f"{what}: x is missing; the arguments are {arguments}")
        kws = {accepted[k]: v for k, v in kws.items()}
        if check is not None:
            given = {**dict(zip(params.values(), args)), **kws}
            given.pop("x", None)
            check({user[p]: v for p, v in given.items()})
        return kws

    def too_big(args: tuple, kws: dict) -> None:
        given = {**dict(zip(params.values(), args)), **kws}
        for p, v in given.items():
            if isinstance(v, int) and not -(2**63) <= v < 2**64:
                raise TypeError(
                    f"{what}: {user[p]} is an integer beyond 64 bits ({v:.3e}); "
                    f"pass it as a float, e.g. float({user[p]})"
                ) from None

    dispatcher._symnb_keywords = rename
    dispatcher._symnb_too_big = too_big
    dispatcher.__class__ = cls


def to_numba(activation: Any, target: str = "cpu") -> NumbaActivation:
    """Scalar ``f(x, beta, ...)``, ``df(x, beta, ...)`` and ``dconstants`` compiled with
    numba for ``target`` ``"cpu"`` (``numba.njit``) or ``"cuda"`` (device functions)."""
    from symnb.formula.formula import as_activation

    # the one rule for "an activation" (a Loss was built from its first input only)
    return _build(as_activation(activation), target, None)
