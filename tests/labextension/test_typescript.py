"""Run the lab extension's own TypeScript unit tests (``jlpm test`` in labextension/).

They cover the ``%%symact`` tokenizer, the CodeMirror decorations and the parsing of
the kernel's status reply (node's built-in test runner, no browser). They need the
extension's ``node_modules``, which ``pip install .`` / ``pip install -e .`` create.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXT = Path(__file__).resolve().parents[2] / "labextension"


def _jlpm() -> str | None:
    beside = Path(sys.executable).with_name("jlpm")
    if beside.exists():
        return str(beside)
    return shutil.which("jlpm")


def test_typescript_unit_tests():
    jlpm = _jlpm()
    if jlpm is None:
        pytest.skip("jlpm not found (pip install jupyter_builder or jupyterlab)")
    if shutil.which("node") is None:
        pytest.skip("node not found")
    if not (EXT / "node_modules" / "typescript").is_dir():
        pytest.skip(
            "labextension/node_modules missing: pip install . (or cd labextension && jlpm)"
        )
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(jlpm).parent), env.get("PATH", "")])
    env.setdefault("FORCE_COLOR", "0")
    result = subprocess.run(
        [jlpm, "test"],
        cwd=EXT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    assert "fail 0" in output, output[-6000:]
