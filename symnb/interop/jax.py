"""JAX face: ``Activation.to_jax()`` -> ``f(x, **constants)`` for jit, grad and vmap.

f is lowered to ``jax.numpy`` from the same stable form the kernels use (``sigmoid``,
``softplus``, ``logsigmoid`` as ``jax.nn``'s stable functions, ``Heaviside(u, h0)`` as
``where(u > 0, 1, where(u == 0, h0, 0))``, NaN-propagating ``maximum``/``minimum``), so XLA
can fuse it. Its derivative is not JAX's autodiff of that lowering but symnb's own f' and
df/dc, attached with ``jax.custom_jvp``: kinks (relu'(0) = 0) and surrogate gradients match the other
backends. NaN inputs give NaN, as on every backend.

XLA on the CPU reads subnormal numbers as 0 and flushes subnormal results to 0.
Comparisons of x with 0 read the bits (``symnb.interop.jax_zero``), so a subnormal x
takes its side's branch; what XLA computes from a subnormal x stays as at 0 (log|x|
-inf, 1/sqrt(x) inf), and a product whose factor is subnormal is 0 (bipolar sigmoid
-expm1(-x)*sigmoid(x) is -0 at x = -88.7 in float32, -709 in float64).
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import sympy as sp
from sympy.printing.numpy import JaxPrinter

from symnb.backends.numpy_ import ConditionsAsWritten, floatify
from symnb.checks import check_no_underflow, real_value
from symnb.codegen.printer import ProductsAsKernels
from symnb.errors import FormulaError
from symnb.interop import require
from symnb.interop.jax_gamma import digamma, trigamma
from symnb.interop.jax_second import derivative_faces, tangent
from symnb.interop.jax_zero import FLIPPED, compare_zero, sign
from symnb.interop.literals import big_integer
from symnb.interop.wide import jax_wide, wide_factors


class _Printer(ProductsAsKernels, ConditionsAsWritten, JaxPrinter):
    """jax.numpy printer with symnb's stable helpers and conventions."""

    def _call(self, name: str, expr: sp.Expr) -> str:
        return f"{name}({', '.join(self._print(a) for a in expr.args)})"

    def _print_sigmoid(self, expr: sp.Expr) -> str:
        return self._call("jax.nn.sigmoid", expr)

    def _print_softplus(self, expr: sp.Expr) -> str:
        return self._call("jax.nn.softplus", expr)

    def _print_logsigmoid(self, expr: sp.Expr) -> str:
        return self._call("jax.nn.log_sigmoid", expr)

    def _print_erf(self, expr: sp.Expr) -> str:
        return self._call("jax.scipy.special.erf", expr)

    def _print_erfcx(self, expr):
        # no erfcx here: exp and erfc as typed up to 4, a continued fraction past it
        from symnb.formula.erfcx import piecewise_erfcx

        return self._print(piecewise_erfcx(expr.args[0]))

    def _print_ierfcx(self, expr):
        from symnb.formula.erfcx import piecewise_ierfcx

        return self._print(piecewise_ierfcx(expr.args[0]))

    def _print_erfc(self, expr: sp.Expr) -> str:
        return self._call("jax.scipy.special.erfc", expr)

    def _print_log1p(self, expr: sp.Expr) -> str:
        return self._call("jax.numpy.log1p", expr)

    def _print_expm1(self, expr: sp.Expr) -> str:
        return self._call("jax.numpy.expm1", expr)

    # the gamma family (symnb.formula.gamma): JAX's lgamma is log|Gamma| too
    def _print_lgamma(self, expr: sp.Expr) -> str:
        return self._call("jax.lax.lgamma", expr)

    def _print_tgamma(self, expr: sp.Expr) -> str:
        return self._call("jax.scipy.special.gamma", expr)

    def _print_digamma(self, expr: sp.Expr) -> str:
        return self._call("symnb_digamma", expr)  # -inf at +0 (jax.lax: NaN)

    def _print_trigamma(self, expr: sp.Expr) -> str:
        return self._call("symnb_trigamma", expr)  # 0 at +inf (polygamma: NaN)

    def _wide(self, expr: sp.Expr, name: str) -> str:
        # symnb.robust.widen's trig of a product: wide only where it overflows
        prod = "*".join(f"({self._print(a)})" for a in expr.args)
        a, b = (self._print(u) for u in wide_factors(expr))
        return f"symnb_wide({name!r}, {prod}, {a}, {b})"

    def _print_wide_sin(self, expr: sp.Expr) -> str:
        return self._wide(expr, "sin")

    def _print_wide_cos(self, expr: sp.Expr) -> str:
        return self._wide(expr, "cos")

    def _print_wide_tan(self, expr: sp.Expr) -> str:
        return self._wide(expr, "tan")

    def _print_Heaviside(self, expr: sp.Heaviside) -> str:
        u = self._print(expr.args[0])
        at0 = self._print(expr.args[1]) if len(expr.args) > 1 else "0.0"
        return (
            f"jax.numpy.where(symnb_cmp0({u}, '>'), 1.0, "
            f"jax.numpy.where(symnb_cmp0({u}, '=='), {at0}, 0.0))"
        )

    def _print_sign(self, expr: sp.Expr) -> str:
        return f"symnb_sign({self._print(expr.args[0])})"

    def _print_Relational(self, expr: sp.Expr) -> str:
        # u vs 0 on the bits (symnb.interop.jax_zero): XLA reads a subnormal u as 0.
        # Not Eq/Ne: they guard removable singularities (sinc: 1 where x == 0, else
        # sin(x)/x), whose other branch XLA would compute at x = 0 (NaN)
        lhs, rhs, op = expr.lhs, expr.rhs, expr.rel_op
        if op in ("==", "!="):
            return super()._print_Relational(expr)
        if rhs == 0 and not lhs.is_number:
            return f"symnb_cmp0({self._print(lhs)}, {op!r})"
        if lhs == 0 and not rhs.is_number:
            return f"symnb_cmp0({self._print(rhs)}, {FLIPPED[op]!r})"
        return super()._print_Relational(expr)

    #: derivatives only (_FlushedRegimes): where the printed value is NaN at a
    #: non-NaN x and f is not NaN there, a threshold regime's branch is taken
    _fallback = False
    _binades = 52
    _largest = sys.float_info.max  # the dtype's largest finite float

    def _print_Piecewise(self, expr: sp.Piecewise) -> str:
        text = super()._print_Piecewise(expr)
        if not self._fallback:
            return text
        where = self._module_format(self._module + ".where")
        isnan = self._module_format(self._module + ".isnan")
        for value, cond in expr.args:
            if not _threshold(cond):
                continue
            u, t = (cond.lhs, cond.rhs) if cond.rhs.is_number else cond.args[::-1]
            u, t = self._print(u), float(t)
            # near t: of its sign, within the binades of the dtype's subnormals
            # (an exponent's or a power's flushed range); x**x's f' is NaN at
            # x = -3 (log(-3)), not the 0 of its x < -3.4e38 regime
            lo, hi = sorted((t * 2.0**-self._binades, t * 2.0**self._binades))
            # a bound beyond the dtype's largest float is an infinity: t*2**52
            # is inf near the float64 limit, and a float32 bound like -2.9e45
            # made NumPy warn "overflow encountered in cast" at every trace
            lo, hi = (
                repr(b)
                if abs(b) <= self._largest
                else self._print(sp.oo if b > 0 else -sp.oo)
                for b in (lo, hi)
            )
            near = f"({u} >= {lo}) & ({u} <= {hi})"
            text = (
                f"{where}({isnan}({text}) & {near} & {FOK}, "
                f"{self._print(value)}, {text})"
            )
        return text

    def _print_Integer(self, expr: sp.Expr) -> str:
        return big_integer(expr, 31) or super()._print_Integer(expr)

    def _print_Mul(self, expr: sp.Expr) -> str:
        # x*Piecewise((1/A, c), (1/B, True)) as x/Piecewise((A, c), (B, True)): the
        # reciprocal of a large A is subnormal, which XLA flushes to 0 (squareplus'
        # was 0.5 for 1 from x = 1.5e38 in float32, pflu(3.4e38) half its value)
        factors = [_reciprocal_piecewise(a) for a in expr.args]
        if any(a is not b for a, b in zip(factors, expr.args)):
            expr = sp.Mul(*factors, evaluate=False)
        return super()._print_Mul(expr)


