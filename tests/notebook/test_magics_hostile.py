"""``%%symact`` and ``%symnb`` with odd option lines and cell headers (a hostile-input
probe, 2026-12-04). Before the fixes:

- quoted values kept their quotes: ``--backend "numpy"`` was 'unknown backend
  \\'"numpy"\\'', ``--range "-2:2"`` 'expected one argument';
- a ``# comment`` on the magic line was 'unrecognized arguments: # comment', and
  unknown options did not point to ``--help``; ``%symact f(x) = x`` (one %) said
  'unrecognized arguments' instead of "a cell magic"; ``--dtype FLOAT64`` was refused
  while ``--backend NUMPY`` was taken;
- ``--dtype float64 --no-compile`` plotted in float32 (a range of 1e39 drew inf,
  with NumPy overflow warnings);
- a non-ASCII character in a header was reported as "expected '(' after 'f'" (``fä``)
  or "a definition must start with a name" (a byte-order mark, ``ƒ``);
- a constant named ``pi`` or ``E`` replaced the number in the kernels while the LaTeX
  still showed the letter;
- ``l(y_true, y_pred) = ...`` (scikit-learn's order) silently made y_true the
  prediction, so the gradient was taken with respect to the target.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.utils.capture import capture_output

import symnb
from symnb.notebook import display, state


@pytest.fixture(autouse=True)
def _fresh(shell):
    state.backend = "auto"
    state.device = 0
    for name in ("fa", "lq"):
        shell.user_ns.pop(name, None)
    yield


def cell(shell, line: str, body: str) -> str:
    with capture_output() as cap:
        shell.run_cell_magic("symact", line, body)
    return cap.stdout


def refused(shell, line: str, body: str) -> str:
    with pytest.raises(UsageError) as info:
        cell(shell, line, body)
    return str(info.value)


def value(shell, name: str, x: float) -> float:
    kernel = shell.user_ns[name].compile(backend="numpy", dtype="float64")
    return float(kernel.forward(np.array([x]))[0])


# ---------------------------------------------------------------- the options line


@pytest.mark.parametrize(
    "line", ['--backend "numpy" -q', "--backend 'numpy' -q", '--backend="numpy" -q']
)
def test_quoted_option_values_are_unquoted(shell, line) -> None:
    cell(shell, line, "fa(x) = 2*x")
    assert state.last_compile["backend"] == "numpy"
    assert value(shell, "fa", 3.0) == 6.0


@pytest.mark.parametrize("quoted", ['"-2:2"', "'-2:2'", '"-2 : 2"'.replace(" ", "")])
def test_quoted_negative_range_reaches_the_range(shell, quoted) -> None:
    cell(shell, f"--no-compile --range {quoted}", "fa(x) = 2*x")
    message = refused(shell, f'--no-compile --range "{quoted[1:-1][::-1]}"', "fa(x)=x")
    assert "--range" in message and "expected one argument" not in message


def test_session_backend_quoted(shell) -> None:
    with capture_output():
        shell.run_line_magic("symnb", 'backend "numpy"')
    assert state.backend == "numpy"


def test_comment_on_the_magic_line(shell) -> None:
    cell(shell, "--backend numpy -q   # numpy for the class", "fa(x) = 2*x")
    assert state.last_compile["backend"] == "numpy"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("--frobnicate", ["unrecognized arguments: --frobnicate"]),
        ("--backend", ["--backend", "expected one argument"]),
        ("extra words", ["unrecognized arguments: extra words"]),
    ],
)
def test_option_mistakes_point_to_help(shell, line, words) -> None:
    message = refused(shell, line, "fa(x) = x")
    for word in [*words, "%%symact --help"]:
        assert word in message
    assert "fa" not in shell.user_ns


def test_symnb_option_mistake_points_to_help(shell) -> None:
    with pytest.raises(UsageError) as info:
        shell.run_line_magic("symnb", "--foo")
    assert "%symnb --help" in str(info.value)


@pytest.mark.parametrize("line", ["fa(x) = x", "", "--backend numpy"])
def test_symact_as_a_line_magic_says_it_is_a_cell_magic(shell, line) -> None:
    with pytest.raises(UsageError) as info:
        shell.run_line_magic("symact", line)
    assert "is a cell magic" in str(info.value)


@pytest.mark.parametrize("spelling", ["FLOAT64", "f8", "double"])
def test_dtype_spellings_are_the_apis(shell, spelling) -> None:
    """--dtype takes what compile(dtype=...) takes: f8 and double were refused
    ('invalid choice'), while FLOAT64 was taken here and refused by compile."""
    cell(shell, f"--dtype {spelling} --backend numpy -q", "fa(x) = 2*x")
    assert shell.user_ns["fa"].kernel.dtype == np.float64
    assert symnb.activation("relu").compile("numpy", dtype=spelling).dtype == "float64"


@pytest.mark.parametrize("spelling", ["float16", "int8", "float_"])
def test_a_dtype_compile_refuses_is_refused_the_same_way(shell, spelling) -> None:
    with pytest.raises(ValueError) as api:
        symnb.activation("relu").compile("numpy", dtype=spelling)
    shell.user_ns.pop("fa", None)
    with pytest.raises(UsageError) as magic:
        cell(shell, f"--dtype {spelling} --backend numpy -q", "fa(x) = 2*x")
    assert str(magic.value) == f"--dtype: {api.value}"
    assert "fa" not in shell.user_ns


def test_no_compile_plot_uses_the_dtype(shell) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cell(shell, "--dtype float64 --no-compile --range -1e39:1e39", "fa(x) = 2*x")
    act = shell.user_ns["fa"]
    kernel = act.compile(backend="numpy", dtype="float64")
    x = np.linspace(-1e39, 1e39, 5)
    np.testing.assert_array_equal(kernel.forward(x), 2 * x)  # what the plot draws
    image = display.plot_image(act, (-1e39, 1e39), dtype="float64")
    assert image.data[:4] == b"\x89PNG"


# ---------------------------------------------------------------- the cell headers


@pytest.mark.parametrize(
    ("body", "char", "column", "hint"),
    [
        ("fä(x) = x*2", "U+00E4", 2, "ASCII"),
        ("\ufefffa(x) = x*2", "U+FEFF", 1, "invisible"),
        ("ƒ(x) = x*2", "U+0192", 1, "ASCII"),
        ("fa(x; β=1) = β*x", "U+03B2 GREEK SMALL LETTER BETA", 7, "write beta"),
        ("fa(ξ) = ξ*2", "U+03BE", 4, "write xi"),
        ("fa(x;\u00a0a=1) = a*x", "U+00A0", 6, "invisible"),
    ],
)
def test_non_ascii_header_characters_are_named(shell, body, char, column, hint) -> None:
    message = refused(shell, "-q", body)
    assert char in message and hint in message
    assert f"(line 2, column {column})" in message
    assert "fa" not in shell.user_ns


def test_non_ascii_in_the_formula_is_still_the_core_message(shell) -> None:
    message = refused(shell, "-q", 'fa(x; a=learnable(1, per="neuron")) = a*x + β')
    assert "type 'beta' instead" in message and "column 45" in message


@pytest.mark.parametrize("name", ["pi", "E", "exp", "relu", "sigmoid"])
def test_constants_may_not_take_formula_names(shell, name) -> None:
    message = refused(shell, "-q", f"fa(x; {name}=2) = {name}*x")
    assert f"constant {name!r}" in message and f"e.g. {name}_" in message
    assert "(line 2, column 7)" in message
    assert "fa" not in shell.user_ns


def test_pi_still_means_pi(shell) -> None:
    cell(shell, "-q --backend numpy", "fa(x; pi_=2) = pi*x + pi_")
    assert value(shell, "fa", 1.0) == pytest.approx(np.pi + 2.0, rel=1e-15)


@pytest.mark.parametrize(
    "inputs",
    ["y_true, y_pred", "y_true, p", "t, y_pred", "y, y_hat", "target, output"],
)  # y, y_hat, target, output: names a loss formula reads as y_true / y_pred
def test_loss_inputs_in_the_other_order_are_refused(shell, inputs) -> None:
    message = refused(shell, "--loss -q", f"lq({inputs}) = (y_pred - 2*y_true)**2")
    assert "prediction first" in message and "lq(y_pred, y_true)" in message
    assert "lq" not in shell.user_ns


@pytest.mark.parametrize(
    "inputs", ["y_pred, y_true", "p, t", "y_pred, t", "p, y_true", "y_hat, y"]
)
def test_loss_inputs_in_order_are_positional(shell, inputs) -> None:
    first, second = (s.strip() for s in inputs.split(","))
    body = f"lq({inputs}) = ({first} - 2*{second})**2"
    cell(shell, "--loss -q --backend numpy", body)
    loss = shell.user_ns["lq"].compile(backend="numpy", dtype="float64")
    p, t = np.array([3.0, -1.0]), np.array([1.0, 0.5])
    reference = (p - 2 * t) ** 2
    np.testing.assert_allclose(
        [float(loss.value(p[i : i + 1], t[i : i + 1])) for i in range(2)], reference
    )


@pytest.mark.parametrize(
    ("line", "dtype"),
    [
        ("--range 1:1.00000001 --no-compile", "float32"),
        ("--range 1e7:10000000.5 --no-compile", "float32"),
    ],
)
def test_range_narrower_than_the_dtype_is_refused(shell, line, dtype) -> None:
    """Every float32 sample of 1:1.00000001 is the same x: the plot was one line."""
    message = refused(shell, line, "fa(x) = 2*x")
    assert f"narrower than {dtype}" in message and "--range" in message


def test_narrow_range_that_the_dtype_resolves_is_plotted(shell) -> None:
    cell(shell, "--range 1:1.00000001 --dtype float64 --no-compile", "fa(x) = 2*x")
    assert "fa" in shell.user_ns


@pytest.mark.parametrize("gap", ["\t", " \t ", "\t\t"])
def test_tab_after_the_magic_name(shell, gap) -> None:
    """IPython split '%%symact\\t--no-plot' at spaces only: 'Cell magic not found'."""
    result = shell.run_cell(f"%%symact{gap}--no-plot -q --backend numpy\nfa(x) = 3*x\n")
    assert result.success, result.error_in_exec or result.error_before_exec
    assert value(shell, "fa", 2.0) == 6.0
    with capture_output() as cap:
        result = shell.run_cell(f"%%symact{gap}--help\n")
    assert result.success and "--replace" in cap.stdout


def test_failed_cell_of_many_definitions_lists_a_few_names(shell) -> None:
    body = "\n".join(f"g{i:02d}(x) = x*{i}" for i in range(50)) + "\nbad(x) = x*("
    message = refused(shell, "-q", body)
    assert "bad: syntax error" in message
    tail = message.rsplit("\n", 1)[-1]
    assert tail == (
        "(nothing was bound; bad, g00, g01, g02, g03, g04, g05, g06 and 43 more "
        "keep their previous values)"
    )
    assert "g07" not in shell.user_ns


def test_loss_names_of_the_inputs_are_not_read_when_the_inputs_are_renamed(shell):
    # lq(p, t): a y in the formula is no input (the formula's own aliases, y -> y_true,
    # apply only to the canonical y_pred, y_true)
    message = refused(shell, "--loss -q", "lq(p, t) = (p - y)**2")
    assert "unknown symbol 'y'" in message and "lq" not in shell.user_ns


@pytest.mark.parametrize("per", ['"everything"', "'Neuron'", "3", "neuron"])
def test_learnable_per_names_the_bad_value_and_the_accepted_ones(shell, per) -> None:
    message = refused(shell, "-q", f"fa(x; a=learnable(1.0, per={per})) = a*x")
    assert f"per= of constant 'a' is {per!r}" in message
    assert '"layer"' in message and '"neuron"' in message
    assert "fa" not in shell.user_ns


def test_learnable_per_neuron_is_still_read(shell) -> None:
    cell(shell, "-q --backend numpy", 'fa(x; a=learnable(2.0, per="neuron")) = a*x')
    assert value(shell, "fa", 3.0) == 6.0
