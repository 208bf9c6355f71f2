#!/usr/bin/env bash
# The suite's mocha run with what its tests need around it: a real Chromium (installed from
# Debian when absent) and the test CA of the HTTPS webhook receivers. Every unit and integration
# test runs, with any arguments passed on to mocha; `--only FILE...` runs just the spec files
# (or globs) given, with any mocha options among them.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== browser (Debian chromium for the browser client's tests)"
CHROMIUM_PATH=$(bash scripts/ensure-chromium.sh)
export CHROMIUM_PATH
echo "== test CA (HTTPS webhook receivers; generated once into .lattice/test-ca)"
NODE_EXTRA_CA_CERTS=$(bash scripts/ensure-test-ca.sh)
LATTICE_TEST_CA_DIR=$(dirname "$NODE_EXTRA_CA_CERTS")
export NODE_EXTRA_CA_CERTS LATTICE_TEST_CA_DIR
echo "== tests (mocha: unit + integration)"
if [ "${1:-}" = "--only" ]; then
  shift
else
  set -- 'shared/*/src/**/*.test.ts' 'services/*/src/**/*.test.ts' 'infra/src/**/*.test.ts' 'test/integration/**/*.test.ts' "$@"
fi
exec mocha --config .mocharc.json "$@"
