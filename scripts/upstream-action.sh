#!/usr/bin/env bash
# The composite action's step (.github/actions/acp-docs-upstream/action.yml):
# `acp-docs check --upstream` on the tree at $ACP_DOCS_PATH, its findings as
# annotations (the first ten of each level) and a job summary of every one,
# exactly as this repository's own `check` job shows them. Inputs arrive as
# environment variables, never spliced into the script.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
report="${RUNNER_TEMP:-/tmp}/acp-docs-upstream.json"
args=(--format json --min-level "${ACP_DOCS_MIN_LEVEL:-warning}")
if [ -n "${ACP_DOCS_BASELINE:-}" ]; then
  args+=(--baseline "$ACP_DOCS_BASELINE")
fi
cd "${ACP_DOCS_PATH:-.}"
status=0
"$here/scripts/upstream-check.sh" "${args[@]}" > "$report" || status=$?
"$here/.venv/bin/acp-docs" report "$report" --status "$status" \
  --min-level "${ACP_DOCS_MIN_LEVEL:-warning}"
exit "$status"
