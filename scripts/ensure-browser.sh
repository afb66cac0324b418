#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed, for the checks that open the bench's and the soak's
# HTML reports in a real headless browser (BrowserCheck). Not needed by the default test run.
# Idempotent; as root with apt-get it installs the package, otherwise it prints the command.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-browser: installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
else
  echo "ensure-browser: Chromium is missing; run: sudo apt-get install chromium" >&2
  exit 1
fi
