"""``python -m symnb ...`` failed with "No module named symnb.__main__; 'symnb' is a
package and cannot be directly executed": where the console script is not on PATH
(a venv not activated, a notebook's ``!python -m symnb``) there was no command at all.
symnb/__main__.py runs symnb.cli.main with its exit codes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from symnb import cli


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "symnb", *args],
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )


def test_python_m_symnb_shows_a_formula() -> None:
    result = run("show", "x*sigmoid(beta*x)", "--const", "beta=1")
    assert result.returncode == cli.EXIT_OK, result.stderr
    assert "f'(x) = " in result.stdout


@pytest.mark.parametrize(
    ("args", "code", "named"),
    [
        (("show", "x*"), cli.EXIT_FORMULA, "syntax error"),
        (("nope",), cli.EXIT_USAGE, "'nope'"),
        (("show", "x", "--const", "k=nan"), cli.EXIT_USAGE, "'k'"),
    ],
)
def test_python_m_symnb_bad_arguments(args, code, named) -> None:
    result = run(*args)
    assert result.returncode == code
    assert named in result.stderr and "Traceback" not in result.stderr
