#!/usr/bin/env bash
# Set up the environment (scripts/setup.sh test) and run the whole test suite.
#   scripts/test.sh [pytest args...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh test
export MPLBACKEND=Agg
# A private kernel cache for this run (tests/conftest.py makes one if unset), shared
# by the workers (the disk cache is race-safe).
# One pytest worker per core, at most 4 (SYMNB_TEST_WORKERS overrides; 0: one process).
# Whole files go to one worker (--dist loadfile): module fixtures compile once.
workers="${SYMNB_TEST_WORKERS:-$(nproc 2>/dev/null || echo 1)}"
if [[ ! "$workers" =~ ^[0-9]+$ ]]; then
  echo "test.sh: SYMNB_TEST_WORKERS must be a whole number, got '$workers'" >&2
  exit 2
fi
(( workers > 4 )) && workers=4
if (( workers > 1 )); then
  set -- -n "$workers" --dist loadfile "$@"
fi
exec .venv/bin/python -m pytest "$@"
