"""The lab extension's package metadata agrees with the Python package."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

REPO = Path(__file__).resolve().parents[2]
EXT = REPO / "labextension"


def _package() -> dict:
    return json.loads((EXT / "package.json").read_text(encoding="utf-8"))


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_versions_and_names_match():
    package = _package()
    project = _pyproject()["project"]
    assert package["name"] == project["name"] == "symnb"
    assert package["version"] == project["version"]


def test_built_extension_is_shipped_as_shared_data():
    package = _package()
    out = (EXT / package["jupyterlab"]["outputDir"]).resolve()
    assert out == REPO / "symnb" / "labextension"
    wheel = _pyproject()["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["shared-data"]["symnb/labextension"] == (
        "share/jupyter/labextensions/symnb"
    )
    hook = _pyproject()["tool"]["hatch"]["build"]["hooks"]["jupyter-builder"]
    assert "symnb/labextension/static/style.js" in hook["ensured-targets"]
    assert hook["build-kwargs"]["path"] == "labextension"
    assert hook["build-kwargs"]["build_cmd"] in package["scripts"]
    assert hook["editable-build-kwargs"]["build_cmd"] in package["scripts"]


def test_built_javascript_is_not_committed():
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").split()
    assert "symnb/labextension/" in ignored
    assert "labextension/node_modules/" in ignored
    assert "labextension/lib/" in ignored


def test_toolbar_button_runs_the_insert_command():
    schema = json.loads((EXT / "schema" / "plugin.json").read_text(encoding="utf-8"))
    items = schema["jupyter.lab.toolbars"]["Notebook"]
    index = (EXT / "src" / "index.ts").read_text(encoding="utf-8")
    command = re.search(r"insertActivationCell = '([^']+)'", index).group(1)
    assert command == "symnb:insert-activation-cell"
    assert [item["command"] for item in items] == [command]
    # the schema belongs to the plugin whose id is '<package>:plugin'
    assert "id: 'symnb:plugin'" in index
