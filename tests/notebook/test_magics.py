"""``%%symact`` / ``%symnb`` under a real IPython shell, and the cell syntax parser."""

from __future__ import annotations

import time

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import symnb
from symnb.errors import FormulaError
from symnb.notebook import state
from symnb.notebook.syntax import parse_cell


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.fixture(autouse=True)
def _fresh_state(request):
    if "shell" in request.fixturenames:
        state.backend = "auto"
        state.device = 0
    yield


def run(shell, line, cell):
    """Run a %%symact cell; return the captured outputs (list of mime bundles)."""
    with capture_output() as cap:
        shell.run_cell_magic("symact", line, cell)
    return [o.data for o in cap.outputs], cap.stdout


def mimes(outputs, mime):
    return [o[mime] for o in outputs if mime in o]


def _usable(name):
    from symnb.backends import available

    status = available().get(name)
    return status is not None and status.usable


# ---------------------------------------------------------------- the syntax


def test_parse_definitions_comments_blanks_continuations():
    cell = (
        "# activations\n"
        "\n"
        "swish(x; beta=1.5) = x*sigmoid(beta*x)   # trailing comment\n"
        "bump(z) = exp(-z**2)\n"
        "long(x; a=1, b=-2) = a*tanh(x) \\\n"
        "    + b*x\n"
    )
    defs = parse_cell(cell)
    assert [d.name for d in defs] == ["swish", "bump", "long"]
    assert defs[0].constants[0].name == "beta" and defs[0].constants[0].value == 1.5
    assert defs[0].line == 4  # the %%symact line is line 1
    assert defs[1].inputs == ("z",)
    assert defs[1].canonical_formula()[0] == "exp(-x**2)"
    assert defs[2].formula == "a*tanh(x) + b*x"
    assert [c.value for c in defs[2].constants] == [1.0, -2.0]


def test_parse_learnable_and_loss():
    (d,) = parse_cell(
        'prelu(x; a=learnable(0.25, per="neuron")) = Max(0,x) + a*Min(0,x)'
    )
    c = d.constants[0]
    assert (c.name, c.value, c.learnable, c.per) == ("a", 0.25, True, "neuron")
    (loss,) = parse_cell("mse2(p, t; w=2) = w*(p - t)**2", loss=True)
    assert loss.kind == "loss" and loss.inputs == ("p", "t")
    assert loss.canonical_formula()[0] == "w*(y_pred - y_true)**2"


@pytest.mark.parametrize(
    "cell, fragment, line, column",
    [
        ("swish(x; beta=1) x*sigmoid(x)", "expected '='", 2, 18),
        ("if(x) = x", "keyword", 2, 1),
        ("_f(x) = x", "underscore", 2, 1),
        ("f(x, y) = x", "--loss", 2, 3),
        ("f(x; k) = k*x", "needs a value", 2, 6),
        ("f(x; k=1e400) = k*x", "finite", 2, 8),
        ("f(x; k=open('f')) = k*x", "cannot read the value", 2, 8),
        ("f(x; k=1, k=2) = k*x", "given twice", 2, 11),
        ("f(x) =   ", "no formula", 2, 7),
        ("f(x) = x\nf(x) = 2*x", "defined twice", 3, 1),
        ("f x = x", "expected '('", 2, 3),
        ("f(x = x", "missing ')'", 2, 8),
        ("f(x) = x \\", "continuation", 2, 10),
    ],
)
def test_parse_errors_have_cell_position(cell, fragment, line, column):
    with pytest.raises(FormulaError) as info:
        parse_cell(cell)
    assert fragment in str(info.value)
    assert (info.value.line, info.value.column) == (line, column)
    assert info.value.suggestion


def test_stray_canonical_name_is_unknown():
    with pytest.raises(FormulaError, match="unknown symbol 'x'") as info:
        parse_cell("f(z) = z*x")
    assert (info.value.line, info.value.column) == (2, 10)


