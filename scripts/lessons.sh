#!/usr/bin/env bash
# Open the lessons in JupyterLab, on a fresh machine that has only Python:
# makes .venv, installs the project with its lesson extras, starts JupyterLab.
# Extra arguments go to `jupyter lab` (for example --no-browser --port 8899).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh lessons
extra=()
if [ "$(id -u)" = "0" ]; then extra+=(--allow-root); fi
cd notebooks
exec ../.venv/bin/jupyter lab "${extra[@]}" en/01_computation_graph.ipynb "$@"
