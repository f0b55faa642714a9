"""The ``symnb`` console command: output, exit codes and messages on bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from symnb import cli


def _usable(name):
    from symnb.backends import available

    status = available().get(name)
    return status is not None and status.usable


def test_show_prints_f_derivative_and_latex(capsys):
    code = cli.main(["show", "x*sigmoid(beta*x)", "--const", "beta=1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "f(x) = " in out and "f'(x) = " in out
    assert "sigmoid" in out
    assert "LaTeX f(x):" in out and r"\sigma" in out
    assert "beta=1" in out


def test_show_stability_warning(capsys):
    code = cli.main(["show", "log(1 + exp(x))"])
    out = capsys.readouterr().out
    assert code == 0
    assert "warning:" in out  # the naive softplus is rewritten, with a note


def test_show_library_name_and_loss(capsys):
    assert cli.main(["show", "gelu"]) == 0
    assert "erf" in capsys.readouterr().out
    assert cli.main(["show", "(y_pred - y_true)**2", "--loss"]) == 0
    out = capsys.readouterr().out
    assert "l(y_pred, y_true) = " in out and "dl/dy_pred = " in out


def test_compile_numpy_emit_source(capsys):
    code = cli.main(
        [
            "compile",
            "x*sigmoid(beta*x)",
            "-c",
            "beta=2",
            "--backend",
            "numpy",
            "--emit-source",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "compiled: backend numpy" in out and "numpy source" in out


@pytest.mark.skipif(not _usable("cpp"), reason="g++ not usable here")
def test_compile_cpp_emit_source(capsys):
    code = cli.main(
        [
            "compile",
            "x*sigmoid(beta*x)",
            "--const",
            "beta=1",
            "--backend",
            "cpp",
            "--emit-source",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "compiled: backend cpp" in out
    assert "symnb_forward" in out and "extern" in out


@pytest.mark.skipif(_usable("cuda"), reason="CUDA is usable here")
def test_compile_unavailable_backend_strict_exit_3(capsys):
    code = cli.main(["compile", "x", "--backend", "cuda", "--strict"])
    assert code == cli.EXIT_BACKEND
    assert "cuda" in capsys.readouterr().err


def test_info(capsys):
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    for name in ("numpy", "cpp", "cuda"):
        assert name in out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["show", "sigmod(x)"], "sigmoid"),
        (["show", "x*k"], "k"),
        (["show", "   "], "empty"),
        (["show", "__import__('os')"], "not allowed"),
        (["show", "2x"], "*"),
        (["show", "x*beta", "--const", "gamma=1"], ""),
        (["compile", "x*(1+", "--backend", "numpy"], ""),
    ],
)
def test_bad_formula_exit_1(capsys, argv, fragment):
    code = cli.main(argv)
    captured = capsys.readouterr()
    assert code == cli.EXIT_FORMULA
    assert captured.err.startswith("symnb: error:")
    assert fragment in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    "argv",
    [
        ["show"],
        ["show", "x", "--const", "beta"],
        ["show", "x", "--const", "beta=abc"],
        ["show", "x", "--const", "beta=inf"],
        ["compile", "x", "--backend", "tpu"],
        ["frobnicate"],
        [],
    ],
)
def test_bad_command_line_exit_2(capsys, argv):
    assert cli.main(argv) == cli.EXIT_USAGE
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err


def test_help_and_version(capsys):
    assert cli.main(["--help"]) == 0
    assert "show" in capsys.readouterr().out
    assert cli.main(["--version"]) == 0


def test_cache_command(capsys, tmp_path, monkeypatch):
    from symnb.backends import cache as cache_module

    monkeypatch.setenv("SYMNB_CACHE_DIR", str(tmp_path / "c"))
    cache_module._reset_default_cache()
    try:
        assert cli.main(["cache"]) == 0
        assert "entries" in capsys.readouterr().out
        assert cli.main(["cache", "clear"]) == 0
        assert "removed" in capsys.readouterr().out
    finally:
        cache_module._reset_default_cache()


def test_console_script_runs():
    """The installed ``symnb`` entry point (or ``python -m symnb.cli``) works."""
    exe = Path(sys.executable).with_name("symnb")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "symnb.cli"]
    env = dict(os.environ)
    result = subprocess.run(
        cmd + ["show", "x*sigmoid(beta*x)", "--const", "beta=1"],
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "f'(x) = " in result.stdout
    bad = subprocess.run(
        cmd + ["show", "tahn(x)"],
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 1 and "tanh" in bad.stderr


def test_formula_starting_with_minus(capsys):
    assert cli.main(["show", "-x*tanh(x)"]) == 0
    assert "f(x) = -x*tanh(x)" in capsys.readouterr().out
    assert cli.main(["show", "--loss", "-y_pred*y_true"]) == 0
    assert "dl/dy_pred = -y_true" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["compile", "x", "--device", "-1"], "--device"),
        (["compile", "x", "--backend", "numpy", "--device", "-3"], "--device"),
        (["compile", "x", "--device", "1.5"], "--device"),
        (["compile", "x", "--device", str(10**30)], "--device"),
        (["compile", "x", "--dtype", "float16"], "--dtype"),
        (["compile", "x", "--backend", "tpu"], "--backend"),
        (["show", "x", "--const", "beta=1e400"], "finite"),
        (["show"], "formula"),
        (["frobnicate"], "frobnicate"),
    ],
)
def test_bad_argument_value_is_one_line_exit_2(capsys, argv, fragment):
    """``symnb compile x --device -1`` once printed a traceback and exited 1."""
    assert cli.main(argv) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("symnb") and fragment in err
    assert len(err.strip().splitlines()) == 1, err


def test_library_value_error_is_one_line_exit_2(capsys, monkeypatch):
    """An argument value only the library can judge is a usage error too."""
    import symnb

    def refuse(self, **kwargs):
        raise ValueError("device=7 does not exist here (injected)")

    monkeypatch.setattr(symnb.Activation, "compile", refuse)
    assert cli.main(["compile", "x", "--device", "7"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err == "symnb: error: device=7 does not exist here (injected)\n"


def test_bad_device_in_a_subprocess():
    result = subprocess.run(
        [sys.executable, "-m", "symnb.cli", "compile", "x", "--device", "-1"],
        capture_output=True,
        check=False,
        text=True,
        timeout=120,
    )
    assert result.returncode == cli.EXIT_USAGE
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "--device" in result.stderr and result.stdout == ""


@pytest.mark.parametrize("spelling", ["FLOAT64", "f8", "double"])
def test_dtype_spellings_are_the_apis(capsys, spelling):
    """``--dtype`` was choices=[float32, float64]: FLOAT64 and f8 were 'invalid
    choice' although compile(dtype=...) and %%symact take them."""
    assert cli.main(["compile", "x*x", "--backend", "numpy", "--dtype", spelling]) == 0
    assert "compiled: backend numpy, float64" in capsys.readouterr().out
