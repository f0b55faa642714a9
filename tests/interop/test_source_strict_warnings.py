"""Headers from ``Activation.to_source`` build under ``-Wall -Wextra -Werror``
(both dialects, both dtypes): the internal functions take constants and an offset
they may not use, and -Wextra's unused-parameter warnings failed such builds."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import symnb
from symnb import config

CXX = shutil.which(config.cxx())


@pytest.mark.skipif(CXX is None, reason=f"{config.cxx()} not found on PATH")
@pytest.mark.parametrize("dialect", ["cpp", "cuda"])
def test_headers_build_with_wextra_werror(dialect, tmp_path):
    relu = symnb.Activation("Max(0, x)", name="r")
    swish = symnb.Activation("x*sigmoid(b*x)", b=1.0, name="s")
    includes = []
    for act in (relu, swish):
        for dtype in ("float32", "float64"):
            path = tmp_path / f"{act.name}_{dtype}.h"
            path.write_text(act.to_source(dialect, dtype))
            includes.append(f'#include "{path.name}"')
    src = tmp_path / "main.cpp"
    src.write_text(
        "\n".join(includes)
        + "\nint main() { return symnb_r::f(1.0f) + symnb_s_f64::df(1.0) > 0; }\n"
    )
    flags = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only"]
    proc = subprocess.run(
        [CXX, *flags, str(src)],
        check=False,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[:2000]