def test_function_names_are_not_inputs():
    with pytest.raises(FormulaError, match="name of a function"):
        parse_cell("f(exp) = exp")


@pytest.mark.parametrize(
    "name, owner",
    [
        ("abs", "Python builtin"),
        ("max", "Python builtin"),
        ("print", "Python builtin"),
        ("len", "Python builtin"),
        ("get_ipython", "IPython shell"),
        ("In", "IPython shell"),
        ("Out", "IPython shell"),
        ("display", "IPython shell"),
        ("exit", "IPython shell"),
    ],
)
def test_builtin_and_shell_names_are_refused(name, owner):
    with pytest.raises(FormulaError, match=f"would hide the {owner} '{name}'") as info:
        parse_cell(f"ok(x) = x\n{name}(x) = x")
    assert info.value.line == 3 and info.value.column == 1
    assert f"my_{name}" in str(info.value)


# ---------------------------------------------------------------- extension


def test_load_and_unload_extension():
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "symnb")
    assert "symact" in ip.magics_manager.magics["cell"]
    assert "symnb" in ip.magics_manager.magics["line"]
    assert state.loaded
    state.set_backend("numpy")
    ip.run_line_magic("unload_ext", "symnb")
    assert "symact" not in ip.magics_manager.magics["cell"]
    assert "symact" not in ip.magics_manager.magics["line"]
    assert state.backend == "auto"
    assert "symnb" not in ip.magics_manager.magics["line"]
    assert not state.loaded
    ip.run_line_magic("load_ext", "symnb")  # and back, for the other tests
    assert "symact" in ip.magics_manager.magics["cell"]


# ---------------------------------------------------------------- %%symact


def test_symact_binds_activations_with_kernels(shell):
    outputs, _ = run(
        shell,
        "--backend numpy",
        "swish(x; beta=1.0) = x*sigmoid(beta*x)\nbump(x) = exp(-x**2)\n",
    )
    swish, bump = shell.user_ns["swish"], shell.user_ns["bump"]
    assert isinstance(swish, symnb.Activation) and isinstance(bump, symnb.Activation)
    assert swish.name == "swish" and swish.constants == {"beta": 1.0}
    x = np.linspace(-5, 5, 101).astype(np.float32)
    assert swish.kernel.backend == "numpy"
    np.testing.assert_allclose(
        swish.kernel.forward(x), x * _sigmoid(x), rtol=1e-5, atol=1e-6
    )
    _, dy = bump.kernel.forward_with_derivative(x)
    np.testing.assert_allclose(dy, -2 * x * np.exp(-(x**2)), rtol=1e-5, atol=1e-6)
    latex = mimes(outputs, "text/latex")
    assert sum("f(x) =" in t for t in latex) == 2
    assert sum("f'(x) =" in t for t in latex) == 2
    assert all(t.startswith("$$") and t.endswith("$$") for t in latex)
    assert any(r"\sigma" in t for t in latex)
    pngs = mimes(outputs, "image/png")
    assert len(pngs) == 2
    plain = "\n".join(mimes(outputs, "text/plain"))
    assert "backend numpy" in plain and "swish(x; beta=1)" in plain
    assert "cache" in plain and " s" in plain


def test_plots_are_png_images(shell):
    import base64

    outputs, _ = run(shell, "--backend numpy --range -2:2", "g(x) = tanh(x)")
    (png,) = mimes(outputs, "image/png")
    raw = base64.b64decode(png) if isinstance(png, str) else png
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"


def test_options_no_plot_quiet_code(shell):
    outputs, _ = run(shell, "--backend numpy --no-plot", "g(x) = tanh(x)")
    assert not mimes(outputs, "image/png") and mimes(outputs, "text/latex")
    outputs, _ = run(shell, "--backend numpy -q", "g(x) = tanh(x)")
    assert len(outputs) == 1 and "backend numpy" in outputs[0]["text/plain"]
    outputs, _ = run(shell, "--backend numpy --code --no-plot", "g(x) = tanh(x)")
    code = [t for t in mimes(outputs, "text/plain") if "source" in t]
    assert code and len(code[0].splitlines()) > 2


