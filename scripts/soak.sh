#!/usr/bin/env bash
# `npm run soak` (test/soak/run.ts): the webhook receiver's certificate comes from the suite's test
# CA, which Node trusts only through NODE_EXTRA_CA_CERTS set when a process starts, so the soak
# and every role process it starts inherit it from here.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_EXTRA_CA_CERTS=$(bash scripts/ensure-test-ca.sh)
LATTICE_TEST_CA_DIR=$(dirname "$NODE_EXTRA_CA_CERTS")
export NODE_EXTRA_CA_CERTS LATTICE_TEST_CA_DIR
exec tsx test/soak/run.ts "$@"
