"""The fused training step's source text (pure text generation, no compiler)."""

from __future__ import annotations

import symnb
from symnb import nn
from symnb.codegen.train_step import (
    ENTRY_POINT,
    EPOCH_ENTRY_POINT,
    render_train_step,
)
from symnb.nn.fused import build_spec


def _model(**kwargs):
    act = symnb.Activation("x*sigmoid(my_beta*x)", name="swish; system()", my_beta=1.5)
    return nn.MLP([3, 5, 2], activation=act, backend="numpy", **kwargs)


def test_step_and_epoch_entry_points_and_compile_time_sizes():
    spec = build_spec(_model())
    src = render_train_step(spec)
    assert src.entry_points == {"mlp_step": ENTRY_POINT, "mlp_epoch": EPOCH_ENTRY_POINT}
    assert f"double {ENTRY_POINT}(" in src.text
    assert f"double {EPOCH_ENTRY_POINT}(" in src.text
    assert "layer 0: 3 -> 5" in src.text and "layer 1: 5 -> 2" in src.text
    assert f"#define SYMNB_N_TOTAL {spec.n_total}" in src.text
    # user names never reach the source
    assert "my_beta" not in src.text and "system()" not in src.text


def test_digest_depends_on_what_changes_the_code():
    a = render_train_step(build_spec(_model()))
    b = render_train_step(build_spec(_model()))
    assert a.digest == b.digest
    c = render_train_step(build_spec(_model(dtype="float64")))
    assert c.digest != a.digest and "typedef double symnb_real;" in c.text
    masked = render_train_step(build_spec(_model(masks=[None, [[1, 0]] * 5])))
    assert masked.digest != a.digest
