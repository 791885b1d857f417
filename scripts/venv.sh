# Sourced by test.sh and lessons.sh: make .venv if it is missing, then install
# the project into it with the extras named in $1 (for example "test").
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[$1]"
