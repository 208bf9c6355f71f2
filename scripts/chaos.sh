#!/usr/bin/env bash
# `npm run chaos` (test/chaos/run.ts): as scripts/soak.sh, the webhook receiver's certificate comes
# from the suite's test CA, which Node trusts only through NODE_EXTRA_CA_CERTS set when a process
# starts, so the run and every role process it starts inherit it from here. Node runs the script
# itself (no tsx wrapper process), so Ctrl-C and SIGTERM reach the handler that stops everything
# the run started.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_EXTRA_CA_CERTS=$(bash scripts/ensure-test-ca.sh)
LATTICE_TEST_CA_DIR=$(dirname "$NODE_EXTRA_CA_CERTS")
export NODE_EXTRA_CA_CERTS LATTICE_TEST_CA_DIR
exec node --import tsx test/chaos/run.ts "$@"
