#!/usr/bin/env bash
# Run the whole test suite on a fresh machine that has only Python:
# makes .venv, installs the project with its test extras and the CPU torch
# oracle, then runs ruff and pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[test]"
# torch is a test-only oracle: the tests that compare with it skip when it is absent
.venv/bin/python -m pip install --quiet "torch==2.13.0" || echo "torch could not be installed: comparisons with PyTorch will be skipped"

.venv/bin/python -m ruff check autogradviz tests benchmarks
.venv/bin/python -m ruff format --check autogradviz tests benchmarks
.venv/bin/python -m pytest -q "$@"