def test_no_compile_still_shows_and_binds(shell):
    outputs, _ = run(shell, "--no-compile --no-plot", "h(x) = x**3")
    assert isinstance(shell.user_ns["h"], symnb.Activation)
    assert "not compiled" in "\n".join(mimes(outputs, "text/plain"))


def test_renamed_variable_and_constants(shell):
    run(shell, "--backend numpy --no-plot", "bell(z; s=2.0) = exp(-(z/s)**2)")
    bell = shell.user_ns["bell"]
    x = np.array([0.0, 1.0, 2.0], dtype=np.float32)
    np.testing.assert_allclose(
        bell.kernel.forward(x), np.exp(-((x / 2) ** 2)), rtol=1e-6
    )


def test_learnable_constant(shell):
    run(
        shell,
        "--backend numpy --no-plot",
        "prelu(x; a=learnable(0.25)) = Max(0, x) + a*Min(0, x)",
    )
    prelu = shell.user_ns["prelu"]
    assert "a" in prelu.learnable and prelu.constants["a"] == 0.25


def test_loss_definitions(shell):
    outputs, _ = run(shell, "--loss --backend numpy", "sq(p, t; w=2) = w*(p - t)**2")
    sq = shell.user_ns["sq"]
    assert isinstance(sq, symnb.Loss)
    p = np.array([0.0, 1.0, 3.0], dtype=np.float32)
    t = np.array([1.0, 1.0, 1.0], dtype=np.float32)
    assert sq.kernel.value(p, t) == pytest.approx(np.mean(2 * (p - t) ** 2), rel=1e-6)
    latex = mimes(outputs, "text/latex")
    assert any(r"\ell" in t for t in latex) and any(r"\partial" in t for t in latex)
    assert mimes(outputs, "image/png")


def test_stability_note_is_shown(shell):
    outputs, _ = run(shell, "--backend numpy --no-plot", "sp1(x) = log(1 + exp(x))")
    plain = "\n".join(mimes(outputs, "text/plain"))
    act = shell.user_ns["sp1"]
    if act.notes:
        assert "warning:" in plain


def test_shell_and_builtin_names_are_not_bound(shell):
    """``get_ipython(x) = x`` once replaced the shell's get_ipython, and every later
    magic failed with a TypeError traceback."""
    before = shell.user_ns.get("get_ipython")
    for cell in ("get_ipython(x) = x", "abs(x) = x*tanh(x)", "f1(x) = x\nIn(x) = x"):
        with capture_output() as cap:
            result = shell.run_cell(f"%%symact --backend numpy --no-plot\n{cell}\n")
        assert isinstance(result.error_in_exec, UsageError)
        assert "would hide" in str(result.error_in_exec)
        assert "Traceback" not in cap.stdout + cap.stderr
    assert shell.user_ns.get("get_ipython") is before
    assert "abs" not in shell.user_ns and "f1" not in shell.user_ns
    with capture_output() as cap:
        assert shell.run_cell("%symnb").success
    assert "backend:" in cap.stdout


def test_names_the_shell_hides_are_refused(shell):
    """A kernel may keep more names for itself (``user_ns_hidden``)."""
    shell.user_ns_hidden["kernel_state"] = None
    try:
        with pytest.raises(UsageError, match="belongs to the IPython shell"):
            run(shell, "--backend numpy -q", "kernel_state(x) = x")
    finally:
        del shell.user_ns_hidden["kernel_state"]
    assert "kernel_state" not in shell.user_ns