#: the name of the derivatives' last argument: where f is not NaN
FOK = "symnb_f_ok"


class _FlushedRegimes(_Printer):
    """The printer of f' and df/dc. XLA on the CPU flushes subnormal results to 0,
    so a regime the engine measured with IEEE gradual underflow fails earlier:
    log(sigmoid(x))/log(sigmoid(-x))'s f' in float32 is sigmoid(-x)/logsigmoid(-x)
    from x = -103.97, where logsigmoid(-x) underflows to 0, and two terms above,
    whose second was 0/0 = NaN on -103.97 < x < -87.3 (the subnormal
    logsigmoid(-x) read as 0). Where the value is NaN at a non-NaN x and f is
    not NaN (a NaN f is outside the domain: log(x) at x < 0 stays NaN), the branch
    of a threshold regime (``x <= t``, x against a number) is taken instead, if x
    is near t (of its sign, within as many binades as the dtype has subnormal
    ones: 23 in float32, 52 in float64): the form meant for where those
    quantities are 0."""

    _fallback = True


class _FlushedRegimes32(_FlushedRegimes):
    """_FlushedRegimes for float32: 23 binades of subnormals."""

    _binades = 23
    _largest = float.fromhex("0x1.fffffep127")  # FLT_MAX


#: the printer of f (None) and of the derivatives by dtype name
_PRINTERS = {None: _Printer, "float32": _FlushedRegimes32, "float64": _FlushedRegimes}


