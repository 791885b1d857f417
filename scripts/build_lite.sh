#!/usr/bin/env bash
# Build build/lite/, the lessons as a JupyterLite site that runs offline in the browser
# (see scripts/build_lite.py for where every file comes from and how it is checked).
# Serve it with:  python3 -m http.server -d build/lite 8000   and open http://localhost:8000/lab/
# Extra arguments go to build_lite.py (for example --pyodide DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
venv=build/lite-venv
if [ ! -x "$venv/bin/python" ]; then
  mkdir -p build
  "$PYTHON" -m venv "$venv"
fi
# the site's front end: JupyterLite, its Pyodide kernel, and the widgets' labextensions,
# the same versions as the Python packages the site installs (scripts/build_lite.py), except
# jupyterlab_widgets: 3.0.15, not the kernel's 3.0.17, because its widget manager was built
# against JupyterLab ^4.4.1 and JupyterLite 0.6.4 is JupyterLab 4.4.5 (3.0.16 needs ^4.4.6,
# 3.0.17 ^4.6.2: the browser warns "Unsatisfied version" and loads a second outputarea)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "jupyterlite-core==0.6.4" "jupyterlite-pyodide-kernel==0.6.1" \
  "anywidget==0.11.0" "jupyterlab_widgets==3.0.15" "jupyter_server>=2" setuptools wheel
exec "$venv/bin/python" scripts/build_lite.py "$@"
