#!/usr/bin/env bash
# The full suite: lint and format check, type check, then every unit and integration test in
# one mocha run against real Kafka, Redis and PostgreSQL (started by the suite when absent) and a
# real Chromium (installed from Debian when absent).
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
echo "== browser (Debian chromium for the browser client's tests)"
CHROMIUM_PATH=$(bash scripts/ensure-chromium.sh)
export CHROMIUM_PATH
echo "== test CA (HTTPS webhook receivers; generated once into .lattice/test-ca)"
NODE_EXTRA_CA_CERTS=$(bash scripts/ensure-test-ca.sh)
LATTICE_TEST_CA_DIR=$(dirname "$NODE_EXTRA_CA_CERTS")
export NODE_EXTRA_CA_CERTS LATTICE_TEST_CA_DIR
echo "== tests (mocha: unit + integration)"
mocha --config .mocharc.json \
  'shared/*/src/**/*.test.ts' 'services/*/src/**/*.test.ts' 'infra/src/**/*.test.ts' 'test/integration/**/*.test.ts' "$@"