def _threshold(cond: Any) -> bool:
    """Whether a Piecewise condition is a regime threshold: a symbol against a
    number (``x <= -103.97``), not a condition on the constants' values."""
    if not isinstance(
        cond, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)
    ):
        return False
    sides = (cond.lhs, cond.rhs)
    return any(isinstance(a, sp.Symbol) for a in sides) and any(
        a.is_number for a in sides
    )


def _reciprocal_piecewise(e: sp.Expr) -> sp.Expr:
    """``Piecewise((1/A, c), (1/B, d))`` as ``1/Piecewise((A, c), (B, d))``; other
    expressions unchanged (the same object)."""
    if not isinstance(e, sp.Piecewise):
        return e
    denominators = []
    for value, cond in e.args:
        numer, denom = value.as_numer_denom()
        if numer != 1 or denom == 1:
            return e
        denominators.append((denom, cond))
    return sp.Pow(sp.Piecewise(*denominators, evaluate=False), -1, evaluate=False)


def _lambdify(expr: sp.Expr, args: tuple, derivative: str | None = None) -> Any:
    """``expr`` as a JAX function of ``args``; ``derivative`` (the dtype's name) for
    f' and df/dc, which take one more argument (_FlushedRegimes)."""
    jax = require("jax")
    require("jax.scipy.special")
    namespace = {
        "jax": jax,
        "functools": functools,
        "symnb_wide": jax_wide,
        "symnb_cmp0": compare_zero,
        "symnb_sign": sign,
        "symnb_digamma": digamma,
        "symnb_trigamma": trigamma,
    }
    if derivative:
        # the last argument: where f is not NaN (_FlushedRegimes)
        args = (*args, sp.Symbol(FOK))
    return sp.lambdify(
        args,
        floatify(expr),
        modules=[namespace, "jax"],
        printer=_PRINTERS[derivative],
    )


