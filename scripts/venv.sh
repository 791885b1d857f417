# Sourced by test.sh and lessons.sh: make .venv if it is missing, then install
# the project into it with the extras named in $1 (for example "test").
#
# The install runs only when pyproject.toml changed since the last install with
# these extras: .venv/.$1-stamp holds a hash of pyproject.toml and the extras'
# name. So a second start calls no pip at all, and needs no network.
PYTHON="${PYTHON:-python3}"
# pip says only what went wrong: no "running pip as root" or "new pip release" notices
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=".venv/.$1-stamp"
fingerprint="$(.venv/bin/python -c 'import hashlib, sys
print(hashlib.sha256(open("pyproject.toml", "rb").read() + b"\n" + sys.argv[1].encode()).hexdigest())' "$1")"
if [ "$(cat "$stamp" 2>/dev/null)" != "$fingerprint" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[$1]"
  echo "$fingerprint" >"$stamp"  # written last: an install that failed is tried again next time
fi
