#!/usr/bin/env bash
# Installs the locked dependencies (including the pinned Node) when node_modules is missing or
# was installed from a different package-lock.json. Runs before `npm start` and `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.lattice-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x node_modules/.bin/node ]; then
  exit 0
fi
echo "lattice: installing dependencies…"
# `npm install` rather than `npm ci`: it installs the locked versions too, and tolerates a
# registry mirror that lacks other platforms' optional binaries (npm ci refuses a lock without
# them). The stamp is taken after, from the lock as installed.
npm install --no-audit --no-fund --loglevel=error
sha256sum package-lock.json | cut -d' ' -f1 > "$stamp"
echo "lattice: using node $(node_modules/.bin/node --version)"