def test_replacing_a_user_variable_keeps_magics_working(shell):
    shell.run_cell("np = __import__('numpy')")
    outputs, _ = run(shell, "--backend numpy --no-plot --replace", "np(x) = x*tanh(x)")
    assert "replaces a module" in "\n".join(mimes(outputs, "text/plain"))
    assert isinstance(shell.user_ns["np"], symnb.Activation)
    with capture_output():
        assert shell.run_cell("%symnb backend numpy").success
        assert shell.run_cell("%%symact -q\nnp2(x) = x\n").success
    del shell.user_ns["np"], shell.user_ns["np2"]


def test_session_defaults_apply(shell):
    with capture_output():
        shell.run_line_magic("symnb", "backend numpy")
    assert state.backend == "numpy"
    run(shell, "-q", "k1(x) = x*x")
    assert shell.user_ns["k1"].kernel.backend == "numpy"


@pytest.mark.skipif(not _usable("cpp"), reason="g++ not usable here")
def test_cpp_backend(shell):
    outputs, _ = run(
        shell,
        "--backend cpp --no-plot --code",
        "cswish(x; beta=1.0) = x*sigmoid(beta*x)",
    )
    k = shell.user_ns["cswish"].kernel
    assert k.backend == "cpp"
    x = np.linspace(-3, 3, 64).astype(np.float32)
    np.testing.assert_allclose(k.forward(x), x * _sigmoid(x), rtol=1e-5, atol=1e-6)
    assert "backend cpp" in "\n".join(mimes(outputs, "text/plain"))


@pytest.mark.skipif(not _usable("cuda"), reason="no usable CUDA device")
def test_cuda_backend_and_device(shell):
    run(shell, "--backend cuda --device 0 -q --strict", "gsw(x) = x*sigmoid(x)")
    k = shell.user_ns["gsw"].kernel
    assert k.backend == "cuda" and k.device == 0


@pytest.mark.skipif(_usable("cuda"), reason="CUDA is usable here")
def test_unavailable_backend_strict_is_a_usage_error(shell):
    shell.user_ns.pop("gpu_only", None)
    with pytest.raises(UsageError) as info:
        run(shell, "--backend cuda --strict -q", "gpu_only(x) = x")
    assert "cuda" in str(info.value)
    assert "gpu_only" not in shell.user_ns


@pytest.mark.skipif(_usable("cuda"), reason="CUDA is usable here")
def test_fallback_is_shown_as_a_warning(shell):
    outputs, _ = run(shell, "--backend cuda -q", "fb(x) = x*tanh(x)")
    kernel = shell.user_ns["fb"].kernel
    assert kernel.backend in ("cpp", "numpy")
    plain = outputs[0]["text/plain"]
    assert f"backend {kernel.backend}" in plain
    assert "warning:" in plain and "cuda" in plain


def test_state_records_last_compile(shell):
    run(shell, "--backend numpy -q", "lc(x) = x")
    assert state.last_compile["name"] == "lc"
    assert state.last_compile["backend"] == "numpy"


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "formula, fragment",
    [
        ("   ", "no formula"),
        ("x*(1+", ""),
        ("2x", "*"),
        ("sigmod(x)", "sigmoid"),
        ("tahn(x)", "tanh"),
        ("x*k", "k"),
        ("__import__('os').system('true')", "not allowed"),
        ("x.__class__", "not allowed"),
        ("(lambda: 1)()", "not allowed"),
        ("open('f')", ""),
        ("9**9**9**9", ""),
        ("x**(9**9**9)", ""),
        ("x \u2212 1", "-"),
        ("2\u00d7x", "*"),
        ("1e400*x", ""),
        ("x*x\u00b2", "\u00b2"),
        ("x \u2013 1", "-"),
        ("x\x00", "NUL"),
        ("factorial(10**6)", "factorial"),
        ("x" + "+x" * 100_000, ""),
        ("(" * 5000 + "x" + ")" * 5000, ""),
        ("-" * 100_000 + "x", ""),
        ("x*" + "1" * 1_000_000, ""),
    ],
)
def test_bad_formula_is_one_short_message(shell, formula, fragment):
    shell.user_ns["victim"] = "previous"
    start = time.perf_counter()
    with pytest.raises(UsageError) as info:
        run(shell, "--backend numpy", f"victim(x) = {formula}")
    assert time.perf_counter() - start < 10
    message = str(info.value)
    assert len(message) < 2000
    assert "Traceback" not in message
    assert len(message.splitlines()) <= 8
    assert "line 2" in message
    assert fragment in message
    assert shell.user_ns["victim"] == "previous"


