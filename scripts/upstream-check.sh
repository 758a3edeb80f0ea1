#!/usr/bin/env bash
# `acp-docs check --upstream` for other repositories: the entry of the
# pre-commit hook (.pre-commit-hooks.yaml) and the step of the composite action
# (.github/actions/acp-docs-upstream). It sets up acp-docs beside itself once
# (its .venv and node_modules, by `make`, which does nothing when they are
# current; no system package is needed for an upstream check), then checks the
# tree in the current folder. Extra arguments go to `acp-docs check`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
make -C "$here" --no-print-directory -s .venv/.acp-docs-installed node_modules/.acp-docs-installed >&2
exec "$here/.venv/bin/acp-docs" check --upstream . "$@"
