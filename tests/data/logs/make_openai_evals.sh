#!/usr/bin/env bash
# Regenerate tests/data/logs/openai_evals/{match,repeat}.jsonl with OpenAI evals' own `oaieval`.
#
#   OAIEVAL=/path/to/venv/bin/oaieval tests/data/logs/make_openai_evals.sh
#
# Offline: the completion function is evals' built-in `dummy` (it always answers
# "This is a dummy response."), the samples are local, and evals' LocalRecorder writes the logs.
# `pip install evals` (3.0.1.post1) did not resolve here (snowflake-connector-python pins a
# pyarrow that has no wheel), so the side virtualenv holds `pip install --no-deps evals` plus
# the modules its import needs: blobfile requests pydantic lz4 zstandard openai backoff tqdm
# pyyaml tiktoken. Importing evals builds an OpenAI client, which wants a key: a placeholder
# is set, and no request is made.
set -euo pipefail
cd "$(dirname "$0")/openai_evals"
OAIEVAL=${OAIEVAL:-oaieval}
export OPENAI_API_KEY=${OPENAI_API_KEY:-offline-placeholder}
export EVALS_THREADS=1 EVALS_SEQUENTIAL=1 PYTHONPATH=$PWD
for eval in match repeat; do
  rm -f "$eval.jsonl"
  $OAIEVAL dummy "bj-$eval" --registry_path registry --record_path "$eval.jsonl" --no-cache
  test -s "$eval.jsonl"
done
