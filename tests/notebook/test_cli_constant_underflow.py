"""``symnb show 'a*x' -c a=1e-400`` read the constant as 0.0 and showed f = 0
without a word (``%%symact`` and formula text refuse such a number). Now it is a
command-line error naming the constant; written zeros stay zero."""

from __future__ import annotations

import re

import pytest

from symnb import cli


@pytest.mark.parametrize("value", ["1e-400", "-2.5E-999", "0.0001e-321", "1_0e-400"])
def test_underflowing_constant_is_refused(capsys, value) -> None:
    code = cli.main(["show", "a*x", "-c", f"a={value}"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE
    assert "'a'" in err and "too small for a float" in err


@pytest.mark.parametrize("value", ["0", "0.0", "-0.0", "0e5", "0.000e-400"])
def test_written_zeros_are_zero(capsys, value) -> None:
    assert cli.main(["show", "a*x + x", "-c", f"a={value}"]) == 0
    assert re.search(r"^constants: a=-?0$", capsys.readouterr().out, re.MULTILINE)