def _real(
    jnp: Any, value: Any, name: str, fix: str, complex_fix: str | None = None
) -> Any:
    """``value`` as a JAX array of real numbers (bool, int or float), else TypeError
    ending in ``fix`` (``complex_fix`` for a complex value, when given).

    ``jnp.asarray`` would take a complex ``x`` and the lowering then drop its
    imaginary part without a word, and a string constant fails deep inside JAX.
    """
    import decimal
    import fractions

    import numpy as np

    if isinstance(value, (decimal.Decimal, fractions.Fraction)):
        # as Activation and set_constants take them (JAX refused "dtype object")
        number = real_value(value)
        check_no_underflow(name, value, number)
        value = number
    if isinstance(value, int) and not isinstance(value, bool):
        # 2**40: JAX's OverflowError "too large to convert to int32"
        if abs(value) >= 2**1024:
            raise ValueError(
                f"{name} is an integer of {value.bit_length()} bits, beyond the "
                f"float range (about 1.8e308); {fix}"
            )
        value = float(value)
    elif isinstance(value, (list, tuple)):
        try:
            host = np.asarray(value)
        except (TypeError, ValueError, OverflowError):
            host = None  # ragged, or not numbers: JAX's reason below
        if host is not None and host.dtype.kind in "iu":
            value = host  # [2**40]: JAX's OverflowError; [2**31]: 32-bit wrap
    dtype = getattr(value, "dtype", None)
    if isinstance(value, (np.ndarray, np.generic)) and dtype.kind in "iu":
        # without jax_enable_x64 JAX truncates int64/uint64 to 32 bits: x*x was 0
        # at x = 2**40 (the kernels give 1.2e24); as floats of JAX's default width,
        # as the kernels take integers in their float dtype
        value = np.asarray(value, dtype=jnp.asarray(0.0).dtype)
        dtype = value.dtype
    if isinstance(value, (np.ndarray, np.generic)) and not dtype.isnative:
        # JAX refuses non-native byte order ("Error interpreting argument"): the
        # values are fine, only their bytes are swapped
        value = value.astype(dtype.newbyteorder("="))
    try:
        arr = jnp.asarray(value)
    except (TypeError, ValueError) as exc:
        # JAX's reason helps for a list (ragged, strings inside); for None or a
        # str it is JAX's internals ("not a valid value for jnp.array")
        why = f": {exc}" if isinstance(value, (list, tuple)) else ""
        raise TypeError(
            f"{name} must be a real number or an array of them, got {value!r:.60} "
            f"({type(value).__name__}{why}); {fix}"
        ) from None
    # bfloat16 is a NumPy "V" (void) kind: ask JAX whether it is a float
    if arr.dtype.kind not in "biuf" and not jnp.issubdtype(arr.dtype, jnp.floating):
        raise TypeError(
            f"{name} has dtype {arr.dtype}; symnb activations take real numbers "
            f"(got {value!r:.60}); {complex_fix or fix}"
        )
    return arr


def _fits(value: Any, name: str, dtype: Any) -> None:
    """A concrete constant the kernels refuse is a ``FormulaError`` here too: not
    finite (NaN and inf gave NaN outputs without a word), or not held by ``dtype``
    (1e300 in float32 became inf, 1e-50 became 0); arrays entry by entry. Traced
    values pass (not known)."""
    import numpy as np

    try:
        host = np.asarray(value, dtype=np.float64)
    except Exception:  # noqa: BLE001 - a tracer: not checked
        return
    if not np.all(np.isfinite(host)):
        bad = host[~np.isfinite(host)].flat[0]
        raise FormulaError(
            f"constant {name!r} must be finite, got {bad!r}"
            + ("" if host.ndim == 0 else f" (in an array of shape {host.shape})"),
            suggestion="pass a finite real number",
        )
    info = np.finfo(dtype)
    with np.errstate(over="ignore", under="ignore"):
        stored = host.astype(dtype)
    if np.any(np.isinf(stored) | ((stored == 0) & (host != 0))):
        raise FormulaError(
            f"constant {name!r} = {value!r:.60} does not fit {np.dtype(dtype).name} "
            f"(finite values from {info.smallest_subnormal:.3g} to {info.max:.4g} in "
            "magnitude)",
            suggestion=f"pass x in float64 (jax_enable_x64) or another {name}",
        )


def _check_domain(activation: Any, values: dict) -> None:
    """A ``FormulaError`` when concrete constants leave a library formula's domain
    (softplus's beta = 0 gave finite numbers, hardtanh's min_val > max_val a
    constant, where the kernels refuse them); arrays entry by entry, with the
    index of the first one out. Traced values pass (not known)."""
    if not getattr(activation, "has_domain", False):
        return
    import numpy as np

    try:
        host = [np.asarray(v, dtype=np.float64) for v in values.values()]
    except Exception:  # noqa: BLE001 - a tracer: not checked
        return
    merged = dict(zip(values, np.broadcast_arrays(*host)))
    for test, _message in activation._library[activation.name].domain:
        ok = np.asarray(test(merged), dtype=bool)
        if ok.all():
            continue
        at = np.unravel_index(int(np.flatnonzero(~ok.ravel())[0]), ok.shape)
        try:
            activation.check_domain({n: float(a[at]) for n, a in merged.items()})
        except FormulaError as err:
            where = f" at index {tuple(map(int, at))} of the constants" if at else ""
            raise FormulaError(
                err.message + where,
                suggestion=f"keep the constants of {activation.name!r} in its domain",
            ) from None