def test_error_column_points_into_the_cell(shell):
    with pytest.raises(UsageError) as info:
        run(shell, "--backend numpy", "ok(x) = x\n  bad(z) = z*sigmod(z)")
    message = str(info.value)
    assert "line 3" in message
    col = "  bad(z) = z*sigmod(z)".index("sigmod") + 1
    assert f"column {col}" in message
    assert "did you mean" in message or "sigmoid" in message


def test_cell_is_all_or_nothing(shell):
    shell.user_ns.pop("good_one", None)
    with pytest.raises(UsageError) as info:
        run(shell, "--backend numpy", "good_one(x) = x\nbad_one(x) = x*qq")
    assert "qq" in str(info.value)
    assert "good_one" not in shell.user_ns and "bad_one" not in shell.user_ns


def test_syntax_error_in_cell_is_usage_error(shell):
    with pytest.raises(UsageError) as info:
        run(shell, "", "swish(x; beta=1) x*sigmoid(beta*x)")
    assert "line 2" in str(info.value) and "hint" in str(info.value)


def test_empty_cell(shell):
    with pytest.raises(UsageError, match="defines nothing"):
        run(shell, "", "# only a comment\n\n")


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("--backend gpu", "unknown backend"),
        ("--device -1", "--device"),
        ("--device one", "--device"),
        ("--range 4:-4", "--range"),
        ("--range abc", "--range"),
        ("--bogus", "unrecognized"),
    ],
)
def test_bad_options(shell, line, fragment):
    with pytest.raises(UsageError) as info:
        run(shell, line, "f(x) = x")
    assert fragment in str(info.value)


def test_errors_show_without_traceback_in_run_cell(shell):
    with capture_output() as cap:
        result = shell.run_cell("%%symact --backend numpy\nbroken(x) = sigmod(x)\n")
    assert isinstance(result.error_in_exec, UsageError)
    assert "Traceback" not in cap.stdout + cap.stderr


def test_help(shell):
    with capture_output() as cap:
        shell.run_line_magic("symact", "--help")
    assert "--backend" in cap.stdout and "--range" in cap.stdout
    with capture_output() as cap:
        shell.run_cell_magic("symact", "--help", "\n")
    assert "--no-plot" in cap.stdout and "--code" in cap.stdout
    with pytest.raises(UsageError, match="cell magic"):
        shell.run_line_magic("symact", "--backend numpy")
    with capture_output() as cap:
        shell.run_line_magic("symnb", "--help")
    assert "info" in cap.stdout and "cache clear" in cap.stdout


@pytest.mark.parametrize("source", ["%%symact --help", "%%symact -h\n\n"])
def test_help_alone_in_a_cell(shell, source):
    """IPython refuses a cell magic with an empty body ("the cell body is empty");
    the quickstart advertises ``%%symact --help`` alone in a cell."""
    with capture_output() as cap:
        result = shell.run_cell(source)
    assert result.success, result.error_in_exec
    assert "--backend" in cap.stdout and "--no-plot" in cap.stdout


def test_empty_cell_without_help_says_what_to_write(shell):
    with capture_output():
        result = shell.run_cell("%%symact --backend numpy")
    assert isinstance(result.error_in_exec, UsageError)
    assert "defines nothing" in str(result.error_in_exec)


