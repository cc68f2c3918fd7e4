#!/usr/bin/env bash
# Runs a command on another Node.js major line, as a newcomer's machine might
# have it: the official build, from the npm registry's node-linux-<arch>
# package (headers included), cached outside the repository.
#   scripts/with-node.sh <major> <command> [args...]
# e.g. scripts/with-node.sh 24 npx tsx scripts/test.ts sqlite alone
# (The SQLite driver each line loads is src/journal/sqlite-driver.ts's choice.)
set -euo pipefail
major=$1; shift
cd "$(dirname "$0")/.."
cache=${LEGALWORK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/legalwork}
pkg=node-linux-$(node -p process.arch)
version=$(npm view "$pkg@^$major" version --json | node -p 'const n = (v) => v.split(".").map(Number); [].concat(JSON.parse(require("fs").readFileSync(0, "utf8"))).sort((a, b) => n(a).reduce((d, x, i) => d || x - n(b)[i], 0)).pop()')
home=$cache/node-v$version
if [ ! -x "$home/bin/node" ]; then
  echo "with-node: fetching $pkg@$version into $home" >&2
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/fetch-XXXXXX")
  npm pack "$pkg@$version" --pack-destination "$tmp" --silent >/dev/null
  tar xzf "$tmp"/*.tgz -C "$tmp"
  rm -rf "$home" && mv "$tmp/package" "$home" && rm -rf "$tmp"
fi
echo "with-node: running on $("$home/bin/node" --version): $*" >&2
PATH="$home/bin:$PATH" "$@"
