"""In a real IPython kernel: training runs in the background while the kernel keeps
executing requests, so Pause (a comm message from the browser, or a cell) is handled."""

from __future__ import annotations

import sys
import time

import pytest

jupyter_client = pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")


def run(kc, code: str, timeout: float = 120) -> tuple[str, list[dict]]:
    """Execute ``code``; return (stdout, error contents)."""
    msg_id = kc.execute(code)
    out, errors = [], []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "stream":
            out.append(msg["content"]["text"])
        elif kind == "error":
            errors.append(msg["content"])
        elif kind == "status" and msg["content"]["execution_state"] == "idle":
            break
    return "".join(out), errors


@pytest.mark.slow
def test_kernel_stays_responsive_while_training_and_pause_works() -> None:
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.kernel_cmd = [
        sys.executable,
        "-m",
        "ipykernel_launcher",
        "-f",
        "{connection_file}",
    ]
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        _, err = run(
            kc,
            "from symnb.widgets import Playground\n"
            "pg = Playground(config={'dataset': 'spiral', 'hidden': [8, 8], "
            "'backend': 'numpy'})\n"
            "pg.play()",
        )
        assert not err, err
        # the cell above returned while training goes on: a new request is served
        t0 = time.monotonic()
        out, err = run(
            kc,
            "import time; time.sleep(1.0); print('running', pg.is_running, pg.epoch)",
        )
        assert not err, err
        assert time.monotonic() - t0 < 30
        assert out.startswith("running True")
        assert int(out.split()[-1]) > 0
        # Pause the way the browser does: a comm message "click" to the Pause button
        out, _ = run(kc, "print(pg.pause_button.model_id)")
        comm_id = out.strip()
        msg = kc.session.msg(
            "comm_msg",
            {
                "comm_id": comm_id,
                "data": {"method": "custom", "content": {"event": "click"}},
            },
        )
        kc.shell_channel.send(msg)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            out, err = run(kc, "print(pg.is_running)")
            if out.strip() == "False":
                break
            time.sleep(0.2)
        assert out.strip() == "False", "the Pause click did not stop training"
        out, err = run(
            kc,
            "n = pg.epoch; time.sleep(0.3); print(n == pg.epoch, "
            "pg.epoch_label.value == f'Epoch {n}', n > 0)",
        )
        assert not err, err
        assert out.split() == ["True", "True", "True"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
