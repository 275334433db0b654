#!/usr/bin/env bash
# Regenerate tests/data/logs/promptfoo/results.json with promptfoo itself, offline.
#
#   PROMPTFOO=/path/to/node_modules/.bin/promptfoo tests/data/logs/make_promptfoo.sh
#
# PROMPTFOO defaults to `npx --yes promptfoo@0.121.20` (needs Node.js and the npm registry once).
# The providers are promptfoo's built-in `echo` and an `exec:` shell script, so no model API is
# called; telemetry, update checks and the result cache are off.
set -euo pipefail
cd "$(dirname "$0")/promptfoo"
PROMPTFOO=${PROMPTFOO:-"npx --yes promptfoo@0.121.20"}
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1
config_dir=$(mktemp -d)
trap 'rm -rf "$config_dir"' EXIT
export PROMPTFOO_CONFIG_DIR=$config_dir
rm -f results.json
# Exit status 100 means "some tests failed", which this fixture wants; anything else is an error.
$PROMPTFOO eval -c promptfooconfig.yaml --repeat 2 --no-cache --no-table --output results.json || [ $? -eq 100 ]
test -s results.json
