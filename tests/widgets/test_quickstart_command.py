"""The first README command ends by printing how to open the quickstart in JupyterLab
(with ``--allow-root`` only when run as root)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("exit_code", [0, 1])
def test_quickstart_prints_the_jupyterlab_command(tmp_path, exit_code) -> None:
    fake = tmp_path / "bin" / "python"  # stands in for the notebook run
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\ncat > /dev/null\nexit {exit_code}\n")
    fake.chmod(0o755)
    (tmp_path / "bin" / "jupyter").write_text("#!/bin/sh\n")
    (tmp_path / "bin" / "jupyter").chmod(0o755)
    env = dict(os.environ, SYMNB_SKIP_SETUP="1", PYTHON=str(fake))
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "quickstart.sh")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == exit_code  # a failed notebook still fails the script
    last = result.stdout.strip().splitlines()[-1].strip()
    notebook = ROOT / "notebooks" / "01_quickstart.ipynb"
    root_flag = " --allow-root" if os.geteuid() == 0 else ""
    assert last == f"{tmp_path / 'bin' / 'jupyter'} lab{root_flag} {notebook}"
    assert notebook.exists()
