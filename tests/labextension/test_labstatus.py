"""The kernel side of the JupyterLab status-bar item (symnb.notebook.labstatus)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from symnb.notebook import labstatus, state

STATUS_TS = Path(__file__).resolve().parents[2] / "labextension" / "src" / "status.ts"


def _frontend_expression() -> str:
    """The exact Python expression the lab extension sends (from status.ts)."""
    text = STATUS_TS.read_text(encoding="utf-8")
    block = re.search(r"STATUS_EXPRESSION =\s*((?:\"[^\"]*\"\s*\+?\s*)+);", text)
    assert block, "STATUS_EXPRESSION not found in status.ts"
    return "".join(re.findall(r"\"([^\"]*)\"", block.group(1)))


@pytest.fixture
def fresh_state():
    state.reset()
    yield state
    state.reset()


@pytest.fixture
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    return InteractiveShell.instance()


def test_payload_defaults(fresh_state):
    payload = labstatus.status_payload()
    assert payload["loaded"] is True
    assert payload["magics"] is False
    assert payload["backend"] in ("auto", "numpy", "cpp", "cuda")
    assert payload["version"]
    json.dumps(payload)  # serialisable


@pytest.mark.parametrize(
    ("backend", "device", "shown"),
    [("cpp", 0, "cpu"), ("numpy", 3, "cpu"), ("cuda", 1, "cuda:1")],
)
def test_payload_follows_the_session_default(fresh_state, backend, device, shown):
    state.set_backend(backend)
    state.set_device(device)
    payload = labstatus.status_payload()
    assert payload["backend"] == backend
    assert payload["device"] == shown


def test_auto_reports_the_backend_last_used(fresh_state):
    state.last_compile = {
        "name": "swish",
        "backend": "cpp",
        "device": None,
        "seconds": 0.25,
        "cache_hit": True,
    }
    payload = labstatus.status_payload()
    assert payload["backend"] == "cpp"
    assert payload["device"] == "cpu"
    assert "swish" in payload["detail"] and "cache hit" in payload["detail"]


def test_auto_never_probes_backends(fresh_state, monkeypatch):
    select = sys.modules.get("symnb.backends.select")
    if select is not None:
        monkeypatch.setattr(select, "_status", {})
    payload = labstatus.status_payload()
    assert payload["backend"] == "auto"
    assert payload["device"] == "auto"


def test_a_broken_state_module_does_not_raise(fresh_state, monkeypatch):
    def broken():
        raise RuntimeError("boom")

    monkeypatch.setattr(state, "snapshot", broken)
    payload = labstatus.status_json().payload
    assert payload["loaded"] is True
    assert isinstance(payload["backend"], str)


def test_user_expression_gives_json(shell, fresh_state):
    state.set_backend("cpp")
    reply = shell.user_expressions({"symnb_status": _frontend_expression()})
    result = reply["symnb_status"]
    assert result["status"] == "ok", result
    assert result["data"]["application/json"]["backend"] == "cpp"
    assert json.loads(result["data"]["text/plain"])["device"] == "cpu"


def test_user_expression_is_false_without_symnb(shell, monkeypatch):
    monkeypatch.delitem(sys.modules, "symnb")
    before = set(sys.modules)
    reply = shell.user_expressions({"symnb_status": _frontend_expression()})
    assert reply["symnb_status"]["status"] == "ok"
    assert reply["symnb_status"]["data"]["text/plain"] == "False"
    assert "symnb" not in sys.modules  # asking did not import symnb
    assert set(sys.modules) == before