def to_jax(activation: Any) -> Any:
    """``f(x, **constants)``: the activation as a jit/grad/vmap-able JAX function.

    Constants are keyword arguments (default: the activation's values), scalars or
    arrays broadcasting against ``x``; gradients flow to them through symnb's
    ``d f / d constant``. ``f.derivative(x, **constants)`` is f' itself;
    ``f.constant_names`` and ``f.constants`` tell the constants and their defaults.
    f and f.derivative are ``JaxFunction`` objects: they pickle (as the activation,
    rebuilt on load), so multiprocessing can carry them.

    f and f' are the forms the kernels compile for the dtype (``symnb.robust.lower``:
    float64 for float64 x, float32 otherwise); float16 and bfloat16 are computed in
    float32 with the constants in float32, and returned in their own dtype, as the
    PyTorch modules do.
    """
    from symnb.formula.formula import as_activation
    from symnb.robust import lower  # the form the kernels compile (issue 8)

    # the one rule for "an activation" (a Loss was built from its first input only)
    activation = as_activation(activation)
    jax = require("jax")
    jnp = jax.numpy
    form = activation.internal
    names = tuple(form.param_names)
    defaults = dict(zip(names, form.param_values))
    lowered: dict[str, tuple] = {}

    def raw(dtype: Any) -> tuple:
        """(f, f', [df/dc]) lowered to jax.numpy for the compute dtype ``dtype``
        (static under jit: the dtype of a traced array is known)."""
        key = "float64" if dtype == jnp.float64 else "float32"
        if key not in lowered:
            lf = lower(form, key)
            args = (lf.inputs[0], *lf.params)
            lowered[key] = (
                _lambdify(lf.f, args),
                _lambdify(lf.df, args, derivative=key),
                [_lambdify(d, args, derivative=key) for d in lf.dparams],
            )
        return lowered[key]

    def guard(x: Any, r: Any) -> Any:
        # NaN in -> NaN out; also broadcasts constant results (e.g. f' = 1) to x
        return jnp.where(jnp.isnan(x), x, r)

    second: list = []  # derivative_faces(activation), built at the second order

    def first(k: int) -> Any:
        """f' (k = 0) or df/dc_(k-1) at (x, ok = where f is not NaN, *constants):
        the lowering's value, differentiated by symnb (jax_second)."""

        def lowered(x: Any, ok: Any, *c: Any) -> Any:
            _, df_raw, dc_raw = raw(x.dtype)
            return guard(x, (df_raw if k == 0 else dc_raw[k - 1])(x, *c, ok))

        @jax.custom_jvp
        def value(x: Any, ok: Any, *c: Any) -> Any:
            return lowered(x, ok, *c)

        @value.defjvp
        def value_jvp(primals: tuple, tangents: tuple) -> tuple:
            x, ok, *c = primals
            tx, _, *tc = tangents
            if not second:
                second.append(derivative_faces(activation))
            if isinstance(second[0], str):  # not a formula: JAX's autodiff
                return jax.jvp(lambda x, *c: lowered(x, ok, *c), (x, *c), (tx, *tc))
            y = value(x, ok, *c)
            face, idx = second[0][k]
            return y, tangent(face, idx, (x, *c), (tx, *tc), y)

        return value

    firsts = [first(k) for k in range(len(names) + 1)]

    @jax.custom_jvp
    def core(x: Any, *c: Any) -> Any:
        return guard(x, raw(x.dtype)[0](x, *c))

    @core.defjvp
    def core_jvp(primals: tuple, tangents: tuple) -> tuple:
        x, *c = primals
        tx, *tc = tangents
        y = core(x, *c)
        ok = ~jnp.isnan(y)
        t = firsts[0](x, ok, *c) * tx
        for dck, tck in zip(firsts[1:], tc):
            t = t + dck(x, ok, *c) * tck
        return y, t

    def _args(x: Any, constants: dict) -> tuple:
        """(x in its compute dtype, constants in it, the dtype to return)."""
        for k in constants:
            if k not in defaults:
                raise FormulaError.unknown_constant(
                    f"activation {activation.name!r}", k, names
                )
        x = _real(
            jnp,
            x,
            "x",
            "pass x as a real number, a list of them or a NumPy or JAX array",
            complex_fix="pass x.real or abs(x)",
        )
        if not jnp.issubdtype(x.dtype, jnp.floating):
            x = x.astype(jnp.result_type(float))
        out = x.dtype
        if out != jnp.float64:
            # float16/bfloat16 in float32 (x**3 overflowed float16 at |x| = 100:
            # gelu_tanh' was NaN), constants not rounded to them (beta = 1.3)
            x = x.astype(jnp.float32)
        cs = []
        for n in names:
            fix = f"pass {n}= a real number or array of them (default {defaults[n]})"
            value = constants.get(n, defaults[n])
            arr = _real(jnp, value, f"constant {n!r}", fix)
            if arr.dtype == jnp.bool_:
                # True became 1.0 without a word; the kernels refuse a bool constant
                raise FormulaError(
                    f"constant {n!r} must be a number, got {value!r:.60} (bool)",
                    suggestion=f"pass a finite real number, e.g. {n}=1.0",
                )
            _fits(value, n, x.dtype)
            try:
                jnp.broadcast_shapes(x.shape, arr.shape)
            except ValueError:
                # else JAX's "Incompatible shapes for broadcasting: shapes=[(2,),
                # (4, 3)]" from inside the lowering, naming neither x nor n
                raise ValueError(
                    f"constant {n!r} has shape {arr.shape}, which does not "
                    f"broadcast against x of shape {x.shape}; pass a scalar or an "
                    "array whose shape broadcasts with x's (e.g. one value per "
                    "entry of x's last axis)"
                ) from None
            cs.append(arr.astype(x.dtype))
        _check_domain(activation, {n: constants.get(n, defaults[n]) for n in names})
        return x, cs, out

    def f(x: Any, **constants: Any) -> Any:
        x, cs, out = _args(x, constants)
        return core(x, *cs).astype(out)

    def derivative(x: Any, **constants: Any) -> Any:
        x, cs, out = _args(x, constants)
        ok = ~jnp.isnan(guard(x, raw(x.dtype)[0](x, *cs)))
        return firsts[0](x, ok, *cs).astype(out)

    name = activation.name if activation.name.isidentifier() else "f"
    doc = f"symnb activation {activation.name!r}: {activation.text}"
    face = JaxFunction(f, activation, "f", name, doc)
    face.derivative = JaxFunction(
        derivative, activation, "derivative", f"{name}_derivative", f"f' of {doc}"
    )
    face.constant_names = names
    face.core = core  # core(x, *constants in order) in the compute dtype
    return face