@pytest.mark.parametrize(
    "source",
    [
        "%symnb 'unterminated",
        '%symnb backend "numpy',
        "%%symact --range '-3:3\nf(x) = x\n",
    ],
)
def test_unterminated_quote_is_one_line(shell, source):
    with capture_output() as cap:
        result = shell.run_cell(source)
    error = result.error_in_exec
    assert isinstance(error, UsageError) and "No closing quotation" in str(error)
    assert len(str(error).splitlines()) == 1
    assert "Traceback" not in cap.stdout + cap.stderr


# ---------------------------------------------------------------- %symnb


def test_symnb_info(shell):
    with capture_output() as cap:
        shell.run_line_magic("symnb", "info")
    for name in ("numpy", "cpp", "cuda"):
        assert name in cap.stdout
    assert "usable" in cap.stdout


def test_symnb_backend_and_device(shell):
    with capture_output() as cap:
        shell.run_line_magic("symnb", "backend cpp")
        shell.run_line_magic("symnb", "device 1")
        shell.run_line_magic("symnb", "")
    assert state.backend == "cpp" and state.device == 1
    assert "backend: cpp" in cap.stdout and "device:  1" in cap.stdout
    for bad in ("backend tpu", "device -2", "device x", "backend a b", "frobnicate"):
        with pytest.raises(UsageError):
            shell.run_line_magic("symnb", bad)
    assert state.backend == "cpp" and state.device == 1


def test_symnb_cache_and_clear(shell, tmp_path, monkeypatch):
    from symnb.backends import cache as cache_module

    monkeypatch.setenv("SYMNB_CACHE_DIR", str(tmp_path / "cache"))
    cache_module._reset_default_cache()
    try:
        with capture_output() as cap:
            shell.run_line_magic("symnb", "cache")
        assert str(tmp_path / "cache") in cap.stdout and "entries" in cap.stdout
        with capture_output() as cap:
            shell.run_line_magic("symnb", "cache clear")
        assert "removed" in cap.stdout and "entries: 0" in cap.stdout
        with pytest.raises(UsageError):
            shell.run_line_magic("symnb", "cache purge")
    finally:
        cache_module._reset_default_cache()


def test_symnb_library(shell):
    with capture_output() as cap:
        shell.run_line_magic("symnb", "library")
    assert "relu" in cap.stdout and "mse" in cap.stdout


def test_bound_activation_trains(shell):
    from symnb import nn

    run(shell, "--backend numpy -q", "tswish(x; beta=1.0) = x*sigmoid(beta*x)")
    X = np.random.default_rng(0).normal(size=(64, 2)).astype(np.float32)
    y = (X[:, 0] * X[:, 1] > 0).astype(np.float32)
    model = nn.MLP(
        [2, 8, 1], activation=shell.user_ns["tswish"], backend="numpy", seed=0
    )
    history = model.fit(X, y, epochs=2, batch_size=16, lr=0.01, live=False)
    losses = history["loss"]
    assert len(losses) == 2 and np.all(np.isfinite(losses))


def test_symact_names_are_usable_in_later_formulas(shell):
    from symnb.formula import compose

    try:
        run(shell, "--no-compile -q", "cbump(x; a=2.0) = exp(-a*x**2)")
        run(shell, "--backend numpy -q", "ctwice(x) = cbump(2*x) + gelu(x)")
        k = shell.user_ns["ctwice"].kernel
        x = np.array([-1.0, 0.0, 0.5], dtype=np.float32)
        gelu = np.array([-0.15865525393145707, 0.0, 0.34573123063700656])
        np.testing.assert_allclose(k.forward(x), np.exp(-8 * x**2) + gelu, rtol=1e-6)
        with pytest.raises(UsageError, match="shadows the library activation"):
            run(shell, "--no-compile -q", "gelu(x) = 2*x")
    finally:
        compose.unregister("cbump")
        compose.unregister("ctwice")


