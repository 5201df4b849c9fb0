#!/usr/bin/env bash
# Runs the built Swift Testing suite N times in a row (each run parallel, as `swift test` runs it) and
# counts the runs that failed and the ones in which a forked child or a search hit its timeout: the
# measure of issue 29's "20 parallel runs with no timeout".
#
#   Scripts/repeat-tests.sh 20                          the whole suite, 20 times
#   Scripts/repeat-tests.sh 20 RetainGraphCensusTests   a census-heavy suite, 20 times
#
# Build first (swift build --build-tests). The test binaries are copied to a temporary folder, so the
# checkout can be rebuilt while this runs. Each run's output is kept in .build/repeat/run-K.txt; a
# summary line per run and a total end the output (REPEAT_LOGS names another folder, for two
# repeats at once). Exits non-zero when a run failed.
set -uo pipefail
count=${1:?usage: Scripts/repeat-tests.sh COUNT [FILTER]}
filter=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
built="$root/.build/debug"
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
for binary in RetainGraphPackageTests.xctest retain-graph retain-graph-fork-probe; do
  if [ ! -x "$built/$binary" ]; then
    echo "repeat-tests: $built/$binary is not built (run swift build --build-tests)" >&2
    exit 2
  fi
  cp "$built/$binary" "$copy/"
done
logs=${REPEAT_LOGS:-"$root/.build/repeat"}
mkdir -p "$logs"
arguments=(--testing-library swift-testing)
if [ -n "$filter" ]; then arguments+=(--filter "$filter"); fi

failed=0
timedOut=0
for run in $(seq 1 "$count"); do
  log="$logs/run-$run.txt"
  start=$(date +%s)
  (cd "$root" && "$copy/RetainGraphPackageTests.xctest" "${arguments[@]}") > "$log" 2>&1
  status=$?
  seconds=$(($(date +%s) - start))
  # A failing issue that says a forked child was killed at its deadline, or a holder search was
  # stopped at its limit (tests that make a child hang on purpose expect theirs: not counted).
  timeouts=$(sed -E 's/\x1b\[[0-9;]*m//g' "$log" | grep -cE "^✘ .*did not finish within" || true)
  summary=$(sed -E 's/\x1b\[[0-9;]*m//g' "$log" | grep -E "Test run with [0-9]+ tests?" | tail -n 1 \
    | sed -E 's/^[^A-Za-z]+//')
  if [ "$status" -ne 0 ]; then failed=$((failed + 1)); fi
  if [ "$timeouts" -gt 0 ]; then timedOut=$((timedOut + 1)); fi
  echo "run $run: exit $status, $seconds s, $timeouts timeout lines; $summary (load $(cut -d' ' -f1-3 /proc/loadavg))"
done
echo "repeat-tests: $count runs${filter:+ of $filter}: $failed failed, $timedOut with a timeout line (logs in $logs)"
[ "$failed" -eq 0 ]
