#!/usr/bin/env bash
# Prepare this machine for the browser tests (tests/browser): idempotent.
#
#   scripts/ci_browser_setup.sh [PYTHON]
#
# - installs Debian's chromium with apt-get when no chromium is on PATH (about 90 s);
# - installs the Python test tools (jupyterlab, playwright) into PYTHON's environment
#   when they are missing, without Playwright's own browser download (it cannot reach
#   its CDN here, and the tests use the system chromium).
# Node, npm and jlpm are not needed here: `pip install .` builds the lab extension
# (jupyter_builder brings jlpm; node comes from the system).
set -euo pipefail

PYTHON="${1:-${PYTHON:-python3}}"

if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  echo "ci_browser_setup: chromium present: $(command -v chromium || command -v chromium-browser)"
else
  echo "ci_browser_setup: installing chromium with apt-get"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
  command -v chromium >/dev/null 2>&1 || { echo "ci_browser_setup: chromium still missing" >&2; exit 1; }
fi

missing=()
"$PYTHON" -c "import jupyterlab" 2>/dev/null || missing+=("jupyterlab>=4.4")
"$PYTHON" -c "import playwright.sync_api" 2>/dev/null || missing+=("playwright>=1.45")
"$PYTHON" -c "import nbformat" 2>/dev/null || missing+=("nbformat>=5.9")
if [ "${#missing[@]}" -gt 0 ]; then
  echo "ci_browser_setup: pip installing ${missing[*]}"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$PYTHON" -m pip install -q "${missing[@]}"
fi

echo "ci_browser_setup: ok ($("$PYTHON" -c 'import jupyterlab, playwright; print("jupyterlab", jupyterlab.__version__)'))"
