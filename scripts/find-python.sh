#!/usr/bin/env bash
# Print the path of a Python interpreter >= 3.12, or explain what is missing and fail.
# Order: $PYTHON, python3.12, python3.13, python3, then pyenv's installed versions.
set -u
ok() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }
candidates=()
[ -n "${PYTHON:-}" ] && candidates+=("$PYTHON")
candidates+=(python3.12 python3.13 python3)
root="${PYENV_ROOT:-$HOME/.pyenv}"
if [ -d "$root/versions" ]; then
  for v in $(ls -1 "$root/versions" 2>/dev/null | sort -t. -k1,1n -k2,2n -k3,3n); do
    candidates+=("$root/versions/$v/bin/python3")
  done
fi
for c in "${candidates[@]}"; do
  p=$(command -v "$c" 2>/dev/null) || continue
  if ok "$p"; then echo "$p"; exit 0; fi
  if [ -n "${PYTHON:-}" ] && [ "$c" = "$PYTHON" ]; then
    echo "find-python: \$PYTHON=$PYTHON is not Python >= 3.12; looking further" >&2
  fi
done
cat >&2 <<'MSG'
find-python: bayesjudge needs Python >= 3.12 (PyMC 6 and ArviZ 1 require it), and none was found.
Looked at $PYTHON, python3.12, python3.13, python3 and ~/.pyenv/versions/*.
Install one (e.g. `pyenv install 3.12`) or point PYTHON at it: `make PYTHON=/path/to/python3.12 setup`.
MSG
exit 1
