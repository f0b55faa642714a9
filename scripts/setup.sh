#!/usr/bin/env bash
# Create (or update) the project's virtual environment in .venv and install symnb into it.
#
#   scripts/setup.sh          runtime + notebook execution (quickstart)
#   scripts/setup.sh test     + everything the test suite needs (incl. chromium for browser tests)
#
# Idempotent: a second run only checks. Uses the system python3 (>= 3.10).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
MODE="${1:-run}"
PY="${PYTHON_FOR_VENV:-python3}"
if [[ ! -x .venv/bin/python ]]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
fi
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
stamp=".venv/.symnb-installed-$MODE"
# The JupyterLab extension is built and copied into .venv by the install: a changed
# source (labextension/src, style, package.json) reinstalls, or JupyterLab keeps the old build.
lab_changed=""
if [[ -f "$stamp" ]]; then
  lab_changed="$(find labextension/src labextension/style labextension/package.json \
    -newer "$stamp" -print -quit 2>/dev/null || true)"
fi
if [[ ! -f "$stamp" || pyproject.toml -nt "$stamp" || -n "$lab_changed" ]]; then
  if [[ "$MODE" == "test" ]]; then extras="[test]"; else extras="[notebook]"; fi
  echo "setup: pip install -e .$extras"
  .venv/bin/python -m pip install -q -e ".$extras" 2>&1 | grep -v "^WARNING: Location" || true
  .venv/bin/python -c "import symnb" || { echo "setup: symnb failed to install" >&2; exit 1; }
  touch "$stamp"
fi
if [[ "$MODE" == "test" ]]; then
  bash scripts/ci_browser_setup.sh "$ROOT/.venv/bin/python"
fi
