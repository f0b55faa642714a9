#!/usr/bin/env bash
# Run notebooks/01_quickstart.ipynb headless with nbclient and save the executed copy to
# notebooks/01_quickstart.executed.ipynb (outputs, LaTeX and PNG plots included).
# Exits non-zero when a cell fails, and ends by printing the one command that opens the
# quickstart in JupyterLab (installed by the notebook extra).
# Usage: scripts/quickstart.sh [TIMEOUT_SECONDS]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Set up .venv with symnb first (idempotent; skip with SYMNB_SKIP_SETUP=1).
if [[ "${SYMNB_SKIP_SETUP:-0}" != "1" ]]; then bash "$ROOT/scripts/setup.sh"; fi
PYTHON="${PYTHON:-}"
if [[ -z "$PYTHON" ]]; then
  if [[ -x "$ROOT/.venv/bin/python" ]]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi
export MPLBACKEND=Agg
status=0
"$PYTHON" - "$ROOT" "${1:-600}" <<'PY' || status=$?
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

root, timeout = Path(sys.argv[1]), int(sys.argv[2])
src = root / "notebooks" / "01_quickstart.ipynb"
dst = root / "notebooks" / "01_quickstart.executed.ipynb"
nb = nbformat.read(src, as_version=4)
# kernel "python3" with argv[0] == "python" runs this interpreter (the venv's)
client = NotebookClient(
    nb, timeout=timeout, kernel_name="python3",
    resources={"metadata": {"path": str(src.parent)}},
)
start = time.perf_counter()
status = 0
try:
    client.execute()
except CellExecutionError as exc:
    print(f"quickstart: a cell failed:\n{exc}", file=sys.stderr)
    status = 1
except Exception as exc:  # kernel died, timeout, ...
    print(f"quickstart: execution failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    status = 1
finally:
    nbformat.write(nb, dst)
n_png = sum(
    "image/png" in out.get("data", {})
    for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
)
print(f"quickstart: {'ok' if status == 0 else 'FAILED'} in {time.perf_counter() - start:.1f} s, "
      f"{n_png} plot(s); saved {dst.relative_to(root)}")
sys.exit(status)
PY
# The one command that opens the notebook interactively (--allow-root only as root).
JUPYTER="$(dirname "$PYTHON")/jupyter"
[[ -x "$JUPYTER" ]] || JUPYTER=jupyter
allow_root=""
[[ "$(id -u)" == "0" ]] && allow_root=" --allow-root"
echo "quickstart: open it in JupyterLab with:"
echo "  $JUPYTER lab$allow_root $ROOT/notebooks/01_quickstart.ipynb"
exit "$status"
