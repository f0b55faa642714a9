"""The ``symnb`` command with arguments that are wrong in quiet ways (a hostile-input
probe, 2026-12-04). Before the fixes: a constant given twice kept the last value
without a word; ``--const pi=2`` made the kernel compute 2 where the LaTeX showed pi;
``symnb show mse`` (a loss without ``--loss``) hinted "declare it as a constant"; an
unusable cache directory printed Python's warning format with a line of symnb's
source on ``symnb cache``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from symnb import cli


def test_constant_given_twice_is_refused(capsys) -> None:
    code = cli.main(["show", "x*a", "-c", "a=1", "--const", "a=2"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE
    assert "--const a is given twice (a=1 and a=2)" in err


@pytest.mark.parametrize("name", ["pi", "E", "exp", "sigmoid"])
def test_constant_with_a_formula_name_is_refused(capsys, name) -> None:
    code = cli.main(["show", f"x*{name}", "-c", f"{name}=2"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE
    assert f"--const {name}=2" in err and f"{name}_" in err


def test_pi_keeps_its_value(capsys) -> None:
    assert cli.main(["compile", "x*pi + c", "-c", "c=2", "--backend", "numpy"]) == 0
    import symnb

    kernel = symnb.Activation("x*pi + c", c=2.0).compile(
        backend="numpy", dtype="float64"
    )
    np.testing.assert_allclose(kernel.forward(np.array([1.0])), [np.pi + 2.0])


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["show", "mse"], "'mse' is a library loss: add --loss"),
        (["show", "huber"], "'huber' is a library loss: add --loss"),
        (["show", "relu", "--loss"], "'relu' is a library activation: leave out"),
        (["show", "(y_pred - y_true)**2"], "in y_pred and y_true is a loss"),
        (["compile", "abs(y_pred - y_true)"], "in y_pred and y_true is a loss"),
    ],
)
def test_formula_of_the_other_kind_says_which_flag(capsys, argv, hint) -> None:
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == cli.EXIT_FORMULA
    assert hint in err.split("hint: ", 1)[1]
    assert "declare it as a constant" not in err
    assert err.count("hint:") == 1


def test_unknown_symbol_keeps_the_core_hint(capsys) -> None:
    assert cli.main(["show", "x*k"]) == cli.EXIT_FORMULA
    assert "declare it as a constant" in capsys.readouterr().err


class _StubCache:
    root = "/tmp/somewhere"
    fallback_reason = "cannot create /nope: Permission denied"

    def entries(self):
        return []

    def size_bytes(self):
        return 0

    def clear(self):
        pass


@pytest.mark.parametrize("argv", [["cache"], ["cache", "clear"]])
def test_cache_warning_is_one_line(capsys, monkeypatch, argv) -> None:
    from symnb.backends import cache

    def unusable():
        warnings.warn("kernel cache: cannot create /nope; using /tmp/x", stacklevel=2)
        return _StubCache()

    monkeypatch.setattr(cache, "default_cache", unusable)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        code = cli.main(argv)
    captured = capsys.readouterr()
    assert code == 0
    assert captured.err == (
        "symnb: warning: kernel cache: cannot create /nope; using /tmp/x\n"
    )
    assert "cache directory: /tmp/somewhere" in captured.out
    assert "(temporary: cannot create /nope: Permission denied)" in captured.out


@pytest.mark.parametrize(
    "argv", [["show", "tanh"], ["compile", "tanh", "--backend", "numpy"], ["info"]]
)
def test_output_to_a_full_disk_is_one_line_and_its_own_exit_code(argv) -> None:
    # `symnb show tanh > /dev/full` ended in a traceback (OSError: [Errno 28] from
    # print) with exit code 1, the code of a wrong formula
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "symnb.cli", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == cli.EXIT_OUTPUT == 5
    assert done.stderr == "symnb: error: [Errno 28] No space left on device\n"
