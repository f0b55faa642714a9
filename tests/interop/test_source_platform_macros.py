"""Activation.to_source's headers next to the macros platform headers define.

A header goes into the user's translation unit after whatever it included first:
<windows.h> (through rpcndr.h) defines ``small`` as ``char``, and the float32
softplus/logsigmoid helper of the prelude had a local ``const float small``, so
mish, softplus and logsigmoid headers failed to compile after <windows.h>
("expected unqualified-id"). Every library activation's header (both dialects,
both dtypes) now compiles after the object-like and function-like macros of
common platform headers, all in one translation unit (one g++ run).
"""

from __future__ import annotations

import shutil
import subprocess
import warnings

import pytest

import symnb
from symnb import config
from symnb.formula import library

CXX = shutil.which(config.cxx())

#: macros of platform headers that a header's identifiers could meet
PLATFORM_MACROS = """
/* Windows SDK (windef.h, rpcndr.h, combaseapi.h, winnt.h) */
#define small char
#define hyper __int64
#define near
#define far
#define NEAR
#define FAR
#define interface struct
#define IN
#define OUT
#define OPTIONAL
#define CONST const
#define pascal
#define cdecl
#define ERROR 0
#define DELETE (0x00010000L)
/* MSVC's math.h (non-__STDC__) */
#define DOMAIN 1
#define SING 2
#define OVERFLOW 3
#define UNDERFLOW 4
#define TLOSS 5
#define PLOSS 6
/* glibc sys/param.h */
#define MIN(a, b) (((a) < (b)) ? (a) : (b))
#define MAX(a, b) (((a) > (b)) ? (a) : (b))
#define roundup(x, y) ((((x) + ((y) - 1)) / (y)) * (y))
#define howmany(x, y) (((x) + ((y) - 1)) / (y))
#define powerof2(x) ((((x) - 1) & (x)) == 0)
#define isset(a, i) ((a)[(i) / 8] & (1 << ((i) % 8)))
#define setbit(a, i) ((a)[(i) / 8] |= 1 << ((i) % 8))
/* X11/X.h, Xlib.h */
#define None 0L
#define Bool int
#define Status int
#define Success 0
#define Always 2
/* Arduino.h */
#define sq(x) ((x) * (x))
#define constrain(amt, low, high) ((amt) < (low) ? (low) : ((amt) > (high) ? (high) : (amt)))
#define radians(deg) ((deg) * 0.017453292519943295)
#define degrees(rad) ((rad) * 57.29577951308232)
#define bit(b) (1UL << (b))
#define HIGH 0x1
#define LOW 0x0
"""


@pytest.mark.skipif(CXX is None, reason=f"{config.cxx()} not found on PATH")
@pytest.mark.parametrize("dialect", ["cpp", "cuda"])
def test_every_library_header_compiles_after_platform_macros(tmp_path, dialect):
    # one translation unit per dialect: the two dialects of one activation share
    # its namespace (module docstring of symnb.interop.source)
    headers = []
    for name in sorted(library.ACTIVATIONS):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # step's "will not learn"
            act = symnb.activation(name)
        for dtype in ("float32", "float64"):
            path = tmp_path / f"{name}_{dtype}.h"
            path.write_text(act.to_source(dialect, dtype))
            headers.append(path)
    calls = "\n".join(
        f"    s += (double)symnb_{n}::f(0.5f) + (double)symnb_{n}_f64::df(0.5);"
        for n in sorted(library.ACTIVATIONS)
    )
    # the C library first (its own headers are not under test), then the macros,
    # then symnb's headers, whose <math.h> is then already included
    unit = "\n".join(
        ["#include <math.h>", "#include <cmath>", PLATFORM_MACROS]
        + [f'#include "{h}"' for h in headers]
        + ["double use() {", "    double s = 0;", calls, "    return s;", "}"]
    )
    src = tmp_path / "unit.cpp"
    src.write_text(unit)
    cmd = [
        CXX,
        "-std=c++17",
        "-fsyntax-only",
        "-Wall",
        "-Werror",
        "-x",
        "c++",
        str(src),
    ]
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[:3000]
