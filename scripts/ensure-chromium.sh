#!/usr/bin/env bash
# The browser tests drive Debian's chromium (test/browser.test.ts fails without
# it), so `npm test` installs it from Debian's packages when it is missing.
set -euo pipefail
[ -x /usr/bin/chromium ] && exit 0
echo "chromium is missing: installing Debian's chromium for the browser tests" >&2
if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
  echo "cannot install chromium without root: run 'apt-get install -y chromium' as root, then npm test" >&2
  exit 1
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