class JaxFunction:
    """``to_jax``'s function (and its ``.derivative``): called as ``f(x, **constants)``,
    and picklable (a closure over the lowering was not: "Can't pickle <function f>",
    so ``multiprocessing`` and saved objects failed); pickled as its activation and
    rebuilt with ``to_jax`` on load."""

    def __init__(
        self, call: Any, activation: Any, part: str, name: str, doc: str
    ) -> None:
        self._call = call
        self._activation = activation
        self._part = part
        self.__name__ = self.__qualname__ = name
        self.__doc__ = doc
        self.__wrapped__ = call  # inspect.signature: (x, **constants)

    @property
    def constants(self) -> dict:
        """The constants' defaults (a copy, as ``Activation.constants``): a dict of
        the function's own took ``f.constants["beta"] = 5.0`` and showed it, while
        f kept computing with the activation's value."""
        form = self._activation.internal
        return dict(zip(form.param_names, form.param_values))

    def __call__(self, x: Any, *more: Any, **constants: Any) -> Any:
        if more:
            # was Python's bare "__call__() takes 2 positional arguments but 3
            # were given", naming neither the function nor its constants
            names = self._activation.internal.param_names
            example = ", ".join(f"{n}={v!r}" for n, v in zip(names, more)) or "..."
            raise TypeError(
                f"{self.__name__} takes one positional argument, x, and got "
                f"{1 + len(more)}; constants are keywords: {self.__name__}(x, "
                f"{example}) (its constants: {', '.join(names) or 'none'})"
            )
        return self._call(x, **constants)

    def __reduce__(self) -> tuple:
        return (_rebuilt, (self._activation, self._part))

    def __repr__(self) -> str:
        return f"<symnb JAX function {self.__name__} of {self._activation.text!r:.60}>"


def _rebuilt(activation: Any, part: str) -> Any:
    """A pickled ``JaxFunction`` back: ``to_jax`` of its activation, or f'."""
    f = to_jax(activation)
    return f if part == "f" else f.derivative
