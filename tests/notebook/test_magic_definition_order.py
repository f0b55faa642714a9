"""``%%symact`` cells whose definitions call each other, found by the sixteenth
probe of the notebook faces.

A definition calling one written below it in the same cell (``n1(x) = n2(x) + 1``
above ``n2(x) = x*x``) failed with "unknown function 'n2'" and a hint listing sixty
allowed functions: a cell is built in the order its definitions call each other
now, and shown in the order written. Definitions that call each other in a circle
are one clear error naming them; nothing is bound."""

from __future__ import annotations

import numpy as np
import pytest
from IPython.core.error import UsageError


def _values(act, x):
    return act.compile(backend="numpy", dtype="float64").forward(x)


def test_a_definition_may_call_one_written_below_it(shell, capsys):
    shell.run_cell_magic(
        "symact",
        "-q --backend numpy",
        "b16_outer(x) = b16_mid(x) + 1\n"
        "b16_mid(x; k=2.0) = k*b16_inner(x)\n"
        "b16_inner(x) = x*tanh(x)\n",
    )
    x = np.linspace(-3, 3, 13)
    inner = x * np.tanh(x)  # the reference, in float64
    ns = shell.user_ns
    np.testing.assert_allclose(_values(ns["b16_inner"], x), inner, rtol=1e-12)
    np.testing.assert_allclose(_values(ns["b16_mid"], x), 2 * inner, rtol=1e-12)
    np.testing.assert_allclose(_values(ns["b16_outer"], x), 2 * inner + 1, rtol=1e-12)
    out = capsys.readouterr().out  # shown in the order written
    assert out.index("b16_outer") < out.index("b16_mid") < out.index("b16_inner")


def test_calling_its_own_name_still_means_the_earlier_definition(shell):
    shell.run_cell_magic("symact", "-q --backend numpy", "b16_h(x) = x*tanh(x)\n")
    shell.run_cell_magic("symact", "-q --backend numpy", "b16_h(x) = 2*b16_h(x)\n")
    x = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(
        _values(shell.user_ns["b16_h"], x), 2 * x * np.tanh(x), rtol=1e-12
    )


@pytest.mark.parametrize(
    ("cell", "circle"),
    [
        ("b16_m1(x) = b16_m2(x) + 1\nb16_m2(x) = b16_m1(x)*2\n", "b16_m1 -> b16_m2"),
        (
            "b16_c1(x) = b16_c2(x)\nb16_c2(x) = b16_c3(x)\nb16_c3(x) = b16_c1(x)\n",
            "b16_c1 -> b16_c2 -> b16_c3 -> b16_c1",
        ),
    ],
)
def test_a_circle_is_named_and_nothing_is_bound(shell, cell, circle):
    with pytest.raises(UsageError, match="call each other in a circle") as info:
        shell.run_cell_magic("symact", "-q --no-compile", cell)
    assert circle in str(info.value) and "(line 2)" in str(info.value)
    assert not any(name in shell.user_ns for name in ("b16_m1", "b16_c1", "b16_c3"))


def test_a_long_chain_written_backwards_is_ordered_without_recursion():
    """Each line calls the one below it, 3,000 deep (past Python's recursion limit):
    the build order is the reverse of the lines."""
    from symnb.notebook.magics import _in_build_order
    from symnb.notebook.syntax import parse_cell

    n = 3000
    lines = [f"k{i}(x) = k{i + 1}(x) + 1" for i in range(n)] + [f"k{n}(x) = x"]
    ordered = _in_build_order(parse_cell("\n".join(lines)))
    assert [d.name for d in ordered] == [f"k{i}" for i in range(n, -1, -1)]


@pytest.mark.parametrize(
    "cell",
    [
        "b16_za(x) = b16_zb(x) + 1\nb16_zb(x) = sigmod(x)\n",
        "b16_zb(x) = sigmod(x)\nb16_za(x) = b16_zb(x) + 1\n",
    ],
    ids=["caller-above", "caller-below"],
)
def test_a_caller_of_a_failed_definition_points_to_its_error(shell, cell):
    """Not a second "unknown function 'b16_zb'" with sixty allowed functions (and,
    had an earlier cell defined b16_zb, a caller built on the old one)."""
    with pytest.raises(UsageError) as info:
        shell.run_cell_magic("symact", "-q --no-compile", cell)
    text = str(info.value)
    assert "did you mean 'sigmoid'" in text
    assert "b16_za (line " in text and "calls b16_zb, which has an error" in text
    assert "unknown function 'b16_zb'" not in text
    assert "b16_za" not in shell.user_ns and "b16_zb" not in shell.user_ns
