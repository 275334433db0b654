#!/bin/sh
# promptfoo exec provider: echoes the prompt, fails on the Madrid test
case "$1" in
  *Madrid*) echo "provider failed on purpose" >&2; exit 3 ;;
  *) printf '%s' "$1" ;;
esac
