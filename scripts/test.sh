#!/usr/bin/env bash
# Run the whole test suite on a fresh machine that has only Python:
# makes .venv, installs the project with its test extras and the CPU torch
# oracle, then runs ruff and pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh test
# torch is a test-only oracle: the tests that compare with it skip when it is absent
.venv/bin/python -m pip install --quiet "torch==2.13.0" || echo "torch could not be installed: comparisons with PyTorch will be skipped"

# a system Graphviz, so that drawings are also tested with the "dot" renderer
# (autogradviz itself renders with the graphviz-pure wheel and needs none)
if ! command -v dot >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && apt-get install -y -qq graphviz >/dev/null) || echo "apt-get could not install graphviz: the dot renderer tests will be skipped"
  else
    echo "no system Graphviz: the dot renderer tests will be skipped"
  fi
fi

# a CJK font, so Chinese labels in drawings and PNG exports have glyphs (fc-list :lang=zh)
if command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && apt-get install -y -qq fonts-noto-cjk >/dev/null) || echo "apt-get could not install fonts-noto-cjk: Chinese labels will be boxes in PNGs"
  fi
fi

# Debian's chromium, for the BackwardStepper's real-browser tests (Playwright drives it;
# `playwright install` would download a browser of its own, which CI cannot)
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || echo "apt-get could not install chromium: the browser tests will be skipped"
  else
    echo "no /usr/bin/chromium: the browser tests will be skipped"
  fi
fi

# a CJK font, so that the Chinese lessons' drawings and steppers render glyphs, not boxes
# (tests/test_classroom_browser.py checks this in chromium)
if command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list :lang=zh)" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && apt-get install -y -qq fonts-noto-cjk >/dev/null) || echo "apt-get could not install fonts-noto-cjk: the CJK browser test will be skipped"
  else
    echo "no CJK font (fonts-noto-cjk): the CJK browser test will be skipped"
  fi
fi

# notebooks: the lessons' build scripts (notebooks/src) and the cells they write
# (notebooks/en, notebooks/zh: in the scripts the cells are strings, which ruff cannot read);
# pyproject.toml says which rules the cells skip, and why they are not formatted
.venv/bin/python -m ruff check autogradviz tests benchmarks notebooks
.venv/bin/python -m ruff format --check autogradviz tests benchmarks notebooks/src
# Some machines force OpenBLAS onto one kernel family (OPENBLAS_CORETYPE=Haswell on an
# AVX-512 CPU was seen on 2026-12-02). A different kernel rounds matmuls differently, and
# lesson 11's 100-step ReLU training is chaotic enough that its saved step-100 numbers
# then differ (0.1420 vs 0.0982 for the final loss): the tests let OpenBLAS pick the
# CPU's own kernel, as it does on a learner's laptop. (The lesson's table should not
# depend on the kernel at all; see the issue-10 note of that day.)
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
.venv/bin/python -m pytest -q "$@"
