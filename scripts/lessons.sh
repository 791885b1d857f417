#!/usr/bin/env bash
# Open the lessons in JupyterLab, on a fresh machine that has only Python:
# makes .venv and installs the project with its lesson extras (again only when
# pyproject.toml changes, so later starts need no network), trusts the lessons
# so that their stored pictures show, then starts JupyterLab at notebooks/
# (English in en/, Chinese in zh/) with lesson 01 open.
# Extra arguments go to `jupyter lab` (for example --no-browser --port 8899).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh lessons
# an untrusted notebook shows its stored drawings and steppers as text; trusting signs
# the lessons in this user's Jupyter data dir (the files stay as they are)
.venv/bin/jupyter trust --log-level=WARN notebooks/*/*.ipynb >/dev/null
extra=()
if [ "$(id -u)" = "0" ]; then extra+=(--allow-root); fi
cd notebooks
# root_dir is given: with only a file to open, JupyterLab would serve just that file's folder (en/)
exec ../.venv/bin/jupyter lab ${extra[@]+"${extra[@]}"} --ServerApp.root_dir="$PWD" en/01_computation_graph.ipynb "$@"
