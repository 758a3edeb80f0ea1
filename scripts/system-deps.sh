#!/usr/bin/env bash
# Install the system packages the checks need (Aspell with its English
# dictionary, Chromium for the browser tests) when they are missing. As root on
# Debian this runs apt-get; anywhere else it says what to install and goes on,
# and the checks that need the missing tool then fail with the same advice.
set -euo pipefail

missing=()
command -v aspell >/dev/null 2>&1 || missing+=(aspell)
if command -v aspell >/dev/null 2>&1 && ! aspell dicts 2>/dev/null | grep -q '^en'; then
  missing+=(aspell-en)
elif ! command -v aspell >/dev/null 2>&1; then
  missing+=(aspell-en)
fi
command -v chromium >/dev/null 2>&1 || missing+=(chromium fonts-liberation)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "warning: missing system packages: ${missing[*]}" >&2
  echo "  on Debian or Ubuntu: sudo apt-get install ${missing[*]}" >&2
  echo "  on macOS: brew install aspell chromium" >&2
fi
