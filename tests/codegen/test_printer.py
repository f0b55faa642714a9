"""The C-family printer: names, literals, strictness, CSE and the size limit."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from symnb.codegen import printer
from symnb.codegen.printer import KernelPrinter, lower, prelude, print_expression
from symnb.errors import FormulaError
from symnb.formula.functions import expm1, log1p, logsigmoid, sigmoid, softplus
from symnb.formula.internal import X, param_symbol

C0 = param_symbol(0)
NAMES = {X: "a0", C0: "k0"}
SYMS = ((X, "a0"), (C0, "k0"))

# every float literal, with its suffix
_LITERAL = re.compile(r"(?<![\w.])(\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)([fFlL]?)")
_DOUBLE_MATH = re.compile(
    r"\b(exp|log|sqrt|pow|sin|cos|tan|tanh|sinh|cosh|erf|erfc|log1p|expm1|fabs|floor|ceil"
    r"|asin|acos|atan|asinh|acosh|atanh|fmax|fmin|cbrt)\("
)
_FLOAT_MATH = re.compile(
    r"\b(exp|log|sqrt|pow|sin|cos|tan|tanh|sinh|cosh|erf|erfc|log1p|expm1|fabs|floor|ceil"
    r"|asin|acos|atan|asinh|acosh|atanh|fmax|fmin|cbrt)f\("
)


def p32(e: sp.Expr) -> str:
    return print_expression(e, NAMES, "float32")


def p64(e: sp.Expr) -> str:
    return print_expression(e, NAMES, "float64")


EXPRESSIONS = [
    sp.exp(X) * sp.pi + sp.E,
    sp.sqrt(2 / sp.pi) * (X + sp.Float("0.044715") * X**3),
    sp.erf(X / sp.sqrt(2)) * sp.Rational(1, 3),
    sp.Piecewise((X, X > 0), (C0 * expm1(X), True)),
    sigmoid(X) + softplus(X) + logsigmoid(X) + log1p(X),
    sp.tanh(X) + sp.asinh(X) + sp.atan(X) + sp.Abs(X) + sp.floor(X) + sp.ceiling(X),
    sp.Max(0, X, C0) + sp.Min(X, 1),
    X ** sp.Rational(1, 3) + X ** sp.Rational(3, 2) + X ** sp.Float(2.5),
    sp.log(2) * X + sp.sqrt(3) + 10**12 * X,
]


@pytest.mark.parametrize("expr", EXPRESSIONS, ids=lambda e: sp.sstr(e)[:30])
def test_float32_uses_float_names_and_literals(expr: sp.Expr) -> None:
    text = p32(expr)
    assert "M_" not in text
    for number, suffix in _LITERAL.findall(text):
        assert suffix == "F", f"double literal {number} in float32 code: {text}"
    assert not _DOUBLE_MATH.search(text), text


@pytest.mark.parametrize("expr", EXPRESSIONS, ids=lambda e: sp.sstr(e)[:30])
def test_float64_uses_double_names_and_literals(expr: sp.Expr) -> None:
    text = p64(expr)
    assert "M_" not in text
    for number, suffix in _LITERAL.findall(text):
        assert suffix == "", (
            f"suffixed literal {number}{suffix} in float64 code: {text}"
        )
    assert not _FLOAT_MATH.search(text), text


def test_exp_and_math_function_names() -> None:
    # exp, expm1, log, log1p, tanh: symnb's own vector math (both types)
    for p in (p32, p64):
        assert p(sp.exp(X)) == "symnb_exp(a0)"
        assert p(sp.E ** (2 * X)) == "symnb_exp(2.0F*a0)".replace(
            "F", "" if p is p64 else "F"
        )
        assert p(sp.log(X)) == "symnb_log(a0)" and p(sp.tanh(X)) == "symnb_tanh(a0)"
        assert p(log1p(X)) == "symnb_log1p(a0)" and p(expm1(X)) == "symnb_expm1(a0)"
    assert "erff(" in p32(sp.erf(X)) and "sinf(" in p32(sp.sin(X))
    assert "erf(" in p64(sp.erf(X)) and "erff(" not in p64(sp.erf(X))


def test_branches_known_nonpositive_use_the_cheaper_exp() -> None:
    # elu: expm1(x) is only selected where x > 0 failed (x <= 0 or NaN)
    elu = sp.Piecewise((X, X > 0), (C0 * expm1(X), True))
    assert "symnb_expm1_neg(a0)" in p32(elu)
    assert "symnb_exp_neg(a0)" in p32(sp.Piecewise((sp.exp(X), X <= 0), (1, True)))
    # not where the branch may see x > 0
    assert "symnb_exp(a0)" in p32(sp.Piecewise((sp.exp(X), X > 0), (1, True)))
    assert "symnb_exp(a0)" in p32(sp.Piecewise((1, X < 0), (sp.exp(X), True)))
    # outside the Piecewise nothing is known
    assert "symnb_exp(a0)" in p32(sp.exp(X) + elu)
    # through a CSE temporary holding the comparison
    low = lower((elu, sp.diff(elu, X)), SYMS, "float32")
    text = " ".join(low.statements + low.results)
    assert "const bool t0 = a0 > 0.0F;" in low.statements
    assert "symnb_expm1_neg(a0)" in text and "symnb_exp_neg(a0)" in text
    assert "symnb_exp(" not in text and "symnb_expm1(" not in text


def test_number_symbols_become_literals() -> None:
    text = p32(sp.pi * X)
    assert "3.14159" in text and "pi" not in text
    text = p64(sp.E * X)
    assert "2.71828182845904" in text


def test_small_integer_powers_are_multiplications() -> None:
    assert p32(X**2) == "(a0*a0)"
    assert p32(X**3) == "(a0*a0*a0)"
    assert "powf" not in p32(X**-2)
    assert "powf(a0, 20.0F)" in p32(X**20)


def test_powers_of_expressions_are_hoisted_after_cse() -> None:
    low = lower(((sp.sin(X) + 1) ** 2,), SYMS, "float32")
    joined = " ".join(low.statements) + low.results[0]
    assert "powf" not in joined
    assert low.results[0] == "(t0*t0)"


def test_cube_root_keeps_pow_semantics() -> None:
    text = p32(X ** sp.Rational(1, 3))
    assert "cbrt" not in text
    # pow's, NaN for a negative base, -inf included (IEEE pow gives +inf there)
    assert "symnb_real_pow(a0," in text
    assert "cbrt" not in p32(sp.cbrt(X))


def test_sqrt_of_half_integer_powers() -> None:
    assert p32(sp.sqrt(X)) == "sqrtf(a0)"
    assert p32(X ** sp.Rational(3, 2)) == "(sqrtf(a0)*a0)"
    # a root that divides is +0 at -0.0 (C's sqrt(-0.0) is -0.0; pow's root is +0)
    assert p32(X ** sp.Rational(-1, 2)) == "(1.0F/(fabsf(sqrtf(a0))))"


def test_helpers_for_stable_functions_and_kinks() -> None:
    assert p32(sigmoid(X)) == "symnb_sigmoid(a0)"
    assert p32(softplus(X)) == "symnb_softplus(a0)"
    assert p32(logsigmoid(X)) == "symnb_logsigmoid(a0)"
    assert p32(sp.Max(0, X)) == "symnb_max(0.0F, a0)"
    assert p32(sp.Min(X, C0)) in ("symnb_min(a0, k0)", "symnb_min(k0, a0)")
    assert p32(sp.sign(X)) == "symnb_sign(a0)"
    assert p32(sp.Heaviside(X, 0)) == "((a0) > 0.0F ? 1.0F : 0.0F)"
    assert "fmax" not in p32(sp.Max(X, C0, 2))


def test_mish_core_is_rewritten() -> None:
    assert p32(X * sp.tanh(softplus(X))) == "a0*symnb_tanh_softplus(a0)"
    d1 = p32(X / sp.cosh(softplus(X)) ** 2)
    d2 = p32(1 - sp.tanh(softplus(X)) ** 2)
    assert "symnb_sech2_softplus(a0)" in d1 and "cosh" not in d1
    assert d2 == "symnb_sech2_softplus(a0)"


def test_piecewise_is_nested_ternary_with_nan_default() -> None:
    text = p32(sp.Piecewise((X, X > 0), (C0 * X, X < -1)))
    assert text.count("?") == 2
    assert "SYMNB_NAN" in text
    assert "\n" not in p32(sp.Piecewise((X, X > 0), (0, True)))


def test_symbols_are_printed_only_through_the_mapping() -> None:
    assert p32(X + C0) in ("a0 + k0", "k0 + a0")
    with pytest.raises(FormulaError, match="'y'"):
        p32(X + sp.Symbol("y", real=True))


@pytest.mark.parametrize(
    "expr, word",
    [
        (sp.Function("myfunc")(X), "myfunc"),
        (sp.re(X + sp.Symbol("z")), "re"),
        (sp.DiracDelta(X), "DiracDelta"),
        (sp.Derivative(sp.Function("g")(X), X), "Derivative"),
        (X + sp.I, "complex"),
        (sp.zeta(X), "zeta"),
    ],
)
def test_strict_printer_names_what_cannot_be_compiled(expr: sp.Expr, word: str) -> None:
    with pytest.raises(FormulaError, match=word):
        print_expression(expr, {**NAMES, sp.Symbol("z"): "z"}, "float32")


def test_operation_limit_after_cse() -> None:
    big = sum(sp.sin(k * X + C0) * sp.exp(X / k) for k in range(1, 40))
    with pytest.raises(
        FormulaError, match=r"too large to compile \(\d+ operations, limit 50\)"
    ):
        lower((big,), SYMS, "float32", 50)
    assert lower((big,), SYMS, "float32").operations > 50


def test_cse_shares_temporaries() -> None:
    e = sp.sin(X) ** 2 + sp.cos(X) * sp.sin(X)
    low = lower((e, sp.diff(e, X)), SYMS, "float32")
    text = " ".join(low.statements + low.results)
    assert text.count("sinf(") == 1 and text.count("cosf(") == 1


def test_prelude_has_same_helpers_in_both_types() -> None:
    t32, t64 = prelude("float32"), prelude("float64")
    for name in printer.HELPERS:
        if name.startswith("symnb_vm_"):  # internals of the vector math
            continue
        assert f"symnb_real {name}(" in t32 + t64.replace("double", "symnb_real")
        assert f"{name}(" in t32 and f"{name}(" in t64
    assert "float symnb_exp(float x)" in t32 and "double symnb_exp(double x)" in t64
    # float32 helpers keep float literals, except in their CPU-only branches: the
    # double cores (float32 log, log1p, tanh, expm1, sigmoid, softplus, logsigmoid:
    # computed in double, rounded once)
    cpu_only = re.compile(r"#ifndef __CUDACC__\n.*?#endif|#else\n.*?#endif", re.S)
    for name in printer.HELPERS:
        text = cpu_only.sub("", prelude("float32", frozenset({name})))
        for number, suffix in _LITERAL.findall(text):
            assert suffix == "F", (name, number)
    assert prelude("float32", frozenset({"symnb_max"})).count("SYMNB_FN") == 1


def test_helpers_used_is_transitive() -> None:
    used = printer.helpers_used("y = symnb_sigmoid(a0);")
    assert {"symnb_sigmoid", "symnb_exp_neg", "symnb_vm_bits"} <= used
    assert "symnb_exp" not in used and "symnb_log" not in used
    assert printer.helpers_used("symnb_log1p(a0)") >= {"symnb_vm_log_core"}
    text = prelude("float32", printer.helpers_used("symnb_tanh(a0)"))
    assert text.index("symnb_vm_f32(unsigned") < text.index("symnb_vm_expm1_core(")
    assert text.index("double symnb_vm_expm1_core(") < text.index("symnb_tanh(")


def test_unknown_dtype_is_refused() -> None:
    with pytest.raises(ValueError):
        KernelPrinter("float16")


@pytest.mark.parametrize(
    ("value", "float32", "float64"),
    [
        ("2.5e-121", "0.0F", "2.4999999999999999e-121"),
        ("-2.5e-121", "(-0.0F)", "-2.4999999999999999e-121"),
        ("1e39", "SYMNB_INF", "1.0e+39"),
        ("-1e39", "(-SYMNB_INF)", "-1.0e+39"),
        ("1e-400", "0.0F", "0.0"),
        ("1e400", "SYMNB_INF", "SYMNB_INF"),
        ("1.5", "1.5F", "1.5"),
    ],
)
def test_literals_beyond_the_type_print_as_what_they_round_to(value, float32, float64):
    """NVRTC refuses 2.5e-121F ('floating constant is out of range'; g++ gives 0):
    such a constant (a robustness regime's tail value) prints as 0 or inf."""
    number = sp.Float(value)
    assert KernelPrinter("float32", NAMES).doprint(number) == float32
    assert KernelPrinter("float64", NAMES).doprint(number) == float64


def test_out_of_range_literal_compiles_with_nvrtc() -> None:
    from symnb.codegen.kernels import render_form_functions, render_header
    from tests.codegen.test_cuda_text_on_cpu import _nvrtc

    nvrtc = _nvrtc()  # skips, saying why, without NVRTC

    expr = sp.Piecewise((sp.Float("2.5e-121"), X < -40), (X * sp.exp(X), True))
    body = render_form_functions(
        0, (X,), (), expr, sp.diff(expr, X), (), "float32", False
    )
    assert "2.5e-121" not in body and "0.0F" in body
    text = (
        render_header("cuda", "float32")
        + prelude("float32", printer.helpers_used(body))
        + body
    )
    nvrtc.compile(text, "sm_90", ())


# -- shared reciprocals (constants' gradient and backward) ---------------------------

C1, C2 = param_symbol(1), param_symbol(2)
RATIONAL_SYMS = ((X, "a0"), (C0, "k0"), (C1, "k1"), (C2, "k2"))
# a 1/1 "PAU": the denominator is at least 1 whatever x and the constants are
RATIONAL = (C0 + C1 * X) / (1 + sp.Abs(C2 * X))


def _divisions(low) -> int:
    return sum(text.count("/") for text in (*low.statements, *low.results))


def test_constants_gradient_divides_once_by_a_denominator_at_least_one() -> None:
    """d/dc of a rational divides by the same denominator three times (twice by it,
    once by its square); with share_reciprocals one division remains."""
    dparams = tuple(sp.diff(RATIONAL, c) for c in (C0, C1, C2))
    plain = lower(dparams, RATIONAL_SYMS, "float32", what="t")
    shared = lower(dparams, RATIONAL_SYMS, "float32", what="t", share_reciprocals=True)
    assert _divisions(plain) >= 3
    assert _divisions(shared) == 1


def test_denominators_that_may_be_small_keep_their_divisions() -> None:
    """sin(x)/x and cos(x)/x share the denominator x, which may be subnormal (1/x
    overflows): the divisions stay, as without share_reciprocals."""
    exprs = (sp.sin(X) / X, sp.cos(X) / X, C0 / (X**2 + 1))
    low = lower(exprs, SYMS, "float32", what="t", share_reciprocals=True)
    assert _divisions(low) == 3
    assert _divisions(lower(exprs, SYMS, "float32", what="t")) == 3


def test_shared_reciprocal_constants_gradient_matches_float64() -> None:
    """The cpp constants' gradient of a PAU-style rational (float32, reciprocal
    shared) against float64 sums of the exact partial derivatives, from small to
    large |x|."""
    import numpy as np

    import symnb
    from symnb.backends import status

    if not status("cpp").usable:
        pytest.skip(f"cpp backend: {status('cpp').reason}")
    values = {"a0": 0.03, "a1": 0.6, "a2": 2.3, "b1": 1.1, "b2": 4.4}
    act = symnb.Activation(
        "(a0 + a1*x + a2*x**2) / (1 + Abs(b1*x) + Abs(b2*x**2))", name="r22", **values
    )
    kernel = act.compile(backend="cpp", dtype="float32")
    rng = np.random.default_rng(5)
    x = np.concatenate(
        [rng.normal(0, 3, 4000), rng.uniform(-1e4, 1e4, 500), [0.0, 1e-30, -1e-30]]
    ).astype(np.float32)
    g = rng.normal(size=x.size).astype(np.float32)
    got = kernel.constant_gradient(x, g)
    xs = sp.Symbol("x", real=True)
    syms = {k: sp.Symbol(k, real=True) for k in values}
    f = (syms["a0"] + syms["a1"] * xs + syms["a2"] * xs**2) / (
        1 + sp.Abs(syms["b1"] * xs) + sp.Abs(syms["b2"] * xs**2)
    )
    x64, g64 = x.astype(np.float64), g.astype(np.float64)
    for name, sym in syms.items():
        d = sp.lambdify(
            xs, sp.diff(f, sym).subs({syms[k]: v for k, v in values.items()})
        )
        terms = g64 * np.broadcast_to(d(x64), x64.shape)
        ref = terms.sum()
        scale = np.abs(terms).sum()
        assert abs(got[name] - ref) <= 1e-5 * scale, (name, got[name], ref)


def test_sigmoid_times_a_variable_uses_the_plain_quotient_in_float32() -> None:
    """x*sigmoid(x) prints the product's sigmoid (symnb_sigmoid_mul, no correction
    step); a sigmoid alone or scaled by a number keeps the corrected one; float64
    never switches."""
    assert "symnb_sigmoid_mul(a0)" in p32(X * sigmoid(X))
    assert "symnb_sigmoid_mul" in p32(X * sigmoid(C0 * X) * sigmoid(-X))
    for alone in (sigmoid(X), 2 * sigmoid(X), sigmoid(X) + X):
        text = p32(alone)
        assert "symnb_sigmoid(" in text and "symnb_sigmoid_mul" not in text, text
    assert "symnb_sigmoid_mul" not in p64(X * sigmoid(X))


def test_polynomial_in_abs_is_a_horner_scheme() -> None:
    """PAU's safe denominator 1 + |b1 x| + |b2| x^2 + |b3 x^3| + |b4| x^4 is printed as
    Horner's rule in |x| (no power or product of x left), and a sum that is not a
    polynomial in |x| (x**3 is odd) keeps its form."""
    b = [param_symbol(i) for i in range(1, 5)]
    den = (
        1
        + sp.Abs(b[0] * X)
        + sp.Abs(b[1]) * X**2
        + sp.Abs(b[2] * X**3)
        + (sp.Abs(b[3]) * X**4)
    )
    syms = ((X, "a0"), *((c, f"k{i}") for i, c in enumerate(b)))
    low = lower((den,), syms, "float32", what="t")
    text = " ".join((*low.statements, *low.results))
    assert "a0*a0" not in text and "*a0" not in text.replace("fabsf(a0)", ""), text
    assert text.count("fabsf(") <= 5, text  # |a0| once, the four |b|
    odd = lower((1 + X**2 + X**3 + X**4,), SYMS, "float32", what="t")
    assert "fabsf" not in " ".join((*odd.statements, *odd.results))


def test_products_of_sigmoid_and_abs_horner_match_float64() -> None:
    """The plain-quotient sigmoid in x*sigmoid(beta x) and the |x| Horner denominator of a
    PAU 5/4, compiled (cpp, float32), against the same formulas in float64 NumPy: within
    6 float32 ulps of the value (PAU: of its terms' size) plus 1e-30 (the plain
    sigmoid is up to 1.46 ulps; PAU's ten roundings measured 4.3 ulps, 4.6 before the
    |x| Horner form; the
    reference takes beta*x rounded to float32, as the kernel), NaN and +inf as before."""
    import numpy as np

    import symnb
    from symnb.backends import status

    if not status("cpp").usable:
        pytest.skip(f"cpp backend: {status('cpp').reason}")
    rng = np.random.default_rng(11)
    x = np.concatenate(
        [rng.normal(0, 4, 20000), rng.uniform(-100, 100, 2000), [0.0, -0.0, 1e-30]]
    ).astype(np.float32)
    x64 = x.astype(np.float64)
    swish = symnb.Activation("x*sigmoid(beta*x)", name="sw", beta=1.5)
    pau_c = dict(
        a0=0.03,
        a1=0.6,
        a2=2.3,
        a3=3.1,
        a4=1.5,
        a5=0.25,
        b1=1.1,
        b2=4.4,
        b3=0.9,
        b4=0.35,
    )
    pau = symnb.Activation(
        "(a0 + a1*x + a2*x**2 + a3*x**3 + a4*x**4 + a5*x**5)"
        " / (1 + Abs(b1*x) + Abs(b2*x**2) + Abs(b3*x**3) + Abs(b4*x**4))",
        name="pau54",
        **pau_c,
    )
    c = {k: np.float64(np.float32(v)) for k, v in pau_c.items()}
    refs = {
        # the kernel rounds beta*x to float32 first (as every float32 kernel does)
        "sw": x64 / (1 + np.exp(-(np.float32(1.5) * x).astype(np.float64))),
        "pau54": np.polyval([c[f"a{i}"] for i in range(5, -1, -1)], x64)
        / (1 + sum(abs(c[f"b{i}"] * x64**i) for i in range(1, 5))),
    }
    den = 1 + sum(abs(c[f"b{i}"] * x64**i) for i in range(1, 5))
    # the numerator may cancel (its roots): its error scales with the sum of |terms|
    terms = np.polyval([abs(c[f"a{i}"]) for i in range(5, -1, -1)], np.abs(x64)) / den
    scale = {"sw": np.abs(refs["sw"]), "pau54": terms}
    for act in (swish, pau):
        got = act.compile(backend="cpp", dtype="float32").forward(x).astype(np.float64)
        ref = refs[act.name]
        ulp = np.spacing(scale[act.name].astype(np.float32)).astype(np.float64)
        assert np.all(np.abs(got - ref) <= 6 * ulp + 1e-30), act.name
        special = np.array([np.nan, np.inf, -np.inf], np.float32)
        out = act.compile(backend="cpp", dtype="float32").forward(special)
        assert np.isnan(out[0]), act.name
    assert swish.compile(backend="cpp").forward(np.float32([np.inf]))[0] == np.inf


def test_regime_guarded_by_constants_is_one_select() -> None:
    """c ? (p ? A : E) : E (a regime valid for the analysed constants) prints as one
    select on (c & p); a Piecewise whose fallbacks differ keeps both selects."""
    e = sp.exp(X)
    guarded = sp.Piecewise(
        (sp.Piecewise((X, X >= 100), (e, True)), sp.Eq(C0, 1.0)), (e, True)
    )
    text = p32(guarded)
    assert text.count("?") == 1 and "&" in text, text
    other = sp.Piecewise(
        (sp.Piecewise((X, X >= 100), (e, True)), sp.Eq(C0, 1.0)), (2 * e, True)
    )
    assert p32(other).count("?") == 2


def test_learned_rational_derivative_is_finite_and_right_at_large_x() -> None:
    """A PAU 5/4 whose constants moved from the analysed ones (as after a training step)
    has no asymptote regime: its f' divided by Q**2 (inf/inf = NaN from |x| = 1e5 in
    float32) and its joint backward multiplied by r**2 = 1/Q**2 (0 from |x| = 1e6: f'
    3.61 instead of 0.72). Against float64 on every C++ entry point and NumPy's
    backward, up to |x| = 3e7."""
    import numpy as np

    import symnb
    from symnb.backends import status
    from symnb.interop.native import NativeElementwise

    if not status("cpp").usable:
        pytest.skip(f"cpp backend: {status('cpp').reason}")
    from tests.reference import PAU_CONSTANTS, PAU_TEXT, pau_derivative, pau_parts

    pau = symnb.Activation(PAU_TEXT, name="pau_moved", **PAU_CONSTANTS)
    kernel = pau.compile(backend="cpp", dtype="float32")
    moved = {k: v * 1.01 for k, v in PAU_CONSTANTS.items()}
    kernel.set_constants(**moved)
    c = {k: float(np.float32(v)) for k, v in moved.items()}
    x = np.float32([1.0, -3.0, 1e3, -1e4, 1e5, -1e6, 1e6, 1e7, -3e7])
    g = np.ones_like(x)
    xd = x.astype(np.float64)
    p, _, q, _ = pau_parts(x, c)
    want = pau_derivative(x, c)
    got = {
        "backward": kernel.backward(x, g),
        "forward_and_backward": kernel.forward_and_backward(x, g)[1],
    }
    native = NativeElementwise.of(kernel)
    for variant in native.fused_variants:
        dx, sums = np.empty_like(x), np.zeros(10)
        ptr = lambda a: a.__array_interface__["data"][0]  # noqa: E731
        variant(
            ptr(x),
            ptr(g),
            ptr(dx),
            ptr(sums),
            x.size,
            native.constants_address(list(kernel.params)),
        )
        got[variant.__name__] = dx
    numpy_kernel = pau.compile(backend="numpy", dtype="float32")
    numpy_kernel.set_constants(**moved)
    got["numpy backward"] = numpy_kernel.backward(x, g)
    for name, values in got.items():
        np.testing.assert_allclose(values, want, rtol=2e-5, err_msg=name)
    # the constants' gradient: sums of x**i/Q and -sign * |x|**i * p/Q**2
    grads = kernel.constant_gradient(x, g)
    for i in range(6):
        ref = np.sum(xd**i / q)
        assert abs(grads[f"a{i}"] - ref) <= 1e-5 * np.sum(np.abs(xd**i / q)), i
    for i in range(1, 5):
        terms = -np.sign(c[f"b{i}"]) * np.abs(xd) ** i * (p / q) / q
        assert abs(grads[f"b{i}"] - terms.sum()) <= 1e-5 * np.abs(terms).sum(), i


@pytest.mark.parametrize("text", ["beta*x*sigmoid(x)", "x*sigmoid(x)*beta + beta"])
def test_joint_backward_declares_its_own_helpers(text: str) -> None:
    """E-swish, beta*x*sigmoid(x): f and f' print the product's sigmoid
    (symnb_sigmoid_mul), while the joint backward (f' with df/dbeta) prints a plain
    symnb_sigmoid that f and f' never used; the prelude must declare it
    (float32 cpp failed to compile, 'symnb_sigmoid' was not declared, and fell back to
    NumPy). Compiled strictly; f, f' and d/dbeta against float64."""
    import numpy as np

    import symnb
    from symnb.backends import status

    if not status("cpp").usable:
        pytest.skip(f"cpp backend: {status('cpp').reason}")
    act = symnb.Activation(text, beta=1.375)
    k = act.compile(backend="cpp", dtype="float32", strict=True)
    x = np.linspace(-12, 12, 97).astype(np.float32)
    g = np.linspace(0.5, 1.5, 97).astype(np.float32)
    x64 = x.astype(np.float64)
    s = 1 / (1 + np.exp(-x64))
    beta = np.float64(np.float32(1.375))
    extra = beta if "+ beta" in text else 0.0
    y, dy = k.forward_with_derivative(x)
    assert np.allclose(y, beta * x64 * s + extra, rtol=1e-6, atol=1e-6)
    assert np.allclose(dy, beta * (s + x64 * s * (1 - s)), rtol=1e-6, atol=1e-6)
    dbeta = x64 * s + (1.0 if extra else 0.0)
    got = k.constant_gradient(x, g)["beta"]
    assert abs(got - np.sum(g * dbeta)) <= 1e-5 * np.sum(np.abs(g * dbeta))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kink_side_does_not_depend_on_the_position_in_the_array(dtype: str) -> None:
    """Hardsigmoid typed as min(max(x/6 + 1/2, 0), 1): x/6 was printed x*(1/6), whose
    rounded reciprocal made x/6 + 1/2 at x = -3 either 0 or 2.8e-17 depending on
    whether g++ fused it into an fma, which it did in the vector loop and not in the
    scalar tail: f(-3) and f'(-3) changed with the array's length (f' 1/6 or 0). Now
    x/6 is a division; every length gives NumPy's values and PyTorch's kink
    convention (hardsigmoid'(+-3) = 0)."""
    import numpy as np

    import symnb
    from symnb.backends import status

    if not status("cpp").usable:
        pytest.skip(f"cpp backend: {status('cpp').reason}")
    act = symnb.Activation("Min(Max(x/6 + 1/2, 0), 1)")
    k = act.compile(backend="cpp", dtype=dtype)
    for n in range(1, 40):
        x = np.full(n, -3.0, dtype=dtype)
        x[1::2] = 3.0
        y, dy = k.forward_with_derivative(x)
        np.testing.assert_array_equal(y, np.where(x > 0, 1.0, 0.0).astype(dtype))
        np.testing.assert_array_equal(dy, np.zeros(n, dtype=dtype))
        np.testing.assert_array_equal(k.forward(x), y)
    assert "/6" in p32(X / 6 + sp.Rational(1, 2)).replace(" ", "")


@pytest.mark.parametrize("backend", ["numpy", "cpp"])
@pytest.mark.parametrize("text", ["sech(x)", "sech(2*x)"])
def test_squared_function_call_in_a_denominator_does_not_overflow(
    text: str, backend: str
) -> None:
    """sech's derivative is -sinh(u)/cosh(u)**2: C divides twice by a CSE temporary,
    but NumPy (no CSE) printed cosh(u)**(-2), and cosh(u)**2 overflows float32 from
    |u| = 44.4: f' was -0 on NumPy where it is ~1e-19 .. 1e-38 (C gave the value).
    Against mpmath, float32."""
    import mpmath
    import numpy as np

    import symnb
    from symnb.backends import status

    if not status(backend).usable:
        pytest.skip(f"{backend} backend: {status(backend).reason}")
    scale = 2 if "2*x" in text else 1
    x = np.float32([1.0, -5.0, 30.0, 44.0, 45.0, -50.0, 60.0, 80.0, -87.0, 88.0])
    x = x / scale if scale != 1 else x
    kernel = symnb.Activation(text).compile(backend=backend, dtype="float32")
    _, dy = kernel.forward_with_derivative(x)
    for xi, got in zip(x.tolist(), dy.tolist(), strict=True):
        u = mpmath.mpf(xi) * scale
        want = float(np.float32(-scale * mpmath.sinh(u) / mpmath.cosh(u) ** 2))
        assert abs(got - want) <= 2e-6 * abs(want), (xi, got, want)
