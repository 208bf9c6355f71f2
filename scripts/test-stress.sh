#!/usr/bin/env bash
# `npm run test:stress`: flakiness made visible before CI meets it. Runs the tests N times in a
# row with a CPU hog on one core beside them (a busy loop this script starts and stops: CI's
# two-core machine with another job on it), then prints every test that failed in any run, with
# how many runs it failed in.
#
#   npm run test:stress                          the mocha suite 3 times (no lint or type check)
#   npm run test:stress -- --runs 5 FILE...      the given spec files (or globs), 5 times
#   npm run test:stress -- --ci --runs 3         `bash .ci/run` 3 times (lint, types, every test)
#   --no-hog                                     without the CPU hog
# Runs in the database lattice_test_stress (LATTICE_TEST_DATABASE picks another).
# Exit status: 0 when every run passed, 1 otherwise. Failures of each run are kept in
# .lattice/test-stress/<start>/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3
hog=1
ci=0
files=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --runs=*) runs=${1#--runs=}; shift ;;
    --no-hog) hog=0; shift ;;
    --ci) ci=1; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) files+=("$1"); shift ;;
  esac
done
case "$runs" in ''|*[!0-9]*|0) echo "test:stress: --runs takes a positive whole number (got '$runs')" >&2; exit 2 ;; esac
if [ "$ci" = 1 ] && [ "${#files[@]}" -gt 0 ]; then
  echo "test:stress: --ci runs the whole suite; it takes no files" >&2
  exit 2
fi

# A database of its own (unless one is named): the suite's actors processes sweep every product of
# their database, so a suite run beside this one on the same database would deliver this one's
# webhooks (and this one its), with its own test CA.
export LATTICE_TEST_DATABASE=${LATTICE_TEST_DATABASE:-lattice_test_stress}
dir=.lattice/test-stress/$(date -u +%Y-%m-%dT%H-%M-%SZ)
mkdir -p "$dir"
hog_pid=
stop_hog() {
  if [ -n "$hog_pid" ]; then kill "$hog_pid" 2>/dev/null || true; wait "$hog_pid" 2>/dev/null || true; fi
  hog_pid=
}
trap stop_hog EXIT
trap 'exit 130' INT TERM
echo "test:stress: database $LATTICE_TEST_DATABASE"
if [ "$hog" = 1 ]; then
  node -e 'for (;;) {}' &
  hog_pid=$!
  echo "test:stress: CPU hog on one core (pid $hog_pid)"
fi

failed_runs=0
for run in $(seq 1 "$runs"); do
  failures="$PWD/$dir/run-$run.failures"
  : > "$failures"
  started=$(date +%s)
  echo "test:stress: run $run/$runs started $(date -u +%H:%M:%S); output in $dir/run-$run.log"
  set +e
  if [ "$ci" = 1 ]; then
    LATTICE_TEST_FAILURES_FILE=$failures bash .ci/run > "$dir/run-$run.log" 2>&1
  elif [ "${#files[@]}" -gt 0 ]; then
    LATTICE_TEST_FAILURES_FILE=$failures bash scripts/test-mocha.sh --only "${files[@]}" > "$dir/run-$run.log" 2>&1
  else
    LATTICE_TEST_FAILURES_FILE=$failures bash scripts/test-mocha.sh > "$dir/run-$run.log" 2>&1
  fi
  status=$?
  set -e
  summary=$(grep -E '^mocha: [0-9]+ passed' "$dir/run-$run.log" | tail -n 1 || true)
  [ -n "$summary" ] || summary="no mocha summary (see the log)"
  echo "test:stress: run $run/$runs exit $status, $summary, $(( $(date +%s) - started )) s"
  if [ "$status" -ne 0 ]; then failed_runs=$((failed_runs + 1)); fi
done
stop_hog

echo
if cat "$dir"/run-*.failures | grep -q .; then
  echo "test:stress: tests that failed, with the number of runs each failed in (of $runs):"
  cat "$dir"/run-*.failures | sort | uniq -c | sort -rn
else
  echo "test:stress: no test failed in $runs run(s)"
fi
echo "test:stress: $failed_runs of $runs run(s) failed"
[ "$failed_runs" -eq 0 ]
