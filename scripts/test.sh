#!/usr/bin/env bash
# The full suite: lint and format check, type check, then every unit and integration test in
# one mocha run (scripts/test-mocha.sh) against real Kafka, Redis and PostgreSQL (started by the
# suite when absent) and a real Chromium (installed from Debian when absent).
set -euo pipefail
cd "$(dirname "$0")/.."
node_version=$(node --version)
case "$node_version" in
  v26.*) ;;
  *) echo "lattice: expected the pinned Node 26 on PATH (got $node_version); run through npm test" >&2; exit 1 ;;
esac
echo "== lint and format (biome)"
biome check --error-on-warnings .
echo "== type check (tsc, strict)"
tsc -p tsconfig.json --noEmit
# The dashboard page's script is browser code (DOM types, no Node): a project of its own.
tsc -p services/management/dashboard/tsconfig.json --noEmit
bash scripts/test-mocha.sh "$@"
