#!/usr/bin/env bash
# Installs a Debian package when the file the tests need from it is missing:
#   ensure-debian-package.sh <file or glob> <package> <what it is for>
# `npm test` needs chromium for the browser tests, and, on a machine that runs
# no PostgreSQL or Redis of its own, their server binaries to start throwaway
# ones (scripts/test-services.ts). A machine that has the file is left as it is.
#
# The install never leaves a server running: services are kept from starting
# (a policy-rc.d that says no, as Debian's container images have) and
# PostgreSQL's package makes no cluster of its own.
set -euo pipefail
file=$1 package=$2 why=$3
compgen -G "$file" >/dev/null && exit 0
echo "$file is missing: installing Debian's $package ($why)" >&2
if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
  echo "cannot install $package without root: run 'apt-get install -y $package' as root, then npm test" >&2
  exit 1
fi
cleanup=()
trap 'for f in "${cleanup[@]}"; do $SUDO rm -f "$f"; done' EXIT
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  cleanup+=(/usr/sbin/policy-rc.d)
fi
if [[ $package == postgresql* ]] && [ ! -e /etc/postgresql-common/createcluster.d/legalwork.conf ]; then
  $SUDO mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' | $SUDO tee /etc/postgresql-common/createcluster.d/legalwork.conf >/dev/null
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$package" >/dev/null
compgen -G "$file" >/dev/null || { echo "Debian's $package was installed but $file is still missing" >&2; exit 1; }