def test_symact_replace_shadows_a_library_activation(shell):
    """Without --replace a shadowing cell is refused at its line and binds nothing;
    with --replace later formulas use the user's definition."""
    from symnb.formula import compose

    shell.user_ns.pop("softsign", None)
    cell = "cok(x) = x\nsoftsign(x) = 3*x"
    try:
        with pytest.raises(UsageError, match="shadows the library") as err:
            run(shell, "--no-compile -q", cell)
        # line 1 is the %%symact line, so the second definition is line 3
        assert "(line 3, column" in str(err.value)
        assert "softsign(x) = 3*x" in str(err.value)
        assert "add --replace to the %%symact line" in str(err.value)
        assert "softsign" not in shell.user_ns and "cok" not in shell.user_ns
        run(shell, "--no-compile -q --replace", cell)
        run(shell, "--backend numpy -q", "cuse(x) = softsign(x) + 1")
        x = np.array([-2.0, 0.0, 0.5], dtype=np.float32)
        k = shell.user_ns["cuse"].kernel
        np.testing.assert_allclose(k.forward(x), 3 * x + 1, rtol=1e-6)
        g = np.ones(3, dtype=np.float32)
        np.testing.assert_allclose(k.backward(x, g), np.full(3, 3.0), rtol=1e-6)
    finally:
        for name in ("cok", "softsign", "cuse"):
            compose.unregister(name)


def test_a_user_variable_that_is_no_formula_is_kept(shell):
    """%%symact once replaced a trained model (or any variable) of the same name with
    only a warning; now the cell is refused, naming the variable, its type and the
    fix, and nothing is bound. Earlier activations may still be redefined."""
    model = shell.user_ns["model"] = symnb.nn.MLP([2, 3, 1], seed=0)
    shell.user_ns["results"] = [1, 2]
    try:
        with pytest.raises(UsageError) as err:
            run(shell, "--backend numpy -q", "fresh1(x) = x\nmodel(x) = 2*x\n")
        text = str(err.value)
        assert "'model' already names a notebook variable of type MLP" in text
        assert "(line 3)" in text and "choose another name" in text
        assert "--replace" in text and "nothing was bound" in text
        assert shell.user_ns["model"] is model and "fresh1" not in shell.user_ns
        with pytest.raises(UsageError, match="'results'.*type list"):
            run(shell, "--backend numpy -q", "results(x) = 3*x")
        run(shell, "--backend numpy -q", "again(x) = x")
        run(shell, "--backend numpy -q", "again(x) = 2*x")  # an activation: allowed
        assert shell.user_ns["again"].text.replace(" ", "") == "2*x"
        run(shell, "--backend numpy -q --replace", "results(x) = 3*x")
        assert isinstance(shell.user_ns["results"], symnb.Activation)
    finally:
        for name in ("model", "results", "again", "fresh1"):
            shell.user_ns.pop(name, None)


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("--range -inf:inf", "--range: a range needs finite LOW < HIGH"),
        ("--range -1e308:1e308", "'-1e308:1e308' does not fit the float32 plot grid"),
        ("--range -1e300:1e300", "does not fit the float32"),
        ("--device 99999999999999999999", "--device: device=99999999999999999999"),
    ],
)
def test_ranges_and_devices_out_of_reach_are_refused(shell, line, fragment):
    """-inf:inf was read as an option ('expected one argument'); -1e308:1e308 drew a
    plot of inf and NaN with NumPy overflow warnings; a device index beyond what CUDA
    numbers was accepted."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UsageError) as err:
            run(shell, f"--backend numpy {line}", "far(x) = x")
    assert fragment in str(err.value) and "far" not in shell.user_ns
    outputs, _ = run(shell, "--backend numpy --range -1e30:1e30", "near(x) = x")
    assert mimes(outputs, "image/png")
    shell.user_ns.pop("near", None)


def test_symnb_device_beyond_what_cuda_numbers_is_refused(shell):
    with pytest.raises(UsageError, match=r"99999999999999999999 is no GPU index"):
        shell.run_line_magic("symnb", "device 99999999999999999999")
    assert state.device == 0
