#!/usr/bin/env bash
# Set up the environment (scripts/setup.sh test) and run the whole test suite.
#   scripts/test.sh [pytest args...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh test
export MPLBACKEND=Agg
# A private kernel cache for this run (tests/conftest.py makes one if unset).
exec .venv/bin/python -m pytest "$@"
