#!/usr/bin/env bash
# Open the lessons in JupyterLab, on a fresh machine that has only Python:
# makes .venv, installs the project with its lesson extras, starts JupyterLab.
# Extra arguments go to `jupyter lab` (for example --no-browser --port 8899).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[lessons]"
extra=()
if [ "$(id -u)" = "0" ]; then extra+=(--allow-root); fi
exec .venv/bin/jupyter lab "${extra[@]}" notebooks/00_quick_tour.ipynb "$@"
